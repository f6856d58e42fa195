"""``serve (--config FILE | --model ID) --chip NAME --prompt-tokens P --output-tokens O [--batch B] [--chips N]
[--precision bf16|fp16|fp8|fp4] [--weights int8|int4] [--kv-precision bf16|fp8|fp4]``: serving a language model —
the KV cache per token and per sequence, prefill and decode FLOP, time to first token, time per output token, output
tokens per second (all chips together), the batch (without --batch: the one with the most output tokens per second
within memory) and the sequences that fit (docs/serving.md)."""
from __future__ import annotations

from ..errors import InputError, parse_input

_INTS = ("prompt_tokens", "output_tokens", "batch", "chips", "max_batch", "spec_draft_tokens")
_FLOATS = ("spec_acceptance", "spec_draft_cost", "price_per_chip_hour", "requests_per_s", "compute_efficiency",
           "memory_efficiency", "tokens_served")


def _value(text: str | None, kind):
    """'8' → 8 (an int field), '0.5' → 0.5; anything else passed on as given, for the model to name the field."""
    if text is None:
        return None
    try:
        return kind(text.strip().replace("_", ""))
    except ValueError:
        return text


def load_config(args):
    """(TransformerConfig, library model or None, the decoded config.json) from --config or --model."""
    from .files import naming_file, read_text_file
    from ..json_text import parse_json_text
    from ..llm.config import MAX_CONFIG_BYTES, read_hf_config
    from ..llm.library import library_model

    if (args.config is None) == (args.model is None):
        raise InputError("arguments", "give exactly one of --config FILE or --model ID (see `transformer "
                                      "--list-models`)")
    if args.model is not None:
        model = library_model(args.model)
        return read_hf_config(model.config, source=f"model {model.id}"), model, model.config
    with naming_file(args.config, "config"):
        raw = parse_json_text(read_text_file(args.config, "config", MAX_CONFIG_BYTES), "config", MAX_CONFIG_BYTES)
        return read_hf_config(raw, lenient=args.lenient), None, raw


def _serve(args):
    from ..serve.model_facts import model_facts
    from ..serve.plan import ServeInputs, serve

    config, model, raw = load_config(args)
    fields = {name: _value(getattr(args, name), int) for name in _INTS}
    fields |= {name: _value(getattr(args, name), float) for name in _FLOATS}
    data = {"chip": args.chip, "precision": args.precision, "weights": args.weights,
            "kv_precision": args.kv_precision, "engine": args.engine,
            **{k: fields[k] for k in ("prompt_tokens", "output_tokens", "batch", "max_batch", "price_per_chip_hour",
                                      "requests_per_s", "compute_efficiency", "memory_efficiency")}}
    data["chips"] = fields["chips"] if fields["chips"] is not None else 1
    if fields["spec_acceptance"] is not None:
        spec = {"acceptance_length": fields["spec_acceptance"]}
        if fields["spec_draft_tokens"] is not None:
            spec["draft_tokens"] = fields["spec_draft_tokens"]
        if fields["spec_draft_cost"] is not None:
            spec["draft_cost"] = fields["spec_draft_cost"]
        data["speculative"] = spec
    elif fields["spec_draft_tokens"] is not None or fields["spec_draft_cost"] is not None:
        raise InputError("spec-acceptance", "give the acceptance length with the draft settings")
    inputs = parse_input(ServeInputs, {k: v for k, v in data.items() if v is not None})
    out = serve(model_facts(config, raw if isinstance(raw, dict) else None), inputs).as_dict()
    if not args.layers:
        out["cache"] = {k: v for k, v in out["cache"].items() if k != "layers"}
    if fields["tokens_served"] is not None:
        out["lifetime"] = _lifetime(config, model, out, fields["tokens_served"])
    if model is not None:
        out |= {"model_id": model.id, "config_source": model.source}
    return out


