"""Method-1 tests. ``evaluated`` validates an architecture as a scenario file would and evaluates it."""
from __future__ import annotations

from engine.method1.architecture import Architecture, ArchitectureResult, evaluate


def evaluated(input_shape, layers: list[dict], steps=None, convention: str = "matmul") -> ArchitectureResult:
    """Validate ``{"input": …, "layers": …}`` and evaluate it under ``convention``."""
    arch = Architecture.model_validate({"input": {"shape": input_shape, "sequence_length": steps},
                                        "layers": layers})
    return evaluate(arch, convention)
