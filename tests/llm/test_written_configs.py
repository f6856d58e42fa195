"""Config files written by ``transformers`` itself count without ``lenient``, exactly: for every supported
family, a small config built with transformers' own config class is written both ways a user meets —
``config.to_dict()`` (every attribute, ``is_encoder_decoder``, ``pruned_heads``…) and ``save_pretrained()``
(``config.json`` as the Hub stores it) — read back by the engine, and its parameters and forward FLOP
compared with the transformers model built from the same file on the meta device."""
from __future__ import annotations

import json

import pytest

from engine.llm.config import read_hf_config
from engine.llm.families import FAMILIES
from engine.method1.architecture import evaluate

pytest.importorskip("transformers")
from tests.llm.hf_reference import T5_TIED, counts, idle_expert_flop
from tests.llm.test_families_hf import SMALL, VARIANTS
from tests.llm.test_seq2seq_families_hf import SEQ2SEQ_VARIANTS

SEQ = 10


def small_config(model_type: str) -> dict:
    """A small config of this family: a variant of ``test_families_hf`` or the shared small sizes."""
    for config in (VARIANTS | SEQ2SEQ_VARIANTS).values():
        if config["model_type"] == model_type:
            return dict(config)
    from tests.llm.random_configs import with_mrope

    first = next(iter(FAMILIES[model_type].classes))
    return with_mrope(model_type, {"model_type": model_type, "architectures": [first], **SMALL})


def written(config: dict, how: str, tmp_path) -> dict:
    """The config as transformers writes it: ``to_dict()`` or ``save_pretrained()``'s config.json."""
    import transformers

    data = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    hf = transformers.AutoConfig.for_model(config["model_type"], **data)
    hf.architectures = list(config["architectures"])
    if how == "to_dict":
        return json.loads(json.dumps(hf.to_dict()))
    hf.save_pretrained(tmp_path)
    return json.loads((tmp_path / "config.json").read_text())


@pytest.mark.parametrize("how", ["to_dict", "save_pretrained"])
@pytest.mark.parametrize("model_type", sorted(FAMILIES))
def test_transformers_written_config_counts_exactly(torch, tmp_path, model_type, how):
    data = written(small_config(model_type), how, tmp_path)
    model = read_hf_config(data)  # strict: no key refused
    assert model.ignored_keys == ()
    result = evaluate(model.architecture(SEQ), "matmul")
    expected_params, expected_flop = counts(data, SEQ)
    untied_t5 = data["vocab_size"] * data["d_model"] if model_type in T5_TIED and not data["tie_word_embeddings"] \
        else 0
    assert (result.params - untied_t5, result.forward_flop) == (expected_params,
                                                                expected_flop - idle_expert_flop(data, SEQ))


@pytest.mark.parametrize("how", ["to_dict", "save_pretrained"])
def test_every_library_model_rewritten_by_transformers_counts_the_same(torch, tmp_path, how):
    """Each published config of the library, loaded into transformers' config class and written back out (the
    file a user gets after ``from_pretrained`` + ``save_pretrained``): read strictly, the same parameters and
    FLOP as the published file (itself equal to transformers: test_families_hf). The one difference:
    transformers 5 writes Flan-T5's untied head as tied (``T5Config.__post_init__``), V·d fewer parameters."""
    from engine.llm.library import library_models

    for number, model in enumerate(library_models()):
        published = evaluate(read_hf_config(model.config).architecture(SEQ), "matmul")
        folder = tmp_path / str(number)
        folder.mkdir()
        rewritten = evaluate(read_hf_config(written(model.config, how, folder)).architecture(SEQ), "matmul")
        cfg = model.config
        untied_t5 = cfg["vocab_size"] * cfg["d_model"] if cfg["model_type"] in T5_TIED and \
            cfg.get("tie_word_embeddings") is False else 0
        assert (rewritten.params + untied_t5, rewritten.forward_flop) == \
            (published.params, published.forward_flop), model.id
