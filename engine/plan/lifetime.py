"""Lifetime compute: training plus serving.

Serving one token costs a forward pass: ≈ 2·N_active FLOP (Kaplan et al. 2020, Table 1) plus attention
over the context, 2·n_layer·n_ctx·d_attn (the QKᵀ and AV multiply-accumulates of one query against
n_ctx cached keys; Kaplan's term). Total = C_train + tokens_served × (2·N_active + 2·n_layer·n_ctx·d_attn).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError
from ..results import Result

MAX_TOKENS = 1e30


@dataclass(frozen=True, slots=True)
class Lifetime(Result):
    """Training plus serving ``tokens_served`` tokens: the totals, inference's share, the break-even point."""

    training_flop: float
    inference_flop_per_token: float
    tokens_served: float

    json_fields = ("training_flop", "inference_flop_per_token", "tokens_served", "inference_flop", "total_flop",
                   "inference_share", "break_even_tokens")

    @property
    def inference_flop(self) -> float:
        return self.inference_flop_per_token * self.tokens_served

    @property
    def total_flop(self) -> float:
        return self.training_flop + self.inference_flop

    @property
    def inference_share(self) -> float:
        return self.inference_flop / self.total_flop if self.total_flop else 0.0

    @property
    def break_even_tokens(self) -> float:
        """Tokens served at which inference has cost as much as training."""
        return self.training_flop / self.inference_flop_per_token if self.inference_flop_per_token else math.inf


def _non_negative(value: float, field: str, limit: float = MAX_TOKENS) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) \
            or value < 0 or value > limit:
        raise InputError(field, f"must be a finite number between 0 and {limit:.0e}")
    return float(value)


def inference_flop_per_token(active_params: float, layers: int = 0, context: float = 0,
                             attention_width: float = 0) -> float:
    """2·N_active + 2·n_layer·n_ctx·d_attn (d_attn = heads × head size)."""
    _non_negative(active_params, "active_params")
    _non_negative(context, "context")
    return 2 * active_params + 2 * layers * context * attention_width


def lifetime_compute(training_flop: float, tokens_served: float, active_params: float, layers: int = 0,
                     context: float = 0, attention_width: float = 0,
                     inference_flop_per_token: float | None = None) -> Lifetime:
    """Training + serving ``tokens_served`` tokens with an average context of ``context`` tokens; or, given
    ``inference_flop_per_token`` (counted from the model by ``engine.serve``: the prefill shared over the outputs
    plus a decode step at its context), that figure in place of Kaplan's."""
    training_flop = _non_negative(training_flop, "training_flop", 1e40)
    tokens_served = _non_negative(tokens_served, "tokens_served")
    if inference_flop_per_token is not None:
        per_token = _non_negative(inference_flop_per_token, "inference_flop_per_token", 1e40)
    else:
        per_token = globals()["inference_flop_per_token"](active_params, layers, context, attention_width)
    return Lifetime(training_flop, per_token, tokens_served)
