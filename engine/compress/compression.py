"""Compression in method 1, before and after: one technique applied to a scenario's layers and training.

- ``prune``: structured pruning (``engine.compress.pruning``): the pruned architecture's parameters and FLOP, counted
  as any architecture is; the schedule: train dense (the scenario's training) + score (``scoring_examples`` passes,
  forward and backward for gradient-based importance) + fine-tune the pruned net (``fine_tune_examples``). Time: the
  FLOP ratio is what a saturated GPU approaches; an unsaturated one far less (measured: 2× fewer FLOP → 1.1×).
- ``unstructured``: a fraction s of the weights zeroed. The count of products that multiply a zero is (1 − s)·MACs of
  the sparsified layers, but dense hardware computes them all: no FLOP or time saved on GPUs (said so).
- ``two_four``: 2:4 sparsity on the chosen layers (default: every dense/convolution/transformer projection):
  half their products; the chip's sparse tensor rate (2× dense) where it has sparse tensor cores, none otherwise;
  the measured end-to-end factor (ViT-L training on A100: 1.06×).
- ``qat``: quantization-aware training: each step fake-quantizes the quantized layers' weights and their input
  activations (x/s, round, clamp, ×s: 5 FLOP an element forward, 1 backward through the straight-through mask),
  counted in the ``full`` convention (the matmul count does not change).
- ``ptq``: post-training quantization: ``calibration_examples`` forward passes (+ GPTQ's Hessians X·Xᵀ, 2·N²·T per
  linear layer of N inputs over T calibration positions, and its column sweep 2·N²·M).
- ``low_precision``: training in FP8, MXFP8 or NVFP4: the same FLOP at the format's dense peak (the ideal: the peak
  ratio) and the measured end-to-end factor.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from .factors import chosen, default
from .inputs import Compression
from .pruning import WIDTH_FIELDS, pruned_layers
from ..errors import InputError
from ..method1.architecture import evaluate
from ..results import Result
from ..scenario import migrated

FAKE_QUANT_FORWARD = 5
"""FLOP per fake-quantized element forward: divide by the scale, round, clamp (two comparisons), multiply back."""
FAKE_QUANT_BACKWARD = 1
"""The straight-through estimator's mask: one product per element."""
SPARSE_KINDS = ("dense", "conv1d", "conv2d", "conv3d", "conv_transpose2d", "transformer_block")
TRAIN_FORMATS = {"fp8": ("fp8_tensor", "fp8_training"), "mxfp8": ("fp8_tensor", "mxfp8_training"),
                 "nvfp4": ("fp4_tensor", "nvfp4_training")}


@dataclass(frozen=True, slots=True)
class Column(Result):
    """One side of the comparison."""

    params: float
    forward_flop: float
    training_flop: float | None
    note: str = ""


@dataclass(frozen=True, slots=True)
class CompressionResult(Result):
    """Before and after, the extra compute the technique costs, the time factor and where it comes from."""

    technique: str
    before: Column
    after: Column
    extra_flop: float
    schedule_flop: float | None
    ideal_speedup: float | None
    measured_speedup: float | None
    speedup_source: str
    notes: tuple[str, ...]
    layers: dict | None = None


def _totals(data: dict):
    from ..scenario import parse_scenario

    scenario = parse_scenario(data)
    est = scenario.method1()
    return scenario, est


def _column(est, note: str = "") -> Column:
    return Column(est.params, est.forward_flop, est.training_flop, note)


def _examples(scenario) -> float:
    training = scenario.training
    if training is None:
        return 0.0
    examples = training.examples or (training.batches_per_epoch or 0) * (training.batch_size or 0)
    return examples * training.epochs


def _widths(rows, layers: list) -> dict[str, int]:
    """Each transformer block's and multi-head attention layer's input width d, by path (the width of its rows; an
    attention layer with an output size of its own is left out: its rows' width is not its input's). ``rows``: the
    evaluated scenario's, ``layers``: its layer list."""
    from ..method1.tree import get

    out = {}
    for row in rows:
        path = row.path or f"layers[{row.index}]"
        if row.type == "transformer_block" or (row.type == "multi_head_attention"
                                               and get(layers, path).get("output_size") is None):
            out[path] = row.output_shape[-1]
    return out


def compress(data: dict, spec: Compression) -> CompressionResult:
    """``spec`` applied to the scenario ``data`` (its JSON): before and after."""
    if data.get("mode", "layers") != "layers" or not data.get("layers"):
        raise InputError("layers", "compression works on a layer list (method 1 from the layers)")
    data = migrated(data)  # a version-1 scenario's blocks in parts, as pruning reads them
    scenario, before = _totals(data)
    return {"prune": _prune, "unstructured": _unstructured, "two_four": _two_four, "qat": _qat, "ptq": _ptq,
            "low_precision": _low_precision}[spec.technique](data, scenario, before, spec)