def _lifetime(config, model, out: dict, tokens_served) -> dict:
    """Training (the library's published tokens, 6·N·D counted from the architecture) + serving this many output
    tokens at this plan's FLOP per output token (prefill shared over the outputs, decode at its contexts)."""
    from ..llm.estimate import TransformerRun, estimate_transformer
    from ..plan.lifetime import lifetime_compute

    if model is None or model.training_tokens is None:
        raise InputError("tokens-served", "the lifetime needs the model's training tokens: use --model with a "
                                          "library model that publishes them")
    run = parse_input(TransformerRun, {"tokens": model.training_tokens})
    training = estimate_transformer(config, run).training.training_flop
    per_token = out["decode_flop_per_token"] + out["prefill_flop"] / max(out["output_tokens"], 1)
    return lifetime_compute(training, tokens_served, 0, inference_flop_per_token=per_token).as_dict()


def register(sub) -> None:
    from ..serve.engines import engine_ids

    p = sub.add_parser("serve", help="serving a language model: KV cache, prefill/decode FLOP, TTFT, TPOT, tokens/s")
    p.add_argument("--config", default=None, help="a Hugging Face config.json (docs/llm.md lists the families)")
    p.add_argument("--model", default=None, help="a model of the shipped library by id (e.g. llama-3.1-8b)")
    p.add_argument("--lenient", action="store_true", help="list config keys the reader leaves out instead of "
                                                          "refusing them")
    p.add_argument("--chip", required=True, help="a chip of the hardware database (`chips` lists them)")
    p.add_argument("--prompt-tokens", required=True, dest="prompt_tokens", metavar="P")
    p.add_argument("--output-tokens", required=True, dest="output_tokens", metavar="O",
                   help="tokens generated per sequence (0: the prefill alone)")
    p.add_argument("--batch", default=None, metavar="B", help="sequences served together (default: the batch with "
                                                              "the most output tokens/s that fits in memory)")
    p.add_argument("--chips", default=None, metavar="N", help="chips holding one copy, tensor parallel (default 1)")
    p.add_argument("--precision", choices=("bf16", "fp16", "fp8", "fp4"), default="bf16",
                   help="format of the matrix products (fp8/fp4: weights and activations)")
    p.add_argument("--weights", choices=("int8", "int4"), default=None,
                   help="weight-only quantization on top of --precision")
    p.add_argument("--kv-precision", choices=("bf16", "fp16", "fp8", "fp4"), default=None, dest="kv_precision",
                   help="format of the KV cache (default: fp8 with --precision fp8/fp4, else the precision)")
    p.add_argument("--engine", choices=engine_ids(), default="tensorrt-llm",
                   help="whose measured efficiencies and settings (default tensorrt-llm)")
    p.add_argument("--max-batch", default=None, dest="max_batch", help="the largest batch the engine takes")
    p.add_argument("--spec-acceptance", default=None, dest="spec_acceptance", metavar="TAU",
                   help="speculative decoding: tokens kept per target step (acceptance length)")
    p.add_argument("--spec-draft-tokens", default=None, dest="spec_draft_tokens", metavar="GAMMA")
    p.add_argument("--spec-draft-cost", default=None, dest="spec_draft_cost", metavar="R",
                   help="a draft step's time relative to a target decode step (default 0.05)")
    p.add_argument("--price-per-chip-hour", default=None, dest="price_per_chip_hour",
                   help="USD per chip-hour (default: the database's indicative price, where it has one)")
    p.add_argument("--requests-per-s", default=None, dest="requests_per_s",
                   help="traffic: the fleet of copies it needs")
    p.add_argument("--compute-efficiency", default=None, dest="compute_efficiency",
                   help="override the engine's fitted fraction of the dense peak")
    p.add_argument("--memory-efficiency", default=None, dest="memory_efficiency",
                   help="override the engine's fitted fraction of the memory bandwidth")
    p.add_argument("--tokens-served", default=None, dest="tokens_served",
                   help="lifetime compute: training (published tokens) + serving this many output tokens")
    p.add_argument("--layers", action="store_true", help="include the cache of every layer")
    p.set_defaults(run=_serve)
