"""``flops FILE.json | --preset ID | --onnx MODEL.onnx [--dim NAME=SIZE …] | --config CONFIG.json [--image-size HxW]
[--frames F] [--audio-seconds S] [--text-tokens N] [--images N] [--convention]``: method 1's parameters and forward
FLOP per layer (an ONNX graph: one row per node that counts, ``engine.importers``; a model's config.json — text,
multimodal or diffusers — its parameters and one example's forward FLOP per component, ``engine.multimodal``)."""
from __future__ import annotations

import argparse

from engine.cli.files import read_text_file
from engine.cli.media_args import add_media_arguments, given_media_flags, media_from, naming_flags, read_config_file
from engine.errors import InputError, quoted
from engine.method1.conventions import CONVENTIONS
from engine.scenario import load_scenario_text


CONVENTION_HELP = """\
--convention: what counts as a floating-point operation
  matmul  (default) only the multiply-accumulates of matrix products and convolutions, each 2 FLOP
          (1 MAC = 2 FLOP, as hardware peaks count an FMA). This is what PyTorch's
          torch.utils.flop_counter.FlopCounterMode counts, and Epoch AI's per-layer table.
  full    matmul + bias adds, activations, gate products of recurrent cells, softmax and its scaling,
          normalisation and pooling. A few percent more for wide layers; much more for narrow ones.
  fvcore, ptflops and thop print MACs and call them "FLOPs": multiply their figure by 2 to compare.

examples:
  python -m engine flops model.json                      # matmul convention, a table on a terminal
  python -m engine flops model.json --convention full --format json
  python -m engine flops --preset resnet50               # a preset (ids: python -m engine presets)
  python -m engine flops --onnx model.onnx --dim batch=1 --dim sequence=128   # an exported graph
  python -m engine flops --onnx model.onnx --dim batch=1 --save model.json    # ... and its rows as a scenario
  python -m engine flops --config unet/config.json --image-size 768x768 --text-tokens 77 --format json
  python -m engine flops --config llava-1.5-7b/config.json --image-size 336x336 --text-tokens 100
"""

def _config(args):
    """``--config``: any config.json the engine reads, counted at the given inputs (each family's standard ones
    otherwise, printed in ``inputs``)."""
    from engine.multimodal.count import count_config

    inputs = media_from(args)
    config = read_config_file(args.config, "config")
    with naming_flags():
        return count_config(config, inputs, args.convention or "matmul", "config", args.lenient)


def parse_dims(words: list[str] | None) -> dict[str, int]:
    """``--dim NAME=SIZE`` words as {name: size}; one line naming the word that is wrong."""
    dims: dict[str, int] = {}
    for word in words or ():
        name, sep, value = word.rpartition("=")
        if not sep or not name:
            raise InputError("--dim", f"{quoted(word)}: write NAME=SIZE, e.g. --dim batch=1")
        value = value.strip()
        if not value.isdigit() or len(value) > 10 or int(value) < 1:
            raise InputError(f"--dim {name}", f"{quoted(value)} is not a whole number from 1 to 1,000,000,000")
        dims[name] = int(value)
    return dims


def _onnx(args):
    from engine.cli.files import counted_scenario, read_bytes_file
    from engine.importers.onnx_graph import MAX_ONNX_BYTES, count_onnx, read_onnx
    from engine.method1.blocks import MAX_LAYERS

    data = read_bytes_file(args.onnx, "--onnx", MAX_ONNX_BYTES)
    counted = count_onnx(read_onnx(data, "--onnx"), parse_dims(args.dim), source=args.onnx)
    scenario_data = counted.scenario_data(limit=MAX_LAYERS)  # a graph of more nodes: rows merged by name scope
    if len(scenario_data["layers"]) < len(counted.rows):
        kept = len(scenario_data["layers"])
        counted.notes.append(f"{len(counted.rows):,} counted nodes merged by name scope into {kept:,} "
                             f"row{'' if kept == 1 else 's'} (a scenario holds at most {MAX_LAYERS:,}); the totals "
                             "are unchanged")
    return counted_scenario(scenario_data, "--onnx", args.save), counted


def _flops(args):
    given = [x is not None for x in (args.file, args.preset, args.onnx, args.config)]
    if sum(given) != 1:
        raise InputError("arguments", "give a scenario FILE, --preset ID, --onnx MODEL.onnx or --config CONFIG.json "
                                      "(one of them)")
    if (args.dim or args.save) and args.onnx is None:
        raise InputError("arguments", "--dim and --save go with --onnx")
    media = given_media_flags(args)
    if args.config is None and (media or args.lenient):
        raise InputError("arguments", f"{(media or ['--lenient'])[0]} goes with --config")
    if args.config is not None:
        return _config(args)
    counted = None
    if args.onnx is not None:
        scenario, counted = _onnx(args)
    elif args.preset is not None:
        from engine.presets import preset, preset_ids  # only the preset asked for is built

        if args.preset not in preset_ids():
            raise InputError("preset", f"unknown id {quoted(args.preset)}; `python -m engine presets` lists them")
        scenario = preset(args.preset).scenario
    else:
        scenario = load_scenario_text(read_text_file(args.file), source=args.file)
    if args.convention:
        scenario = scenario.model_copy(update={"convention": args.convention})
    out = scenario.method1().as_dict()
    if counted is not None:
        out["onnx"] = counted.as_dict()
    return out


def register(sub) -> None:
    p = sub.add_parser("flops", help="method 1: parameters and FLOP of an architecture file or a preset",
                       description="Method 1: each layer's parameters, forward FLOP and MACs per example, and "
                                   "the training compute C = F × (1 + r) × examples × epochs.",
                       epilog=CONVENTION_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", nargs="?", default=None, help="scenario JSON (input, layers, training)")
    p.add_argument("--preset", default=None, help="a preset's id instead of a file (`python -m engine presets`)")
    p.add_argument("--convention", choices=CONVENTIONS, default=None,
                   help="matmul: multiply-accumulates × 2 only, as PyTorch's FlopCounterMode counts (default); "
                        "full: also bias adds, activations, softmax, norms, pooling")
    p.add_argument("--onnx", default=None, metavar="MODEL.onnx",
                   help="an exported ONNX graph instead of a file (its weights may stay in their external file)")
    p.add_argument("--dim", action="append", default=None, metavar="NAME=SIZE",
                   help="with --onnx: the size of a dynamic dimension of the graph's inputs, by its name "
                        "(e.g. --dim batch=1 --dim sequence=128); the command names any that are missing")
    p.add_argument("--save", default=None, metavar="FILE.json",
                   help="with --onnx: write the counted rows as a scenario file (the dashboard opens it)")
    p.add_argument("--config", default=None, metavar="CONFIG.json",
                   help="a model's config.json instead of a scenario: a language model, a vision-language or audio "
                        "model (transformers), or a diffusers model (unet/, transformer/, vae/config.json); prints "
                        "params, forward_flop (one example, batch 1), params_by_component, flop_by_component and the "
                        "inputs used")
    add_media_arguments(p)
    p.add_argument("--lenient", action="store_true",
                   help="with --config (a language model): keys transformers reads and the reader does not are "
                        "listed instead of refused")
    p.set_defaults(run=_flops)
