"""Hardware, precision and trends pages through AppTest: values worked out here from the formulas."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT
from tests.reference import (
    EPOCH_EXAMPLE_TRAINING,
    REPORTED_A100,
    REPORTED_A100_VALUES,
    REPORTED_LANGUAGE,
    flop,
    metric,
    percentile,
)

DAY_S = 86_400
A100_BF16 = 312e12   # NVIDIA A100 datasheet: BF16 tensor 312 TFLOP/s dense (624 with sparsity)
A100_FP32 = 19.5e12  # NVIDIA A100 datasheet: FP32 19.5 TFLOP/s
H100_BF16 = 989.4e12  # NVIDIA H100 SXM datasheet: BF16 1,979 TFLOP/s with sparsity → 989.4 dense


def page(name: str) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    at.switch_page(str(ROOT / "pages" / f"{name}.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at




def test_hardware_default_run():
    import math
    at = page("hardware")
    # default: 8 × A100 80 GB, 1 day, BF16 tensor cores, utilization the median of the reported A100-generation
    # language-model runs (34.0%), with their 5th–95th percentile as its 90% range
    assert flop(metric(at, "Training compute")) == pytest.approx(8 * DAY_S * A100_BF16 * REPORTED_A100, rel=5e-3)
    assert metric(at, "Peak used, per chip") == "312 TFLOP/s"
    assert at.selectbox(key="hw_u_preset").value == "reported"
    caption = " ".join(c.value for c in at.caption)
    low, high = percentile(REPORTED_A100_VALUES, 0.05), percentile(REPORTED_A100_VALUES, 0.95)
    assert "median of 8 reported utilizations" in caption and "34%" in caption
    assert f"90% range {100 * low:.0f}–{100 * high:.0f}%" in caption and "PaLM 540B" in caption
    # the utilization's range alone makes the interval: log-normal with [low, high] as its 90% interval
    z = 1.6448536269514722
    point = 8 * DAY_S * A100_BF16 * REPORTED_A100
    mu, sigma = math.log(point * math.sqrt(low * high) / REPORTED_A100), math.log(high / low) / (2 * z)
    lo, hi = metric(at, "90% interval").replace(" FLOP", "").split(" – ")
    assert float(lo) == pytest.approx(math.exp(mu - z * sigma), rel=5e-3)
    assert float(hi) == pytest.approx(math.exp(mu + z * sigma), rel=5e-3)


def test_hardware_edits_follow_the_formula():
    at = page("hardware")
    at.number_input(key="hw_count").set_value(16.0).run()
    at.selectbox(key="hw_chip").set_value("nvidia-h100-sxm").run()
    at.selectbox(key="hw_u_preset").set_value("openai-gpu").run()
    assert flop(metric(at, "Training compute")) == pytest.approx(16 * DAY_S * H100_BF16 * 0.33, rel=5e-3)
    at.selectbox(key="hw_unit").set_value("chip_hours").run()
    at.number_input(key="hw_duration").set_value(1000.0).run()
    assert flop(metric(at, "Training compute")) == pytest.approx(1000 * 3600 * H100_BF16 * 0.33, rel=5e-3)


def test_hardware_uses_the_chips_usual_format_and_says_so():
    at = page("hardware")
    at.selectbox(key="hw_chip").set_value("nvidia-tesla-v100-sxm2").run()
    # no format chosen: the V100's usual FP16 tensor, 125 TFLOP/s (datasheet), as the CLI does
    assert not at.error
    assert flop(metric(at, "Training compute")) == pytest.approx(8 * DAY_S * 125e12 * REPORTED_LANGUAGE, rel=5e-3)
    assert any("Assumed FP16 tensor" in i.value.replace("\\", "") for i in at.info)
    at.selectbox(key="hw_chip").set_value("nvidia-gtx-580").run()
    # Fermi: FP32, 512 cores × 1544 MHz × 2 (GTX 580 datasheet)
    assert flop(metric(at, "Training compute")) == pytest.approx(8 * DAY_S * 512 * 1544e6 * 2 * REPORTED_LANGUAGE, rel=5e-3)


def test_hardware_missing_format_is_a_named_error_or_a_visible_fallback():
    at = page("hardware")
    at.selectbox(key="hw_chip").set_value("nvidia-tesla-v100-sxm2").run()
    at.selectbox(key="hw_precision").set_value("bf16").run()
    assert any("precision" in e.value.replace("\\", "") and "bf16" in e.value.replace("\\", "") for e in at.error)
    at.checkbox(key="hw_fallback").check().run()
    assert any("Fallback peak" in w.value.replace("\\", "") for w in at.warning)
    # V100: FP16 tensor 125 TFLOP/s (datasheet), used in BF16's place
    assert flop(metric(at, "Training compute")) == pytest.approx(8 * DAY_S * 125e12 * REPORTED_LANGUAGE, rel=5e-3)


def test_hardware_bad_values_are_named():
    at = page("hardware")
    at.number_input(key="hw_duration").set_value(0.0).run()
    assert any("duration" in e.value.replace("\\", "") for e in at.error)
    assert not at.exception


def test_pristine_hardware_page_holds_the_comparison_until_a_run_is_entered():
    """The example run (8 A100s for a day) has nothing to do with the default model: no warning, no ratio;
    the info says how long method 1's compute would take on those chips: C1 / (8 × 312e12 × u) s, u the
    reported-runs median."""
    at = page("hardware")
    assert not at.warning and not any(m.label == "Ratio method 2 ÷ method 1" for m in at.metric)
    info = " ".join(i.value for i in at.info)
    assert "example" in info and "enter your run" in info
    seconds = EPOCH_EXAMPLE_TRAINING / (8 * A100_BF16 * REPORTED_A100)
    assert f"{seconds:.3g} s" in info
    assert at.session_state["scenario"].hardware is None  # not written into the scenario or the link


def test_consistency_against_the_layer_builder():
    at = page("hardware")
    at.number_input(key="hw_duration").set_value(2.0).run()  # the user's run: 8 A100s for 2 days
    m1 = EPOCH_EXAMPLE_TRAINING
    m2 = 8 * 2 * DAY_S * A100_BF16 * REPORTED_A100
    assert metric(at, "Ratio method 2 ÷ method 1") == f"{float(f'{m2 / m1:.3g}'):,.0f} ×"
    assert any("more than 3× apart" in w.value.replace("\\", "") for w in at.warning)


def test_precision_mixed_split():
    at = page("precision")
    at.toggle(key="pr_use_mixed").set_value(True).run()
    # 90% of the work in BF16, 10% in FP32: effective peak = 1 / (0.9/312e12 + 0.1/19.5e12)
    effective = 1 / (0.9 / A100_BF16 + 0.1 / A100_FP32)
    value = 1e12 * float(metric(at, "Effective peak per chip").removesuffix(" TFLOP/s"))
    assert value == pytest.approx(effective, rel=5e-3)
    assert flop(metric(at, "Method 2 training compute")) == pytest.approx(8 * DAY_S * effective * REPORTED_A100, rel=5e-3)


def test_trends_fits_and_placement():
    at = page("trends")
    table = at.dataframe[0].value
    openai = table[table["window"].str.startswith("OpenAI")].iloc[0]
    assert 3.0 <= float(openai["doubling (months)"]) <= 4.0  # OpenAI 2018: 3.4 months
    pre = table[table["window"].str.startswith("Pre-deep")].iloc[0]
    assert 12 <= float(pre["doubling (months)"]) <= 30  # Epoch 2022: ≈ 20 months
    assert any("larger than every known run before" in m.value for m in at.markdown)


def test_trends_domain_filter():
    at = page("trends")
    at.selectbox(key="trends_domain").set_value("Language").run()
    assert not at.exception and len(at.dataframe[0].value) >= 1


def test_hardware_ranges_give_a_90_percent_interval_and_a_confidence_label():
    import math
    at = page("hardware")
    at.number_input(key="hw_count_low").set_value(6.0).run()
    at.number_input(key="hw_count_high").set_value(12.0).run()
    at.number_input(key="hw_u_low").set_value(0.3).run()
    at.number_input(key="hw_u_high").set_value(0.5).run()
    assert not at.exception and not at.error
    # log-normal factors, each range its 90% interval: ln C ~ N(μ, σ²), the interval μ ± 1.645σ
    z = 1.6448536269514722
    point = 8 * DAY_S * A100_BF16 * REPORTED_A100
    mu = math.log(point) + math.log(math.sqrt(6 * 12) / 8) + math.log(math.sqrt(0.3 * 0.5) / REPORTED_A100)
    sigma = math.hypot(math.log(12 / 6) / (2 * z), math.log(0.5 / 0.3) / (2 * z))
    low, high = (metric(at, "90% interval").replace(" FLOP", "").split(" – "))
    assert float(low) == pytest.approx(math.exp(mu - z * sigma), rel=5e-3)
    assert float(high) == pytest.approx(math.exp(mu + z * sigma), rel=5e-3)
    assert metric(at, "Confidence (Epoch's labels)") == "Confident"


def test_hardware_bad_range_is_a_named_error():
    at = page("hardware")
    at.number_input(key="hw_count_low").set_value(20.0).run()
    assert any("chip_count_low" in e.value.replace("\\", "") for e in at.error)
    assert not at.exception


def test_hardware_unknown_year_shows_the_trend_and_its_band():
    at = page("hardware")
    at.radio(key="hw_source").set_value("year").run()
    at.number_input(key="hw_year").set_value(2011).run()
    at.selectbox(key="hw_class").set_value("workstation_consumer").run()
    assert not at.exception and not at.error
    assert metric(at, "90% interval")
    assert any("Assumed FP32" in i.value.replace("\\", "") for i in at.info)
    assert any("trend of the faster" in c.value for c in at.caption)


def test_hardware_offers_the_reported_utilization_prior_as_a_preset():
    at = page("hardware")
    at.selectbox(key="hw_u_preset").set_value("reported-2020-2021-2048-plus").run()
    # median of PaLM 46.2%, MT-NLG 30.2%, Megatron-LM 1T 163/312, MegaScale 55.2% (utilization_reports.csv)
    values = sorted([0.462, 0.302, 0.522, 0.552])
    median = (values[1] + values[2]) / 2
    assert flop(metric(at, "Training compute")) == pytest.approx(8 * DAY_S * A100_BF16 * median, rel=5e-3)
    assert any("PaLM 540B" in c.value for c in at.caption)


def test_hardware_page_states_the_assumed_format_once():
    """A chip with no format chosen runs in its usual one, and the page says so once (not also as a caption)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "pages" / "hardware.py"), default_timeout=60).run()
    said = [str(e.value) for kind in ("info", "caption", "warning") for e in getattr(at, kind)]
    assert sum("assumed" in s.lower() and "usual training format" in s for s in said) == 1, said


