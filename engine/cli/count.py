"""``count FILE.py:FACTORY --input 1,3,224,224 [--input-dtype long] [--save FILE.json]``: a PyTorch module
counted per module on the meta device (``engine.importers.torch_count``), printed as ``flops`` prints a
scenario, and written as a scenario file whose rows are the counted modules (the dashboard opens it)."""
from __future__ import annotations

import argparse
import math

from ..errors import InputError, quoted

EPILOG = """\
The file is imported here, on this machine: its code runs as any script of yours would (the dashboard never
runs uploaded code; it opens the scenario file this command writes). Nothing is computed on real data: the
module is built and run on PyTorch's meta device, and torch.utils.flop_counter.FlopCounterMode counts the
forward pass and the backward pass of output.sum() with the module's own requires_grad flags.

examples:
  python -m engine count my_model.py:build --input 1,3,224,224 --save my_model.json
  python -m engine count lm.py:TinyLM --input 1,128 --input-dtype long
"""


def parse_shape(text: str) -> list[int]:
    """``1,3,224,224`` → [1, 3, 224, 224]; one line naming the flag otherwise."""
    from ..importers.torch_count import MAX_INPUT_DIMS

    parts = [p.strip() for p in text.replace("x", ",").replace("×", ",").split(",")]
    if not 1 <= len(parts) <= MAX_INPUT_DIMS or not all(p.isdigit() and len(p) <= 10 and int(p) >= 1 for p in parts):
        raise InputError("--input", f"{quoted(text)}: write the input's sizes, batch first, e.g. 1,3,224,224 "
                                    f"(1 to {MAX_INPUT_DIMS} whole numbers from 1 to 1,000,000,000)")
    shape = [int(p) for p in parts]
    if any(d > 10**9 for d in shape) or math.prod(shape) > 10**12:
        raise InputError("--input", f"{quoted(text)}: more than 10¹² values in one input")
    return shape


def _count(args):
    from .files import counted_scenario
    from ..importers.torch_count import count_module, load_factory

    shape = parse_shape(args.input)
    factory = load_factory(args.module)
    counted = count_module(factory, shape, args.input_dtype, source=args.module, device=args.device)
    scenario = counted_scenario(counted.scenario_data(), "count", args.save)
    out = scenario.method1().as_dict()
    out["count"] = counted.as_dict()
    return out


def register(sub) -> None:
    from ..importers.torch_count import DTYPES

    p = sub.add_parser("count", help="a PyTorch module from your code: per-module parameters and FLOP (needs torch)",
                       description="Count a PyTorch module per module with FlopCounterMode on the meta device, "
                                   "forward and backward, and write the rows as a scenario file.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("module", metavar="FILE.py:FACTORY",
                   help="a Python file and the function or class in it that returns the torch.nn.Module")
    p.add_argument("--input", required=True, metavar="SIZES",
                   help="the input tensor's sizes, batch first, comma-separated (e.g. 1,3,224,224 or 1,128)")
    p.add_argument("--input-dtype", choices=DTYPES, default="float",
                   help="the input's type: float (images, features; default) or long (token ids)")
    p.add_argument("--device", choices=("meta", "cpu"), default="meta",
                   help="meta (default): nothing allocated (transformers models too); cpu: for code that reads "
                        "tensor values, at the cost of allocating the weights")
    p.add_argument("--save", default=None, metavar="FILE.json",
                   help="write the counted rows as a scenario file (the dashboard's layer builder opens it)")
    p.set_defaults(run=_count)
