"""Structured pruning of a layer list: the pruned architecture, whose parameters and FLOP the engine counts exactly.

- ``channels``: a fraction f of the output channels of each dense, convolution and recurrent layer (width w →
  max(1, round(w·(1 − f)))): the layers after it read fewer inputs, as the shapes propagate. Kept whole: the last
  such layer of the list (the model's output) and of every block's lists (a residual's body and shortcut, a repeat's
  layers, each branch), the last such layer before a block (a residual's identity, a repeat's loop and a branch's
  merge need the width the block was built on: the pruning is inside the blocks, as in ResNets' channel pruning)
  and before a grouped convolution (its groups divide that width: a depthwise one has one group per channel), and
  grouped convolutions themselves.
- ``heads``: a fraction of each attention layer's query heads; a grouped-query block keeps its key/value heads and
  loses query heads in every group (H = H_kv·max(1, round(H/H_kv·(1 − f)))); a multi-head block its key/value heads
  with them. The head size stays.
- ``ffn``: a fraction of each transformer block's feed-forward width (per expert in a mixture).
- ``blocks``: a fraction of the top-level blocks (transformer, residual, branch blocks, a repeat's copies), spread
  evenly between the first and the last, which stay (depth pruning).

``per_layer`` names the layers (their paths, ``layers[3]``) and a fraction each; otherwise every eligible layer loses
``fraction`` (global, uniform). ``round_to``: widths rounded down to a multiple (GPU-friendly shapes), at least one
multiple.
"""

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from ..plain_copy import plain_copy

Fraction = Annotated[float, Field(gt=0, lt=1, allow_inf_nan=False)]
WIDTH_FIELDS = {"dense": "units", "conv1d": "filters", "conv2d": "filters", "conv3d": "filters",
                "conv_transpose2d": "filters", "rnn": "units", "gru": "units", "lstm": "units"}
BLOCK_TYPES = ("transformer_block", "residual", "branches")
NESTED = {"residual": ("body", "shortcut"), "repeat": ("layers",)}
"""A block's lists of layers by kind (a branches block: each of its ``branches``)."""
HEAD_MIXERS = ("attention", "latent", "lightning", "compressed")
"""The mixers with query heads to prune."""


