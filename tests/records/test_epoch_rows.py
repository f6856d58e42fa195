"""An Epoch AI row's training-compute cell: any float notation, thousands separators; nothing else."""
from __future__ import annotations

import pytest

from engine.records.epoch_rows import parse_flop


@pytest.mark.parametrize("text,value", [("3.14e+23", 3.14e23), ("3.14E23", 3.14e23), ("1,000,000", 1e6),
                                        ("+2.5", 2.5), (".5", 0.5), ("7.", 7.0), (" 12 ", 12.0)])
def test_parse_flop(text, value):
    assert parse_flop(text) == value


@pytest.mark.parametrize("text", ["", "nan", "inf", "-1", "0", "1e999", "0x10", "1_000", "1,00", "3e", "e5"])
def test_parse_flop_refuses(text):
    with pytest.raises(ValueError):
        parse_flop(text)
