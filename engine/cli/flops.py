"""``flops FILE.json | --preset ID [--convention]``: method 1's parameters and forward FLOP per layer."""
from __future__ import annotations

import argparse

from engine.cli.files import read_text_file
from engine.errors import InputError, quoted
from engine.method1.conventions import CONVENTIONS
from engine.scenario import load_scenario_text


CONVENTION_HELP = """\
--convention: what counts as a floating-point operation
  matmul  (default) only the multiply-accumulates of matrix products and convolutions, each 2 FLOP
          (1 MAC = 2 FLOP, as hardware peaks count an FMA). This is what PyTorch's
          torch.utils.flop_counter.FlopCounterMode counts, and Epoch AI's per-layer table.
  full    matmul + bias adds, activations, gate products of recurrent cells, softmax and its scaling,
          normalisation and pooling. A few percent more for wide layers; much more for narrow ones.
  fvcore, ptflops and thop print MACs and call them "FLOPs": multiply their figure by 2 to compare.

examples:
  python -m engine flops model.json                      # matmul convention, a table on a terminal
  python -m engine flops model.json --convention full --format json
  python -m engine flops --preset resnet50               # a preset (ids: python -m engine presets)
"""


def _flops(args):
    if (args.file is None) == (args.preset is None):
        raise InputError("arguments", "give a scenario FILE or --preset ID (one of them)")
    if args.preset is not None:
        from engine.presets import presets  # the presets build dozens of architectures: only when asked

        known = presets()
        if args.preset not in known:
            raise InputError("preset", f"unknown id {quoted(args.preset)}; `python -m engine presets` lists them")
        scenario = known[args.preset].scenario
    else:
        scenario = load_scenario_text(read_text_file(args.file), source=args.file)
    if args.convention:
        scenario = scenario.model_copy(update={"convention": args.convention})
    return scenario.method1().as_dict()


def register(sub) -> None:
    p = sub.add_parser("flops", help="method 1: parameters and FLOP of an architecture file or a preset",
                       description="Method 1: each layer's parameters, forward FLOP and MACs per example, and "
                                   "the training compute C = F × (1 + r) × examples × epochs.",
                       epilog=CONVENTION_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", default=None, help="scenario JSON (input, layers, training)")
    p.add_argument("--preset", default=None, help="a preset's id instead of a file (`python -m engine presets`)")
    p.add_argument("--convention", choices=CONVENTIONS, default=None,
                   help="matmul: multiply-accumulates × 2 only, as PyTorch's FlopCounterMode counts (default); "
                        "full: also bias adds, activations, softmax, norms, pooling")
    p.set_defaults(run=_flops)
