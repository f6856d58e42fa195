"""A regression snapshot of every figure the language-model and scenario code prints, recorded before a refactor
and compared after it (``test_snapshot.py``): the refactor must leave each one equal, to the integer.

Inputs (``inputs.json.gz``, written once with the generator's own version of the code, so that the comparison
does not depend on hypothesis, transformers or a data file another change may edit):

- ``library/<id>``: every model of ``engine/llm/models.json`` (its config as the file held it);
- ``hub/<file>``: every real config.json under ``tests/llm/hub_configs``;
- ``small/<type>/<class>``: the coverage sweep's small default config of every family and class
  (``tests.llm.coverage.small_config``, written by ``to_dict()``);
- ``random/<type>/<n>``: ``RANDOM_PER_FAMILY`` configs of every family drawn by ``tests.llm.random_configs`` with
  hypothesis derandomized (a fixed seed), written by transformers' config class (``to_dict()``);
- ``llm-preset/<name>``: the configs behind the language-model presets (``engine.llm.presets``);
- ``link/...``: share links as the code of the day encodes them — the scenario presets, every library model's
  layers at T = 16, ``WELL_FORMED_LINKS`` fixed-seed scenarios of ``tests.scenario_strategy`` and the hostile
  corpus (``tests.app.hostile_corpus``). These are the old-format corpus the link migration must open.

Figures (``figures.json.gz``), per config: the config's own figures (embedding parameters, layers), then for a
short and a long sequence and each convention the walk's totals (parameters, active, MACs, forward, exact
backward, trainable, recompute), the forward FLOP by part and a digest of every row (``rows_digest``: each row's
name, part, shape, parameters, MACs, FLOP, backward and trainable parameters); the transformer estimate's JSON
(formulas included) for full training, the last block, and LoRA (or the one-line refusal); the planner's model.
Per link: the decoded scenario's method-1 figures and rows digest, or the refusal.

``python -m tests.regression.snapshot inputs``  draws the inputs (needs transformers; run once, before the change)
``python -m tests.regression.snapshot figures`` records the figures from the inputs
"""
from __future__ import annotations

import functools
import gzip
import hashlib
import json
import sys
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
INPUTS = HERE / "inputs.json.gz"
FIGURES = HERE / "figures.json.gz"
RANDOM_PER_FAMILY = 3
WELL_FORMED_LINKS = 300
SHORT, LONG = 16, 2048
"""The sequence lengths every config is counted at (LONG within the model's own positions)."""


# ---------------------------------------------------------------- inputs


def _written(hf_config) -> dict:
    return json.loads(json.dumps(hf_config.to_dict()))


def _config_inputs() -> dict[str, dict]:
    from engine.llm import presets as llm_presets
    from engine.llm.library import library_models

    out: dict[str, dict] = {}
    for model in library_models():
        out[f"library/{model.id}"] = model.config
    for path in sorted((HERE.parent / "llm" / "hub_configs").glob("*.json")):
        out[f"hub/{path.stem}"] = json.loads(path.read_text())
    for name in ("GPT3_175B_CONFIG", "LLAMA2_7B_CONFIG"):
        out[f"llm-preset/{name}"] = getattr(llm_presets, name)
    return out


def _small_and_random() -> dict[str, dict]:
    from engine.llm.families import FAMILIES
    from tests.llm import coverage

    out: dict[str, dict] = {}
    for model_type in sorted(FAMILIES):
        for cls in FAMILIES[model_type].classes:
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    out[f"small/{model_type}/{cls}"] = _written(coverage.small_config(model_type, cls))
            except Exception:  # noqa: BLE001 — transformers' default does not build: the sweep says so
                continue
        for i, config in enumerate(_drawn(model_type)):
            out[f"random/{model_type}/{i}"] = config
    return out


