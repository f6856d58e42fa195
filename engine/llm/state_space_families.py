"""State-space families: Mamba, Falcon-Mamba and Mamba-2, whose blocks are a norm and a selective-scan mixer
(no attention, no feed-forward), read with the shared pieces of ``engine.llm.family_parts``."""
from __future__ import annotations

import math

from engine.llm.family_parts import Family, Keys, _lm


def _mamba(c: Keys) -> dict:
    """mamba, falcon_mamba: ``num_hidden_layers`` blocks of RMSNorm + mixer: inner width I =
    ``intermediate_size`` (absent: ``expand``·d, which the config class computes; a value the file gives wins,
    as transformers sets the file's keys after computing it), ``state_size`` N, ``conv_kernel`` K,
    ``time_step_rank`` R ("auto": ⌈d/16⌉), ``use_bias`` on the in/out projections, ``use_conv_bias``; a tied
    head by default. Falcon-Mamba's extra RMS norms of Δ, B and C have no parameters."""
    c.neutral("residual_in_fp32", "time_step_scale", "time_step_min", "time_step_max", "time_step_init_scheme",
              "time_step_floor", "rescale_prenorm_residual", "use_mambapy", "use_associative_scan", "layer_types",
              "mixer_rms_eps", "use_falcon_mambapy")
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
             "ssm_inner_size": c.size("block.ssm_inner_size", "intermediate_size", required=False,
                                      default=int(expand * d) if isinstance(d, int) else d),
             "ssm_state_size": c.size("block.ssm_state_size", "state_size"),
             "ssm_conv_kernel": c.size("block.ssm_conv_kernel", "conv_kernel"),
             "ssm_dt_rank": rank, "ssm_bias": c.flag("use_bias", False), "ssm_conv_bias": c.flag("use_conv_bias", True)}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
            "block": block, "tied_embeddings": c.flag("tie_word_embeddings", True)}


def _expand(c: Keys, d) -> int:
    """I = ⌊expand·d⌋, as transformers' mixers compute it."""
    expand = c.get("expand", 2)
    if isinstance(expand, bool) or not isinstance(expand, (int, float)) or not 0 < expand <= 1_000:
        raise c.error("expand", "expected a positive number (the inner width is expand × hidden_size)")
    return int(expand * d) if isinstance(d, int) else d


def mamba2_block(c: Keys, d, inner, prefix: str = "", **keys) -> dict:
    """A Mamba-2 mixer's fields: ``{prefix}`` keys for heads, head size, state size N, groups G, conv width K,
    chunk length Q, biases (``keys`` renames one: Bamba's ``mamba_d_state`` …); the heads must tile I."""
    name = {k: keys.get(k, prefix + k) for k in ("num_heads", "head_dim", "state_size", "n_groups", "conv_kernel",
                                                 "chunk_size", "use_bias", "use_conv_bias")}
    heads = c.size("block.ssm_heads", name["num_heads"])
    head_dim = c.size(None, name["head_dim"])
    if all(isinstance(v, int) for v in (heads, head_dim, inner)) and heads * head_dim != inner:
        raise c.error(name["head_dim"], f"{name['num_heads']} × {name['head_dim']} = {heads * head_dim} must equal "
                                        f"the inner width {inner} (expand × hidden_size), as transformers requires")
    groups = c.size("block.ssm_groups", name["n_groups"])
    if isinstance(groups, int) and isinstance(heads, int) and groups > 0 and heads % groups:
        raise c.error(name["n_groups"], f"{groups} groups must divide the {heads} heads")
    return {"mixer": "mamba2", "ssm_inner_size": inner, "ssm_heads": heads, "ssm_groups": groups,
            "ssm_state_size": c.size("block.ssm_state_size", name["state_size"]),
            "ssm_conv_kernel": c.size("block.ssm_conv_kernel", name["conv_kernel"]),
            "ssm_chunk_size": c.size("block.ssm_chunk_size", name["chunk_size"]),
            "ssm_bias": c.flag(name["use_bias"], False), "ssm_conv_bias": c.flag(name["use_conv_bias"], True)}


def _mamba2(c: Keys) -> dict:
    """mamba2: ``num_hidden_layers`` blocks of RMSNorm + Mamba-2's mixer: I = ``expand``·d = ``num_heads`` ×
    ``head_dim``, ``state_size`` N, ``n_groups`` G, ``conv_kernel`` K, ``chunk_size`` Q; an untied head by
    default. ``time_step_rank`` is stored by transformers and used by nothing (Mamba-2 has no Δ projection)."""
    c.neutral("residual_in_fp32", "time_step_rank", "time_step_min", "time_step_max", "time_step_floor",
              "time_step_limit", "rescale_prenorm_residual", "layer_types")
    d = c.size("d_model", "hidden_size")
    block = {"heads": 1, "feed_forward": False, "norm": "rmsnorm",
             "activation": c.activation("hidden_act", default="silu"), **mamba2_block(c, d, _expand(c, d))}
    return {"layers": c.size("layers", "num_hidden_layers"), "d_model": d, "vocab_size": c.size("vocab_size", "vocab_size"),
            "block": block, "tied_embeddings": c.flag("tie_word_embeddings", False)}


STATE_SPACE_FAMILIES: dict[str, Family] = {
    "mamba": Family(_mamba, _lm("Mamba")),
    "falcon_mamba": Family(_mamba, _lm("FalconMamba")),
    "mamba2": Family(_mamba2, _lm("Mamba2")),
}
"""``model_type`` → reader, for the families of this module (merged into ``FAMILIES``)."""
