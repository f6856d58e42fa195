"""A serving plan: one model on N chips, a batch of prompts of P tokens each generating O tokens.

Static batching: the batch's B prompts are prefilled together (time to first token), then decoded together; the
batch's output tokens per second = B·O / (TTFT + (O − 1)·TPOT), all chips together (in-flight batching at a
concurrency of B in steady state processes the same work per request). Without a batch, the batch with the most
output tokens per second among those whose KV caches fit in memory. Results per phase: FLOP and bytes, the bound
(compute or memory), time; then cost per million output tokens, the fleet for a traffic level, speculative
decoding by acceptance length τ: a step verifies γ drafted tokens per sequence (γ + 1 tokens through the model)
and keeps τ on average, so TPOT = (t_verify + γ·r·t_step) / τ with r the draft's cost per step relative to the
target's.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError
from ..method2.hardware_db import Chip, load_hardware_db
from ..plan.interconnects import interconnects
from ..results import Result
from .cache import SequenceCache, sequence_cache
from .counts import ModelCounts
from .engines import Efficiency, efficiency, engine
from .formats import ACTIVATION_BYTES, FORMATS
from .inputs import MAX_BATCH, MAX_TOKENS, ServeInputs, Speculative  # noqa: F401 (re-exported)
from .model_facts import KV_MIXERS, ModelFacts
from .roofline import GB, NO_LIMIT, Hardware, Roofline

GIB = 2**30
"""An accelerator's memory as its vendor names it ("80GB" H100, "141GB" H200, "192GB" MI300X) counts binary
gigabytes: nvidia-smi shows 81,559 MiB on an H100 SXM (85.5 × 10⁹ bytes), rocm-smi 196,592 MiB on an MI300X."""

@dataclass(frozen=True, slots=True)
class Phase(Result):
    """One phase for the batch: FLOP, bytes per chip, the bound, seconds."""

    flop: float
    bytes_per_chip: float
    bound: str
    seconds: float


@dataclass(frozen=True, slots=True)
class ServeEstimate(Result):
    """A serving plan's figures (per sequence where it says so; ``output_tokens_per_s``: all chips together)."""

    model: str
    chip: str
    chips: int
    engine: str
    precision: str
    weights: str | None
    kv_precision: str
    prompt_tokens: int
    output_tokens: int
    batch: int
    sequences_in_memory: int | None
    """None: nothing is cached (an encoder), memory does not bound the batch."""
    kv_cache_bytes_per_token: float
    kv_cache_bytes: float
    kv_cache_bytes_transformers: float
    kv_cache_state_bytes: float
    weights_bytes: float
    prefill_flop: int
    prefill_flop_kernel: int
    decode_flop_per_token: float
    decode_flop_per_token_engine: float
    ttft_s: float
    tpot_s: float
    output_tokens_per_s: float
    output_tokens_per_s_per_chip: float
    prefill_tokens_per_s: float
    prefill: Phase
    decode_step: Phase
    efficiency: dict
    cost_per_million_output_tokens: float | None
    fleet: dict | None
    speculative: dict | None
    batch_sweep: tuple[dict, ...]
    cache: SequenceCache
    notes: tuple[str, ...]

    json_fields = ("model", "chip", "chips", "engine", "precision", "weights", "kv_precision", "prompt_tokens",
                   "output_tokens", "batch", "sequences_in_memory", "kv_cache_bytes_per_token", "kv_cache_bytes",
                   "kv_cache_bytes_transformers", "kv_cache_state_bytes", "weights_bytes", "prefill_flop",
                   "prefill_flop_kernel", "decode_flop_per_token", "decode_flop_per_token_engine", "ttft_s",
                   "tpot_s", "output_tokens_per_s", "output_tokens_per_s_per_chip", "prefill_tokens_per_s", "prefill",
                   "decode_step",
                   "efficiency", "cost_per_million_output_tokens", "fleet", "speculative", "batch_sweep", "cache",
                   "notes")


def _chip(name: str) -> Chip:
    return load_hardware_db().chip(name)


