"""Reading a config.json through the registry: the family its ``model_type`` names (or its ``architectures`` class,
for a type transformers does not define), its reader, the head its class has, and every key accounted for — read,
known not to change parameters or FLOP (``NEUTRAL_KEYS`` and the family's own), read by nothing transformers
builds for the family (``config_keys.json``: listed in ``unused_keys``), or refused by name (``lenient``: listed in
``ignored_keys`` instead). A missing size key is an error, never a default guessed from another family. A
multimodal checkpoint's language model is read from its ``text_config``.
"""
from __future__ import annotations

import functools
from pathlib import Path

from engine.errors import InputError, json_type, quoted
from engine.shipped import read_shipped_json
from engine.llm.families.keys import (
    Keys,
    check_unknown,
    resolve_key_aliases,
    transformers_model_types,
)
from engine.llm.families.registry import FAMILIES, Family

WRAPPERS_FILE = Path(__file__).parents[1] / "multimodal_wrappers.json"


def family_of_class(architectures: object) -> str | None:
    """The supported ``model_type`` whose classes include the one ``architectures`` names (Kimi-K2's
    ``kimi_k2`` file names DeepseekV3ForCausalLM), or None."""
    if not isinstance(architectures, list) or len(architectures) != 1 or not isinstance(architectures[0], str):
        return None
    return next((t for t, f in FAMILIES.items() if f.alias_of is None
                 and (architectures[0] in f.classes or architectures[0] in f.class_aliases)), None)


def _architecture(c: Keys, family: Family) -> tuple[str, str]:
    """(class name, head) from ``architectures``; absent: the family's first class (its LM)."""
    names = c.data.get("architectures")
    if names is None:
        name = next(iter(family.classes))
    elif not isinstance(names, list) or len(names) != 1 or not isinstance(names[0], str):
        raise c.error("architectures", "expected a list of one class name")
    else:
        name = family.class_aliases.get(names[0], names[0])
    if name not in family.classes:
        raise c.error("architectures", f"{quoted(name, 60)} is not counted; this reader counts "
                                       f"{', '.join(family.classes)}")
    return name, family.classes[name]


def _supported_list(model_type: object, most: int = 12) -> str:
    """The supported families, for a refusal: all of them when few, else the ones whose names share the refused
    type's first letters (llama4 → llama, llama4_text) and a count; the full list is docs/llm.md's table."""
    names = sorted(FAMILIES)
    if len(names) <= most:
        return ", ".join(names)
    prefix = model_type[:3].lower() if isinstance(model_type, str) and len(model_type) >= 3 else None
    near = [n for n in names if prefix and n.startswith(prefix)][:most]
    return (", ".join(near) + ", … " if near else "") + f"{len(names)} families in all, listed in docs/llm.md"


def read_family(data: dict, source: str, lenient: bool = False) -> tuple[dict, dict[str, str]]:
    """(``TransformerConfig`` fields, field → key) of a decoded config.json."""
    model_type = data.get("model_type")
    if model_type is None:
        raise InputError(f"{source}.model_type", "missing (the family: llama, bert, t5, …)")
    notes = []
    wrapper = multimodal_wrappers().get(model_type) if isinstance(model_type, str) and model_type not in FAMILIES \
        else None
    if wrapper is not None:
        return _read_language_model(data, model_type, wrapper, source, lenient)
    if not isinstance(model_type, str) or model_type not in FAMILIES:
        # a model_type transformers does not define (remote code) on a class it does: read as that class's family
        known = family_of_class(data.get("architectures")) if isinstance(model_type, str) and \
            model_type not in transformers_model_types() else None
        if known is None:
            raise InputError(f"{source}.model_type", f"{quoted(model_type)} is not a family this reader supports "
                                                     f"(supported: {_supported_list(model_type)})")
        notes.append(f"model_type {quoted(model_type, 60)} is not a family of its own here; read as {known} "
                     f"because architectures names {data['architectures'][0]}")
        model_type = known
    family = FAMILIES[model_type]
    data, renamed, repeated = resolve_key_aliases(data, model_type, source)
    c = Keys(data, source, lenient)
    c.renamed = renamed
    c.used.update(repeated)
    name, head = _architecture(c, family)
    c.cls, c.model_type = name, model_type
    fields = family.reader(c)
    ignored, unused = check_unknown(c, data, (), lenient, model_type)
    if head == "pooler":
        head, fields["pooler"] = "none", True
    return fields | {"model_type": model_type, "architecture_name": name, "head": head,
                     "ignored_keys": tuple(ignored + c.ignored), "unused_keys": tuple(unused + c.unused),
                     "notes": tuple(notes)}, {f: renamed.get(k, k) for f, k in c.key_of.items()}


