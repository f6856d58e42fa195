"""Time as sets of intervals: union, length, difference (the arithmetic of a timeline breakdown).

An interval is ``(start, end)`` in µs. ``merge`` returns the union as sorted, disjoint intervals (touching ones
joined); ``subtract(a, b)`` is b's time not under a (both merged); ``length`` is the summed duration.
"""
from __future__ import annotations

from collections.abc import Iterable

Interval = tuple[float, float]


def merge(intervals: Iterable[Interval]) -> list[Interval]:
    """The union of ``intervals`` as sorted, disjoint intervals (an interval starting where another ends joins it)."""
    items = sorted(intervals)
    if not items:
        return []
    out = [list(items[0])]
    for start, end in items[1:]:
        last = out[-1]
        if start <= last[1]:
            last[1] = max(last[1], end)
        else:
            out.append([start, end])
    return [(s, e) for s, e in out]


def length(intervals: Iterable[Interval]) -> float:
    return sum(e - s for s, e in intervals)


def subtract(remove: list[Interval], keep: list[Interval]) -> list[Interval]:
    """The parts of ``keep`` not covered by ``remove`` (both merged: sorted and disjoint)."""
    out: list[Interval] = []
    i, n = 0, len(remove)
    for start, end in keep:
        current = start
        while i < n and remove[i][1] <= start:
            i += 1
        j = i
        while j < n and remove[j][0] < end:
            r_start, r_end = remove[j]
            if r_start > current:
                out.append((current, min(end, r_start)))
            current = max(current, r_end)
            if current >= end:
                break
            j += 1
        if current < end:
            out.append((current, end))
    return out


def gaps(merged: list[Interval]) -> list[float]:
    """The idle gaps between consecutive merged intervals."""
    return [merged[k + 1][0] - merged[k][1] for k in range(len(merged) - 1)]
