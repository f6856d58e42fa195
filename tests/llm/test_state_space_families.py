"""The state-space readers' layer patterns: each layer is the kind the config puts there (whole models against
transformers are in test_families_hf.py and test_backward_hf.py)."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.llm.config import read_hf_config, validate_transformer_config
from engine.method1.architecture import evaluate
from engine.method1.transformer import TransformerBlock


def _mixer(block: TransformerBlock) -> str:
    """The block's mixer by name ("attention" for latent attention too, as the readers write it)."""
    return "attention" if block.mixer.kind == "latent" else block.mixer.kind


def _mixers(config: dict) -> list[str]:
    model = read_hf_config(config)
    return [_mixer(layer) for layer in model.architecture(16).layers if isinstance(layer, TransformerBlock)]


BAMBA = {"model_type": "bamba", "architectures": ["BambaForCausalLM"], "hidden_size": 64, "intermediate_size": 96,
         "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
         "mamba_n_heads": 8, "mamba_d_head": "auto", "mamba_n_groups": 2, "mamba_d_state": 8, "mamba_d_conv": 4,
         "mamba_chunk_size": 8}


@pytest.mark.parametrize("indices,expected", [
    ([1, 4], ["mamba2", "attention", "mamba2", "mamba2", "attention", "mamba2"]),
    ([], ["mamba2"] * 6),
    ([0, 1, 2, 3, 4, 5], ["attention"] * 6),
    ([5, 9], ["mamba2"] * 5 + ["attention"]),  # transformers tests i in the list for i < 6: 9 selects nothing
])
def test_bamba_layers_where_attn_layer_indices_puts_them(indices, expected):
    assert _mixers(BAMBA | {"attn_layer_indices": indices}) == expected


def test_bamba_head_size_must_tile_the_inner_width():
    with pytest.raises(InputError, match="mamba_d_head"):
        read_hf_config(BAMBA | {"mamba_d_head": 12})


@pytest.mark.parametrize("key", ["mamba_d_state", "mamba_chunk_size"])
def test_a_state_or_chunk_of_one_is_refused_by_name(key):
    """With N = 1 or Q = 1 transformers runs the scan's products over a length-1 axis as element-wise work, which
    FlopCounterMode does not count (Mamba-2 d=16, chunk 1: 92,800 counted vs 88,192): refused, never a wrong
    number."""
    with pytest.raises(InputError, match=f"^config.{key}: 1 is not counted"):
        read_hf_config(BAMBA | {key: 1})


def test_placed_groups_are_checked():
    model = read_hf_config(BAMBA | {"attn_layer_indices": [1, 4]}).model_dump()
    with pytest.raises(InputError, match="at"):
        validate_transformer_config(model | {"first_layers": [model["first_layers"][0] | {"at": [1]}]})
    with pytest.raises(InputError, match="first_layers"):
        validate_transformer_config(model | {"first_layers": [model["first_layers"][0] | {"at": [1, 6]}]})


def test_nemotron_h_layers_follow_the_pattern_and_its_length():
    """hybrid_override_pattern sets each layer's kind and the layer count (num_hidden_layers is ignored)."""
    config = {"model_type": "nemotron_h", "architectures": ["NemotronHForCausalLM"], "hidden_size": 64,
              "num_hidden_layers": 9, "hybrid_override_pattern": "M-*E-M", "num_attention_heads": 4,
              "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 96, "vocab_size": 128,
              "mamba_num_heads": 8, "mamba_head_dim": 16, "n_groups": 2, "ssm_state_size": 8, "conv_kernel": 4,
              "chunk_size": 8, "n_routed_experts": 4, "num_experts_per_tok": 2, "moe_intermediate_size": 40,
              "moe_shared_expert_intermediate_size": 56}
    model = read_hf_config(config)
    blocks = [layer for layer in model.architecture(16).layers if isinstance(layer, TransformerBlock)]
    assert [_mixer(b) for b in blocks] == ["mamba2", "none", "attention", "none", "none", "mamba2"]
    assert [b.experts for b in blocks] == [1, 1, 1, 4, 1, 1]
    assert [b.feed_forward is not None for b in blocks] == [False, True, False, True, True, False]
    assert blocks[1].feed_forward.activation == "relu2"
    with pytest.raises(InputError, match="hybrid_override_pattern"):
        read_hf_config(config | {"hybrid_override_pattern": "M-X"})
    with pytest.raises(InputError, match="moe_latent_size"):
        read_hf_config(config | {"moe_latent_size": 32})


def test_granite_hybrid_layer_types():
    config = {"model_type": "granitemoehybrid", "architectures": ["GraniteMoeHybridForCausalLM"], "hidden_size": 64,
              "num_hidden_layers": 3, "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 48,
              "vocab_size": 128, "mamba_n_heads": 8, "mamba_d_head": "auto", "mamba_n_groups": 2, "mamba_d_state": 8,
              "mamba_d_conv": 4, "mamba_chunk_size": 8, "num_local_experts": 0, "shared_intermediate_size": 72,
              "layer_types": ["mamba", "attention", "linear_attention"]}
    assert _mixers(config) == ["mamba2", "attention", "mamba2"]
    with pytest.raises(InputError, match="layer_types"):
        read_hf_config(config | {"layer_types": ["mamba", "sliding_attention", "mamba"]})


ZAMBA2 = {"model_type": "zamba2", "architectures": ["Zamba2ForCausalLM"], "hidden_size": 32, "vocab_size": 64,
          "num_hidden_layers": 5, "layers_block_type": ["mamba", "hybrid", "mamba", "hybrid", "hybrid"],
          "num_attention_heads": 4, "n_mamba_heads": 4, "mamba_d_state": 8, "chunk_size": 8, "adapter_rank": 3,
          "intermediate_size": 40}


def test_zamba2_shared_blocks_are_used_in_turn_and_counted_once():
    """Use j of the shared blocks runs block j mod M; a block's weights count at its first use, each use's adapters
    (d→r→2F beside gate/up) and projection d→d at every use. One block more (M = 2 instead of 1, three uses) adds
    exactly one block's weights: RMSNorm(2d) + q, k, v 2d→2d + o 2d→d + RMSNorm(d) + gate/up d→2F + down F→d."""
    model = read_hf_config(ZAMBA2)
    blocks = [layer for layer in model.architecture(16).layers if isinstance(layer, TransformerBlock)]
    assert [b.shared_block is not None for b in blocks] == [False, True, False, True, True]
    assert [b.shared_block.block.shared_weights for b in blocks if b.shared_block] == [False, True, True]
    d, f = 32, 40
    block = 2 * d + 3 * (2 * d) ** 2 + 2 * d * d + d + d * 2 * f + f * d
    one = evaluate(model.architecture(16), "matmul")
    two = evaluate(read_hf_config(ZAMBA2 | {"num_mem_blocks": 2}).architecture(16), "matmul")
    assert two.params - one.params == block
    assert two.forward_flop == one.forward_flop
    adapters = evaluate(read_hf_config(ZAMBA2 | {"adapter_rank": 5}).architecture(16), "matmul")
    assert adapters.params - one.params == 3 * 2 * (d + 2 * f)  # three uses, rank 3 → 5: (5 − 3)·(d + 2F) each
    assert adapters.forward_flop - one.forward_flop == 2 * 16 * 3 * 2 * (d + 2 * f)