def _drawn(model_type: str) -> list[dict]:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import strategies as st

    from engine.llm.families import FAMILIES
    from tests.llm import random_configs
    from tests.llm.test_random_configs import config_object

    drawn: list[dict] = []

    @settings(max_examples=RANDOM_PER_FAMILY * 3, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(data=st.data())
    def draw(data):
        cls = data.draw(st.sampled_from(list(FAMILIES[model_type].classes)))
        kwargs = data.draw(random_configs.config_kwargs(model_type, cls))
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                drawn.append(_written(config_object(model_type, kwargs, cls)))
        except Exception:  # noqa: BLE001 — the config class refuses it: no such file exists
            pass

    draw()
    return drawn[:RANDOM_PER_FAMILY]


def _link_inputs() -> dict[str, str]:
    from hypothesis import HealthCheck, Phase, given, settings

    from engine.errors import InputError
    from engine.llm.config import read_hf_config
    from engine.llm.library import library_models
    from engine.presets import presets
    from engine.scenario import parse_scenario
    from engine.share_link import encode
    from tests.app.hostile_corpus import corpus, pack_json
    from tests.scenario_strategy import WELL_FORMED

    out: dict[str, str] = {}
    for preset_id, preset in presets().items():
        out[f"link/preset/{preset_id}"] = encode(preset.scenario)
    for model in library_models():
        try:
            config = read_hf_config(model.config)
            out[f"link/library/{model.id}"] = encode(parse_scenario(config.scenario_data(1e9, SHORT, model.name)))
        except InputError:
            continue
    drawn: list[dict] = []

    @settings(max_examples=WELL_FORMED_LINKS, derandomize=True, database=None, deadline=None,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(data=WELL_FORMED)
    def draw(data):
        drawn.append(data)

    draw()
    for i, data in enumerate(drawn):
        out[f"link/well-formed/{i}"] = pack_json(data)
    for case in corpus():
        out[f"link/hostile/{case.category}:{case.id}"] = case.token
    return out


def write_inputs() -> None:
    data = {"configs": _config_inputs() | _small_and_random(), "links": _link_inputs()}
    INPUTS.write_bytes(gzip.compress(json.dumps(data, sort_keys=True).encode(), mtime=0))


def load_inputs() -> dict:
    return json.loads(gzip.decompress(INPUTS.read_bytes()))


# ---------------------------------------------------------------- figures


def _digest(rows) -> str:
    keys = ("index", "type", "name", "part", "output_shape", "params", "active_params", "macs", "forward_flop",
            "backward_flop", "trainable_params", "path", "copies", "copy")
    text = json.dumps([[getattr(r, k) for k in keys] for r in rows], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def _walk(result) -> dict:
    if result.error is not None:
        return {"error": str(result.error)}
    by_part: dict[str, int] = {}
    for row in result.rows:
        key = row.part or row.type
        by_part[key] = by_part.get(key, 0) + row.forward_flop
    return {"params": result.params, "active_params": result.active_params, "macs": result.macs,
            "forward_flop": result.forward_flop, "backward_flop": result.backward_flop,
            "trainable_params": result.trainable_params, "recompute_flop": result.recompute_flop,
            "frozen": result.frozen, "rows": len(result.rows), "rows_digest": _digest(result.rows),
            "by_part": by_part}


def _refusal(call):
    from engine.errors import InputError

    try:
        return call()
    except InputError as exc:
        return {"refused": str(exc)}


def _lengths(config) -> list[int]:
    from engine.errors import InputError

    out = []
    for length in (SHORT, LONG):
        try:
            config.sequence_length(length)
        except InputError:
            bound = config.encoder.learned_positions if config.encoder else (config.learned_positions
                                                                              or config.rotary_table)
            length = min(length, bound or length)
        if length not in out:
            out.append(length)
    return out


def config_figures(data: dict) -> dict:
    """Every figure of one config.json (or its refusal)."""
    from engine.errors import InputError
    from engine.llm.config import read_hf_config
    from engine.llm.estimate import TransformerRun, estimate_transformer
    from engine.method1.architecture import evaluate
    from engine.plan.model import plan_model

    try:
        config = read_hf_config(data)
    except InputError as exc:
        return {"refused": str(exc)}
    out: dict = {"embedding_params": config.vocabulary_params, "total_layers": config.total_layers,
                 "unused_keys": list(config.unused_keys), "notes": list(config.notes)}
    for length in _lengths(config):
        decoder = max(1, length // 2) if config.encoder else None
        figures: dict = {}
        for convention in ("matmul", "full"):
            arch = _refusal(functools.partial(config.architecture, length, decoder))
            figures[convention] = arch if isinstance(arch, dict) else _walk(evaluate(arch, convention))
        runs = {"full": {}, "last": {"trainable_last": 1}, "lora": {"lora_rank": 4},
                "exact": {"backward": "exact", "convention": "full"}}
        for name, extra in runs.items():
            run = TransformerRun(tokens=1e9, seq_len=length, decoder_seq_len=decoder, **extra)
            figures[f"estimate_{name}"] = _refusal(lambda run=run: estimate_transformer(config, run).as_dict())
        if config.encoder is None:
            figures["plan"] = _refusal(lambda length=length: _plan(plan_model, config.architecture(length)))
        out[f"T={length}"] = figures
    return out


def _plan(plan_model, arch) -> dict:
    import dataclasses

    return dataclasses.asdict(plan_model(arch))


def link_figures(token: str, as_file: bool = False) -> dict:
    """A link's scenario's figures (or the refusal); ``as_file``: its payload opened as a saved scenario file
    (the same JSON, without the link's length limit)."""
    import base64
    import zlib

    from engine.errors import InputError
    from engine.scenario import load_scenario_text
    from engine.share_link import decode

    try:
        if as_file:
            body = token.partition(".")[2]
            text = zlib.decompress(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4))).decode()
            scenario = load_scenario_text(text, source="scenario")
        else:
            scenario = decode(token)
    except InputError as exc:
        return {"refused": str(exc)}
    out: dict = {"name": scenario.name, "layers": len(scenario.layers)}
    try:
        estimate = scenario.method1()
    except InputError as exc:
        return out | {"method1_refused": str(exc)}
    out |= {"params": estimate.params, "macs": estimate.macs, "forward_flop": estimate.forward_flop,
            "backward_flop": estimate.backward_flop, "training_flop": estimate.training_flop,
            "error": str(estimate.error) if estimate.error else None}
    if estimate.architecture is not None:
        out["walk"] = _walk(estimate.architecture)
    return out


def all_figures(inputs: dict, only: str = "") -> dict:
    out = {}
    for case, data in inputs["configs"].items():
        if case.startswith(only):
            out[case] = config_figures(data)
    for case, token in inputs["links"].items():
        if case.startswith(only):
            out[case] = link_figures(token)
            if case.startswith(("link/library/", "link/preset/")):
                out[case.replace("link/", "file/", 1)] = link_figures(token, as_file=True)
    return json.loads(json.dumps(out, allow_nan=True))  # as stored: tuples as lists, keys as text


def write_figures() -> None:
    FIGURES.write_bytes(gzip.compress(json.dumps(all_figures(load_inputs()), sort_keys=True).encode(), mtime=0))


def load_figures() -> dict:
    return json.loads(gzip.decompress(FIGURES.read_bytes()))


if __name__ == "__main__":
    sys.path.insert(0, str(HERE.parents[1]))
    {"inputs": write_inputs, "figures": write_figures}[sys.argv[1]]()