def _hardware(chip: Chip, inputs: ServeInputs) -> Hardware:
    fmt = FORMATS[inputs.precision]
    peak = chip.peaks.get(fmt.peak_key)
    if peak is None:
        have = ", ".join(k.removesuffix("_tensor") for k in chip.peaks.available() if k.endswith("_tensor")) or "none"
        raise InputError("precision", f"{chip.id} has no {fmt.label} tensor peak (its tensor formats: {have})")
    kv = inputs.kv_format
    if kv in ("fp8", "fp4") and chip.peaks.get(FORMATS[kv].peak_key) is None:
        raise InputError("kv_precision", f"{chip.id} has no {FORMATS[kv].label} format to keep the KV cache in; "
                                         "use bf16 or fp16")
    if not chip.memory_gb or not chip.memory_bandwidth_gb_s:
        raise InputError("chip", f"{chip.id} has no memory size or bandwidth in the hardware database")
    link = None
    if inputs.chips > 1:
        system = interconnects().get(chip.id)
        if system is None:
            raise InputError("chips", f"tensor parallelism over {inputs.chips} chips needs {chip.id}'s link "
                                      "bandwidth, which interconnects.json does not have")
        link, _ = system.bandwidth(inputs.chips)
    return Hardware(peak, chip.memory_bandwidth_gb_s * GB, chip.memory_gb * GIB, inputs.chips, link)


def _check_request(facts: ModelFacts, inputs: ServeInputs) -> None:
    if inputs.chips > 1:  # tensor parallelism splits the attention heads: vLLM and TensorRT-LLM need H % N == 0
        heads = sorted({block.attention_sizes(facts.d_model)[0] for block in facts.config.decoder_blocks()
                        if block.mixer.kind in KV_MIXERS})
        odd = [h for h in heads if h % inputs.chips]
        if odd:
            raise InputError("chips", f"{inputs.chips} chips (tensor parallel) do not divide the model's {odd[0]} "
                                      "attention heads: serving engines split the heads evenly (vLLM and "
                                      "TensorRT-LLM refuse it); use a divisor of the heads")
    if not facts.generative and inputs.output_tokens:
        raise InputError("output_tokens", f"{facts.model_type} is not a generative model (no LM head over a "
                                          "causal decoder): it generates no tokens; use 0 (its prefill alone)")
    context = facts.context_length
    total = inputs.prompt_tokens + inputs.output_tokens
    if context and total > context and not facts.encoder_decoder:
        raise InputError("prompt_tokens", f"{inputs.prompt_tokens:,} prompt + {inputs.output_tokens:,} output "
                                          f"tokens is longer than the model's context of {context:,} tokens")


def _throughput(roof: Roofline, batch: int, prompt: int, output: int) -> tuple[float, float, float]:
    """(TTFT, mean TPOT, output tokens/s) of a batch."""
    ttft = roof.prefill_time(batch, prompt)
    steps = max(output - 1, 0)
    decode = roof.decode_time(batch, prompt, output)
    tpot = decode / steps if steps else roof.step_time(batch, prompt)
    rate = batch * output / (ttft + decode) if output else 0.0
    return ttft, tpot, rate


def _candidates(limit: int) -> list[int]:
    out, b = [], 1
    while b < limit:
        out.append(b)
        b *= 2
    return out + [limit]


