"""Randomised nested blocks (residuals, branches, repeats, mixed kinds) against the same net in torch.nn.

Hypothesis draws a scenario's layer list; ``to_torch`` below is the test's own reading of it as torch
modules (channels first), independent of the engine. Either both refuse the net (torch raises, the engine
gives an InputError) or parameters and matmul FLOP (FlopCounterMode, meta device) agree exactly.
"""
from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import InputError
from tests.method1 import evaluated

ACTS = ["relu", "relu6", "silu", "sigmoid", "hardswish", "tanh", "gelu"]


def _leaf(draw, c: int):
    kind = draw(st.sampled_from(["conv", "conv", "conv", "bn", "act", "pool", "dropout"]))
    if kind == "conv":
        k = draw(st.sampled_from([1, 3]))
        g = draw(st.sampled_from([1, 1, c]))  # depthwise now and then
        filters = c if g == c and draw(st.booleans()) else draw(st.integers(2, 6)) * (1 if g == 1 else c)
        return {"type": "conv2d", "filters": filters, "kernel_size": k, "padding": k // 2, "groups": g,
                "bias": draw(st.booleans())}, filters
    if kind == "bn":
        return {"type": "batch_norm"}, c
    if kind == "act":
        return {"type": "activation", "function": draw(st.sampled_from(ACTS))}, c
    if kind == "pool":
        return {"type": draw(st.sampled_from(["max_pool2d", "avg_pool2d"])), "kernel_size": 3, "stride": 1,
                "padding": 1}, c
    return {"type": "dropout", "rate": 0.1}, c


def _list(draw, c: int, depth: int, length: int, end_channels: int | None = None):
    """A layer list from c channels (spatial size kept); ends on ``end_channels`` if given (a 1×1 conv)."""
    layers = []
    for _ in range(length):
        if depth < 3 and draw(st.integers(0, 3)) == 0:
            layer, c = _block(draw, c, depth + 1)
        else:
            layer, c = _leaf(draw, c)
        layers.append(layer)
    if end_channels is not None and (c != end_channels or not layers):
        layers.append({"type": "conv2d", "filters": end_channels, "kernel_size": 1})
        c = end_channels
    return layers, c


def _block(draw, c: int, depth: int):
    kind = draw(st.sampled_from(["residual", "concat", "add", "gate", "repeat"]))
    if kind == "residual":
        project = draw(st.booleans())
        out = draw(st.integers(2, 6)) if project else c
        body, _ = _list(draw, c, depth, draw(st.integers(1, 3)), out)
        shortcut = [{"type": "conv2d", "filters": out, "kernel_size": 1, "bias": False}, {"type": "batch_norm"}] \
            if project else []
        return {"type": "residual", "body": body, "shortcut": shortcut}, out
    if kind in ("concat", "add"):
        n = draw(st.integers(2, 3))
        out = draw(st.integers(2, 6))
        branches, total = [], 0
        for _ in range(n):
            if draw(st.integers(0, 3)) == 0 and (kind == "concat" or out == c):
                branches.append([])  # the identity
                total += c
            else:
                b, bc = _list(draw, c, depth, draw(st.integers(1, 2)), None if kind == "concat" else out)
                branches.append(b)
                total += bc
        return {"type": "branches", "merge": kind, "branches": branches}, (total if kind == "concat" else out)
    if kind == "gate":  # squeeze-excite: [1, 1, C] × [H, W, C]
        squeeze = draw(st.integers(1, 4))
        gate = [{"type": "adaptive_avg_pool2d"}, {"type": "conv2d", "filters": squeeze, "kernel_size": 1},
                {"type": "activation", "function": "silu"}, {"type": "conv2d", "filters": c, "kernel_size": 1},
                {"type": "activation", "function": "sigmoid"}]
        return {"type": "branches", "merge": "multiply", "branches": [[], gate]}, c
    times = draw(st.integers(1, 4))
    grow = draw(st.booleans())  # DenseNet: each copy adds channels; else each copy keeps them
    if grow:
        g = draw(st.integers(1, 3))
        inner = [{"type": "branches", "branches": [[], [{"type": "batch_norm"},
                                                       {"type": "conv2d", "filters": g, "kernel_size": 3,
                                                        "padding": 1}]]}]
        return {"type": "repeat", "times": times, "layers": inner}, c + times * g
    body, _ = _list(draw, c, depth, draw(st.integers(1, 2)), c)
    return {"type": "repeat", "times": times, "layers": body}, c


@st.composite
def nets(draw):
    c = draw(st.integers(1, 5))
    size = draw(st.integers(3, 9))
    layers, c_out = _list(draw, c, 0, draw(st.integers(1, 4)))
    if draw(st.booleans()):
        layers += [{"type": "adaptive_avg_pool2d"}, {"type": "flatten"}, {"type": "dense", "units": 3}]
    return [size, size, c], layers


