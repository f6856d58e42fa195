"""``flops FILE.json | --preset ID [--convention]``: method 1's parameters and forward FLOP per layer."""
from __future__ import annotations

from engine.cli.files import read_text_file
from engine.errors import InputError, quoted
from engine.method1.conventions import CONVENTIONS
from engine.method1.estimate import estimate_method1
from engine.presets import presets
from engine.scenario import load_scenario_text


def _flops(args):
    if (args.file is None) == (args.preset is None):
        raise InputError("arguments", "give a scenario FILE or --preset ID (one of them)")
    if args.preset is not None:
        known = presets()
        if args.preset not in known:
            raise InputError("preset", f"unknown id {quoted(args.preset)}; `python -m engine presets` lists them")
        scenario = known[args.preset].scenario
    else:
        scenario = load_scenario_text(read_text_file(args.file), source=args.file)
    if args.convention:
        scenario = scenario.model_copy(update={"convention": args.convention})
    return estimate_method1(scenario).as_dict()


def register(sub) -> None:
    p = sub.add_parser("flops", help="method 1: parameters and FLOP of an architecture file")
    p.add_argument("file", nargs="?", default=None, help="scenario JSON (input, layers, training)")
    p.add_argument("--preset", default=None, help="a preset's id instead of a file (see `presets`)")
    p.add_argument("--convention", choices=CONVENTIONS, default=None,
                   help="matmul: multiply-accumulates × 2 only, as PyTorch's FlopCounterMode counts (default); "
                        "full: also bias adds, activations, softmax, norms, pooling")
    p.set_defaults(run=_flops)