@pytest.mark.parametrize("change,key", [
    ({"layers_block_type": ["mamba", "hybrid", "full_attention", "hybrid", "hybrid"]}, "layers_block_type"),
    ({"num_hidden_layers": 4}, "num_hidden_layers"),
    ({"use_shared_attention_adapter": True, "num_key_value_heads": 2}, "use_shared_attention_adapter"),
    ({"n_mamba_heads": 5}, "n_mamba_heads"),
    ({"chunk_size": 1}, "chunk_size"),
])
def test_zamba2_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=f"^config.{key}: "):
        read_hf_config(ZAMBA2 | change)


def test_zamba2_untied_copies_hold_every_uses_adapters():
    """Untied embeddings: transformers ties no shared block, so each of the 3 uses of the one block builds a copy
    holding the adapters of all 3 uses (2 of them idle): 2 more blocks, 3 × 2 more adapter sets r·(d + 2F), the head
    V·d; the same FLOP (idle adapters do not run)."""
    d, f, r = 32, 40, 3
    block = 2 * d + 3 * (2 * d) ** 2 + 2 * d * d + d + d * 2 * f + f * d
    tied = evaluate(read_hf_config(ZAMBA2).architecture(16), "matmul")
    untied = evaluate(read_hf_config(ZAMBA2 | {"tie_word_embeddings": False}).architecture(16), "matmul")
    assert untied.params - tied.params == 2 * block + 3 * 2 * r * (d + 2 * f) + 64 * d
    assert untied.forward_flop == tied.forward_flop


ZAMBA = {"model_type": "zamba", "architectures": ["ZambaForCausalLM"], "hidden_size": 32, "vocab_size": 64,
         "num_hidden_layers": 6, "attn_layer_period": 2, "attn_layer_offset": 1, "num_attention_heads": 4,
         "num_key_value_heads": 4, "n_mamba_heads": 2, "mamba_d_state": 8, "intermediate_size": 40}


def test_zamba_shared_block_placed_by_period_and_untied_copies():
    """Default kinds: Mamba, Mamba, hybrid, then hybrid where i mod period = offset among the rest (i = 1, 3 here:
    layers 4 and 6). Untied embeddings: transformers ties no shared block, so each of the 3 uses holds one: 2 more
    blocks (RMSNorm(2d) + q, k, v 2d→2d + o 2d→d + RMSNorm(d) + gate, up d→F + down F→d) and the head V·d."""
    model = read_hf_config(ZAMBA)
    blocks = [layer for layer in model.architecture(16).layers if isinstance(layer, TransformerBlock)]
    assert [b.shared_block is not None for b in blocks] == [False, False, True, False, True, False]
    d, f = 32, 40
    block = 2 * d + 3 * (2 * d) ** 2 + 2 * d * d + d + 3 * d * f
    tied = evaluate(model.architecture(16), "matmul")
    untied = evaluate(read_hf_config(ZAMBA | {"tie_word_embeddings": False}).architecture(16), "matmul")
    assert untied.params - tied.params == block + 64 * d


@pytest.mark.parametrize("change,key", [
    ({"attn_layer_period": 6, "attn_layer_offset": 4}, "layers_block_type"),  # one use, tied: transformers fails
    ({"attention_hidden_size": 48}, "attention_hidden_size"),
    ({"num_key_value_heads": None}, "num_key_value_heads"),  # ZambaConfig's 16 key/value heads over 4 heads
    ({"n_mamba_heads": 3}, "n_mamba_heads"),
    ({"layers_block_type": ["mamba", "hybrid"]}, "num_hidden_layers"),
])
def test_zamba_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=f"^config.{key}: "):
        read_hf_config({k: v for k, v in (ZAMBA | change).items() if v is not None})


@pytest.mark.parametrize("tune", [{"lora_rank": 4}, {"trainable_last": 2}])
def test_zamba2_partial_fine_tune_is_refused_by_name(tune):
    """LoRA would adapt the shared block's weights (one adapter for every use); training the last blocks would train
    weights an earlier, frozen use shares: neither is modelled (as for ALBERT), one line."""
    from engine.llm.estimate import TransformerRun, estimate_transformer

    with pytest.raises(InputError, match="^fine-tune: fine-tuning part of a model whose layers share weights"):
        estimate_transformer(read_hf_config(ZAMBA2), TransformerRun(tokens=1e6, seq_len=16, **tune))


@pytest.mark.parametrize("attention_adapters", [False, True])
def test_zamba2_shared_block_full_convention_extras(attention_adapters):
    """``full`` adds, per use of the shared block over L positions (no biases): the [x, e] RMSNorm 4·L·2d, softmax and
    1/√Q scaling 6·H·L², the feed-forward RMSNorm 4·L·d, GELU and the gate product (5 + 1)·L·F, the gate/up adapter's
    add L·2F (with attention adapters, q, k and v's adds 3·L·2d), and x + t before the Mamba norm L·d. Against the
    same layers without the shared block (all Mamba-2): uses × that, beyond the matmul difference."""
    length, d, h, f = 16, 32, 4, 40
    config = ZAMBA2 | {"use_shared_attention_adapter": attention_adapters}
    plain = ZAMBA2 | {"layers_block_type": ["mamba"] * 5}

    def extras(data):
        arch = read_hf_config(data).architecture(length)
        return evaluate(arch, "full").forward_flop - evaluate(arch, "matmul").forward_flop

    per_use = 4 * length * 2 * d + 6 * h * length ** 2 + 4 * length * d + 6 * length * f + length * 2 * f \
        + length * d + (3 * length * 2 * d if attention_adapters else 0)
    assert extras(config) - extras(plain) == 3 * per_use


JAMBA = {"model_type": "jamba", "architectures": ["JambaForCausalLM"], "hidden_size": 32, "intermediate_size": 40,
         "num_hidden_layers": 6, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 64,
         "attn_layer_period": 3, "attn_layer_offset": 1, "expert_layer_period": 2, "expert_layer_offset": 0,
         "num_experts": 4, "num_experts_per_tok": 2, "mamba_d_state": 8, "mamba_d_conv": 4, "mamba_expand": 2}


def test_jamba_layers_by_period_and_offset():
    """Attention where i mod 3 = 1 (layers 1, 4), experts where i mod 2 = 0 (0, 2, 4); one expert: all dense."""
    model = read_hf_config(JAMBA)
    blocks = [layer for layer in model.architecture(16).layers if isinstance(layer, TransformerBlock)]
    assert [_mixer(b) for b in blocks] == ["mamba", "attention", "mamba", "mamba", "attention", "mamba"]
    assert [b.experts for b in blocks] == [4, 1, 4, 1, 4, 1]
    assert all(b.mixer.norms for b in blocks if _mixer(b) == "mamba")
    dense = read_hf_config(JAMBA | {"num_experts": 1})
    assert {layer.experts for layer in dense.architecture(16).layers if isinstance(layer, TransformerBlock)} == {1}


