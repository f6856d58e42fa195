"""The encoder–decoder families (``engine.llm.families.t5``, ``bart``) against transformers itself (the class in
``architectures``, head included, built on the meta device: Σ numel, FlopCounterMode of one forward pass),
with encoder and decoder lengths apart (cross-attention reads the encoder's M positions); and what each
family refuses, by name."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.llm.config import read_hf_config
from engine.method1.architecture import evaluate

pytest.importorskip("transformers")
from tests.llm.hf_reference import T5_TIED, counts, idle_expert_flop

ENCODER_LEN, DECODER_LEN = 12, 7

T5_SMALL = {"d_model": 40, "d_kv": 12, "d_ff": 72, "num_layers": 3, "num_decoder_layers": 2, "num_heads": 5,
            "vocab_size": 100, "feed_forward_proj": "gated-gelu", "relative_attention_num_buckets": 16}
BART_SMALL = {"d_model": 48, "encoder_layers": 3, "decoder_layers": 2, "encoder_attention_heads": 4,
              "decoder_attention_heads": 6, "encoder_ffn_dim": 64, "decoder_ffn_dim": 80, "vocab_size": 100,
              "max_position_embeddings": 40, "pad_token_id": 1, "decoder_start_token_id": 2, "bos_token_id": 0,
              "eos_token_id": 2}


def _variant(model_type: str, architecture: str, base: dict, **keys) -> dict:
    return {"model_type": model_type, "architectures": [architecture], **base, **keys}


SEQ2SEQ_VARIANTS = {
    "mt5": _variant("mt5", "MT5ForConditionalGeneration", T5_SMALL, tie_word_embeddings=False),
    "mt5 model, relu": _variant("mt5", "MT5Model", T5_SMALL, feed_forward_proj="relu"),
    "mt5 encoder": _variant("mt5", "MT5EncoderModel", T5_SMALL),
    "umt5": _variant("umt5", "UMT5ForConditionalGeneration", T5_SMALL, tie_word_embeddings=False),
    "umt5 model": _variant("umt5", "UMT5Model", T5_SMALL),
    "umt5 encoder": _variant("umt5", "UMT5EncoderModel", T5_SMALL),
    "mbart": _variant("mbart", "MBartForConditionalGeneration", BART_SMALL, scale_embedding=True),
    "mbart untied": _variant("mbart", "MBartForConditionalGeneration", BART_SMALL, tie_word_embeddings=False),
    "mbart model": _variant("mbart", "MBartModel", BART_SMALL, activation_function="relu"),
    "plbart": _variant("plbart", "PLBartForConditionalGeneration", BART_SMALL),
    "mvp": _variant("mvp", "MvpForConditionalGeneration", BART_SMALL),
    "marian": _variant("marian", "MarianMTModel", BART_SMALL, activation_function="swish", scale_embedding=True,
                       decoder_vocab_size=100),
    "marian untied head": _variant("marian", "MarianMTModel", BART_SMALL, tie_word_embeddings=False),
    "marian model": _variant("marian", "MarianModel", BART_SMALL),
    "m2m_100": _variant("m2m_100", "M2M100ForConditionalGeneration", BART_SMALL, activation_function="relu"),
    "m2m_100 model untied": _variant("m2m_100", "M2M100Model", BART_SMALL, tie_word_embeddings=False),
    "pegasus": _variant("pegasus", "PegasusForConditionalGeneration", BART_SMALL, activation_function="relu"),
    "pegasus model": _variant("pegasus", "PegasusModel", BART_SMALL),
    "blenderbot": _variant("blenderbot", "BlenderbotForConditionalGeneration", BART_SMALL),
    "blenderbot model": _variant("blenderbot", "BlenderbotModel", BART_SMALL),
    "blenderbot-small": _variant("blenderbot-small", "BlenderbotSmallForConditionalGeneration", BART_SMALL),
    "bigbird_pegasus full attention": _variant("bigbird_pegasus", "BigBirdPegasusForConditionalGeneration", BART_SMALL,
                                              attention_type="original_full"),
    "bigbird_pegasus model, biases, untied": _variant("bigbird_pegasus", "BigBirdPegasusModel", BART_SMALL,
                                                      attention_type="original_full", use_bias=True,
                                                      tie_word_embeddings=False),
    "blenderbot-small model untied": _variant("blenderbot-small", "BlenderbotSmallModel", BART_SMALL,
                                              tie_word_embeddings=False),
}

SWITCH_SMALL = {"d_model": 32, "d_ff": 48, "d_kv": 8, "num_heads": 4, "num_layers": 4, "num_decoder_layers": 3,
                "num_sparse_encoder_layers": 2, "num_sparse_decoder_layers": 1, "num_experts": 4, "vocab_size": 60,
                "relative_attention_num_buckets": 8}
NLLB_SMALL = {"d_model": 32, "encoder_layers": 4, "decoder_layers": 3, "encoder_attention_heads": 4,
              "decoder_attention_heads": 2, "encoder_ffn_dim": 48, "decoder_ffn_dim": 40, "vocab_size": 60,
              "max_position_embeddings": 40, "num_experts": 4, "encoder_sparse_step": 2, "decoder_sparse_step": 3,
              "pad_token_id": 1}
LONGT5_SMALL = T5_SMALL | {"local_radius": 3, "global_block_size": 4}
SEQ2SEQ_VARIANTS |= {
    "longt5 local": _variant("longt5", "LongT5ForConditionalGeneration", LONGT5_SMALL, encoder_attention_type="local",
                             tie_word_embeddings=False),
    "longt5 transient-global": _variant("longt5", "LongT5ForConditionalGeneration", LONGT5_SMALL,
                                        encoder_attention_type="transient-global"),
    "longt5 model transient-global, block of 5": _variant("longt5", "LongT5Model", LONGT5_SMALL, local_radius=4,
                                                          global_block_size=3, encoder_attention_type="transient-global"),
    "longt5 encoder local": _variant("longt5", "LongT5EncoderModel", LONGT5_SMALL, encoder_attention_type="local"),
}
SEQ2SEQ_VARIANTS |= {
    "switch_transformers": _variant("switch_transformers", "SwitchTransformersForConditionalGeneration", SWITCH_SMALL),
    "switch_transformers every layer sparse, router bias, untied": _variant(
        "switch_transformers", "SwitchTransformersForConditionalGeneration", SWITCH_SMALL,
        num_sparse_encoder_layers=4, num_sparse_decoder_layers=3, router_bias=True, tie_word_embeddings=False,
        dense_act_fn="gelu_new"),
    "switch_transformers model, no sparse decoder layer": _variant(
        "switch_transformers", "SwitchTransformersModel", SWITCH_SMALL, num_sparse_decoder_layers=0),
    "switch_transformers encoder": _variant("switch_transformers", "SwitchTransformersEncoderModel", SWITCH_SMALL),
    "nllb-moe": _variant("nllb-moe", "NllbMoeForConditionalGeneration", NLLB_SMALL),
    "nllb-moe model, router bias, 6 experts": _variant("nllb-moe", "NllbMoeModel", NLLB_SMALL, router_bias=True,
                                                       num_experts=6, encoder_sparse_step=1),
}

T5GEMMA_STACK = {"hidden_size": 32, "intermediate_size": 48, "num_hidden_layers": 3, "num_attention_heads": 4,
                 "num_key_value_heads": 2, "head_dim": 12, "vocab_size": 100, "sliding_window": 4}
T5GEMMA_SMALL = {"encoder": T5GEMMA_STACK, "decoder": T5GEMMA_STACK | {"num_hidden_layers": 2, "intermediate_size": 40,
                                                                       "num_attention_heads": 2, "head_dim": 8}}
SEQ2SEQ_VARIANTS |= {
    "t5gemma": _variant("t5gemma", "T5GemmaForConditionalGeneration", T5GEMMA_SMALL),
    "t5gemma untied, biases, relu, layer kinds": _variant(
        "t5gemma", "T5GemmaForConditionalGeneration", T5GEMMA_SMALL, tie_word_embeddings=False,
        encoder=T5GEMMA_STACK | {"attention_bias": True, "layer_types": ["full_attention"] * 3},
        decoder=T5GEMMA_SMALL["decoder"] | {"hidden_activation": "relu", "attention_bias": True,
                                            "layer_types": ["full_attention", "sliding_attention"]}),
    "t5gemma model, multi-query decoder": _variant("t5gemma", "T5GemmaModel", T5GEMMA_SMALL,
                                                   decoder=T5GEMMA_SMALL["decoder"] | {"num_key_value_heads": 1}),
    "t5gemma encoder": _variant("t5gemma", "T5GemmaEncoderModel", T5GEMMA_SMALL, is_encoder_decoder=False),
}

WHISPER_SMALL = {"d_model": 48, "decoder_layers": 3, "decoder_attention_heads": 4, "decoder_ffn_dim": 40,
                 "vocab_size": 100, "max_target_positions": 20, "pad_token_id": 0, "bos_token_id": 1, "eos_token_id": 2,
                 "decoder_start_token_id": 1}
SEQ2SEQ_VARIANTS |= {  # decoders of encoder–decoder models as causal LMs: their cross-attention held, not run
    "whisper decoder": _variant("whisper", "WhisperForCausalLM", WHISPER_SMALL),
    "whisper decoder untied, relu, encoder keys": _variant("whisper", "WhisperForCausalLM", WHISPER_SMALL,
                                                           tie_word_embeddings=False, activation_function="relu",
                                                           encoder_layers=7, encoder_attention_heads=3),
}
TROCR_SMALL = {"d_model": 48, "decoder_layers": 3, "decoder_attention_heads": 4, "decoder_ffn_dim": 40,
               "vocab_size": 100, "max_position_embeddings": 20}
FSMT_SMALL = {"d_model": 48, "encoder_layers": 2, "decoder_layers": 3, "encoder_attention_heads": 4,
              "decoder_attention_heads": 6, "encoder_ffn_dim": 40, "decoder_ffn_dim": 56, "src_vocab_size": 100,
              "tgt_vocab_size": 100, "max_position_embeddings": 20, "langs": ["en", "de"]}
SEQ2SEQ_VARIANTS |= {  # FSMT: the tables are one when tied, three when not
    "fsmt": _variant("fsmt", "FSMTForConditionalGeneration", FSMT_SMALL),
    "fsmt tied, gelu": _variant("fsmt", "FSMTForConditionalGeneration", FSMT_SMALL, tie_word_embeddings=True,
                                activation_function="gelu"),
    "fsmt model, pad 3": _variant("fsmt", "FSMTModel", FSMT_SMALL, pad_token_id=3, scale_embedding=False),
}
XLM_SMALL = {"emb_dim": 48, "n_layers": 2, "n_heads": 4, "vocab_size": 100, "max_position_embeddings": 20}
SEQ2SEQ_VARIANTS |= {  # XLM, Flaubert: the encoders of fairseq's cross-lingual models, with their LM head
    "xlm": _variant("xlm", "XLMWithLMHeadModel", XLM_SMALL),
    "xlm languages, causal, relu": _variant("xlm", "XLMWithLMHeadModel", XLM_SMALL, n_langs=3, causal=True,
                                            gelu_activation=False),
    "xlm model untied, languages without their table": _variant("xlm", "XLMModel", XLM_SMALL, n_langs=3,
                                                                use_lang_emb=False, tie_word_embeddings=False),
    "flaubert": _variant("flaubert", "FlaubertWithLMHeadModel", XLM_SMALL, n_langs=2),
    "flaubert model": _variant("flaubert", "FlaubertModel", XLM_SMALL, sinusoidal_embeddings=True),
}
SEQ2SEQ_VARIANTS |= {
    "trocr decoder": _variant("trocr", "TrOCRForCausalLM", TROCR_SMALL),
    "trocr decoder untied, relu, narrower image encoder": _variant(
        "trocr", "TrOCRForCausalLM", TROCR_SMALL, tie_word_embeddings=False, activation_function="relu",
        cross_attention_hidden_size=24),
    "trocr decoder sinusoidal, no embedding norm": _variant(
        "trocr", "TrOCRForCausalLM", TROCR_SMALL, use_learned_position_embeddings=False, layernorm_embedding=False,
        scale_embedding=True),
}


def _engine(config: dict, seq_len: int, decoder_seq_len: int | None = None) -> tuple[int, int]:
    model = read_hf_config(config)
    result = evaluate(model.architecture(seq_len, decoder_seq_len), "matmul")
    return result.params, result.forward_flop


def _published_head(config: dict) -> int:
    """transformers 5 ties the T5 families' head whatever the file says (``hf_reference.T5_TIED``); the engine
    counts the file's untied head: V·d more parameters."""
    if config["model_type"] in T5_TIED and config.get("tie_word_embeddings") is False:
        return config["vocab_size"] * config["d_model"]
    return 0


