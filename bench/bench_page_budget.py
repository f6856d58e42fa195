"""The wall-clock budget of a page run: no page run over 2 s on a quiet machine (``FLOPSCOPE_PAGE_BUDGET_S``
overrides the budget). The tests hold the same runs to 2 s of CPU (``tests/app/page_run.py``), which a busy machine
does not lengthen; this measures the wall time a user waits, so run it on a quiet machine (``uptime``).

Each of the first N replayed generated links (``tests/generated_inputs.py``, half hostile, half well-formed) runs
on every page through Streamlit's AppTest, via ``app.py``; per page: the median and slowest wall and CPU seconds,
and the runs over the budget.

    python -m bench.bench_page_budget [N]
"""
from __future__ import annotations

import json
import os
import statistics
import sys

from tests.app.hostile_corpus import pack_json
from tests.app.page_run import PAGES, run_page
from tests.generated_inputs import generated

BUDGET_S = float(os.environ.get("FLOPSCOPE_PAGE_BUDGET_S") or 2.0)


def main(n: int = 40) -> dict:
    links = generated("hostile_links")[: n // 2] + generated("well_formed_links")[: n - n // 2]
    seed = pack_json({"version": 1, "input": {"shape": [4]}, "layers": [{"type": "dense", "units": 2}]})
    for page in PAGES:  # imports and caches warm before the first timed run
        run_page(seed, page, "app")
    out: dict = {"load_average_1min": os.getloadavg()[0], "budget_s": BUDGET_S, "links": len(links), "pages": {}}
    for page in PAGES:
        walls, cpus = [], []
        for data in links:
            at = run_page(pack_json(data), page, "app")
            walls.append(at.seconds)
            cpus.append(at.cpu_seconds)
        out["pages"][page] = {"wall_median_s": round(statistics.median(walls), 3), "wall_max_s": round(max(walls), 3),
                              "cpu_median_s": round(statistics.median(cpus), 3), "cpu_max_s": round(max(cpus), 3),
                              "over_budget": sum(w >= BUDGET_S for w in walls)}
    print(json.dumps(out, indent=2))
    return out


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