@pytest.mark.parametrize("script", sorted(p.name for p in (ROOT / "pages").glob("*.py")) + ["../app.py"])
def test_no_page_shows_a_stray_string(script):
    """Streamlit draws a page's bare expressions ('magic'): a string standing alone after the module
    docstring — an attribute docstring, a note to ourselves — would appear on the page as text."""
    import ast

    def strays(body, top):
        for i, node in enumerate(body):
            if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                    and isinstance(node.value.value, str) and not (top and i == 0)):
                yield node.lineno, node.value.value[:60]
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                for attr in ("body", "orelse", "finalbody", "handlers"):
                    yield from strays(getattr(node, attr, []) or [], False)

    tree = ast.parse((ROOT / "pages" / script).read_text(encoding="utf-8"))
    assert list(strays(tree.body, True)) == []


def test_hardware_co2_by_place_and_provider():
    # default run: 8 A100 80 GB × 24 h = 192 chip-hours × 400 W (TDP) × PUE 1.1 = 84.48 kWh; world 0.48 kg/kWh
    at = page("hardware")
    assert metric(at, "CO₂") == "40.6 kg CO₂"
    at.selectbox(key="hw_place").set_value("fr").run()  # France: 57 g/kWh (Luccioni et al. 2022)
    assert not at.exception and metric(at, "CO₂") == "4.82 kg CO₂"
    at.selectbox(key="hw_provider").set_value("meta").run()  # Meta: PUE 1.09
    assert metric(at, "CO₂") == "4.77 kg CO₂" and metric(at, "Energy") == "83.7 kWh"
    assert at.session_state["scenario"].hardware.place == "fr"
