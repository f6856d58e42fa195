"""The Markdown report: inputs, formulas, results (worked out here) and sources."""
from __future__ import annotations

from engine.presets import presets
from engine.report import markdown_report
from engine.scenario import parse_scenario
from tests.reference import EPOCH_EXAMPLE_TRAINING


def test_report_of_the_seed_with_a_hardware_run():
    data = presets()["epoch-cnn-lstm"].scenario.model_dump(mode="json")
    data["name"] = "Mine | <b>bold</b>"
    data["hardware"] = {"chip": "nvidia-tesla-v100-sxm2", "chip_count": 2, "duration": 3, "duration_unit": "days",
                        "utilization": 0.33, "precision": "fp16"}
    report = markdown_report(parse_scenario(data))
    # method 1: 3 × 128,000 × (20 × (2·200·200·16·125 + 8·(640,000·256 + 256²)) + 5,120)
    m1 = EPOCH_EXAMPLE_TRAINING
    assert f"**Training compute: {m1:.3g}".replace("e+", "e") in report
    # method 2: 2 V100 × 3 days × 125 TFLOP/s (dense FP16 tensor, NVIDIA V100 datasheet) × 0.33
    m2 = 2 * 3 * 86_400 * 125e12 * 0.33
    assert f"**Training compute: {m2:.3g}".replace("e+", "e") in report
    assert "C = chips × time × peak FLOP/s × utilization" in report
    assert "https://" in report.split("## Sources")[1]
    assert "<b>" not in report.splitlines()[0] and "\\|" in report.splitlines()[0]  # user text escaped
    assert '"chip": "nvidia-tesla-v100-sxm2"' in report  # the JSON that restores it


def test_report_names_the_units_of_each_share_of_a_mixed_run():
    """A 70/30 BF16/FP32 split: the BF16 share runs on tensor cores, FP32 on vector units (H100 SXM
    datasheet: BF16 tensor 989.4 TFLOP/s dense, FP32 67 TFLOP/s)."""
    data = presets()["epoch-cnn-lstm"].scenario.model_dump(mode="json")
    data["hardware"] = {"chip": "nvidia-h100-sxm", "chip_count": 8, "duration": 1, "duration_unit": "days",
                        "utilization": 0.4, "mixed_precision": {"bf16": 0.7, "fp32": 0.3}}
    report = markdown_report(parse_scenario(data))
    hardware = next(line for line in report.splitlines() if line.startswith("- Hardware:"))
    assert "no tensor cores" not in hardware
    assert "BF16 70% on tensor cores (989.4 TFLOP/s)" in hardware
    assert "FP32 30% on vector units (67 TFLOP/s)" in hardware
    effective = 1 / (0.7 / 989.4e12 + 0.3 / 67e12)  # harmonic: fractions of the work
    assert f"{8 * 86_400 * effective * 0.4:.3g}".replace("e+", "e") in report
    energy = next(line for line in report.splitlines() if line.startswith("- Energy:"))
    assert "kWh (" in energy or "MWh (" in energy
    assert "e+" not in energy


def _live(report: str) -> list[str]:
    """Markup a Markdown reader would render live: an unescaped tag, link or image."""
    import re

    return re.findall(r"(?<!\\)<img|(?<!\\)\]\((?:javascript|http)|(?<!\\)!\[", report)


def test_a_message_quoting_the_users_text_is_inert_in_the_report():
    """A refused serving plan or compression quotes what the user typed (an engine, a model, layer names): in the
    report that quote is one line and Markdown-inert — before, ``- Not computed: engine: '<img src=x
    onerror=…>'`` and ``[x](javascript:…)`` went into the file live."""
    base = {"input": {"shape": [4]}, "layers": [{"type": "dense", "units": 2}]}
    markup = "<img src=x onerror=a()>![i](http://e.x)"
    serve = markdown_report(parse_scenario({**base, "serve": {"model": "llama-3.1-8b", "engine": markup,
                                                               "prompt_tokens": 10, "output_tokens": 10}}))
    line = next(x for x in serve.splitlines() if x.startswith("- Not computed: engine"))
    assert not _live(line) and "\\<img" in line, line
    compress = markdown_report(parse_scenario({**base, "compression": {
        "technique": "two_four", "chip": "nvidia-h100-sxm",
        "layers": ["[x](javascript:alert(1))", markup + "\nnext\u202eline"]}}))
    line = next(x for x in compress.splitlines() if x.startswith("- Not computed: layers"))
    assert not _live(line) and "\\n" in line and "\\u202e" in line and "\u202e" not in line, line
    assert not _live(compress.split("```")[0])  # the JSON at the end is in a code fence