def serve(facts: ModelFacts, inputs: ServeInputs, fitted: Efficiency | None = None,
          counts: ModelCounts | None = None) -> ServeEstimate:
    """The serving plan of ``facts`` as ``inputs`` says (``InputError`` naming the field otherwise). ``fitted``:
    efficiencies in place of the engine's stored ones (the fit); ``counts``: the model's counts, when kept."""
    _check_request(facts, inputs)
    chip = _chip(inputs.chip)
    hw = _hardware(chip, inputs)
    eng = engine(inputs.engine)
    if not eng.windowed_cache and any(layer.window for layer in facts.layers):
        facts, counts = facts.without_windows(), None
    fitted = fitted or efficiency(eng.id)
    eff = fitted._replace(compute=inputs.compute_efficiency or fitted.compute,
                          memory=inputs.memory_efficiency or fitted.memory)
    prompt, output = inputs.prompt_tokens, inputs.output_tokens
    if counts is None or (facts.encoder_decoder and counts.memory != prompt):
        counts = ModelCounts(facts, memory=prompt)
    kv_bytes = FORMATS[inputs.kv_format].bytes
    roof = Roofline(facts, counts, hw, inputs.precision, inputs.weights, kv_bytes, eng, eff)
    tokens = prompt + output if not facts.encoder_decoder else 1 + output
    if roof.free_memory <= 0:
        raise InputError("chips", f"{roof.weight_memory / GB:,.1f} GB of weights do not fit on {inputs.chips} × "
                                  f"{chip.id} ({chip.memory_gb:g} GB each, {eng.memory_fraction:.0%} of it for "
                                  "weights and cache): use more chips or a smaller format")
    fits = roof.sequences_in_memory(tokens)
    if fits < 1:
        raise InputError("prompt_tokens", f"one sequence of {tokens:,} tokens needs "
                                          f"{roof.kv_per_sequence(tokens) / GB:,.1f} GB of cache per chip; "
                                          f"{roof.free_memory / GB:,.1f} GB are left beside the weights")
    limit = min(fits, inputs.max_batch or eng.max_batch or fits)
    if fits == NO_LIMIT:  # nothing cached: the sweep stops at the engine's usual largest batch
        limit = min(limit, 4096)
    if inputs.batch is not None and inputs.batch > fits:
        raise InputError("batch", f"{inputs.batch:,} sequences of {tokens:,} tokens do not fit: each keeps "
                                  f"{roof.kv_per_sequence(tokens) / GB:.3g} GB of cache per chip and "
                                  f"{roof.free_memory / GB:,.1f} GB are left beside the weights ({fits:,} fit)")
    sweep = []
    for b in _candidates(limit if inputs.batch is None else max(limit, inputs.batch)):
        ttft, tpot, rate = _throughput(roof, b, prompt, output)
        sweep.append({"batch": b, "ttft_s": ttft, "tpot_s": tpot, "output_tokens_per_s": rate,
                      "output_tokens_per_s_per_chip": rate / hw.chips})
    if inputs.batch is not None:
        batch = inputs.batch
    elif output:
        batch = max(sweep, key=lambda row: row["output_tokens_per_s"])["batch"]
    else:  # the prefill alone: one prompt's
        batch = 1
    ttft, tpot, rate = _throughput(roof, batch, prompt, output)
    cache = sequence_cache(facts, tokens, kv_bytes, ACTIVATION_BYTES, prompt if facts.encoder_decoder else 0,
                           hw.chips)
    transformers_kv = cache.bytes  # equal to the engines' (MLA keeps the latent in both); see docs/serving.md
    context = prompt + max(output - 2, 0) // 2
    steps = max(output - 1, 1)
    decode_mean = counts.decode_flop_sum(prompt, steps) / steps
    decode_engine = counts.decode_flop_sum(prompt, steps, absorbed=True) / steps
    prefill = _phase(roof, batch * counts.prefill_flop(prompt, kernel=True), ttft, roof.prefill_time, batch, prompt)
    step = _step_phase(roof, batch, context)
    notes = list(_notes(facts, inputs, eng, batch, fits))
    return ServeEstimate(
        model=facts.model_type, chip=chip.id, chips=hw.chips, engine=eng.id, precision=inputs.precision,
        weights=inputs.weights, kv_precision=inputs.kv_format, prompt_tokens=prompt, output_tokens=output,
        batch=batch, sequences_in_memory=None if fits == NO_LIMIT else fits,
        kv_cache_bytes_per_token=cache.bytes_per_token,
        kv_cache_bytes=cache.bytes, kv_cache_bytes_transformers=transformers_kv, kv_cache_state_bytes=cache.state_bytes,
        weights_bytes=roof.weight_memory, prefill_flop=counts.prefill_flop(prompt),
        prefill_flop_kernel=counts.prefill_flop(prompt, kernel=True), decode_flop_per_token=decode_mean,
        decode_flop_per_token_engine=decode_engine, ttft_s=ttft, tpot_s=tpot, output_tokens_per_s=rate,
        output_tokens_per_s_per_chip=rate / hw.chips, prefill_tokens_per_s=batch * prompt / ttft, prefill=prefill,
        decode_step=step,
        efficiency={"compute": eff.compute, "memory": eff.memory, "allreduce_s": eff.allreduce_s,
                    "source": "given" if inputs.compute_efficiency or inputs.memory_efficiency
                    else f"fitted on {eng.label}'s calibration rows (docs/serving.md)"},
        cost_per_million_output_tokens=_cost(chip, inputs, rate),
        fleet=_fleet(inputs, rate, hw.chips), speculative=_speculative(roof, inputs, batch, context, tpot),
        batch_sweep=tuple(sweep), cache=cache, notes=tuple(notes))