def _shape_keeping(rows) -> set[int]:
    """The top-level places whose output has their input's shape (a layer's or a block's: its last row's)."""
    out_shape: dict[int, list] = {}
    for row in rows:
        if row.path and row.path.startswith("layers["):
            out_shape[int(row.path[7:row.path.index("]")])] = list(row.output_shape)
    return {i for i, shape in out_shape.items() if i - 1 in out_shape and out_shape[i - 1] == shape}


def _prune(data, scenario, before, spec: Compression) -> CompressionResult:
    rows = before.architecture.rows  # the scenario as evaluated for its "before" column: not evaluated again
    keeps = _shape_keeping(rows) if spec.pruning.target == "blocks" else None
    layers, done = pruned_layers(data["layers"], spec.pruning, _widths(rows, data["layers"]), keeps)
    _, after = _totals(dict(data, layers=layers))
    per_example = before.forward_flop + (before.backward_flop or 0)
    score = spec.scoring_examples * per_example
    fine_tune = spec.fine_tune_examples * (after.forward_flop + (after.backward_flop or 0))
    dense = before.training_flop or 0.0
    ratio = before.forward_flop / after.forward_flop if after.forward_flop else None
    measured, source = chosen("structured_pruning_unsaturated", spec.factor)
    notes = [f"pruned: {', '.join(done[:8])}{' …' if len(done) > 8 else ''}",
             ("time: a GPU kept busy by large batches approaches the FLOP ratio; at small batch far less "
              f"(measured {measured:g}× for {default('structured_pruning_unsaturated').flop_ratio:g}× fewer FLOP)")]
    return CompressionResult("prune", _column(before), _column(after, "pruned"), score + fine_tune,
                             dense + score + fine_tune, ratio, measured, source, tuple(notes),
                             {"pruned": layers})


def _linear_macs(scenario, kinds=SPARSE_KINDS, only: tuple[str, ...] | None = None) -> tuple[float, float]:
    """(MACs of the weight products in layers of ``kinds``, all MACs) per example."""
    rows = evaluate(scenario.architecture()).rows
    chosen_macs = 0.0
    for row in rows:
        top = f"layers[{row.index}]"
        if row.type in kinds and (only is None or top in only) and _weight_product(row):
            chosen_macs += row.macs
    return chosen_macs, sum(r.macs for r in rows)


def _weight_product(row) -> bool:
    """A row whose products multiply weights (not QKᵀ or AV)."""
    part = row.part or ""
    return row.params > 0 and "scores" not in part and "values AV" not in part


def _unstructured(data, scenario, before, spec: Compression) -> CompressionResult:
    linear, total = _linear_macs(scenario)
    s = spec.sparsity
    ideal = total / (total - s * linear) if total > s * linear else None
    after = Column(before.params * 1.0, before.forward_flop, before.training_flop,
                   f"{s:.0%} of the weights zero: {(1 - s) * before.params:,.0f} non-zero")
    notes = [f"products by a zero weight: {s * linear * 2:.3g} FLOP per example ({s * linear / total:.0%} of all)",
             "dense GPUs and TPUs compute them all: no FLOP or time saved; only sparse kernels on CPUs or "
             "sparse-aware accelerators skip them (no measured default here)"]
    return CompressionResult("unstructured", _column(before), after, 0.0, None, ideal, 1.0,
                             "dense hardware: every product computed", tuple(notes))


def _chip(name: str):
    from ..method2.hardware_db import load_hardware_db

    return load_hardware_db().chip(name)


def _two_four(data, scenario, before, spec: Compression) -> CompressionResult:
    chip = _chip(spec.chip)
    only = spec.layers
    if only is not None:
        known = {f"layers[{i}]" for i, layer in enumerate(data["layers"])
                 if isinstance(layer, dict) and layer.get("type") in SPARSE_KINDS}
        unknown = sorted(set(only) - known)
        if unknown:
            raise InputError("layers", f"{', '.join(unknown[:5])}: not a dense, convolution or transformer layer")
    linear, total = _linear_macs(scenario, only=only)
    if not linear:
        raise InputError("layers", "no weight products to make 2:4 sparse")
    after_macs = total - linear / 2
    ideal = total / after_macs
    after = Column(before.params - _sparse_params(scenario, only) / 2, 2 * after_macs,
                   before.training_flop * after_macs / total if before.training_flop else None,
                   "half the chosen layers' weights and products")
    if not chip.sparse_tensor_cores:
        notes = (f"{chip.id} has no sparse tensor cores: 2:4 sparsity stores half the weights but runs at the dense "
                 "rate — no speed-up",)
        return CompressionResult("two_four", _column(before), after, 0.0, None, ideal, 1.0,
                                 f"{chip.id}: no sparse tensor cores", notes)
    measured, source = chosen("sparse24_training_e2e", spec.factor)
    layer_factor = default("sparse24_training_layers").figure
    notes = (f"{chip.id} runs 2:4 products at twice its dense rate (sparse tensor cores); the sparsified layers "
             f"measured {layer_factor:.2f}×, not 2×, and the whole step {measured:.2f}× (the rest is dense)",)
    return CompressionResult("two_four", _column(before), after, 0.0, None, ideal, measured, source, notes)