def test_jamba_delta_b_c_norms():
    """Each Mamba layer's RMS norms of Δ (R = ⌈d/16⌉ = 2) and of B and C (N = 8 each) have gains, R + 2N = 18
    parameters, and no products; ``full`` adds their 4 FLOP per element, 4·L·(R + 2N)."""
    length, mamba_layers = 16, 4
    on = read_hf_config(JAMBA).architecture(length)
    off_block = lambda b: b.model_copy(update={"mixer": b.mixer.model_copy(update={"norms": False})}) \
        if isinstance(b, TransformerBlock) and _mixer(b) == "mamba" else b
    off = on.model_copy(update={"layers": [off_block(layer) for layer in on.layers]})
    for convention in ("matmul", "full"):
        a, b = evaluate(on, convention), evaluate(off, convention)
        assert a.params - b.params == mamba_layers * 18
        extra = mamba_layers * 4 * length * 18 if convention == "full" else 0
        assert a.forward_flop - b.forward_flop == extra


@pytest.mark.parametrize("change,key", [
    ({"attn_layer_offset": 3}, "attn_layer_offset"),  # JambaConfig: offset < period
    ({"expert_layer_period": 0}, "expert_layer_period"),
    ({"num_key_value_heads": None}, "num_key_value_heads"),  # JambaConfig takes a whole number only
    ({"layers_block_type": ["mamba"] * 6}, "layers_block_type"),  # a property: transformers cannot load it
    ({"num_experts_per_tok": 5}, "num_experts_per_tok"),
])
def test_jamba_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=f"^config.{key}: "):
        read_hf_config(JAMBA | change)


FALCON_H1 = {"model_type": "falcon_h1", "architectures": ["FalconH1ForCausalLM"], "hidden_size": 32,
             "intermediate_size": 40, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 2,
             "vocab_size": 64, "mamba_d_ssm": 48, "mamba_n_heads": 6, "mamba_d_head": "auto", "mamba_n_groups": 2,
             "mamba_d_state": 8, "mamba_d_conv": 4, "mamba_chunk_size": 8}


@pytest.mark.parametrize("rms_norm,in_bias,out_bias", [(False, False, False), (True, True, False), (False, False, True)])
def test_falcon_h1_parameters_by_formula(rms_norm, in_bias, out_bias):
    """Per layer: two RMSNorms 2d; attention q d·H·Q, k and v d·H_kv·Q each, o H·Q·d (Q = d/H = 8); Mamba-2 beside it:
    in d·(2I + 2GN + H) (+ that bias with mamba_proj_bias), depthwise convolution over I + 2GN channels (K + 1 each),
    Δ bias, A and D (3H), the gated norm's γ (I, with mamba_rms_norm), out I·d (+ d with projectors_bias); the gated
    MLP 3·d·F; then the untied table and head 2·V·d and the final norm d."""
    d, f, h, h_kv, q, i, heads, g, n, k, v = 32, 40, 4, 2, 8, 48, 6, 2, 8, 4, 64
    proj = 2 * i + 2 * g * n + heads
    layer = 2 * d + d * h * q + 2 * d * h_kv * q + h * q * d + d * proj + (proj if in_bias else 0) \
        + (i + 2 * g * n) * (k + 1) + 3 * heads + (i if rms_norm else 0) + i * d + (d if out_bias else 0) + 3 * d * f
    config = FALCON_H1 | {"mamba_rms_norm": rms_norm, "mamba_proj_bias": in_bias, "projectors_bias": out_bias}
    assert evaluate(read_hf_config(config).architecture(16)).params == 2 * layer + 2 * v * d + d


def test_falcon_h1_multipliers_in_full_only():
    """The µP multipliers change no product (matmul: equal) and add, per layer and position, in ``full``: the mixer's
    input and output (2d), the µP vector over z, x, B, C, Δ (2I + 2GN + H), the attention's input and output (2d),
    the keys (H_kv·Q), the MLP's gate (F) and output (d)."""
    length, d, f, i, g, n, heads, h_kv, q = 16, 32, 40, 48, 2, 8, 6, 2, 8
    on = read_hf_config(FALCON_H1).architecture(length)
    off = on.model_copy(update={"layers": [layer.model_copy(update={"mup_multipliers": False})
                                           if isinstance(layer, TransformerBlock) else layer for layer in on.layers]})
    assert evaluate(on, "matmul").forward_flop == evaluate(off, "matmul").forward_flop
    per_position = 5 * d + 2 * i + 2 * g * n + heads + h_kv * q + f
    assert evaluate(on, "full").forward_flop - evaluate(off, "full").forward_flop == 2 * length * per_position


@pytest.mark.parametrize("change,key", [
    ({"mamba_use_mlp": False}, "mamba_use_mlp"),
    ({"attn_layer_indices": [0]}, "attn_layer_indices"),
    ({"layer_types": ["hybrid", "hybrid"]}, "layer_types"),  # attribute_map's name for layers_block_type
    ({"layers_block_type": ["hybrid", "hybrid"]}, "layers_block_type"),
    ({"mamba_d_head": 7}, "mamba_d_head"),
    ({"mamba_n_groups": 4}, "mamba_n_groups"),
    ({"mamba_chunk_size": 1}, "mamba_chunk_size"),
])
def test_falcon_h1_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=f"^config.{key}: "):
        read_hf_config(FALCON_H1 | change)


def test_falcon_h1_checkpoint_flags_that_match_transformers_are_accepted():
    """mamba_use_mlp true and attn_layer_indices null (the published files' values) describe what transformers builds
    anyway: the same count as without them."""
    with_flags = read_hf_config(FALCON_H1 | {"mamba_use_mlp": True, "attn_layer_indices": None}).architecture(16)
    assert evaluate(with_flags) == evaluate(read_hf_config(FALCON_H1).architecture(16))


QWEN3_NEXT = {"model_type": "qwen3_next", "architectures": ["Qwen3NextForCausalLM"], "hidden_size": 64,
              "vocab_size": 100, "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16,
              "intermediate_size": 96, "linear_conv_kernel_dim": 4, "linear_key_head_dim": 8,
              "linear_value_head_dim": 12, "linear_num_key_heads": 2, "linear_num_value_heads": 4, "num_experts": 4,
              "num_experts_per_tok": 2, "moe_intermediate_size": 40, "shared_expert_intermediate_size": 56,
              "num_hidden_layers": 6, "mlp_only_layers": [], "decoder_sparse_step": 1}


def _blocks(config: dict) -> list[tuple[str, bool]]:
    model = read_hf_config(config)
    return [(_mixer(layer), layer.experts > 1) for layer in model.architecture(16).layers
            if isinstance(layer, TransformerBlock)]


@pytest.mark.parametrize("change,expected", [
    ({}, [("gated_deltanet", True)] * 3 + [("attention", True)] + [("gated_deltanet", True)] * 2),
    ({"full_attention_interval": 2, "mlp_only_layers": [0, 3, 9], "decoder_sparse_step": 1},
     [("gated_deltanet", False), ("attention", True), ("gated_deltanet", True), ("attention", False),
      ("gated_deltanet", True), ("attention", True)]),
    ({"layer_types": ["full_attention"] + ["linear_attention"] * 5, "decoder_sparse_step": 3},
     [("attention", False), ("gated_deltanet", False), ("gated_deltanet", True)] + [("gated_deltanet", False)] * 2
     + [("gated_deltanet", True)]),
    ({"num_experts": 0}, [("gated_deltanet", False)] * 3 + [("attention", False)] + [("gated_deltanet", False)] * 2),
])
def test_qwen3_next_layers_where_the_config_puts_them(change, expected):
    """Mixer by ``layer_types`` (absent: attention where i + 1 is a multiple of ``full_attention_interval``, 4 by
    default); experts unless i is in ``mlp_only_layers`` (numbers past the last layer select nothing), ``num_experts``
    is 0 or (i + 1) % ``decoder_sparse_step`` ≠ 0."""
    assert _blocks(QWEN3_NEXT | change) == expected


