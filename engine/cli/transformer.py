"""``transformer --config CONFIG.json --tokens D [--seq-len T]``: a language model's training FLOP,
by the detailed count and by the published formulas."""
from __future__ import annotations

import math
import re


from engine.cli.files import read_text_file
from engine.method1.conventions import CONVENTIONS
from engine.errors import InputError, parse_input, quoted
from engine.llm.config import MAX_CONFIG_BYTES, load_hf_config_text
from engine.llm.estimate import TransformerRun, estimate_transformer

_SUFFIXES = {"": 1, "k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12, "p": 1e15}
_COUNT = re.compile(r"\s*([0-9][0-9_,]*\.?[0-9]*(?:e[+-]?[0-9]+)?)\s*([kmbgtp]?)\s*", re.IGNORECASE)


def parse_count(text: str, field: str) -> float:
    """'300e9', '300B', '1.4T', '15,600,000,000,000' → a number (k, M, B/G, T, P suffixes)."""
    match = _COUNT.fullmatch(text)
    if not match:
        raise InputError(field, f"{quoted(text)} is not a count (e.g. 300e9, 300B, 1.4T)")
    value = float(match.group(1).replace(",", "").replace("_", "")) * _SUFFIXES[match.group(2).lower()]
    if not math.isfinite(value):
        raise InputError(field, f"{quoted(text)} is too large")
    return value


def _transformer(args):
    config = load_hf_config_text(read_text_file(args.config, "config", MAX_CONFIG_BYTES))
    run = parse_input(TransformerRun, {"tokens": parse_count(args.tokens, "tokens"), "seq_len": args.seq_len,
                                       "convention": args.convention, "causal_count": args.causal_count})
    return estimate_transformer(config, run).as_dict(layers=args.layers)


def register(sub) -> None:
    p = sub.add_parser("transformer", help="a language model's training FLOP from its Hugging Face config.json")
    p.add_argument("--config", required=True, help="config.json (GPT-2/GPT-J/GPT-NeoX/OPT/LLaMA/Mistral/"
                                                   "Mixtral/Qwen2 keys)")
    p.add_argument("--tokens", required=True, help="training tokens D: 300e9, 300B, 1.4T")
    p.add_argument("--seq-len", type=int, default=None, help="training sequence length T (default: the "
                                                             "config's context length)")
    p.add_argument("--convention", choices=CONVENTIONS, default="matmul")
    p.add_argument("--causal-count", choices=("full", "half"), default=None,
                   help="attention scores: full L² (default, as FlopCounterMode) or only the unmasked "
                        "ones (the causal half, or fewer with a sliding window)")
    p.add_argument("--layers", action="store_true", help="include every layer's rows")
    p.set_defaults(run=_transformer)
