

def qwen3_30b_scenario(plan_inputs):
    """Qwen3 30B-A3B (the validation row's config) trained on 10^9 tokens of 4,096, planned with ``plan_inputs``."""
    from engine.llm.config import read_hf_config
    from engine.plan.validation_h100 import OUTSIDE
    from engine.scenario import parse_scenario

    config = next(r for r in OUTSIDE if r.label.startswith("Qwen3 30B")).config
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
