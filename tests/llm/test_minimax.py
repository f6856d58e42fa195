"""MiniMax-Text-01 (``minimax``): lightning attention between softmax-attention layers, counted from formulas written
here (parameters, matmul and full-convention FLOP), refusals naming the key, and fine-tuning the last blocks
against transformers (the variants' forward and full training: tests/llm/test_families_hf.py, test_backward_hf.py)."""
from __future__ import annotations

import pytest

from engine.errors import InputError
from engine.llm.config import read_hf_config
from engine.llm.estimate import TransformerRun, estimate_transformer
from engine.method1.architecture import Architecture, evaluate
from engine.method1.transformer import TransformerBlock
from tests.method1 import flat_block

MINIMAX = {"model_type": "minimax", "architectures": ["MiniMaxForCausalLM"], "hidden_size": 64, "intermediate_size": 40,
           "num_hidden_layers": 4, "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 128,
           "num_local_experts": 4, "num_experts_per_tok": 2, "block_size": 4, "max_position_embeddings": 64,
           "pad_token_id": 0, "bos_token_id": 0, "eos_token_id": 0}
D, H, KV, Q, F, E, K, V = 64, 4, 2, 16, 40, 4, 2, 128


def _blocks(config: dict, length: int) -> list[TransformerBlock]:
    return [layer for layer in read_hf_config(config).architecture(length).layers if isinstance(layer, TransformerBlock)]


def test_lightning_and_softmax_layers_by_hand():
    """transformers' default layer_types: softmax attention on even layers, lightning on odd ones. T = 10 positions
    in lightning blocks of 4, 4 and 2. Lightning: q/k/v d→3·H·Q, output gate d→H·Q, RMSNorm(H·Q), out H·Q→d; per
    head the intra-block QKᵀ and AV (Σb²·Q each), the read-out of the passed state and the block's state (T·Q²
    each). Softmax: GQA q d→H·Q, k and v d→H_kv·Q, QKᵀ and AV (T²·Q per head), o. Both: router d→E, E experts
    of gate, up, down (k per token), two RMSNorms."""
    t = 10
    assert [b.mixer.kind for b in _blocks(MINIMAX, t)] == ["attention", "lightning"] * 2
    lightning = 3 * D * H * Q + D * H * Q + H * Q * D + H * Q
    softmax = D * H * Q + 2 * D * KV * Q + H * Q * D
    moe = D * E + E * 3 * D * F + 2 * D
    squares = 4 * 4 + 4 * 4 + 2 * 2
    lightning_macs = t * D * 3 * H * Q + 2 * H * squares * Q + 2 * H * t * Q * Q + t * D * H * Q + t * H * Q * D
    softmax_macs = t * D * H * Q + 2 * t * D * KV * Q + 2 * H * t * t * Q + t * H * Q * D
    moe_macs = t * D * E + K * t * 3 * D * F
    result = evaluate(read_hf_config(MINIMAX).architecture(t), "matmul")
    assert result.params == 2 * V * D + D + 2 * (lightning + moe) + 2 * (softmax + moe)
    assert result.forward_flop == 2 * (2 * lightning_macs + 2 * softmax_macs + 4 * moe_macs + t * D * V)


@pytest.mark.parametrize("length,block", [(10, 4), (3, 4), (9, 1)])
def test_lightning_full_convention_extras(length, block):
    """``full`` adds, per lightning layer over T positions in n blocks b_i (H heads of Q, no biases): SiLU of q/k/v
    5·3·T·H·Q, the decay mask H·Σb², K·decay T·H·Q, the state's decay and update 2·H·Q² and exp(−slope·b) 2·H per
    block, Q·decay and the sum of the two read-outs 2·T·H·Q, RMSNorm(H·Q) 4·T·H·Q, the gate's sigmoid and product
    5·T·H·Q; a softmax layer instead: softmax and 1/√Q 6·H·T². Against the same model all softmax: layers × the
    difference (norms, experts and residuals alike)."""
    layers = 4

    def extras(kind: str) -> int:
        config = MINIMAX | {"block_size": block, "layer_types": [kind] * layers}
        arch = read_hf_config(config).architecture(length)
        return evaluate(arch, "full").forward_flop - evaluate(arch, "matmul").forward_flop

    sizes = [min(block, length - i) for i in range(0, length, block)]
    width = H * Q
    lightning = (5 * 3 * length * width + H * sum(b * b for b in sizes) + length * width
                 + len(sizes) * (2 * H * Q * Q + 2 * H) + 2 * length * width + 4 * length * width + 5 * length * width)
    softmax = 6 * H * length * length
    assert extras("linear_attention") - extras("full_attention") == layers * (lightning - softmax)


