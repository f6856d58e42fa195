"""Student's t without scipy, against printed table values."""
from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.trends.student_t import regularized_incomplete_beta, t_cdf, t_quantile

# Two-sided critical values from any t table (e.g. NIST/SEMATECH e-Handbook, Table 1.3.6.7.2)
TABLE = [
    (0.975, 1, 12.706), (0.975, 2, 4.303), (0.975, 5, 2.571), (0.975, 10, 2.228), (0.975, 13, 2.160),
    (0.975, 30, 2.042), (0.975, 100, 1.984), (0.95, 20, 1.725), (0.995, 5, 4.032), (0.9995, 1, 636.619),
]


@pytest.mark.parametrize("p,df,expected", TABLE)
def test_quantile_matches_the_table(p, df, expected):
    assert t_quantile(p, df) == pytest.approx(expected, abs=6e-4)


def test_large_df_approaches_the_normal_quantile():
    assert t_quantile(0.975, 1e6) == pytest.approx(1.959964, abs=1e-4)


def test_cdf_known_values_and_symmetry():
    assert t_cdf(0.0, 3) == 0.5
    # df = 1 is the Cauchy distribution: F(t) = 1/2 + atan(t)/π
    for t in (-3.0, -0.5, 0.7, 10.0):
        assert t_cdf(t, 1) == pytest.approx(0.5 + math.atan(t) / math.pi, abs=1e-12)
    # df = 2: F(t) = 1/2 + t / (2·sqrt(2 + t²))
    assert t_cdf(1.3, 2) == pytest.approx(0.5 + 1.3 / (2 * math.sqrt(2 + 1.3 ** 2)), abs=1e-12)
    assert t_quantile(0.025, 10) == pytest.approx(-t_quantile(0.975, 10))


def test_incomplete_beta_closed_forms():
    # I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 − (1 − x)^b
    assert regularized_incomplete_beta(1, 1, 0.3) == pytest.approx(0.3)
    assert regularized_incomplete_beta(2.5, 1, 0.4) == pytest.approx(0.4 ** 2.5)
    assert regularized_incomplete_beta(1, 3, 0.2) == pytest.approx(1 - 0.8 ** 3)


@pytest.mark.parametrize("p,df", [(0.0, 5), (1.0, 5), (0.5, 0), (0.9, -1)])
def test_bad_arguments(p, df):
    with pytest.raises(ValueError):
        t_quantile(p, df)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.001, 0.999), st.integers(1, 500))
def test_quantile_inverts_the_cdf(p, df):
    assert t_cdf(t_quantile(p, df), df) == pytest.approx(p, abs=1e-9)
