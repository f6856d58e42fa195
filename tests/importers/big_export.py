"""A file users have: a conv net of 12.8 million parameters exported with today's default
``torch.onnx.export`` (the dynamo exporter since PyTorch 2.9), its weights inside — 51 MB, the size of
ResNet-18's export (46.7 MB). No torchvision here: the net is built from ``torch.nn`` (VGG-like: 3×3
convolutions with biases, ReLU, max pooling, global average pooling, a linear head), randomly initialised.

``conv_net(torch)`` → (module, example input, Σ numel); ``export(torch, path)`` writes the file once (about
20 s of CPU) and returns its reference figures; the browser test and ``bench/bench_upload_rss.py`` use it.
"""
from __future__ import annotations

import warnings
from pathlib import Path

CHANNELS = (3, 64, 128, 256, 512, 512, 512, 512, 512, 320)
"""Each step a 3×3 convolution (padding 1, bias) and ReLU; 2×2 max pooling after the first four."""
LARGEST = (3, 64, 128, 256, 512, 512, 512, 512, 512, 512, 512, 512, 512, 512, 800)
"""27.3M parameters: a 109 MB file, just under the dashboard's ONNX upload cap of 110 MB: the largest accepted upload
(bench/bench_upload_rss.py)."""
POOLED = 4
CLASSES = 1000
SIDE = 64
"""The example input: 1 × 3 × 64 × 64."""


def conv_params() -> int:
    """Σ numel by the formula: D·K²·C + D per convolution, N·M + M for the head."""
    convs = sum(d * 9 * c + d for c, d in zip(CHANNELS, CHANNELS[1:]))
    return convs + CHANNELS[-1] * CLASSES + CLASSES


def conv_forward_macs() -> int:
    """MACs of one 64×64 image: H′·W′·D·K²·C per convolution (the side halves after each of the first four pools
    — each convolution runs at the side before its own pool), N·M for the head."""
    macs, side = 0, SIDE
    for i, (c, d) in enumerate(zip(CHANNELS, CHANNELS[1:])):
        macs += side * side * d * 9 * c
        if i < POOLED:
            side //= 2
    return macs + CHANNELS[-1] * CLASSES


def conv_net(torch, channels: tuple[int, ...] = CHANNELS):
    nn = torch.nn
    layers = []
    for i, (c, d) in enumerate(zip(channels, channels[1:])):
        layers += [nn.Conv2d(c, d, 3, padding=1), nn.ReLU()]
        if i < POOLED:
            layers.append(nn.MaxPool2d(2))
    module = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(channels[-1], CLASSES)).eval()
    return module, torch.zeros(1, 3, SIDE, SIDE), sum(p.numel() for p in module.parameters())


def export(torch, path: Path, channels: tuple[int, ...] = CHANNELS) -> int:
    """The net exported with ``torch.onnx.export``'s defaults (dynamo) to ``path``; its Σ numel."""
    torch.manual_seed(0)
    module, example, params = conv_net(torch, channels)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(module, (example,), dynamo=True, verbose=False)
    program.save(str(path))
    return params