@functools.cache
def multimodal_wrappers() -> dict[str, dict]:
    """``model_type`` of a multimodal checkpoint → {``text_model_type``, ``tie_word_embeddings``}: its language
    model's family and the wrapper's default tie, derived from transformers
    (``tools/derive_multimodal_wrappers.py``)."""
    return wrappers_file()["wrappers"]


@functools.cache
def wrappers_file() -> dict:
    return read_shipped_json(WRAPPERS_FILE, {"wrappers": dict, "text_defaults": dict})


def read_language_model(data: dict, source: str = "config", lenient: bool = False) -> tuple[dict, dict[str, str]]:
    """(fields, field → key) of the language model inside a multimodal checkpoint's config.json (its ``text_config``
    read as its own family, as below, without the note that the rest is not counted): what the multimodal readers
    (``engine.multimodal``) put after the vision or audio tower."""
    model_type = data.get("model_type")
    wrapper = multimodal_wrappers().get(model_type) if isinstance(model_type, str) else None
    if wrapper is None:
        raise InputError(f"{source}.model_type", f"{quoted(model_type)} is not a multimodal checkpoint with a "
                                                 "language model in text_config")
    fields, key_of = _read_language_model(data, model_type, wrapper, source, lenient)
    fields["notes"] = tuple(fields["notes"][1:])
    return fields, key_of


def _read_language_model(data: dict, model_type: str, wrapper: dict, source: str,
                         lenient: bool) -> tuple[dict, dict[str, str]]:
    """The language model of a multimodal checkpoint (Gemma 3, Llama 4, Mistral 3, LLaVA, Qwen3.5…): its
    ``text_config`` read as its own family, with the wrapper's ``tie_word_embeddings`` (the wrapper's value
    decides whether the head shares the token table). The vision or audio encoder and projector are not counted;
    the note says so. Keys absent from ``text_config`` take its configuration class's defaults, as transformers
    fills them (files written by transformers 4.x keep only the keys that differ)."""
    text = data.get("text_config")
    if not isinstance(text, dict):
        raise InputError(f"{source}.text_config", f"a {quoted(model_type)} checkpoint keeps its language model "
                                                  f"in text_config: expected a JSON object {{ … }}, got "
                                                  f"{json_type(text)}")
    text_type = text.get("model_type", wrapper["text_model_type"])
    if not isinstance(text_type, str) or text_type not in FAMILIES:
        raise InputError(f"{source}.text_config.model_type",
                         f"the language model of this {quoted(model_type)} checkpoint is {quoted(text_type)}, "
                         f"not a family this reader supports (supported: {_supported_list(text_type)})")
    family = FAMILIES[text_type]
    heads = set(family.classes.values())
    if not next(iter(family.classes)).endswith("ForCausalLM") and heads != {"none"}:
        raise InputError(f"{source}.text_config.model_type",
                         f"the language model of this {quoted(model_type)} checkpoint is {quoted(text_type)}, an "
                         "encoder or encoder-decoder: counted from its own config.json, not inside a multimodal one")
    tie = data.get("tie_word_embeddings", wrapper["tie_word_embeddings"])
    defaults = wrappers_file()["text_defaults"].get(text_type, {})  # what transformers fills in a partial text_config
    inner = defaults | {k: v for k, v in text.items() if k != "architectures"} | {"model_type": text_type}
    if tie is not None:
        inner["tie_word_embeddings"] = tie
    fields, key_of = read_family(inner, f"{source}.text_config", lenient)
    if fields.get("encoder") is not None:
        raise InputError(f"{source}.text_config.model_type", f"{quoted(text_type)} is an encoder-decoder: counted from "
                                                             "its own config.json, not inside a multimodal one")
    fields["head"] = "lm"  # the wrapper's generating class ends in its LM head (a text tower's bare class has none)
    note = (f"a multimodal checkpoint ({quoted(model_type, 60)}, {wrapper['class']}): its language model is counted — "
            "text_config read "
            f"as {text_type} ({next(iter(family.classes))}), keys it leaves out at that class's defaults, with the "
            "checkpoint's tie_word_embeddings; the vision or audio encoder and the projector are not counted here "
            "(`python -m engine flops --config FILE` and the layer builder's multimodal upload count the whole "
            "model where its family is read: docs/multimodal.md)")
    fields["notes"] = (note,) + tuple(fields.get("notes", ()))
    for listed in ("unused_keys", "ignored_keys"):  # the file's own keys, not the defaults filled in
        fields[listed] = tuple(k for k in fields.get(listed, ()) if k in text)
    return fields, {f: (k if k == "tie_word_embeddings" else f"text_config.{k}") for f, k in key_of.items()}
