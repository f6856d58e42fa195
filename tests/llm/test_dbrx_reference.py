"""The reference's DBRX experts (``hf_reference._dbrx_experts_batched``, which the meta device can run) compute
what transformers' own ``DbrxExperts`` loop computes, and FlopCounterMode counts the same FLOP for both: a small
DBRX with real weights on CPU, routed by its own router."""
from __future__ import annotations

import pytest

pytest.importorskip("transformers")
from tests.llm.decoder_variants import DECODER_VARIANTS


@pytest.mark.parametrize("name", [n for n in DECODER_VARIANTS if n.startswith("dbrx")])
def test_batched_experts_equal_transformers_loop(torch, name):
    import transformers
    from torch.utils.flop_counter import FlopCounterMode

    from tests.llm.hf_reference import _dbrx_experts_batched

    data = {k: v for k, v in DECODER_VARIANTS[name].items() if k not in ("model_type", "architectures")}
    torch.manual_seed(0)
    model = transformers.DbrxForCausalLM(transformers.DbrxConfig(**data)).eval()
    model.requires_grad_(False)  # a forward only (FlopCounterMode's module tracker under no_grad)
    ids = torch.randint(0, data["vocab_size"], (1, 12))
    runs = []
    for batched in (False, True):
        for module in model.modules():
            if type(module).__name__ == "DbrxExperts":
                module.forward = _dbrx_experts_batched.__get__(module) if batched else \
                    type(module).forward.__get__(module)
        with torch.no_grad(), FlopCounterMode(display=False) as counter:
            logits = model(input_ids=ids, use_cache=False).logits
        runs.append((logits, counter.get_total_flops()))
    (loop, loop_flop), (batched, batched_flop) = runs
    assert torch.allclose(loop, batched, atol=1e-5)
    assert loop_flop == batched_flop > 0
