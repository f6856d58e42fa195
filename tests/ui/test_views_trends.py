"""The trends page's views, without Streamlit: figures worked out here (exact exponentials, ranks counted by
hand, method 2 = chips × hours × 3600 × peak × utilization) or read from the shipped files directly."""
from __future__ import annotations

import json
import math
from types import SimpleNamespace

import pandas as pd
import pytest

from engine.scenario import DEFAULT_HARDWARE_RUN, parse_scenario
from engine.shipped import shipped_file
from engine.trends.combine import BOTH, EPOCH, SHIPPED
from engine.trends.epoch_csv import read_epoch_csv
from engine.trends.placement import place_estimate
from engine.trends.runs_dataset import load_training_runs, runs_table
from engine.method2.hardware_db import load_hardware_db
from tests.reference import EPOCH_EXAMPLE, EPOCH_EXAMPLE_TRAINING, REPORTED_A100
from ui.views import trends as v

DAY_S = 86_400


def frame(rows) -> pd.DataFrame:
    """Runs as the pages' table: (name, date, decimal year, FLOP, domain[, origin])."""
    return pd.DataFrame([{"name": r[0], "publication_date": r[1], "decimal_year": r[2], "training_flop": r[3],
                          "domain": r[4], "organization": "", "source_label": "src",
                          "origin": r[5] if len(r) > 5 else SHIPPED} for r in rows])


def test_an_exact_exponential_gives_its_doubling_time_and_growth():
    slope = 0.3  # decades per year: doubling 12·log10(2)/0.3 = 12.04 months, growth 10^0.3 = 1.995× a year
    runs = frame([(f"r{y}", f"{y}-07-01", y + 0.5, 1e15 * 10 ** (slope * (y - 2000)), "Language")
                  for y in range(2000, 2010)])
    queries = v.fit_queries([], (2000, 2011), "all", None)
    assert list(queries) == ["Custom 2000–2011 (all)"]
    fits, notes = v.fit_all(runs, queries)
    (row,) = v.fit_rows(fits)
    assert notes == []
    assert row["runs (n)"] == 10 and row["doubling (months)"] == "12" and row["growth per year"] == "2×"
    assert fits["Custom 2000–2011 (all)"].doubling_months == pytest.approx(12 * math.log10(2) / slope)


def test_a_window_without_runs_is_named_as_not_fitted_and_named_windows_take_the_domain():
    runs = frame([("a", "2000", 2000.0, 1e18, "Vision"), ("b", "2001", 2001.0, 1e19, "Vision")])
    queries = v.fit_queries(["deep-learning"], (1990, 1995), "records", "Vision")
    assert [q.domain for q in queries.values()] == ["Vision", "Vision"]
    assert list(queries)[1] == "Custom 1990–1995 (records)"
    fits, notes = v.fit_all(runs, queries)
    assert fits == {} and len(notes) == 2
    assert notes[1].startswith("Custom 1990–1995 (records): not fitted (")


def test_where_an_estimate_falls_counted_by_hand():
    runs = frame([("A", "2010", 2010.0, 1e18, "Vision"), ("B", "2012-03", 2012.2, 1e20, "Vision"),
                  ("C", "2015", 2015.0, 1e22, "Vision")])
    # 5e19: B and C are larger (rank 3 of the 3 runs + the estimate); B is the first larger one; 2012 has
    # one run (B), none below: percentile 0
    placed = place_estimate(runs, 5e19, "2012-06-01")
    band = SimpleNamespace(low=1e19, high=1e20, confidence="Likely")
    line = v.placement_line("Your estimate (method 1)", 5e19, placed, band)
    assert line == ("**Your estimate (method 1): 5.00e19 FLOP** (90% interval 1.00e19 FLOP – 1.00e20 FLOP, "
                    "Likely) — larger than every known run before 2012-03 (B was the first larger one); "
                    "rank 3 of 4; percentile 0 among the 1 runs of 2012.")
    top = v.placement_line("Your estimate (method 2)", 1e23, place_estimate(runs, 1e23), None)
    assert top == "**Your estimate (method 2): 1.00e23 FLOP** — larger than every known run; rank 1 of 4."


