"""Method-1 tests. ``evaluated`` validates an architecture as a scenario file would and evaluates it."""
from __future__ import annotations

from engine.method1.architecture import Architecture, ArchitectureResult, evaluate


def evaluated(input_shape, layers: list[dict], steps=None, convention: str = "matmul") -> ArchitectureResult:
    """Validate ``{"input": …, "layers": …}`` and evaluate it under ``convention``."""
    arch = Architecture.model_validate({"input": {"shape": input_shape, "sequence_length": steps},
                                        "layers": layers})
    return evaluate(arch, convention)


def flat_block(fields: dict | None = None, **more) -> dict:
    """A transformer block (JSON) written by the first shape's field names (``heads``, ``kv_heads``, ``gated``…),
    in parts: the migration of links and files of version 1 (``engine.method1.transformer.migration``)."""
    from engine.method1.transformer.migration import block_from_flat

    return block_from_flat({"type": "transformer_block", **(fields or {}), **more})
