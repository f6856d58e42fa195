"""Regulatory thresholds: EU AI Act Art. 51(2) 10^25, the Commission's 10^23 indicator, California SB 53 10^26."""
from __future__ import annotations

import math

import pytest

from engine.plan.thresholds import THRESHOLDS, compare, modification_threshold


def test_thresholds_and_their_sources():
    by_key = {t.key: t for t in THRESHOLDS}
    assert by_key["eu-ai-act-systemic-risk"].flop == 1e25 and "Article 51(2)" in by_key["eu-ai-act-systemic-risk"].source
    assert by_key["eu-gpai-indicator"].flop == 1e23
    assert by_key["ca-sb53-frontier"].flop == 1e26 and "53" in by_key["ca-sb53-frontier"].source
    assert all(t.url.startswith("https://") for t in THRESHOLDS)
    assert all(t.date[:4] in ("2024", "2025") for t in THRESHOLDS)  # every threshold carries its legal date


def test_new_york_raise_act():
    # RAISE Act, N.Y. Gen. Bus. Law § 1420 (S6953-B, signed 19 Dec 2025): "trained using greater than 10^26
    # computational operations"; the signed text's 100-million-dollar compute-cost test is dropped by the
    # chapter amendment (A9449 / S8828), which the threshold's text must say
    ny = {t.key: t for t in THRESHOLDS}["ny-raise-frontier"]
    assert ny.flop == 1e26 and "2025-12-19" in ny.date and "S6953" in ny.source
    assert "100 million dollars" in ny.meaning and "A9449" in ny.meaning
    standing = {s.threshold.key: s for s in compare(3.8e25)}  # Llama 3.1 405B (Dubey et al. 2024)
    assert not standing["ny-raise-frontier"].above
    assert "2.6× below the New York RAISE Act" in standing["ny-raise-frontier"].sentence()
    assert "above the New York RAISE Act" in compare(2e26)[-1].sentence()


def test_every_threshold_in_one_sentence():
    from engine.plan.thresholds import every_sentence
    text = every_sentence(3.14e23)  # GPT-3 175B
    assert text.startswith("This run is 3.1× above the EU guidelines")
    assert "32× below the EU AI Act" in text and text.endswith("318× below the New York RAISE Act: frontier "
                                                                "model (10^26 FLOP).")
    assert text.count("× ") == len(THRESHOLDS)


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


def nearest_sentence(flop: float, subject: str = "This run") -> str:
    """The sentence for the threshold nearest to ``flop`` on a log scale: what a total is shown with."""
    if not (flop > 0 and math.isfinite(flop)):
        return f"{subject}: no finite positive compute to compare with the thresholds."
    # on logs: a tiny total (utilization 1e-320) makes flop / threshold underflow to 0
    standing = min(compare(flop), key=lambda s: abs(math.log10(flop) - math.log10(s.threshold.flop)))
    if standing.ratio == 0:
        return f"{subject} is far below every threshold."
    return standing.sentence(subject)


def test_nearest_threshold_sentence():
    assert nearest_sentence(1e25 / 3.2) == ("This run is 3.2× below the EU AI Act: systemic-risk presumption "
                                            "(10^25 FLOP).")
    assert "above the California SB 53" in nearest_sentence(4e26)


def test_report_has_the_thresholds_with_sources():
    from engine.presets import presets
    from engine.report import markdown_report
    report = markdown_report(presets()["gpt3-175b"].scenario)
    section = report.split("## Regulatory thresholds")[1].split("## Sources")[0]
    # the preset's block count: 3.23e23 FLOP → 31× below 10^25, 3.2× above 10^23
    assert "31× below the EU AI Act" in section and "Article 51(2)" in section
    assert "3.2× above the EU guidelines" in section and "SB 53" in section


def test_each_threshold_line_cites_its_text_date_and_link_once():
    """The report and the Plan page write a threshold's source the same way: text; date, link."""
    from engine.plan.thresholds import markdown_section
    from ui.views.plan import threshold_lines
    report = markdown_section(1e24)[2:2 + len(THRESHOLDS)]
    page = [line for _, line in threshold_lines(1e24)]
    for t, r, p in zip(THRESHOLDS, report, page, strict=True):
        cited = f"Source: {t.source}; {t.date}, {t.url}"
        assert r.endswith(cited) and p.endswith(cited), t.key
        assert r.count(t.url) == p.count(t.url) == 1


def test_totals_and_trend_chart_show_the_thresholds():
    from streamlit.testing.v1 import AppTest

    from tests.conftest import ROOT
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    seed = 3 * 128_000 * (20 * (2 * 200 * 200 * 16 * 125 + 8 * (640_000 * 256 + 256 ** 2)) + 5_120)
    captions = " ".join(c.value for c in at.caption)
    assert round(1e23 / seed, -4) == 8_850_000  # three digits: 8.85e6
    assert "8.85e6× below the EU guidelines" in captions
    at.switch_page(str(ROOT / "pages" / "trends.py")).run()
    assert not at.exception
    charts = [el.proto.spec for el in at.get("plotly_chart")]
    assert any("10^25" in spec and "EU AI Act" in spec for spec in charts)


def test_report_has_the_saved_plan():
    from engine.plan.layout import PlanInputs
    from engine.presets import presets
    from engine.report import markdown_report
    saved = PlanInputs.model_validate({"chip": "nvidia-a100-sxm4-80gb", "layout": {"dp": 8, "global_batch": 64},
                                       "options": {"zero": 3, "recompute": "full"}})
    report = markdown_report(presets()["llama2-7b"].scenario.model_copy(update={"plan": saved}))
    section = report.split("## Plan — memory and time")[1].split("## ")[0]
    assert f"model states {16 * 6_738_415_616 / 8 / 1e9:.4g} GB" in section and "— fits" in section
    assert "predicted MFU" in section
    broken = PlanInputs.model_validate({"layout": {"tp": 5, "global_batch": 64}})
    report = markdown_report(presets()["llama2-7b"].scenario.model_copy(update={"plan": broken}))
    assert "**Error:** tp\\: 5 does not divide the 32 attention heads" in report  # Markdown-inert, as user text


def test_a_link_cannot_smuggle_markup_into_the_plan():
    import pytest as _pytest

    from engine.errors import InputError
    from engine.presets import presets
    from engine.scenario import parse_scenario
    data = presets()["llama2-7b"].scenario.model_dump(mode="json") | {"plan": {"chip": "x`<script>`"}}
    with _pytest.raises(InputError, match=r"^plan\.chip: "):
        parse_scenario(data)


def test_far_factors_read_with_three_digits():
    """No false precision: 1.13e16 FLOP is 1e26 / 1.13e16 = 8.85 × 10^9 times below 10^26, printed 8.85e9×, not
    8,849,557,522×; a factor under 10,000 stays a whole number."""
    standing = {s.threshold.key: s for s in compare(1.13e16)}
    assert "is 8.85e9× below the California SB 53" in standing["ca-sb53-frontier"].sentence()
    assert "is 8.85e6× below the EU guidelines" in standing["eu-gpai-indicator"].sentence()
    assert "is 1,250× below the EU AI Act" in {s.threshold.key: s for s in compare(8e21)}[
        "eu-ai-act-systemic-risk"].sentence()
