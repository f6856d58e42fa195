"""A diffusion pipeline's parts read together: the denoiser (``unet/`` or ``transformer/config.json``), its text
encoders (``text_encoder*/config.json``) and the VAE (``vae/config.json``; a video VAE at the denoiser's frames), at
one set of inputs — from a pipeline's folder as the Hub holds it (``model_index.json`` naming the parts) or from the
part files given one by one.

Each text encoder reads its share of the denoiser's conditioning: CLIP encoders their 77 positions; a T5 encoder
the rest (FLUX: all the denoiser's text tokens; SD3: those after CLIP's 77; PixArt: all); Kolors' ChatGLM3 all of
them (256).
"""
from __future__ import annotations

import re
from pathlib import Path

from ..errors import InputError, quoted
from .count import read_any
from .inputs import MediaInputs
from .model import ReadModel
from .video_vae import VIDEO_VAES

CLIP_TOKENS = 77
LONG_ENCODERS = ("t5", "umt5", "mt5", "chatglm")
"""Text encoders (``model_type``) that read the denoiser's text tokens beyond CLIP's 77."""
PART_LIMIT = 1_000_000
_PART_NAME = re.compile(r"[A-Za-z0-9_]{1,64}")
"""A part's name in ``model_index.json`` (``text_encoder_2``): its subfolder's name, never a path."""
"""Bytes of one part's config.json."""


def _t5_tokens(denoiser: ReadModel) -> int | None:
    text = denoiser.inputs.get("text_tokens")
    if text is None:
        return None
    return text - CLIP_TOKENS if denoiser.family == "sd3" else text


def read_parts(denoiser: dict, text_encoders: list[dict], vae: dict | None, inputs: MediaInputs,
               sources: tuple[str, list[str], str] = ("denoiser", [], "vae")) -> tuple[ReadModel, list[ReadModel],
                                                                                          ReadModel | None]:
    """The parts read at ``inputs`` (the text encoders at their share of the denoiser's conditioning)."""
    d = read_any(denoiser, inputs, sources[0])
    if d.family in ("vae", "clip_text", "llava") or "denoiser" not in {c.name for s in d.stages for c in s.components}:
        raise InputError(sources[0], f"{d.config_class} is not a denoiser (a U-Net or a diffusion transformer)")
    size = inputs.image_size
    encoders = []
    for i, data in enumerate(text_encoders):
        source = sources[1][i] if i < len(sources[1]) else f"text_encoder_{i + 1}"
        long = isinstance(data, dict) and data.get("model_type") in LONG_ENCODERS
        tokens = _t5_tokens(d) if long else CLIP_TOKENS
        encoder = read_any(data, MediaInputs(text_tokens=tokens), source)
        if encoder.family in ("vae", "llava") or "denoiser" in {c.name for s in encoder.stages for c in s.components}:
            raise InputError(source, f"{encoder.config_class} is not a text encoder (CLIP's or T5's text model, or "
                                     "a language model)")  # a U-Net was counted as one
        encoders.append(encoder)
    v = None
    if vae is not None:
        video = isinstance(vae, dict) and vae.get("_class_name") in VIDEO_VAES  # the video's frames, encoded whole
        frames = d.inputs.get("frames") if video else None
        v = read_any(vae, MediaInputs(image_size=size or _pixels(d), frames=frames), sources[2])
    return d, encoders, v


def _pixels(denoiser: ReadModel) -> tuple[int, int] | None:
    size = denoiser.inputs.get("image_size") or denoiser.inputs.get("video_size")
    if isinstance(size, str) and "x" in size:
        h, w = size.split(" ")[0].split("x")
        return int(h), int(w)
    return None


def read_folder(folder: str | Path, inputs: MediaInputs) -> tuple[ReadModel, list[ReadModel], ReadModel | None]:
    """A pipeline folder: ``model_index.json`` names the parts; each part's ``config.json`` in its subfolder."""
    from ..json_text import parse_json_text

    root = Path(folder)
    index_path = root / "model_index.json"
    if not index_path.is_file():
        raise InputError("pipeline", f"{quoted(str(folder), 80)} has no model_index.json (a diffusers pipeline "
                                     "folder, as downloaded from the Hub)")
    index = parse_json_text(_read(index_path, "pipeline.model_index"), "pipeline", PART_LIMIT)
    if not isinstance(index, dict):
        raise InputError("pipeline.model_index", "expected a JSON object")
    denoiser_name = next((n for n in ("transformer", "unet") if isinstance(index.get(n), list)), None)
    if denoiser_name is None:
        raise InputError("pipeline.model_index", "names no unet or transformer")
    encoders = sorted(n for n, v in index.items() if n.startswith("text_encoder") and isinstance(v, list)
                      and v and v[0] is not None)
    for name in encoders:
        if not _PART_NAME.fullmatch(name):
            raise InputError("pipeline.model_index", f"{quoted(name, 60)}: not a part's name (letters, digits and _: "
                                                      "a part is a subfolder of the pipeline's own)")

    def part(name: str) -> dict:
        path = root / name / "config.json"
        if not path.is_file():
            raise InputError(f"pipeline.{name}", f"{quoted(str(path), 80)} is missing")
        return parse_json_text(_read(path, f"pipeline.{name}"), f"pipeline.{name}", PART_LIMIT)

    vae = part("vae") if isinstance(index.get("vae"), list) else None
    return read_parts(part(denoiser_name), [part(n) for n in encoders], vae, inputs,
                      (f"pipeline.{denoiser_name}", [f"pipeline.{n}" for n in encoders], "pipeline.vae"))


def _read(path: Path, field: str) -> str:
    if path.stat().st_size > PART_LIMIT:
        raise InputError(field, f"{quoted(str(path), 80)} is larger than {PART_LIMIT:,} bytes")
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(field, f"{quoted(str(path), 80)} is not UTF-8 text (byte {exc.start + 1:,} is "
                                f"0x{data[exc.start]:02x}): save it as UTF-8") from None
