"""docs/example.ipynb runs, top to bottom, and shows what it computes now; its figures are checked against
the formulas and published counts written here."""
from __future__ import annotations

import contextlib
import io
import json

from tests.conftest import ROOT

NOTEBOOK = ROOT / "docs" / "example.ipynb"


def _run() -> tuple[dict, list[str], list[str]]:
    cells = [c for c in json.loads(NOTEBOOK.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"]
    namespace: dict = {}
    shown, stored = [], []
    for cell in cells:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile("".join(cell["source"]), str(NOTEBOOK), "exec"), namespace)  # the project's own file
        shown.append(out.getvalue())
        stored.append("".join("".join(o.get("text", "")) for o in cell["outputs"]))
    return namespace, shown, stored


def test_the_notebook_runs_and_its_stored_output_is_current():
    _, shown, stored = _run()
    assert shown == stored, "docs/example.ipynb shows old output: run `python docs/make_example.py`"


def test_the_notebook_figures():
    ns, _, _ = _run()
    # Epoch AI's worked example: 3 × 128,000 × (20 × (conv + LSTM per step) + FC)
    conv = 2 * 200 * 200 * 16 * (5 * 5 * 5)
    lstm = 8 * (640_000 * 256 + 256 ** 2)  # matmul convention: the bias adds are not counted
    assert ns["worked"].training_flop == 3 * 10 * 100 * 128 * (20 * (conv + lstm) + 2 * 256 * 10)
    # GPT-2 small (GPT2LMHeadModel, tied head): 124,439,808 parameters (Σ numel of the published checkpoint)
    assert ns["lm"].params == 124_439_808
    # 64 A100s × 10 days × 312 TFLOP/s (dense BF16, NVIDIA's A100 datasheet) × 0.4
    assert ns["run"].training_flop == 64 * 10 * 86_400 * 312e12 * 0.4
    # Mixed-precision Adam on 8 data-parallel replicas: 2 + 2 + 12 bytes per parameter, all on each chip
    figures = ns["figures"]
    assert figures["weights_bytes_per_chip"] == 2 * 124_439_808
    assert figures["gradients_bytes_per_chip"] == 2 * 124_439_808
    assert figures["optimizer_bytes_per_chip"] == 12 * 124_439_808
    assert 0 < figures["mfu"] <= 1
