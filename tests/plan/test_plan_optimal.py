"""Compute-optimal size: the 20-token rule, Hoffmann's approach-3 fit and Besiroglu et al.'s refit."""
from __future__ import annotations

import math

import pytest

from engine.errors import InputError
from engine.plan.optimal import (
    BESIROGLU_2024,
    FITS,
    HOFFMANN_APPROACH3,
    compute_optimal,
    inference_aware,
    iso_flop_curve,
)

GOPHER_FLOP = 5.76e23
"""Gopher's training budget, for which Hoffmann et al. 2022 trained Chinchilla (70B, 1.4T tokens)."""


def test_twenty_tokens_per_parameter_gives_chinchilla_for_gophers_budget():
    # Hoffmann et al. 2022, §1/Table 3: Chinchilla, 70B parameters and 1.4T tokens, on Gopher's 5.76e23 FLOP
    opt = compute_optimal(GOPHER_FLOP, "tokens-per-param")
    assert opt.params == pytest.approx(70e9, rel=0.015)
    assert opt.tokens == pytest.approx(1.4e12, rel=0.015)
    assert 6 * opt.params * opt.tokens == pytest.approx(GOPHER_FLOP, rel=1e-12)
    assert opt.tokens / opt.params == pytest.approx(20)


@pytest.mark.parametrize("rule,E,A,B,alpha,beta", [
    ("hoffmann-approach3", 1.69, 406.4, 410.7, 0.34, 0.28),
    ("besiroglu-2024", 1.8172, 482.01, 2085.43, 0.3478, 0.3658),
])
@pytest.mark.parametrize("flop", [1e21, GOPHER_FLOP, 3.8e25])
def test_fit_optimum_is_the_papers_closed_form(rule, E, A, B, alpha, beta, flop):
    G = (alpha * A / (beta * B)) ** (1 / (alpha + beta))
    n = G * (flop / 6) ** (beta / (alpha + beta))
    d = flop / (6 * n)
    opt = compute_optimal(flop, rule)
    assert opt.params == pytest.approx(n, rel=1e-12)
    assert opt.tokens == pytest.approx(d, rel=1e-12)
    assert opt.loss == pytest.approx(E + A / n ** alpha + B / d ** beta, rel=1e-12)


@pytest.mark.parametrize("fit", list(FITS.values()))
def test_optimum_is_the_minimum_of_the_iso_flop_curve(fit):
    opt = compute_optimal(GOPHER_FLOP, fit.key)
    near = iso_flop_curve(fit, GOPHER_FLOP, [opt.params / 1.05, opt.params, opt.params * 1.05])
    assert near[1] < near[0] and near[1] < near[2]


def test_exponents_match_the_published_scaling():
    # Hoffmann et al. 2022, Table 2: approach 3 gives N_opt ∝ C^0.46 (from the rounded α, β: 0.4516)
    assert HOFFMANN_APPROACH3.a == pytest.approx(0.46, abs=0.01)
    # Besiroglu et al. 2024: their refit gives a = β/(α+β) = 0.5126 (equal scaling, like approaches 1 and 2)
    assert BESIROGLU_2024.a == pytest.approx(0.5126, abs=5e-5)


def test_inference_aware_without_serving_is_the_compute_optimum():
    ia = inference_aware(GOPHER_FLOP, 0)
    assert ia.params == pytest.approx(ia.chinchilla_params, rel=1e-6)
    assert ia.training_flop == pytest.approx(GOPHER_FLOP, rel=1e-6)


def test_inference_aware_is_smaller_longer_trained_and_cheaper_overall():
    # Sardana et al. 2023: with heavy serving, train a smaller model longer to the same loss
    served = 2e13
    ia = inference_aware(GOPHER_FLOP, served)
    assert ia.params < ia.chinchilla_params and ia.tokens > ia.chinchilla_tokens
    assert BESIROGLU_2024.loss(ia.params, ia.tokens) == pytest.approx(ia.loss, rel=1e-9)
    assert ia.total_flop < ia.chinchilla_total_flop
    # first-order condition: total cost is minimal along the equal-loss curve
    def total(n):
        d = BESIROGLU_2024.tokens_for_loss(n, ia.loss)
        return 6 * n * d + 2 * n * served
    assert total(ia.params) <= min(total(ia.params * 1.02), total(ia.params / 1.02))


@pytest.mark.parametrize("bad", [0, -1.0, math.nan, math.inf, 1e308, "1e24", True, 5e-324, 0.5])
def test_bad_budget_names_the_field(bad):
    """5e-324 FLOP once passed and divided by parameters that underflowed to 0 (a fuzzed CLI call)."""
    with pytest.raises(InputError) as err:
        compute_optimal(bad, "tokens-per-param")
    assert str(err.value).startswith("flop: ")


def test_unknown_rule_names_the_field():
    with pytest.raises(InputError, match="^rule: "):
        compute_optimal(1e24, "kaplan")


@pytest.mark.parametrize("bad", [-1.0, math.nan, 1e100, True, "1e9"])
def test_bad_inference_tokens_say_the_bound(bad):
    """1e100 is finite and positive: the message said 'must be a finite number ≥ 0'; it gives the bound."""
    with pytest.raises(InputError, match=r"^inference_tokens: must be a number from 0 to 1e\+40 tokens$"):
        inference_aware(GOPHER_FLOP, bad)
