"""``python -m engine <command>``: each command lives in ``engine/cli/<name>.py``.

A command module has ``register(subparsers)``, which adds its parser and sets ``run(args) -> object``;
the result is printed as JSON. Bad input exits 2 with one line on stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import importlib
import json
import math
import os
import sys

from pydantic import ValidationError

from engine.errors import InputError, from_validation_error

COMMAND_MODULES = (
    "engine.cli.flops",
    "engine.cli.schema",
    "engine.cli.chips",
    "engine.cli.hardware",
    "engine.cli.trend",
    "engine.cli.reconcile",
    "engine.cli.transformer",
    "engine.cli.optimal",
    "engine.cli.memory",
    "engine.cli.plan",
)


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2 (argparse prints usage + message)
        raise InputError("arguments", message)


def _json_default(value):
    if hasattr(value, "model_dump"):
        return value.model_dump(mode="json")
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _finite(value):
    """JSON has no inf/NaN: such numbers become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m engine", description="FLOPscope: training compute estimates.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        result = args.run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except RecursionError:
        print("error: input: nested too deeply", file=sys.stderr)
        return 2
    except ValidationError as exc:  # a model built without parse_input: still one line naming the field
        print(f"error: {from_validation_error(exc)}", file=sys.stderr)
        return 2
    except Exception as exc:  # last resort: one line, no traceback, and a status that is not "bad input"
        print(f"error: internal: an unexpected {type(exc).__name__}; no result (please report it with the "
              "command line)", file=sys.stderr)
        return 1
    try:
        print(json.dumps(_finite(result), indent=2, default=_json_default))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped reading: not an error of ours
        sys.stdout = open(os.devnull, "w")
    return 0
