"""Every other path where user input could name a file, audited as the ONNX import is
(``tests/importers/test_onnx_external_data.py``): a secret is planted in the working directory and a subfolder,
each input names it in every field it has (a config.json's strings, an Epoch CSV's cells, a scenario's and a
share link's text fields, a Hub model id, a CLI file whose contents name another file), and the secret is never
opened (audit hook on ``open``) nor shown. What the CLI is *given* as a path is the user's own file on their
own machine: it is opened, and only it.
"""
from __future__ import annotations

import json

import pytest

from engine.errors import InputError
from tests.cli import cli
from tests.file_audit import watching

SECRET = "secret.bin"
NAMES = [SECRET, f"./{SECRET}", f"sub/{SECRET}", f"file://{SECRET}", "/proc/self/environ", f"@{SECRET}",
         f"{{{SECRET}}}", f"$(cat {SECRET})"]
"""How a field could name the file: plain, relative, absolute, a URL, an @-include, a template, a shell."""


@pytest.fixture
def served(tmp_path, monkeypatch):
    (tmp_path / "sub").mkdir()
    for path in (tmp_path / SECRET, tmp_path / "sub" / SECRET):
        path.write_text("TOP-SECRET-VALUE 31337\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _quiet(call):
    """The call's result as text, or its one-line refusal."""
    try:
        return str(call())
    except InputError as exc:
        return str(exc)


def test_a_config_json_naming_files_in_every_string_field(served):
    from engine.api import estimate_config
    from engine.llm.config import load_hf_config_text
    from engine.llm.library import library_model

    base = dict(library_model("qwen3-0.6b").config)
    strings = [k for k, v in base.items() if isinstance(v, str)] + ["_name_or_path", "tokenizer_file",
                                                                   "auto_map", "tokenizer_class", "model_type"]
    with watching("secret") as opened:
        shown = []
        for name in NAMES:
            for key in strings:
                text = json.dumps({**base, key: name})
                shown.append(_quiet(lambda t=text: load_hf_config_text(t, "config.json")))
                shown.append(_quiet(lambda t=text: estimate_config(t, tokens=1e9).as_dict()))
    assert opened == []
    assert not any("TOP-SECRET" in s for s in shown)


def test_an_epoch_csv_naming_files_in_every_cell(served, shared_dir):
    from engine.trends.epoch_csv import read_epoch_csv

    head = (shared_dir / "data/epoch/epoch_notable_ai_models.csv").read_text(encoding="utf-8").splitlines()[:6]
    rows = [head[0]] + [",".join([name] * len(head[0].split(","))) for name in NAMES] + head[1:]
    with watching("secret") as opened:
        shown = _quiet(lambda: read_epoch_csv(("\n".join(rows) + "\n").encode()))
    assert opened == [] and "TOP-SECRET" not in shown


def test_a_scenario_file_and_a_share_link_naming_files(served):
    from engine.presets import presets
    from engine.scenario import load_scenario_text
    from engine.share_link import decode, encode, scenario_json

    scenario = next(iter(presets().values())).scenario
    data = json.loads(scenario_json(scenario))
    texts = []
    for name in NAMES:
        texts.append(json.dumps({**data, "name": name}))
        texts.append(json.dumps({**data, "hardware": {**data.get("hardware", {}), "chip": name}}))
        texts.append(json.dumps({**data, "layers": [{"type": "counted", "name": name, "op": name, "params": 1,
                                                     "macs": 1}]}))
    with watching("secret") as opened:
        shown = []
        for text in texts:
            shown.append(_quiet(lambda t=text: load_scenario_text(t).method1().as_dict()))
            shown.append(_quiet(lambda t=text: decode(encode(load_scenario_text(t)))))
        for token in NAMES:
            shown.append(_quiet(lambda t=token: decode(t)))
    assert opened == [] and not any("TOP-SECRET" in s for s in shown)


def test_hub_model_ids_naming_files_are_refused_before_any_request(served, monkeypatch):
    """Only ``owner/name`` is an id; it becomes an https address on the Hub (never a local path)."""
    from engine.llm.hub import config_url

    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    refused = [SECRET, f"./{SECRET}", f"file://{SECRET}", "/proc/self/environ", f"@{SECRET}", f"{{{SECRET}}}",
               f"$(cat {SECRET})", f"../{SECRET}", f"owner/../../{SECRET}", f"owner/{SECRET}?x=1", f"owner/{SECRET}#",
               f"owner/./{SECRET}", "owner/..", f"/owner/{SECRET}"]
    with watching("secret") as opened:
        for name in refused:
            with pytest.raises(InputError, match="model_id"):
                config_url(name)
        assert config_url(f"sub/{SECRET}") == f"https://huggingface.co/sub/{SECRET}/resolve/main/config.json"
    assert opened == []


@pytest.mark.parametrize("command", [
    ("transformer", "--config", "{file}", "--tokens", "1e9"),
    ("flops", "{file}"),
    ("trend", "--csv", "{file}"),
])
def test_the_cli_opens_the_file_it_is_given_and_no_file_named_inside_it(served, command):
    """The path a user types is opened (it is theirs); a path written inside that file is only text."""
    from engine.llm.library import library_model

    contents = {"transformer": json.dumps({**library_model("qwen3-0.6b").config, "_name_or_path": SECRET,
                                           "tokenizer_file": f"sub/{SECRET}"}),
                "flops": json.dumps({"name": SECRET, "input": {"shape": [4]},
                                     "layers": [{"type": "dense", "units": 2, "name": f"sub/{SECRET}"}]}),
                "trend": "Model,Publication date,Training compute (FLOP)\n"
                         f"{SECRET},2020-01-01,1e20\nsub/{SECRET},2021-01-01,1e21\n{SECRET},2022-01-01,1e22\n"}
    given = served / "given.txt"
    given.write_text(contents[command[0]])
    with watching("secret", "given.txt") as opened:
        out = cli(*[a.format(file=given.name) for a in command], "--format", "json")
    assert [p for p in opened if "secret" in p] == [], opened
    assert any("given.txt" in p for p in opened), "the file the user named was read"
    assert "TOP-SECRET" not in out.stdout + out.stderr
