"""MiniMax-M3's block indexer on plain attention (``TransformerBlock.indexer_heads`` without ``kv_lora_rank``):
its rows from the formula, its full-convention extras, no backward, and the blocks it is not modelled in."""
from __future__ import annotations

import pytest

from engine.errors import InputError, parse_input
from engine.method1.architecture import Architecture, InputSpec, evaluate
from engine.method1.transformer import TransformerBlock

D, H, KV, Q, HI, DI, L = 24, 4, 2, 6, 2, 8, 5


def _block(**kw) -> TransformerBlock:
    """Attention alone (the mixer's fields in ``kw``), per-head QK norms, RMS norms."""
    mixer = {"heads": H, "kv_heads": KV, "head_size": Q, "qk_norm": "head"} | kw
    return TransformerBlock(mixer=mixer, feed_forward=None, norms={"kind": "rmsnorm"})


def _rows(block: TransformerBlock) -> dict:
    from engine.method1.layers import Flow

    return {p.name: p for p in block.cost(Flow((D,), L)).parts}


def _arch(block: TransformerBlock) -> Architecture:
    return Architecture(input=InputSpec(shape=[D], sequence_length=L), layers=[block])


def test_indexer_rows_from_the_formula():
    """q d→H_I·D_I, k d→D_I (no biases), an RMSNorm γ of D_I each for queries and key; H_I·D_I MACs per
    query–key pair (L² with FlopCounterMode's dense count); in the full convention the two norms (4 FLOP per
    element: 3 + the gain) over L·(H_I + 1)·D_I values and nothing for the selection."""
    rows = {name: r for name, r in _rows(_block(indexer_heads=HI, indexer_head_size=DI)).items() if "indexer" in name}
    assert sum(r.params for r in rows.values()) == D * HI * DI + D * DI + 2 * DI
    assert sum(r.macs for r in rows.values()) == L * (D * HI * DI + D * DI) + HI * L * L * DI
    assert sum(r.extra_flop for r in rows.values()) == 4 * L * (HI + 1) * DI
    plain, indexed = evaluate(_arch(_block()), "full"), evaluate(_arch(_block(indexer_heads=HI, indexer_head_size=DI)),
                                                                   "full")
    assert indexed.params - plain.params == D * HI * DI + D * DI + 2 * DI
    assert indexed.forward_flop - plain.forward_flop == 2 * (L * (D * HI * DI + D * DI) + HI * L * L * DI) \
        + 4 * L * (HI + 1) * DI


def test_indexer_has_no_backward():
    """Its output is block indices: no gradient reaches its products or its weights (full training)."""
    plain = evaluate(_arch(_block()))
    indexed = evaluate(_arch(_block(indexer_heads=HI, indexer_head_size=DI)))
    assert indexed.backward_flop == plain.backward_flop


@pytest.mark.parametrize("kw", [{"indexer_heads": HI}, {"differential": True, "indexer_heads": HI,
                                                         "indexer_head_size": DI}])
def test_indexer_refused_where_not_modelled(kw):
    fields = {"type": "transformer_block", "mixer": {"heads": H, "kv_heads": KV, "head_size": Q}, "feed_forward": None}
    with pytest.raises(InputError, match=r"mixer\.indexer_heads: "):
        parse_input(TransformerBlock, fields | {"mixer": fields["mixer"] | kw})
