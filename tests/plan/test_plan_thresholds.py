"""Regulatory thresholds: EU AI Act Art. 51(2) 10^25, the Commission's 10^23 indicator, California SB 53 10^26."""
from __future__ import annotations

import pytest

from engine.plan.thresholds import THRESHOLDS, compare, modification_threshold


def test_thresholds_and_their_sources():
    by_key = {t.key: t for t in THRESHOLDS}
    assert by_key["eu-ai-act-systemic-risk"].flop == 1e25 and "Article 51(2)" in by_key["eu-ai-act-systemic-risk"].source
    assert by_key["eu-gpai-indicator"].flop == 1e23
    assert by_key["ca-sb53-frontier"].flop == 1e26 and "53" in by_key["ca-sb53-frontier"].source
    assert all(t.url.startswith("https://") for t in THRESHOLDS)


def test_sentence_says_how_far_below():
    eu = next(s for s in compare(1e25 / 3.2) if s.threshold.key == "eu-ai-act-systemic-risk")
    assert not eu.above
    assert "3.2× below" in eu.sentence()


def test_gpt3_is_above_the_indicator_and_below_the_eu_threshold():
    # GPT-3 175B: 3.14e23 FLOP (Brown et al. 2020, App. D)
    standing = {s.threshold.key: s for s in compare(3.14e23)}
    assert standing["eu-gpai-indicator"].above
    assert standing["eu-gpai-indicator"].ratio == pytest.approx(3.14)
    assert "32× below" in standing["eu-ai-act-systemic-risk"].sentence()
    assert "318× below" in standing["ca-sb53-frontier"].sentence()


def test_exactly_at_the_threshold_is_not_above():
    # Art. 51(2): "greater than 10^25"
    eu = next(s for s in compare(1e25) if s.threshold.key == "eu-ai-act-systemic-risk")
    assert not eu.above and "exactly" in eu.sentence()


def test_one_third_rule_for_modifications():
    assert modification_threshold(3.8e25) == pytest.approx(3.8e25 / 3)
    assert modification_threshold(None, systemic_risk=True) == pytest.approx(1e25 / 3)
    assert modification_threshold(None) == pytest.approx(1e23 / 3)
