"""Pooling the shipped runs with an uploaded Epoch AI CSV without counting a run twice.

Two rows are the same run when a name matches — the whole name, or the name without its parenthesised
parts ('GPT-3 175B' = 'GPT-3 175B (davinci)'; letters and digits only, case ignored) — their dates
are at most ``MAX_YEARS_APART`` apart and their FLOP at most ``MAX_FLOP_FACTOR`` apart (the same
model, counted by two teams). The shipped row is kept (it carries its own source) and marked as in both.
"""
from __future__ import annotations

import re

import pandas as pd

MAX_YEARS_APART = 1.0
MAX_FLOP_FACTOR = 10.0
SHIPPED, EPOCH, BOTH = "FLOPscope's dataset", "Epoch AI (uploaded CSV)", "both"
"""The values of the ``origin`` column."""

_PARENS = re.compile(r"\([^)]*\)")
_NOT_ALNUM = re.compile(r"[^a-z0-9]")


def name_keys(name: str) -> set[str]:
    """'GPT-3 175B (davinci)' → {'gpt3175bdavinci', 'gpt3175b'}: the name, and without parentheses."""
    text = str(name).lower()
    keys = {_NOT_ALNUM.sub("", text), _NOT_ALNUM.sub("", _PARENS.sub("", text))}
    return {k for k in keys if len(k) >= 3}


def combine_runs(shipped: pd.DataFrame, epoch: pd.DataFrame) -> pd.DataFrame:
    """Both frames' rows, each run once: an Epoch row matching a shipped one is dropped and the shipped row
    marked ``origin`` = 'both' (with ``epoch_name``); the others keep their own origin."""
    index: dict[str, list[int]] = {}
    for i, name in enumerate(shipped["name"]):
        for key in name_keys(name):
            index.setdefault(key, []).append(i)
    years, flops = shipped["decimal_year"].to_numpy(), shipped["training_flop"].to_numpy()
    matched: dict[int, str] = {}
    keep = []
    for name, year, flop in zip(epoch["name"], epoch["decimal_year"], epoch["training_flop"]):
        same = next((i for key in name_keys(name) for i in index.get(key, ())
                     if i not in matched and abs(years[i] - year) <= MAX_YEARS_APART
                     and max(flops[i], flop) / min(flops[i], flop) <= MAX_FLOP_FACTOR), None)
        if same is None:
            keep.append(True)
        else:
            matched[same] = name
            keep.append(False)
    ours = shipped.copy()
    ours["origin"] = [BOTH if i in matched else SHIPPED for i in range(len(ours))]
    ours["epoch_name"] = [matched.get(i) for i in range(len(ours))]
    theirs = epoch[keep].copy()
    theirs["origin"] = EPOCH
    theirs["epoch_name"] = theirs["name"]
    return (pd.concat([ours, theirs], ignore_index=True)
            .sort_values("decimal_year", kind="stable").reset_index(drop=True))
