"""Published vision architectures as layer lists (blocks and repeats), following torchvision's definitions.

Each function returns ``(input_shape, layers)`` as plain JSON data (channels last). Batch norm after a
convolution without bias, as torchvision writes them; dropout and stochastic depth count nothing in
eval mode and are kept where torchvision has them, so the list reads like the source.
"""
from __future__ import annotations


def conv(filters: int, k, s=1, p=0, g=1, bias=False) -> dict:
    layer = {"type": "conv2d", "filters": filters, "kernel_size": k}
    if s != 1:
        layer["stride"] = s
    if p:
        layer["padding"] = p
    if g != 1:
        layer["groups"] = g
    if not bias:
        layer["bias"] = False
    return layer


BN = {"type": "batch_norm"}
RELU = {"type": "activation", "function": "relu"}
RELU6 = {"type": "activation", "function": "relu6"}
SILU = {"type": "activation", "function": "silu"}
SIGMOID = {"type": "activation", "function": "sigmoid"}
FLATTEN = {"type": "flatten"}
GLOBAL_POOL = {"type": "adaptive_avg_pool2d"}


def cba(filters, k, s=1, p=None, g=1, act=RELU) -> list[dict]:
    """Convolution (no bias), batch norm, activation (torchvision's ``Conv2dNormActivation``)."""
    p = (k - 1) // 2 if p is None else p
    return [conv(filters, k, s, p, g), BN] + ([act] if act else [])


def repeat(times: int, layers: list[dict], name: str = "") -> list[dict]:
    """``times`` copies (nothing for 0, the list itself for 1)."""
    if times <= 0:
        return []
    if times == 1:
        return [dict(layers[0], name=name)] if len(layers) == 1 and name else layers
    block = {"type": "repeat", "times": times, "layers": layers}
    return [dict(block, name=name) if name else block]


def head(classes=1000, dropout=None) -> list[dict]:
    drop = [{"type": "dropout", "rate": dropout}] if dropout else []
    return [GLOBAL_POOL, FLATTEN, *drop, {"type": "dense", "units": classes}]


# ---------------------------------------------------------------- ResNet (He et al. 2016; torchvision v1.5)

def _basic(planes, stride, project) -> dict:
    body = cba(planes, 3, stride) + [conv(planes, 3, 1, 1), BN]
    return {"type": "residual", "body": body, "shortcut": [conv(planes, 1, stride), BN] if project else []}


def _bottleneck(planes, stride, project) -> dict:
    body = cba(planes, 1) + cba(planes, 3, stride) + [conv(4 * planes, 1), BN]
    return {"type": "residual", "body": body, "shortcut": [conv(4 * planes, 1, stride), BN] if project else []}


def resnet(blocks: tuple[int, ...], bottleneck: bool) -> tuple[list[int], list[dict]]:
    make, expansion = (_bottleneck, 4) if bottleneck else (_basic, 1)
    layers = cba(64, 7, 2, 3) + [{"type": "max_pool2d", "kernel_size": 3, "stride": 2, "padding": 1}]
    channels = 64
    for stage, (planes, n) in enumerate(zip((64, 128, 256, 512), blocks)):
        stride = 1 if stage == 0 else 2
        first = make(planes, stride, stride != 1 or channels != planes * expansion)
        stage_layers = [first, RELU] + repeat(n - 1, [make(planes, 1, False), RELU])
        layers.append({"type": "repeat", "times": 1, "layers": stage_layers, "name": f"layer{stage + 1}"})
        channels = planes * expansion
    return [224, 224, 3], layers + head()


# ---------------------------------------------------------------- MobileNetV2 (Sandler et al. 2018)

def _inverted_residual(inp, out, stride, t) -> list[dict]:
    hidden = round(inp * t)
    body = (cba(hidden, 1, act=RELU6) if t != 1 else []) + cba(hidden, 3, stride, g=hidden, act=RELU6) + \
        [conv(out, 1), BN]
    if stride == 1 and inp == out:
        return [{"type": "residual", "body": body}]
    return body


