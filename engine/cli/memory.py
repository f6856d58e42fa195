"""``memory (--config FILE | --model ID | SCENARIO.json) [--chip ID] --optimizer --precision --zero --dp --tp
--pp --micro-batch --seq-len [--recompute]``: memory per chip (model states and activations), and whether
it fits the chip."""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..errors import InputError, parse_input, quoted

if TYPE_CHECKING:  # the engine modules are imported when a command runs: `python -m engine` starts fast
    from ..plan.layout import Layout, MemoryOptions, PlanInputs
    from ..plan.model import PlanModel

_INTS = ("dp", "tp", "pp", "ep", "cp", "micro_batch", "global_batch", "virtual_stages", "expert_tp", "first_stage_blocks",
         "last_stage_blocks")


def _number(text: str | None):
    """'8' → 8; anything else is passed on as given, for the model to name the field."""
    if text is None:
        return None
    try:
        return int(text.strip().replace("_", ""))
    except ValueError:
        return text


@dataclass(frozen=True, slots=True)
class Loaded:
    """The model, its training tokens (when a scenario gives them) and the scenario's saved plan, if any."""

    model: PlanModel
    tokens: float | None = None
    saved: PlanInputs | None = None


def load_model(args) -> Loaded:
    """The model from --config, --model or a scenario file."""
    from .files import naming_file, read_text_file
    from ..llm.config import MAX_CONFIG_BYTES, load_hf_config_text, read_hf_config
    from ..llm.library import library_models
    from ..plan.model import checked_seq_len, plan_model
    from ..plan.published import published_runs, run_config
    from ..presets import presets, unavailable_presets
    from ..scenario import load_scenario_text

    seq_len = checked_seq_len(_number(args.seq_len), repr(str(args.seq_len)[:40]))
    given = [x for x in (args.config, args.model, args.scenario) if x]
    if len(given) != 1:
        raise InputError("model", "give exactly one of --config FILE, --model ID or SCENARIO.json")
    if args.config:
        with naming_file(args.config, "config"):
            config = load_hf_config_text(read_text_file(args.config, "config", MAX_CONFIG_BYTES))
        return Loaded(plan_model(config.architecture(config.sequence_length(seq_len))))
    if args.model:
        run = next((r for r in published_runs().runs if r.id == args.model), None)
        if run is not None:  # a published run's model (palm-540b, megatron-1t, …: engine/plan/published_runs.json)
            config = read_hf_config(run_config(run))
            return Loaded(plan_model(config.architecture(seq_len or run.seq_len)))
        library = {m.id: m for m in library_models()}
        if args.model in library:  # a language model of the shipped library (transformer --list-models)
            config = read_hf_config(library[args.model].config)
            return Loaded(plan_model(config.architecture(config.sequence_length(seq_len))),
                          library[args.model].training_tokens)
        found = presets().get(args.model)
        if found is None and args.model in unavailable_presets():
            raise unavailable_presets()[args.model]
        if found is None:
            known = ", ".join([*presets(), *(r.id for r in published_runs().runs if r.set == "constant-model")])
            raise InputError("model", f"unknown model {quoted(args.model)}; known: {known}, a published run's id "
                                      "(engine/plan/published_runs.json), or a library model (python -m engine "
                                      "transformer --list-models)")
        scenario = found.scenario
    else:
        scenario = load_scenario_text(read_text_file(args.scenario), source=args.scenario)
    model = scenario.plan_model(seq_len)
    tokens = scenario.tokens()
    if tokens is not None and seq_len is not None and scenario.input.sequence_length:
        tokens = tokens / scenario.input.sequence_length * seq_len
    return Loaded(model, tokens, scenario.plan)


def layout_and_options(args, saved: PlanInputs | None = None) -> tuple[Layout, MemoryOptions]:
    """The layout and options the flags give, on top of a scenario's saved plan (flags win)."""
    from ..plan.layout import Layout, MemoryOptions, with_framework_split

    options = saved.options.model_dump() if saved else {}
    flags = {"optimizer": args.optimizer, "precision": args.precision.lower() if args.precision else None,
             "zero": _number(args.zero), "recompute": args.recompute,
             "convention": args.convention.lower() if args.convention else None,
             "attention": args.attention, "compiled": True if args.compiled else None,
             "tp_overlap": True if args.tp_overlap else None}
    options.update({k: v for k, v in flags.items() if v is not None})
    options = parse_input(MemoryOptions, options)
    data = saved.layout.model_dump() if saved else {}
    data.update({k: _number(getattr(args, k)) for k in _INTS if getattr(args, k, None) is not None})
    if args.sequence_parallel:
        data["sequence_parallel"] = True
    if args.pipeline_split:
        data["pipeline_split"] = args.pipeline_split
    layout = parse_input(Layout, with_framework_split(data, options))
    chips = _number(getattr(args, "chips", None))
    if isinstance(chips, str):
        raise InputError("chips", f"{str(args.chips)[:40]!r} is not a whole number of chips")
    if chips is not None and chips != layout.chips:
        raise InputError("chips", f"{chips:,} chips but {layout.product} = {layout.factors} = {layout.chips:,}")
    return layout, options


