"""The Plan page's text, from the planner's results: figures checked against formulas written here."""
from __future__ import annotations

from types import SimpleNamespace

from engine.method1.training import TrainingSetup
from engine.plan.layout import Layout
from ui.views import plan as view


def test_global_batch_is_the_training_setups():
    layout = Layout(dp=8, global_batch=256)
    assert view.global_batch(TrainingSetup(examples=1e6, batch_size=512), layout) == 512
    assert view.global_batch(TrainingSetup(examples=1e6), layout) == 256
    assert view.global_batch(None, Layout(dp=8)) == 64


def test_step_parts_shares_add_up():
    step = SimpleNamespace(compute_s=3.0, bubble_s=0.5, tp_comm_s=0.25, pp_comm_s=0.0, dp_comm_s=0.25,
                           share=lambda s: s / 4.0)
    rows = view.step_parts(step)
    assert [r["share"] for r in rows] == ["75.0%", "12.5%", "6.2%", "0.0%", "6.2%"]
    assert sum(r["seconds"] for r in rows) == 4.0


def test_memory_metrics_in_gigabytes():
    mem = SimpleNamespace(total=70e9, model_states=60e9, activations=10e9, fits=True, largest_micro_batch=3)
    chip = SimpleNamespace(memory_gb=80, name="H100")
    best = SimpleNamespace(chips=16, layout=SimpleNamespace(dp=2, tp=8, pp=1))
    metrics = view.memory_metrics(mem, chip, best, SimpleNamespace(micro_batch=1))
    assert metrics[0] == ("Memory per chip (of 80 GB)", "70 GB", "model states 60 GB + activations 10 GB")
    assert metrics[3] == ("Fewest chips", "16", "d 2 × t 8 × p 1 at micro-batch 1")


def test_the_fit_sentence_counts_its_chips_in_the_right_number():
    mem = SimpleNamespace(total=10.5e9, weights=1.31e9, gradients=1.31e9, optimizer_states=7.87e9,
                          activations=0.0512e9, fits=True)
    chip = SimpleNamespace(memory_gb=80)
    one = view.fit_sentence(mem, SimpleNamespace(chips=1), chip)
    assert one.startswith("Fits: 10.5 GB per chip on 1 chip (80 GB each). Weights 1.31 GB"), one
    many = view.fit_sentence(SimpleNamespace(**{**vars(mem), "fits": False}), SimpleNamespace(chips=1024), chip)
    assert many.startswith("Does not fit: 10.5 GB per chip on 1,024 chips (80 GB each)."), many


def test_optimizer_labels_name_flop_and_bytes():
    assert view.optimizer_label("adam") == "Adam (18 FLOP/param/step, 16 B/param)"  # 2 + 2 + 12 (ZeRO)
    assert view.optimizer_label("sgd") == "SGD (2 FLOP/param/step, 8 B/param)"  # 2 + 2 + 4


def test_thresholds_say_how_far_a_run_is():
    lines = dict((text.split(":")[0], above) for above, text in view.threshold_lines(1e25))
    # 10^25 against the Commission's 10^23 indicator: 100× above; against Article 51(2)'s "greater than 10^25": at it
    assert lines["This run (1.00e25 FLOP) is 100× above the EU guidelines"] is True
    assert lines["This run (1.00e25 FLOP) is exactly at the EU AI Act"] is False
    assert view.modification_line(3e24).startswith("Modifying a model: above 1.00e24 FLOP (one third of this run)")


def _step(step_s=2.0, mfu=0.4):
    return SimpleNamespace(step_s=step_s, mfu=mfu, hfu=0.5, tokens_per_step=1e6, model="kernel model",
                           bubble_fraction=0.0, wall_clock_s=lambda tokens: tokens / 1e6 * step_s)


def test_step_mfu_and_wall_clock_carry_their_90_percent_range():
    from engine.plan.uncertainty import Interval

    span = Interval(1.8, 2.5, 30, "30 published runs (kernel model; all)")
    rows = {m[0]: m for m in view.step_metrics(_step(), 1e12, span)}
    # step × [0.9, 1.25]; MFU ÷ the same: 0.4 × 2 / 2.5 = 32%, 0.4 × 2 / 1.8 = 44.4%; wall-clock 1e6 steps × 2 s
    assert rows["Step time"][3] == "90%: 1.8 s – 2.5 s"
    assert rows["Predicted MFU"][3] == "90%: 32.0% – 44.4%"
    assert rows["Wall-clock"][1] == "23.1 days" and rows["Wall-clock"][3] == "90%: 20.8 days – 28.9 days"
    assert view.range_caption(span).startswith("90% ranges from the model's error on published runs (kernel model")


def test_the_bill_and_the_hardware_run_of_a_plan():
    from engine.method2.costs import costs_for_chip_hours
    from engine.method2.hardware_db import load_hardware_db
    from engine.plan.uncertainty import Interval

    h100 = load_hardware_db().chip("nvidia-h100-sxm")
    costs = costs_for_chip_hours(1000.0, h100, {"place": "fr"})
    span = Interval(1.8, 2.5, 30, "x")
    rows = {m[0]: m for m in view.bill_metrics(costs, 5.0, span, 2.0)}
    assert rows["Chip-hours"][1:] == ("1,000", "5 days of the layout's chips", "90%: 900 – 1,250")
    assert rows["Cost"][1] == "3,000 USD" and rows["Cost"][3] == "90%: 2,700 USD – 3,750 USD"  # 3 USD/chip-hour
    plan = SimpleNamespace(step=_step(), interval=span, chip=h100, layout=Layout(dp=8, global_batch=64),
                           options=SimpleNamespace(precision="fp8"))
    run = view.carry_run(plan, 1e12, {"place": "fr", "provider": None, "pue": None, "grid_kg_co2_per_kwh": None})
    days = 1e6 * 2 / 86_400
    assert (run["chip"], run["chip_count"], run["precision"], run["duration_unit"], run["place"]) == (
        "nvidia-h100-sxm", 8.0, "fp8", "days", "fr")
    # the point values only: days × utilization is the plan's FLOP, which independent ranges would widen
    assert run["duration"] == days and run["utilization"] == 0.4
    assert not {"duration_low", "duration_high", "utilization_low", "utilization_high"} & set(run)
    assert view.carry_sentence(plan, days) == (
        "From the Plan page: 8 × NVIDIA H100 SXM5 80 GB for 23.1 days (90%: 20.8 days – 28.9 days) in FP8, at the "
        "predicted MFU of 40.0% as the utilization: method 2 then gives the plan's training compute.")