def _matmul_and_full(config: dict, length: int) -> tuple[int, int]:
    arch = read_hf_config(config).architecture(length)
    return evaluate(arch, "matmul").forward_flop, evaluate(arch, "full").forward_flop


def test_qwen3_next_gated_deltanet_layer_from_the_formula():
    """One Gated DeltaNet layer with a dense MLP over L = 70 positions (two chunks of Q = 64, L_p = 128), H = 4 value
    heads of d_v = 12, G = 2 key heads of d_k = 8, K = 4, d = 64, F = 96: the difference between 2 such layers and 1.
    Matmul: projections d→2·G·d_k + 2·H·d_v, d→2·H, H·d_v→d; the depthwise convolution over 2·G·d_k + H·d_v channels
    and L + K − 1 outputs; the chunked rule 2·H·L_p·Q·d_k + H·L_p·Q·d_v + 3·H·L_p·d_k·d_v; the MLP 3·d·F.
    Full adds: the two RMS norms (4 per element), SiLU on the convolution (5), β = sigmoid (4) and g (5) per value head
    and position + 2·H once, the L2 norms of q and k on the H heads and q's scaling (7·d_k per head and position),
    per padded position and head 4·Q + Q·(d_v + d_k) + 2·d_v + 3·d_k + 5 (decays, masks, the triangular solves by
    substitution, β products), per chunk and head 1 + 2·d_k·d_v (the state's decay), the gated norm (4 + SiLU 5 + 1
    per element), the MLP's SiLU and gate product (6·F) and the two residual adds (2·d)."""
    length, d, f, h, g, dk, dv, k, q = 70, 64, 96, 4, 2, 8, 12, 4, 64
    padded, chunks = 128, 2
    config = QWEN3_NEXT | {"num_experts": 0, "num_hidden_layers": 2}
    two, one = _matmul_and_full(config, length), _matmul_and_full(config | {"num_hidden_layers": 1}, length)
    channels = 2 * g * dk + h * dv
    macs = length * (d * (2 * g * dk + 2 * h * dv) + d * 2 * h + h * dv * d + 3 * d * f) \
        + channels * k * (length + k - 1) + 2 * h * padded * q * dk + h * padded * q * dv + 3 * h * padded * dk * dv
    assert two[0] - one[0] == 2 * macs
    extras = 2 * 4 * length * d + 5 * length * channels + 9 * length * h + 2 * h + 7 * length * h * dk \
        + padded * h * (4 * q + q * (dv + dk) + 2 * dv + 3 * dk + 5) + chunks * h * (1 + 2 * dk * dv) \
        + 10 * length * h * dv + 6 * length * f + 2 * length * d
    assert (two[1] - two[0]) - (one[1] - one[0]) == extras


def test_qwen3_next_gated_attention_layer_from_the_formula():
    """A gated-attention layer (dense MLP) over L = 10: 2 such layers minus 1. Matmul: q and its gate d→2·H·Q, k and
    v d→H_kv·Q each, QKᵀ and AV 2·H·L²·Q, output H·Q→d, MLP 3·d·F. Full adds: RMS norms 4·L·d twice, the per-head q/k
    norms 4·L·(H + H_kv)·Q, softmax and scaling 6·H·L², sigmoid(gate)·output 5·L·H·Q, the MLP's 6·L·F, two residual
    adds."""
    length, d, f, heads, kv, size = 10, 64, 96, 4, 2, 16
    config = QWEN3_NEXT | {"num_experts": 0, "num_hidden_layers": 2, "layer_types": ["full_attention"] * 2}
    two = _matmul_and_full(config, length)
    one = _matmul_and_full(config | {"num_hidden_layers": 1, "layer_types": ["full_attention"]}, length)
    macs = length * (d * 2 * heads * size + 2 * d * kv * size + heads * size * d + 3 * d * f) \
        + 2 * heads * length * length * size
    assert two[0] - one[0] == 2 * macs
    extras = 8 * length * d + 4 * length * (heads + kv) * size + 6 * heads * length ** 2 \
        + 5 * length * heads * size + 6 * length * f + 2 * length * d
    assert (two[1] - two[0]) - (one[1] - one[0]) == extras


@pytest.mark.parametrize("change,key", [
    ({"linear_num_value_heads": 3}, "linear_num_value_heads"),
    ({"layer_types": ["linear_attention"] * 5}, "layer_types"),
    ({"layer_types": ["linear_attention"] * 5 + ["sliding_attention"]}, "layer_types"),
    ({"num_experts": 1}, "num_experts"),
    ({"decoder_sparse_step": 0}, "decoder_sparse_step"),
    ({"full_attention_interval": 0}, "full_attention_interval"),
    ({"mlp_only_layers": "all"}, "mlp_only_layers"),
    ({"head_dim": None}, "head_dim"),  # Qwen3NextConfig refuses null sizes
    ({"num_experts": None}, "num_experts"),
])
def test_qwen3_next_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(QWEN3_NEXT | change)


def test_qwen3_next_keys_of_absent_layer_kinds_are_inert():
    """With no attention layer the attention keys change nothing (and no Gated DeltaNet keys without such a layer);
    with no sparse layer the expert keys change nothing."""
    linear = QWEN3_NEXT | {"layer_types": ["linear_attention"] * 6, "num_experts": 0}
    assert _matmul_and_full(linear, 16) == _matmul_and_full(linear | {"num_attention_heads": 7, "head_dim": 3,
                                                                      "moe_intermediate_size": 5}, 16)
    full = QWEN3_NEXT | {"layer_types": ["full_attention"] * 6}
    assert _matmul_and_full(full, 16) == _matmul_and_full(full | {"linear_key_head_dim": 3, "linear_num_value_heads": 5}, 16)


QWEN3_5 = {k: v for k, v in QWEN3_NEXT.items() if k not in ("num_experts", "num_experts_per_tok", "moe_intermediate_size",
                                                           "shared_expert_intermediate_size", "mlp_only_layers",
                                                           "decoder_sparse_step")} | {
    "model_type": "qwen3_5_text", "architectures": ["Qwen3_5ForCausalLM"]}
QWEN3_5_MOE = {k: v for k, v in QWEN3_NEXT.items() if k not in ("intermediate_size", "mlp_only_layers",
                                                                "decoder_sparse_step")} | {
    "model_type": "qwen3_5_moe_text", "architectures": ["Qwen3_5MoeForCausalLM"]}


