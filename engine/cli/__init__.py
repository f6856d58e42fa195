"""``python -m engine <command>``: each command lives in ``engine/cli/<name>.py``.

A command module has ``register(subparsers)``, which adds its parser and sets ``run(args) -> object``;
the result is printed as text (aligned tables, units, the formula line: ``engine/cli/text.py``) when
stdout is a terminal, as JSON otherwise; ``--format text|json`` chooses. Bad input exits 2 with one
line on stderr, never a traceback.
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
from engine.results import to_json

COMMANDS = ("flops", "presets", "schema", "chips", "hardware", "trend", "reconcile", "priors", "transformer",
            "optimal", "memory", "plan", "count", "trace", "profile", "serve", "compress")
"""Each lives in ``engine/cli/<command>.py``; a run imports only its own module (start-up stays light)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, status 2 (argparse prints usage + message)
        raise InputError("arguments", message)


def _finite(value):
    """JSON has no inf/NaN: such numbers become null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value


def program_name() -> str:
    """``flopscope`` when run as the installed command, else ``python -m engine``."""
    return "flopscope" if os.path.basename(sys.argv[0] or "") == "flopscope" else "python -m engine"


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of ``only`` that one (the others' modules are not imported)."""
    parser = _Parser(prog=program_name(), description="FLOPscope: training compute estimates.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name in COMMANDS if only is None else (only,):
        importlib.import_module(f"engine.cli.{name}").register(sub)
    for command in sub.choices.values():
        command.add_argument("--format", choices=FORMATS, default=None,
                             help="text: aligned tables with units and the formula (default on a terminal); "
                                  "json: machine-readable (default when the output is a pipe or a file)")
    return parser


FORMATS = ("text", "json")


def output_format(requested: str | None, stream=None) -> str:
    """``requested``, else text on a terminal and JSON in a pipe or a file."""
    if requested:
        return requested
    stream = stream or sys.stdout
    try:
        return "text" if stream.isatty() else "json"
    except (AttributeError, ValueError):
        return "json"


def render(command: str, result, fmt: str) -> str:
    """The result as the chosen format's text."""
    plain = _finite(to_json(result))  # results and input models as dicts first, so no inf/NaN hides inside one
    if fmt == "text":
        from engine.cli.text import TEXT

        if command in TEXT:
            return TEXT[command](plain)
    return json.dumps(plain, indent=2)


def main(argv: list[str] | None = None) -> int:
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        first = next((w for w in words if not w.startswith("-")), None)
        args = build_parser(first if first in COMMANDS else None).parse_args(words)
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
        print(render(args.command, result, output_format(getattr(args, "format", None))))
        sys.stdout.flush()
    except BrokenPipeError:  # the reader (e.g. `| head`) stopped reading: not an error of ours
        sys.stdout = open(os.devnull, "w")
    return 0
