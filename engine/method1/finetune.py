"""Fine-tuning choices, applied to a layer list (plain JSON data): which weights train.

- ``full``: every weight trains (the list as it is).
- ``last``: the last k blocks train, and every layer after them (the final norm, the head); every layer
  before them is frozen (embeddings included). Blocks are the top-level transformer blocks, residual and
  branch blocks, and each copy of a top-level repeat (a repeat cut by the boundary is split in two). A head
  tied to the embedding table keeps its weights frozen with it (in PyTorch one tensor cannot be half trained);
  its own bias trains (BERT's masked-LM bias).
- ``lora``: every weight frozen; adapters of rank r on every transformer block (on ``targets``) and, for
  nets that are not language models, on every dense layer (``lora_dense``).
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from ..errors import InputError
from ..plain_copy import plain_copy
from .backward import DEFAULT_LORA_TARGETS, MAX_RANK, LoraTarget, lora_targets_overlap
from .transformer import TransformerBlock, lora_target_refusal

BLOCK_TYPES = ("transformer_block", "residual", "branches")
MAX_BLOCKS = 10**6


class FineTune(BaseModel):
    """What trains: everything, the last ``blocks`` blocks (and what follows them), or LoRA adapters."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    mode: Literal["full", "last", "lora"] = "full"
    blocks: Annotated[int, Field(ge=1, le=MAX_BLOCKS)] | None = Field(None, description="k, for mode 'last'.")
    rank: Annotated[int, Field(ge=1, le=MAX_RANK)] | None = Field(None, description="r, for mode 'lora'.")
    targets: tuple[LoraTarget, ...] = DEFAULT_LORA_TARGETS
    lora_dense: bool = Field(True, description="LoRA on every dense layer too (not for language models).")

    @model_validator(mode="after")
    def _complete(self):
        if self.mode == "last" and self.blocks is None:
            raise InputError("blocks", "give how many of the last blocks train")
        if self.mode == "lora" and self.rank is None:
            raise InputError("rank", "give the LoRA rank")
        if self.mode == "lora" and not self.targets:
            raise InputError("targets", "give at least one projection to adapt")
        if lora_targets_overlap(self.targets):
            raise InputError("targets", lora_targets_overlap(self.targets))
        return self


def block_count(layers: list[dict]) -> int:
    """The blocks ``last`` counts: top-level transformer/residual/branch blocks, a top-level repeat's copies."""
    return sum(_units(layer) for layer in layers)


def _units(layer: dict) -> int:
    kind = layer.get("type")
    if kind == "repeat":
        return int(layer.get("times", 2))
    return 1 if isinstance(kind, str) and kind in BLOCK_TYPES else 0


def fine_tuned(layers: list[dict], tune: FineTune) -> list[dict]:
    """A copy of ``layers`` with ``trainable`` and ``lora`` set as ``tune`` says."""
    if tune.mode == "full":
        return plain_copy(layers)
    _kv_sources_trained(layers, tune)
    if tune.mode == "lora":
        adapted = [_adapted(dict(layer, trainable=False), tune, top=True) for layer in layers]
        _every_target_adapts(adapted, tune)
        return adapted
    total = block_count(layers)
    if total == 0:
        raise InputError("blocks", "this net has no blocks to train the last of (use trainable per layer)")
    keep = min(tune.blocks, total)  # more than there are: every block, the embeddings still frozen (layers[-k:])
    frozen_units = total - keep
    out: list[dict] = []
    seen = 0
    for layer in layers:
        layer = plain_copy(layer)
        units = _units(layer)
        if seen + units <= frozen_units:  # wholly before the boundary (layers without blocks too)
            out.append(dict(layer, trainable=False))
        elif seen >= frozen_units:
            out.append(_untied(layer))
        else:  # a repeat the boundary cuts: its first copies frozen, the rest trained
            frozen_copies = frozen_units - seen
            out.append(dict(layer, times=frozen_copies, trainable=False))
            out.append(dict(layer, times=units - frozen_copies))
        seen += units
    return _tables_with_their_block(out)


def _kv_sources_trained(layers: list[dict], tune: FineTune) -> None:
    """Layers that reuse an earlier layer's keys and values (``kv_source``, Gemma 4) compute gradients into them
    exactly when that layer's input needs one — as their own input does, except where the source is frozen with
    nothing before it training: a source left out of the last blocks trained, or the first layer under LoRA. Those
    are refused."""
    blocks = [layer for layer in layers if layer.get("type") == "transformer_block"]
    sources = [(i, _mixer(b).get("kv_source")) for i, b in enumerate(blocks) if _mixer(b).get("kv_source") is not None]
    if not sources or tune.mode == "full":
        return
    first_trained = len(blocks) - min(tune.blocks or 0, len(blocks))
    for i, source in sources:
        if tune.mode == "last" and i >= first_trained and source < first_trained:
            raise InputError("blocks", f"layer {i} reuses the keys and values of layer {source}, which would stay "
                                       f"frozen: train the last {len(blocks) - source} blocks or more (or all)")
        if tune.mode == "lora" and source == 0:
            raise InputError("mode", f"layer {i} reuses the keys and values of the first layer, whose gradient under "
                                     "LoRA depends on its targets: not modelled (train in full or the last blocks)")