@pytest.mark.parametrize("config,change,expected", [
    (QWEN3_5, {}, [("gated_deltanet", False)] * 3 + [("attention", False)] + [("gated_deltanet", False)] * 2),
    (QWEN3_5, {"num_experts": 4, "decoder_sparse_step": 1, "full_attention_interval": 2},  # Qwen3-Next's: inert here
     [("gated_deltanet", False), ("attention", False)] * 3),
    (QWEN3_5_MOE, {}, [("gated_deltanet", True)] * 3 + [("attention", True)] + [("gated_deltanet", True)] * 2),
    (QWEN3_5_MOE, {"mlp_only_layers": [0, 1], "decoder_sparse_step": 2, "intermediate_size": 96,
                   "layer_types": ["full_attention"] + ["linear_attention"] * 5},
     [("attention", True)] + [("gated_deltanet", True)] * 5),
])
def test_qwen3_5_layers_where_the_config_puts_them(config, change, expected):
    """Mixers as Qwen3-Next's (``layer_types``, else ``full_attention_interval``, 4 by default); the dense model has a
    gated MLP in every layer, the MoE model experts in every layer: Qwen3-Next's ``mlp_only_layers`` and
    ``decoder_sparse_step`` are deleted by Qwen3.5's config classes and read by neither model."""
    assert _blocks(config | change) == expected


