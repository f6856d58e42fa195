"""``python -m engine <command>``: each command lives in ``engine/cli/<name>.py``.

A command module has ``register(subparsers)``, which adds its parser and sets ``run(args) -> object``;
the result is printed as text (aligned tables, units, the formula line: ``engine/cli/text.py``) when
stdout is a terminal, as JSON otherwise; ``--format text|json`` chooses. Bad input exits 2 with one
line on stderr, never a traceback.
"""
from __future__ import annotations

import argparse
import gc
import importlib
import json
import math
import os
import sys

from pydantic import ValidationError

from ..errors import InputError, from_validation_error
from ..results import to_json

COMMANDS = ("flops", "presets", "schema", "chips", "hardware", "trend", "reconcile", "priors", "transformer",
            "optimal", "memory", "plan", "count", "trace", "profile", "serve", "compress", "diffusion",
            "vlm")
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
        importlib.import_module(f".{name}", __name__).register(sub)
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
    if fmt != "text":
        fast = _json_fast(result)
        if fast is not None:
            return fast
    plain = to_json(result)  # results and input models as dicts first, so no inf/NaN hides inside one
    if fmt == "text":
        from .text import TEXT

        if command in TEXT:
            return TEXT[command](_finite(plain))
    return json_text(plain)


def _plain(value):
    """``json.dumps``'s ``default``: a result or an input model as ``to_json`` makes it; anything else refused."""
    plain = to_json(value)
    if plain is value:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")
    return plain


def _json_fast(result) -> str | None:
    """``json_text(to_json(result))``, character for character, written by the standard library's C encoder
    (compact) and indented by msgspec's formatter (it copies numbers and escaped text as they are): a
    10,000-layer result in a third of the time. None where a number is not finite (JSON has no NaN: those
    become null through ``json_text``) or the words NaN/Infinity appear at all, and for a short text (under
    ``FAST_JSON_CHARS``: importing msgspec, 4 ms, costs more than ``json_text`` saves)."""
    compact = json.dumps(result, default=_plain, separators=(",", ":"))
    if len(compact) < FAST_JSON_CHARS or "NaN" in compact or "Infinity" in compact:
        return None
    from msgspec.json import format as indented

    return indented(compact, indent=2)


FAST_JSON_CHARS = 100_000
"""Compact JSON characters from which ``_json_fast`` writes the text (``json_text`` takes ~30 ns a character)."""


_SCALAR_TEXT = {bool: lambda v: "true" if v else "false", int: int.__repr__, str: json.encoder.encode_basestring_ascii,
                type(None): lambda v: "null",
                float: lambda v: float.__repr__(v) if math.isfinite(v) else "null"}
_KEY_TEXT: dict[str, str] = {}
"""Keys written before (results repeat theirs row after row)."""


def json_text(value, indent: str = "") -> str:
    """``json.dumps(_finite(value), indent=2)``, character for character (non-finite numbers as null), written
    without the standard encoder's pure-Python indenting path: a 10,000-layer result in a fraction of its time."""
    scalar = _SCALAR_TEXT.get(type(value))
    if scalar is not None:
        return scalar(value)
    inner = indent + "  "
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = []
        for k, v in value.items():
            key = _KEY_TEXT.get(k) if type(k) is str else None
            if key is None:
                key = _key_text(k)
            scalar = _SCALAR_TEXT.get(type(v))
            items.append(f"{inner}{key}: {scalar(v) if scalar is not None else json_text(v, inner)}")
        return "{\n" + ",\n".join(items) + "\n" + indent + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        items = []
        for v in value:
            scalar = _SCALAR_TEXT.get(type(v))
            items.append(inner + (scalar(v) if scalar is not None else json_text(v, inner)))
        return "[\n" + ",\n".join(items) + "\n" + indent + "]"
    if isinstance(value, (bool, int, float, str)) or value is None:  # subclasses (an IntEnum, a str Enum)
        return json.dumps(_finite(value))
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _key_text(key) -> str:
    """A dict key as ``json.dumps`` writes it (strings; numbers, booleans and None as strings)."""
    if isinstance(key, str):
        text = json.encoder.encode_basestring_ascii(key)
        if type(key) is str and len(_KEY_TEXT) < 10_000:
            _KEY_TEXT[key] = text
        return text
    return json.dumps({key: 0})[1:-4]


PLUGINS_OFF = ("PYDANTIC_DISABLE_PLUGINS", "__all__")
"""A command's process looks for no pydantic plugins: the look-up reads the entry points of every installed
distribution (35–45 ms of CPU in the project's environment) for plugins the engine does not use. Set
``PYDANTIC_DISABLE_PLUGINS`` (empty: look them up) to decide otherwise."""


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault(*PLUGINS_OFF)  # before the first model is built (the commands' imports)
    try:
        words = sys.argv[1:] if argv is None else list(argv)
        first = next((w for w in words if not w.startswith("-")), None)
        args = build_parser(first if first in COMMANDS else None).parse_args(words)
        gc.freeze()  # what the imports made lives to the end: the collector need not walk it again and again
        gc.enable()  # (``python -m engine`` turns it off for the imports)
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
