"""Shared fixtures: the reference data folder and the optional external tools; the tiers' markers.

Without torch or Chromium the tests that need them skip, except where CI sets
FLOPSCOPE_REQUIRE_TORCH=1 / FLOPSCOPE_REQUIRE_BROWSER=1: then a missing tool is a failure.

Tiers (``pytest.ini``): ``browser`` (Chromium against the shared server), ``pages`` (the pages through Streamlit's
AppTest), ``reference`` (PyTorch, transformers and ONNX exports as the external counters); each test is marked
here from what it uses, so ``-m "not browser and not pages and not reference"`` is the fast loop (README).
"""
from __future__ import annotations

import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]


def _cache_compiled_modules() -> None:
    """Where the environment forbids writing bytecode (``PYTHONDONTWRITEBYTECODE``, as on this project's shared
    machines), every Python process of the run (servers, worker pools, CLI processes) would compile the project's
    sources again (0.2-0.7 s of CPU each): this run's processes cache them under ``.pytest_cache/pycache`` instead,
    outside the source folders."""
    if not sys.dont_write_bytecode:
        return
    prefix = str(ROOT / ".pytest_cache" / "pycache")
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = prefix
    sys.pycache_prefix, sys.dont_write_bytecode = prefix, False
    _installed_packages_keep_their_bytecode()


def _installed_packages_keep_their_bytecode() -> None:
    """With a bytecode prefix, Python looks for every module's compiled file under it, never in the ``__pycache__``
    beside the source where pip wrote it at install: each test process compiled torch, transformers, Streamlit,
    pandas and plotly again (~11 s of CPU for their first imports, measured; two processes racing at the start of
    a run). In the test processes, only the project's own sources use the prefix; installed modules are read from
    (and, if missing, written to) their own ``__pycache__``. The servers and CLI processes the tests start keep the
    prefix for everything (the environment variable): the first of them compiles what it imports, once a run."""
    from importlib import _bootstrap_external  # noqa: PLC2701 (where SourceLoader looks up the cache path)

    original = _bootstrap_external.cache_from_source
    if getattr(original, "project_only", False):
        return
    own, installed = str(ROOT) + os.sep, (sys.prefix + os.sep, sys.base_prefix + os.sep)

    def cache_from_source(path, debug_override=None, *, optimization=None):
        if optimization is None and debug_override is None and not sys.flags.optimize and (
                not path.startswith(own) or path.startswith(installed)):
            head, tail = os.path.split(path)
            stem = tail.rpartition(".")[0] or tail
            return os.path.join(head, "__pycache__", f"{stem}.{sys.implementation.cache_tag}.pyc")
        return original(path, debug_override, optimization=optimization)

    cache_from_source.project_only = True
    _bootstrap_external.cache_from_source = cache_from_source


_cache_compiled_modules()

# Property tests explore new random inputs on every local run; CI (FLOPSCOPE_HYPOTHESIS=ci) replays a
# fixed seed so a landing is not decided by luck. ``python -m pytest`` alone keeps exploring.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.load_profile(os.environ.get("FLOPSCOPE_HYPOTHESIS", "default"))


def _app_tests_wait_out_a_busy_machine() -> None:
    """Every AppTest run waits ``page_run.APP_TIMEOUT_S`` before calling the script hung, whatever timeout the test
    gave (60 or 120 s, written as guards when the machine was quiet): under load a run's wall time grows
    many-fold; its cost is held in CPU seconds (``page_run.MAX_RUN_CPU_S``)."""
    try:
        from streamlit.testing.v1 import AppTest
    except ImportError:
        return
    from tests.app.page_run import APP_TIMEOUT_S

    run = AppTest._run
    if getattr(run, "patient", False):
        return

    def patient_run(self, widget_state=None, timeout=None):
        return run(self, widget_state, max(self.default_timeout if timeout is None else timeout, APP_TIMEOUT_S))

    patient_run.patient = True
    AppTest._run = patient_run


SHARED = ROOT.parent / "shared"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
_app_tests_wait_out_a_busy_machine()


def _required(name: str) -> bool:
    return os.environ.get(name, "") not in ("", "0")


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    """``../shared`` (the reference data); tests that read it skip where it is absent."""
    if not SHARED.is_dir():
        pytest.skip("../shared (reference data) is not here")
    return SHARED


@pytest.fixture(scope="session")
def torch():
    """PyTorch, the external counter for the ``matmul`` convention (CPU build, test-only)."""
    try:
        import torch as _torch
    except ImportError:
        if _required("FLOPSCOPE_REQUIRE_TORCH"):
            pytest.fail("torch is required here (FLOPSCOPE_REQUIRE_TORCH=1): pip install torch==2.13.0")
        pytest.skip("torch not installed (pip install torch==2.13.0)")
    return _torch


@pytest.fixture(scope="session")
def chromium_path() -> str:
    path = shutil.which("chromium") or ("/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None)
    if path is None:
        if _required("FLOPSCOPE_REQUIRE_BROWSER"):
            pytest.fail("chromium is required here (FLOPSCOPE_REQUIRE_BROWSER=1): apt-get install chromium")
        pytest.skip("chromium not installed (apt-get install chromium)")
    return path


@pytest.fixture(scope="session")
def server():
    """The one Streamlit server of this checkout (per test process) on a free loopback port, shared by every
    browser test (each opens its own browser context, so its own Streamlit session). Its Hugging Face Hub is a
    local one on 127.0.0.1 (``tests/llm/test_hub.py``), so the panel's download by model id never leaves the
    machine."""
    from tests.browser.harness import streamlit_server
    from tests.llm.test_hub import local_hub

    with local_hub() as hub, streamlit_server(env={"HF_ENDPOINT": hub}) as url:
        yield url


@pytest.fixture(scope="session")
def browser(chromium_path):
    """Debian's Chromium, headless, driven by Playwright, once per test process; each context it opens waits up
    to ``harness.WAIT_MS`` for a step (a hang guard: a busy machine slows every step)."""
    from tests.browser.harness import CHROMIUM_ARGS

    sync_api = pytest.importorskip("playwright.sync_api")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium_path, headless=True, args=CHROMIUM_ARGS)
        yield PatientBrowser(b)
        b.close()


