"""The bundled example trace (synthetic: ``tools/synthetic_trace.py`` writes it; the dashboard opens it)."""
from __future__ import annotations

from pathlib import Path

EXAMPLE_TRACE = Path(__file__).resolve().parent / "example_trace.json.gz"
