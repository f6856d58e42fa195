"""A multimodal checkpoint's config.json (Gemma 3, Llama 4, Mistral 3, LLaVA, Qwen3.5…): its language model is
counted from ``text_config`` — exact against transformers: the wrapper model transformers builds from the same file
on the meta device decides whether the head shares the token table, and the text class built from the wrapper's own
text configuration gives parameters (Σ numel) and forward FLOP (FlopCounterMode). Files as transformers 5 writes
them (``to_dict()``, every key) and as transformers 4.x did (``text_config`` holding only the keys that differ from
its class's defaults)."""
from __future__ import annotations

import json
import re
import warnings

import pytest

from tests.llm.coverage import SEQ, small_overrides

pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


GEMMA_3_4B = {
    "architectures": ["Gemma3ForConditionalGeneration"], "boi_token_index": 255999, "eoi_token_index": 256000,
    "eos_token_id": [1, 106], "image_token_index": 262144, "initializer_range": 0.02, "mm_tokens_per_image": 256,
    "model_type": "gemma3",
    "text_config": {"hidden_size": 2560, "intermediate_size": 10240, "model_type": "gemma3_text",
                    "num_hidden_layers": 34, "rope_scaling": {"factor": 8.0, "rope_type": "linear"},
                    "sliding_window": 1024},
    "torch_dtype": "bfloat16", "transformers_version": "4.50.0.dev0",
    "vision_config": {"hidden_size": 1152, "image_size": 896, "intermediate_size": 4304,
                      "model_type": "siglip_vision_model", "num_attention_heads": 16, "num_hidden_layers": 27,
                      "patch_size": 14, "vision_use_head": False}}
"""google/gemma-3-4b-it's config.json (written by transformers 4.50) as public copies of the Hub file quote it."""


def _wrappers():
    from engine.llm.families import FAMILIES, multimodal_wrappers

    return sorted(t for t, w in multimodal_wrappers().items() if w["text_model_type"] in FAMILIES
                  and next(iter(FAMILIES[w["text_model_type"]].classes)).endswith("ForCausalLM"))


def test_the_derived_file_is_current():
    from engine.llm.families import wrappers_file
    from tools.derive_multimodal_wrappers import derive

    assert wrappers_file() == json.loads(json.dumps(derive())), \
        "engine/llm/multimodal_wrappers.json is stale: python -m tools.derive_multimodal_wrappers"


def test_the_common_checkpoints_are_among_them():
    assert {"gemma3", "gemma4", "llama4", "mistral3", "llava", "qwen3_5", "qwen3_5_moe",
            "idefics3", "internvl"} <= set(_wrappers())


def _small(wrapper: str):
    from transformers import CONFIG_MAPPING

    from engine.llm.families import multimodal_wrappers

    text_type = multimodal_wrappers()[wrapper]["text_model_type"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = CONFIG_MAPPING[text_type](**small_overrides(text_type))
        try:
            return CONFIG_MAPPING[wrapper](text_config=text.to_dict()), text
        except Exception:  # noqa: BLE001 — the wrapper checks its text width against its own (Fun-ASR's adaptor)
            own = CONFIG_MAPPING[wrapper]().text_config.to_dict()
            text = CONFIG_MAPPING[text_type](**(own | small_overrides(text_type)))
            return CONFIG_MAPPING[wrapper](text_config=text.to_dict()), text


def _built_tie(config) -> bool | None:
    """Whether the wrapper model transformers builds ties its head to the token table (None: it does not build
    here — a vision tower needing timm, defaults that fail their own checks)."""
    import torch

    from engine.llm.families import multimodal_wrappers

    cls = getattr(transformers, multimodal_wrappers()[config.model_type]["class"], None)
    try:
        with warnings.catch_warnings(), torch.device("meta"):
            warnings.simplefilter("ignore")
            model = cls._from_config(config)
    except Exception:  # noqa: BLE001
        return None
    head = model.get_output_embeddings()
    return head is not None and head.weight is model.get_input_embeddings().weight


@pytest.mark.parametrize("wrapper", _wrappers())
def test_the_language_model_counts_exactly(wrapper):
    from engine.errors import InputError
    from engine.llm.config import read_hf_config
    from engine.method1.architecture import evaluate
    from tests.llm.hf_reference import build_from, idle_expert_flop, model_counts

    config, text = _small(wrapper)
    full = json.loads(config.to_json_string(use_diff=False))
    tie = _built_tie(config)
    rule = full.get("tie_word_embeddings")
    rule = text.tie_word_embeddings if rule is None else rule
    if tie is not None:
        assert tie == rule, f"{wrapper}: the built model ties {tie}, the wrapper's tie_word_embeddings says {rule}"
    reference_config = config.text_config
    reference_config.tie_word_embeddings = rule
    try:
        model = read_hf_config(full)
    except InputError as exc:  # refused: one line naming the key, as the coverage sweep allows
        assert re.match(r"config\.text_config\.[^:]+: ", str(exc)), str(exc)
        return  # refused with one line naming the key (PaliGemma's bidirectional prefix): never a number
    expected = model_counts(build_from(reference_config, model.architecture_name), SEQ)
    expected = (expected[0], expected[1] - idle_expert_flop(reference_config.to_dict(), SEQ))  # Llama 4's
    got = evaluate(model.architecture(SEQ), "matmul")
    assert (got.params, got.forward_flop) == expected
    assert model.notes[0].startswith(f"a multimodal checkpoint ('{wrapper}'")

    # as transformers 4.x wrote it: text_config keeps only what differs from its class's defaults
    defaults = json.loads(type(text)().to_json_string(use_diff=False))
    partial = {k: v for k, v in full["text_config"].items() if defaults.get(k, object()) != v}
    short = read_hf_config(full | {"text_config": partial | {"model_type": text.model_type}})
    again = evaluate(short.architecture(SEQ), "matmul")
    assert (again.params, again.forward_flop) == expected


def test_a_published_gemma_3_file_as_written():
    """google/gemma-3-4b-it's config.json as published (transformers 4.50 wrote only the text_config keys that
    differ from Gemma3TextConfig's defaults: no head counts, no vocabulary size): its language model equals
    transformers' Gemma3ForCausalLM of the text configuration transformers makes of the file — 3,880,263,168
    parameters (the "4B" of the name also holds the vision tower)."""
    from engine.llm.config import read_hf_config
    from engine.method1.architecture import evaluate
    from tests.llm.hf_reference import build_from, model_counts

    data = GEMMA_3_4B
    model = read_hf_config(data)
    got = evaluate(model.architecture(SEQ), "matmul")
    hf = transformers.AutoConfig.for_model(**{k: v for k, v in data.items() if k != "architectures"})
    hf.text_config.tie_word_embeddings = hf.tie_word_embeddings
    assert (got.params, got.forward_flop) == model_counts(build_from(hf.text_config, "Gemma3ForCausalLM"), SEQ)
    assert got.params == 3_880_263_168


def test_refusals_name_the_key():
    from engine.errors import InputError
    from engine.llm.config import read_hf_config

    with pytest.raises(InputError, match=r"^config\.text_config: .*JSON object"):
        read_hf_config({"model_type": "llava", "text_config": "llama"})
    with pytest.raises(InputError, match=r"^config\.text_config\.model_type: .*'aria_text'.*not a family"):
        read_hf_config({"model_type": "aria", "text_config": {"model_type": "aria_text"}})
    with pytest.raises(InputError, match=r"^config\.text_config\.model_type: .*encoder"):
        read_hf_config({"model_type": "florence2", "text_config": {"model_type": "bart"}})
