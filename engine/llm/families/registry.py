"""The one registry of language-model families: ``model_type`` → its reader and the transformers classes it counts.

A reader registers itself where it is written, as ``torch.utils.flop_counter`` registers a formula::

    @register("llama", lm_classes("Llama"))
    def _llama(c: Keys) -> dict: ...

A ``model_type`` registered twice is an error (``DuplicateFamily``), never a silent overwrite. A type read by
another family's reader is an alias (vLLM's ``"MistralForCausalLM": ("llama", "LlamaForCausalLM")``):
``register_alias("exaone", "llama", defaults={...})`` — the target's reader and classes unless given, the type's
own config-class defaults filled in where a file leaves a key out. Aliases are resolved once every lineage module
has registered its readers (``resolve_aliases``, called by the package), so an alias may name a family of another
module; an alias of an unknown type is an error too.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import NamedTuple

from .keys import Keys

Reader = Callable[[Keys], dict]


class Family(NamedTuple):
    """A registry entry (a value, not a result): the family's reader, the transformers classes it counts
    (class → head), other names a file may give those classes (name → class), and, for an alias, the
    ``model_type`` whose reader it uses."""

    reader: Reader
    classes: Mapping[str, str]
    class_aliases: Mapping[str, str] = MappingProxyType({})
    alias_of: str | None = None


class DuplicateFamily(ValueError):
    """A ``model_type`` registered twice, or an alias of a type that is not registered."""


_FAMILIES: dict[str, Family] = {}
_PENDING: list[tuple[str, str, dict, Mapping[str, str] | None]] = []

FAMILIES: Mapping[str, Family] = MappingProxyType(_FAMILIES)
"""``model_type`` → ``Family``: every reader, filled by the ``register`` decorators of the lineage modules."""


def _add(model_type: str, family: Family) -> None:
    if model_type in _FAMILIES:
        raise DuplicateFamily(f"model_type {model_type!r} is registered twice "
                              f"({_FAMILIES[model_type].reader.__qualname__} and {family.reader.__qualname__})")
    _FAMILIES[model_type] = family


def register(model_type: str, classes: Mapping[str, str],
             class_aliases: Mapping[str, str] | None = None) -> Callable[[Reader], Reader]:
    """A decorator: ``reader`` reads ``model_type``'s config.json; ``classes``: class → head ("lm", "mlm",
    "discriminator", "none", "pooler"), the first the default; ``class_aliases``: other names of those classes."""
    def add(reader: Reader) -> Reader:
        _add(model_type, Family(reader, MappingProxyType(dict(classes)), MappingProxyType(dict(class_aliases or {}))))
        return reader
    return add


def register_alias(model_type: str, target: str, *, defaults: dict | None = None,
                   classes: Mapping[str, str] | None = None) -> None:
    """``model_type`` read by ``target``'s reader: its classes (unless ``classes`` names its own), with
    ``defaults`` — the keys whose defaults in ``model_type``'s config class differ from ``target``'s — filled in
    where the file leaves them out."""
    _PENDING.append((model_type, target, dict(defaults or {}), classes))


def resolve_aliases() -> None:
    """Register the pending aliases (every lineage module imported): an unknown target is an error."""
    while _PENDING:
        model_type, target, defaults, classes = _PENDING.pop(0)
        if target not in _FAMILIES or _FAMILIES[target].alias_of is not None:
            raise DuplicateFamily(f"alias {model_type!r} names {target!r}, which is not a registered family")
        base = _FAMILIES[target]
        _add(model_type, Family(_with_defaults(base.reader, defaults), MappingProxyType(dict(classes or base.classes)),
                                base.class_aliases, target))


def _with_defaults(reader: Reader, defaults: dict) -> Reader:
    if not defaults:
        return reader

    def read(c: Keys) -> dict:
        c.data = {k: v for k, v in defaults.items() if k not in c.data} | c.data
        return reader(c)
    read.__qualname__ = f"{reader.__qualname__} (with defaults)"
    return read


def lm_classes(prefix: str, *, bare: str | None = None) -> dict[str, str]:
    """``{prefix}ForCausalLM`` → LM head, ``{prefix}Model`` (or ``bare``) → none."""
    return {f"{prefix}ForCausalLM": "lm", bare or f"{prefix}Model": "none"}
