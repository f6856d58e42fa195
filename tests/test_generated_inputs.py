"""The replayed generated inputs (``tests/data/generated_inputs.json.gz``) are those of today's strategy: drawn
from ``tests/scenario_strategy.py`` as it is now, with the counts and seeds of ``tests/generated_inputs.py``."""
from __future__ import annotations

from tests.generated_inputs import KINDS, generated, replayed_hash, strategy_hash


def test_the_replayed_inputs_come_from_todays_strategy():
    assert replayed_hash() == strategy_hash(), ("tests/scenario_strategy.py changed since the inputs were drawn: "
                                                "python -m tools.draw_generated_inputs")


def test_each_kind_has_its_count_of_inputs():
    assert {kind: len(generated(kind)) for kind in KINDS} == {kind: count for kind, (_, count, _) in KINDS.items()}
