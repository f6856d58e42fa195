"""Models exported by ``torch.onnx.export`` and counted from the ONNX graph: parameters equal Σ ``numel`` and
``matmul`` FLOP equal ``FlopCounterMode`` of the same module, to the integer (``onnx_models.py`` says how
each is exported and measured); the exporter's defaults that change the graph are bounded apart."""
from __future__ import annotations

import time

import pytest

from tests.importers import onnx_models

pytest.importorskip("onnx")


def _count(item):
    from engine.importers.onnx_graph import count_onnx, read_onnx

    start = time.perf_counter()
    counted = count_onnx(read_onnx(item.path.read_bytes(), item.name), item.dims, source=item.name)
    return counted, time.perf_counter() - start


@pytest.mark.parametrize("name", list(onnx_models.MODELS))
def test_params_and_matmul_flop_equal_pytorch(exported, name):
    item = exported(name)
    counted, seconds = _count(item)
    assert counted.unknown_ops == {} and counted.uncounted_ops == {}, (counted.unknown_ops, counted.uncounted_ops)
    assert counted.params == item.params
    assert 2 * counted.macs == item.flop
    assert counted.rows and all(r.type == "counted" for r in counted.rows)
    print(f"\n{name}: params {counted.params:,} (PyTorch {item.params:,}), matmul FLOP {2 * counted.macs:,} "
          f"(FlopCounterMode {item.flop:,}), export {item.export_s:.1f} s, count {seconds:.2f} s")


def test_mobilenet_v3_twin_matches_the_model_card(torch):
    module = onnx_models.mobilenet_v3(torch)[0]
    assert sum(p.numel() for p in module.parameters()) == 2_542_856  # torchvision's model card


def test_the_scopes_read_like_the_model(exported):
    counted, _ = _count(exported("resnet50"))
    names = [r.name for r in counted.rows]
    assert names[:3] == ["/conv1/Conv", "/bn1/BatchNormalization", "/relu/Relu"]
    assert "/layer1/0/conv1/Conv" in names and "/layer4/2/conv3/Conv" in names and names[-1] == "/fc/Gemm"
    conv = counted.rows[0]
    assert conv.output_shape == [1, 64, 32, 32] and conv.params == 64 * 3 * 7 * 7
    assert conv.macs == 64 * 32 * 32 * 3 * 7 * 7
    assert counted.state == 2 * sum(r.output_shape[1] for r in counted.rows if r.op == "BatchNormalization")


def test_the_lstm_counts_its_sequence(exported):
    item = exported("lstm")
    from engine.importers.onnx_graph import count_onnx, read_onnx

    longer = count_onnx(read_onnx(item.path.read_bytes()), {"batch": 1, "sequence": 24})
    lstm_macs = [r.macs for r in longer.rows if r.op == "LSTM"]
    assert lstm_macs == [24 * 4 * 64 * (32 + 64), 24 * 4 * 64 * (64 + 64)]  # T·G·H·(N + H) per layer


def test_default_exports_fold_batchnorm_and_copy_a_tied_weight(torch, tmp_path):
    """The exporter's defaults: eval mode folds each BatchNorm into the convolution before it (its γ, β become
    the convolution's bias: C parameters instead of 2C, so ResNet-18 loses Σ C over its BatchNorms, FLOP
    unchanged); constant folding writes GPT-2's tied head as a transposed copy (+ V·d)."""
    from engine.importers.onnx_graph import count_onnx, read_onnx

    module, args, names, axes = onnx_models.resnet18(torch)
    bn_channels = sum(m.num_features for m in module.modules() if isinstance(m, torch.nn.BatchNorm2d))
    path = tmp_path / "resnet18.onnx"
    _, params, flop = onnx_models.export(torch, module, args, names, axes, path, training=torch.onnx.TrainingMode.EVAL,
                                         do_constant_folding=True)
    counted = count_onnx(read_onnx(path.read_bytes()), {"batch": 1})
    assert counted.params == params - bn_channels
    assert 2 * counted.macs == flop

    module, args, names, axes = onnx_models.gpt2(torch)
    path = tmp_path / "gpt2.onnx"
    _, params, flop = onnx_models.export(torch, module, args, names, axes, path, meta=False, do_constant_folding=True)
    counted = count_onnx(read_onnx(path.read_bytes()), {"batch": 1, "sequence": 16})
    assert counted.params == params + 1000 * 128  # the head's transposed copy of the token embedding
    assert 2 * counted.macs == flop


def test_full_convention_equals_the_hand_built_preset(torch, tmp_path):
    """ResNet-50 at 224×224: the graph's full-convention FLOP (BatchNorm, ReLU, residual adds, max and global
    pooling, the head's bias) equal the resnet50 preset's, operator by operator, as well as its matmul FLOP."""
    from engine.importers.onnx_graph import count_onnx, read_onnx
    from engine.presets import presets

    module, _, names, axes = onnx_models.resnet50(torch)
    path = tmp_path / "resnet50_224.onnx"
    onnx_models.export(torch, module, (torch.zeros(1, 3, 224, 224),), names, axes, path)
    counted = count_onnx(read_onnx(path.read_bytes()), {"batch": 1})
    preset = presets()["resnet50"].scenario
    full = preset.model_copy(update={"convention": "full"}).method1()
    assert 2 * counted.macs == preset.method1().forward_flop == 8_178_368_512
    assert 2 * counted.macs + counted.extra_flop == full.forward_flop
    by_op = {op: sum(r.extra_flop for r in counted.rows if r.op == op) for op in ("BatchNormalization", "Relu")}
    by_kind = {kind: sum(r.forward_flop - 2 * r.macs for r in full.architecture.rows if r.type == kind)
               for kind in ("batch_norm", "activation")}
    assert (by_op["BatchNormalization"], by_op["Relu"]) == (by_kind["batch_norm"], by_kind["activation"])
