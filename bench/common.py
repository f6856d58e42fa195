"""Timing helpers: medians of repeated runs (time.perf_counter)."""
from __future__ import annotations

import statistics
import time


def median_seconds(fn, repeat: int = 15, warmup: int = 2) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def flop_text(flop: float) -> str:
    """A training-compute metric as the pages print it: 1.13e16 FLOP."""
    return f"{flop:.2e}".replace("e+", "e") + " FLOP"


def epochs_edit_seconds(page, epochs: int, want: str) -> float:
    """In the browser: type ``epochs`` into the Epochs field, press Enter, and time until a metric reads
    ``want`` (the updated training compute)."""
    field = page.get_by_label("Epochs", exact=True)
    field.fill(str(epochs))
    start = time.perf_counter()
    field.press("Enter")
    page.wait_for_function(
        "(want) => [...document.querySelectorAll('[data-testid=stMetricValue]')]"
        ".some(e => e.innerText === want)", arg=want, timeout=30_000)
    return time.perf_counter() - start
