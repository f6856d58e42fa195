"""AppTest helpers for the layer builder's user steps."""
from __future__ import annotations

from engine.method1.kinds import KIND_BY_TYPE


def add_layer(at, kind: str):
    """One click on ``kind`` in the "add a layer" list (after the selected layer)."""
    label = KIND_BY_TYPE[kind].kind_label
    group = next(g for g in at.get("button_group") if str(g.key).startswith("m1_add_") and label in g.options)
    return group.set_value(kind).run()


def scratch_mlp(at):
    """Start from scratch, then build [784] → dense 128 → ReLU → dense 10, trained 10 epochs × 60,000."""
    next(b for b in at.button if b.label == "Start from scratch").click().run()
    for kind in ("dense", "activation", "dense"):
        add_layer(at, kind)
    at.number_input(key="layer2_units").set_value(10).run()
    at.number_input(key="t_epochs").set_value(10.0).run()
    return at.number_input(key="t_examples").set_value(60_000.0).run()
