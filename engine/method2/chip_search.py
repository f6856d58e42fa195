"""Finding a chip by what a user types: exact names first, then names that start with the words, then
any that contain them ("H100" → the H100s, never the B200 before them)."""
from __future__ import annotations

import re

from .hardware_db import Chip, HardwareDB

_WORD = re.compile(r"[a-z0-9]+")

EXACT, WORD_START, INSIDE = 0, 1, 2
"""Ranks of one query word against a chip: an id/alias/name equal to it, or one of their words equal
to it (0); a word starting with it (1); contained anywhere (2)."""


def _names(chip: Chip) -> list[str]:
    return [n.lower() for n in (chip.id, chip.name, *chip.aliases)]


def _rank_word(word: str, names: list[str]) -> int | None:
    words = {w for n in names for w in _WORD.findall(n)}
    if word in names or word in words:
        return EXACT
    if any(w.startswith(word) for w in words):
        return WORD_START
    if any(word in n for n in names):
        return INSIDE
    return None


def search_chips(db: HardwareDB, query: str) -> list[Chip]:
    """The chips matching every word of ``query``, best first (a whole-query alias/name match, then the
    sum of the words' ranks, then the database's order); all chips for an empty query."""
    query = query.strip().lower()
    if not query:
        return list(db.chips)
    words = _WORD.findall(query) or [query]
    scored = []
    for order, chip in enumerate(db.chips):
        names = _names(chip)
        ranks = [_rank_word(w, names) for w in words]
        if None in ranks:
            continue
        whole = 0 if query in names else 1
        scored.append((whole, sum(ranks), order, chip))
    return [chip for *_, chip in sorted(scored, key=lambda t: t[:3])]
