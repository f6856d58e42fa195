"""The inputs users know, as flags shared by ``flops --config``, ``diffusion`` and ``vlm``: ``--image-size HxW``,
``--images``, ``--frames``, ``--audio-seconds``, ``--text-tokens``; errors name the flag."""
from __future__ import annotations

from contextlib import contextmanager

from ..errors import InputError

MEDIA_FLAGS = {"image_size": "--image-size", "frames": "--frames", "audio_seconds": "--audio-seconds",
               "text_tokens": "--text-tokens", "images": "--images"}
"""Each input, and the flag it is given by."""


def add_media_arguments(p, what: str = "with --config") -> None:
    p.add_argument("--image-size", default=None, metavar="HxW", help=f"{what}: image height x width in pixels "
                                                                      "(default: the model's standard size)")
    p.add_argument("--frames", type=int, default=None, metavar="F", help=f"{what}: video frames")
    p.add_argument("--audio-seconds", type=float, default=None, metavar="S", help=f"{what}: seconds of audio")
    p.add_argument("--text-tokens", type=int, default=None, metavar="N",
                   help=f"{what}: the text the model attends to (a VLM: the prompt besides the image tokens; "
                        "a denoiser: its conditioning length, both text encoders together where it has two)")
    p.add_argument("--images", type=int, default=None, metavar="N", help=f"{what}: images per sample (a VLM)")


def given_media_flags(args) -> list[str]:
    return [flag for key, flag in MEDIA_FLAGS.items() if getattr(args, key, None) is not None]


@contextmanager
def naming_flags():
    """An input's error names its flag (``--image-size: …``) rather than the input's field."""
    try:
        yield
    except InputError as exc:
        field = exc.field.removeprefix("inputs.")
        if field in MEDIA_FLAGS:
            raise InputError(MEDIA_FLAGS[field], exc.reason) from None
        raise


def media_from(args):
    """``MediaInputs`` from the flags (the one validation path)."""
    from ..multimodal.inputs import media_inputs, parse_image_size

    size = parse_image_size(args.image_size, "--image-size") if args.image_size is not None else None
    with naming_flags():
        return media_inputs({"image_size": size, "frames": args.frames, "audio_seconds": args.audio_seconds,
                             "text_tokens": args.text_tokens, "images": args.images})


def read_config_file(path: str, field: str):
    """A config.json's decoded data, or one line naming the file."""
    from .files import naming_file, read_text_file
    from ..json_text import parse_json_text
    from ..llm.config import MAX_CONFIG_BYTES

    with naming_file(path, field):
        data = parse_json_text(read_text_file(path, field, MAX_CONFIG_BYTES), field, MAX_CONFIG_BYTES)
    if not isinstance(data, dict):  # a VAE file holding null was dropped without a word; an array blamed --image-size
        from ..errors import json_type

        raise InputError(field, f"expected a config.json (a JSON object {{ … }}), got {json_type(data)}")
    return data