def _memory(args) -> dict:
    from ..method2.hardware_db import load_hardware_db
    from ..plan.memory import GB, fewest_chips, memory_per_chip

    loaded = load_model(args)
    model = loaded.model
    layout, options = layout_and_options(args, loaded.saved)
    capacity = None
    chip_name = args.chip or (loaded.saved.chip if loaded.saved else None)
    if chip_name:
        chip = load_hardware_db().chip(chip_name)
        if chip.memory_gb is None:
            raise InputError("chip", f"{chip.name} has no memory size on file")
        capacity = chip.memory_gb * GB
    memory = memory_per_chip(model, layout, options, capacity)
    out = {"params": model.params, "chips": layout.chips, **memory.as_dict()}
    if capacity is not None:
        out["chip"] = chip.id
        best = fewest_chips(model, options, capacity, layout.micro_batch, sequence_parallel=layout.sequence_parallel)
        out["fewest_chips"] = None if best is None else {"chips": best.chips, "dp": best.layout.dp,
                                                         "tp": best.layout.tp, "pp": best.layout.pp}
    return out


def add_model_arguments(p) -> None:
    p.add_argument("scenario", nargs="?", help="a scenario JSON file (its layers)")
    p.add_argument("--config", help="a Hugging Face config.json")
    p.add_argument("--model", help="a preset id (llama2-7b, gpt3-175b, …), a published run (palm-540b, "
                                   "megatron-1t, …) or a library model (llama-3.1-8b, …: transformer --list-models)")
    p.add_argument("--seq-len", dest="seq_len", help="sequence length s (default: the model's)")


def add_layout_arguments(p) -> None:
    for flag, text in (("--chips", "chips n (checked: n = d × t × p × c)"), ("--dp", "data-parallel replicas d"),
                       ("--tp", "tensor-parallel ranks t"), ("--pp", "pipeline stages p"),
                       ("--cp", "context-parallel ranks c: each holds s/c of every sequence (2c divides s)"),
                       ("--ep", "expert-parallel ranks e (divides d)"),
                       ("--micro-batch", "micro-batch b (sequences)"),
                       ("--global-batch", "global batch B (sequences per step)"),
                       ("--virtual-stages", "interleaved virtual stages v per pipeline rank"),
                       ("--expert-tp", "ranks each expert is split over (default t; 1 in NVIDIA's MoE recipes)"),
                       ("--first-stage-blocks", ("blocks on the first pipeline rank (Megatron's --decoder-first-"
                                                 "pipeline-num-layers; 0: the embedding alone)")),
                       ("--last-stage-blocks", ("blocks on the last pipeline rank (Megatron's --decoder-last-"
                                                "pipeline-num-layers; 0: the head alone)"))):
        p.add_argument(flag, dest=flag[2:].replace("-", "_"), default=None, help=text)
    p.add_argument("--pipeline-split", dest="pipeline_split", default=None,
                   help="the framework's by default: even (Megatron: p × v divides the blocks), embedding_loss "
                        "(Megatron's account_for_embedding/loss_in_pipeline_split), balanced (DeepSpeed's uniform "
                        "partition) or torchtitan (the embedding and the output weighted as a block each)")
    p.add_argument("--sequence-parallel", dest="sequence_parallel", action="store_true",
                   help="sequence parallelism with tensor parallelism (Korthikanti et al. 2022)")
    p.add_argument("--optimizer", help="adam (default; mixed precision: 16 B/param), adam-8bit, sgd-momentum, sgd")
    p.add_argument("--precision", help="bf16 (default), fp16, fp8, fp6 (MXFP6), fp4 (MXFP4/NVFP4) — 16-bit states — or fp32")
    p.add_argument("--zero", help="ZeRO stage 0 (default) to 3 (3 = FSDP full sharding)")
    p.add_argument("--recompute", help="activation recomputation: none (default), selective (the attention core), "
                   "ops (every other matrix product: torchtitan's selective op), alternate (every other block), full")
    p.add_argument("--convention", "--framework", dest="convention",
                   help="the framework: deepspeed (default; ZeRO's 16 B/param with Adam), megatron (Megatron-LM / "
                        "NeMo: FP32 gradients, 18 B/param; --zero 1 = distributed optimizer), megatron-2021, fsdp "
                        "(PyTorch FSDP), torchtitan, composer (MosaicML)")
    p.add_argument("--attention", default=None, help="fused (default: FlashAttention, cuDNN, SDPA) or stored (the "
                                                     "s × s scores kept: an unfused softmax)")
    p.add_argument("--compiled", action="store_true", help="torch.compile over each block (PyTorch frameworks)")
    p.add_argument("--tp-overlap", dest="tp_overlap", action="store_true",
                   help="tensor-parallel collectives overlapped with the products (AsyncTP, tp_comm_overlap)")
    p.add_argument("--chip", help="chip id or alias: fits / does not fit its memory")
    p.epilog = "Flags left out come from the scenario's saved plan (the dashboard's share link), if any."


def register(sub) -> None:
    p = sub.add_parser("memory", help="memory per chip: model states and activations, and whether it fits")
    add_model_arguments(p)
    add_layout_arguments(p)
    p.set_defaults(run=_memory)
