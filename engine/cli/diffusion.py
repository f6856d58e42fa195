"""``diffusion (--pipeline DIR | --denoiser FILE [--text-encoder FILE …] [--vae FILE]) [--image-size HxW]
[--frames F] [--text-tokens N] [--steps N] [--no-guidance] [--outputs N]``: a diffusion pipeline's sampling compute
(steps × 1 or 2 denoiser passes + text encoders + VAE decode) and its training step per sample
(``engine.multimodal.training``)."""
from __future__ import annotations

import argparse

from engine.cli.media_args import (
    add_media_arguments,
    media_from,
    naming_flags,
    read_config_file,
)
from engine.errors import InputError
from engine.method1.conventions import CONVENTIONS

EXAMPLES = """\
examples:
  python -m engine diffusion --pipeline stable-diffusion-v1-5/ --steps 50          # a folder as the Hub holds it
  python -m engine diffusion --denoiser transformer/config.json --text-encoder text_encoder/config.json \\
      --text-encoder text_encoder_2/config.json --vae vae/config.json --steps 28 --no-guidance --outputs 1e6
"""


def _diffusion(args):
    from engine.multimodal.pipeline import read_folder, read_parts
    from engine.multimodal.training import pipeline_compute

    if (args.pipeline is None) == (args.denoiser is None):
        raise InputError("arguments", "give --pipeline DIR or --denoiser CONFIG.json (one of them)")
    if args.pipeline is not None and (args.text_encoder or args.vae):
        raise InputError("arguments", "--text-encoder and --vae go with --denoiser (a --pipeline folder names its "
                                      "parts in model_index.json)")
    inputs = media_from(args)
    with naming_flags():
        if args.pipeline is not None:
            try:
                parts = read_folder(args.pipeline, inputs)
            except InputError as exc:
                raise InputError("--pipeline" + exc.field.removeprefix("pipeline"), exc.reason) from None
        else:
            encoders = args.text_encoder or []
            parts = read_parts(read_config_file(args.denoiser, "--denoiser"),
                               [read_config_file(f, "--text-encoder") for f in encoders],
                               read_config_file(args.vae, "--vae") if args.vae else None, inputs,
                               ("--denoiser", ["--text-encoder"] * len(encoders), "--vae"))
    sampling = {"steps": args.steps, "guidance": not args.no_guidance, "outputs": args.outputs}
    try:
        return pipeline_compute(*parts, sampling, args.convention)
    except InputError as exc:
        flag = {"sampling.steps": "--steps", "sampling.outputs": "--outputs"}.get(exc.field)
        if flag is None:
            raise
        raise InputError(flag, exc.reason) from None


def register(sub) -> None:
    p = sub.add_parser("diffusion", help="a diffusion pipeline's sampling and training compute from its configs",
                       description="A diffusion pipeline's compute: sampling = steps × (2 with classifier-free "
                                   "guidance, else 1) × the denoiser's forward + the text encoders' + the VAE "
                                   "decode; the training step per sample = the denoiser's forward and backward + the "
                                   "frozen text encoders + the VAE encoder (or with latents and embeddings cached).",
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pipeline", default=None, metavar="DIR",
                   help="a pipeline folder as the Hub holds it (model_index.json and each part's config.json)")
    p.add_argument("--denoiser", default=None, metavar="CONFIG.json", help="unet/ or transformer/config.json")
    p.add_argument("--text-encoder", action="append", default=None, metavar="CONFIG.json",
                   help="a text encoder's config.json (repeat for two or three, in the pipeline's order)")
    p.add_argument("--vae", default=None, metavar="CONFIG.json", help="vae/config.json")
    add_media_arguments(p, "the image")
    p.add_argument("--steps", type=int, default=50, help="denoising steps per output (default 50)")
    p.add_argument("--no-guidance", action="store_true",
                   help="one denoiser pass a step (guidance-distilled models such as FLUX.1-dev and -schnell); "
                        "default: classifier-free guidance, two passes and the negative prompt encoded")
    p.add_argument("--outputs", type=float, default=1, help="images or videos generated (default 1)")
    p.add_argument("--convention", choices=CONVENTIONS, default="matmul")
    p.set_defaults(run=_diffusion)
