"""Links and files of version 1 (transformer blocks of 92 flat fields) open through the one migration
(``engine.scenario.migrated``, each block by ``engine.method1.transformer.migration.block_from_flat``) to the same
figures, and are written back as version 2 (blocks in parts). The corpus is the regression snapshot's: links encoded
by the code before the block was cut in parts (every library model at T = 16, the presets, generated and hostile
links), their figures recorded then (``tests/regression``); ``test_snapshot`` compares every figure."""
from __future__ import annotations

import base64
import json
import zlib

import pytest

from engine.errors import InputError
from engine.scenario import SCENARIO_VERSION, Scenario, load_scenario_text
from engine.share_link import decode, encode, scenario_json
from tests.regression import snapshot


def _payload(token: str) -> str:
    body = token.partition(".")[2]
    return zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))).decode()


def _old_links() -> dict[str, str]:
    return {case: token for case, token in snapshot.load_inputs()["links"].items()
            if case.startswith(("link/library/", "link/preset/"))}


def test_the_corpus_is_of_version_1_with_flat_blocks():
    links = _old_links()
    assert len(links) > 250 and all(token.startswith("1.") for token in links.values())
    flat = [case for case, token in links.items() if '"type":"transformer_block","heads"' in _payload(token)]
    assert len(flat) > 200  # every library model's blocks, in the first shape


@pytest.mark.parametrize("case", sorted(_old_links()))
def test_an_old_link_and_its_file_open_and_write_back_as_version_2(case):
    """The link (its length allowing) and the same JSON as a saved file open to one scenario; written again it is
    version 2, with every block in parts, and reopens unchanged."""
    token = _old_links()[case]
    text = _payload(token)
    assert json.loads(text)["version"] == 1
    scenario = load_scenario_text(text)
    if len(token) <= 16_000:
        assert decode(token) == scenario
    again = scenario_json(scenario)
    data = json.loads(again)
    assert data["version"] == SCENARIO_VERSION == 2
    for layer in data.get("layers", []):
        if layer["type"] == "transformer_block":
            assert "mixer" in layer and "heads" not in layer and "ff_size" not in layer
    assert load_scenario_text(again) == scenario
    token = encode(scenario)
    assert token.startswith("2.")
    if len(token) <= 16_000:
        assert decode(token) == scenario


def test_a_version_2_file_is_not_migrated_and_a_flat_block_in_it_is_refused_by_name():
    """Version 2 holds blocks in parts only: a flat field there is named, not guessed."""
    flat = {"version": 2, "input": {"shape": [8], "sequence_length": 4},
            "layers": [{"type": "transformer_block", "heads": 2}]}
    with pytest.raises(InputError, match=r"^layers\[0\]\."):
        load_scenario_text(json.dumps(flat))
    parts = flat | {"layers": [{"type": "transformer_block", "mixer": {"heads": 2}}]}
    assert load_scenario_text(json.dumps(parts)).layers[0].mixer.heads == 2
    assert load_scenario_text(json.dumps(flat | {"version": 1})) == load_scenario_text(json.dumps(parts))


@pytest.mark.parametrize("token,needle", [("3.abc", "not a FLOPscope link"), ("0.abc", "not a FLOPscope link")])
def test_unknown_link_versions_are_refused(token, needle):
    with pytest.raises(InputError, match=needle):
        decode(token)


def test_the_schema_has_the_new_shape_and_the_version():
    schema = Scenario.model_json_schema()
    assert schema["properties"]["version"]["const"] == 2
    block = schema["$defs"]["TransformerBlock"]["properties"]
    assert {"mixer", "feed_forward", "norms"} <= set(block) and not {"heads", "kv_heads", "ssm_state_size"} & set(block)
    kinds = {schema["$defs"][ref["$ref"].split("/")[-1]]["properties"]["kind"]["const"]
             for ref in block["mixer"]["oneOf"]}
    assert kinds == {"attention", "latent", "compressed", "lightning", "mamba", "mamba2", "gated_deltanet",
                     "short_conv", "none"}


def test_one_migration_function():
    """The block migration is called from the scenario's migration and from the language-model config (its readers
    write the flat names), nowhere else in the engine."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[1] / "engine"
    users = sorted(str(p.relative_to(root)) for p in root.rglob("*.py")
                   if "block_from_flat(" in p.read_text(encoding="utf-8") and p.name != "migration.py")
    assert users == ["llm/config.py", "scenario.py"]
