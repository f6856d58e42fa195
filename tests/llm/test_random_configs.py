"""Random configs of every supported family, exact against transformers, written as transformers writes them.

For each ``model_type`` of the registry (``FAMILIES``: a family added there is covered without touching this
file), hypothesis draws a small config (``tests/llm/random_configs.py``: widths, heads and GQA ratios, head
sizes, feed-forward and expert sizes, experts, k, shared experts, MLA ranks, layer counts and patterns,
windows, state sizes, vocabulary, tied or untied embeddings, the class in ``architectures``), builds it with
transformers' own config class, writes it with ``save_pretrained()`` and with ``to_dict()``, and reads both
files strictly. Each must give the parameters (Σ numel) and forward FLOP (FlopCounterMode) of transformers'
model built from the config object on the meta device, for a random sequence length (and decoder length).

CI (FLOPSCOPE_HYPOTHESIS=ci) replays a fixed seed with ``CI_EXAMPLES`` configs per family; a local run draws
``LOCAL_EXAMPLES`` new ones. One documented difference, as everywhere: Llama 4's MoE runs all E experts per
token in transformers, the engine counts the k routed ones (``idle_expert_flop``).

Exclusions (never skipped silently): ``random_configs.PINNED`` keys are fixed, with the reason;
``random_configs.HOOKS`` draw a family's keys within what transformers builds (their docstrings say how).
"""
from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from engine.llm.config import read_hf_config
from engine.llm.families import FAMILIES
from engine.method1.architecture import evaluate

pytest.importorskip("transformers")
from tests.llm import random_configs
from tests.llm.hf_reference import build_from, idle_expert_flop, model_counts

CI_EXAMPLES, LOCAL_EXAMPLES = 5, 25
EXAMPLES = CI_EXAMPLES if os.environ.get("FLOPSCOPE_HYPOTHESIS") == "ci" else LOCAL_EXAMPLES


def written(hf_config) -> dict[str, dict]:
    """The config as a user meets it: ``save_pretrained()``'s config.json and ``to_dict()`` as JSON."""
    with tempfile.TemporaryDirectory() as tmp:
        hf_config.save_pretrained(tmp)
        saved = json.loads((Path(tmp) / "config.json").read_text())
    return {"save_pretrained": saved, "to_dict": json.loads(json.dumps(hf_config.to_dict()))}


def config_object(model_type: str, kwargs: dict, cls: str):
    """The config object, built by the family's transformers config class."""
    import transformers

    hf_config = transformers.CONFIG_MAPPING[model_type](**kwargs)
    hf_config.architectures = [cls]
    return hf_config


def check(model_type: str, kwargs: dict, cls: str, length: int, decoder_length: int) -> None:
    hf_config = config_object(model_type, kwargs, cls)
    files = written(hf_config)
    model = build_from(hf_config, cls)
    decoder = decoder_length if model.config.is_encoder_decoder else None
    params, flop = model_counts(model, length, decoder)
    flop -= idle_expert_flop(files["to_dict"], length, decoder)  # Llama 4, NLLB-MoE: routed experts (docs/llm.md)
    for how, data in files.items():
        config = read_hf_config(data)  # strict: a refusal fails the test
        assert config.ignored_keys == ()
        result = evaluate(config.architecture(length, decoder), "matmul")
        assert (result.params, result.forward_flop) == (params, flop), \
            f"{model_type} {cls} ({how}), T={length}: engine ≠ transformers for {json.dumps(kwargs, default=str)}"


@pytest.mark.parametrize("model_type", sorted(FAMILIES))
@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                       HealthCheck.too_slow])
@given(data=st.data())
def test_random_config_of_every_family_is_exact_both_ways(torch, model_type, data):
    cls = data.draw(st.sampled_from(list(FAMILIES[model_type].classes)), label="class")
    kwargs = data.draw(random_configs.config_kwargs(model_type, cls), label="config")
    length = data.draw(st.integers(1, random_configs.MAX_SEQ), label="tokens")
    decoder_length = data.draw(st.integers(1, random_configs.MAX_SEQ), label="decoder tokens")
    from huggingface_hub.errors import StrictDataclassError

    try:
        config_object(model_type, kwargs, cls)
    except (StrictDataclassError, ValueError):  # the config class refuses it (InternLM3: q/k/v bias ≠ MLP bias)
        reject()  # no such file exists; a family whose draws all fail so fails the test (Unsatisfiable)
    check(model_type, kwargs, cls, length, decoder_length)


MAMBA = {"num_hidden_layers": 2, "hidden_size": 32, "vocab_size": 62, "state_size": 7, "conv_kernel": 3, "expand": 1,
         "time_step_rank": 2, "use_bias": True, "use_conv_bias": False, "pad_token_id": 0, "bos_token_id": 0,
         "eos_token_id": 0}
FOUND = {
    # the file's intermediate_size is the inner width transformers builds (the reader took expand·d: 344 vs 113
    # parameters at d=8, I=1)
    "mamba inner width of its own": ("mamba", MAMBA | {"intermediate_size": 11}, "MambaForCausalLM", 5, 1),
    "falcon_mamba inner width of its own": ("falcon_mamba", MAMBA | {"intermediate_size": 1}, "FalconMambaForCausalLM",
                                            1, 1),
    # fewer tokens than the convolution's kernel, bare model (the reference passed no use_cache to MambaModel's
    # decorated forward; its cache padded the convolution's input to K positions: 5,984 vs 5,720 FLOP)
    "mamba bare model, T < K": ("mamba", MAMBA | {"intermediate_size": 11}, "MambaModel", 1, 1),
}
"""Configs the random test found wrong, kept as regression tests (engine = transformers, both files)."""


@pytest.mark.parametrize("name", FOUND)
def test_config_found_by_the_random_test(torch, name):
    check(*FOUND[name])


def test_phi_moe_router_picks_two_experts_whatever_the_config_says(torch):
    """Phi-3.5-MoE's sparsemixer always routes a token to 2 experts: transformers' FLOP with
    num_experts_per_tok 1 are the engine's with 2 (the random test found the engine counting 1); the reader
    refuses any other value by name."""
    import transformers

    from engine.errors import InputError

    kwargs = {"num_hidden_layers": 1, "num_key_value_heads": 1, "num_attention_heads": 1, "hidden_size": 4,
              "intermediate_size": 1, "vocab_size": 8, "bos_token_id": 0, "eos_token_id": 0,
              "max_position_embeddings": 12, "num_local_experts": 3}
    one = transformers.PhimoeConfig(**kwargs, num_experts_per_tok=1)
    one.architectures = ["PhimoeForCausalLM"]
    expected = model_counts(build_from(one, "PhimoeForCausalLM"), 4)
    with pytest.raises(InputError, match=r"^config\.num_experts_per_tok: 1 is not supported"):
        read_hf_config(written(one)["to_dict"])
    two = written(transformers.PhimoeConfig(**kwargs, num_experts_per_tok=2))["save_pretrained"]
    result = evaluate(read_hf_config(two).architecture(4), "matmul")
    assert (result.params, result.forward_flop) == expected


def test_every_exclusion_names_a_supported_family_and_says_why():
    assert set(random_configs.PINNED) <= set(FAMILIES)
    for family in FAMILIES:
        assert all(len(why) > 20 for _, why in random_configs.pinned(family).values())
    assert "tie_word_embeddings" in random_configs.pinned("bert")  # a masked-LM family
    assert set(random_configs.HOOKS) <= set(FAMILIES)
    assert all(hook.__doc__ for hook in random_configs.HOOKS.values())
