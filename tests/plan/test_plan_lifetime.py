"""Lifetime compute: training + 2·N_active per token served + attention (Kaplan et al. 2020, Table 1)."""
from __future__ import annotations

import math

import pytest

from engine.errors import InputError
from engine.plan.lifetime import lifetime_compute


def test_llama2_7b_serving_one_trillion_tokens():
    # Llama 2 7B: 6.74e9 parameters, 32 layers, d_attn 4,096; trained on 2T tokens ≈ 6·N·D
    n, train = 6.738e9, 6 * 6.738e9 * 2e12
    life = lifetime_compute(train, 1e12, n, layers=32, context=2048, attention_width=4096)
    per_token = 2 * n + 2 * 32 * 2048 * 4096
    assert life.inference_flop_per_token == pytest.approx(per_token)
    assert life.total_flop == pytest.approx(train + 1e12 * per_token)
    assert life.break_even_tokens == pytest.approx(train / per_token)


def test_no_serving_is_training_alone():
    life = lifetime_compute(1e24, 0, 7e9)
    assert life.total_flop == 1e24 and life.inference_share == 0


@pytest.mark.parametrize("field,kwargs", [
    ("tokens_served", {"tokens_served": -1.0}), ("tokens_served", {"tokens_served": math.nan}),
    ("training_flop", {"training_flop": math.inf}), ("active_params", {"active_params": -5.0}),
])
def test_bad_input_names_the_field(field, kwargs):
    args = {"training_flop": 1e24, "tokens_served": 1e12, "active_params": 7e9} | kwargs
    with pytest.raises(InputError, match=f"^{field}: "):
        lifetime_compute(**args)
