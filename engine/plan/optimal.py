"""Compute-optimal model size for a FLOP budget C, by three rules.

- ``tokens-per-param``: D = 20·N (Hoffmann et al. 2022, Chinchilla's 70B on 1.4T tokens), with C = 6·N·D,
  so N = √(C / 120), D = 20·N.
- ``hoffmann-approach3``: the parametric loss L(N, D) = E + A/N^α + B/D^β fitted by Hoffmann et al. 2022
  (approach 3, eq. 10: E 1.69, A 406.4, B 410.7, α 0.34, β 0.28).
- ``besiroglu-2024``: Epoch AI's refit of the same data (Besiroglu et al. 2024, Table 1: E 1.8172,
  A 482.01, B 2085.43, α 0.3478, β 0.3658).

Minimising L under C = 6·N·D gives N_opt = G·(C/6)^(β/(α+β)), G = (αA/(βB))^(1/(α+β)),
D_opt = C / (6·N_opt).

Inference-aware (Sardana et al. 2023): for D_inf tokens served at 2·N FLOP each, the model that reaches
the same loss as the compute-optimal one at the least training + inference FLOP, 6·N·D + 2·N·D_inf.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..errors import InputError
from ..results import Result

RULES: tuple[str, ...] = ("tokens-per-param", "hoffmann-approach3", "besiroglu-2024")
TOKENS_PER_PARAM = 20.0
TRAINING_FLOP_PER_PARAM_TOKEN = 6.0
INFERENCE_FLOP_PER_PARAM_TOKEN = 2.0
MAX_FLOP = 1e40


@dataclass(frozen=True, slots=True)
class LossFit(Result):
    """L(N, D) = E + A/N^α + B/D^β."""

    key: str
    label: str
    E: float
    A: float
    B: float
    alpha: float
    beta: float
    source: str

    def loss(self, params: float, tokens: float) -> float:
        return self.E + self.A / params ** self.alpha + self.B / tokens ** self.beta

    @property
    def G(self) -> float:
        """G = (αA / (βB))^(1/(α+β))."""
        return (self.alpha * self.A / (self.beta * self.B)) ** (1 / (self.alpha + self.beta))

    @property
    def a(self) -> float:
        """N_opt ∝ C^a, a = β/(α+β)."""
        return self.beta / (self.alpha + self.beta)

    def optimal_params(self, flop: float) -> float:
        """N_opt = G·(C/6)^(β/(α+β))."""
        return self.G * (flop / TRAINING_FLOP_PER_PARAM_TOKEN) ** self.a

    def tokens_for_loss(self, params: float, loss: float) -> float:
        """D such that L(N, D) = loss: (B / (loss − E − A/N^α))^(1/β); inf when N alone cannot reach it."""
        gap = loss - self.E - self.A / params ** self.alpha
        return math.inf if gap <= 0 else (self.B / gap) ** (1 / self.beta)


HOFFMANN_APPROACH3 = LossFit(
    "hoffmann-approach3", "Hoffmann et al. 2022, approach 3", 1.69, 406.4, 410.7, 0.34, 0.28,
    "Hoffmann et al. 2022, 'Training Compute-Optimal Large Language Models', eq. 10 — "
    "https://arxiv.org/abs/2203.15556")
BESIROGLU_2024 = LossFit(
    "besiroglu-2024", "Besiroglu et al. 2024 (Epoch AI refit)", 1.8172, 482.01, 2085.43, 0.3478, 0.3658,
    "Besiroglu, Erdil, Barnett & You 2024, 'Chinchilla Scaling: A replication attempt', Table 1 — "
    "https://arxiv.org/abs/2404.10102")
FITS: dict[str, LossFit] = {f.key: f for f in (HOFFMANN_APPROACH3, BESIROGLU_2024)}
TOKENS_PER_PARAM_SOURCE = ("Hoffmann et al. 2022: Chinchilla, 70B parameters on 1.4T tokens, ≈ 20 tokens per "
                           "parameter — https://arxiv.org/abs/2203.15556")


@dataclass(frozen=True, slots=True)
class Optimum(Result):
    """The compute-optimal N (``params``) and D (``tokens``) for a budget C (``flop``) under ``rule``."""

    rule: str
    flop: float
    params: float
    tokens: float
    source: str
    loss: float | None = None
    """L(N, D) of the fitted law (None for the tokens-per-param rule, which has none)."""

    json_fields = ("rule", "flop", "params", "tokens", "tokens_per_param", "source", "loss")
    json_omit_default = frozenset({"loss"})

    @property
    def tokens_per_param(self) -> float:
        return self.tokens / self.params


def check_flop(flop: object, field: str = "flop") -> float:
    """A FLOP budget: a finite number in [1, 1e40] (below one FLOP the optimal sizes underflow to 0)."""
    if isinstance(flop, bool) or not isinstance(flop, (int, float)):
        raise InputError(field, f"expected a number of FLOP, got {type(flop).__name__}")
    try:
        value = float(flop)
    except OverflowError:
        raise InputError(field, "too large") from None
    if not math.isfinite(value) or value <= 0:
        raise InputError(field, f"must be a positive finite number, got {value!r}")
    if value < 1:
        raise InputError(field, f"must be at least 1 FLOP, got {value:.3g}")
    if value > MAX_FLOP:
        raise InputError(field, f"{value:.3g} is more than the {MAX_FLOP:.0e} FLOP this tool accepts")
    return value


def compute_optimal(flop: float, rule: str = "tokens-per-param") -> Optimum:
    """The compute-optimal N and D for C = ``flop`` under ``rule``."""
    flop = check_flop(flop)
    if rule == "tokens-per-param":
        params = math.sqrt(flop / (TRAINING_FLOP_PER_PARAM_TOKEN * TOKENS_PER_PARAM))
        return Optimum(rule, flop, params, TOKENS_PER_PARAM * params, TOKENS_PER_PARAM_SOURCE)
    fit = FITS.get(rule)
    if fit is None:
        raise InputError("rule", f"unknown rule {rule!r}; choose one of {', '.join(RULES)}")
    params = fit.optimal_params(flop)
    tokens = flop / (TRAINING_FLOP_PER_PARAM_TOKEN * params)
    return Optimum(rule, flop, params, tokens, fit.source, fit.loss(params, tokens))


def iso_flop_curve(fit: LossFit, flop: float, params: list[float]) -> list[float]:
    """Loss along an iso-FLOP line: L(N, C/(6N)) for each N."""
    return [fit.loss(n, flop / (TRAINING_FLOP_PER_PARAM_TOKEN * n)) for n in params]


@dataclass(frozen=True, slots=True)
class InferenceAware(Result):
    """Sardana et al. 2023: same loss as the compute-optimal model, least training + inference FLOP."""

    params: float
    tokens: float
    loss: float
    training_flop: float
    inference_flop: float
    chinchilla_params: float
    chinchilla_tokens: float
    chinchilla_total_flop: float

    @property
    def total_flop(self) -> float:
        return self.training_flop + self.inference_flop


def inference_aware(flop: float, inference_tokens: float, fit: LossFit = BESIROGLU_2024) -> InferenceAware:
    """Minimise 6·N·D(N) + 2·N·D_inf over N, with D(N) the tokens that reach the loss of the compute-optimal
    model for ``flop`` (Sardana et al. 2023, https://arxiv.org/abs/2401.00448, eq. 2); a golden-section search
    on log N between the loss's smallest feasible N and N_opt (a larger model never costs less)."""
    flop = check_flop(flop)
    if isinstance(inference_tokens, bool) or not isinstance(inference_tokens, (int, float)) \
            or not math.isfinite(inference_tokens) or inference_tokens < 0 or inference_tokens > MAX_FLOP:
        raise InputError("inference_tokens", f"must be a number from 0 to {MAX_FLOP:.0e} tokens")
    n_opt = fit.optimal_params(flop)
    d_opt = flop / (TRAINING_FLOP_PER_PARAM_TOKEN * n_opt)
    target = fit.loss(n_opt, d_opt)

    def total(log_n: float) -> float:
        n = math.exp(log_n)
        d = fit.tokens_for_loss(n, target)
        return TRAINING_FLOP_PER_PARAM_TOKEN * n * d + INFERENCE_FLOP_PER_PARAM_TOKEN * n * inference_tokens

    # the smallest N that can reach the target: A/N^α < target − E
    n_min = (fit.A / (target - fit.E)) ** (1 / fit.alpha)
    lo, hi = math.log(n_min) + 1e-9, math.log(n_opt)
    ratio = (math.sqrt(5) - 1) / 2
    x1, x2 = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
    f1, f2 = total(x1), total(x2)
    for _ in range(200):
        if hi - lo < 1e-10:
            break
        if f1 < f2:
            hi, x2, f2 = x2, x1, f1
            x1 = hi - ratio * (hi - lo)
            f1 = total(x1)
        else:
            lo, x1, f1 = x1, x2, f2
            x2 = lo + ratio * (hi - lo)
            f2 = total(x2)
    n = math.exp((lo + hi) / 2)
    if total(math.log(n_opt)) <= total(math.log(n)):
        n = n_opt
    d = fit.tokens_for_loss(n, target)
    return InferenceAware(n, d, target, TRAINING_FLOP_PER_PARAM_TOKEN * n * d,
                          INFERENCE_FLOP_PER_PARAM_TOKEN * n * inference_tokens, n_opt, d_opt,
                          flop + INFERENCE_FLOP_PER_PARAM_TOKEN * n_opt * inference_tokens)


def iso_flop_lines(fit: LossFit, flop: float, decades: int = 1, points: int = 60) -> list[dict]:
    """Loss against N for budgets C·10^k (k = −decades … +decades): N from N_opt/30 to N_opt·30 of each
    budget, with the optimum of each line — the data of an iso-FLOP chart."""
    flop = check_flop(flop)
    lines = []
    for k in range(-decades, decades + 1):
        budget = flop * 10.0 ** k
        n_opt = fit.optimal_params(budget)
        ns = [n_opt * 30 ** (2 * i / (points - 1) - 1) for i in range(points)]
        lines.append({"flop": budget, "params": ns, "loss": iso_flop_curve(fit, budget, ns),
                      "optimal_params": n_opt,
                      "optimal_loss": fit.loss(n_opt, budget / (TRAINING_FLOP_PER_PARAM_TOKEN * n_opt))})
    return lines
