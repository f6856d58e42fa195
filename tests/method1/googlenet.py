"""GoogLeNet (Szegedy et al. 2015; torchvision's, no auxiliary heads) as a layer list: not a preset, a net the
kinds must count exactly (pools that round up, ``ceil_mode``) against its torch.nn twin
(tests/method1/torch_nets.py)."""
from __future__ import annotations

from engine.method1.vision_nets import BN, RELU, conv, head


def _bc(filters, k, s=1, p=0) -> list[dict]:
    """torchvision's ``BasicConv2d``: convolution without bias, batch norm, ReLU."""
    return [conv(filters, k, s, p), BN, RELU]


def _cat(*branches, name="") -> dict:
    return {"type": "branches", "branches": list(branches), "name": name}


def _inception_v1(c1, c3r, c3, c5r, c5, pool, name) -> dict:
    """Four branches concatenated; torchvision's "5×5" branch is a 3×3 convolution (its issue 906)."""
    pool3 = {"type": "max_pool2d", "kernel_size": 3, "stride": 1, "padding": 1, "ceil_mode": True}
    return _cat(_bc(c1, 1), _bc(c3r, 1) + _bc(c3, 3, p=1), _bc(c5r, 1) + _bc(c5, 3, p=1), [pool3] + _bc(pool, 1),
                name=name)


def googlenet() -> tuple[list[int], list[dict]]:
    """Pools that round up (``ceil_mode``): 112 → 56 → 28 → 14 → 7, no padding needed."""
    def pool(k):
        return {"type": "max_pool2d", "kernel_size": k, "stride": 2, "ceil_mode": True}

    layers = _bc(64, 7, 2, 3) + [pool(3)] + _bc(64, 1) + _bc(192, 3, p=1) + [pool(3)]
    layers += [_inception_v1(64, 96, 128, 16, 32, 32, "inception3a"),
               _inception_v1(128, 128, 192, 32, 96, 64, "inception3b"), pool(3),
               _inception_v1(192, 96, 208, 16, 48, 64, "inception4a"),
               _inception_v1(160, 112, 224, 24, 64, 64, "inception4b"),
               _inception_v1(128, 128, 256, 24, 64, 64, "inception4c"),
               _inception_v1(112, 144, 288, 32, 64, 64, "inception4d"),
               _inception_v1(256, 160, 320, 32, 128, 128, "inception4e"), pool(2),
               _inception_v1(256, 160, 320, 32, 128, 128, "inception5a"),
               _inception_v1(384, 192, 384, 48, 128, 128, "inception5b")]
    return [224, 224, 3], layers + head(dropout=0.2)
