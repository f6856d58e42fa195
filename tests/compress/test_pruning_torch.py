"""Pruned architectures against hand-pruned PyTorch twins: Σ numel and FlopCounterMode's forward FLOP (meta device),
and the transformer's against transformers itself, built from the pruned config."""
from __future__ import annotations

import pytest
import torch
from torch.utils.flop_counter import FlopCounterMode

from engine.compress.pruning import Pruning, pruned_layers
from engine.errors import InputError, parse_input
from engine.llm.config import read_hf_config
from engine.llm.library import library_model
from engine.method1.architecture import Architecture, InputSpec, evaluate
from tests.llm import hf_reference


def count(module, x):
    with FlopCounterMode(display=False) as counter:
        module(x)
    return sum(p.numel() for p in module.parameters()), counter.get_total_flops()


def engine_count(input_shape, layers, seq=None):
    arch = Architecture(input=InputSpec(shape=input_shape, sequence_length=seq), layers=layers)
    result = evaluate(arch)
    return result.params, result.forward_flop


MLP = [{"type": "dense", "units": 512}, {"type": "activation", "function": "relu"}, {"type": "dense", "units": 256},
       {"type": "activation", "function": "relu"}, {"type": "dense", "units": 10}]


def test_mlp_channels_half_equals_a_hand_pruned_twin():
    spec = parse_input(Pruning, {"target": "channels", "fraction": 0.5})
    layers, done = pruned_layers(MLP, spec)
    assert done == ["layers[0]", "layers[2]"]  # the output layer keeps its 10 units
    with torch.device("meta"):
        twin = torch.nn.Sequential(torch.nn.Linear(784, 256), torch.nn.ReLU(), torch.nn.Linear(256, 128),
                                   torch.nn.ReLU(), torch.nn.Linear(128, 10))
        x = torch.zeros(1, 784)
    assert engine_count([784], layers) == count(twin, x)


CNN = [{"type": "conv2d", "filters": 64, "kernel_size": 3, "padding": 1},
       {"type": "batch_norm"}, {"type": "activation", "function": "relu"},
       {"type": "conv2d", "filters": 128, "kernel_size": 3, "stride": 2, "padding": 1},
       {"type": "activation", "function": "relu"}, {"type": "flatten"}, {"type": "dense", "units": 100}]


def test_cnn_per_layer_fractions_equal_a_hand_pruned_twin():
    spec = parse_input(Pruning, {"target": "channels", "per_layer": {"layers[0]": 0.25, "layers[3]": 0.5}})
    layers, _ = pruned_layers(CNN, spec)
    with torch.device("meta"):
        twin = torch.nn.Sequential(torch.nn.Conv2d(3, 48, 3, padding=1), torch.nn.BatchNorm2d(48), torch.nn.ReLU(),
                                   torch.nn.Conv2d(48, 64, 3, stride=2, padding=1), torch.nn.ReLU(),
                                   torch.nn.Flatten(), torch.nn.Linear(64 * 16 * 16, 100))
        x = torch.zeros(1, 3, 32, 32)
    assert engine_count([32, 32, 3], layers) == count(twin, x)


def test_residual_block_keeps_its_output_width():
    layers = [{"type": "dense", "units": 64},
              {"type": "residual", "body": [{"type": "dense", "units": 256}, {"type": "dense", "units": 64}]},
              {"type": "dense", "units": 10}]
    pruned, done = pruned_layers(layers, parse_input(Pruning, {"target": "channels", "fraction": 0.5}))
    assert pruned[1]["body"][0]["units"] == 128 and pruned[1]["body"][1]["units"] == 64
    assert done == ["layers[1].body[0]"]  # what the identity adds to (layers[0]) and the body's output stay whole


class _Residual(torch.nn.Module):
    def __init__(self, body, shortcut=None):
        super().__init__()
        self.body, self.shortcut = body, shortcut

    def forward(self, x):
        return self.body(x) + (self.shortcut(x) if self.shortcut is not None else x)


RESNET_LIKE = [
    {"type": "conv2d", "filters": 32, "kernel_size": 3, "padding": 1, "bias": False},
    {"type": "residual", "body": [{"type": "conv2d", "filters": 64, "kernel_size": 3, "padding": 1, "bias": False},
                                  {"type": "batch_norm"}, {"type": "activation", "function": "relu"},
                                  {"type": "conv2d", "filters": 32, "kernel_size": 3, "padding": 1, "bias": False}]},
    {"type": "residual", "body": [{"type": "conv2d", "filters": 64, "kernel_size": 3, "stride": 2, "padding": 1,
                                   "bias": False},
                                  {"type": "conv2d", "filters": 64, "kernel_size": 3, "padding": 1, "bias": False}],
     "shortcut": [{"type": "conv2d", "filters": 64, "kernel_size": 1, "stride": 2, "bias": False}]},
    {"type": "conv2d", "filters": 48, "kernel_size": 1, "bias": False},
    {"type": "conv2d", "filters": 48, "kernel_size": 3, "padding": 1, "groups": 48, "bias": False},
    {"type": "adaptive_avg_pool2d", "output_size": 1}, {"type": "flatten"}, {"type": "dense", "units": 10}]


