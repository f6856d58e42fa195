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
