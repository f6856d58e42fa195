"""Transformer blocks and whole language models against PyTorch, exactly (``matmul`` convention).

The references are PyTorch's own layers (``nn.TransformerEncoderLayer``/``DecoderLayer``) and
blocks written here from ``nn.Linear``, ``nn.LayerNorm``/``nn.RMSNorm`` and
``F.scaled_dot_product_attention`` as the Hugging Face GPT-2 / GPT-J / LLaMA / Mixtral code
arranges them. Parameters: ``sum(p.numel())`` (a tied head is one tensor, counted once). FLOP:
``FlopCounterMode`` on the ``meta`` device, which counts QKᵀ and AV over the full L×L even with
``is_causal=True``.
"""
from __future__ import annotations

import random

import pytest

from engine.method1.architecture import evaluate
from engine.llm.config import read_hf_config
from tests.method1 import evaluated, flat_block


def _count(torch, module, *inputs):
    from torch.utils.flop_counter import FlopCounterMode

    params = sum(p.numel() for p in module.parameters())  # before .to("meta"), which unties shared weights
    with FlopCounterMode(display=False) as counter:
        module.to("meta")(*inputs)
    return params, counter.get_total_flops()


def _block_result(d, length, block: dict):
    return evaluated([d], [flat_block({"type": "transformer_block", **block})], length)


def _reference_classes(torch):
    nn, F = torch.nn, torch.nn.functional

    class FeedForward(nn.Module):
        def __init__(self, d, f, gated, bias, act):
            super().__init__()
            self.up = nn.Linear(d, f, bias=bias)
            self.gate = nn.Linear(d, f, bias=bias) if gated else None
            self.down = nn.Linear(f, d, bias=bias)
            self.act = act

        def forward(self, x):
            if self.gate is not None:
                return self.down(self.act(self.gate(x)) * self.up(x))
            return self.down(self.act(self.up(x)))

    class Experts(nn.Module):
        """Mixtral's sparse MoE: a router and E experts; token i goes to experts i, i+1, … i+k−1 (mod E),
        a fixed dispatch, since the meta device has no values to route by (the count does not depend on it)."""

        def __init__(self, d, f, e, k, gated, bias, act):
            super().__init__()
            self.router = nn.Linear(d, e, bias=False)
            self.experts = nn.ModuleList(FeedForward(d, f, gated, bias, act) for _ in range(e))
            self.k = k

        def forward(self, x):
            length, e = x.shape[1], len(self.experts)
            self.router(x)
            out = torch.zeros_like(x)
            for j, expert in enumerate(self.experts):
                tokens = [i for i in range(length) if (j - i) % e < self.k]
                if tokens:
                    index = torch.tensor(tokens, device=x.device)
                    out = out.index_add(1, index, expert(x.index_select(1, index)))
            return out

    class Block(nn.Module):
        def __init__(self, d, h, h_kv, q, f, *, gated=False, norm="layernorm", qkv_bias=True, out_bias=True,
                     ff_bias=True, act="gelu", causal=True, parallel=False, shared_norm=False, post=False,
                     experts=1, active=1):
            super().__init__()
            norm_cls = nn.LayerNorm if norm == "layernorm" else nn.RMSNorm
            self.h, self.h_kv, self.q, self.causal = h, h_kv, q, causal
            self.parallel, self.post = parallel, post
            self.norm1 = norm_cls(d)
            self.norm2 = None if shared_norm else norm_cls(d)
            self.q_proj = nn.Linear(d, h * q, bias=qkv_bias)
            self.k_proj = nn.Linear(d, h_kv * q, bias=qkv_bias)
            self.v_proj = nn.Linear(d, h_kv * q, bias=qkv_bias)
            self.o_proj = nn.Linear(h * q, d, bias=out_bias)
            activation = {"gelu": F.gelu, "silu": F.silu, "relu": F.relu}[act]
            self.ff = (Experts(d, f, experts, active, gated, ff_bias, activation) if experts > 1
                       else FeedForward(d, f, gated, ff_bias, activation))

        def attention(self, x):
            b, length, _ = x.shape
            q = self.q_proj(x).view(b, length, self.h, self.q).transpose(1, 2)
            k = self.k_proj(x).view(b, length, self.h_kv, self.q).transpose(1, 2)
            v = self.v_proj(x).view(b, length, self.h_kv, self.q).transpose(1, 2)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, enable_gqa=self.h != self.h_kv)
            return self.o_proj(a.transpose(1, 2).reshape(b, length, self.h * self.q))

        def forward(self, x):
            if self.parallel:
                n = self.norm1(x)
                return x + self.attention(n) + self.ff(n if self.norm2 is None else self.norm2(x))
            if self.post:
                x = self.norm1(x + self.attention(x))
                return self.norm2(x + self.ff(x))
            x = x + self.attention(self.norm1(x))
            return x + self.ff(self.norm2(x))

    class LanguageModel(nn.Module):
        def __init__(self, vocab, d, blocks, positions=None, tied=True, final_norm=nn.LayerNorm, head_bias=False):
            super().__init__()
            self.embed = nn.Embedding(vocab, d)
            self.positions = nn.Embedding(positions, d) if positions else None
            self.blocks = nn.ModuleList(blocks)
            self.norm = final_norm(d) if final_norm else None
            self.head = nn.Linear(d, vocab, bias=head_bias)
            if tied:
                self.head.weight = self.embed.weight

        def forward(self, ids):
            x = self.embed(ids)
            if self.positions is not None:
                x = x + self.positions(torch.arange(ids.shape[1], device=ids.device))
            for block in self.blocks:
                x = block(x)
            return self.head(self.norm(x) if self.norm is not None else x)

    return Block, LanguageModel