@pytest.mark.parametrize("name", SEQ2SEQ_VARIANTS)
def test_small_variant_matches_transformers(torch, name):
    config = SEQ2SEQ_VARIANTS[name]
    params, flop = counts(config, ENCODER_LEN, DECODER_LEN)
    decoder = None if config["architectures"][0].endswith("EncoderModel") else DECODER_LEN
    assert _engine(config, ENCODER_LEN, decoder) == (params + _published_head(config),
                                                      flop - idle_expert_flop(config, ENCODER_LEN, decoder))


@pytest.mark.parametrize("name", ["switch_transformers", "nllb-moe"])
def test_meta_expert_loops_count_what_the_real_loop_counts(torch, name):
    """The reference replaces two expert loops that the meta device cannot run (``hf_reference.EXPERT_LOOPS``): on
    CPU with random weights and random tokens, transformers' own loop gives the same FlopCounterMode total."""
    import transformers
    from torch.utils.flop_counter import FlopCounterMode

    from tests.llm.hf_reference import build

    config = SEQ2SEQ_VARIANTS[name]
    data = {k: v for k, v in config.items() if k not in ("model_type", "architectures")}
    hf_config = transformers.AutoConfig.for_model(config["model_type"], **data)
    torch.manual_seed(0)
    model = getattr(transformers, config["architectures"][0])._from_config(hf_config, attn_implementation="eager")
    ids = torch.randint(3, data["vocab_size"], (1, ENCODER_LEN))
    decoder_ids = torch.randint(3, data["vocab_size"], (1, DECODER_LEN))
    with torch.no_grad(), FlopCounterMode(display=False) as real:
        model.eval()(input_ids=ids, decoder_input_ids=decoder_ids, use_cache=False)
    assert type(build(config).get_submodule(_first_experts(model))).__name__ in ("SwitchTransformersExperts",
                                                                                 "NllbMoeExperts")
    assert real.get_total_flops() == counts(config, ENCODER_LEN, DECODER_LEN)[1]


