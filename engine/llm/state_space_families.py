"""State-space families: Mamba and Falcon-Mamba, whose blocks are a norm and Mamba's selective-scan mixer
(no attention, no feed-forward), read with the shared pieces of ``engine.llm.family_parts``."""
from __future__ import annotations

import math

from engine.llm.family_parts import Family, Keys, _lm


def _mamba(c: Keys) -> dict:
    """mamba, falcon_mamba: ``num_hidden_layers`` blocks of RMSNorm + mixer: inner width I = ``expand``·d
    (transformers recomputes ``intermediate_size`` from it), ``state_size`` N, ``conv_kernel`` K,
    ``time_step_rank`` R ("auto": ⌈d/16⌉), ``use_bias`` on the in/out projections, ``use_conv_bias``; a tied
    head by default. Falcon-Mamba's extra RMS norms of Δ, B and C have no parameters."""
    c.neutral("residual_in_fp32", "time_step_scale", "time_step_min", "time_step_max", "time_step_init_scheme",
              "time_step_floor", "rescale_prenorm_residual", "use_mambapy", "use_associative_scan", "layer_types",
              "intermediate_size", "mixer_rms_eps", "use_falcon_mambapy")
    d = c.size("d_model", "hidden_size")
    expand = c.get("expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, (int, float)) or not 0 < expand <= 1_000:
        raise c.error("expand", "expected a positive number (the inner width is expand × hidden_size)")
    rank = c.get("time_step_rank", "auto")
    if rank == "auto":
        rank = math.ceil(d / 16) if isinstance(d, int) else None
    else:
        rank = c.size("block.ssm_dt_rank", "time_step_rank")
    block = {"heads": 1, "mixer": "mamba", "feed_forward": False, "norm": "rmsnorm",
             "activation": c.activation("hidden_act", default="silu"),
             "ssm_inner_size": int(expand * d) if isinstance(d, int) else d,
             "ssm_state_size": c.size("block.ssm_state_size", "state_size"),
             "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "conv_kernel"),
             "ssm_dt_rank": rank, "ssm_bias": c.flag("use_bias", False), "ssm_conv_bias": c.flag("use_conv_bias", True)}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
            "block": block, "tied_embeddings": c.flag("tie_word_embeddings", True)}


STATE_SPACE_FAMILIES: dict[str, Family] = {
    "mamba": Family(_mamba, _lm("Mamba")),
    "falcon_mamba": Family(_mamba, _lm("FalconMamba")),
}
"""``model_type`` → reader, for the families of this module (merged into ``FAMILIES``)."""