@pytest.fixture(scope="module")
def ref(torch):
    return _reference_classes(torch)


@pytest.mark.external_check("transformer_block")
@pytest.mark.parametrize("norm_first", [True, False])
def test_pytorch_encoder_layer(torch, norm_first):
    """nn.TransformerEncoderLayer: a non-causal (encoder) block with biases, pre- or post-norm."""
    d, h, f, length = 64, 4, 256, 10
    module = torch.nn.TransformerEncoderLayer(d, h, f, activation="gelu", batch_first=True, norm_first=norm_first)
    params, flop = _count(torch, module, torch.empty(1, length, d, device="meta"))
    block = {"heads": h, "ff_size": f, "causal": False, "norm_position": "pre" if norm_first else "post"}
    result = _block_result(d, length, block)
    assert (result.params, result.forward_flop) == (params, flop)


def test_pytorch_decoder_layer_with_cross_attention(torch):
    """nn.TransformerDecoderLayer: causal self-attention, cross-attention over M memory positions, feed-forward."""
    d, h, f, length, memory = 32, 4, 64, 7, 11
    module = torch.nn.TransformerDecoderLayer(d, h, f, batch_first=True)
    x, mem = torch.empty(1, length, d, device="meta"), torch.empty(1, memory, d, device="meta")
    params, flop = _count(torch, module, x, mem)
    result = _block_result(d, length, {"heads": h, "ff_size": f, "cross_attention_length": memory,
                                       "norm_position": "post", "activation": "relu"})
    assert (result.params, result.forward_flop) == (params, flop)
    parts = [r.part for r in result.rows]
    assert parts.index("cross-attention scores QKᵀ") > parts.index("attention values AV")


@pytest.mark.parametrize("h,h_kv", [(8, 8), (8, 2), (8, 1)])  # multi-head, grouped-query, multi-query
def test_llama_block_gqa_swiglu_rmsnorm(torch, ref, h, h_kv):
    Block, _ = ref
    d, q, f, length = 64, 8, 172, 12
    module = Block(d, h, h_kv, q, f, gated=True, norm="rmsnorm", qkv_bias=False, out_bias=False, ff_bias=False,
                   act="silu")
    params, flop = _count(torch, module, torch.empty(1, length, d, device="meta"))
    block = {"heads": h, "kv_heads": h_kv, "head_size": q, "ff_size": f, "gated": True, "norm": "rmsnorm",
             "qkv_bias": False, "out_bias": False, "ff_bias": False, "activation": "silu"}
    result = _block_result(d, length, block)
    assert (result.params, result.forward_flop) == (params, flop)
    # by hand: q, k/v, QKᵀ + AV over the full L×L, output, gate/up/down
    assert flop == 2 * length * d * (h + 2 * h_kv) * q + 4 * h * length ** 2 * q + 2 * length * h * q * d \
        + 3 * 2 * length * d * f


