"""Compression and distillation figures against formulas written here."""
from __future__ import annotations

import pytest

from engine.compress.compression import Compression, compress
from engine.compress.distillation import Distillation, distill, forward_flop_per_token
from engine.errors import InputError, parse_input
from engine.llm.config import read_hf_config
from engine.llm.library import library_model

MLP = {"mode": "layers", "input": {"shape": [784]},
       "layers": [{"type": "dense", "units": 512}, {"type": "activation", "function": "relu"},
                  {"type": "dense", "units": 512}, {"type": "activation", "function": "relu"},
                  {"type": "dense", "units": 10}],
       "training": {"examples": 60000, "epochs": 10, "batch_size": 100}}
# forward MACs per example: 784·512 + 512·512 + 512·10 = 668,672
MACS = 784 * 512 + 512 * 512 + 512 * 10


def run(**spec):
    return compress(MLP, parse_input(Compression, spec))


def test_prune_schedule_is_dense_plus_scoring_plus_fine_tune():
    r = run(technique="prune", pruning={"target": "channels", "fraction": 0.5}, scoring_examples=1000,
            fine_tune_examples=60000)
    pruned_macs = 784 * 256 + 256 * 256 + 256 * 10
    assert r.before.forward_flop == 2 * MACS and r.after.forward_flop == 2 * pruned_macs
    dense = 3 * 2 * MACS * 600000
    # scoring: forward + backward (2×) per example; fine-tune the pruned net
    assert r.schedule_flop == pytest.approx(dense + 1000 * 3 * 2 * MACS + 60000 * 3 * 2 * pruned_macs)
    assert r.ideal_speedup == pytest.approx(MACS / pruned_macs)
    assert r.measured_speedup == 1.1 and "Torch-Pruning" in r.speedup_source


def test_vit_heads_pruned_lose_their_projections():
    """ViT-B/16 (12 layers of 12 heads of 64 over 768): half the heads lose, per layer, their q, k, v columns
    (3 · 768 · 384 weights + 3 · 384 biases) and the output projection's rows (384 · 768); the head size stays 64."""
    from engine.presets import presets

    r = compress(presets()["vit_b_16"].scenario.model_dump(mode="json"),
                 parse_input(Compression, {"technique": "prune", "pruning": {"target": "heads", "fraction": 0.5}}))
    assert r.before.params - r.after.params == 12 * (3 * 768 * 384 + 3 * 384 + 384 * 768)


def test_depth_pruning_removes_only_blocks_that_keep_their_shape():
    """ResNet-18's middle blocks are its stages, each downsampling: removing one made every later layer work on 4×
    the positions (forward FLOP 3.6e9 → 1.3e10, shown as a speed-up of 0.28×). Refused now; ConvNeXt-T's stages repeat
    blocks that keep their shape: half removed, the compute falls; a net without blocks says so."""
    from engine.presets import presets

    def blocks(preset):
        spec = {"technique": "prune", "pruning": {"target": "blocks", "fraction": 0.5}}
        return compress(presets()[preset].scenario.model_dump(mode="json"), parse_input(Compression, spec))

    with pytest.raises(InputError, match=r"^target: no block between the first and the last keeps its input's shape"):
        blocks("resnet18")
    r = blocks("convnext_tiny")
    assert r.after.forward_flop < r.before.forward_flop and r.ideal_speedup > 1
    with pytest.raises(InputError, match=r"^target: no blocks to remove"):
        blocks("alexnet")


def test_unstructured_sparsity_saves_nothing_on_dense_hardware():
    r = run(technique="unstructured", sparsity=0.9)
    assert r.after.forward_flop == r.before.forward_flop and r.measured_speedup == 1.0
    assert r.ideal_speedup == pytest.approx(1 / (1 - 0.9))
    assert any("no FLOP or time saved" in n for n in r.notes)


