"""``plain_copy`` against ``copy.deepcopy``: equal values, no container shared with the original."""
from __future__ import annotations

import copy
import random
from collections import OrderedDict

from engine.plain_copy import plain_copy


def _plain(rng: random.Random, depth: int = 0):
    roll = rng.random()
    if depth > 4 or roll < 0.45:
        return rng.choice([0, -3, 2.5, float("inf"), "conv2d", "", None, True, False, 10**40])
    if roll < 0.7:
        return [_plain(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    if roll < 0.8:
        return tuple(_plain(rng, depth + 1) for _ in range(rng.randint(0, 3)))
    return {rng.choice(["type", "units", "body", "layers", "lora", "x"]): _plain(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


def _containers(value) -> list:
    out = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (dict, list, tuple)):
            out.append(item)
            stack.extend(item.values() if isinstance(item, dict) else item)
    return out


def test_equal_to_deepcopy_and_shares_no_container():
    rng = random.Random(7)
    for _ in range(3000):
        value = _plain(rng)
        copied = plain_copy(value)
        assert copied == copy.deepcopy(value) and type(copied) is type(value)
        originals = {id(c) for c in _containers(value) if not (isinstance(c, tuple) and not c)}
        assert not originals & {id(c) for c in _containers(copied) if isinstance(c, (dict, list))}


def test_other_objects_go_through_deepcopy():
    inner = OrderedDict(a=[1, 2])
    value = {"layers": [inner]}
    copied = plain_copy(value)
    assert copied == value and type(copied["layers"][0]) is OrderedDict
    assert copied["layers"][0] is not inner and copied["layers"][0]["a"] is not inner["a"]
