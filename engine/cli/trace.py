"""``trace PATH [--step N|all] [--chip NAME] [model options] [--report FILE.md]``: a PyTorch profiler trace (or a
folder of one trace per rank) measured: each step's time split, the operators' FLOP and roofline, HFU and MFU,
and the bottlenecks (``engine.measure``)."""
from __future__ import annotations

import argparse

from ..errors import InputError

EPILOG = """\
The trace is read as a stream (bounded memory; traces of 1 GB and more are fine), .json or .json.gz, as
torch.profiler's export_chrome_trace or tensorboard_trace_handler writes it. Record shapes
(record_shapes=True) so that the operators' FLOP can be counted.

MFU needs the model's FLOP per step: --model-flop F, or a model with the trace's batch (per rank):
--scenario FILE.json --batch B (a saved estimate, an ONNX or `count` import), --preset ID --batch B, or
--config config.json --batch B --seq S (a language model).

examples:
  python -m engine trace run/rank0.pt.trace.json.gz
  python -m engine trace run/ --step 12 --config config.json --batch 8 --seq 2048
  python -m engine trace trace.json --chip nvidia-a100-sxm4-80gb --format json > measured.json
"""


def step_arg(text: str) -> str:
    """``--step``: a step number or ``all`` (argparse's own error otherwise, naming the flag and saying why)."""
    if text == "all" or (text.isdigit() and len(text) < 12):
        return text
    raise argparse.ArgumentTypeError(f"'{text[:40]}': a step number (ProfilerStep#N) or 'all'")


def model_options(p) -> None:
    """The model options shared by ``trace`` and ``profile``."""
    g = p.add_argument_group("the model (for MFU)")
    g.add_argument("--model-flop", type=float, default=None, metavar="F", help="the model's FLOP per training step")
    g.add_argument("--scenario", default=None, metavar="FILE.json", help="a scenario file (saved estimate, ONNX "
                   "or count import): (forward + backward) per example × --batch")
    g.add_argument("--preset", default=None, metavar="ID", help="a preset (python -m engine presets) × --batch")
    g.add_argument("--config", default=None, metavar="config.json",
                   help="a language model's config.json, at --batch sequences of --seq tokens")
    g.add_argument("--batch", type=int, default=None, help="examples (or sequences) per step on one rank")
    g.add_argument("--seq", type=int, default=None, help="tokens per sequence (with --config)")


def model_of(args):
    from ..measure.utilization import model_flop

    return model_flop(flop=args.model_flop, scenario=args.scenario, preset=args.preset, config=args.config,
                      batch=args.batch, seq=args.seq)


def _trace(args):
    from pathlib import Path

    from ..measure.ranks import measure_path, path_kind
    from ..measure.report import measurement_markdown
    from .files import write_text_file

    if not args.path.strip():
        raise InputError("PATH", "no file or folder named: give the trace's path (or a folder of ranks' traces)")
    path = Path(args.path)
    if path_kind(path, "PATH") == "missing":
        raise InputError(path.name[:120] or "PATH", "no such file or folder")
    result = measure_path(path, step=args.step, chip=args.chip, model=model_of(args))
    if args.report:
        write_text_file(args.report, measurement_markdown(result), "--report")
    return result


def register(sub) -> None:
    p = sub.add_parser("trace", help="measure a PyTorch profiler trace: time split, FLOP, roofline, HFU/MFU",
                       description="Measure a run from its PyTorch profiler trace (a .json or .json.gz file, or a "
                                   "folder of one trace per rank).",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("path", metavar="PATH", help="a trace file (.json, .json.gz) or a folder of them (one per rank)")
    p.add_argument("--step", type=step_arg, default="all", help="the profiled step to measure (N of ProfilerStep#N), "
                                                                "or all (default)")
    p.add_argument("--chip", default=None, metavar="NAME", help="the chip, when the trace's device name is not "
                                                                "in the database (python -m engine chips)")
    model_options(p)
    p.add_argument("--report", default=None, metavar="FILE.md", help="also write the Markdown report")
    p.set_defaults(run=_trace)
