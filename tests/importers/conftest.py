"""The exported test models (``onnx_models.py``), once per session."""
from __future__ import annotations

import pytest

from tests.importers import onnx_models


@pytest.fixture(scope="session")
def exported(torch, tmp_path_factory):
    """name → ``Exported``, each model exported once per session."""
    folder = tmp_path_factory.mktemp("onnx")
    cache: dict = {}

    def get(name: str):
        if name not in cache:
            built = onnx_models.MODELS[name](torch)
            if built is None:
                pytest.skip(f"{name}: its torch.nn twin is not in tests/method1/torch_nets.py")
            module, args, names, axes = built
            path = folder / f"{name}.onnx"
            seconds, params, flop = onnx_models.export(torch, module, args, names, axes, path,
                                                      meta=name not in onnx_models.CPU_REFERENCE)
            cache[name] = onnx_models.Exported(name, path, onnx_models.DIMS[names[0]], params, flop, seconds)
        return cache[name]

    return get
