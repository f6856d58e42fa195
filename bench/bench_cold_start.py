"""A cold start, as the first user meets it: ``streamlit run app.py`` launched, the layer builder opened in
Chromium at once, and the seconds until its first number (the training compute) is on screen — the results line
at the top of the page, ``Training compute: 1.23e18 FLOP · …``, kept in view while the page is used — then until
the same figure's metrics row below the layer editor (``metrics_row_s``: drawn after the ~80 widgets it reads,
so later); the server's CPU
seconds by then, and which heavy packages its process holds (onnx, torch, transformers: none should load before a
user opens a graph or asks for them). Target: ≤ 4 s on a quiet 2-core machine. Wall clock, so run it quiet
(``uptime``); ``--repeat N`` runs N cold starts (default 3) and prints each and the median.

By default Chromium is launched beside the server, and its launch (1.2–1.9 s here, on the same 2 cores) is in the
figure. ``--browser-running``: Chromium is launched and idle first, as a user's browser is, and the clock starts at
the server's launch.

The browser opens the page once the server's port accepts a connection (polled every 20 ms), as a user opens the
address the server prints. Earlier versions of this bench retried ``page.goto`` until it stopped failing: each
refused navigation cost Chromium ~1 – 2 s of error page and retry that no user waits (measured: the first number
5.3 – 5.6 s that way, against 4.5 – 5.6 s for the same commit opened once the port answers).

    python -m bench.bench_cold_start [--repeat N] [--browser-running]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import socket
import statistics
import subprocess
import sys
import time
from pathlib import Path

from tests.browser.harness import CHROMIUM_ARGS, ROOT, cpu_seconds, free_port

HEAVY = ("onnx", "torch")
"""Packages with compiled parts: their shared objects in the server's memory map say they were imported. A
pure-Python package (transformers, plotly) leaves no trace there, so it cannot be checked this way (Streamlit itself
imports plotly when its server starts)."""


FIRST_NUMBER = re.compile(r"Training compute: \d")
"""The results line with a figure in it (not its "—" while a field is missing)."""


def loaded(pid: int) -> dict[str, bool]:
    """Whether each of ``HEAVY`` is in the server process's memory map (its compiled parts)."""
    maps = Path(f"/proc/{pid}/maps").read_text(errors="replace")
    return {name: f"/site-packages/{name}/" in maps for name in HEAVY}


def cold_start(chromium: str, browser_running: bool = False) -> dict:
    from playwright.sync_api import sync_playwright

    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    with contextlib.ExitStack() as stack:
        def open_page():  # Playwright's driver and Chromium
            p = stack.enter_context(sync_playwright())
            browser = p.chromium.launch(executable_path=chromium, headless=True, args=CHROMIUM_ARGS)
            return browser, browser.new_page()

        if browser_running:
            browser, page = open_page()
            time.sleep(1.0)  # idle, as a user's browser is when they open the link
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
                                 "--server.address", "127.0.0.1", "--server.headless", "true"],
                                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            if not browser_running:
                browser, page = open_page()
            deadline = time.monotonic() + 120
            while True:  # the browser asks as soon as the port answers (a cheap connect, every 20 ms)
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise
                    time.sleep(0.02)
            page.goto(f"http://127.0.0.1:{port}", timeout=120_000)
            page.locator(".st-key-flop_summary [data-testid='stMarkdown']", has_text=FIRST_NUMBER).first \
                .wait_for(timeout=120_000)
            first = time.perf_counter() - start
            page.locator("[data-testid='stMetric']", has_text="Training compute") \
                .locator("[data-testid='stMetricValue']").first.wait_for(timeout=120_000)
            row = time.perf_counter() - start
            out = {"first_number_s": round(first, 2), "metrics_row_s": round(row, 2),
                   "server_cpu_s": round(cpu_seconds(proc.pid), 2), "loaded": loaded(proc.pid)}
            browser.close()
            return out
        finally:
            proc.terminate()
            proc.wait(10)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    parser.add_argument("--browser-running", action="store_true",
                        help="launch Chromium before the server, as a user's browser is already running")
    args = parser.parse_args()
    runs = [cold_start(args.chromium, args.browser_running) for _ in range(args.repeat)]
    print(json.dumps({"load_average_1min": os.getloadavg()[0], "browser_running": args.browser_running, "runs": runs,
                      "median_first_number_s": statistics.median(r["first_number_s"] for r in runs),
                      "median_metrics_row_s": statistics.median(r["metrics_row_s"] for r in runs),
                      "median_server_cpu_s": statistics.median(r["server_cpu_s"] for r in runs)}, indent=2))


if __name__ == "__main__":
    main()
