"""The backward pass against PyTorch's own: ``FlopCounterMode`` over ``loss.backward()`` on the meta device
(``tests.method1.backward_reference``), exactly, in the ``matmul`` convention.

Each kind with a PyTorch twin, trainable or frozen, with and without a gradient-needing input before it
(a trainable norm, which has no multiply-accumulates of its own); random nested blocks with random
trainable masks and LoRA adapters (built here as ``nn.Linear`` pairs); random sequence chains.
"""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from tests.method1 import evaluated
from tests.method1.backward_reference import forward_backward, lora_linear, set_trainable
from tests.method1.test_blocks_torch import nets, to_torch

CASES = 12


def _pair(torch, norm, module, rng):
    """(engine flags, torch Sequential): a norm trained or not (the input's gradient), then the module."""
    upstream, trainable = rng.random() < 0.5, rng.random() < 0.6
    set_trainable(norm, upstream)
    set_trainable(module, trainable)
    return upstream, trainable, torch.nn.Sequential(norm, module)


def _check(torch, seq, x, shape, norm_layer, layer, upstream, trainable, steps=None):
    forward, backward = forward_backward(torch, seq.to("meta"), x)
    layers = [dict(norm_layer, trainable=upstream), dict(layer, trainable=trainable)]
    result = evaluated(shape, layers, steps)
    assert (result.forward_flop, result.backward_flop) == (forward, backward), (layer, upstream, trainable)
    return result


def test_dense(torch):
    rng = random.Random(1)
    for _ in range(CASES):
        n, m, bias = rng.randint(1, 200), rng.randint(1, 200), rng.random() < 0.7
        steps = rng.choice([None, rng.randint(1, 20)])
        up, tr, seq = _pair(torch, torch.nn.LayerNorm(n), torch.nn.Linear(n, m, bias=bias), rng)
        x = torch.empty((1, steps, n) if steps else (1, n), device="meta")
        _check(torch, seq, x, [n], {"type": "layer_norm"}, {"type": "dense", "units": m, "bias": bias}, up, tr, steps)


def test_dense_lora(torch):
    rng = random.Random(2)
    for _ in range(CASES):
        n, m, r = rng.randint(1, 200), rng.randint(1, 200), rng.randint(1, 16)
        steps = rng.choice([None, rng.randint(1, 20)])
        norm = torch.nn.LayerNorm(n)
        up = rng.random() < 0.5
        set_trainable(norm, up)
        seq = torch.nn.Sequential(norm, lora_linear(torch, torch.nn.Linear(n, m), r))
        x = torch.empty((1, steps, n) if steps else (1, n), device="meta")
        result = _check(torch, seq, x, [n], {"type": "layer_norm"}, {"type": "dense", "units": m,
                                                                    "lora": {"rank": r}}, up, True, steps)
        trainable = sum(p.numel() for p in seq.parameters() if p.requires_grad)
        assert result.trainable_params == trainable
        assert result.params == sum(p.numel() for p in seq.parameters())


@pytest.mark.parametrize("kind", ["conv1d", "conv2d", "conv3d", "conv_transpose2d"])
def test_conv(torch, kind):
    dims = 2 if kind == "conv_transpose2d" else int(kind[4])
    rng = random.Random(10 + dims + (kind == "conv_transpose2d"))
    cls = {"conv1d": torch.nn.Conv1d, "conv2d": torch.nn.Conv2d, "conv3d": torch.nn.Conv3d,
           "conv_transpose2d": torch.nn.ConvTranspose2d}[kind]
    norm_cls = {1: torch.nn.BatchNorm1d, 2: torch.nn.BatchNorm2d, 3: torch.nn.BatchNorm3d}[dims]
    for _ in range(CASES):
        g = rng.choice([1, 1, 2, 3])
        c, d = g * rng.randint(1, 5), g * rng.randint(1, 5)
        spatial = [rng.randint(3, 12 if dims < 3 else 6) for _ in range(dims)]
        k, s, bias = rng.randint(1, 3), rng.randint(1, 2), rng.random() < 0.6
        layer = {"type": kind, "filters": d, "kernel_size": k, "stride": s, "groups": g, "bias": bias}
        up, tr, seq = _pair(torch, norm_cls(c), cls(c, d, k, stride=s, groups=g, bias=bias), rng)
        x = torch.empty([1, c] + spatial, device="meta")
        _check(torch, seq, x, spatial + [c], {"type": "batch_norm"}, layer, up, tr)


