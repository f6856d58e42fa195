"""``profile FILE.py:FACTORY --input SIZES [--steps N] [--device cpu|cuda] [--out TRACE.json]``: a short
training loop of your module run under torch.profiler here, its trace written and measured as ``trace`` does,
with MFU against FLOPscope's count of the same module (needs torch)."""
from __future__ import annotations

import argparse

EPILOG = """\
The file is imported and run here, on this machine (as `count` does): its code runs as any script of yours
would. Each step is output = module(x) on a random input of the given shape, output.sum().backward() and an
SGD step; one warm-up step comes first, unprofiled. The trace (with record_shapes) is written to --out and
measured: time split per step, operators' FLOP and roofline, HFU, and MFU from FlopCounterMode's count of the
module. On the CPU, name the chip (--chip) for HFU.

examples:
  python -m engine profile my_model.py:build --input 8,3,224,224 --steps 3
  python -m engine profile lm.py:TinyLM --input 4,512 --input-dtype long --device cuda --out lm.pt.trace.json
"""


def _profile(args):
    from pathlib import Path

    from .count import parse_shape
    from ..importers.torch_count import load_factory
    from ..measure.measurement import measure_trace
    from ..measure.profile_run import profile_module

    shape = parse_shape(args.input)
    factory = load_factory(args.module)
    out = Path(args.out or f"{args.module.rpartition(':')[2]}.pt.trace.json")
    trace, model = profile_module(factory, shape, steps=args.steps, device=args.device,
                                  input_dtype=args.input_dtype, out=out, source=args.module)
    result = measure_trace(trace, chip=args.chip, model=model)
    data = result.as_dict()
    data["trace_file"] = str(trace)
    return data


def register(sub) -> None:
    from ..importers.torch_count import DTYPES

    p = sub.add_parser("profile", help="run your module's training steps under torch.profiler here and measure "
                                       "them (needs torch)",
                       description="Profile a few training steps of a PyTorch module on this machine, write the "
                                   "trace, and measure it.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("module", metavar="FILE.py:FACTORY",
                   help="a Python file and the function or class in it that returns the torch.nn.Module")
    p.add_argument("--input", required=True, metavar="SIZES", help="the input's sizes, batch first (e.g. 8,3,224,224)")
    p.add_argument("--input-dtype", choices=DTYPES, default="float", help="the input's type (long: token ids)")
    p.add_argument("--steps", type=int, default=3, help="profiled training steps (1 to 50; default 3)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu", help="where the steps run (default cpu)")
    p.add_argument("--out", default=None, metavar="TRACE.json", help="where to write the trace "
                                                                     "(default FACTORY.pt.trace.json)")
    p.add_argument("--chip", default=None, metavar="NAME", help="the chip, for HFU/MFU (on the CPU, or a GPU the "
                                                                "database does not know by its name)")
    p.set_defaults(run=_profile)