def _phase(roof: Roofline, flop: float, seconds: float, timer, batch: int, prompt: int) -> Phase:
    compute = flop / (roof.hw.chips * roof.hw.peak * roof.eff.compute)
    tokens = batch * prompt
    chunks = max(1, math.ceil(tokens / roof.engine.token_budget))
    bytes_per_chip = chunks * roof.weight_read(min(tokens, roof.engine.token_budget)) / roof.hw.chips
    memory = bytes_per_chip / (roof.hw.bandwidth * roof.eff.memory)
    return Phase(flop, bytes_per_chip, "compute" if compute >= memory else "memory", seconds)


def _step_phase(roof: Roofline, batch: int, context: int) -> Phase:
    from .cache import kv_read_elements

    n = roof.hw.chips
    flop = batch * roof.counts.decode_flop(context, absorbed=True)
    kv, state = kv_read_elements(roof.facts, context, n)
    bytes_per_chip = roof.weight_read(batch) / n + batch * (kv * roof.kv_bytes + state * ACTIVATION_BYTES)
    compute = flop / (n * roof.hw.peak * roof.eff.compute)
    memory = bytes_per_chip / (roof.hw.bandwidth * roof.eff.memory)
    return Phase(flop, bytes_per_chip, "compute" if compute >= memory else "memory",
                 roof.step_time(batch, context))


def _cost(chip: Chip, inputs: ServeInputs, rate: float) -> float | None:
    price = inputs.price_per_chip_hour or chip.price_usd_per_hour
    if not price or rate <= 0:
        return None
    return price * inputs.chips / (rate * 3600) * 1e6


def _fleet(inputs: ServeInputs, rate: float, chips: int) -> dict | None:
    if inputs.requests_per_s is None or rate <= 0:
        return None
    needed = inputs.requests_per_s * max(inputs.output_tokens, 1)
    copies = max(1, math.ceil(needed / rate))
    return {"requests_per_s": inputs.requests_per_s, "output_tokens_per_s": needed, "copies": copies,
            "chips": copies * chips, "utilisation": needed / (copies * rate)}


def _speculative(roof: Roofline, inputs: ServeInputs, batch: int, context: int, tpot: float) -> dict | None:
    spec = inputs.speculative
    if spec is None:
        return None
    verify = roof.step_time(batch, context, spec.draft_tokens + 1)
    step = roof.step_time(batch, context)
    spec_tpot = (verify + spec.draft_tokens * spec.draft_cost * step) / spec.acceptance_length
    return {"acceptance_length": spec.acceptance_length, "draft_tokens": spec.draft_tokens,
            "draft_cost": spec.draft_cost, "verify_step_s": verify, "tpot_s": spec_tpot, "speedup": tpot / spec_tpot}


def _notes(facts: ModelFacts, inputs: ServeInputs, eng, batch: int, fits: int):
    if any(layer.latent for layer in facts.layers):
        yield ("multi-head latent attention: the cache keeps the latent and the rotary key per token (vLLM, SGLang "
               "and transformers alike); time uses the absorbed decode (decode_flop_per_token_engine), "
               "decode_flop_per_token is transformers' (it re-expands the latent every step)")
    if any(layer.window for layer in facts.layers):
        yield "sliding-window layers keep their last W − 1 tokens (transformers); the new token makes W keys"
    if any(layer.mixer for layer in facts.layers):
        yield "state-space layers keep a constant state, in the 16-bit activation format"
    if inputs.weights:
        yield (f"weight-only {inputs.weights}: fewer bytes read, the same FLOP at the {inputs.precision} peak; at "
               "batch 1 torchao measured int4 1.9× and int8 1.6× faster (engine.serve.factors)")
    if eng.max_batch and batch == eng.max_batch and fits > batch:
        yield f"batch capped at {eng.label}'s {eng.max_batch:,}"