def _first_experts(model) -> str:
    return next(name for name, module in model.named_modules() if type(module).__name__.endswith("MoeExperts")
                or type(module).__name__ == "SwitchTransformersExperts")


def test_nllb_moe_counts_the_two_routed_experts():
    """NLLB-MoE routes each token to 2 experts: per sparse layer 2·T·(2·d·F + 2·F·d) expert FLOP (a formula), whatever
    the number of experts; each expert adds its 2·d·F + F + d parameters and the router d more."""
    base = SEQ2SEQ_VARIANTS["nllb-moe"]
    six = _engine(base | {"num_experts": 6}, ENCODER_LEN, DECODER_LEN)
    four = _engine(base, ENCODER_LEN, DECODER_LEN)
    d, f_enc, f_dec = base["d_model"], base["encoder_ffn_dim"], base["decoder_ffn_dim"]
    sparse_enc, sparse_dec = 2, 1  # layers 1, 3 of 4 (step 2); layer 2 of 3 (step 3)
    per_expert = sparse_enc * (2 * d * f_enc + f_enc + d + d) + sparse_dec * (2 * d * f_dec + f_dec + d + d)
    router_flop = 2 * 2 * d * (sparse_enc * ENCODER_LEN + sparse_dec * DECODER_LEN)
    assert six == (four[0] + 2 * per_expert, four[1] + router_flop)