@pytest.mark.parametrize("config,change,key", [
    (QWEN3_5, {"linear_num_value_heads": 3}, "linear_num_value_heads"),
    (QWEN3_5, {"layer_types": ["linear_attention"] * 5 + ["sliding_attention"]}, "layer_types"),
    (QWEN3_5, {"full_attention_interval": 0}, "full_attention_interval"),
    (QWEN3_5, {"head_dim": None}, "head_dim"),  # Qwen3_5TextConfig refuses null sizes
    (QWEN3_5, {"intermediate_size": None}, "intermediate_size"),
    (QWEN3_5, {"attn_output_gate": False}, "attn_output_gate"),  # transformers builds the gate whatever it says
    (QWEN3_5_MOE, {"num_experts": 0}, "num_experts"),  # transformers' router then fails (k > E)
    (QWEN3_5_MOE, {"num_experts": 1}, "num_experts"),
    (QWEN3_5_MOE, {"num_experts": None}, "num_experts"),
    (QWEN3_5_MOE, {"layer_types": ["linear_attention"] * 5}, "layer_types"),
    (QWEN3_5_MOE, {"attn_output_gate": False}, "attn_output_gate"),
])
def test_qwen3_5_refusals_name_the_key(config, change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(config | change)


def test_qwen3_5_keys_the_models_do_not_read_are_inert():
    """The dense model reads no expert key, the MoE model no ``intermediate_size``; neither reads Qwen3-Next's
    ``mlp_only_layers``, ``decoder_sparse_step``, ``norm_topk_prob``, nor the MTP and multimodal-rotary keys of the
    published files; ``attn_output_gate`` true is what transformers builds."""
    inert = {"mlp_only_layers": [0, 2], "decoder_sparse_step": 3, "norm_topk_prob": False, "mtp_num_hidden_layers": 1,
             "mtp_use_dedicated_embeddings": False, "attn_output_gate": True,
             "rope_parameters": {"mrope_interleaved": True, "mrope_section": [11, 11, 10], "rope_type": "default",
                                 "rope_theta": 10000000, "partial_rotary_factor": 0.25}}
    dense_inert = inert | {"num_experts": 8, "num_experts_per_tok": 3, "moe_intermediate_size": 5,
                           "shared_expert_intermediate_size": 7}
    assert _matmul_and_full(QWEN3_5, 16) == _matmul_and_full(QWEN3_5 | dense_inert, 16)
    assert _matmul_and_full(QWEN3_5_MOE, 16) == _matmul_and_full(QWEN3_5_MOE | inert | {"intermediate_size": 5}, 16)


LFM2 = {"model_type": "lfm2", "architectures": ["Lfm2ForCausalLM"], "hidden_size": 64, "vocab_size": 100,
        "num_attention_heads": 4, "num_key_value_heads": 2, "intermediate_size": 96, "num_hidden_layers": 6,
        "layer_types": ["conv", "conv", "full_attention", "conv", "full_attention", "conv"], "conv_L_cache": 3,
        "block_multiple_of": 16, "block_ffn_dim_multiplier": 1.0, "block_auto_adjust_ff_dim": True}
LFM2_MOE = {k: v for k, v in LFM2.items() if not k.startswith("block_")} | {
    "model_type": "lfm2_moe", "architectures": ["Lfm2MoeForCausalLM"], "moe_intermediate_size": 40,
    "num_experts": 4, "num_experts_per_tok": 2, "num_dense_layers": 2}


@pytest.mark.parametrize("config,change,expected", [
    (LFM2, {}, [("short_conv", False)] * 2 + [("attention", False), ("short_conv", False), ("attention", False),
                                              ("short_conv", False)]),
    (LFM2, {"layer_types": None, "full_attn_idxs": [1, 5, 8]},  # 8 is past the last layer: it selects nothing
     [("short_conv", False), ("attention", False)] + [("short_conv", False)] * 3 + [("attention", False)]),
    (LFM2, {"layer_types": None}, [("attention", False)] * 6),  # neither key: every layer attention (Lfm2Config)
    (LFM2, {"layer_types": None, "full_attn_idxs": []}, [("short_conv", False)] * 6),
    (LFM2, {"full_attn_idxs": [0]}, [("short_conv", False)] * 2 + [("attention", False), ("short_conv", False),
                                                                   ("attention", False), ("short_conv", False)]),
    (LFM2_MOE, {}, [("short_conv", False)] * 2 + [("attention", True), ("short_conv", True), ("attention", True),
                                                  ("short_conv", True)]),
    (LFM2_MOE, {"num_dense_layers": 0}, [("short_conv", True)] * 2 + [("attention", True), ("short_conv", True),
                                                                      ("attention", True), ("short_conv", True)]),
    (LFM2_MOE, {"num_dense_layers": 9}, [("short_conv", False)] * 2 + [("attention", False), ("short_conv", False),
                                                                       ("attention", False), ("short_conv", False)]),
])
def test_lfm2_layers_where_the_config_puts_them(config, change, expected):
    """Mixer by ``layer_types`` (Lfm2Config without it: attention on the layers ``full_attn_idxs`` lists, every layer
    when that is absent too; with it, ``full_attn_idxs`` is not read); LFM2-MoE: a dense MLP on the first
    ``num_dense_layers`` layers, experts after."""
    assert _blocks({k: v for k, v in (config | change).items() if v is not None}) == expected


@pytest.mark.parametrize("bias", [False, True])
def test_lfm2_short_convolution_layer_from_the_formula(bias):
    """One short-convolution layer with its MLP over L = 10 positions, d = 64, K = 3, F = 64 (96 adjusted: ⌊2·96/3⌋
    = 64, a multiple of 16): 2 such layers minus 1. Parameters: in projection 3d² (+3d), the depthwise convolution
    d·K (+d), out projection d² (+d), the MLP 3·d·F, two RMS norms 2d. Matmul: in projection 3d per position, the
    convolution over L + K − 1 outputs (nn.Conv1d pads K − 1 on both sides, the last K − 1 are dropped), out
    projection d², the MLP 3·d·F. Full adds: the two gates B·x and C·(conv) (2·L·d), the bias adds (5·L·d with
    biases), the two RMS norms (4 per element), the MLP's SiLU and gate product (6·L·F), two residual adds."""
    length, d, k, f = 10, 64, 3, 64
    config = LFM2 | {"layer_types": ["conv"] * 2, "num_hidden_layers": 2, "conv_bias": bias}
    one_config = config | {"layer_types": ["conv"], "num_hidden_layers": 1}
    two, one = read_hf_config(config).architecture(length), read_hf_config(one_config).architecture(length)
    params = 4 * d * d + d * k + 3 * d * f + 2 * d + (5 * d if bias else 0)
    assert evaluate(two).params - evaluate(one).params == params
    (m2, f2), (m1, f1) = _matmul_and_full(config, length), _matmul_and_full(one_config, length)
    assert m2 - m1 == 2 * (length * (4 * d * d + 3 * d * f) + d * k * (length + k - 1))
    assert (f2 - m2) - (f1 - m1) == 2 * length * d + (5 * length * d if bias else 0) + 2 * 4 * length * d \
        + 6 * length * f + 2 * length * d


def test_lfm2_mlp_width_as_lfm2mlp_computes_it():
    """Lfm2MLP: F = ⌊2·F₀/3⌋, ⌊multiplier·F⌋, rounded up to a multiple of ``block_multiple_of``; off: F₀ as written;
    the legacy ``block_ff_dim`` wins over ``intermediate_size`` (Lfm2Config pops it). LFM2-1.2B: 12288 → 8192."""
    def ff(change):
        return read_hf_config(LFM2 | change).block.ff_size

    assert ff({}) == 64
    assert ff({"intermediate_size": 100, "block_ffn_dim_multiplier": 1.3, "block_multiple_of": 24}) == 96  # 66, 85
    assert ff({"block_auto_adjust_ff_dim": False, "intermediate_size": 100}) == 100
    assert ff({"block_ff_dim": 12288, "intermediate_size": 5, "block_multiple_of": 256}) == 8192
    assert ff({"block_ff_dim": 10752, "block_multiple_of": 256}) == 7168


@pytest.mark.parametrize("config,change,key", [
    (LFM2, {"layer_types": ["conv"] * 5 + ["sliding_attention"]}, "layer_types"),  # transformers has no mask for it
    (LFM2, {"layer_types": ["conv"] * 5}, "layer_types"),
    (LFM2, {"full_attn_idxs": "all", "layer_types": None}, "full_attn_idxs"),
    (LFM2, {"block_ffn_dim_multiplier": None}, "block_ffn_dim_multiplier"),  # Lfm2Config refuses null
    (LFM2, {"block_multiple_of": 0}, "block_multiple_of"),  # transformers divides by it
    (LFM2, {"intermediate_size": 1}, "intermediate_size"),  # ⌊2/3⌋ = 0: an MLP of no width
    (LFM2, {"block_ff_dim": None}, "block_ff_dim"),
    (LFM2, {"head_dim": None}, "head_dim"),  # Lfm2Attention reads it as written
    (LFM2, {"hidden_size": None}, "hidden_size"),
    (LFM2, {"num_key_value_heads": None}, "num_key_value_heads"),
    (LFM2, {"tie_embedding": "yes"}, "tie_embedding"),
    (LFM2, {"conv_bias": None}, "conv_bias"),
    (LFM2_MOE, {"layer_types": None}, "layer_types"),  # Lfm2MoeModel cannot be built without it
    (LFM2_MOE, {"num_experts": 1}, "num_experts"),
    (LFM2_MOE, {"num_experts": None}, "num_experts"),
    (LFM2_MOE, {"num_experts_per_tok": 5}, "num_experts_per_tok"),
])
def test_lfm2_refusals_name_the_key(config, change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(config | change)


def test_lfm2_keys_the_models_do_not_read_are_inert():
    """The published files' keys of the original training code (``block_dim``, ``conv_dim``, ``num_heads``,
    ``use_pos_enc``…) are read by no transformers code; ``full_attn_idxs`` beside ``layer_types``, attention keys
    without an attention layer, expert keys without an expert layer, LFM2-MoE's routing flags (the expert bias is a
    buffer) and the block_* keys in LFM2-MoE change nothing; ``tie_embedding`` is ``tie_word_embeddings``."""
    published = {"block_dim": 7, "block_mlp_init_scale": 1.0, "block_norm_eps": 1e-05, "block_out_init_scale": 1.0,
                 "block_use_swiglu": True, "block_use_xavier_init": True, "conv_dim": 9, "conv_dim_out": 9,
                 "conv_use_xavier_init": True, "num_heads": 3, "use_pos_enc": True, "full_attn_idxs": [0, 1]}
    assert _matmul_and_full(LFM2, 16) == _matmul_and_full(LFM2 | published, 16)
    convs = LFM2 | {"layer_types": ["conv"] * 6}
    assert _matmul_and_full(convs, 16) == _matmul_and_full(convs | {"num_attention_heads": 3, "head_dim": 5}, 16)
    moe_inert = {"use_expert_bias": False, "routed_scaling_factor": 2.0, "norm_topk_prob": False,
                 "block_ff_dim": 7, "block_auto_adjust_ff_dim": False, "block_multiple_of": 5}
    assert _matmul_and_full(LFM2_MOE, 16) == _matmul_and_full(LFM2_MOE | published | moe_inert, 16)
    dense = LFM2_MOE | {"num_dense_layers": 6}
    assert _matmul_and_full(dense, 16) == _matmul_and_full(dense | {"num_experts": 1, "moe_intermediate_size": 3}, 16)
    untied = read_hf_config(LFM2 | {"tie_word_embeddings": True, "tie_embedding": False})
    assert not untied.tied_embeddings and read_hf_config(LFM2).tied_embeddings


LFM3 = {"model_type": "lfm3", "architectures": ["Lfm3ForCausalLM"], "hidden_size": 64, "vocab_size": 100,
        "num_attention_heads": 4, "num_key_value_heads": 2, "head_dim": 16, "intermediate_size": 96,
        "num_hidden_layers": 6, "sliding_window": 5}


def _lfm3_layers(config: dict) -> list[tuple[str, int | None]]:
    model = read_hf_config(config)
    return [(_mixer(layer), layer.attention_window) for layer in model.architecture(16).layers
            if isinstance(layer, TransformerBlock)]


@pytest.mark.parametrize("change,expected", [
    ({}, [("short_conv", None)] * 2 + [("attention", None), ("short_conv", None), ("attention", 5),
                                       ("short_conv", None)]),  # Lfm3Config: full at i % 4 == 2, sliding at 4, 8…
    ({"layer_types": ["sliding_attention", "full_attention", "conv", "conv", "sliding_attention", "conv"]},
     [("attention", 5), ("attention", None), ("short_conv", None), ("short_conv", None), ("attention", 5),
      ("short_conv", None)]),
    ({"num_hidden_layers": 2}, [("short_conv", None)] * 2),  # the pattern's first attention layer is the third
    ({"layer_types": ["conv"] * 6, "sliding_window": None}, [("short_conv", None)] * 6),
])
def test_lfm3_layers_where_the_config_puts_them(change, expected):
    """Mixer and window by ``layer_types`` (absent: Lfm3Config's pattern); ``sliding_window`` W on the
    "sliding_attention" layers only."""
    assert _lfm3_layers(LFM3 | change) == expected


@pytest.mark.parametrize("gate,sandwich", [(True, True), (False, False), (True, False)])
def test_lfm3_attention_layer_from_the_formula(gate, sandwich):
    """One full-attention layer with its MLP over L = 10 positions, d = 64, H = 4, H_kv = 2, Q = 16, F = 96: 2 such
    layers minus 1. Parameters: q d·H·Q, k and v d·H_kv·Q each, o H·Q·d, the gate per head d·H, q and k norms 2·Q,
    the MLP 3·d·F, two RMS norms 2d, two more with sandwich norms. Matmul: the projections (and the gate) per
    position, QKᵀ and AV H·L²·Q each, the MLP 3·d·F. Full adds: softmax and scaling per score (6·H·L²), the per-head
    q/k norms (4 per element, H·Q + H_kv·Q), the gate (sigmoid 4 per head, a product per element: L·H·(4 + Q)), the
    RMS norms (4 per element), the MLP's SiLU and gate product (6·L·F), two residual adds."""
    length, d, h, kv, q, f = 10, 64, 4, 2, 16, 96
    config = LFM3 | {"layer_types": ["full_attention"] * 2, "num_hidden_layers": 2, "use_attention_gate": gate,
                     "use_sandwich_norm": sandwich}
    one_config = config | {"layer_types": ["full_attention"], "num_hidden_layers": 1}
    two, one = read_hf_config(config).architecture(length), read_hf_config(one_config).architecture(length)
    norms = 4 if sandwich else 2
    params = 2 * d * h * q + 2 * d * kv * q + (d * h if gate else 0) + 2 * q + 3 * d * f + norms * d
    assert evaluate(two).params - evaluate(one).params == params
    (m2, f2), (m1, f1) = _matmul_and_full(config, length), _matmul_and_full(one_config, length)
    projections = 2 * d * h * q + 2 * d * kv * q + (d * h if gate else 0) + 3 * d * f
    assert m2 - m1 == 2 * (length * projections + 2 * h * length * length * q)
    assert (f2 - m2) - (f1 - m1) == 6 * h * length * length + 4 * length * (h + kv) * q \
        + (length * h * (4 + q) if gate else 0) + norms * 4 * length * d + 6 * length * f + 2 * length * d


@pytest.mark.parametrize("change,key", [
    ({"layer_types": ["conv"] * 5 + ["linear_attention"]}, "layer_types"),  # transformers has no mask for it
    ({"layer_types": ["conv"] * 5}, "layer_types"),
    ({"sliding_window": None}, "sliding_window"),  # the default pattern has a sliding layer: no mask without W
    ({"head_dim": None}, "head_dim"),  # Lfm3Config refuses null
    ({"hidden_size": None}, "hidden_size"),
    ({"use_attention_gate": None}, "use_attention_gate"),
    ({"use_sandwich_norm": "yes"}, "use_sandwich_norm"),
    ({"conv_bias": None}, "conv_bias"),
    ({"attention_bias": None}, "attention_bias"),
    ({"num_key_value_heads": 3}, "num_key_value_heads"),  # does not divide the 4 heads
])
def test_lfm3_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(LFM3 | change)


def test_lfm3_keys_the_model_does_not_read_are_inert():
    """Lfm3Config drops LFM2's block_* keys and ``full_attn_idxs`` and does not pop ``tie_embedding``: no
    transformers code reads them (they are listed unused); rotary settings change no product; attention keys
    without an attention layer and the window without a sliding layer change nothing."""
    lfm2_keys = {"block_ff_dim": 7, "block_multiple_of": 5, "block_auto_adjust_ff_dim": True,
                 "block_ffn_dim_multiplier": 2.0, "full_attn_idxs": [0, 1], "tie_embedding": False,
                 "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 10.0}}}
    model = read_hf_config(LFM3 | lfm2_keys)
    assert model.tied_embeddings and {"block_ff_dim", "tie_embedding", "full_attn_idxs"} <= set(model.unused_keys)
    assert _matmul_and_full(LFM3, 16) == _matmul_and_full(LFM3 | lfm2_keys, 16)
    convs = LFM3 | {"layer_types": ["conv"] * 6}
    assert _matmul_and_full(convs, 16) == _matmul_and_full(
        convs | {"num_attention_heads": 3, "head_dim": 5, "attention_bias": True, "use_attention_gate": False,
                 "sliding_window": None}, 16)
    full = LFM3 | {"layer_types": ["full_attention"] * 6}
    assert _matmul_and_full(full, 16) == _matmul_and_full(full | {"sliding_window": 2}, 16)


KIMI_LINEAR = {"model_type": "kimi_linear", "architectures": ["KimiLinearForCausalLM"], "hidden_size": 48,
               "vocab_size": 97, "intermediate_size": 80, "moe_intermediate_size": 24, "num_attention_heads": 4,
               "num_key_value_heads": 4, "kv_lora_rank": 16, "q_lora_rank": None, "qk_rope_head_dim": 8,
               "qk_nope_head_dim": 12, "v_head_dim": 10, "num_experts": 6, "num_experts_per_token": 2,
               "num_shared_experts": 1, "num_hidden_layers": 6, "linear_num_heads": 3, "linear_head_dim": 8,
               "linear_conv_kernel_dim": 4}


def _kimi_blocks(config: dict) -> list[tuple[str, bool]]:
    return [("kda" if getattr(layer.mixer, "decay", None) == "channel" else "mla" if layer.kv_lora_rank
             else _mixer(layer),
             layer.experts > 1) for layer in read_hf_config(config).architecture(16).layers
            if isinstance(layer, TransformerBlock)]


@pytest.mark.parametrize("change,expected", [
    ({}, [("kda", False)] + [("kda", True)] * 3 + [("mla", True), ("kda", True)]),
    ({"first_k_dense_replace": 2, "linear_attn_config": {"full_attn_layers": [1, 6], "kda_layers": [2, 3, 4, 5]}},
     [("mla", False), ("kda", False), ("kda", True), ("kda", True), ("kda", True), ("mla", True)]),
    ({"layer_types": ["full_attention", "linear_attention"] * 3, "mlp_layer_types": ["sparse", "dense"] * 3,
      "linear_attn_config": {"full_attn_layers": [2], "kda_layers": [1, 3, 4, 5, 6]}},  # layer_types wins
     [("mla", True), ("kda", False)] * 3),
    ({"linear_attn_config": {"full_attn_layers": [3]}, "first_k_dense_replace": 0},  # one list alone: the rule
     [("kda", True)] * 4 + [("mla", True), ("kda", True)]),
])
def test_kimi_linear_layers_where_the_config_puts_them(change, expected):
    """Mixer by ``layer_types``; absent, by ``linear_attn_config``'s 1-based ``full_attn_layers`` and ``kda_layers``
    when it has both, else latent attention where i > 0 and i % 4 == 0; the feed-forward by ``mlp_layer_types``,
    absent: dense on the first ``first_k_dense_replace`` layers (1 by default)."""
    assert _kimi_blocks(KIMI_LINEAR | change) == expected


def test_kimi_delta_attention_layer_from_the_formula():
    """One Kimi Delta Attention layer with a dense MLP over L = 70 positions (two chunks of Q = 64, L_p = 128), H = 3
    heads of D = 8, K = 4, d = 48, F = 80: the difference between 2 such layers and 1. Matmul: q, k, v d→3·H·D, the
    forget and output gates d→D→H·D, β d→H, out H·D→d; the depthwise convolution over 3·H·D channels and L + K − 1
    outputs; of the rule only the UT products 2·H·L_p·Q·D, the state's reads and updates 3·H·L_p·D² and the chunk
    attention × new values H·L_p·Q·D; the MLP 3·d·F. Full adds: the two RMS norms (4 per element), SiLU on the
    convolution (5), β = sigmoid (4 per head) and g = −e^A·softplus(f + Δ bias) (5 per channel) per position + 2·H
    once, the L2 norms of q and k (6·H·D per position), per padded position 13·H·D + 8·H·Q·D + H·Q (scales, β
    products, cumulative sums, pairwise decays, the decayed scores summed over D, the decayed keys and queries,
    differences and sums), per chunk and head the substitution Σ_{i<Q} 2i² + Q² (identity) + D + 2·D² (the state's
    decay), the gated norm (4 + sigmoid 4 + 1 per element), the MLP's SiLU and gate product (6·F) and the two
    residual adds (2·d)."""
    length, d, f, h, dd, k, q = 70, 48, 80, 3, 8, 4, 64
    padded, chunks = 128, 2
    config = KIMI_LINEAR | {"num_hidden_layers": 2, "layer_types": ["linear_attention"] * 2,
                            "mlp_layer_types": ["dense"] * 2}
    one_layer = config | {"num_hidden_layers": 1, "layer_types": ["linear_attention"], "mlp_layer_types": ["dense"]}
    two, one = _matmul_and_full(config, length), _matmul_and_full(one_layer, length)
    i = h * dd
    macs = length * (d * 3 * i + 2 * (d * dd + dd * i) + d * h + i * d + 3 * d * f) + 3 * i * k * (length + k - 1) \
        + h * padded * (2 * q * dd + 3 * dd * dd + q * dd)
    assert two[0] - one[0] == 2 * macs
    substitution = sum(2 * j * j for j in range(1, q))
    extras = 2 * 4 * length * d + 5 * length * 3 * i + length * (4 * h + 5 * i) + 2 * h + 6 * length * i \
        + padded * (13 * i + 8 * h * q * dd + h * q) + chunks * h * (substitution + q * q + dd + 2 * dd * dd) \
        + 9 * length * i + 6 * length * f + 2 * length * d
    assert (two[1] - two[0]) - (one[1] - one[0]) == extras


@pytest.mark.parametrize("change,key", [
    ({"linear_attn_config": {"full_attn_layers": [5], "kda_layers": [1, 2, 3, 4]}}, "linear_attn_config"),
    ({"linear_attn_config": {"full_attn_layers": [5, 6], "kda_layers": [1, 2, 3, 4, 5]}}, "linear_attn_config"),
    ({"linear_attn_config": {"full_attn_layers": [0, 6], "kda_layers": [1, 2, 3, 4, 5]}}, "linear_attn_config"),
    ({"linear_attn_config": {"gate_lower_bound": -5.0}}, "linear_attn_config"),
    ({"linear_attn_config": [1]}, "linear_attn_config"),
    ({"layer_types": ["linear_attention"] * 5}, "layer_types"),
    ({"layer_types": ["sliding_attention"] * 6}, "layer_types"),
    ({"mlp_layer_types": ["moe"] * 6}, "mlp_layer_types"),
    ({"num_key_value_heads": 2}, "num_key_value_heads"),
    ({"num_expert_group": 4}, "num_expert_group"),
    ({"num_expert_group": 3, "topk_group": 4}, "topk_group"),
    ({"num_expert_group": 3, "topk_group": 1, "num_experts_per_token": 3}, "num_experts_per_token"),
    ({"n_group": 4}, "n_group"),  # named as the file writes it
    ({"linear_head_dim": None}, "linear_head_dim"),  # KimiLinearConfig refuses null sizes
])
def test_kimi_linear_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(KIMI_LINEAR | change)


def test_kimi_linear_lora_is_refused_by_name():
    """PEFT's q/k/v/o names match Kimi Delta Attention's own projections as well: not modelled."""
    from engine.llm.estimate import TransformerRun, estimate_transformer

    with pytest.raises(InputError, match="^fine-tune: LoRA on a model with Kimi Delta Attention"):
        estimate_transformer(read_hf_config(KIMI_LINEAR), TransformerRun(tokens=1e6, seq_len=16, lora_rank=4))


def test_kimi_linear_keys_of_absent_layer_kinds_are_inert():
    """With no latent-attention layer its keys change nothing, nor the Kimi Delta Attention keys without such a layer,
    nor the expert keys without a sparse layer; ``head_dim`` (overwritten by qk_rope_head_dim) and
    ``tie_word_embeddings`` (the class ties nothing) never."""
    linear = KIMI_LINEAR | {"layer_types": ["linear_attention"] * 6}
    assert _matmul_and_full(linear, 16) == _matmul_and_full(linear | {"num_attention_heads": 7, "kv_lora_rank": 3,
                                                                      "head_dim": 5, "tie_word_embeddings": True}, 16)
    full = KIMI_LINEAR | {"layer_types": ["full_attention"] * 6, "mlp_layer_types": ["dense"] * 6}
    assert _matmul_and_full(full, 16) == _matmul_and_full(full | {"linear_head_dim": 3, "linear_num_heads": 5,
                                                                  "num_experts": 9, "moe_intermediate_size": 5}, 16)


OLMO_HYBRID = {"model_type": "olmo_hybrid", "architectures": ["OlmoHybridForCausalLM"], "hidden_size": 64,
               "vocab_size": 100, "intermediate_size": 96, "num_attention_heads": 4, "num_hidden_layers": 6}


@pytest.mark.parametrize("change,expected", [
    ({}, ["gated_deltanet"] * 3 + ["attention"] + ["gated_deltanet"] * 2),
    ({"num_hidden_layers": 3}, ["gated_deltanet"] * 2 + ["attention"]),  # none at i % 4 == 3: the last layer
    ({"layer_types": ["full_attention", "linear_attention"] * 3}, ["attention", "gated_deltanet"] * 3),
])
def test_olmo_hybrid_layers_where_the_config_puts_them(change, expected):
    """Mixer by ``layer_types``; absent, attention where i % 4 == 3, or on the last layer when that places none."""
    assert _mixers(OLMO_HYBRID | change) == expected


def test_olmo_hybrid_linear_sizes_by_default():
    """Absent linear sizes: G = H = the attention heads, d_k = int(0.75·d/G) = 12, d_v = 2·d_k."""
    block = read_hf_config(OLMO_HYBRID).architecture(8).layers
    linear = next(b for b in block if isinstance(b, TransformerBlock) and _mixer(b) == "gated_deltanet")
    m = linear.mixer
    assert (m.groups, m.heads, m.state_size, m.inner_size) == (4, 4, 12, 96)


@pytest.mark.parametrize("change,key", [
    ({"layer_types": ["linear_attention"] * 6}, "layer_types"),
    ({"layer_types": ["full_attention"] * 6}, "layer_types"),
    ({"layer_types": ["linear_attention"] * 5}, "layer_types"),
    ({"linear_num_key_heads": 3, "linear_num_value_heads": 4}, "linear_num_value_heads"),
    ({"hidden_size": None}, "hidden_size"),
])
def test_olmo_hybrid_refusals_name_the_key(change, key):
    with pytest.raises(InputError, match=rf"^config\.{key}: "):
        read_hf_config(OLMO_HYBRID | change)
