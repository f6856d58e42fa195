"""Knowledge distillation's compute: the teacher's forward passes, the student's training, their sum, and the EU
one-third rule on the sum where the student modifies a model.

Per token of sequences of T tokens, the teacher's forward FLOP is F_t(T)/T, counted from its own architecture (its
config, the LM head over every position: the student learns from every position's logits); the student's training
C_s = F_s·(1 + r)·D·E/T (r = 2; ``engine.llm.estimate`` with the student's config).

- online: the teacher runs beside the student on every training token: D·E·F_t(T)/T;
- offline: one pass over the D tokens, its logits stored: D·F_t(T)/T, and D·k·(2 + 4) bytes for the top k logits
  (a 16-bit value and a 32-bit token index each) or D·V·2 bytes for the whole vocabulary.

The one-third rule (Commission guidelines for GPAI providers, July 2025; ``engine.plan.thresholds``): a modification
using more than a third of the original model's training compute makes its author a provider of the modified model.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..errors import InputError
from ..llm.config import TransformerConfig
from ..method1.architecture import evaluate
from ..plan.thresholds import MODIFICATION_SOURCE, modification_threshold
from ..results import Result

Tokens = Annotated[float, Field(ge=1, le=1e16, allow_inf_nan=False)]
LOGIT_BYTES = 2
INDEX_BYTES = 4


class Distillation(BaseModel):
    """How the student learns from the teacher."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    mode: Literal["online", "offline"] = "online"
    tokens: Tokens = Field(description="D: training tokens (one epoch).")
    epochs: Annotated[float, Field(gt=0, le=1e6, allow_inf_nan=False)] = 1.0
    seq_len: Annotated[int, Field(ge=1, le=10_000_000)] = 2048
    top_k: Annotated[int, Field(ge=1, le=10_000_000)] | None = Field(
        None, description="Offline: logits stored per token (None: the whole vocabulary).")
    backward_ratio: Annotated[float, Field(ge=0, le=100, allow_inf_nan=False)] = 2.0
    base_training_flop: Annotated[float, Field(ge=0, le=1e40, allow_inf_nan=False)] | None = Field(
        None, description="The training compute of the model the student modifies (None: it is new; 0: unknown).")
    systemic_risk: bool = False

    @field_validator("base_training_flop")
    @classmethod
    def _flop_or_unknown(cls, value: float | None) -> float | None:
        if value is not None and 0 < value < 1:  # 5e-324 divided by zero; 1e-300 made a share of inf%
            raise ValueError("a training compute under 1 FLOP: give it in FLOP (e.g. 3.8e25), or 0 for unknown")
        return value


@dataclass(frozen=True, slots=True)
class DistillationResult(Result):
    """The two models' FLOP per token, each part's compute and the sum; the stored logits (offline); the rule."""

    mode: str
    teacher_flop_per_token: float
    student_flop_per_token: float
    teacher_flop: float
    student_training_flop: float
    total_flop: float
    stored_logit_bytes: float | None
    modification_threshold_flop: float | None
    modification_share: float | None
    modification_sentence: str | None


def forward_flop_per_token(config: TransformerConfig, seq_len: int) -> float:
    """F(T)/T: the forward pass of one sequence of T tokens, per token (the head at every position)."""
    seq_len = config.sequence_length(seq_len)
    return evaluate(config.architecture(seq_len)).forward_flop / seq_len


def distill(teacher: TransformerConfig, student: TransformerConfig, spec: Distillation) -> DistillationResult:
    if teacher.head == "none" or student.head == "none":
        raise InputError("teacher" if teacher.head == "none" else "student",
                         "distillation needs logits: this model has no head")
    f_teacher = forward_flop_per_token(teacher, spec.seq_len)
    f_student = forward_flop_per_token(student, spec.seq_len)
    seen = spec.tokens * spec.epochs
    teacher_flop = f_teacher * (seen if spec.mode == "online" else spec.tokens)
    student_flop = f_student * (1 + spec.backward_ratio) * seen
    total = teacher_flop + student_flop
    stored = None
    if spec.mode == "offline":
        per_token = spec.top_k * (LOGIT_BYTES + INDEX_BYTES) if spec.top_k else teacher.vocab_size * LOGIT_BYTES
        stored = spec.tokens * per_token
    elif spec.top_k is not None:
        raise InputError("top_k", "online distillation stores no logits")
    threshold = share = sentence = None
    if spec.base_training_flop is not None:
        threshold = modification_threshold(spec.base_training_flop or None, spec.systemic_risk)
        share = total / (threshold * 3)
        above = total > threshold
        sentence = (f"The distillation uses {share:.1%} of the original model's training compute"
                    f"{'' if spec.base_training_flop else ' (unknown: the guidelines default)'}: "
                    + ("more than one third — its author is presumed a provider of the modified model. "
                       if above else "not more than one third. ") + MODIFICATION_SOURCE)
    return DistillationResult(spec.mode, f_teacher, f_student, teacher_flop, student_flop, total, stored, threshold,
                              share, sentence)