def to_torch(torch, layers: list[dict], c: int):
    """The test's reading of a layer list as torch modules: (module, output channels)."""
    nn = torch.nn

    class Residual(nn.Module):
        def __init__(self, body, shortcut):
            super().__init__()
            self.body, self.shortcut = body, shortcut

        def forward(self, x):
            return self.body(x) + self.shortcut(x)

    class Branches(nn.Module):
        def __init__(self, branches, merge):
            super().__init__()
            self.branches, self.merge = nn.ModuleList(branches), merge

        def forward(self, x):
            outs = [b(x) for b in self.branches]
            if self.merge == "concat":
                return torch.cat(outs, 1)
            out = outs[0]
            for o in outs[1:]:
                out = out + o if self.merge == "add" else out * o
            return out

    acts = {"relu": nn.ReLU, "relu6": nn.ReLU6, "silu": nn.SiLU, "sigmoid": nn.Sigmoid, "hardswish": nn.Hardswish,
            "tanh": nn.Tanh, "gelu": nn.GELU}
    modules = []
    for layer in layers:
        t = layer["type"]
        if t == "conv2d":
            modules.append(nn.Conv2d(c, layer["filters"], layer["kernel_size"], padding=layer.get("padding", 0),
                                     groups=layer.get("groups", 1), bias=layer.get("bias", True)))
            c = layer["filters"]
        elif t == "batch_norm":
            modules.append(nn.BatchNorm2d(c))
        elif t == "activation":
            modules.append(acts[layer["function"]]())
        elif t in ("max_pool2d", "avg_pool2d"):
            cls = nn.MaxPool2d if t == "max_pool2d" else nn.AvgPool2d
            modules.append(cls(layer["kernel_size"], layer["stride"], layer["padding"]))
        elif t == "dropout":
            modules.append(nn.Dropout(layer["rate"]))
        elif t == "adaptive_avg_pool2d":
            modules.append(nn.AdaptiveAvgPool2d(1))
        elif t == "flatten":
            modules.append(nn.Flatten())
        elif t == "dense":
            modules.append(nn.Linear(c, layer["units"]))
            c = layer["units"]
        elif t == "residual":
            body, c_body = to_torch(torch, layer["body"], c)
            shortcut, _ = to_torch(torch, layer.get("shortcut", []), c)
            modules.append(Residual(body, shortcut))
            c = c_body
        elif t == "branches":
            built = [to_torch(torch, b, c) for b in layer["branches"]]
            modules.append(Branches([m for m, _ in built], layer.get("merge", "concat")))
            c = sum(bc for _, bc in built) if layer.get("merge", "concat") == "concat" else built[0][1]
        elif t == "repeat":
            copies = []
            for _ in range(layer["times"]):
                m, c = to_torch(torch, layer["layers"], c)
                copies.append(m)
            modules.append(nn.Sequential(*copies))
        else:
            raise AssertionError(t)
    return nn.Sequential(*modules), c  # an empty Sequential is the identity


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(nets())
@pytest.mark.external_check("residual", "branches", "repeat", "batch_norm", "adaptive_avg_pool2d", "flatten")
def test_random_nested_blocks_match_torch(torch, net):
    from torch.utils.flop_counter import FlopCounterMode

    shape, layers = net
    with torch.device("meta"):
        module, _ = to_torch(torch, layers, shape[2])
        x = torch.empty(1, shape[2], shape[0], shape[1])
    module.eval()
    params = sum(p.numel() for p in module.parameters())
    try:
        with FlopCounterMode(display=False) as counter:
            module(x)
    except RuntimeError:
        with pytest.raises(InputError):
            evaluated(shape, layers)
        return
    result = evaluated(shape, layers)
    assert (result.params, result.forward_flop) == (params, counter.get_total_flops())
    assert sum(r.forward_flop for r in result.rows) == result.forward_flop
    assert sum(r.params for r in result.rows) == result.params


# ---------------------------------------------------------------- token sequences (ViT-like), mixed kinds

