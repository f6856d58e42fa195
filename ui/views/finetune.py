"""Fine-tuning in the dashboard, without Streamlit: a layer's trainability choice, the fine-tune choices
applied to a layer list, the backward figures beside the totals, and a fine-tune's compute against the base
model's training compute (the EU's one-third rule)."""
from __future__ import annotations

from engine.errors import parse_input
from engine.method1.backward import DEFAULT_LORA_TARGETS, LORA_TARGETS
from engine.method1.finetune import FineTune, block_count, fine_tuned
from engine.plan.thresholds import MODIFICATION_FRACTION
from engine.units import format_flop

TRAINABLE_CHOICES: dict[str, bool | None] = {"inherit": None, "trainable": True, "frozen": False}
TRAINABLE_LABELS = {"inherit": "as the block around it (trainable at the top level)", "trainable": "trainable",
                    "frozen": "frozen (no weight gradients)"}
FINE_TUNE_LABELS = {"full": "full training (every weight)", "last": "the last k blocks (and what follows)",
                    "lora": "LoRA adapters (every other weight frozen)"}
TARGET_LABELS = {"q": "q", "k": "k", "v": "v", "qkv": "qkv (one adapter on the fused q/k/v: GPT-2's c_attn)",
                 "o": "o (attention output)", "gate": "gate", "up": "up",
                 "gate_up": "gate_up (one adapter on the fused gate and up: Phi-3's gate_up_proj)",
                 "down": "down", "experts": "experts (every routed expert's gate, up, down)"}
LORA_KINDS = ("dense", "transformer_block")
"""The kinds a LoRA adapter can be put on."""

__all__ = ["DEFAULT_LORA_TARGETS", "LORA_TARGETS"]


def trainable_choice(layer: dict) -> str:
    """The picker's value for a layer: inherit, trainable or frozen."""
    value = layer.get("trainable")
    return "inherit" if value is None else ("trainable" if value else "frozen")


def with_trainability(layer: dict, choice: str, rank: int = 0, targets=()) -> dict:
    """``layer`` with ``trainable`` as chosen, and a LoRA adapter of ``rank`` (0: none) on the kinds that take
    one (a transformer block on ``targets``)."""
    out = {k: v for k, v in layer.items() if k not in ("trainable", "lora")}
    value = TRAINABLE_CHOICES[choice]
    if value is not None:
        out["trainable"] = value
    if rank and layer.get("type") in LORA_KINDS:
        out["lora"] = {"rank": int(rank)}
        if layer["type"] == "transformer_block":
            out["lora"]["targets"] = list(targets) or list(DEFAULT_LORA_TARGETS)
    return out


def fine_tune(layers: list, mode: str, blocks: int = 1, rank: int = 8, targets=DEFAULT_LORA_TARGETS,
              language_model: bool = False) -> list:
    """The layer list trained as ``mode`` says (``engine.method1.finetune``): every earlier choice replaced."""
    cleared = [_cleared(layer) for layer in layers]
    if mode == "full":
        return cleared
    tune = parse_input(FineTune, {"mode": mode, "blocks": blocks if mode == "last" else None,
                                  "rank": rank if mode == "lora" else None,
                                  "targets": tuple(targets) or DEFAULT_LORA_TARGETS, "lora_dense": not language_model})
    return fine_tuned(cleared, tune)


def _cleared(layer: dict) -> dict:
    """A layer without ``trainable`` and ``lora``, at every depth."""
    out = {k: v for k, v in layer.items() if k not in ("trainable", "lora")}
    for key in ("body", "shortcut", "layers"):
        if isinstance(out.get(key), list):
            out[key] = [_cleared(inner) for inner in out[key]]
    if isinstance(out.get("branches"), list):
        out["branches"] = [[_cleared(inner) for inner in branch] for branch in out["branches"]]
    return out


def blocks_available(layers: list) -> int:
    """How many blocks 'the last k blocks' can count (top-level blocks, a top-level repeat's copies)."""
    return block_count(layers)


Metric = tuple[str, str, str | None]


def backward_metrics(estimate) -> list[Metric]:
    """Backward per example with the effective r, and the trainable parameters."""
    arch = estimate.architecture
    training = estimate.training
    if arch is None or not arch.rows:
        return []
    exact = training is None or training.backward == "exact"
    backward = arch.backward_flop if exact else training.backward_flop_per_example
    r = backward / estimate.forward_flop if estimate.forward_flop else 0.0
    if exact:
        how = (training.note if training is not None and training.note else "counted layer by layer")
    else:
        how = f"r = {training.passes - 1:g} assumed; counted layer by layer: r = {arch.backward_ratio or 0:.3g}"
    return [("Backward per example", format_flop(backward), how),
            ("Effective r = backward / forward", f"{r:.3f}", "training = forward × (1 + r) per example"),
            ("Trainable parameters", f"{arch.trainable_params:,}",
             f"of {arch.params:,}" + (" (the rest frozen)" if arch.trainable_params < arch.params else ""))]


def base_compute_problem(base_training_flop: float) -> str | None:
    """Why a base model's training compute cannot be compared with (None when it can; 0 means unknown): below
    1 FLOP no model was trained (1e-300 made the share infinite)."""
    if 0 < base_training_flop < 1:
        return (f"The base model's training compute: {base_training_flop:.3g} FLOP is no model's training compute "
                "— give it in FLOP (at least 1), or 0 when it is unknown")
    return None


def one_third_rule(fine_tune_flop: float, base_training_flop: float) -> tuple[float, str]:
    """(share, sentence): a modification's compute against the base model's training compute. Above one third,
    the EU Commission's guidelines presume the modifier a provider of the modified general-purpose model."""
    share = fine_tune_flop / base_training_flop if base_training_flop > 0 else float("inf")
    verdict = "above" if share > MODIFICATION_FRACTION else "below"
    return share, (f"This fine-tune uses {format_flop(fine_tune_flop)}, {share:.3g} × the base model's "
                   f"{format_flop(base_training_flop)}: {verdict} one third.")


def language_model_run(choice) -> dict:
    """The transformer estimate's fine-tune fields for a choice from the fine-tune panel."""
    mode, blocks, rank, targets = choice
    if mode == "last":
        return {"trainable_last": blocks}
    if mode == "lora":
        return {"lora_rank": rank, "lora_targets": list(targets) or list(DEFAULT_LORA_TARGETS)}
    return {}


def backward_note(estimate) -> str | None:
    """Why the backward pass is counted layer by layer, when it is (said beside the totals)."""
    training = estimate.training
    if training is None or training.backward != "exact":
        return None
    why = training.note or "as asked in the training setup"
    return (f"Backward pass counted layer by layer ({why}): weight gradients only where weights train, input "
            "gradients only where a layer before needs one; the optimizer updates the trainable parameters only.")