class PatientBrowser:
    """A Playwright browser whose contexts wait ``harness.WAIT_MS`` by default (Playwright's own default is 30 s, a
    hang guard: a busy machine slows every step), ask for reduced motion, and lend a page already opened.

    Reduced motion: Streamlit's running indicators and transitions are animations, which a headless Chromium draws
    at 60 frames a second while a script runs (a quarter of the browser tier's CPU). A lent page: a new page costs
    Chromium ~4.5 s of CPU to load the app, the same page sent to a new address ~2.5 s; a test's context is a
    ``LentContext`` whose first page is one an earlier test gave back (its cookies, storage and permissions
    cleared, sent to ``about:blank``, which ends its Streamlit session), so every test still starts a session of
    its own. Options other than a viewport and downloads get a context of their own."""

    LENDABLE = frozenset({"viewport", "accept_downloads"})

    def __init__(self, browser):
        self._browser = browser
        self._idle: list = []  # pages given back, each alone in its context

    def fresh_context(self, **options):
        from tests.browser.harness import RUN_WATCH, WAIT_MS

        context = self._browser.new_context(reduced_motion="reduce", **options)
        context.add_init_script(RUN_WATCH)  # wait_for_app knows when an action's run has started
        context.set_default_timeout(WAIT_MS)
        context.set_default_navigation_timeout(WAIT_MS)
        return context

    def new_context(self, **options):
        if set(options) - self.LENDABLE:
            return self.fresh_context(**options)
        return LentContext(self, options.get("viewport") or {"width": 1280, "height": 720})

    def new_page(self, **options):
        return self.new_context(**options).new_page()

    def lend(self, viewport: dict):
        while self._idle:
            page = self._idle.pop()
            if not page.is_closed():
                break
        else:
            page = self.fresh_context(accept_downloads=True).new_page()
        page.set_viewport_size(viewport)
        return page

    def give_back(self, page) -> None:
        """Clear what a test left (cookies, storage, permissions) and end its session; a page that will not is
        closed with its context."""
        if page.is_closed():
            return
        try:
            if page.url.startswith("http"):
                page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            page.goto("about:blank")
            page.context.clear_cookies()
            page.context.clear_permissions()
        except Exception:
            page.context.close()
            return
        self._idle.append(page)

    def __getattr__(self, name):
        return getattr(self._browser, name)


class LentContext:
    """A browser context for one test: its first page is lent (``PatientBrowser``), further pages are its own;
    ``close`` gives the first back and closes the rest."""

    def __init__(self, owner: PatientBrowser, viewport: dict):
        self._owner, self._viewport, self._lent, self._own = owner, viewport, None, []

    def new_page(self):
        if self._lent is None:
            self._lent = self._owner.lend(self._viewport)
            return self._lent
        page = self._lent.context.new_page()
        page.set_viewport_size(self._viewport)
        self._own.append(page)
        return page

    def close(self) -> None:
        for page in self._own:
            if not page.is_closed():
                page.close()
        if self._lent is not None:
            self._owner.give_back(self._lent)
            self._lent = None


TIER_FIXTURES = {"browser": {"server", "browser", "chromium_path"}, "reference": {"torch", "exported"}}
TIER_SOURCES = {"pages": re.compile(r"\bAppTest\b|tests\.app\.page_run"),
                "reference": re.compile(r"importorskip\(\"(?:torch|transformers)\"\)|hf_reference|torch_nets")}
"""What marks a test's tier: a fixture it uses, or what its module's source uses."""


def pytest_collection_modifyitems(config, items):
    module_tiers: dict[Path, set[str]] = {}
    for item in items:
        path = Path(str(item.fspath))
        if path not in module_tiers:
            text = path.read_text(encoding="utf-8") if path.suffix == ".py" else ""
            module_tiers[path] = {tier for tier, pattern in TIER_SOURCES.items() if pattern.search(text)}
            if path.is_relative_to(ROOT / "tests" / "browser"):
                module_tiers[path].add("browser")
        fixtures = set(getattr(item, "fixturenames", ()))
        for tier in module_tiers[path] | {tier for tier, names in TIER_FIXTURES.items() if fixtures & names}:
            item.add_marker(tier)


def pytest_sessionstart(session):
    """CI's FLOPSCOPE_REQUIRE_TORCH=1: the external counters must be importable, or the run stops here (a module
    that imports them with ``importorskip`` would otherwise be skipped whole)."""
    if _required("FLOPSCOPE_REQUIRE_TORCH"):
        missing = [name for name in ("torch", "transformers", "onnx", "onnxscript") if not _importable(name)]
        if missing:
            raise pytest.UsageError(f"FLOPSCOPE_REQUIRE_TORCH=1 and {', '.join(missing)} cannot be imported: "
                                    "pip install -r requirements-dev.txt")


def _importable(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None