def test_umt5_has_a_bias_table_per_layer():
    """UMT5 = mT5 plus (layers − 1) more buckets × H tables in each stack (a formula, apart from transformers)."""
    mt5 = _engine(SEQ2SEQ_VARIANTS["mt5"], ENCODER_LEN, DECODER_LEN)
    umt5 = _engine(SEQ2SEQ_VARIANTS["umt5"], ENCODER_LEN, DECODER_LEN)
    extra_tables = (T5_SMALL["num_layers"] - 1) + (T5_SMALL["num_decoder_layers"] - 1)
    assert umt5 == (mt5[0] + extra_tables * T5_SMALL["relative_attention_num_buckets"] * T5_SMALL["num_heads"],
                    mt5[1])


def test_position_tables_by_family():
    """P·d per stack: learned with 2 extra rows (mBART), P rows (Blenderbot), sinusoidal parameters (Pegasus),
    a sinusoidal buffer (M2M-100: none); the rest of the layout equal (pre-norm, final norms)."""
    d, p = BART_SMALL["d_model"], BART_SMALL["max_position_embeddings"]
    m2m = _engine(SEQ2SEQ_VARIANTS["m2m_100"] | {"activation_function": "gelu"}, 10)[0]
    assert _engine(SEQ2SEQ_VARIANTS["pegasus"], 10)[0] == m2m + 2 * p * d
    assert _engine(SEQ2SEQ_VARIANTS["blenderbot"], 10)[0] == m2m + 2 * p * d
    assert _engine(SEQ2SEQ_VARIANTS["mbart"], 10)[0] == m2m + 2 * (p + 2) * d + 2 * 2 * d  # + embedding norms