@st.composite
def token_nets(draw):
    """A patchify convolution → tokens (± class token, position table) → blocks over the sequence → a head."""
    heads = draw(st.integers(1, 3))
    width = heads * draw(st.integers(1, 4))
    patch = draw(st.integers(1, 3))
    grid = draw(st.integers(1, 4))
    layers = [{"type": "conv2d", "filters": width, "kernel_size": patch, "stride": patch}, {"type": "to_tokens"}]
    tokens = grid * grid
    if draw(st.booleans()):
        layers.append({"type": "class_token"})
        tokens += 1
    if draw(st.booleans()):
        layers.append({"type": "position_embedding", "max_positions": tokens})
    attention = {"type": "residual", "body": [{"type": "layer_norm"},
                                              {"type": "multi_head_attention", "heads": heads}]}
    mlp_width = draw(st.integers(1, 8))
    mlp = {"type": "residual", "body": [{"type": "layer_norm"}, {"type": "dense", "units": mlp_width},
                                        {"type": "activation", "function": draw(st.sampled_from(["gelu", "relu"]))},
                                        {"type": "dense", "units": width}]}
    block = draw(st.sampled_from([[attention, mlp], [mlp], [attention]]))
    layers.append({"type": "repeat", "times": draw(st.integers(1, 3)), "layers": block})
    if draw(st.booleans()):  # two views of the sequence, joined along it
        layers.append({"type": "branches", "axis": "sequence",
                       "branches": [[], [{"type": "dense", "units": width, "bias": draw(st.booleans())}]]})
    layers += [{"type": "layer_norm"}, {"type": "token_select", "select": draw(st.sampled_from(["first", "mean"]))},
               {"type": "dense", "units": draw(st.integers(1, 5))}]
    return [grid * patch, grid * patch, draw(st.integers(1, 3))], layers


def token_torch(torch, layers: list[dict], channels: int):
    """The test's reading of a token net: channels-first convolution, then [N, L, d] sequences."""
    nn = torch.nn

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.steps = nn.ModuleList()
            self.kinds = []
            c, d, tokens = channels, None, None
            for layer in layers:
                t = layer["type"]
                self.kinds.append(t)
                if t == "conv2d":
                    self.steps.append(nn.Conv2d(c, layer["filters"], layer["kernel_size"], layer["stride"]))
                    d = layer["filters"]
                elif t == "class_token":
                    self.steps.append(nn.ParameterDict({"token": nn.Parameter(torch.zeros(1, 1, d))}))
                elif t == "position_embedding":
                    self.steps.append(nn.ParameterDict({"table": nn.Parameter(torch.zeros(1, layer["max_positions"], d))}))
                elif t == "repeat":
                    copies = []
                    for _ in range(layer["times"]):
                        for r in layer["layers"]:
                            body = r["body"]
                            if body[1]["type"] == "multi_head_attention":
                                copies.append(nn.ModuleList([nn.LayerNorm(d),
                                                             nn.MultiheadAttention(d, body[1]["heads"], batch_first=True)]))
                            else:
                                act = nn.GELU() if body[2]["function"] == "gelu" else nn.ReLU()
                                copies.append(nn.ModuleList([nn.LayerNorm(d), nn.Sequential(
                                    nn.Linear(d, body[1]["units"]), act, nn.Linear(body[1]["units"], d))]))
                    self.steps.append(nn.ModuleList(copies))
                elif t == "branches":
                    b = layer["branches"][1][0]
                    self.steps.append(nn.Linear(d, b["units"], bias=b.get("bias", True)))
                elif t == "layer_norm":
                    self.steps.append(nn.LayerNorm(d))
                elif t == "dense":
                    self.steps.append(nn.Linear(d, layer["units"]))
                else:
                    self.steps.append(nn.Identity())
                    self.kinds[-1] = (t, layer.get("select"))

        def forward(self, x):
            for kind, step in zip(self.kinds, self.steps):
                if kind == "conv2d":
                    x = step(x)
                    x = x.flatten(2).transpose(1, 2)  # the to_tokens that follows: [N, H·W, d]
                elif kind == "class_token":
                    x = torch.cat([step["token"].expand(x.shape[0], -1, -1), x], 1)
                elif kind == "position_embedding":
                    x = x + step["table"]
                elif kind == "repeat":
                    for norm, inner in step:
                        y = norm(x)
                        x = x + (inner(y, y, y, need_weights=False)[0] if isinstance(inner, nn.MultiheadAttention)
                                 else inner(y))
                elif kind == "branches":
                    x = torch.cat([x, step(x)], 1)
                elif kind in ("layer_norm", "dense"):
                    x = step(x)
                elif kind[0] == "token_select":
                    x = x[:, 0] if kind[1] == "first" else x.mean(1)
            return x

    return Net()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(token_nets())
@pytest.mark.external_check("to_tokens", "class_token", "token_select", "position_embedding")
def test_random_token_nets_match_torch(torch, net):
    from torch.utils.flop_counter import FlopCounterMode

    shape, layers = net
    with torch.device("meta"):
        module = token_torch(torch, layers, shape[2])
        x = torch.empty(1, shape[2], shape[0], shape[1])
    params = sum(p.numel() for p in module.parameters())
    with FlopCounterMode(display=False) as counter:
        module(x)
    result = evaluated(shape, layers)
    assert (result.params, result.forward_flop) == (params, counter.get_total_flops())