def test_the_pooled_runs_count_a_run_in_both_datasets_once():
    shipped = runs_table(load_training_runs())
    n = len(load_training_runs())
    # AlexNet is in FLOPscope's dataset (2012-09, 4.7e17); Zed is not; one row has no usable date
    imported = v.compact(read_epoch_csv(b"Model,Publication date,Training compute (FLOP),Domain\n"
                                        b"AlexNet,2012-09-30,4.7e17,Vision\nZed,2020-01-01,1e21,Language\n"
                                        b"Bad,someday,1e20,Vision\n"), "f.csv")
    assert v.import_sentence(imported) == "2 runs imported from 3 rows of f.csv; 1 skipped (bad date: 1)."
    assert v.refusal_then(imported) == "the file was not used; the earlier import (2 runs from f.csv) is kept."
    assert v.refusal_then(None) == "the file was not used; nothing was imported."
    both = v.pooled_runs(shipped, imported, "both")
    assert len(both) == n + 1 and (both["origin"] == BOTH).sum() == 1
    assert both.loc[both["origin"] == BOTH, "name"].tolist() == ["AlexNet"]
    assert v.both_caption(both).startswith(f"{n + 1:,} runs: 1 are in both datasets and counted once")
    epoch = v.pooled_runs(shipped, imported, "epoch")
    assert sorted(epoch["name"]) == ["AlexNet", "Zed"] and set(epoch["origin"]) == {EPOCH}
    assert set(epoch["source_label"]) == {"Epoch AI, Data on AI Models (uploaded CSV)"}
    ours = v.pooled_runs(shipped, None, "both")
    assert len(ours) == n and set(ours["origin"]) == {SHIPPED}
    assert v.source_labels(n)["shipped"] == f"FLOPscope's dataset ({n} runs)"


def test_run_traces_one_per_origin_with_names_escaped():
    runs = frame([("<b>x</b>", "2020", 2020.0, 1e20, "Vision", EPOCH), ("y", "2021", 2021.0, 1e21, "Vision", EPOCH),
                  ("z", "2019", 2019.0, 1e19, "Vision", SHIPPED)])
    traces = v.run_traces(runs)
    assert [t["name"] for t in traces] == ["FLOPscope's dataset (1)", "Epoch AI (uploaded) (2)"]
    assert [t["marker"]["symbol"] for t in traces] == ["circle", "diamond"]
    assert traces[1]["customdata"][0][0] == "&lt;b&gt;x&lt;/b&gt;"


def test_the_estimate_star_carries_its_interval_and_moore_doubles_every_two_years():
    trace = v.estimate_trace("Your estimate (method 1)", 4e20, SimpleNamespace(low=1e20, high=9e20), 2026.0)
    assert trace["error_y"]["array"] == [5e20] and trace["error_y"]["arrayminus"] == [3e20]
    assert v.estimate_trace("Your estimate (method 2)", 4e20, None, 2026.0)["error_y"] is None
    runs = frame([(f"r{y}", str(y), float(y), 1e15 * 10 ** (0.5 * (y - 2000)), "Vision") for y in range(2000, 2010)])
    fits, _ = v.fit_all(runs, v.fit_queries([], (2000, 2010), "all", None))
    moore = v.moore_trace(fits, 2030)
    (x0, x1), (y0, y1) = (moore["x"][0], moore["x"][-1]), (moore["y"][0], moore["y"][-1])
    assert x0 == pytest.approx(2000.0) and x1 == pytest.approx(2030.0)
    assert y0 == pytest.approx(1e15, rel=1e-9) and y1 / y0 == pytest.approx(2 ** ((x1 - x0) / 2))
    assert v.moore_trace({}, 2030) is None


