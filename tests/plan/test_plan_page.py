"""The "Plan a run" page through AppTest: figures worked out here from the formulas."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from engine.llm.config import read_hf_config
from engine.llm.presets import LLAMA2_7B_CONFIG
from engine.plan.model import plan_model
from tests.conftest import ROOT

LLAMA_7B_PARAMS = 6_738_415_616


def plan_page(preset: str | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    if preset:
        at.selectbox(key="preset_choice").set_value(preset).run()
        next(b for b in at.button if b.label == "Load preset").click().run()
    at.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def eight_way(at) -> AppTest:
    """The layout d = 8, t = p = 1, global batch 64 (set over the first layout offered)."""
    at.number_input(key="plan_batch").set_value(64).run()
    at.number_input(key="plan_pp").set_value(1).run()
    at.number_input(key="plan_tp").set_value(1).run()
    at.number_input(key="plan_dp").set_value(8).run()
    return at


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def gb(text: str) -> float:
    return float(text.split(" GB")[0].replace(",", ""))


@pytest.fixture(scope="module")
def llama():
    return plan_model(read_hf_config(LLAMA2_7B_CONFIG).architecture(4096))


def test_the_first_layout_offered_fits_and_divides(llama):
    at = plan_page("llama2-7b")
    # the fewest H100s that hold Llama 2 7B with ZeRO's 16 B/param and no recomputation: 2 stages of 16 blocks,
    # 16Ψ/2 + 2 micro-batches in flight × 16 blocks × 34·s·h (fused attention) + the embedding's outputs
    assert (at.number_input(key="plan_dp").value, at.number_input(key="plan_tp").value,
            at.number_input(key="plan_pp").value, at.number_input(key="plan_batch").value) == (1, 1, 2, 2)
    total = 16 * LLAMA_7B_PARAMS / 2 + 2 * (16 * 4096 * 4096 * 34 + llama.other_activation_values * 2 / 2)
    assert gb(metric(at, "Memory per chip (of 80 GB)")) == pytest.approx(total / 1e9, rel=5e-3)
    assert metric(at, "Fits") == "yes"
    reason = " ".join(i.value.replace("\\", "") for i in at.info)
    assert "First layout offered: the fewest chips that hold the model — d 1 × t 1 × p 2 = 2" in reason
    assert "it fits without recomputation" in reason and "m = p micro-batches" in reason
    assert at.session_state["scenario"].plan is None  # offered, not yet the user's


def test_llama_7b_memory_follows_the_formulas(llama):
    at = eight_way(plan_page("llama2-7b"))
    # H100 80 GB, Adam in BF16 (16 B/param), no ZeRO, d = 8, b = 1, no recomputation, fused attention
    per_block = 4096 * 4096 * 34  # s·b·h·34, Korthikanti et al. 2022 without the scores
    total = 16 * LLAMA_7B_PARAMS + 32 * per_block + llama.other_activation_values * 2
    assert gb(metric(at, "Memory per chip (of 80 GB)")) == pytest.approx(total / 1e9, rel=5e-3)
    assert metric(at, "Fits") == "no"
    # the scores stored: + 5·a·s²·b per block
    at.selectbox(key="plan_attention").set_value("stored").run()
    stored = total + 32 * 5 * 32 * 4096 ** 2
    assert gb(metric(at, "Memory per chip (of 80 GB)")) == pytest.approx(stored / 1e9, rel=5e-3)
    at.selectbox(key="plan_attention").set_value("fused").run()
    # ZeRO-3 over 8 replicas and full recomputation: 16Ψ/8 + 2·s·h per block
    at.selectbox(key="plan_zero").set_value(3).run()
    at.selectbox(key="plan_recompute").set_value("full").run()
    total = 16 * LLAMA_7B_PARAMS / 8 + 32 * 2 * 4096 * 4096 + llama.other_activation_values * 2
    assert gb(metric(at, "Memory per chip (of 80 GB)")) == pytest.approx(total / 1e9, rel=5e-3)
    assert metric(at, "Fits") == "yes"
    assert not at.exception


def test_bad_degrees_are_named_not_raised():
    at = eight_way(plan_page("llama2-7b"))
    at.number_input(key="plan_tp").set_value(5).run()
    assert any(e.value.replace("\\", "").startswith("tp: 5 does not divide the 32") for e in at.error)
    at.number_input(key="plan_tp").set_value(1).run()
    at.number_input(key="plan_micro").set_value(128).run()  # > the global batch of 64
    assert any(e.value.replace("\\", "").startswith("layout.micro_batch: 128 is larger than the global batch 64") for e in at.error)
    assert not at.exception


def test_thresholds_for_llama_7b():
    at = plan_page("llama2-7b")
    # Llama 2 7B preset: 9.22e22 FLOP (block count) → 1.1× below the 10^23 indicator, 108× below 10^25
    text = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert "1.1× below the EU guidelines" in text and "108× below the EU AI Act" in text


def test_default_model_without_blocks_still_plans():
    at = plan_page()  # the seed's CNN-LSTM: no transformer block, no tensor parallelism
    assert metric(at, "Fits") == "yes"
    at.number_input(key="plan_tp").set_value(2).run()
    assert any(e.value.replace("\\", "").startswith("tp: ") for e in at.error)
    assert not at.exception


def test_compute_optimal_table_for_gophers_budget():
    at = plan_page()
    at.number_input(key="plan_optimal_budget").set_value(5.76e23).run()
    table = at.dataframe[[i for i, d in enumerate(at.dataframe) if "tokens per parameter" in d.value.columns][0]].value
    row = table[table["rule"].str.startswith("20 tokens")].iloc[0]
    assert row["parameters"] == "69.3B"  # √(5.76e23/120) = 6.93e10: Chinchilla's 70B
    assert row["tokens"] == "1.39T" and row["tokens per parameter"] == "20"  # 20 × 6.93e10
    assert not at.exception


def test_the_plan_travels_in_the_share_link():
    from engine.share_link import decode
    at = eight_way(plan_page("llama2-7b"))
    at.number_input(key="plan_tp").set_value(4).run()
    at.selectbox(key="plan_zero").set_value(2).run()
    token = at.query_params["s"] if isinstance(at.query_params["s"], str) else at.query_params["s"][0]
    plan = decode(token).plan
    assert plan.layout.tp == 4 and plan.options.zero == 2 and plan.layout.dp == 8
    # a fresh session opened from that link shows the same layout
    fresh = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    fresh.query_params["s"] = token
    fresh.run()
    fresh.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert fresh.number_input(key="plan_tp").value == 4 and fresh.selectbox(key="plan_zero").value == 2
    assert not fresh.exception


def test_a_quick_form_scenario_gets_the_flop_sections_only():
    at = plan_page("nas")  # NAS (Zoph & Le 2016) is a quick form: its FLOP, but no layers
    assert any("need the model's layers" in i.value.replace("\\", "") for i in at.info)
    assert not any(m.label == "Fits" for m in at.metric)
    text = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert "below the EU AI Act" in text
    assert not at.exception


def test_visiting_the_page_leaves_the_link_alone():
    at = plan_page("llama2-7b")
    assert at.session_state["scenario"].plan is None
    at.number_input(key="plan_tp").set_value(2).run()
    assert at.session_state["scenario"].plan.layout.tp == 2


def test_the_framework_convention_changes_the_model_states(llama):
    # Llama 2 7B preset on 8 H100s (d = 8): ZeRO's 16 B → Megatron's 18 B per parameter
    at = eight_way(plan_page("llama2-7b"))
    before = gb(metric(at, "Memory per chip (of 80 GB)"))
    at.selectbox(key="plan_convention").set_value("megatron").run()
    assert not at.exception
    # the metric shows whole GB: 2 B × 6.74e9 = 13.5 GB more
    assert gb(metric(at, "Memory per chip (of 80 GB)")) - before == pytest.approx(2 * LLAMA_7B_PARAMS / 1e9, abs=1)
    assert at.session_state["scenario"].plan.options.convention == "megatron"


def test_the_kernel_model_step_is_shown_with_its_validation():
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel.step import kernel_step_for
    from engine.plan.layout import Layout, MemoryOptions
    at = eight_way(plan_page("llama2-7b"))
    kernel = kernel_step_for(plan_model(read_hf_config(LLAMA2_7B_CONFIG).architecture(4096)),
                             Layout(dp=8, global_batch=64), MemoryOptions(), "nvidia-h100-sxm",
                             interconnect_for("nvidia-h100-sxm"))
    # the plan's own MFU and step time come from the kernel model (dense blocks, BF16, H100)
    assert metric(at, "Predicted MFU") == f"{100 * kernel.mfu:.1f}%"
    assert any("kernel model" in c.value for c in at.caption)
    # the published runs by framework and role, and the first framework's runs with their sources
    assert any("framework" in df.value and "all" in set(df.value["framework"]) for df in at.dataframe)
    assert any("source" in df.value and df.value["source"].str.contains("Korthikanti").any()
               and "90% range, held out (s)" in df.value for df in at.dataframe)


def test_ranges_the_bill_by_place_and_the_carry_over_to_the_hardware_page():
    from engine.method2.hardware_db import load_hardware_db
    from engine.method2.places import grid_places, provider_pues
    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel.step import kernel_step_for
    from engine.plan.layout import Layout, MemoryOptions

    at = eight_way(plan_page("llama2-7b"))
    tokens = at.session_state["scenario"].tokens()
    step = kernel_step_for(plan_model(read_hf_config(LLAMA2_7B_CONFIG).architecture(4096)),
                           Layout(dp=8, global_batch=64), MemoryOptions(), "nvidia-h100-sxm",
                           interconnect_for("nvidia-h100-sxm")).step_s
    # each of step, MFU and wall-clock with its 90% range under the value, the step's around the step
    shown = {m.label: m for m in at.metric}
    for label in ("Step time", "Predicted MFU", "Wall-clock", "Chip-hours", "Cost", "Energy", "CO₂"):
        assert shown[label].delta.replace("\\", "").startswith("90%: "), label
    assert "90% ranges from the model's error on" in " ".join(c.value.replace("\\", "") for c in at.caption)
    # chip-hours = 8 chips × tokens / (64 × 4,096) steps × the step; cost at the H100's indicative 3 USD per hour;
    # energy at its 700 W TDP × PUE; CO₂ at the place's grid intensity (France, then Google's data centres)
    chip_hours = 8 * tokens / (64 * 4096) * step / 3600
    assert metric(at, "Chip-hours") == f"{chip_hours / 1e3:.3g}k"
    h100 = load_hardware_db().chip("nvidia-h100-sxm")
    assert metric(at, "Cost") == f"{chip_hours * h100.price_usd_per_hour / 1e3:.3g}k USD"
    at.selectbox(key="plan_place").set_value("fr").run()
    at.selectbox(key="plan_provider").set_value("google").run()
    kwh = chip_hours * h100.tdp_w / 1000 * provider_pues()["google"].pue
    assert metric(at, "Energy") == f"{kwh / 1000:,.3g} MWh"
    assert metric(at, "CO₂") == f"{kwh * grid_places()['fr'].kg_co2_per_kwh / 1000:,.3g} t CO₂"
    # carried to the hardware page: chips, count, days, format, utilization (the MFU) and the place
    next(b for b in at.button if b.label == "Use this layout on the hardware page").click().run()
    assert not at.exception, [e.value for e in at.exception]
    run = at.session_state["scenario"].hardware
    days = tokens / (64 * 4096) * step / 86_400
    assert (run.chip, run.chip_count, run.duration_unit, run.precision, run.place, run.provider) == (
        "nvidia-h100-sxm", 8, "days", "bf16", "fr", "google")
    assert run.duration == pytest.approx(days, rel=1e-9)
    # method 2 on the carried run gives the plan's training compute: chips × time × peak × MFU
    from engine.method2.run import estimate_method2
    plan_flop = at.session_state["scenario"].plan_model().forward_flop * 3 * tokens / 4096
    assert estimate_method2(run, load_hardware_db()).training_flop == pytest.approx(plan_flop, rel=1e-6)
    # the hardware page shows it: 8 chips for that many days, and says where it came from
    assert at.number_input(key="hw_count").value == 8
    assert at.number_input(key="hw_duration").value == pytest.approx(days)
    assert any(i.value.replace("\\", "").startswith("From the Plan page: 8 × NVIDIA H100") for i in at.info), [
        i.value for i in at.info]


def test_a_framework_without_a_pipeline_is_named_not_raised():
    at = plan_page("llama2-7b")  # the first layout offered has two pipeline stages
    at.selectbox(key="plan_convention").set_value("fsdp").run()
    assert any(e.value.replace("\\", "").startswith("pp: PyTorch FSDP has no pipeline parallelism") for e in at.error)
    at.number_input(key="plan_pp").set_value(1).run()
    at.selectbox(key="plan_zero").set_value(3).run()
    assert not at.exception and metric(at, "Fits") in ("yes", "no")
    assert at.session_state["scenario"].plan.options.convention == "fsdp"