def _sparse_params(scenario, only) -> float:
    rows = evaluate(scenario.architecture()).rows
    return sum(r.params for r in rows if r.type in SPARSE_KINDS and _weight_product(r)
               and (only is None or f"layers[{r.index}]" in only))


def _quantized_elements(scenario) -> tuple[float, float]:
    """(weights, input activations per example) of the layers quantization covers (dense, convolution,
    transformer projections): a layer's input elements are its MACs ÷ its output width — exact for dense layers and
    projections (T·N), the unfolded input for a convolution (K²·C per output position)."""
    rows = evaluate(scenario.architecture()).rows
    weights = activations = 0.0
    for row in rows:
        if row.type in SPARSE_KINDS and _weight_product(row):
            weights += row.params
            activations += row.macs / max(row.output_shape[-1], 1) if row.output_shape else 0
    return weights, activations


def _qat(data, scenario, before, spec: Compression) -> CompressionResult:
    weights, activations = _quantized_elements(scenario)
    training = scenario.training
    batch = spec.batch_size or (training.batch_size if training and training.batch_size else None)
    if batch is None:
        raise InputError("batch_size", "give the batch size (QAT fake-quantizes the weights once a step)")
    examples = _examples(scenario)
    steps = spec.qat_steps or (examples / batch if examples else 0)
    if not steps:
        raise InputError("qat_steps", "give the steps (or a training setup)")
    per_step = (FAKE_QUANT_FORWARD + FAKE_QUANT_BACKWARD) * (weights + batch * activations)
    extra = per_step * steps
    full = before.convention == "full"  # element-wise work: counted by the full convention only
    training = (before.training_flop or 0) + (extra if full else 0)
    after = Column(before.params, before.forward_flop, training,
                   "full convention: + the fake-quantization" if full else
                   "matmul convention: unchanged (the fake-quantization is element-wise)")
    notes = (f"per step: {weights:,.0f} weights and {batch:,} × {activations:,.0f} activations fake-quantized, "
             f"{FAKE_QUANT_FORWARD} FLOP each forward, {FAKE_QUANT_BACKWARD} backward",
             "the full convention adds it to the training FLOP" if full else
             "the matmul convention counts none of it (no product changes): the training FLOP is unchanged; the full "
             "convention adds it")
    return CompressionResult("qat", _column(before), after, extra, training, None, None, "counted", notes)


def _ptq(data, scenario, before, spec: Compression) -> CompressionResult:
    if not spec.calibration_examples:
        raise InputError("calibration_examples", "give the calibration examples")
    forward = spec.calibration_examples * before.forward_flop
    gptq = 0.0
    if spec.gptq:
        for row in evaluate(scenario.architecture()).rows:
            if row.type in SPARSE_KINDS and _weight_product(row) and row.output_shape:
                m = row.output_shape[-1]
                n = row.params / max(m, 1)
                positions = math.prod(row.output_shape[:-1]) * spec.calibration_examples
                gptq += 2 * n * n * positions + 2 * n * n * m
    after = Column(before.params, before.forward_flop, before.training_flop, "quantized after training")
    notes = [f"{spec.calibration_examples:,.0f} calibration forward passes: {forward:.3g} FLOP"]
    if spec.gptq:
        notes.append(f"GPTQ: Hessians 2·N²·T and the column sweep 2·N²·M per layer: {gptq:.3g} FLOP")
    return CompressionResult("ptq", _column(before), after, forward + gptq,
                             (before.training_flop or 0) + forward + gptq,
                             None, None, "counted", tuple(notes))


def _low_precision(data, scenario, before, spec: Compression) -> CompressionResult:
    peak_key, use = TRAIN_FORMATS[spec.train_format]
    ideal = None
    notes = []
    if spec.chip:
        chip = _chip(spec.chip)
        peak, base = chip.peaks.get(peak_key), chip.peaks.get("bf16_tensor")
        if peak is None:
            raise InputError("train_format", f"{chip.id} has no {peak_key.removesuffix('_tensor').upper()} tensor "
                                             "peak: it cannot train in this format")
        ideal = peak / base if base else None
        notes.append(f"{chip.id}: {peak / 1e12:,.0f} TFLOP/s dense in {spec.train_format.upper()} against "
                     f"{(base or 0) / 1e12:,.0f} in BF16")
    measured, source = chosen(use, spec.factor)
    notes.append("the same FLOP: the format changes the peak and the bytes, not the count")
    after = Column(before.params, before.forward_flop, before.training_flop, f"trained in {spec.train_format}")
    return CompressionResult("low_precision", _column(before), after, 0.0, None, ideal, measured, source,
                             tuple(notes))


def width_kinds() -> tuple[str, ...]:
    return tuple(WIDTH_FIELDS)
