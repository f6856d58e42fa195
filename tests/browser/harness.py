"""A Streamlit server on a free loopback port, and headless Debian Chromium driven by Playwright."""
from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from ui.navigation import PAGES as NAVIGATION

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
PAGES = {p.name: p.url_path for p in NAVIGATION}
"""Page name → its path on the server (``ui/navigation.py``: the one list of pages)."""
WAIT_MS = 240_000
"""How long a browser test waits for the app to show something: a guard against a hang, not a budget. A machine
busy with other work (another suite beside this one) slows each step several-fold; what a step costs is held in
CPU seconds elsewhere (``tests/app/page_run.py``)."""


def free_port() -> int:
    with contextlib.closing(socket.socket()) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def streamlit_server(timeout_s: float = 60.0, root: Path = ROOT,
                     flags: tuple[str, ...] = ("--server.headless", "true", "--server.fileWatcherType", "none"),
                     with_process: bool = False, env: dict[str, str] | None = None):
    """A server of the checkout at ``root`` (``streamlit run app.py`` there, as the README starts it, with
    ``flags`` and ``env`` added to this process's environment); yields its URL, or (URL, process) with
    ``with_process``."""
    port = free_port()
    env = {**os.environ, "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false", **(env or {})}
    proc = subprocess.Popen([sys.executable, "-m", "streamlit", "run", "app.py",
                             "--server.port", str(port), "--server.address", "127.0.0.1", *flags],
                            cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("streamlit did not start: " + (proc.stdout.read().decode() if proc.stdout else ""))
            time.sleep(0.3)
        yield (url, proc) if with_process else url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()


SETTLED = """(quiet_ms) => {
  const app = document.querySelector('[data-testid="stApp"]');
  const done = app !== null && app.getAttribute('data-test-script-state') === 'notRunning'
    && document.querySelector('h1') !== null
    && !document.querySelector('[data-testid="stStatusWidget"], [data-testid="stSkeleton"], .stSkeleton');
  if (!done) { window.__flopscopeSettled = null; return false; }
  window.__flopscopeSettled = window.__flopscopeSettled || performance.now();
  return performance.now() - window.__flopscopeSettled >= quiet_ms;
}"""
"""The app is settled: the script is not running (the state Streamlit's own end-to-end tests read from
``stApp``), the title is drawn, no widget is still a grey skeleton, and that has held for ``quiet_ms``
(a page that calls ``st.rerun()`` passes through 'notRunning' between its two runs)."""


def project_copy(folder: Path) -> Path:
    """The tracked files of this checkout (what a fresh clone has), in ``folder``."""
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in filter(None, tracked.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    return folder


def cpu_seconds(pid: int) -> float:
    """User + system CPU time a process has used so far (Linux: /proc/PID/stat, fields 14 and 15)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def rss_bytes(pid: int) -> int:
    """Resident memory of a process now (Linux: VmRSS in /proc/PID/status)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for {pid}")


RUN_WATCH = """(() => {
  window.__flopscopeRuns = 0;
  new MutationObserver(records => {
    for (const r of records) {
      if (r.oldValue !== 'running' && r.target.getAttribute('data-test-script-state') === 'running') {
        window.__flopscopeRuns += 1;
      }
    }
  }).observe(document, {subtree: true, attributes: true, attributeOldValue: true,
                        attributeFilter: ['data-test-script-state']});
})()"""
"""Counts the script runs a page has started (``stApp``'s state turning 'running'), for ``wait_for_app``: installed in
every page of a test's browser context (``tests/conftest.py``, ``PatientBrowser``)."""

STARTED = """([since, debounce_ms]) => (window.__flopscopeRuns ?? 0) > (window.__flopscopeSeen ?? 0)
  || performance.now() - since >= debounce_ms"""
"""A script run has started since the last settled moment, or ``debounce_ms`` have passed (an action that starts no
run; a page without ``RUN_WATCH``)."""


def wait_for_app(page, timeout_ms: int = WAIT_MS, debounce_ms: int = 250, quiet_ms: int = 150) -> None:
    """Until the script has run and the page is drawn. First until the run an action started has begun, at most
    ``debounce_ms``: a widget sends its value a moment after the key press or click (text fields debounce), so the
    run it starts is not missed; an action that starts no run waits the whole ``debounce_ms``."""
    since = page.evaluate("performance.now()")
    page.wait_for_function(STARTED, arg=[since, debounce_ms], timeout=timeout_ms, polling=20)
    page.evaluate("window.__flopscopeSettled = null")  # a settled moment of an earlier run does not count
    page.wait_for_function(SETTLED, arg=quiet_ms, timeout=timeout_ms, polling=50)
    page.evaluate("window.__flopscopeSeen = window.__flopscopeRuns ?? 0")


def metric_value(page, label: str) -> str:
    return page.locator("[data-testid='stMetric']", has_text=label).locator(
        "[data-testid='stMetricValue']").first.inner_text()


METRIC_CHANGED = """([label, before]) => [...document.querySelectorAll('[data-testid=stMetric]')]
  .some(m => m.innerText.includes(label)
             && m.querySelector('[data-testid=stMetricValue]').innerText.trim() !== before)"""


def metric_changes(page, label: str, before: str) -> str:
    """The metric ``label`` once it no longer reads ``before`` (the rerun an action started has drawn it: on a busy
    machine that run can start long after the action)."""
    page.wait_for_function(METRIC_CHANGED, arg=[label, before], timeout=WAIT_MS)
    wait_for_app(page)
    return metric_value(page, label)