def mobilenet_v2() -> tuple[list[int], list[dict]]:
    layers = cba(32, 3, 2, act=RELU6)
    inp = 32
    for t, c, n, s in ((1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
                       (6, 160, 3, 2), (6, 320, 1, 1)):
        stage = _inverted_residual(inp, c, s, t) + repeat(n - 1, _inverted_residual(c, c, 1, t))
        layers += stage
        inp = c
    return [224, 224, 3], layers + cba(1280, 1, act=RELU6) + head(dropout=0.2)


# ---------------------------------------------------------------- EfficientNet-B0 (Tan & Le 2019)

def _make_divisible(v: float, divisor: int = 8) -> int:
    new = max(divisor, int(v + divisor / 2) // divisor * divisor)
    return new + divisor if new < 0.9 * v else new


def _mbconv(inp, out, k, stride, t) -> list[dict]:
    expanded = _make_divisible(inp * t)
    squeeze = max(1, inp // 4)
    excite = {"type": "branches", "merge": "multiply", "name": "squeeze-excite", "branches": [
        [], [GLOBAL_POOL, conv(squeeze, 1, bias=True), SILU, conv(expanded, 1, bias=True), SIGMOID]]}
    body = (cba(expanded, 1, act=SILU) if expanded != inp else []) + \
        cba(expanded, k, stride, g=expanded, act=SILU) + [excite, conv(out, 1), BN]
    if stride == 1 and inp == out:
        return [{"type": "residual", "body": body}]  # stochastic depth: the identity in eval mode
    return body


def efficientnet_b0() -> tuple[list[int], list[dict]]:
    layers = cba(32, 3, 2, act=SILU)
    inp = 32
    for t, k, s, c, n in ((1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3),
                          (6, 5, 1, 112, 3), (6, 5, 2, 192, 4), (6, 3, 1, 320, 1)):
        layers += _mbconv(inp, c, k, s, t) + repeat(n - 1, _mbconv(c, c, k, 1, t))
        inp = c
    return [224, 224, 3], layers + cba(1280, 1, act=SILU) + head(dropout=0.2)


# ---------------------------------------------------------------- Inception-v3 (Szegedy et al. 2016)

def _bc(filters, k, s=1, p=0) -> list[dict]:
    """torchvision's ``BasicConv2d``: convolution without bias, batch norm, ReLU."""
    return [conv(filters, k, s, p), BN, RELU]


AVG3 = {"type": "avg_pool2d", "kernel_size": 3, "stride": 1, "padding": 1}
MAX3 = {"type": "max_pool2d", "kernel_size": 3, "stride": 2}


def _cat(*branches, name="") -> dict:
    block = {"type": "branches", "branches": list(branches)}
    return dict(block, name=name) if name else block


def _inception_a(pool, name) -> dict:
    return _cat(_bc(64, 1), _bc(48, 1) + _bc(64, 5, p=2), _bc(64, 1) + _bc(96, 3, p=1) + _bc(96, 3, p=1),
                [AVG3] + _bc(pool, 1), name=name)


def _inception_c(c7, name) -> dict:
    return _cat(_bc(192, 1),
                _bc(c7, 1) + _bc(c7, [1, 7], p=[0, 3]) + _bc(192, [7, 1], p=[3, 0]),
                _bc(c7, 1) + _bc(c7, [7, 1], p=[3, 0]) + _bc(c7, [1, 7], p=[0, 3]) + _bc(c7, [7, 1], p=[3, 0])
                + _bc(192, [1, 7], p=[0, 3]),
                [AVG3] + _bc(192, 1), name=name)


def _inception_e(name) -> dict:
    split = _cat(_bc(384, [1, 3], p=[0, 1]), _bc(384, [3, 1], p=[1, 0]))
    return _cat(_bc(320, 1), _bc(384, 1) + [split], _bc(448, 1) + _bc(384, 3, p=1) + [split],
                [AVG3] + _bc(192, 1), name=name)


def inception_v3() -> tuple[list[int], list[dict]]:
    layers = _bc(32, 3, 2) + _bc(32, 3) + _bc(64, 3, p=1) + [MAX3] + _bc(80, 1) + _bc(192, 3) + [MAX3]
    layers += [_inception_a(32, "Mixed_5b"), _inception_a(64, "Mixed_5c"), _inception_a(64, "Mixed_5d"),
               _cat(_bc(384, 3, 2), _bc(64, 1) + _bc(96, 3, p=1) + _bc(96, 3, 2), [MAX3], name="Mixed_6a"),
               _inception_c(128, "Mixed_6b"), _inception_c(160, "Mixed_6c"), _inception_c(160, "Mixed_6d"),
               _inception_c(192, "Mixed_6e"),
               _cat(_bc(192, 1) + _bc(320, 3, 2),
                    _bc(192, 1) + _bc(192, [1, 7], p=[0, 3]) + _bc(192, [7, 1], p=[3, 0]) + _bc(192, 3, 2),
                    [MAX3], name="Mixed_7a"),
               _inception_e("Mixed_7b"), _inception_e("Mixed_7c")]
    return [299, 299, 3], layers + head(dropout=0.5)


# ---------------------------------------------------------------- DenseNet (Huang et al. 2017)

def densenet(blocks: tuple[int, ...], growth=32, init=64, bn_size=4) -> tuple[list[int], list[dict]]:
    layers = cba(init, 7, 2, 3) + [{"type": "max_pool2d", "kernel_size": 3, "stride": 2, "padding": 1}]
    dense_layer = {"type": "branches", "branches": [[], [BN, RELU, conv(bn_size * growth, 1), BN, RELU,
                                                         conv(growth, 3, 1, 1)]]}
    channels = init
    for i, n in enumerate(blocks):
        layers += repeat(n, [dense_layer], name=f"denseblock{i + 1}")
        channels += n * growth
        if i != len(blocks) - 1:
            channels //= 2
            layers.append({"type": "repeat", "times": 1, "name": f"transition{i + 1}",
                           "layers": [BN, RELU, conv(channels, 1), {"type": "avg_pool2d", "kernel_size": 2,
                                                                     "stride": 2}]})
    return [224, 224, 3], layers + [BN, RELU] + head()


# ---------------------------------------------------------------- ViT-B/16 (Dosovitskiy et al. 2021)

def vit(image=224, patch=16, depth=12, width=768, heads=12, mlp=3072) -> tuple[list[int], list[dict]]:
    tokens = (image // patch) ** 2 + 1
    encoder_block = [
        {"type": "residual", "body": [{"type": "layer_norm"}, {"type": "multi_head_attention", "heads": heads},
                                      {"type": "dropout", "rate": 0.0}]},
        {"type": "residual", "body": [{"type": "layer_norm"}, {"type": "dense", "units": mlp},
                                      {"type": "activation", "function": "gelu"}, {"type": "dense", "units": width}]},
    ]
    layers = [conv(width, patch, patch, bias=True), {"type": "to_tokens"}, {"type": "class_token"},
              {"type": "position_embedding", "max_positions": tokens},
              {"type": "repeat", "times": depth, "layers": encoder_block, "name": "encoder"},
              {"type": "layer_norm"}, {"type": "token_select", "select": "first"},
              {"type": "dense", "units": 1000}]
    return [image, image, 3], layers


# ---------------------------------------------------------------- U-Net (Ronneberger et al. 2015), padded

def _double(filters) -> list[dict]:
    return [conv(filters, 3, 1, 1, bias=True), RELU, conv(filters, 3, 1, 1, bias=True), RELU]


def unet(size=512, in_channels=1, classes=2, widths=(64, 128, 256, 512, 1024)) -> tuple[list[int], list[dict]]:
    """Contracting path of double 3×3 convolutions and 2×2 max pools, expanding path of 2×2 up-convolutions
    that halve the channels, each joined to the contracting path's map of its size (the skip)."""
    inner = _double(widths[-1])
    for width in reversed(widths[:-1]):
        down = [{"type": "max_pool2d", "kernel_size": 2, "stride": 2}] + inner + \
            [{"type": "conv_transpose2d", "filters": width, "kernel_size": 2, "stride": 2}]
        inner = _double(width) + [_cat([], down, name=f"skip {width}")]
        inner += _double(width)
    return [size, size, in_channels], inner + [conv(classes, 1, bias=True)]


# ---------------------------------------------------------------- ShuffleNetV2 ×1.0 (Ma et al. 2018)

def _shuffle_unit(inp, out, stride) -> list[dict]:
    """Stride 1: half the channels pass, the other half is convolved; stride 2: both branches convolve the
    whole input. Concatenated, then the channels shuffled in 2 groups."""
    half = out // 2
    right = cba(half, 1) + [conv(half, 3, stride, 1, g=half), BN] + cba(half, 1)
    if stride == 1:
        branches = [[{"type": "channel_split", "chunks": 2, "index": 0}],
                    [{"type": "channel_split", "chunks": 2, "index": 1}] + right]
    else:
        branches = [[conv(inp, 3, stride, 1, g=inp), BN] + cba(half, 1), right]
    return [{"type": "branches", "branches": branches}, {"type": "channel_shuffle", "groups": 2}]


def shufflenet_v2(repeats=(4, 8, 4), channels=(24, 116, 232, 464, 1024)) -> tuple[list[int], list[dict]]:
    layers = cba(channels[0], 3, 2) + [{"type": "max_pool2d", "kernel_size": 3, "stride": 2, "padding": 1}]
    inp = channels[0]
    for stage, (n, out) in enumerate(zip(repeats, channels[1:4])):
        units = _shuffle_unit(inp, out, 2) + repeat(n - 1, _shuffle_unit(out, out, 1))
        layers.append({"type": "repeat", "times": 1, "layers": units, "name": f"stage{stage + 2}"})
        inp = out
    return [224, 224, 3], layers + cba(channels[4], 1) + head()


# ---------------------------------------------------------------- Swin-T (Liu et al. 2021)

LN = {"type": "layer_norm"}
GELU = {"type": "activation", "function": "gelu"}


def _mlp(width, hidden) -> list[dict]:
    """nn.Linear at every position of the grid, GELU, back to the width."""
    return [{"type": "dense", "units": hidden, "per_position": True}, GELU,
            {"type": "dense", "units": width, "per_position": True}]


def _drop_path(rate: float) -> list[dict]:
    """Stochastic depth at torchvision's rate for the block (the identity at inference)."""
    return [{"type": "stochastic_depth", "rate": round(rate, 6)}] if rate else []


def swin(patch=4, dim=96, depths=(2, 2, 6, 2), heads=(3, 6, 12, 24), window=7, drop=0.2) \
        -> tuple[list[int], list[dict]]:
    """Patchify convolution and its norm; per stage, blocks of (shifted every other one) window attention and
    an MLP, each in a pre-norm residual with stochastic depth rising linearly to ``drop``; patch merging
    between stages; norm, global average pooling and the classifier."""
    layers = [conv(dim, patch, patch, bias=True), LN]
    total, block = sum(depths), 0
    for stage, (depth, h) in enumerate(zip(depths, heads)):
        width = dim * 2 ** stage
        blocks = []
        for i in range(depth):
            rate = drop * block / (total - 1)
            attention = {"type": "window_attention", "heads": h, "window_size": window}
            if i % 2:
                attention["shift"] = window // 2
            blocks += [{"type": "residual", "body": [LN, attention] + _drop_path(rate)},
                       {"type": "residual", "body": [LN] + _mlp(width, 4 * width) + _drop_path(rate)}]
            block += 1
        layers.append({"type": "repeat", "times": 1, "layers": blocks, "name": f"stage{stage + 1}"})
        if stage < len(depths) - 1:
            layers.append({"type": "patch_merging"})
    return [224, 224, 3], layers + [LN] + head()


# ---------------------------------------------------------------- ConvNeXt-T (Liu et al. 2022)

def convnext(stages=((96, 3), (192, 3), (384, 9), (768, 3)), drop=0.1) -> tuple[list[int], list[dict]]:
    """Patchify 4×4 convolution and a norm; per stage, blocks of a depthwise 7×7 convolution, a norm, an
    inverted MLP (4×) at every position, layer scale and stochastic depth in a residual; a norm and a 2×2
    stride-2 convolution between stages; global average pooling, norm and the classifier."""
    layers = [conv(stages[0][0], 4, 4, bias=True), LN]
    total, block = sum(n for _, n in stages), 0
    for stage, (width, n) in enumerate(stages):
        blocks = []
        for _ in range(n):
            body = [conv(width, 7, 1, 3, g=width, bias=True), LN] + _mlp(width, 4 * width) + \
                [{"type": "layer_scale"}] + _drop_path(drop * block / (total - 1))
            blocks.append({"type": "residual", "body": body})
            block += 1
        layers.append({"type": "repeat", "times": 1, "layers": blocks, "name": f"stage{stage + 1}"})
        if stage < len(stages) - 1:
            layers += [LN, conv(stages[stage + 1][0], 2, 2, bias=True)]
    return [224, 224, 3], layers + [GLOBAL_POOL, LN, FLATTEN, {"type": "dense", "units": 1000}]
