"""``transformer FILE`` and ``optimal C`` as ``flops FILE`` and ``plan FILE`` take their one argument: the same
result as ``--config FILE`` / ``--flop C`` (both refused before: 'unrecognized arguments'); both at once, or
neither, is one line."""
from __future__ import annotations

import json

from engine.llm.library import library_model
from tests.cli import cli


def test_transformer_takes_its_config_file_as_flops_takes_a_scenario(tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(library_model("qwen3-0.6b").config))
    positional = cli("transformer", str(path), "--tokens", "36e12", "--format", "json")
    option = cli("transformer", "--config", str(path), "--tokens", "36e12", "--format", "json")
    assert positional.returncode == 0 and positional.stdout == option.stdout
    # Qwen3ForCausalLM from this config (transformers, meta device): 596,049,920 parameters (tests/llm)
    assert json.loads(positional.stdout)["params"] == 596_049_920
    both = cli("transformer", str(path), "--config", str(path), "--tokens", "1e9")
    assert both.returncode == 2 and both.stderr == ("error: arguments: give the config once: as a positional "
                                                    "argument or as --config, not both\n")


def test_optimal_takes_its_budget_as_an_argument():
    positional = cli("optimal", "1e24", "--format", "json")
    option = cli("optimal", "--flop", "1e24", "--format", "json")
    assert positional.returncode == 0 and positional.stdout == option.stdout
    # 20 tokens per parameter: C = 6·N·20N → N = √(C/120) = 9.13e10
    assert abs(json.loads(positional.stdout)["params"] - (1e24 / 120) ** 0.5) < 1e6
    neither = cli("optimal")
    assert neither.returncode == 2 and neither.stderr == "error: flop: give the budget: optimal 1e24 (or --flop 1e24)\n"
