"""The plan page's kernel-model figures and its validation table, as rows and labels."""
from __future__ import annotations

from engine.plan.validation import summary, table
from engine.plan.validation_chips import chips_table
from engine.plan.validation_h100 import h100_table, long_sequence_table, validation_set_summary


def kernel_basis() -> str:
    """What the kernel model is and how far it is from measured runs (its validation set)."""
    s, every = summary("validation"), validation_set_summary()
    return (f"Kernel model: matrix products by shape, memory-bound kernels, collectives, pipeline schedule; on "
            f"{s['runs']} measured Megatron-LM runs it is off by {100 * s['median']:.1f}% (median), "
            f"{100 * s['worst']:.1f}% at worst; with NVIDIA's published H100 runs ({every['runs']} in all) "
            f"{100 * every['median']:.1f}% (median), {100 * abs(every['worst']):.0f}% at worst.")


def validation_rows(which: str = "validation") -> list[dict]:
    """Case, error, published and predicted step time, the previous model's, source — the table in
    docs/plan.md (the error first: it stays in view on a narrow page)."""
    return [{"case": r.case, "error": f"{100 * r.error:+.1f}%", "published step (s)": round(r.published_s, 2),
             "kernel model (s)": round(r.predicted_s, 2), "constant-efficiency model (s)": round(r.previous_s, 2),
             "its error": f"{100 * r.previous_error:+.1f}%", "source": r.source.split(" — ")[0]}
            for r in table(which)]


def h100_rows() -> list[dict]:
    """NVIDIA's published H100 runs: error, published and predicted step time, the model that predicted it."""
    return [{"case": r.case, "error": f"{100 * r.error:+.1f}%", "published step (s)": round(r.published_s, 2),
             "FLOPscope (s)": round(r.plan_s, 2), "model": r.step_model, "source": r.source.split(" — ")[0]}
            for r in h100_table()]


def long_context_rows() -> list[dict]:
    """NeMo's long-sequence Llama 2 7B runs on H100 (a check kept apart from validation): error, published step
    (from NeMo's FLOP formula), the kernel model's."""
    return [{"case": r.case, "error": f"{100 * r.error:+.1f}%", "published step (s)": round(r.published_s, 2),
             "FLOPscope (s)": round(r.plan_s, 2)} for r in long_sequence_table()]


def chips_rows() -> list[dict]:
    """Published runs on H100, B200, GB200 and GB300 in FP8 and NVFP4 and with fully sharded data parallelism:
    error, published and predicted step time, the model, and the constant-efficiency model plans used before."""
    return [{"case": r.case, "error": f"{100 * r.error:+.1f}%", "published step (s)": round(r.published_s, 2),
             "FLOPscope (s)": round(r.predicted_s, 2), "model": r.model,
             "constant-efficiency model (s)": None if r.previous_s is None else round(r.previous_s, 2),
             "source": r.source.split(" — ")[0]}
            for r in chips_table()]