def test_two_four_halves_the_products_and_uses_the_measured_factor():
    r = run(technique="two_four", chip="nvidia-a100-sxm4-80gb")
    assert r.after.forward_flop == pytest.approx(MACS)  # half the products, 2 FLOP each
    assert r.measured_speedup == pytest.approx(1 / 0.94, abs=1e-3)


def test_two_four_on_a_chip_without_sparse_tensor_cores_says_so():
    r = run(technique="two_four", chip="nvidia-tesla-v100-sxm2")
    assert r.measured_speedup == 1.0 and "no sparse tensor cores" in r.notes[0]


def test_qat_fake_quantization_per_step():
    r = run(technique="qat", batch_size=100)
    weights = MACS  # the dense layers' weight matrices (biases are parameters too)
    params = weights + 512 + 512 + 10
    activations = 784 + 512 + 512  # each layer's input elements per example
    steps = 600000 / 100
    assert r.extra_flop == pytest.approx(6 * (params + 100 * activations) * steps)
    # docs/compression.md: the fake-quantization is element-wise, counted by the full convention only
    dense = 3 * 2 * MACS * 600000  # (1 + r = 3) × 2·MACs × examples × epochs
    assert r.before.training_flop == r.after.training_flop == dense  # the matmul convention: unchanged
    full = compress({**MLP, "convention": "full"}, parse_input(Compression, {"technique": "qat", "batch_size": 100}))
    assert full.after.training_flop == pytest.approx(full.before.training_flop + r.extra_flop)


def test_ptq_calibration_and_gptq():
    r = run(technique="ptq", calibration_examples=128)
    assert r.extra_flop == 128 * 2 * MACS
    g = run(technique="ptq", calibration_examples=128, gptq=True)
    hessians = sum(2 * (n + 1) ** 2 * 128 + 2 * (n + 1) ** 2 * m for n, m in ((784, 512), (512, 512), (512, 10)))
    assert g.extra_flop == pytest.approx(128 * 2 * MACS + hessians)


def test_low_precision_training_peak_ratio_and_measured_factor():
    r = run(technique="low_precision", train_format="fp8", chip="nvidia-h100-sxm")
    assert r.ideal_speedup == pytest.approx(1978.9 / 989.4) and r.measured_speedup == 1.34  # datasheet TFLOP/s
    with pytest.raises(InputError, match="train_format"):
        run(technique="low_precision", train_format="nvfp4", chip="nvidia-h100-sxm")


def test_distillation_online_offline_and_the_one_third_rule():
    teacher = read_hf_config(library_model("llama-3.1-8b").config)
    student = read_hf_config(library_model("llama-3.2-1b").config)
    ft = forward_flop_per_token(teacher, 2048)
    fs = forward_flop_per_token(student, 2048)
    on = distill(teacher, student, parse_input(Distillation, {"tokens": 1e9, "epochs": 2}))
    assert on.teacher_flop == pytest.approx(ft * 2e9) and on.student_training_flop == pytest.approx(3 * fs * 2e9)
    off = distill(teacher, student, parse_input(Distillation, {"tokens": 1e9, "epochs": 2, "mode": "offline",
                                                               "top_k": 32, "base_training_flop": 1e22}))
    assert off.teacher_flop == pytest.approx(ft * 1e9) and off.stored_logit_bytes == 1e9 * 32 * 6
    assert off.modification_threshold_flop == pytest.approx(1e22 / 3)
    assert off.modification_share == pytest.approx(off.total_flop / 1e22)


@pytest.mark.parametrize("base", [5e-324, 1e-300, 0.5])
def test_a_base_training_compute_under_one_flop_is_refused(base):
    """5e-324 divided by zero; 1e-300 gave 'uses inf% of the original model's training compute'. 0 stays 'unknown'."""
    with pytest.raises(InputError) as exc:
        parse_input(Distillation, {"tokens": 1e9, "base_training_flop": base})
    assert "base_training_flop" in str(exc.value) and "under 1 FLOP" in str(exc.value)
    assert parse_input(Distillation, {"tokens": 1e9, "base_training_flop": 0}).base_training_flop == 0
