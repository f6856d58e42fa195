"""Server memory for a hostile Epoch upload: a 10^6-row CSV (~15 MB) through the trends page.

Runs the real page in this process with Streamlit's AppTest (the script runs where the server would run
it), uploads the file, picks "both", and reads the resident set size (VmRSS, /proc) before the upload,
after it, after "both", and after the session is dropped and collected. Also times each step.

    python -m bench.bench_epoch_upload_rss [ROWS]

Prints one JSON object (MB and seconds). Each figure is one run (a fresh process per invocation), not a
median: RSS after a large allocation is what it is; run it twice to see the spread.
"""
from __future__ import annotations

import gc
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ROWS = 1_000_000


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def peak_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def big_csv(rows: int) -> bytes:
    """Short Epoch-like rows (name, year, FLOP), all usable: ~12 bytes a row, so 10^6 rows fit under the
    page's 20 MB upload limit (the issue's 12 MB file) and every row becomes a run (the worst case)."""
    lines = ["Model,Publication date,Training compute (FLOP)"]
    lines += [f"m,{1990 + i % 35},{1 + i % 9}e{15 + i % 10}" for i in range(rows)]
    return ("\n".join(lines) + "\n").encode()


def main(rows: int = ROWS) -> dict:
    sys.path.insert(0, str(ROOT))
    from streamlit.testing.v1 import AppTest

    data = big_csv(rows)
    out: dict = {"rows": rows, "file_mb": round(len(data) / 2**20, 1)}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=600)
    at.switch_page("pages/trends.py")
    at.run()
    gc.collect()
    out["rss_before_mb"] = round(rss_mb(), 1)
    start = time.perf_counter()
    at.file_uploader(key="trends_upload").upload("big.csv", data, "text/csv")
    at.run()
    out["upload_s"] = round(time.perf_counter() - start, 2)
    out["rss_after_upload_mb"] = round(rss_mb(), 1)
    out["messages"] = [e.value[:160] for e in at.error] + [s.value[:160] for s in at.success]
    out["exceptions"] = [e.value[:160] for e in at.exception]
    start = time.perf_counter()
    radio = next((r for r in at.radio if r.key == "trends_source"), None)
    if radio is not None and not radio.disabled:
        radio.set_value("both")
        at.run()
    out["both_s"] = round(time.perf_counter() - start, 2)
    out["rss_after_both_mb"] = round(rss_mb(), 1)
    del at, data
    gc.collect()
    out["rss_after_session_closed_mb"] = round(rss_mb(), 1)
    out["rss_peak_mb"] = round(peak_mb(), 1)
    return out


if __name__ == "__main__":
    print(json.dumps(main(int(sys.argv[1]) if len(sys.argv) > 1 else ROWS), indent=2))
