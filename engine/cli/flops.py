"""``flops FILE.json [--convention]``: method 1's parameters and forward FLOP per layer."""
from __future__ import annotations

from engine.cli.files import read_text_file
from engine.method1.conventions import CONVENTIONS
from engine.method1.estimate import estimate_method1
from engine.scenario import load_scenario_text


def _flops(args):
    scenario = load_scenario_text(read_text_file(args.file), source=args.file)
    if args.convention:
        scenario = scenario.model_copy(update={"convention": args.convention})
    return estimate_method1(scenario).as_dict()


def register(sub) -> None:
    p = sub.add_parser("flops", help="method 1: parameters and FLOP of an architecture file")
    p.add_argument("file", help="scenario JSON (input, layers, training)")
    p.add_argument("--convention", choices=CONVENTIONS, default=None,
                   help="matmul: multiply-accumulates × 2 only, as PyTorch's FlopCounterMode counts (default); "
                        "full: also bias adds, activations, softmax, norms, pooling")
    p.set_defaults(run=_flops)