@pytest.mark.parametrize("model_type,cls,change,key", [
    ("marian", "MarianMTModel", {"share_encoder_decoder_embeddings": False}, "share_encoder_decoder_embeddings"),
    ("marian", "MarianMTModel", {"decoder_vocab_size": 80}, "decoder_vocab_size"),
    ("mvp", "MvpForConditionalGeneration", {"use_prompt": True}, "use_prompt"),
    ("switch_transformers", "SwitchTransformersEncoderModel", {"tie_word_embeddings": False}, "tie_word_embeddings"),
    ("longt5", "LongT5EncoderModel", {"encoder_attention_type": "transient-global"}, "encoder_attention_type"),
    ("bigbird_pegasus", "BigBirdPegasusForConditionalGeneration", {"attention_type": "block_sparse"}, "attention_type"),
])
def test_layouts_not_modelled_are_refused_by_name(model_type, cls, change, key):
    base = {"switch_transformers": SWITCH_SMALL, "longt5": LONGT5_SMALL}.get(model_type, BART_SMALL)
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(_variant(model_type, cls, base, **change))


@pytest.mark.parametrize("model_id,published,unit,tables", [
    ("mt5-small", 300e6, 10e6, 0),          # Xue et al. 2021 (mT5), Sec. 3: 300M
    ("mt5-base", 580e6, 10e6, 0),           # ibid.: 580M
    ("plbart-base", 140e6, 10e6, 0),        # Ahmad et al. 2021 (PLBART), Sec. 3: 140M
    ("pegasus-large", 568e6, 2e6, 2 * 1024 * 1024),  # Zhang et al. 2020 (PEGASUS): 568M (568.7M without the
    # sinusoidal tables)
    ("m2m100-1.2b", 1.2e9, 0.1e9, 0),       # Fan et al. 2021 (M2M-100) release: 1.2B
    ("blenderbot-3b", 2.7e9, 0.1e9, 0),     # Roller et al. 2021 (BlenderBot): 2.7B
    ("blenderbot-small-90m", 90e6, 10e6, 0),  # ibid.: 90M
    ("nllb-moe-54b", 54.5e9, 0.1e9, 0),     # NLLB Team 2022 (No Language Left Behind), model card: 54.5B
    ("switch-base-8", 620e6, 10e6, 0),      # google/switch-base-8 model page: 620M
])
def test_library_models_match_their_published_sizes(model_id, published, unit, tables):
    """The published size, rounded as published (to ``unit``): an independent check of the library's configs.
    ``tables``: parameters transformers holds that the published figure leaves out (Pegasus' sinusoidal tables)."""
    from engine.llm.library import library_model

    params = evaluate(read_hf_config(library_model(model_id).config).architecture(8)).params - tables
    assert abs(params - published) <= unit / 2, (model_id, params)