def _tables_with_their_block(layers: list[dict]) -> list[dict]:
    """T5's relative position table lives in its stack's first block: it trains when the block after it does."""
    out = list(layers)
    for i, layer in enumerate(out):
        if layer.get("type") != "relative_position_bias":
            continue
        following = next((later for later in out[i + 1:] if _units(later)), None)
        if following is not None and following.get("trainable") is not False:
            out[i] = {k: v for k, v in layer.items() if k != "trainable"}
    return out


def _untied(layer: dict) -> dict:
    """A head tied to the (frozen) embedding table: its weights stay frozen with the table (one tensor in PyTorch
    cannot be half trained), its own bias trains (BERT's masked-LM ``cls.predictions.bias``: V parameters)."""
    if layer.get("type") == "lm_head" and layer.get("tied"):
        return dict(layer, table_frozen=True)
    return layer


def _adapted(layer: dict, tune: FineTune, top: bool = False) -> dict:
    kind = layer.get("type")
    if kind == "transformer_block":
        targets = tuple(t for t in tune.targets if _applies(t, layer))
        _refuse_unmatched(layer, targets)
        return dict(layer, lora={"rank": tune.rank, "targets": list(targets)}) if targets else layer
    if kind == "dense" and tune.lora_dense:
        return dict(layer, lora={"rank": tune.rank})
    for key in ("body", "shortcut", "layers"):
        if isinstance(layer.get(key), list):
            layer[key] = [_adapted(dict(inner), tune) for inner in layer[key]]
    if isinstance(layer.get("branches"), list):
        layer["branches"] = [[_adapted(dict(inner), tune) for inner in branch] for branch in layer["branches"]]
    return layer


def _blocks_within(layers: list[dict]):
    for layer in layers:
        if layer.get("type") == "transformer_block":
            yield layer
        for key in ("body", "shortcut", "layers"):
            if isinstance(layer.get(key), list):
                yield from _blocks_within(layer[key])
        if isinstance(layer.get("branches"), list):
            for branch in layer["branches"]:
                yield from _blocks_within(branch)


TARGET_NAMES = {"q": "a query projection", "k": "a key projection", "v": "a value projection",
                "qkv": "a fused query-key-value projection",
                "o": "an attention output projection", "gate": "a gated dense or shared feed-forward (gate projection)",
                "up": "a dense or shared feed-forward (up projection)",
                "gate_up": "a gated dense or shared feed-forward (gate and up projections)",
                "down": "a dense or shared feed-forward (down projection)", "experts": "a mixture of experts"}


def _every_target_adapts(layers: list[dict], tune: FineTune) -> None:
    """A net with transformer blocks: each target adapts a projection in some block, or is refused by name (a
    target no block has would add nothing: a silent zero, not what was asked)."""
    blocks = list(_blocks_within(layers))
    if not blocks:
        return
    adapted = {t for b in blocks for t in (b.get("lora") or {}).get("targets", ())}
    for target in tune.targets:
        if target not in adapted:
            raise InputError("targets", f"'{target}': no block of this model has {TARGET_NAMES[target]} to adapt")


def _refuse_unmatched(layer: dict, targets: tuple[str, ...]) -> None:
    """One line naming a target meant for this block that names none of its projections (latent attention's k, v,
    and q through the q_lora_rank bottleneck), before the adapters are put on it."""
    try:
        block = TransformerBlock.model_validate({k: v for k, v in layer.items() if k != "lora"})
    except (ValueError, TypeError):  # the block's own problem: its validation names it where it is built
        return
    for target in targets:
        reason = lora_target_refusal(block, target)
        if reason:
            raise InputError("targets", f"'{target}': {reason}")


def _applies(target: str, block: dict) -> bool:
    """Whether ``target`` is meant for this block: no attention target in a block without attention (a Mamba or
    convolution layer of a hybrid), no feed-forward target in a block without one, no gate without a gated
    feed-forward, no experts in a dense block. Latent attention's k and v (and q through the q_lora_rank
    bottleneck) are meant for it: the block refuses them by name (``transformer.lora_target_refusal``)."""
    ff = block.get("feed_forward", {})
    experts = (ff or {}).get("experts") or {}
    moe = bool(experts)
    if target in ("gate", "up", "gate_up", "down", "experts") and ff is None:
        return False
    if target == "experts":
        return moe
    if target in ("gate", "gate_up"):
        return bool(ff.get("gated")) and (not moe or bool(experts.get("shared_size")))
    if target in ("up", "down"):
        return not moe or bool(experts.get("shared_size"))
    mixer = _mixer(block)
    if mixer.get("kind", "attention") not in ("attention", "latent"):
        return False
    if target in ("k", "v", "qkv") and mixer.get("kv_source") is not None:
        return False  # the keys and values of an earlier layer: no projections of its own
    if target in ("v", "qkv") and mixer.get("values_from_keys"):
        return False  # the values are the key projection's output
    return True


def _mixer(block: dict) -> dict:
    mixer = block.get("mixer")
    return mixer if isinstance(mixer, dict) else {}