class Pruning(BaseModel):
    """What structured pruning removes: a fraction of ``target`` in every eligible layer, or per layer."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    target: Literal["channels", "heads", "ffn", "blocks"]
    fraction: Fraction | None = Field(None, description="f: the share removed from every eligible layer (global).")
    per_layer: dict[str, Fraction] | None = Field(None, max_length=10_000,
                                                  description="Layer path → its own fraction (only these pruned).")
    round_to: int = Field(1, ge=1, le=1024, description="Widths rounded down to a multiple of this.")

    @model_validator(mode="after")
    def _one_scope(self):
        if (self.fraction is None) == (self.per_layer is None):
            raise InputError("fraction", "give a fraction for every layer, or per_layer fractions (not both)")
        if self.target == "blocks" and self.per_layer is not None:
            raise InputError("per_layer", "depth pruning removes whole blocks: give one fraction")
        return self

    def share(self, path: str) -> float | None:
        if self.per_layer is not None:
            return self.per_layer.get(path)
        return self.fraction


def _keep(width: int, fraction: float, round_to: int) -> int:
    kept = max(1, round(width * (1 - fraction)))
    if round_to > 1:
        kept = max(round_to, kept // round_to * round_to)
    return min(kept, width)


def _width_layers(layers: list, path: str) -> list[str]:
    """Paths of the layers with a prunable width directly in this list."""
    return [f"{path}[{i}]" for i, layer in enumerate(layers)
            if isinstance(layer, dict) and layer.get("type") in WIDTH_FIELDS and layer.get("groups", 1) == 1]


def _read_whole(layers: list, path: str) -> list[str]:
    """Paths of the width layers whose width what follows was built on: the last before each residual, repeat or
    branches block, and before a grouped convolution (its groups divide its input's channels: a depthwise one has
    as many groups as channels)."""
    read, last = [], None
    for i, layer in enumerate(layers):
        kind = layer.get("type") if isinstance(layer, dict) else None
        grouped = kind in WIDTH_FIELDS and layer.get("groups", 1) != 1
        if (grouped or kind in ("residual", "repeat", "branches")) and last is not None:
            read.append(last)
        if kind in WIDTH_FIELDS:
            last = f"{path}[{i}]"
    return read


def _prune_list(layers: list, path: str, spec: Pruning, widths: dict[str, int], done: list) -> list:
    out = []
    whole = set(_width_layers(layers, path)[-1:] + _read_whole(layers, path)) if spec.target == "channels" else set()
    for i, layer in enumerate(layers):
        here = f"{path}[{i}]"
        layer = plain_copy(layer)
        kind = layer.get("type") if isinstance(layer, dict) else None
        if kind in NESTED:
            for field in NESTED[kind]:
                if isinstance(layer.get(field), list):
                    layer[field] = _prune_list(layer[field], f"{here}.{field}", spec, widths, done)
        elif kind == "branches":
            layer["branches"] = [_prune_list(b, f"{here}.branches[{j}]", spec, widths, done)
                                 for j, b in enumerate(layer["branches"])]
        share = spec.share(here)
        if share is None:
            out.append(layer)
            continue
        if spec.target == "channels" and kind in WIDTH_FIELDS and here not in whole and layer.get("groups", 1) == 1:
            name = WIDTH_FIELDS[kind]
            layer[name] = _keep(layer[name], share, spec.round_to)
            done.append(here)
        elif spec.target == "heads" and kind in ("transformer_block", "multi_head_attention"):
            if _prune_heads(layer, share, widths.get(here), spec.round_to, here, spec.per_layer is not None):
                done.append(here)
        elif spec.target == "ffn" and kind == "transformer_block" and layer.get("feed_forward", {}) is not None:
            d = widths.get(here)
            ff_part = dict(layer.get("feed_forward") or {})
            ff = ff_part.get("size") or (4 * d if d else None)
            if ff is None:
                raise InputError(f"{here}.feed_forward.size", "give the feed-forward size to prune it")
            layer["feed_forward"] = ff_part | {"size": _keep(ff, share, spec.round_to)}
            done.append(here)
        out.append(layer)
    return out


def _prune_heads(layer: dict, share: float, d: int | None, round_to: int, here: str, named: bool) -> bool:
    """Prune the heads of a multi-head attention layer or of a transformer block's mixer (in place); False for a
    mixer without attention heads (a state-space or feed-forward-only block), refused where ``named``."""
    if layer["type"] == "multi_head_attention":  # its head sizes D = N = d / H kept (they default to d / H)
        heads = layer["heads"]
        if layer.get("key_size") is None or layer.get("value_size") is None:
            if not d or d % heads:
                raise InputError(f"{here}.key_size", "give the head sizes (key_size, value_size) to prune heads")
            layer["key_size"] = layer.get("key_size") or d // heads
            layer["value_size"] = layer.get("value_size") or d // heads
        layer["heads"] = _keep(heads, share, 1)
        return True
    mixer = dict(layer.get("mixer") or {})
    kind = mixer.get("kind", "attention")
    if kind not in HEAD_MIXERS:
        if named:
            raise InputError(f"{here}.mixer", f"a {kind} mixer has no attention heads to prune")
        return False
    heads = mixer["heads"]
    kv = mixer.get("kv_heads") or heads
    if mixer.get("head_size") is None:
        if not d or d % heads:
            raise InputError(f"{here}.mixer.heads", "give the head size to prune heads")
        mixer["head_size"] = d // heads
    if kind != "attention":  # latent, lightning, compressed: query heads only (no key/value heads of their own)
        mixer["heads"] = _keep(heads, share, 1)
    elif kv == heads:
        mixer["heads"] = mixer["kv_heads"] = _keep(heads, share, 1)
    else:
        mixer["heads"] = kv * _keep(heads // kv, share, 1)
    layer["mixer"] = mixer
    return True


def _prune_blocks(layers: list, fraction: float, keeps_shape: set[int] | None = None) -> tuple[list, list[str]]:
    """Depth pruning: ``fraction`` of the top-level blocks (a repeat's copies each one) removed, spread evenly
    between the first and the last, which stay; with ``keeps_shape`` (the top-level places whose output has their
    input's shape), only those: removing a block that downsamples would change every layer after it (ResNet's
    stages: its compute rose 3.5×)."""
    units = []  # (top-level index, copy) of every block
    for i, layer in enumerate(layers):
        kind = layer.get("type") if isinstance(layer, dict) else None
        if kind in BLOCK_TYPES:
            units.append((i, 0))
        elif kind == "repeat":
            units += [(i, c) for c in range(int(layer.get("times", 2)))]
    drop = round(len(units) * fraction)
    if not units:
        raise InputError("target", "no blocks to remove: depth pruning removes residual, branch and transformer "
                                   "blocks and a repeat's copies")
    if len(units) < 3 or drop == 0:
        raise InputError("fraction", f"{fraction:g} of {len(units)} blocks removes none (the first and last stay)")
    middle = units[1:-1]
    if keeps_shape is not None:
        middle = [u for u in middle if u[0] in keeps_shape]
        if not middle:
            raise InputError("target", "no block between the first and the last keeps its input's shape: removing "
                                       "one would change every layer after it (a stage that downsamples) — prune "
                                       "channels instead")
    drop = min(drop, len(middle))
    picked = {middle[round(j * (len(middle) - 1) / max(drop - 1, 1))] for j in range(drop)} if drop > 1 else \
        {middle[len(middle) // 2]}
    out, removed = [], []
    for i, layer in enumerate(layers):
        if isinstance(layer, dict) and layer.get("type") == "repeat":
            lost = sum(1 for u in picked if u[0] == i)
            if lost:
                removed.append(f"layers[{i}] ×{lost}")
                if lost == layer.get("times", 2):
                    continue
                layer = dict(layer, times=layer.get("times", 2) - lost)
        elif (i, 0) in picked:
            removed.append(f"layers[{i}]")
            continue
        out.append(plain_copy(layer))
    return out, removed


def pruned_layers(layers: list, spec: Pruning, widths: dict[str, int] | None = None,
                  keeps_shape: set[int] | None = None) -> tuple[list, list[str]]:
    """(the pruned layer list, the paths pruned). ``widths``: each transformer block's input width d (path → d),
    for a block without an explicit feed-forward or head size; ``keeps_shape``: see ``_prune_blocks``."""
    if spec.target == "blocks":
        return _prune_blocks(layers, spec.fraction, keeps_shape)
    done: list[str] = []
    out = _prune_list(layers, "layers", spec, widths or {}, done)
    if spec.per_layer:
        unknown = sorted(set(spec.per_layer) - set(done))
        if unknown:
            raise InputError("per_layer", f"{', '.join(unknown[:5])}: not a layer this pruning applies to "
                                          f"(its {spec.target})")
    if not done:
        raise InputError("target", f"no layer of this model has {spec.target} to prune")
    return out, done
