"""Details a newcomer met: the layers-as-text example reproduces Epoch AI's example when copied, and a share link
copied while the Plan layout shows an error keeps the user's layout (or says why it cannot)."""
from __future__ import annotations

from streamlit.testing.v1 import AppTest

from engine.method1.layer_text import parse_layers_text
from engine.scenario import parse_scenario
from engine.share_link import decode, encode
from tests.conftest import ROOT
from tests.reference import EPOCH_EXAMPLE, EPOCH_EXAMPLE_TRAINING


def app() -> AppTest:
    return AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()


def test_the_typed_layers_example_gives_epochs_total_when_copied():
    """The placeholder looks like Epoch AI's worked example; copied onto its input it must give its 1.13e16 FLOP
    (3 × 128,000 × (20 × (1.6e8 + 1.311e9) + 5,120), tests/reference.py). Without padding=2 the convolution's
    output was 198×198: 1.11e16."""
    at = app()
    field = next(t for t in at.text_input if t.label == "Layers as text (several at once)")
    layers = parse_layers_text(field.placeholder)
    scenario = parse_scenario({**EPOCH_EXAMPLE, "layers": layers})
    assert scenario.method1().training_flop == EPOCH_EXAMPLE_TRAINING
    assert f"{EPOCH_EXAMPLE_TRAINING:.3g}" == "1.13e+16"


def _plan_page_with_llama():
    at = app()
    at.selectbox(key="preset_choice").set_value("llama2-7b").run()
    next(b for b in at.button if b.label == "Load preset").click().run()
    at.switch_page(str(ROOT / "pages" / "plan.py")).run()
    assert not at.exception
    return at


def _errors(at) -> list[str]:
    return [e.value.replace("\\", "") for e in at.error]


def test_a_layout_this_model_cannot_run_still_goes_into_the_link():
    """t = 3 does not divide Llama 2 7B's 32 heads: the error is shown, and the link copied now holds t = 3 (it
    reopened with the default layout, silently)."""
    at = _plan_page_with_llama()
    at.number_input(key=next(n.key for n in at.number_input if n.label == "Tensor parallel t")).set_value(3).run()
    assert any(e.startswith("tp: 3 does not divide the 32 attention heads") and "the share link keeps this layout"
               in e for e in _errors(at)), _errors(at)
    scenario = at.session_state["scenario"]
    assert scenario.plan is not None and scenario.plan.layout.tp == 3
    assert decode(encode(scenario)).plan.layout.tp == 3


def test_a_layout_the_scenario_cannot_hold_says_the_link_keeps_the_last_valid_one():
    """d = 3 with a global batch of 8 is not a layout at all (8 is not a multiple of d × b): it cannot go into the
    link, and the message says so."""
    at = _plan_page_with_llama()
    keys = {n.label: n.key for n in at.number_input}
    at.number_input(key=keys["Data parallel d"]).set_value(3)
    at.number_input(key=keys["Global batch B (examples per step)"]).set_value(8).run()
    assert any("is not a multiple of dp × micro_batch" in e and "the share link keeps the last valid layout, not "
               "this one" in e for e in _errors(at)), _errors(at)
