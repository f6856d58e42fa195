"""The layout of the commands' text output: aligned tables and 'label  value' lines, every cell made safe for a
terminal (``engine.cli.text`` and ``engine.cli.media_text`` write with them)."""
from __future__ import annotations

from collections.abc import Iterable, Sequence


def shown(value: object) -> str:
    """A value for a terminal: each character that is not printable (an escape sequence, a carriage return or a
    line break in a layer's name or a file's text) written as its escape, so that user text can neither move the
    cursor, retitle the window nor start a line of its own."""
    text = str(value)
    return text if text.isprintable() else "".join(c if c.isprintable() else c.encode("unicode_escape").decode("ascii")
                                                   for c in text)


def table(headers: Sequence[str], rows: Iterable[Sequence[object]], right: Sequence[int] = ()) -> str:
    """Columns padded to their widest cell; the columns in ``right`` (numbers) aligned right. Every cell ``shown``."""
    cells = [[shown(h) for h in headers]] + [["" if c is None else shown(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]

    def line(row):
        return "  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip()

    return "\n".join([line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]])


def pairs(items: Iterable[tuple[str, object]]) -> str:
    """'label   value' lines, labels padded to the longest (items with a None value are left out); values ``shown``."""
    items = [(k, shown(v)) for k, v in items if v is not None]
    width = max((len(k) for k, _ in items), default=0)
    return "\n".join(f"{k.ljust(width)}  {v}" for k, v in items)