def test_residual_and_depthwise_cnn_half_channels_equals_a_hand_pruned_twin():
    """Channel pruning inside the blocks, as ResNets are pruned: each residual's first convolutions lose half their
    filters; what an identity adds to, each body's and shortcut's output, the convolution a depthwise one reads
    (its 48 groups are its 48 channels) and the output stay whole."""
    pruned, done = pruned_layers(RESNET_LIKE, parse_input(Pruning, {"target": "channels", "fraction": 0.5}))
    assert done == ["layers[1].body[0]", "layers[2].body[0]"]
    nn = torch.nn
    with torch.device("meta"):
        twin = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1, bias=False),
            _Residual(nn.Sequential(nn.Conv2d(32, 32, 3, padding=1, bias=False), nn.BatchNorm2d(32), nn.ReLU(),
                                    nn.Conv2d(32, 32, 3, padding=1, bias=False))),
            _Residual(nn.Sequential(nn.Conv2d(32, 32, 3, stride=2, padding=1, bias=False),
                                    nn.Conv2d(32, 64, 3, padding=1, bias=False)),
                      nn.Conv2d(32, 64, 1, stride=2, bias=False)),
            nn.Conv2d(64, 48, 1, bias=False), nn.Conv2d(48, 48, 3, padding=1, groups=48, bias=False),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(48, 10))
        x = torch.zeros(1, 3, 16, 16)
    assert engine_count([16, 16, 3], pruned) == count(twin, x)


class _Heads(torch.nn.Module):
    """Multi-head attention of H heads of size D over width W, written as products: q, k, v W → H·D, softmax(q·kᵀ)·v
    per head, out H·D → W."""

    def __init__(self, w, heads, d):
        super().__init__()
        self.h, self.d = heads, d
        self.q, self.k, self.v = (torch.nn.Linear(w, heads * d) for _ in range(3))
        self.out = torch.nn.Linear(heads * d, w)

    def forward(self, x):
        length = x.shape[0]
        q, k, v = (p(x).reshape(length, self.h, self.d).transpose(0, 1) for p in (self.q, self.k, self.v))
        return self.out(torch.matmul(torch.softmax(torch.matmul(q, k.transpose(1, 2)), -1), v)
                        .transpose(0, 1).reshape(length, self.h * self.d))


def test_attention_heads_pruned_keep_their_size():
    """Half of 4 heads of 8 (W = 32): 2 heads of 8, not 2 heads of 16 (the head size defaulted to W / H, so the
    pruned layer kept every parameter and FLOP)."""
    layers = [{"type": "multi_head_attention", "heads": 4}, {"type": "dense", "units": 10}]
    pruned, done = pruned_layers(layers, parse_input(Pruning, {"target": "heads", "fraction": 0.5}),
                                 {"layers[0]": 32})
    assert done == ["layers[0]"] and pruned[0] == {"type": "multi_head_attention", "heads": 2, "key_size": 8,
                                                   "value_size": 8}
    with torch.device("meta"):
        twin = torch.nn.Sequential(_Heads(32, 2, 8), torch.nn.Linear(32, 10))
        x = torch.zeros(10, 32)
    assert engine_count([32], pruned, 10) == count(twin, x)


LLAMA_CHANGES = {"num_hidden_layers": 4, "vocab_size": 1000}


def _llama_layers():
    config = read_hf_config(dict(library_model("llama-3.1-8b").config) | LLAMA_CHANGES)
    arch = config.architecture(16)
    return config, [layer.model_dump(mode="json", exclude_defaults=True) for layer in arch.layers]


@pytest.mark.parametrize("target,fraction,hf", [
    ("heads", 0.5, {"num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 128}),
    ("ffn", 0.25, {"intermediate_size": 10752}),
    ("blocks", 0.5, {"num_hidden_layers": 2}),
])
def test_llama_pruned_equals_transformers_built_from_the_pruned_config(target, fraction, hf):
    config, layers = _llama_layers()
    d = config.d_model
    widths = {f"layers[{i}]": d for i, layer in enumerate(layers) if layer.get("type") == "transformer_block"}
    pruned, _ = pruned_layers(layers, parse_input(Pruning, {"target": target, "fraction": fraction}), widths)
    twin_config = dict(library_model("llama-3.1-8b").config) | LLAMA_CHANGES | hf
    params, flop = hf_reference.counts(twin_config, 16)
    assert engine_count([1], pruned, 16) == (params, flop)


@pytest.mark.parametrize("fraction", [0, 1, 1.5, float("nan"), -0.2])
def test_bad_fractions_name_the_field(fraction):
    with pytest.raises(InputError) as error:
        parse_input(Pruning, {"target": "channels", "fraction": fraction})
    assert error.value.field == "fraction"


def test_blocks_keep_the_first_and_last():
    layers = [{"type": "dense", "units": 8}] + [{"type": "residual", "body": [{"type": "dense", "units": 8}]}] * 6
    pruned, removed = pruned_layers(layers, parse_input(Pruning, {"target": "blocks", "fraction": 0.5}))
    assert len(pruned) == 4 and "layers[1]" not in removed and "layers[6]" not in removed