NEW_SEQ2SEQ = [n for n in SEQ2SEQ_VARIANTS if n.startswith(("t5gemma", "whisper", "trocr", "xlm", "flaubert", "fsmt"))]


@pytest.mark.parametrize("name", NEW_SEQ2SEQ)
def test_full_training_matches_transformers(torch, name):
    """Full training, every weight trains: forward and backward FLOP equal transformers' (loss.backward() under
    FlopCounterMode on the meta device, ``tests/llm/test_backward_hf.py``'s reference)."""
    from engine.llm.estimate import TransformerRun, estimate_transformer
    from tests.llm.test_backward_hf import SEQ, _full_reference

    config = SEQ2SEQ_VARIANTS[name]
    forward, backward = _full_reference(torch, config, SEQ)
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, backward="exact"))
    assert (estimate.architecture.forward_flop, estimate.architecture.backward_flop) == (forward, backward)


def test_t5gemma_by_hand():
    """T5Gemma = two Gemma 2 stacks, each with its own V·d token table and a final norm d; the decoder's layers add a
    cross-attention (q d→H·Q, k and v d→H_kv·Q, out H·Q→d) between two norms: sizes worked out here."""
    d, v = 32, 100
    enc, dec = T5GEMMA_STACK, T5GEMMA_SMALL["decoder"]

    def attention(s):
        return 2 * d * s["num_attention_heads"] * s["head_dim"] + 2 * d * s["num_key_value_heads"] * s["head_dim"]

    def layer(s):  # q, k, v, o; gate, up, down; 4 norms (pre/post attention, pre/post feed-forward)
        return attention(s) + 3 * d * s["intermediate_size"] + 4 * d

    encoder = 3 * layer(enc) + d
    decoder = 2 * (layer(dec) + attention(dec) + 2 * d) + d
    assert _engine(SEQ2SEQ_VARIANTS["t5gemma"], ENCODER_LEN, DECODER_LEN)[0] == 2 * v * d + encoder + decoder
    assert _engine(SEQ2SEQ_VARIANTS["t5gemma encoder"], ENCODER_LEN)[0] == v * d + encoder


def test_whisper_decoder_by_hand():
    """WhisperForCausalLM = token table V·d, positions P·d, per layer self-attention (4·d² + 3·d: no k bias) and the
    cross-attention it holds (the same, never run without an encoder), 3 LayerNorms (2·d each), fc1/fc2
    (2·d·F + F + d); a final LayerNorm; the tied head. FLOP: per layer 2·L·4·d² + 2·2·L²·d (self-attention only)
    + 2·L·2·d·F, and the head 2·L·d·V."""
    d, f, v, p, n, length = 48, 40, 100, 20, 3, 12
    attention = 4 * d * d + 3 * d
    params = v * d + p * d + n * (2 * attention + 3 * 2 * d + 2 * d * f + f + d) + 2 * d
    flop = n * (2 * length * 4 * d * d + 4 * length * length * d + 2 * length * 2 * d * f) + 2 * length * d * v
    assert _engine(SEQ2SEQ_VARIANTS["whisper decoder"], length) == (params, flop)