@pytest.mark.parametrize("kind", ["rnn", "gru", "lstm"])
def test_recurrent_on_meta(torch, kind):
    """On the meta device the recurrent layers decompose into the per-step products FlopCounterMode sees."""
    rng = random.Random(("rnn", "gru", "lstm").index(kind))
    cls = {"rnn": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[kind]
    for _ in range(CASES):
        n, m, t = rng.randint(1, 32), rng.randint(1, 32), rng.randint(1, 8)
        bias, bi = rng.random() < 0.7, rng.random() < 0.5
        norm = torch.nn.LayerNorm(n)
        module = cls(n, m, bias=bias, batch_first=True, bidirectional=bi)
        up, tr, _ = _pair(torch, norm, module, rng)
        norm, module = norm.to("meta"), module.to("meta")

        def run(x):
            return module(norm(x))[0]

        forward, backward = forward_backward(torch, run, torch.empty(1, t, n, device="meta"))
        layer = {"type": kind, "units": m, "bias": bias, "bidirectional": bi, "return_sequences": True}
        result = evaluated([n], [{"type": "layer_norm", "trainable": up}, dict(layer, trainable=tr)], t)
        assert (result.forward_flop, result.backward_flop) == (forward, backward), (layer, up, tr)


def test_multi_head_attention(torch):
    rng = random.Random(3)
    for _ in range(CASES):
        h = rng.randint(1, 4)
        w, length, bias = h * rng.randint(1, 8), rng.randint(1, 16), rng.random() < 0.7
        norm, mha = torch.nn.LayerNorm(w), torch.nn.MultiheadAttention(w, h, bias=bias, batch_first=True)
        up, tr, _ = _pair(torch, norm, mha, rng)
        norm, mha = norm.to("meta"), mha.to("meta")

        def run(x):
            y = norm(x)
            return mha(y, y, y, need_weights=False)[0]

        forward, backward = forward_backward(torch, run, torch.empty(1, length, w, device="meta"))
        result = evaluated([w], [{"type": "layer_norm", "trainable": up},
                                 {"type": "multi_head_attention", "heads": h, "bias": bias, "trainable": tr}], length)
        assert (result.forward_flop, result.backward_flop) == (forward, backward), (h, w, up, tr)


@pytest.mark.external_check("embedding")
def test_embedding_takes_no_gradient_into_token_ids(torch):
    """Token ids are integers: PyTorch refuses them a gradient, and the embedding's own backward (a scatter-add)
    counts no multiply-accumulates. So the first dense layer after a frozen table has no input gradient."""
    with torch.device("meta"):
        table, dense = torch.nn.Embedding(50, 16), torch.nn.Linear(16, 8)
        ids = torch.zeros(1, 10, dtype=torch.long)
    with pytest.raises(RuntimeError):
        ids.requires_grad_(True)
    for emb_trainable in (True, False):
        set_trainable(table, emb_trainable)
        forward, backward = forward_backward(torch, lambda i: dense(table(i)), ids)
        layers = [{"type": "embedding", "vocab_size": 50, "dim": 16, "trainable": emb_trainable},
                  {"type": "dense", "units": 8}]
        result = evaluated([1], layers, 10)
        assert (result.forward_flop, result.backward_flop) == (forward, backward)
        # weight gradient 2·L·N·M always; the input gradient only when the table trains
        assert backward == 2 * 10 * 16 * 8 * (2 if emb_trainable else 1)


# ---------------------------------------------------------------- random nested blocks, random masks

def _masked(rng: random.Random, layers: list[dict]) -> list[dict]:
    """The same layers with ``trainable`` set at random on some layers and blocks, LoRA on some dense ones."""
    out = []
    for layer in layers:
        layer = dict(layer)
        choice = rng.random()
        if choice < 0.25:
            layer["trainable"] = False
        elif choice < 0.4:
            layer["trainable"] = True
        t = layer["type"]
        if t == "residual":
            layer["body"] = _masked(rng, layer["body"])
            layer["shortcut"] = _masked(rng, layer.get("shortcut", []))
        elif t == "branches":
            layer["branches"] = [_masked(rng, b) for b in layer["branches"]]
        elif t == "repeat":
            layer["layers"] = _masked(rng, layer["layers"])
        elif t == "dense" and rng.random() < 0.5:
            layer["lora"] = {"rank": rng.randint(1, 4)}
        out.append(layer)
    return out


def _apply(torch, seq, layers: list[dict], inherited: bool) -> None:
    """Set requires_grad as the layer list says (a block's value inherited inside it); LoRA as nn.Linear pairs."""
    for i, layer in enumerate(layers):
        module = seq[i]
        trainable = layer.get("trainable", inherited)
        t = layer["type"]
        if t == "residual":
            _apply(torch, module.body, layer["body"], trainable)
            _apply(torch, module.shortcut, layer.get("shortcut", []), trainable)
        elif t == "branches":
            for branch, branch_layers in zip(module.branches, layer["branches"]):
                _apply(torch, branch, branch_layers, trainable)
        elif t == "repeat":
            for copy in module:
                _apply(torch, copy, layer["layers"], trainable)
        elif "lora" in layer:
            seq[i] = lora_linear(torch, module, layer["lora"]["rank"])
        else:
            set_trainable(module, trainable)


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nets(), st.randoms(use_true_random=False))
def test_random_nested_blocks_with_random_masks(torch, net, rng):
    shape, layers = net
    layers = _masked(rng, layers)
    with torch.device("meta"):
        module, _ = to_torch(torch, layers, shape[2])
        _apply(torch, module, layers, True)
        x = torch.empty(1, shape[2], shape[0], shape[1])
    module.eval()
    try:
        forward, backward = forward_backward(torch, module, x)
    except RuntimeError:
        with pytest.raises(InputError):
            evaluated(shape, layers)
        return
    result = evaluated(shape, layers)
    assert (result.forward_flop, result.backward_flop) == (forward, backward)
    assert result.trainable_params == sum(p.numel() for p in module.parameters() if p.requires_grad)
    assert sum(r.backward_flop for r in result.rows) == result.backward_flop