def test_scaled_residuals_cost_two_products_per_element_in_full():
    """α·residual + β·output after attention and after the experts: 2·T·d FLOP more per sub-layer than a plain add
    (``full``); nothing in ``matmul``."""
    t = 8
    arch = read_hf_config(MINIMAX).architecture(t)
    plain = Architecture(input=arch.input, layers=[layer.model_copy(update={"residual_scales": False})
                                                   if isinstance(layer, TransformerBlock) else layer
                                                   for layer in arch.layers])
    assert evaluate(arch, "full").forward_flop - evaluate(plain, "full").forward_flop == 4 * 2 * 2 * t * D
    assert evaluate(arch, "matmul").forward_flop == evaluate(plain, "matmul").forward_flop


@pytest.mark.parametrize("change,key", [
    ({"layer_types": ["linear_attention"] * 3}, "config.layer_types: expected 4 entries"),
    ({"layer_types": ["linear_attention", "sliding_attention"] * 2}, "config.layer_types: expected 4 entries"),
    ({"attn_type_list": [0, 0, 0, 1]}, "config.attn_type_list: differs from the layer kinds transformers builds "
                                       "(layer_types, absent: its default alternation)"),
    ({"attn_type_list": [1, 0, 1, 1], "layer_types": ["full_attention", "linear_attention"] * 2},
     "config.attn_type_list: differs"),
    ({"shared_intermediate_size": 512}, "config.shared_intermediate_size: 512 is not supported"),
    ({"block_size": 0}, "config.block_size: "),
])
def test_minimax_refusals_name_the_key(change, key):
    with pytest.raises(InputError) as info:
        read_hf_config(MINIMAX | change)
    assert str(info.value).startswith(key), str(info.value)


def test_remote_code_keys_that_agree_are_accepted():
    """The published file's remote-code keys: attn_type_list equal to the kinds built, the residual scales under
    their old names, postnorm (transformers' only layout), no shared expert."""
    config = MINIMAX | {"attn_type_list": [1, 0, 1, 0], "postnorm": True, "layernorm_mlp_alpha": 3.56,
                        "shared_intermediate_size": 0, "shared_moe_mode": "sigmoid"}
    assert read_hf_config(config).ignored_keys == ()


def test_lora_is_refused_by_name():
    with pytest.raises(InputError, match="^fine-tune: LoRA on a model with lightning attention"):
        estimate_transformer(read_hf_config(MINIMAX), TransformerRun(tokens=1e6, seq_len=12, lora_rank=4))


@pytest.mark.parametrize("n", [1, 3])
def test_last_blocks_fine_tune_matches_transformers(torch, n):
    """The last n layers, the final norm and the head train: backward FLOP and trainable parameters equal
    transformers' (FlopCounterMode over loss.backward() on the meta device). T = 10 in lightning blocks of 4."""
    pytest.importorskip("transformers")
    from tests.llm.hf_reference import build
    from tests.method1.backward_reference import forward_backward, set_trainable

    seq = 10
    model = build(MINIMAX)
    set_trainable(model, False)
    for layer in list(model.model.layers)[-n:]:
        set_trainable(layer, True)
    set_trainable(model.model.norm, True)
    set_trainable(model.lm_head, True)
    ids = torch.zeros(1, seq, dtype=torch.long, device="meta")
    _, backward = forward_backward(torch, model, ids, kwargs={"use_cache": False})
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    estimate = estimate_transformer(read_hf_config(MINIMAX), TransformerRun(tokens=1e6, seq_len=seq,
                                                                             trainable_last=n))
    assert (estimate.architecture.backward_flop, estimate.architecture.trainable_params) == (backward, trainable)


def test_lightning_blocks_of_one_over_a_billion_positions_in_closed_form():
    """Blocks of B = 1 over L = 10⁹ positions: Σb² = L, so the intra-block QKᵀ is H·L·Q MACs. The blocks were once
    listed one by one (a 160-character link held a core for minutes and 15 GB); now ⌊L/B⌋·B² + r²."""
    from engine.share_link import decode, encode
    from engine.scenario import Scenario
    length, heads, d = 10**9, 1, 64
    scenario = Scenario.model_validate({"input": {"shape": [d], "sequence_length": length}, "layers": [
        flat_block({"type": "transformer_block", "heads": heads, "mixer": "lightning", "lightning_block_size": 1})]})
    rows = decode(encode(scenario)).method1().architecture.rows
    scores = next(r for r in rows if r.part == "lightning intra-block scores QKᵀ")
    assert scores.macs == heads * length * (d // heads)
