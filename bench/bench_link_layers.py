"""How long a page run takes for a link of N layers: the measurement behind ``MAX_PAGE_LAYERS``.

Each page is run through Streamlit's AppTest (the script as the server runs it; the browser's drawing of
the table and chart comes on top) with a link of N dense layers; medians of ``REPEAT`` runs.

    python -m bench.bench_link_layers [N ...]
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

from ui.navigation import PAGE_NAMES

ROOT = Path(__file__).resolve().parents[1]
PAGES = tuple(name for name in PAGE_NAMES if name != "plan")
REPEAT = 3


def link(n: int) -> str:
    import base64
    import zlib

    data = {"version": 1, "input": {"shape": [4]}, "layers": [{"type": "dense", "units": 4}] * n,
            "training": {"epochs": 1, "examples": 1}}
    raw = json.dumps(data, separators=(",", ":")).encode()
    return "1." + base64.urlsafe_b64encode(zlib.compress(raw, 9)).decode().rstrip("=")


def page_seconds(token: str, page: str) -> float:
    from streamlit.testing.v1 import AppTest

    samples = []
    for _ in range(REPEAT):
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
        if page != "layer_builder":
            at.switch_page(f"pages/{page}.py")
        at.query_params["s"] = token
        start = time.perf_counter()
        at.run()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main(counts: list[int]) -> list[dict]:
    sys.path.insert(0, str(ROOT))
    import engine.share_link

    engine.share_link.MAX_PAGE_LAYERS = max(counts)  # measure beyond the limit: that is what it is chosen from
    rows = []
    for n in counts:
        token = link(n)
        rows.append({"layers": n, "link_chars": len(token),
                     **{page: round(page_seconds(token, page), 2) for page in PAGES}})
        print(json.dumps(rows[-1]), flush=True)
    return rows


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [4, 1000, 2000, 5000, 10000])
