"""Every figure of the regression snapshot (``snapshot.py``) equals the one recorded before the block and family
refactor (issue 35): the library, the real and random configs, the presets and the share links — parameters,
forward FLOP in both conventions, the exact backward, fine-tuning, the formulas, the planner's model, each
row (by digest) and each refusal's line."""
from __future__ import annotations

import functools

import pytest

from tests.regression import snapshot

GROUPS = ("library/", "hub/", "llm-preset/", "small/", "random/", "link/preset/", "file/preset/", "link/library/",
          "file/library/", "link/well-formed/", "link/hostile/")


@functools.cache
def _recorded() -> tuple[dict, dict]:
    return snapshot.load_inputs(), snapshot.load_figures()


def _differences(before, after, path: str = "") -> list[str]:
    if isinstance(before, dict) and isinstance(after, dict):
        out = [f"{path}.{k}: missing now" for k in before if k not in after]
        out += [f"{path}.{k}: new" for k in after if k not in before]
        for k in before:
            if k in after:
                out += _differences(before[k], after[k], f"{path}.{k}")
        return out
    return [] if before == after else [f"{path}: {str(before)[:200]} → {str(after)[:200]}"]


@pytest.mark.parametrize("group", GROUPS)
def test_every_recorded_figure_is_unchanged(group):
    inputs, figures = _recorded()
    recorded = {case: value for case, value in figures.items() if case.startswith(group)}
    assert recorded, f"no case of {group} in the snapshot"
    source = group.replace("file/", "link/", 1)
    now = snapshot.all_figures(inputs, source)
    now = {case: value for case, value in now.items() if case.startswith(group)}
    assert set(now) == set(recorded)
    changed = {case: _differences(recorded[case], now[case]) for case in recorded}
    changed = {case: diff for case, diff in changed.items() if diff}
    assert not changed, f"{len(changed)} of {len(recorded)} cases differ; first: " + "; ".join(
        f"{case}: {diff[:3]}" for case, diff in list(changed.items())[:3])


def test_the_snapshot_covers_the_library_every_family_and_links():
    """The corpus holds what the refactor must keep: every library model, every family of the registry (small
    and random configs), every scenario preset and the old-format links."""
    from engine.llm.families import FAMILIES
    from engine.llm.library import library_models
    from engine.presets import presets

    inputs, figures = _recorded()
    configs = inputs["configs"]
    assert {f"library/{m.id}" for m in library_models()} <= set(configs)
    drawn = {case.split("/")[1] for case in configs if case.startswith("random/")}
    assert drawn == set(FAMILIES)
    assert {f"link/preset/{p}" for p in presets()} <= set(inputs["links"])
    opened = [c for c, v in figures.items() if c.startswith("link/") and "refused" not in v]
    assert len(opened) > 500
