"""Reliability through AppTest: the crashes users hit (start from scratch, stale picker, hostile
uploads), what a link value was replaced with, the failed link's lasting notice, spreadsheet-safe
exports, the last-resort boundary and the setting that hides tracebacks."""
from __future__ import annotations

import json
import tomllib

import pytest
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from engine.presets import presets
from engine.scenario import parse_scenario
from tests.app.hostile_corpus import HW, SEED, pack_json
from tests.app import add_layer, scratch_mlp
from tests.conftest import ROOT

APP = str(ROOT / "app.py")
DAY_S = 86_400
A100_BF16 = 312e12  # NVIDIA A100 datasheet: BF16 tensor, dense


def app(token: str | None = None, page: str | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if page:
        at.switch_page(f"pages/{page}.py")
    if token is not None:
        at.query_params["s"] = token
    return at.run()


def metric(at, label):
    return next(m.value for m in at.metric if m.label == label)


def flop(text):
    return float(text.removesuffix(" FLOP"))


def click(at, label):
    return next(b for b in at.button if b.label == label).click().run()


def picker(at):
    return next(s for s in at.selectbox if s.label.startswith("Layer"))


def text(elements) -> str:
    return " ".join(e.value.replace("\\", "") for e in elements)


# ---------------------------------------------------------------- layer builder: start from scratch

SCRATCH_FORWARD = 2 * (784 * 128 + 128 * 10)  # dense 784→128, activation, dense 128→10 (matmul)


@pytest.mark.parametrize("preset", [None, "gpt3-175b", "llama2-7b"])
def test_start_from_scratch_then_edit_delete_and_add(preset):
    at = app()
    if preset:
        at.selectbox(key="preset_choice").set_value(preset).run()
        click(at, "Load preset")
    scratch_mlp(at)
    assert not at.exception
    assert flop(metric(at, "Training compute")) == pytest.approx(3 * SCRATCH_FORWARD * 60_000 * 10, rel=5e-3)
    at.number_input(key="t_epochs").set_value(20.0).run()
    assert not at.exception
    assert flop(metric(at, "Training compute")) == pytest.approx(3 * SCRATCH_FORWARD * 60_000 * 20, rel=5e-3)
    picker(at).set_value(2).run()
    click(at, "Delete")  # the last dense goes: 784→128 and the activation remain
    assert not at.exception and len(picker(at).options) == 2
    assert flop(metric(at, "Training compute")) == pytest.approx(3 * 2 * 784 * 128 * 60_000 * 20, rel=5e-3)
    add_layer(at, "dense")  # a starter dense of 128 units after layer #1
    assert not at.exception and len(picker(at).options) == 3
    assert flop(metric(at, "Training compute")) == pytest.approx(
        3 * 2 * (784 * 128 + 128 * 128) * 60_000 * 20, rel=5e-3)


def test_a_cleared_layer_picker_does_not_crash():
    at = app()
    key = picker(at).key
    at.session_state[key] = None  # what the browser sends when the list under the picker changed
    at.run()
    assert not at.exception
    assert picker(at).value == 0


def test_picker_labels_follow_a_new_layer_list():
    at = app()
    picker(at).set_value(2).run()
    at.selectbox(key="preset_choice").set_value("llama2-7b").run()
    click(at, "Load preset")
    layers = presets()["llama2-7b"].scenario.layers
    shown = picker(at)
    assert shown.value == 2 and len(shown.options) == len(layers)
    label = shown.options[2]
    assert label.startswith(f"#2  {layers[2].type}")
    assert any(f"#2 · " in m.value for m in at.markdown)  # the form edits the same layer the picker names


# ---------------------------------------------------------------- links: replaced values, lasting notice

def test_unknown_chip_in_a_link_is_replaced_with_a_sentence():
    at = app(pack_json({**SEED, "hardware": {**HW, "chip": "nvidia-zz9000"}}), "hardware")
    assert not at.exception
    warning = text(at.warning)
    assert "'nvidia-zz9000' is not in the hardware database" in warning and "A100" in warning
    at.selectbox(key="hw_chip").set_value("nvidia-h100-sxm").run()  # the user acts: the sentence goes
    assert "nvidia-zz9000" not in text(at.warning)


def test_year_outside_the_database_is_replaced_with_a_sentence():
    at = app(pack_json({**SEED, "hardware": {**{k: v for k, v in HW.items() if k != "chip"}, "year": 2060}}),
             "hardware")
    assert not at.exception
    assert "year 2060 is outside the years this page offers" in text(at.warning)


def test_a_failed_link_keeps_its_notice_token_and_address_until_the_user_acts():
    bad = "1.eNrtwTEJAAAIALAuNvA1mSB2N4ewbaKjEgAAAOCTPT7ZOVk"  # the 4,301-digit integer
    at = app(bad)
    assert not at.exception
    assert "share link could not be opened" in text(at.warning) and "digits" in text(at.warning)
    assert any(bad in c.value for c in at.code)  # "show the link that failed"
    assert at.query_params["s"] == [bad] or at.query_params["s"] == bad  # the address bar keeps it
    at.run()  # a rerun (another interaction elsewhere) keeps the notice
    assert "share link could not be opened" in text(at.warning)
    click(at, "Dismiss this notice")
    assert "share link could not be opened" not in text(at.warning)


def test_editing_after_a_failed_link_writes_the_new_scenario_into_the_address():
    at = app("1.garbage")
    at.number_input(key="t_epochs").set_value(20.0).run()
    token = at.query_params["s"]
    token = token[0] if isinstance(token, list) else token
    assert token != "1.garbage" and token.startswith("2.")  # a link of the current version (2)
    at.run()  # from the next run on, the notice is gone: the address holds the edited scenario
    assert "share link could not be opened" not in text(at.warning)


def test_utilization_below_a_slider_minimum_is_kept_and_used():
    at = app(pack_json({**SEED, "hardware": {**HW, "utilization": 0.005}}), "hardware")
    assert not at.exception
    assert flop(metric(at, "Training compute")) == pytest.approx(8 * DAY_S * A100_BF16 * 0.005, rel=5e-3)


def test_an_overflowing_layer_is_named_on_every_page():
    transpose = {"type": "conv_transpose2d", "filters": 1, "kernel_size": 1, "stride": 10**9}
    token = pack_json({"version": 1, "input": {"shape": [4, 4, 1]}, "layers": [transpose] * 19,
                       "training": {"epochs": 1, "examples": 1}})
    at = app(token)
    assert not at.exception
    assert "has more than 1e15 values" in text(at.error) and "layers[0]: conv_transpose2d" in text(at.error)
    for page in ("hardware", "precision", "trends"):
        assert not app(token, page).exception


def test_a_huge_hardware_time_is_named_not_infinite():
    at = app(pack_json({**SEED, "hardware": {**HW, "duration": 1e308}}), "hardware")
    assert not at.exception
    assert "duration: must be at most 1e12" in text(at.warning)


NO_COMPUTE_LINK = ("1.eNodjEEKgDAMBP-y514ET_2K9BAkaqHGYqMoJX-39TjL7FTcfJZ4CPzgECVfCl9RNsoMP43BHBK9zWlUoW-fsSRSZYEFBz0pSpS13"
                   "zgf81b-FD-058QdzD75aiLA")
"""The issue's link: one ``flatten`` layer on [4] (no FLOP, no parameters)."""


def test_a_model_without_compute_opens_the_plan_page_with_mfu_undefined():
    at = app(NO_COMPUTE_LINK, "plan")
    assert not at.exception  # it was a ZeroDivisionError in the MFU
    mfu = next(m for m in at.metric if m.label == "Predicted MFU")
    assert mfu.value == "undefined" and mfu.help.replace("\\", "") == "no compute: MFU undefined"
    assert next(m.value for m in at.metric if m.label == "Step time").startswith("0")


# ---------------------------------------------------------------- trends uploads

GOOD_CSV = (b"Model,Publication date,Training compute (FLOP),Domain\n"
            b"A,2015-01-01,1e20,Language\nB,2018-06-01,1e22,Language\nC,2021-03-01,1e24,Vision\n")
BAD_CSVS = {
    "header only": b"Model,Publication date,Training compute (FLOP)\n",
    "all bad dates": b"Model,Publication date,Training compute (FLOP)\nA,someday,1e20\nB,13/13/13,1e21\n",
    "unbalanced quotes": b'Model,Publication date,Training compute (FLOP)\n"A,2020-01-01,1e20\nB,2021-01-01,1e21\n',
    "not an Epoch file": b"a,b,c\n1,2,3\n",
    "binary": b"\x00\x01\x02\x03" * 100,
    "empty": b"",
}


def upload(at, name: str, data: bytes) -> AppTest:
    at.file_uploader(key="trends_upload").upload(name, data, "text/csv")
    return at.run()


@pytest.mark.parametrize("name", list(BAD_CSVS))
def test_a_refused_upload_keeps_the_earlier_import_and_says_why(name):
    at = upload(app(page="trends"), "good.csv", GOOD_CSV)
    assert "3 runs imported from 3 rows of good.csv" in text(at.success)
    at.file_uploader(key="trends_upload").clear()
    at = upload(at, "bad.csv", BAD_CSVS[name])
    assert not at.exception
    assert "the earlier import (3 runs from good.csv) is kept" in text(at.error)
    assert "3 runs imported" in text(at.success)
    at.radio(key="trends_source").set_value("epoch").run()  # the kept runs are usable
    assert not at.exception


def test_an_upload_with_zero_usable_runs_is_refused_without_an_earlier_import():
    at = upload(app(page="trends"), "none.csv", BAD_CSVS["all bad dates"])
    assert not at.exception
    assert "no usable runs" in text(at.error) and "nothing was imported" in text(at.error)


def test_an_upload_over_the_row_cap_is_refused():
    rows = b"\n".join(b"m,2020,1e20" for _ in range(50_001))
    at = upload(app(page="trends"), "big.csv", b"Model,Publication date,Training compute (FLOP)\n" + rows)
    assert "more than 50,000 rows" in text(at.error)


def test_uploaded_names_are_escaped_in_the_chart_hover():
    hostile = b"Model,Publication date,Training compute (FLOP)\n" \
              b"\"<a href='https://login.evil.example/'>x</a>\",2015-01-01,1e20\nB,2018-06-01,1e22\n"
    at = upload(app(page="trends"), "h.csv", hostile)
    at.radio(key="trends_source").set_value("epoch").run()
    spec = json.loads(at.get("plotly_chart")[0].proto.spec)
    names = [row[0] for trace in spec["data"] if trace.get("customdata") for row in trace["customdata"]]
    assert "&lt;a href=&#x27;https://login.evil.example/&#x27;&gt;x&lt;/a&gt;" in names
    assert not any("<a " in n for n in names)


# ---------------------------------------------------------------- exports: spreadsheet formulas

@pytest.mark.parametrize("name", ['=HYPERLINK("https://login.evil.example/","x")', "+cmd|' /C calc'!A0", "-2+3",
                                  "@SUM(1+1)", ' =HYPERLINK("https://login.evil.example/","x")',
                                  "\u200b=cmd|' /C calc'!A0"])
def test_formula_names_are_neutralised_in_the_csv_and_the_report(name):
    from engine.report import markdown_report
    from ui.exports import layer_table_csv

    data = json.loads(json.dumps(SEED))
    data["name"] = name
    data["layers"][3]["name"] = name
    scenario = parse_scenario(data)
    estimate = scenario.method1()
    csv_text = layer_table_csv(estimate)
    last_row = csv_text.strip().splitlines()[-1]
    shown = name.replace("\u200b", "\\u200b")  # an invisible character is written as its escape
    assert ",'" + shown[:2] in last_row or ",\"'" + shown[:2] in last_row  # the cell starts with '
    report = markdown_report(scenario, estimate)
    html = MarkdownIt("commonmark").render(report.split("## Scenario (JSON")[0])
    assert 'href="https://login.evil.example' not in html
    assert report.startswith("# FLOPscope report — '")  # the title (the name) starts with ', not the formula


# ---------------------------------------------------------------- last resort and tracebacks

def test_the_last_resort_boundary_shows_one_sentence_and_no_exception():
    def script():
        import streamlit as st

        from ui.boundary import run_page

        class Broken:
            title = "broken"

            def run(self):
                st.session_state["kept"] = "scenario"
                raise ZeroDivisionError("/srv/app/secret/path.py")

        run_page(Broken())

    at = AppTest.from_function(script).run()
    assert not at.exception
    assert "Something unexpected went wrong on this page" in at.error[0].value
    assert "secret" not in at.error[0].value and at.session_state["kept"] == "scenario"


def test_tracebacks_are_hidden_by_the_setting_the_installed_streamlit_accepts():
    from streamlit import config
    from streamlit.elements.exception import _error_detail_visibility

    value = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["client"]["showErrorDetails"]
    assert value in {o.value for o in config.ShowErrorDetailsConfigOptions}
    config.set_option("client.showErrorDetails", value)
    try:
        shown = _error_detail_visibility(True)
    finally:
        config.set_option("client.showErrorDetails", "full")
    assert not (shown.show_trace or shown.show_message or shown.show_type)


def test_a_name_with_terminal_escapes_and_bidi_controls_is_one_escaped_line_in_the_csv():
    """ESC (a terminal's escape sequences, run by ``cat`` of the file), C1 CSI, U+202E (reverses the rest of the row
    in a viewer) and a newline in a layer's name: written as escapes, the row one line."""
    from ui.exports import layer_table_csv

    data = json.loads(json.dumps(SEED))
    data["layers"][3]["name"] = "a\x1b[31mred\x9b2Jb\u202egpj.exe\nnext"
    csv_text = layer_table_csv(parse_scenario(data).method1())
    assert not any(c in csv_text for c in "\x1b\x9b\u202e")
    row = next(line for line in csv_text.splitlines() if "red" in line)
    assert "a\\x1b[31mred\\x9b2Jb\\u202egpj.exe\\nnext" in row
