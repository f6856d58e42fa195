"""``flops FILE.json [--convention]`` and ``schema``."""
from __future__ import annotations

from pathlib import Path

from engine.errors import InputError
from engine.method1 import estimate_method1
from engine.scenario import MAX_SCENARIO_BYTES, Scenario, load_scenario_text


def read_text_file(path: str, field: str = "file", limit: int = MAX_SCENARIO_BYTES) -> str:
    """A small text file's contents, or an ``InputError`` that says why not."""
    p = Path(path)
    try:
        if not p.is_file():
            raise InputError(field, f"'{path}' does not exist or is not a file")
        if p.stat().st_size > limit:
            raise InputError(field, f"'{path}' is larger than {limit:,} bytes")
        return p.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(field, f"'{path}' is not UTF-8 text") from None
    except OSError as exc:
        raise InputError(field, f"cannot read '{path}' ({exc.strerror or exc})") from None


def _flops(args):
    scenario = load_scenario_text(read_text_file(args.file), source=args.file)
    if args.convention:
        scenario = scenario.model_copy(update={"convention": args.convention})
    return estimate_method1(scenario).as_dict()


def register(sub) -> None:
    p = sub.add_parser("flops", help="method 1: parameters and FLOP of an architecture file")
    p.add_argument("file", help="scenario JSON (input, layers, training)")
    p.add_argument("--convention", choices=("matmul", "full"), default=None)
    p.set_defaults(run=_flops)
    s = sub.add_parser("schema", help="JSON Schema of the scenario file")
    s.set_defaults(run=lambda args: Scenario.model_json_schema())
