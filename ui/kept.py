"""What a page derives from data that does not change between its runs (the shipped runs, their fits, the chart's
traces of them), kept by the identity of the objects it was made from: a server's sessions and a session's reruns
share it, as they share the shipped files read once. The pages treat these results as read-only."""
from __future__ import annotations

import functools
import threading
from collections import OrderedDict


def by_identity(size: int = 16):
    """``fn(*args)`` kept per the identity of each argument that is an object (a frame, a list) and the value of each
    that is a plain key (text, numbers, tuples of them, None); the objects are held beside the result, so an id
    names no other object while it is kept; at most ``size`` results (the least recently used go first). A list's
    identity is that of its items (a loader gives a new list of the same runs on each call)."""

    def decorate(fn):
        kept: OrderedDict[tuple, tuple[tuple, object]] = OrderedDict()
        lock = threading.Lock()

        @functools.wraps(fn)
        def remembered(*args):
            key = tuple(_key(a) for a in args)
            with lock:
                found = kept.get(key)
                if found is not None:
                    kept.move_to_end(key)
                    return found[1]
            result = fn(*args)
            with lock:
                kept[key] = (args, result)
                while len(kept) > size:
                    kept.popitem(last=False)
            return result

        remembered.kept = kept
        return remembered

    return decorate


PLAIN = (str, int, float, bool, type(None))


def _key(value):
    if isinstance(value, PLAIN):
        return value
    if isinstance(value, tuple) and all(isinstance(v, PLAIN) or isinstance(v, tuple) for v in value):
        return ("tuple", value)
    if isinstance(value, list):
        return ("list", tuple(id(v) for v in value))
    return ("id", id(value))
