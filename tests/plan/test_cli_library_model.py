"""`memory --model` takes a model of the shipped library, as `transformer --model` does."""
from __future__ import annotations

import json

from tests.cli import cli


def test_memory_of_a_library_model():
    out = cli("memory", "--model", "llama-3.1-8b", "--optimizer", "adam", "--precision", "bf16", "--zero", "0",
              "--dp", "1", "--tp", "1", "--pp", "1", "--micro-batch", "1", "--seq-len", "2048", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    n = 8_030_261_248  # Llama 3.1 8B's published parameter count (Meta's model card)
    assert data["params"] == n
    assert data["model_states_bytes_per_chip"] == 16 * n  # mixed-precision Adam: 2 + 2 + 12 bytes per parameter
