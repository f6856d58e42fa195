"""The dashboard server's memory under the largest accepted upload, against Streamlit Community Cloud's smallest
allowance (about 690 MB of resident memory for an app, the figure this project plans with).

A real server (``streamlit run app.py``, tests/browser/harness.py) and Debian's Chromium (Playwright): the layer
builder opened, then an ONNX graph uploaded through its uploader and counted — the file of today's default
``torch.onnx.export`` of a conv net with its weights inside (tests/importers/big_export.py): the 51 MB one, then
one of 101 MB, just under the 100 MB (2²⁰-byte) cap, in a second session. The server's resident set (VmRSS) is
sampled every 20 ms from /proc; its peak (VmHWM) is read at the end.

    .venv/bin/python -m bench.bench_upload_rss

Prints one JSON object (MB of 2²⁰ bytes, seconds of wall time on this shared machine). One run per invocation:
RSS after large allocations is what it is; run it twice to see the spread.
"""
from __future__ import annotations

import json
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWANCE_MB = 690


def _status(pid: int, key: str) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


class Sampler(threading.Thread):
    """The server's VmRSS every 20 ms; ``peak`` since the last ``reset``."""

    def __init__(self, pid: int):
        super().__init__(daemon=True)
        self.pid, self.peak, self.stop = pid, 0.0, False

    def run(self):
        while not self.stop:
            self.peak = max(self.peak, _status(self.pid, "VmRSS"))
            time.sleep(0.02)

    def reset(self) -> float:
        self.peak = _status(self.pid, "VmRSS")
        return self.peak


def _upload_and_count(browser, url, path: Path, sampler: Sampler) -> dict:
    from tests.browser.harness import wait_for_app

    context = browser.new_context(viewport={"width": 1400, "height": 2200})
    page = context.new_page()
    page.goto(url)
    wait_for_app(page)
    page.get_by_text("Import an exported model (ONNX graph)").click()
    wait_for_app(page)
    out = {"file_mb": round(path.stat().st_size / 2**20, 1), "rss_before_mb": round(sampler.reset(), 1)}
    start = time.perf_counter()
    page.locator("[data-testid='stExpander']", has_text="Import an exported model").locator(
        "[data-testid='stFileUploaderDropzoneInput']").set_input_files(str(path))
    button = page.get_by_role("button", name="Count the graph and load its rows")
    button.wait_for(timeout=300_000)
    wait_for_app(page)
    out["upload_s"] = round(time.perf_counter() - start, 1)
    out["rss_after_upload_mb"] = round(_status(sampler.pid, "VmRSS"), 1)
    start = time.perf_counter()
    button.click()
    page.get_by_text(f"{path.name}: ").first.wait_for(timeout=300_000)
    wait_for_app(page)
    out["count_s"] = round(time.perf_counter() - start, 1)
    out["rss_after_count_mb"] = round(_status(sampler.pid, "VmRSS"), 1)
    out["rss_peak_during_mb"] = round(sampler.peak, 1)
    out["exception_elements"] = page.locator("[data-testid='stException']").count()
    context.close()
    return out


def main() -> dict:
    sys.path.insert(0, str(ROOT))
    import torch
    from playwright.sync_api import sync_playwright

    from tests.browser.harness import CHROMIUM_ARGS, streamlit_server
    from tests.importers.big_export import CHANNELS, LARGEST, export

    folder = Path(tempfile.mkdtemp(prefix="flopscope-upload-"))
    files = {"export_51mb": folder / "convnet.onnx", "largest_accepted": folder / "convnet-largest.onnx"}
    export(torch, files["export_51mb"], CHANNELS)
    export(torch, files["largest_accepted"], LARGEST)
    out: dict = {"allowance_mb": ALLOWANCE_MB}
    with streamlit_server(with_process=True) as (url, proc), sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        sampler = Sampler(proc.pid)
        sampler.start()
        for name, path in files.items():
            out[name] = _upload_and_count(browser, url, path, sampler)
        out["server_peak_vmhwm_mb"] = round(_status(proc.pid, "VmHWM"), 1)
        sampler.stop = True
        browser.close()
    out["within_allowance"] = out["server_peak_vmhwm_mb"] <= ALLOWANCE_MB
    for path in files.values():
        path.unlink()
    return out


if __name__ == "__main__":
    print(json.dumps(main(), indent=2))
