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


def test_optimizer_labels_name_flop_and_bytes():
    assert view.optimizer_label("adam") == "Adam (18 FLOP/param/step, 16 B/param)"  # 2 + 2 + 12 (ZeRO)
    assert view.optimizer_label("sgd") == "SGD (2 FLOP/param/step, 8 B/param)"  # 2 + 2 + 4


def test_thresholds_say_how_far_a_run_is():
    lines = dict((text.split(":")[0], above) for above, text in view.threshold_lines(1e25))
    # 10^25 against the Commission's 10^23 indicator: 100× above; against Article 51(2)'s "greater than 10^25": at it
    assert lines["This run (1.00e25 FLOP) is 100× above the EU guidelines"] is True
    assert lines["This run (1.00e25 FLOP) is exactly at the EU AI Act"] is False
    assert view.modification_line(3e24).startswith("Modifying a model: above 1.00e24 FLOP (one third of this run)")
