"""The reference traces of ../shared/data/traces and HTA, the external reference for the whole-trace split."""
from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="session")
def traces_dir(shared_dir):
    path = shared_dir / "data" / "traces"
    if not path.is_dir():
        pytest.skip("../shared/data/traces is not here")
    return path


@pytest.fixture(scope="session")
def hta():
    """Holistic Trace Analysis 0.5.0 (test-only; .ci/run installs it with --no-deps, its own dependencies are in
    requirements-dev.txt). Missing locally: skipped; missing in CI: a failure."""
    try:
        from hta.trace_analysis import TraceAnalysis
    except ImportError:
        if os.environ.get("CI") or os.environ.get("FLOPSCOPE_REQUIRE_TORCH"):
            pytest.fail("HolisticTraceAnalysis is required here: pip install -r requirements-dev.txt")
        pytest.skip("HolisticTraceAnalysis not installed (pip install -r requirements-dev.txt)")
    return TraceAnalysis
