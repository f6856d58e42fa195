"""One page run of a share link under AppTest, timed, and what a run must never show: an exception element,
internal wording, live user markup, or a run longer than the budget. Shared by the hostile suite
(``test_hostile_links``) and the generated links (``test_generated_links``, whose worker processes import only
this module and ``markup``).

The budget is CPU time: ``MAX_RUN_CPU_S`` = 2 s of this process's CPU per page run (the script runs in a thread of
the test process), which other work on the machine does not lengthen. A run past it is run once more in a fresh
AppTest, and only a second run past it fails: a link that makes the page slow is slow twice, a collector pause is
not. The wall seconds are recorded beside (``at.seconds``) for the message; the wall-clock budget of a page run on
a quiet machine is measured in ``bench/bench_page_budget.py``.
"""
from __future__ import annotations

import functools
import re
import time

from streamlit.testing.v1 import AppTest

from tests.app.markup import live_markup
from ui.navigation import PAGE_NAMES

ROOT = __import__("pathlib").Path(__file__).resolve().parents[2]
PAGES = PAGE_NAMES
ENTRIES = ("app", "direct")
MAX_RUN_CPU_S = 2.0
"""The time budget of one page run, in CPU seconds of the test process."""
APP_TIMEOUT_S = 900.0
"""How long AppTest waits for a script run before calling it hung (its own default is 3 s): a guard, not a budget.
On a machine busy with other work a run that takes 0.1 s of CPU can take minutes of wall time; every AppTest of
the suite waits this long (``tests/conftest.py``)."""
INTERNALS = re.compile(r"constrained-|\[key\]|NoneType|Unable to parse|utf-8-sig|Input should|Extra inputs|pydantic|"
                       r"Traceback|Value error|function-after|json-or-python|<class |Exceeds the limit|"
                       r"got (?:list|str|int|float|dict|bool)\b|sys\.set_int|String should|should match|pattern|"
                       r"\^\[|\]\+|Input tag|discriminator|ZeroDivision|OverflowError|math range|internal:")


def _scan_installed_components_once() -> None:
    """Streamlit's scan of installed packages for components, done once per process, as a server does it once for
    all its sessions: AppTest scans on every new instance (the metadata of ~80 packages beside torch and
    transformers: ~85% of a page run's CPU time in this suite). The packages do not change during a test run. Every
    test process gets it: ``tests/conftest.py`` imports this module wherever Streamlit is installed."""
    from streamlit.components.v2 import manifest_scanner

    if not hasattr(manifest_scanner.scan_component_manifests, "cache_info"):
        manifest_scanner.scan_component_manifests = functools.cache(manifest_scanner.scan_component_manifests)


_scan_installed_components_once()


def _share_compiled_scripts() -> None:
    """One cache of the pages' compiled scripts for every AppTest of this process, as a server keeps one for all
    its sessions: each new AppTest would read, parse and compile the page again (~7 ms of a ~60 ms page run). A
    script whose file has changed since (its size or modification time) is compiled anew."""
    import os

    from streamlit.runtime.scriptrunner import script_cache
    from streamlit.testing.v1 import app_test, local_script_runner

    if getattr(app_test.ScriptCache, "shared", False):
        return

    class SharedScriptCache(script_cache.ScriptCache):
        def __init__(self) -> None:
            super().__init__()
            self._stamps: dict[str, tuple[int, int]] = {}

        def get_bytecode(self, script_path: str):
            path = os.path.abspath(script_path)
            stat = os.stat(path)
            stamp = (stat.st_size, stat.st_mtime_ns)
            with self._lock:
                if self._stamps.get(path) != stamp:
                    self._cache.pop(path, None)
                    self._stamps[path] = stamp
            return super().get_bytecode(path)

    one = SharedScriptCache()

    def shared() -> SharedScriptCache:
        return one

    shared.shared = True
    app_test.ScriptCache = local_script_runner.ScriptCache = shared


_share_compiled_scripts()



def _run_once(token: str, page: str, entry: str) -> AppTest:
    if entry == "app":
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=APP_TIMEOUT_S)
        if page != "layer_builder":
            at.switch_page(f"pages/{page}.py")
    else:
        at = AppTest.from_file(str(ROOT / "pages" / f"{page}.py"), default_timeout=APP_TIMEOUT_S)
    at.query_params["s"] = token
    wall, cpu = time.perf_counter(), time.process_time()
    at.run()
    at.seconds, at.cpu_seconds = time.perf_counter() - wall, time.process_time() - cpu
    return at


def run_page(token: str, page: str, entry: str) -> AppTest:
    """A fresh user's page run of ``token`` (``entry``: via app.py, or the page file directly); one more run if
    the first passes ``MAX_RUN_CPU_S`` (``at.first_cpu_seconds`` keeps the first run's CPU time)."""
    at = _run_once(token, page, entry)
    first = at.cpu_seconds
    if first >= MAX_RUN_CPU_S:
        at = _run_once(token, page, entry)
    at.first_cpu_seconds = first
    return at


def messages(at) -> list[str]:
    return [e.value for e in at.error] + [w.value for w in at.warning]


def page_problems(at, page: str) -> list[str]:
    """What a page run must never show: an exception element, no title, a run past the budget, live user
    markup, internal wording in a message."""
    problems = [f"exception: {e.value}" for e in at.exception]
    if not at.title:
        problems.append("the page did not draw its title")
    if at.cpu_seconds >= MAX_RUN_CPU_S:
        problems.append(f"{page}: the run took {at.first_cpu_seconds:.2f} s, then {at.cpu_seconds:.2f} s of CPU "
                        f"({at.seconds:.2f} s wall); the budget is {MAX_RUN_CPU_S:g} s of CPU")
    problems += [f"live markup: {p}" for p in live_markup(at)]
    problems += [f"internal wording: {t}" for t in messages(at) if INTERNALS.search(t.replace("\\", ""))]
    return problems