def test_hardware_traces_are_the_accelerators_with_that_peak_in_hardware_db():
    db = load_hardware_db()
    chips = json.loads(shipped_file("hardware_db.json").read_text(encoding="utf-8"))["chips"]
    fp32 = sorted(c["peaks"]["fp32"] for c in chips  # CPUs left out: orders of magnitude below accelerators
                  if c.get("peaks", {}).get("fp32") and c.get("release_date") and c["kind"] != "cpu")
    traces, rows = v.hardware_traces(["fp32"], db, {"fp32": "FP32"})
    markers, line = traces
    assert sorted(markers["y"]) == fp32 and markers["name"] == "FP32"
    assert line["mode"] == "lines" and rows[0]["format"] == "FP32" and rows[0]["chips"] == len(fp32)


def test_reconciliation_metrics_table_and_chart_from_method_2_by_hand():
    a100 = 8 * 10 * 3600 * 312e12 * 0.5          # A100 datasheet BF16 312 TFLOP/s → ratio 1
    v100 = 4 * 24 * 3600 * 125e12 * 0.4          # V100 SXM2 FP16 tensor 125 TFLOP/s, Epoch's 40% → ratio 2
    gtx = 2 * 100 * 3600 * 512 * 1544e6 * 2 * 0.4  # GTX 580: 512 cores × 1544 MHz × 2 → ratio 10
    rows = [("Alpha", "2021-01-01", a100, "NVIDIA A100", 8, 10, "0.5"),
            ("Beta", "2018-01-01", v100 / 2, "NVIDIA V100", 4, 24, ""),
            ("Gamma", "2012-01-01", gtx / 10, "NVIDIA GeForce GTX 580", 2, 100, "")]
    text = ("Model,Publication date,Training compute (FLOP),Training hardware,Hardware quantity,"
            "Training time (hours),Hardware utilization\n"
            + "".join(f"{n},{d},{c:.6e},{hw},{q},{h},{u}\n" for n, d, c, hw, q, h, u in rows))
    from engine.trends.reconcile import reconcile_rows
    imported = read_epoch_csv(text.encode())
    result = reconcile_rows(imported.hardware_rows, imported.rows_read, load_hardware_db())
    metrics = {label: value for label, value, _ in v.reconcile_metrics(result.summary)}
    assert metrics == {"Rows with hardware and time": "3", "Chip found": "3",
                       "Median ratio (method 2 ÷ reported)": "2", "Within 2×": "67%", "Within 3×": "67%"}
    table = v.reconcile_table(result.rows)
    assert [r["ratio"] for r in table] == pytest.approx([1, 2, 10], rel=1e-3)  # peaks as stored, to 4 digits
    assert [r["utilization from"] for r in table] == ["row", "assumed", "assumed"]
    equal, times3, third, within, beyond = v.reconcile_traces(result.rows)
    lo, hi = min(a100, v100 / 2, gtx / 10) / 2, max(a100, v100) * 2
    assert equal["x"] == pytest.approx([lo, hi]) and times3["y"] == pytest.approx([3 * lo, 3 * hi])
    assert third["y"] == pytest.approx([lo / 3, hi / 3])
    assert [c[0] for c in within["customdata"]] == ["Alpha", "Beta"] and beyond["customdata"][0][0] == "Gamma"
    assert v.reconcile_traces([]) == []


def test_your_estimates_method_1_and_with_a_hardware_run_method_2():
    estimates, bands = v.your_estimates(parse_scenario(EPOCH_EXAMPLE))
    assert estimates == {"Your estimate (method 1)": pytest.approx(EPOCH_EXAMPLE_TRAINING)}
    run = parse_scenario({**EPOCH_EXAMPLE, "hardware": DEFAULT_HARDWARE_RUN})
    estimates, _ = v.your_estimates(run)
    # 8 A100 × 1 day × 312 TFLOP/s (BF16 dense, the datasheet) × the reported-runs median (no utilization given)
    assert estimates["Your estimate (method 2)"] == pytest.approx(8 * DAY_S * 312e12 * REPORTED_A100)


def test_prior_rows_write_the_spread_in_percent():
    p = SimpleNamespace(generation="Ampere", scale="1k+ chips", n=4, median=0.41, p25=0.352, p75=0.46,
                        minimum=0.3, maximum=0.5, runs=("A", "B"))
    (row,) = v.prior_rows([p])
    assert row["25th–75th percentile"] == "35–46%" and row["min–max"] == "30–50%" and row["runs"] == "A, B"
