"""The dashboard's pages, in one place: the navigation (``app.py``), the browser checks and the page-run tests all
read this list (no Streamlit here, so tests and benchmarks import it freely). A page is a file in ``pages/``;
``tests/ui/test_navigation.py`` fails for a file left out of the list, or an entry without its file."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class PageEntry:
    """One page: its file ``pages/<name>.py``, its title and icon in the navigation."""

    name: str
    title: str
    icon: str
    default: bool = False

    @property
    def file(self) -> str:
        return f"pages/{self.name}.py"

    @property
    def url_path(self) -> str:
        """Where the browser finds it: the default page at the root, the others at their file's name."""
        return "" if self.default else self.name


PAGES: tuple[PageEntry, ...] = (
    PageEntry("layer_builder", "Layer builder (method 1)", ":material/layers:", default=True),
    PageEntry("hardware", "Hardware & time (method 2)", ":material/memory:"),
    PageEntry("precision", "Precision & tensor cores", ":material/tune:"),
    PageEntry("trends", "Historical trends", ":material/trending_up:"),
    PageEntry("plan", "Plan a run", ":material/calendar_month:"),
    PageEntry("measure", "Measure a run", ":material/monitoring:"),
    PageEntry("serve", "Serve a model", ":material/bolt:"),
)
PAGE_NAMES: tuple[str, ...] = tuple(p.name for p in PAGES)
