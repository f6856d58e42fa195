"""A quiet server is idle: started the README's way (``streamlit run app.py`` in the project folder, the
shipped ``.streamlit/config.toml``) beside a virtual environment that a package install is filling, with
one user's page open, the server uses next to no CPU. Before, Streamlit's file watcher watched the whole
project folder recursively, overflowed its inotify queue on such bursts and kept 'reconciling recursive
watches' at 100% of a core for over an hour."""
from __future__ import annotations

import sys
import time
import tomllib
from pathlib import Path

import pytest

from tests.browser.harness import ROOT, cpu_seconds, project_copy, streamlit_server, wait_for_app

FILES = 20_000
"""Files an install writes into .venv in a burst (more than inotify's default queue of 16,384 events)."""
WINDOW_S = 6.0
IDLE_CPU_S = 0.5
"""At most this much server CPU over the window: the page is open and nobody touches it."""


def test_the_shipped_config_turns_the_source_watcher_off():
    server = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))["server"]
    assert server["fileWatcherType"] == "none" and server["runOnSave"] is False


def install_burst(venv: Path, files: int) -> None:
    """What ``pip install`` does to a virtual environment: many new folders and files, written fast."""
    site = venv / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    for i in range(files):
        package = site / f"package_{i // 200}" / f"sub_{i // 50 % 4}"
        package.mkdir(parents=True, exist_ok=True)
        (package / f"module_{i}.py").write_text("x = 1\n")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads CPU time from /proc")
def test_a_quiet_server_stays_idle_while_a_venv_fills(tmp_path, browser):
    root = project_copy(tmp_path / "flopscope")
    install_burst(root / ".venv", 200)  # a virtual environment is there before the server starts
    with streamlit_server(root=root, flags=(), with_process=True) as (url, proc):
        page = browser.new_context().new_page()
        page.goto(url)
        wait_for_app(page)
        time.sleep(1.0)  # the first run's tail
        before = cpu_seconds(proc.pid)
        start = time.monotonic()
        install_burst(root / ".venv", FILES)
        time.sleep(max(0.0, WINDOW_S - (time.monotonic() - start)))
        used = cpu_seconds(proc.pid) - before
        assert not page.locator("[data-testid='stException']").count()
        page.context.close()
    assert used < IDLE_CPU_S, f"the idle server used {used:.2f} s of CPU in {WINDOW_S} s while .venv filled"
