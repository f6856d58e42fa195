"""The plan page's kernel-model figures and its published-run tables, as rows and labels
(``engine.plan.published``: each run compared through the planner)."""
from __future__ import annotations

from engine.plan.published import comparisons, framework_summary

VALIDATION_A100 = "korthikanti-2022"
H100_SETS = ("nemo-24.07", "bridge-moe")
LONG_CONTEXT = "nemo-long-context"
CHIPS = "bridge-chips"
CONSTANT_MODEL = "constant-model"


def _source(c) -> str:
    return c.run.source.split(" — ")[0]


def h100_comparisons():
    return tuple(c for name in H100_SETS for c in comparisons(name))


def kernel_basis() -> str:
    """What the kernel model is and how far it is from published runs kept apart from its calibration."""
    s = framework_summary()
    v, c = s["all", "validation"], s["all", "calibration"]
    sources = ", ".join(dict.fromkeys(fw for fw, _ in s if fw != "all"))
    return (f"Kernel model: matrix products by shape, memory-bound kernels, collectives, pipeline schedule, as the "
            f"plan's framework runs them; on {v['runs']} published runs ({sources}) kept apart from its "
            f"calibration it is off by {100 * v['median']:.1f}% (median), {100 * abs(v['worst']):.0f}% at worst "
            f"({v['within_20']} within 20%); on its {c['runs']} calibration runs {100 * c['median']:.1f}%.")


def framework_rows() -> list[dict]:
    """By framework and role: runs, median and worst error, how many held-out 90% ranges hold the published step."""
    return [{"framework": fw, "role": role, "runs": s["runs"], "median error": f"{100 * s['median']:.1f}%",
             "worst": f"{100 * s['worst']:+.1f}%", "within 20%": s["within_20"],
             "range holds it": f"{s['covered']} of {s['runs']}"} for (fw, role), s in framework_summary().items()]


def runs_of(framework: str) -> list[dict]:
    """A framework's published runs (calibration and validation): error, published and predicted step, the
    held-out 90% range, source."""
    out = []
    for c in comparisons():
        if c.run.framework != framework or c.run.role == "check" or c.run.published.metric in ("mfu", "hfu"):
            continue
        span = "—" if c.held_out is None else f"{c.held_out.low_s:.3g}–{c.held_out.high_s:.3g}"
        out.append({"case": c.case, "error": f"{100 * c.error:+.1f}%", "role": c.run.role,
                    "published step (s)": round(c.published, 3), "FLOPscope (s)": round(c.predicted, 3),
                    "90% range, held out (s)": span, "source": _source(c)})
    return out


def validation_rows(set_name: str = VALIDATION_A100) -> list[dict]:
    """Case, error, published and predicted step time, the constant-efficiency model's, source — the table in
    docs/plan.md (the error first: it stays in view on a narrow page)."""
    return [{"case": c.case, "error": f"{100 * c.error:+.1f}%", "published step (s)": round(c.published, 2),
             "kernel model (s)": round(c.predicted, 2), "constant-efficiency model (s)": round(c.previous, 2),
             "its error": f"{100 * c.previous_error:+.1f}%", "source": _source(c)}
            for c in comparisons(set_name)]


def h100_rows() -> list[dict]:
    """NVIDIA's published H100 runs: error, published and predicted step time, the model that predicted it."""
    return [{"case": c.case, "error": f"{100 * c.error:+.1f}%", "published step (s)": round(c.published, 2),
             "FLOPscope (s)": round(c.predicted, 2), "model": c.step_model, "source": _source(c)}
            for c in h100_comparisons()]


def long_context_rows() -> list[dict]:
    """NeMo's long-sequence Llama 2 7B runs on H100 (a check kept apart from validation): error, published step
    (from NeMo's FLOP formula), the kernel model's."""
    return [{"case": c.case, "error": f"{100 * c.error:+.1f}%", "published step (s)": round(c.published, 2),
             "FLOPscope (s)": round(c.predicted, 2)} for c in comparisons(LONG_CONTEXT)]


def chips_rows() -> list[dict]:
    """Published runs on H100, B200, GB200 and GB300 in FP8 and NVFP4 and with fully sharded data parallelism:
    error, published and predicted step time, the model, and the constant-efficiency model's."""
    return [{"case": c.case, "error": f"{100 * c.error:+.1f}%", "published step (s)": round(c.published, 2),
             "FLOPscope (s)": round(c.predicted, 2), "model": c.step_model,
             "constant-efficiency model (s)": None if c.previous is None else round(c.previous, 2),
             "source": _source(c)} for c in comparisons(CHIPS)]


def published_rows() -> list[dict]:
    """The constant-efficiency model against published utilizations (MFU, or HFU with recomputation)."""
    return [{"run": c.case, "reported": c.run.published.metric.upper(), "published": f"{100 * c.published:.1f}%",
             "predicted": f"{100 * c.predicted:.1f}%", "error (points)": f"{100 * c.error:+.1f}",
             "source": c.run.source} for c in comparisons(CONSTANT_MODEL)]
