"""``vlm --config CONFIG.json [--recipe full|frozen_vision|projector|lora] [--lora-rank R] [--lora-targets q,v]
[--image-size HxW] [--images N] [--frames F] [--text-tokens N] [--examples N]``: a vision-language model's training
step per example (vision tower + projector + language model over image and text tokens), each tower frozen or trained,
with the exact backward (``engine.multimodal.training``)."""
from __future__ import annotations

import argparse
import math

from .media_args import (
    add_media_arguments,
    media_from,
    naming_flags,
    read_config_file,
)
from ..errors import InputError, parse_input
from ..method1.conventions import CONVENTIONS

EXAMPLES = """\
examples:
  python -m engine vlm --config llava-1.5-7b/config.json --recipe frozen_vision --text-tokens 200
  python -m engine vlm --config Qwen2.5-VL-7B-Instruct/config.json --recipe lora --lora-rank 16 \\
      --image-size 448x448 --text-tokens 300 --examples 1e6
"""


def _vlm(args):
    from ..multimodal.count import read_any
    from ..multimodal.training import VlmRecipe, vlm_training_step

    given = {"recipe": args.recipe, "lora_rank": args.lora_rank}
    if args.lora_targets is not None:
        from ..method1.backward import lora_target_list

        given["lora_targets"] = lora_target_list(args.lora_targets)
    try:
        recipe = parse_input(VlmRecipe, given, source="recipe")
    except InputError as exc:
        flag = {"recipe.recipe": "--recipe", "recipe.lora_rank": "--lora-rank",
                "recipe.lora_targets": "--lora-targets", "lora_rank": "--lora-rank"}.get(exc.field, exc.field)
        raise InputError(flag, exc.reason) from None
    if args.examples is not None and not (math.isfinite(args.examples) and 1 <= args.examples <= 1e15):
        raise InputError("--examples", "must be a number from 1 to 1e15")
    inputs = media_from(args)
    with naming_flags():
        step = vlm_training_step(read_any(read_config_file(args.config, "config"), inputs, "config"), recipe,
                                 args.convention)
    out = step.as_dict()
    if args.examples is not None:
        out |= {"examples": args.examples, "total_training_flop": step.training_flop * args.examples}
    return out


def register(sub) -> None:
    p = sub.add_parser("vlm", help="a vision-language model's training step: towers frozen or trained, LoRA",
                       description="A vision-language model's training step per example: the vision tower, the "
                                   "projector and the language model over image and text tokens, forward and the "
                                   "exact backward (frozen layers compute no weight gradients; input gradients "
                                   "only where something before them trains).",
                       epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--config", required=True, metavar="CONFIG.json", help="the model's config.json")
    p.add_argument("--recipe", default="frozen_vision",
                   help="full (every weight), frozen_vision (projector + language model; default), projector "
                        "(projector only), lora (adapters on the language model, the projector trained)")
    p.add_argument("--lora-rank", type=int, default=None, metavar="R", help="with --recipe lora: the adapters' rank")
    p.add_argument("--lora-targets", default=None, metavar="q,v",
                   help="with --recipe lora: the language model's projections given adapters (q, k, v, qkv, o, "
                        "gate, up, gate_up, down, experts: as transformer --lora-targets; default q,v)")
    add_media_arguments(p, "the example")
    p.add_argument("--examples", type=float, default=None, help="training examples: the total compute too")
    p.add_argument("--convention", choices=CONVENTIONS, default="matmul")
    p.set_defaults(run=_vlm)
