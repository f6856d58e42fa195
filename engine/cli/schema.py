"""``schema``: the JSON Schema of the scenario file."""
from __future__ import annotations

from ..scenario import Scenario


def register(sub) -> None:
    s = sub.add_parser("schema", help="JSON Schema of the scenario file")
    s.set_defaults(run=lambda args: Scenario.model_json_schema())
