"""``compress (SCENARIO.json | --config FILE | --model ID) --technique prune|unstructured|two_four|qat|ptq|
low_precision|distill …``: compression in method 1, before and after — structured pruning (--target channels|heads|
ffn|blocks, --fraction f or --per-layer PATH=f,…), unstructured and 2:4 sparsity, QAT, PTQ, training in FP8/MXFP8/
NVFP4, and distillation (--teacher, --student) — each with the measured speed-up and its source
(docs/compression.md)."""
from __future__ import annotations

from ..errors import InputError, parse_input


def _count(text, field):
    if text is None:
        return None
    from .transformer import parse_count

    return parse_count(text, field)


def _library(ref: str):
    """A model of the shipped library by id → (TransformerConfig, the library entry); an unknown id is refused."""
    from ..llm.config import read_hf_config
    from ..llm.library import library_model

    model = library_model(ref)
    return read_hf_config(model.config, source=f"model {model.id}"), model


def _config(ref: str, field: str):
    """A library id or a config.json path → (TransformerConfig, the library entry or None)."""
    from .files import naming_file, read_text_file
    from ..llm.config import MAX_CONFIG_BYTES, load_hf_config_text
    from ..llm.library import library_models

    if any(m.id == ref for m in library_models()):
        return _library(ref)
    with naming_file(ref, field):
        return load_hf_config_text(read_text_file(ref, field, MAX_CONFIG_BYTES), field), None


def _scenario_data(args) -> dict:
    from .files import naming_file, read_text_file
    from ..scenario import load_scenario_text

    given = [x for x in (args.scenario, args.config, args.model) if x]
    if len(given) != 1:
        raise InputError("arguments", "give exactly one of SCENARIO.json, --config FILE or --model ID")
    if args.scenario:
        with naming_file(args.scenario, "scenario"):
            return load_scenario_text(read_text_file(args.scenario, "scenario")).model_dump(mode="json")
    # --model: a library id only, as for serve and transformer (a path here was read as a config file)
    config, model = _library(args.model) if args.model else _config(args.config, "config")
    tokens = _count(args.tokens, "tokens") or (model.training_tokens if model else None) or 1.0
    return config.scenario_data(tokens, args.seq_len)


def _per_layer(text: str | None) -> dict | None:
    if text is None:
        return None
    out = {}
    for item in text.split(","):
        path, _, value = item.partition("=")
        if path.strip() in out:
            raise InputError("per-layer", f"{path.strip()[:40]!r} is given twice: one fraction per layer")
        try:
            out[path.strip()] = float(value)
        except ValueError:
            raise InputError("per-layer", f"expected PATH=FRACTION, e.g. layers[0]=0.25; got '{item[:40]}'") from None
    return out


def _compress(args):
    if args.technique == "distill":
        return _distill(args)
    from ..compress.compression import Compression, compress

    data = _scenario_data(args)
    fields = {"technique": args.technique, "chip": args.chip, "gptq": args.gptq, "train_format": args.train_format,
              "factor": args.factor, "sparsity": args.sparsity, "batch_size": args.batch_size}
    if args.technique == "prune":
        fields["pruning"] = {"target": args.target, "round_to": 1 if args.round_to is None else args.round_to,
                             **({"per_layer": _per_layer(args.per_layer)} if args.per_layer else
                                {"fraction": args.fraction})}
    for name in ("scoring_examples", "fine_tune_examples", "calibration_examples", "qat_steps"):
        value = _count(getattr(args, name), name)
        if value is not None:
            fields[name] = value
    if args.layers:
        fields["layers"] = tuple(p.strip() for p in args.layers.split(",") if p.strip())
    spec = parse_input(Compression, {k: v for k, v in fields.items() if v is not None and v is not False})
    out = compress(data, spec).as_dict()
    if not args.show_layers:
        out.pop("layers", None)
    return out


def _distill(args):
    from ..compress.distillation import Distillation, distill

    if not args.teacher or not args.student:
        raise InputError("teacher" if not args.teacher else "student", "give --teacher and --student (library ids "
                                                                       "or config.json files)")
    teacher, _ = _config(args.teacher, "teacher")
    student, _ = _config(args.student, "student")
    fields = {"mode": args.mode, "tokens": _count(args.tokens, "tokens"), "epochs": args.epochs,
              "seq_len": args.seq_len, "top_k": args.top_k,
              "base_training_flop": _count(args.base_training_flop, "base_training_flop"),
              "systemic_risk": args.systemic_risk}
    spec = parse_input(Distillation, {k: v for k, v in fields.items() if v is not None})
    return distill(teacher, student, spec).as_dict()


def register(sub) -> None:
    p = sub.add_parser("compress", help="pruning, sparsity, quantization, low-precision training, distillation: "
                                        "before and after, with measured speed-ups")
    p.add_argument("scenario", nargs="?", default=None, help="a scenario JSON file (method 1 from the layers)")
    p.add_argument("--config", default=None, help="a language model's config.json")
    p.add_argument("--model", default=None, help="a library model id")
    p.add_argument("--tokens", default=None, help="training tokens (language models; distillation: D)")
    p.add_argument("--seq-len", type=int, default=None, dest="seq_len")
    p.add_argument("--technique", required=True,
                   choices=("prune", "unstructured", "two_four", "qat", "ptq", "low_precision", "distill"))
    p.add_argument("--target", choices=("channels", "heads", "ffn", "blocks"), default="channels")
    p.add_argument("--fraction", type=float, default=None, help="pruning: the share removed (0 < f < 1)")
    p.add_argument("--per-layer", default=None, dest="per_layer", help="pruning: layers[i]=f,… (only these)")
    p.add_argument("--round-to", type=int, default=None, dest="round_to")
    p.add_argument("--scoring-examples", default=None, dest="scoring_examples")
    p.add_argument("--fine-tune-examples", default=None, dest="fine_tune_examples")
    p.add_argument("--sparsity", type=float, default=None, help="unstructured: the share of weights zeroed")
    p.add_argument("--layers", default=None, help="2:4: the top-level layers, layers[1],layers[3] (default all)")
    p.add_argument("--chip", default=None, help="2:4 and low-precision training: the chip")
    p.add_argument("--batch-size", type=int, default=None, dest="batch_size")
    p.add_argument("--qat-steps", default=None, dest="qat_steps")
    p.add_argument("--calibration-examples", default=None, dest="calibration_examples")
    p.add_argument("--gptq", action="store_true")
    p.add_argument("--train-format", choices=("fp8", "mxfp8", "nvfp4"), default=None, dest="train_format")
    p.add_argument("--factor", type=float, default=None, help="a measured speed-up in place of the default")
    p.add_argument("--show-layers", action="store_true", dest="show_layers", help="include the pruned layer list")
    p.add_argument("--teacher", default=None)
    p.add_argument("--student", default=None)
    p.add_argument("--mode", choices=("online", "offline"), default="online")
    p.add_argument("--epochs", type=float, default=None)
    p.add_argument("--top-k", type=int, default=None, dest="top_k")
    p.add_argument("--base-training-flop", default=None, dest="base_training_flop",
                   help="distillation modifying a model: that model's training compute (0: unknown)")
    p.add_argument("--systemic-risk", action="store_true", dest="systemic_risk")
    p.set_defaults(run=_compress)
