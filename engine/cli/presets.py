"""``presets``: the preset ids with their titles and sources (``flops --preset ID`` evaluates one)."""
from __future__ import annotations

from ..presets import presets


def _presets(args):
    return [{"id": p.id, "title": p.title, "source": p.source} for p in presets().values()]


def register(sub) -> None:
    p = sub.add_parser("presets", help="list the preset scenarios (ids, titles, sources)")
    p.set_defaults(run=_presets)
