"""LoRA targets meet a block's projections: each target adapts the projection it names, or is refused in one line
naming the target. Latent attention (``kv_lora_rank``): o adapts the output projection (o_proj, H·V→d) and q the
direct query projection (q_proj, d→H·(Q+R)); k and v (one latent makes both) and q through the q_lora_rank
bottleneck are refused by name. Figures from formulas written here: an adapter of rank r on an N→M projection has
r·(N + M) parameters; at each of L positions A costs N·r and B r·M MACs forward, and backward B's weight and input
gradients (2·r·M) and A's weight gradient (N·r), plus A's input gradient N·r when its input needs one."""
from __future__ import annotations

import pytest

from engine.errors import InputError, parse_input
from engine.method1.layers import Flow
from engine.method1.transformer import TransformerBlock
from tests.method1 import evaluated

D, H, Q, R, V, C, L = 32, 4, 6, 2, 5, 10, 7
LATENT = {"type": "transformer_block", "mixer": {"kind": "latent", "heads": H, "head_size": Q, "kv_lora_rank": C,
                                                 "rope_head_size": R, "value_head_size": V, "causal": False},
          "feed_forward": None, "trainable": False}
"""Latent attention alone (no feed-forward), non-causal (L² query–key pairs), its queries projected directly."""


def _query_latent(block: dict, rank: int) -> dict:
    """The block with its queries through a rank-``rank`` latent (q_lora_rank)."""
    return dict(block, mixer=dict(block["mixer"], q_lora_rank=rank))


def _lora(block: dict, rank: int, *targets: str) -> dict:
    return dict(block, lora={"rank": rank, "targets": list(targets)})


@pytest.mark.parametrize("rank", [1, 3])
def test_latent_attention_o_adapts_the_output_projection(rank):
    """LoRA on o: the adapter beside o_proj (H·V→d) is all that trains, r·(H·V + d); the block's input needs no
    gradient, so backward is the adapter's: A's weight gradient L·H·V·r, B's weight and input gradients 2·L·r·d."""
    result = evaluated([D], [_lora(LATENT, rank, "o")], L)
    assert result.trainable_params == rank * (H * V + D)
    assert result.backward_flop == 2 * L * (H * V * rank + 2 * rank * D)


@pytest.mark.parametrize("rank", [1, 3])
def test_latent_attention_q_adapts_the_direct_query_projection(rank):
    """LoRA on q (queries projected directly, d→H·(Q+R)): r·(d + H·(Q+R)) parameters. Backward: the adapter (A's weight
    gradient L·d·r, B's 2·L·r·H·(Q+R); its input, the block's frozen input, needs none), then the queries' gradient
    reaches QKᵀ (dQ: H·L²·(Q+R)), AV (dS: H·L²·V) and the output projection's input gradient (L·H·V·d)."""
    result = evaluated([D], [_lora(LATENT, rank, "q")], L)
    assert result.trainable_params == rank * (D + H * (Q + R))
    macs = L * (D * rank + 2 * rank * H * (Q + R)) + H * L * L * (Q + R) + H * L * L * V + L * H * V * D
    assert result.backward_flop == 2 * macs


@pytest.mark.parametrize("target", ["k", "v"])
def test_latent_attention_k_and_v_are_refused_by_name(target):
    with pytest.raises(InputError, match=f"^lora.targets: '{target}': latent attention has no key or value "):
        parse_input(TransformerBlock, _lora(LATENT, 2, target))


def test_latent_attention_q_through_the_bottleneck_is_refused_by_name():
    with pytest.raises(InputError, match="^lora.targets: 'q': the queries go through the q_lora_rank bottleneck"):
        parse_input(TransformerBlock, _lora(_query_latent(LATENT, 8), 2, "q"))
    # o still adapts there: r·(H·V + d)
    assert evaluated([D], [_lora(_query_latent(LATENT, 8), 2, "o")], L).trainable_params == 2 * (H * V + D)


def test_every_block_kind_adapts_each_target_or_refuses_it():
    """Every block kind the language-model readers build (each mixer and option, from the reference variants), with
    each target alone: the adapters add parameters, or the block is refused by name. A target that silently matched
    no projection (0 adapted parameters) is the defect this catches."""
    from engine.llm.config import read_hf_config
    from tests.llm.test_families_hf import VARIANTS

    seen, checked = set(), 0
    for name, config in VARIANTS.items():
        try:
            model = read_hf_config(config)
        except InputError:
            continue
        for _, block in model.named_blocks():
            data = block.model_dump(mode="json", exclude={"lora"})
            key = repr(sorted(data.items()))
            if key in seen:
                continue
            seen.add(key)
            for target in ("q", "k", "v", "o", "gate", "up", "down", "experts"):
                try:
                    adapted = parse_input(TransformerBlock, data | {"lora": {"rank": 2, "targets": [target]}})
                except InputError as error:  # refused: LoRA on the block, or this target by name
                    assert error.field != "lora.targets" or error.reason.startswith(f"'{target}'"), (name, target)
                    continue
                rows = adapted.cost(Flow((model.d_model,), 5)).parts
                assert sum(p.params for p in rows if p.op == "lora") > 0, (name, target, data.get("mixer"))
                checked += 1
    assert checked > 100


def test_every_reference_model_adapts_each_target_or_refuses_it():
    """Each reference variant of the language-model readers fine-tuned with LoRA on one target: trainable parameters
    > 0, or one line (the target named, or LoRA refused for the family). A hybrid's attention targets skip its Mamba or
    convolution layers; a target that no layer of the model has is refused (it would add nothing)."""
    from engine.llm.config import read_hf_config
    from engine.llm.estimate import TransformerRun, estimate_transformer
    from tests.llm.test_families_hf import VARIANTS

    adapted = 0
    for name, config in VARIANTS.items():
        try:
            model = read_hf_config(config)
        except InputError:
            continue
        for target in ("q", "k", "v", "o", "gate", "up", "down", "experts"):
            try:
                estimate = estimate_transformer(model, TransformerRun(tokens=1e6, seq_len=4, lora_rank=2,
                                                                      lora_targets=(target,)))
            except InputError as error:  # refused: LoRA on the family or its blocks, or this target by name
                assert not error.field.endswith("targets") or error.reason.startswith(f"'{target}'"), (name, error)
                continue
            assert estimate.architecture.trainable_params > 0, (name, target)
            adapted += 1
    assert adapted > 1000
