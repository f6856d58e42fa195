"""Trends page, 'both' datasets: each run once (rank out of the pooled runs without duplicates), and the
sources told apart by marker."""
from __future__ import annotations

import json
import re

from streamlit.testing.v1 import AppTest

from tests.conftest import ROOT


def test_both_counts_each_run_once_and_marks_the_sources(shared_dir):
    from engine.trends.epoch_csv import read_epoch_csv
    from engine.trends.runs_dataset import load_training_runs

    imported = read_epoch_csv((shared_dir / "data/epoch/epoch_notable_ai_models.csv").read_bytes())
    shipped = len(load_training_runs())
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120).run()
    at.session_state["trends_epoch_import"] = imported
    at.switch_page(str(ROOT / "pages" / "trends.py")).run()
    at.radio(key="trends_source").set_value("both").run()
    assert not at.exception
    caption = next(c.value for c in at.caption if "counted once" in c.value)
    total, twice = (int(x.replace(",", "")) for x in re.findall(r"[\d,]+", caption)[:2])
    assert total == shipped + len(imported.runs) - twice and twice >= 40
    ranks = [int(m.group(1)) for m in (re.search(r"rank \d+ of ([\d,]+)", x.value) for x in at.markdown) if m]
    assert ranks and all(r == total + 1 for r in ranks)  # the runs plus the user's estimate
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    symbols = {t["marker"]["symbol"] for t in spec["data"] if t.get("mode") == "markers" and "star" not in
               str(t["marker"].get("symbol"))}
    assert len(symbols) == 3  # FLOPscope's, Epoch's, in both
