"""User text made inert for spreadsheets (``engine/safe_text.py``): OWASP's formula starts, also behind
characters a spreadsheet skips (spaces, zero-width and format characters)."""
from __future__ import annotations

import pytest

from engine.safe_text import spreadsheet_inert


@pytest.mark.parametrize("text", [
    "=1+1", "+cmd|' /C calc'!A0", "-2+3", "@SUM(1+1)", "\t=1", "\r=1",
    " =HYPERLINK(\"https://login.evil.example/\",\"x\")", "   +1", "\u200b=cmd", "\ufeff=cmd", "\u2060@SUM(1)",
    "\u200e-2+3", "\u00a0=1", "\u3000=1", " \u200b \t=1", "\uff1d1+1", " \uff0bcmd",
])
def test_formula_starts_get_a_quote_even_behind_invisible_characters(text):
    assert spreadsheet_inert(text) == "'" + text


@pytest.mark.parametrize("value", ["plain", " spaced name", "a=b", "e-mail", "\u200bname", "", 5, 1.5, None])
def test_other_values_pass_unchanged(value):
    assert spreadsheet_inert(value) == value