def test_qwen2_biases_and_head_size_not_d_over_h(torch, ref):
    """q/k/v with bias, output without; head size 24 ≠ d/H."""
    Block, _ = ref
    d, h, h_kv, q, f, length = 48, 4, 2, 24, 96, 9
    module = Block(d, h, h_kv, q, f, gated=True, norm="rmsnorm", qkv_bias=True, out_bias=False, ff_bias=False,
                   act="silu")
    params, flop = _count(torch, module, torch.empty(1, length, d, device="meta"))
    result = _block_result(d, length, {"heads": h, "kv_heads": h_kv, "head_size": q, "ff_size": f, "gated": True,
                                       "norm": "rmsnorm", "qkv_bias": True, "out_bias": False, "ff_bias": False,
                                       "activation": "silu"})
    assert (result.params, result.forward_flop) == (params, flop)


@pytest.mark.parametrize("shared_norm", [True, False])  # GPT-J (one norm), GPT-NeoX (two)
def test_parallel_blocks(torch, ref, shared_norm):
    Block, _ = ref
    d, h, length = 64, 4, 6
    module = Block(d, h, h, d // h, 4 * d, parallel=True, shared_norm=shared_norm, qkv_bias=not shared_norm,
                   out_bias=not shared_norm)
    params, flop = _count(torch, module, torch.empty(1, length, d, device="meta"))
    result = _block_result(d, length, {"heads": h, "parallel": True, "shared_norm": shared_norm,
                                       "qkv_bias": not shared_norm, "out_bias": not shared_norm})
    assert (result.params, result.forward_flop) == (params, flop)


@pytest.mark.parametrize("e,k", [(4, 1), (8, 2), (3, 3)])
def test_mixture_of_experts_block(torch, ref, e, k):
    Block, _ = ref
    d, h, h_kv, f, length = 32, 4, 2, 56, 10
    module = Block(d, h, h_kv, d // h, f, gated=True, norm="rmsnorm", qkv_bias=False, out_bias=False,
                   ff_bias=False, act="silu", experts=e, active=k)
    params, flop = _count(torch, module, torch.empty(1, length, d, device="meta"))
    result = _block_result(d, length, {"heads": h, "kv_heads": h_kv, "ff_size": f, "gated": True,
                                       "norm": "rmsnorm", "qkv_bias": False, "out_bias": False, "ff_bias": False,
                                       "activation": "silu", "experts": e, "active_experts": k})
    assert (result.params, result.forward_flop) == (params, flop)
    # active: everything but the E − k experts a token skips (3·d·F weights each)
    assert result.active_params == params - (e - k) * 3 * d * f


def test_random_blocks(torch, ref):
    Block, _ = ref
    rng = random.Random(6)
    for _ in range(25):
        h_kv = rng.randint(1, 4)
        h = h_kv * rng.randint(1, 3)
        q, d, f, length = rng.randint(1, 12), rng.randint(2, 40), rng.randint(1, 80), rng.randint(1, 20)
        opts = {"gated": rng.random() < 0.5, "norm": rng.choice(["layernorm", "rmsnorm"]),
                "qkv_bias": rng.random() < 0.5, "out_bias": rng.random() < 0.5, "ff_bias": rng.random() < 0.5,
                "act": rng.choice(["gelu", "silu", "relu"]), "causal": rng.random() < 0.5,
                "post": rng.random() < 0.3}
        module = Block(d, h, h_kv, q, f, **opts)
        params, flop = _count(torch, module, torch.empty(1, length, d, device="meta"))
        block = {k: v for k, v in opts.items() if k not in ("act", "post")}
        block |= {"heads": h, "kv_heads": h_kv, "head_size": q, "ff_size": f, "activation": opts["act"],
                  "norm_position": "post" if opts["post"] else "pre"}
        result = _block_result(d, length, block)
        assert (result.params, result.forward_flop) == (params, flop), block


def _assert_counts_equal(torch, config, model, length):
    """The config's layers (``evaluate``) against the PyTorch model on ``length`` tokens: params and FLOP."""
    params, flop = _count(torch, model, torch.zeros(1, length, dtype=torch.long, device="meta"))
    result = evaluate(config.architecture(length), "matmul")
    assert (result.params, result.forward_flop) == (params, flop)


