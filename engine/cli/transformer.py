"""``transformer (CONFIG.json | --config CONFIG.json | --model ID) [--tokens D] [--seq-len T] [...]``:
a language model's training FLOP, by the detailed count and by the published formulas. ``--model`` picks a
config from the shipped library (``--list-models`` prints them), whose published training tokens are
the default D."""
from __future__ import annotations

import math
import re


from .files import naming_file, one_of, read_text_file
from ..method1.conventions import CONVENTIONS
from ..errors import InputError, parse_input, quoted
from ..llm.config import MAX_CONFIG_BYTES, load_hf_config_text, read_hf_config
from ..llm.library import library_model, library_models
from ..llm.estimate import TransformerRun, estimate_transformer

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
    if args.list_models:
        return {"models": [{"id": m.id, "name": m.name, "family": m.family, "source": m.source,
                            "training_tokens": m.training_tokens} for m in library_models()]}
    args.config = one_of(args.file, args.config, "config", None)
    if (args.config is None) == (args.model is None):
        raise InputError("arguments", "give exactly one of a config FILE (or --config FILE) or --model ID (see "
                                      "--list-models)")
    tokens = None
    if args.model is not None:
        model = library_model(args.model)
        config = read_hf_config(model.config, source=f"model {model.id}")
        tokens = model.training_tokens
    else:
        with naming_file(args.config, "config"):
            config = load_hf_config_text(read_text_file(args.config, "config", MAX_CONFIG_BYTES),
                                         lenient=args.lenient)
    if args.tokens is not None:
        tokens = parse_count(args.tokens, "tokens")
    if tokens is None:
        raise InputError("tokens", "give --tokens (this library model has no published token count)" if args.model
                         else "give --tokens, the training tokens D (300e9, 300B, 1.4T)")
    fields = {"tokens": tokens, "seq_len": args.seq_len, "decoder_seq_len": args.decoder_seq_len,
              "convention": args.convention, "causal_count": args.causal_count, "backward": args.backward,
              "trainable_last": args.trainable_last, "lora_rank": args.lora_rank}
    if args.lora_targets is not None:
        if args.lora_rank is None:
            raise InputError("lora-targets", "give --lora-rank with --lora-targets")
        from ..method1.backward import lora_target_list

        fields["lora_targets"] = lora_target_list(args.lora_targets)
    try:
        run = parse_input(TransformerRun, fields)
        run.fine_tune  # one of --trainable-last and --lora-rank
        out = estimate_transformer(config, run).as_dict(layers=args.layers)
    except InputError as exc:  # the fine-tune's targets by the run's field, as the run's other errors
        if exc.field != "targets":
            raise
        raise InputError("lora_targets", exc.reason) from None
    if args.model is not None:
        out |= {"model": model.id, "config_source": model.source,
                "training_tokens_source": model.training_tokens_source if args.tokens is None else None}
    return out


def register(sub) -> None:
    p = sub.add_parser("transformer", help="a language model's training FLOP from its Hugging Face config.json")
    p.add_argument("file", nargs="?", default=None, metavar="FILE", help="a Hugging Face config.json (as --config)")
    p.add_argument("--config", default=None, help="a Hugging Face config.json of a supported model_type (docs/llm.md "
                                                  "lists them: decoders, encoders, encoder-decoders, state-space and "
                                                  "hybrid models); any other is refused by name")
    p.add_argument("--model", default=None, help="a model of the shipped library by id (e.g. llama-3.1-8b)")
    p.add_argument("--list-models", action="store_true", help="print the library's models and exit")
    p.add_argument("--tokens", default=None, help="training tokens D: 300e9, 300B, 1.4T (default with --model: "
                                                  "the published count, where there is one)")
    p.add_argument("--seq-len", type=int, default=None, help="training sequence length T (default: the "
                                                             "config's context length); the encoder's for T5/BART")
    p.add_argument("--decoder-seq-len", type=int, default=None,
                   help="encoder-decoder models (T5, BART): decoder tokens per sequence (default: --seq-len)")
    p.add_argument("--lenient", action="store_true",
                   help="count a config with keys transformers reads and this reader does not, listing them "
                        "in ignored_keys ('left out' on a terminal; by default such a key is an error). Keys "
                        "nothing in transformers reads are always accepted and listed in unused_keys")
    p.add_argument("--convention", choices=CONVENTIONS, default="matmul")
    p.add_argument("--causal-count", choices=("full", "half"), default=None,
                   help="attention scores: full L² (default, as FlopCounterMode) or only the unmasked "
                        "ones (the causal half, or fewer with a sliding window)")
    p.add_argument("--layers", action="store_true", help="include every layer's rows")
    p.add_argument("--backward", choices=("ratio", "exact"), default="ratio",
                   help="backward pass: ratio (2 x forward) or exact (counted layer by layer; used whenever "
                        "weights are frozen)")
    p.add_argument("--trainable-last", type=int, default=None, metavar="N",
                   help="fine-tune the last N blocks plus the final norm and head (embeddings frozen)")
    p.add_argument("--lora-rank", type=int, default=None, metavar="R",
                   help="fine-tune LoRA adapters of rank R (every other weight frozen)")
    p.add_argument("--lora-targets", default=None, metavar="q,v,...",
                   help="the projections LoRA adapts: q, k, v, qkv (one adapter on the fused q/k/v projection, as "
                        "PEFT's c_attn on GPT-2), o, gate, up, gate_up (one adapter on the fused gate and up "
                        "projections, as PEFT's gate_up_proj on Phi-3), down, experts (default q,v)")
    p.set_defaults(run=_transformer)
