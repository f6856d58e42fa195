"""The layer builder's views, without Streamlit: metric tuples, the training formula, the add-a-layer groups,
the table with unreached rows."""
from __future__ import annotations

import math

from engine.method1.kinds import KIND_BY_TYPE
from engine.scenario import parse_scenario
from tests.reference import EPOCH_EXAMPLE
from ui.views.method1 import interval_metrics, kind_groups, table_with_unreached, totals_metrics, training_latex

CONV, LSTM, FC = 2 * 200 * 200 * 16 * 125, 8 * (640_000 * 256 + 256 ** 2), 2 * 256 * 10  # matmul convention


def test_the_worked_example_totals():
    est = parse_scenario(EPOCH_EXAMPLE).method1()
    metrics = dict((label, value) for label, value, _ in totals_metrics(est))
    training = 3 * 128_000 * (20 * (CONV + LSTM) + FC)
    assert metrics["Training compute"] == f"{training:.3g}".replace("e+", "e") + " FLOP"
    assert metrics["Parameters"] == f"{2016 + 4 * (640_000 * 256 + 256 ** 2 + 512) + 2570:,}"
    assert all(label.endswith("(stale)") for label, _, _ in totals_metrics(est, stale=True))


def test_training_formula_shows_the_passes_and_the_total():
    est = parse_scenario(EPOCH_EXAMPLE).method1()
    latex = training_latex(est, recomputation=False)
    assert r"\times 3 \times" in latex and "(1 + r)" in latex and "+ 1" not in latex
    assert "+ u P S" not in latex


def test_every_registered_kind_is_in_exactly_one_group():
    groups = kind_groups(list(KIND_BY_TYPE))
    listed = [k for _, kinds in groups for k in kinds]
    assert sorted(listed) == sorted(KIND_BY_TYPE) and len(listed) == len(set(listed))
    assert kind_groups(["dense", "a_new_kind"]) == [("Dense & recurrent", ["dense"]), ("More", ["a_new_kind"])]


def test_rows_the_evaluation_did_not_reach_keep_the_last_valid_figures():
    good = parse_scenario(EPOCH_EXAMPLE).method1(strict=False)
    broken = parse_scenario({**EPOCH_EXAMPLE, "layers": [*EPOCH_EXAMPLE["layers"][:3],
                                                           {"type": "conv2d", "filters": 4, "kernel_size": 3}]})
    est = broken.method1(strict=False)
    assert est.error is not None and est.error.field.startswith("layers[3]")
    rows = table_with_unreached(est, broken.layers, 0, stale=good)
    last = rows[-1]
    assert last["#"] == 3 and last["status"] == "⚠ error"
    assert math.isnan(last["params"])  # a conv2d where a dense was: no old figures for it
    assert [r["layer"] for r in rows[:3]] == ["conv2d", "flatten", "lstm"]
    assert rows[2]["params"] == 4 * (640_000 * 256 + 256 ** 2 + 2 * 256)


def test_interval_metrics_name_the_ranges():
    est = parse_scenario({**EPOCH_EXAMPLE, "training": {**EPOCH_EXAMPLE["training"],
                                                                           "backward_ratio_low": 1,
                                                                           "backward_ratio_high": 3}}).method1()
    (label, value, tooltip), (conf_label, _, _) = interval_metrics(est.training.interval)
    assert label == "90% interval" and " – " in value and "r" in tooltip
    assert conf_label.startswith("Confidence")


def test_the_table_leaves_out_columns_that_say_nothing():
    from ui.views.method1 import visible_columns

    est = parse_scenario(EPOCH_EXAMPLE).method1()
    rows = table_with_unreached(est, parse_scenario(EPOCH_EXAMPLE).layers, 0)
    # no names, nothing frozen, every layer reached: 8 columns fit 1440 px without a cut one
    assert visible_columns(rows) == ["path", "layer", "output", "params", "forward FLOP", "backward FLOP", "MACs",
                                     "share"]
    frozen = [{**rows[0], "trainable": 0, "name": "stem", "status": "not reached"}] + rows[1:]
    assert {"name", "trainable", "status"} <= set(visible_columns(frozen))