def test_gpt2_style_model_from_its_config(torch, ref):
    """Token + learned position embeddings, 3 blocks, final LayerNorm, tied head: config → layers → FLOP."""
    Block, LanguageModel = ref
    vocab, d, h, layers, positions, length = 101, 48, 4, 3, 32, 20
    config = read_hf_config({"model_type": "gpt2", "n_layer": layers, "n_embd": d, "n_head": h,
                             "n_positions": positions, "vocab_size": vocab, "n_inner": None})
    model = LanguageModel(vocab, d, [Block(d, h, h, d // h, 4 * d) for _ in range(layers)], positions=positions)
    _assert_counts_equal(torch, config, model, length)


def test_llama_style_model_untied(torch, ref):
    Block, LanguageModel = ref
    vocab, d, h, h_kv, f, layers, length = 97, 64, 8, 2, 176, 2, 16
    config = read_hf_config({"model_type": "llama", "num_hidden_layers": layers, "hidden_size": d,
                             "num_attention_heads": h, "num_key_value_heads": h_kv, "intermediate_size": f,
                             "vocab_size": vocab, "max_position_embeddings": 64, "tie_word_embeddings": False})
    blocks = [Block(d, h, h_kv, d // h, f, gated=True, norm="rmsnorm", qkv_bias=False, out_bias=False,
                    ff_bias=False, act="silu") for _ in range(layers)]
    model = LanguageModel(vocab, d, blocks, tied=False, final_norm=torch.nn.RMSNorm)
    _assert_counts_equal(torch, config, model, length)


def test_mixtral_style_model(torch, ref):
    Block, LanguageModel = ref
    vocab, d, h, h_kv, f, e, k, layers, length = 50, 32, 4, 1, 48, 4, 2, 2, 8
    config = read_hf_config({"model_type": "mixtral", "num_hidden_layers": layers, "hidden_size": d,
                             "num_attention_heads": h, "num_key_value_heads": h_kv, "intermediate_size": f,
                             "vocab_size": vocab, "max_position_embeddings": 64, "num_local_experts": e,
                             "num_experts_per_tok": k})
    blocks = [Block(d, h, h_kv, d // h, f, gated=True, norm="rmsnorm", qkv_bias=False, out_bias=False,
                    ff_bias=False, act="silu", experts=e, active=k) for _ in range(layers)]
    model = LanguageModel(vocab, d, blocks, tied=False, final_norm=torch.nn.RMSNorm)
    _assert_counts_equal(torch, config, model, length)


def test_gptj_style_model_head_bias(torch, ref):
    Block, LanguageModel = ref
    vocab, d, h, layers, length = 64, 32, 4, 2, 10
    config = read_hf_config({"model_type": "gptj", "n_layer": layers, "n_embd": d, "n_head": h,
                             "n_positions": 64, "vocab_size": vocab, "rotary_dim": 4})
    blocks = [Block(d, h, h, d // h, 4 * d, parallel=True, shared_norm=True, qkv_bias=False, out_bias=False)
              for _ in range(layers)]
    model = LanguageModel(vocab, d, blocks, tied=False, head_bias=True)
    _assert_counts_equal(torch, config, model, length)


def test_causal_mask_does_not_change_the_count_but_half_does(torch):
    import torch.nn.functional as F
    from torch.utils.flop_counter import FlopCounterMode

    h, length, q = 4, 16, 8
    x = torch.empty(1, h, length, q, device="meta")
    counts = []
    for causal in (False, True):
        with FlopCounterMode(display=False) as counter:
            F.scaled_dot_product_attention(x, x, x, is_causal=causal)
        counts.append(counter.get_total_flops())
    assert counts[0] == counts[1] == 4 * h * length ** 2 * q
    full = {r.part: r.forward_flop for r in _block_result(32, length, {"heads": h, "head_size": q}).rows}
    half = {r.part: r.forward_flop
            for r in _block_result(32, length, {"heads": h, "head_size": q, "causal_count": "half"}).rows}
    assert full["attention scores QKᵀ"] + full["attention values AV"] == counts[1]
    # the causal triangle: L(L+1)/2 query–key pairs per head
    assert half["attention scores QKᵀ"] == 2 * h * q * length * (length + 1) // 2
    assert half["attention q projection"] == full["attention q projection"]
