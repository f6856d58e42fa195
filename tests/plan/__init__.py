

def published_run(label_start: str):
    """The published run whose label starts with ``label_start`` (engine/plan/published_runs.json)."""
    from engine.plan.published import published_runs

    return next(r for r in published_runs().runs if r.label.startswith(label_start))


def run_model(label_start: str):
    """The ``PlanModel`` of a published run's config at its sequence length."""
    from engine.llm.config import read_hf_config
    from engine.plan.model import plan_model
    from engine.plan.published import run_config

    run = published_run(label_start)
    return plan_model(read_hf_config(run_config(run)).architecture(run.seq_len))


def synthetic_model(*, blocks: int, h: int, heads: int, s: int, f: int, kv_heads: int = 0, head_dim: int = 0,
                    vocab: int = 0, dense_params: float = 0.0, expert_params: float = 0.0, experts: int = 1,
                    top_k: int = 1, gated: bool = False, window: int = 0, windowed: int = 0, shared_f: int = 0,
                    forward_flop: float = 1.0):
    """A ``PlanModel`` with the shapes a kernel-model formula in a test names (no architecture behind it)."""
    from engine.plan.model import PlanModel

    params = int(dense_params + expert_params)
    return PlanModel(params=params, active_params=params, expert_params=int(expert_params), experts=experts,
                     forward_flop=forward_flop, attention_core_flop=0.0, blocks=blocks, d_model=h, heads=heads,
                     kv_heads=kv_heads or heads, attention_width=heads * (head_dim or h // heads), seq_len=s,
                     other_layers=0, other_activation_values=0, ff_size=f, gated=gated, vocab=vocab,
                     active_experts=top_k, shared_ff_size=shared_f, window=window, windowed_blocks=windowed)


def kernel(model, layout, options=None, chip: str = "nvidia-h100-sxm", experts=None, link=None, cal=None,
           **behaviour):
    """``kernel_step`` of ``model`` in ``layout`` on ``chip`` (its links unless ``link``), with the framework's
    behaviour and calibration for the options unless fields of the behaviour are given (``overlap_dp=False``…)
    or a calibration (``cal``)."""
    from dataclasses import replace

    from engine.plan.interconnects import interconnect_for
    from engine.plan.kernel.block import ExpertSettings
    from engine.plan.kernel.chip import kernel_hardware
    from engine.plan.kernel.frameworks import behaviour as framework_behaviour
    from engine.plan.kernel.frameworks import framework_calibration
    from engine.plan.kernel.step import kernel_step
    from engine.plan.layout import MemoryOptions

    options = options or MemoryOptions()
    hw = kernel_hardware(chip, options.precision, link or interconnect_for(chip))
    cal = cal or framework_calibration(options.convention)
    framework = replace(framework_behaviour(options, chip, hw.architecture, model.experts > 1,
                                            layout.sequence_parallel, layout.tp, cal), **behaviour)
    return kernel_step(model, layout, options, hw, framework, experts or ExpertSettings(), cal)


def qwen3_30b_scenario(plan_inputs):
    """Qwen3 30B-A3B (the validation row's config) trained on 10^9 tokens of 4,096, planned with ``plan_inputs``."""
    from engine.llm.config import read_hf_config
    from engine.plan.published import run_config
    from engine.scenario import parse_scenario

    config = run_config(published_run("Qwen3 30B"))
    return parse_scenario(read_hf_config(config).scenario_data(1e9, 4096)).model_copy(update={"plan": plan_inputs})


def moe_plan_page(plan_inputs):
    """AppTest on the Plan page with Qwen3 30B-A3B (10^9 tokens, s 4,096) and ``plan_inputs``: the page, its
    predicted MFU, and a reader of the scenario its share link now holds."""
    from streamlit.testing.v1 import AppTest

    from engine.share_link import decode, encode
    from tests.conftest import ROOT

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["s"] = encode(qwen3_30b_scenario(plan_inputs))
    at.run()
    at.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert not at.exception

    def mfu() -> float:
        return float(next(m.value for m in at.metric if m.label == "Predicted MFU").rstrip("%"))

    def linked():
        token = at.query_params["s"] if isinstance(at.query_params["s"], str) else at.query_params["s"][0]
        return decode(token)

    return at, mfu, linked
