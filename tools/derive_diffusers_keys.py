"""The keys each diffusers model class reads from its ``config.json``, with the defaults it fills in — derived
from the installed diffusers, not guessed: ``python -m tools.derive_diffusers_keys`` writes
``engine/multimodal/diffusers_keys.json``: for every class the readers in ``engine/multimodal/`` count, the
parameters of its ``__init__`` (what ``from_config`` passes it) and their declared defaults (a file written by an
older diffusers lacks the keys added since; diffusers fills them from these defaults, and so does the reader).
``tests/multimodal/test_diffusers_keys.py`` fails when the installed version differs or the file is stale.
"""
from __future__ import annotations

import inspect
import json
from pathlib import Path

OUTPUT = Path(__file__).resolve().parent.parent / "engine" / "multimodal" / "diffusers_keys.json"

CLASSES = ("UNet2DConditionModel", "UNet3DConditionModel", "AutoencoderKL", "AutoencoderKLCogVideoX",
           "AutoencoderKLWan", "PixArtTransformer2DModel", "DiTTransformer2DModel", "Transformer2DModel",
           "SD3Transformer2DModel", "FluxTransformer2DModel", "HunyuanDiT2DModel", "CogVideoXTransformer3DModel",
           "WanTransformer3DModel")
"""The diffusers classes the readers count (``engine.multimodal.registry``)."""

_MISSING = "__required__"


def _default(value):
    if value is inspect.Parameter.empty:
        return _MISSING
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return repr(value)


def derive() -> dict:
    import diffusers

    classes = {}
    for name in CLASSES:
        cls = getattr(diffusers, name)
        params = inspect.signature(cls.__init__).parameters
        classes[name] = {k: _default(p.default) for k, p in params.items()
                         if k != "self" and p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)}
    return {"diffusers": diffusers.__version__, "required": _MISSING, "classes": classes}


def main() -> None:
    OUTPUT.write_text(json.dumps(derive(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUTPUT}")


if __name__ == "__main__":
    main()
