"""Utilization priors: reported utilizations grouped by chip generation and scale, offered as presets.

Figures below are written out from the papers (link beside each); medians and quartiles are
worked out by hand here.
"""
from __future__ import annotations

import json

import pytest

from engine.cli import main
from engine.errors import InputError
from engine.method2.run import estimate_method2
from engine.method2.utilization_priors import (
    UtilizationReport, load_utilization_reports, prior_presets, reports_from_epoch, summarise,
)
from engine.trends.epoch_csv import read_epoch_csv

PUBLISHED = {
    # run: (utilization, where it is printed)
    "PaLM 540B": (0.462, "https://arxiv.org/abs/2204.02311"),            # Table 3, MFU
    "Gopher 280B": (0.325, "https://arxiv.org/abs/2204.02311"),          # PaLM Table 3
    "GPT-3 175B": (0.213, "https://arxiv.org/abs/2204.02311"),           # PaLM Table 3
    "Megatron-Turing NLG 530B": (0.302, "https://arxiv.org/abs/2204.02311"),
    "Megatron-LM 1T (GPT)": (163 / 312, "https://arxiv.org/abs/2104.04473"),  # 163 TFLOP/s of 312
    "OPT-175B": (147 / 312, "https://arxiv.org/abs/2205.01068"),         # ~147 TFLOP/s per A100
    "MegaScale 175B": (0.552, "https://arxiv.org/abs/2402.15627"),
    "Llama 3 405B (8K GPUs)": (0.43, "https://arxiv.org/abs/2407.21783"),
    "Llama 3 405B (16K GPUs)": (0.38, "https://arxiv.org/abs/2407.21783"),
}


def _report(name, chip, count, u):
    return UtilizationReport(name=name, chip=chip, chip_count=count, utilization=u, source="https://example.org")


def test_shipped_reports_match_the_papers_and_name_known_chips():
    reports = {r.name: r for r in load_utilization_reports()}
    for name, (value, source) in PUBLISHED.items():
        assert reports[name].utilization == pytest.approx(value, abs=2e-3), name
        assert reports[name].source == source
    assert all(r.source.startswith("https://") for r in reports.values())


def test_groups_by_generation_and_scale_with_median_and_quartiles():
    reports = [_report("a", "A100", 4096, 0.3), _report("b", "nvidia-a100-sxm4-80gb", 2048, 0.5),
               _report("c", "TPU v4", 6144, 0.4), _report("d", "A100", 512, 0.2), _report("e", "H100", 9000, 0.4),
               _report("f", "Acme 9000", 100, 0.9)]  # unknown chip: left out
    priors = {(p.generation, p.scale): p for p in summarise(reports)}
    big = priors[("chips launched 2020–2021 (A100, TPU v4)", "2,048 chips or more")]
    assert big.n == 3 and big.median == pytest.approx(0.4)
    # inclusive quartiles of 0.3, 0.4, 0.5: 0.35 and 0.45
    assert big.p25 == pytest.approx(0.35) and big.p75 == pytest.approx(0.45)
    assert priors[("chips launched 2020–2021 (A100, TPU v4)", "256–2,047 chips")].n == 1
    assert priors[("chips launched from 2022 (H100, TPU v5, Trainium)", "2,048 chips or more")].n == 1
    assert sum(p.n for p in priors.values()) == 5


def test_groups_of_three_become_presets_with_their_runs_as_source():
    presets = {p.id: p for p in prior_presets()}
    a100_big = presets["reported-2020-2021-2048-plus"]
    # PaLM 0.462, MT-NLG 0.302, Megatron-LM 1T 163/312, MegaScale 0.552 → median of the middle two
    values = sorted([0.462, 0.302, 163 / 312, 0.552])
    assert a100_big.utilization == pytest.approx((values[1] + values[2]) / 2, rel=1e-3)  # the file rounds to 0.522
    assert "PaLM 540B" in a100_big.source and a100_big.url.startswith("https://")


def test_a_prior_is_a_utilization_preset_in_method2_and_the_cli(capsys):
    est = estimate_method2({"chip": "H100", "chip_count": 4096, "duration": 10, "duration_unit": "days",
                            "utilization": "reported-2022-on-2048-plus"})
    assert est.utilization == pytest.approx(sorted([0.43, 0.38, 0.41])[1])  # median of the three H100 runs
    assert main(["priors"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {p["id"] for p in out["shipped"]["presets"]} >= {"reported-2020-2021-2048-plus"}


def test_unknown_preset_lists_the_priors_in_one_line():
    with pytest.raises(InputError) as info:
        estimate_method2({"chip": "H100", "chip_count": 8, "duration": 1, "utilization": "reported-1999"})
    assert info.value.field == "utilization" and "reported-2020-2021-2048-plus" in str(info.value)
    assert "\n" not in str(info.value)


def test_epoch_csv_utilization_column(tmp_path, capsys):
    csv_text = ("Model,Publication date,Training compute (FLOP),Training hardware,Hardware quantity,"
                "Training time (hours),Hardware utilization\n"
                "A,2022-01-01,1e22,NVIDIA A100,1024,100,0.3\n"
                "B,2022-01-01,1e22,NVIDIA A100,512,100,0.5\n"
                "C,2022-01-01,1e22,NVIDIA A100,300,100,0.4\n"
                "D,2022-01-01,1e22,NVIDIA A100,300,100,1.7\n"          # not a fraction: left out
                "E,2022-01-01,1e22,\"NVIDIA V100,NVIDIA A100\",8,100,0.4\n"  # two chip types: left out
                "F,2022-01-01,1e22,NVIDIA A100,300,100,\n")
    path = tmp_path / "epoch.csv"
    path.write_text(csv_text)
    reports = reports_from_epoch(read_epoch_csv(path).hardware_rows)
    assert [r.name for r in reports] == ["A", "B", "C"]
    (prior,) = summarise(reports)
    assert prior.n == 3 and prior.median == pytest.approx(0.4) and prior.scale == "256–2,047 chips"
    assert main(["priors", "--csv", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["csv"]["presets"][0]["utilization"] == pytest.approx(0.4)


def test_a_bad_reports_file_is_one_line(tmp_path):
    from engine.method2 import utilization_priors
    bad = tmp_path / "reports.csv"
    bad.write_text("name,chip,chip_count,utilization,metric,source,note\nX,A100,8,1.5,MFU,https://x.org,\n")
    with pytest.raises(InputError) as info:
        utilization_priors.load_utilization_reports(bad)
    assert "utilization" in info.value.field and "\n" not in str(info.value)