# ---------------------------------------------------------------- random sequence chains

@st.composite
def chains(draw):
    """A sequence [L, w] through a random chain of dense (± LoRA), norms, activations, attention, recurrent."""
    length = draw(st.integers(1, 6))
    layers = []
    for _ in range(draw(st.integers(1, 6))):
        kind = draw(st.sampled_from(["dense", "dense", "lora", "layer_norm", "act", "mha", "gru", "lstm"]))
        trainable = draw(st.sampled_from([None, True, False]))
        if kind in ("dense", "lora"):
            units = draw(st.integers(1, 6)) * 2
            layer = {"type": "dense", "units": units}
            if kind == "lora":
                layer["lora"] = {"rank": draw(st.integers(1, 3))}
        elif kind == "layer_norm":
            layer = {"type": "layer_norm"}
        elif kind == "act":
            layer = {"type": "activation", "function": draw(st.sampled_from(["relu", "gelu", "tanh"]))}
        elif kind == "mha":
            layer = {"type": "multi_head_attention", "heads": draw(st.sampled_from([1, 2]))}
        else:
            units = draw(st.integers(1, 3)) * 2  # even, so that two heads still divide the width
            layer = {"type": kind, "units": units, "return_sequences": True}
        if trainable is not None:
            layer["trainable"] = trainable
        layers.append(layer)
    return length, layers


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(1, 6).map(lambda k: 2 * k), chains())
def test_random_sequence_chains(torch, width, chain):
    length, layers = chain
    nn = torch.nn
    modules, kinds, w = [], [], width
    with torch.device("meta"):
        for layer in layers:
            t = layer["type"]
            if t == "dense":
                m = nn.Linear(w, layer["units"])
                w = layer["units"]
                if "lora" in layer:
                    m = lora_linear(torch, m, layer["lora"]["rank"])
            elif t == "layer_norm":
                m = nn.LayerNorm(w)
            elif t == "activation":
                m = {"relu": nn.ReLU, "gelu": nn.GELU, "tanh": nn.Tanh}[layer["function"]]()
            elif t == "multi_head_attention":
                m = nn.MultiheadAttention(w, layer["heads"], batch_first=True)
            else:
                m = {"gru": nn.GRU, "lstm": nn.LSTM}[t](w, layer["units"], batch_first=True)
                w = layer["units"]
            if "lora" not in layer:
                set_trainable(m, layer.get("trainable", True))
            modules.append(m)
            kinds.append(t)
        x = torch.empty(1, length, width)

    def run(x):
        for t, m in zip(kinds, modules):
            if t == "multi_head_attention":
                x = m(x, x, x, need_weights=False)[0]
            elif t in ("gru", "lstm"):
                x = m(x)[0]
            else:
                x = m(x)
        return x

    forward, backward = forward_backward(torch, run, x)
    result = evaluated([width], layers, length)
    assert (result.forward_flop, result.backward_flop) == (forward, backward), layers