@pytest.mark.parametrize("change,key", [
    ({"encoder": T5GEMMA_STACK | {"hidden_size": 48}}, "encoder.hidden_size"),
    ({"encoder": T5GEMMA_STACK | {"vocab_size": 90}}, "encoder.vocab_size"),
    ({"decoder": T5GEMMA_STACK | {"head_dim": None}}, "decoder.head_dim"),
    ({"decoder": T5GEMMA_STACK | {"layer_types": ["full_attention"]}}, "decoder.layer_types"),
    ({"decoder": None}, "decoder"),
])
def test_t5gemma_layouts_not_modelled_are_refused_by_name(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(_variant("t5gemma", "T5GemmaForConditionalGeneration", T5GEMMA_SMALL, **change))
    with pytest.raises(InputError, match=r"^config\.is_encoder_decoder: "):  # transformers refuses both
        read_hf_config(_variant("t5gemma", "T5GemmaEncoderModel", T5GEMMA_SMALL, is_encoder_decoder=True))
    with pytest.raises(InputError, match=r"^config\.is_encoder_decoder: "):
        read_hf_config(_variant("t5gemma", "T5GemmaModel", T5GEMMA_SMALL, is_encoder_decoder=False))


@pytest.mark.parametrize("length", [3, 8, 13])
def test_longt5_local_attention_from_the_formula(length):
    """LongT5's encoder self-attention at L positions, blocks of b = r + 1 (L padded up to n·b): QKᵀ and AV score
    3·b keys per padded query, + ⌊L/G⌋ block sums with transient-global (each a row of L·d MACs, keyed and
    valued): the engine's encoder FLOP differ between the two kinds by exactly that."""
    local = SEQ2SEQ_VARIANTS["longt5 local"] | {"tie_word_embeddings": True}
    tglobal = SEQ2SEQ_VARIANTS["longt5 transient-global"]
    d, h, q, layers = T5_SMALL["d_model"], T5_SMALL["num_heads"], T5_SMALL["d_kv"], T5_SMALL["num_layers"]
    b, g = LONGT5_SMALL["local_radius"] + 1, length // LONGT5_SMALL["global_block_size"]
    padded = -(-length // b) * b
    extra = layers * 2 * (length * d * g + 2 * g * d * h * q + 2 * padded * g * h * q)
    assert _engine(tglobal, length, 4)[1] - _engine(local, length, 4)[1] == extra
    assert _engine(tglobal, length, 4)[0] - _engine(local, length, 4)[0] == \
        layers * d + T5_SMALL["relative_attention_num_buckets"] * h  # a global norm per layer, a second bias table


@pytest.mark.parametrize("model_id,params", [("whisper-base-decoder", 52_003_328), ("whisper-small-decoder", 153_580_800)])
def test_whisper_library_decoders_match_transformers(torch, model_id, params):
    """The published Whisper configs read as WhisperForCausalLM: parameters and forward FLOP of transformers' model on
    meta (the decoder of whisper-small: 153.6M of the published 244M, the rest its audio encoder)."""
    from engine.llm.library import library_model

    config = library_model(model_id).config
    assert _engine(config, 8) == counts(config, 8)
    assert _engine(config, 8)[0] == params


def test_trocr_cross_attention_reads_the_image_encoders_width():
    """TrOCR's held cross-attention: k and v map the image encoder's C-wide output to d; C = 24 instead of d = 48
    holds 2·(48 − 24)·48 fewer parameters per layer (3 layers), the same FLOP (it does not run); the sinusoidal
    positions hold no parameters where the learned ones hold (P + 2)·d, and the embedding norm 2·d."""
    base = _engine(SEQ2SEQ_VARIANTS["trocr decoder"], 12)
    narrow = _engine(SEQ2SEQ_VARIANTS["trocr decoder"] | {"cross_attention_hidden_size": 24}, 12)
    assert narrow == (base[0] - 3 * 2 * (48 - 24) * 48, base[1])
    bare = _engine(SEQ2SEQ_VARIANTS["trocr decoder sinusoidal, no embedding norm"], 12)
    assert bare == (base[0] - (20 + 2) * 48 - 2 * 48, base[1])


@pytest.mark.parametrize("model_id,params", [("trocr-base-handwritten-decoder", 298_211_328),
                                             ("trocr-small-handwritten-decoder", 39_636_480)])
def test_trocr_library_decoders_match_transformers(torch, model_id, params):
    """The TrOCR decoders as TrOCRForCausalLM = transformers on meta. Li et al. 2021 (TrOCR), Table: small 62M with
    its 22M DeiT-small encoder (39.6M + 22M); base 334M with its 86M BEiT-base encoder, which the untied 50,265 × 1024
    output projection (51.5M) would exceed: the paper's figure leaves that copy out (298.2 − 51.5 + 86 ≈ 333M)."""
    from engine.llm.library import library_model

    config = library_model(model_id).config
    assert _engine(config, 8) == counts(config, 8)
    assert _engine(config, 8)[0] == params


def test_xlm_by_hand():
    """XLMWithLMHeadModel: tables V·d + P·d + n_langs·d (n_langs > 1), the embedding LayerNorm 2·d; per layer
    attention 4·(d² + d), feed-forward d→4d→d with biases, 2 LayerNorms; the tied head's bias V. FLOP per layer
    2·L·4·d² + 2·2·L²·d + 2·L·2·d·4d, and the head 2·L·d·V (a formula, apart from transformers)."""
    d, v, p, n, length = 48, 100, 20, 2, 12
    layer = 4 * (d * d + d) + (d * 4 * d + 4 * d) + (4 * d * d + d) + 2 * 2 * d
    params = v * d + p * d + 3 * d + 2 * d + n * layer + v
    flop = n * (2 * length * 4 * d * d + 4 * length * length * d + 2 * length * 8 * d * d) + 2 * length * d * v
    assert _engine(SEQ2SEQ_VARIANTS["xlm languages, causal, relu"], length) == (params, flop)


@pytest.mark.parametrize("model_type,cls,change,key", [
    ("xlm", "XLMWithLMHeadModel", {"asm": True}, "asm"),
    ("flaubert", "FlaubertWithLMHeadModel", {"pre_norm": True}, "pre_norm"),
])
def test_xlm_layouts_not_modelled_are_refused_by_name(model_type, cls, change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(_variant(model_type, cls, XLM_SMALL, **change))


def test_fsmt_tables_by_hand():
    """FSMT untied holds three V·d tables (encoder, decoder, output projection), tied one: 2·V·d apart, the same FLOP;
    each stack's sinusoidal table has P + pad + 1 rows: pad_token_id 3 instead of 1 adds 2·2·d."""
    v, d = 100, 48
    untied = _engine(SEQ2SEQ_VARIANTS["fsmt"], 12, 7)
    tied = _engine(SEQ2SEQ_VARIANTS["fsmt"] | {"tie_word_embeddings": True}, 12, 7)
    assert untied == (tied[0] + 2 * v * d, tied[1])
    assert _engine(SEQ2SEQ_VARIANTS["fsmt"] | {"pad_token_id": 3}, 12, 7)[0] == untied[0] + 2 * 2 * d


@pytest.mark.parametrize("change,key", [({"src_vocab_size": 90}, "src_vocab_size"), ({"pad_token_id": None}, "pad_token_id")])
def test_fsmt_layouts_not_modelled_are_refused_by_name(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(_variant("fsmt", "FSMTForConditionalGeneration", FSMT_SMALL, **change))
