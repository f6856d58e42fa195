"""Parameters counted as PyTorch counts them (Σ numel over ``parameters()``) in the files today's exporters write,
each model built here in torch and exported on the spot: the dynamo exporter (``torch.onnx.export``'s default since
PyTorch 2.9) folds BatchNorm into convolutions, stores a tied weight again transposed, computes attention masks and
tables ahead, and stores identical tensors once; the TorchScript exporter keeps float buffers as initializers. What
the file cannot tell is said in a note (``engine/importers/onnx_exporter.py``)."""
from __future__ import annotations

import warnings

import pytest

pytest.importorskip("onnx")
transformers = pytest.importorskip("transformers")

from engine.importers.onnx_graph import count_onnx, read_onnx  # noqa: E402
from tests.importers.onnx_models import _randomize  # noqa: E402


def _dynamo(torch, module, args, path, dynamic_shapes=None) -> None:
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, dynamo=True, verbose=False, dynamic_shapes=dynamic_shapes).save(str(path))


def _legacy(torch, module, args, path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, str(path), dynamo=False, input_names=["x"], do_constant_folding=False)


def _count(path, dims=None):
    return count_onnx(read_onnx(path.read_bytes()), dims or {})


def _numel(module) -> int:
    return sum(p.numel() for p in module.parameters())


def _bert(torch, trained: bool = True):
    config = transformers.BertConfig(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, intermediate_size=128,
                                     vocab_size=100, max_position_embeddings=64)
    torch.manual_seed(0)
    module = transformers.BertForMaskedLM(config).eval()
    if trained:
        _randomize(module, torch)
    return module


def test_dynamo_bert_counts_each_parameter_once(torch, tmp_path):
    """BERT with its MLM head, exported with dynamic batch and sequence: the head's weight is the token table
    (tied) and the exporter stores it again transposed for the head's MatMul (+100 × 64 before); every parameter
    once: Σ numel."""
    module = _bert(torch)
    path = tmp_path / "bert.onnx"
    dims = {0: torch.export.Dim("batch"), 1: torch.export.Dim("sequence", max=64)}
    _dynamo(torch, module, (torch.zeros(2, 16, dtype=torch.long),), path, dynamic_shapes=({**dims},))
    counted = _count(path, {"batch": 2, "sequence": 16})
    assert counted.params == _numel(module) == 82_084
    assert any("stored copy of a parameter" in n and "counted once" in n for n in counted.notes), counted.notes


def test_dynamo_bert_static_mask_is_a_constant_and_an_untrained_models_merged_tensors_count_per_parameter(
        torch, tmp_path):
    """A static export (batch 2 × 16 tokens) of an untrained BERT: the attention mask computed ahead (2 × 1 × 16 × 16
    floats) is a constant, not a parameter (the issue's BERT-base +1,024); the exporter stores the identical zero
    biases and unit norm scales once, and each counts once per parameter as in PyTorch. The position table looked up
    at positions 0…15 is computed ahead too ([1, 16, 64]): that parameter (64 × 64) is not in the file, and the note
    says that tables looked up at fixed positions are constants."""
    module = _bert(torch, trained=False)
    path = tmp_path / "bert_static.onnx"
    _dynamo(torch, module, (torch.zeros(2, 16, dtype=torch.long),), path)
    counted = _count(path)
    position_table = module.bert.embeddings.position_embeddings.weight.numel()
    assert counted.params == _numel(module) - position_table == 82_084 - 64 * 64
    assert counted.constants >= 2 * 16 * 16 + 16 * 64  # the mask and the looked-up table, among the constants
    notes = " ".join(counted.notes)
    assert "computed ahead by the exporter" in notes and "constants, not parameters" in notes
    assert "stand for parameters of several modules" in notes


def _resnext_block(torch):
    """ResNeXt's bottleneck (1×1 → grouped 3×3, 32 groups → 1×1, each convolution without bias and followed by
    BatchNorm) and its projection shortcut, at 64 → 128 → 256 channels."""
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Conv2d(64, 128, 1, bias=False), nn.BatchNorm2d(128), nn.ReLU(),
                                      nn.Conv2d(128, 128, 3, padding=1, groups=32, bias=False), nn.BatchNorm2d(128),
                                      nn.ReLU(), nn.Conv2d(128, 256, 1, bias=False), nn.BatchNorm2d(256))
            self.short = nn.Sequential(nn.Conv2d(64, 256, 1, bias=False), nn.BatchNorm2d(256))

        def forward(self, x):
            return torch.relu(self.body(x) + self.short(x))

    return Block().eval()


def test_dynamo_folds_batchnorm_into_the_convolutions_and_the_count_says_how_many(torch, tmp_path):
    """Each BatchNorm's γ, β (2·C) become the convolution's bias (C) in the file: ResNeXt-50 came out −34,112 = Σ C
    over its BatchNorms. Counted as PyTorch counts them, with the fold said: here Σ C = 128 + 128 + 256 + 256."""
    module = _resnext_block(torch)
    _randomize(module, torch)
    path = tmp_path / "resnext_block.onnx"
    _dynamo(torch, module, (torch.zeros(1, 64, 8, 8),), path)
    counted = _count(path)
    channels = 128 + 128 + 256 + 256
    assert counted.params == _numel(module)
    assert counted.state == 2 * channels  # running mean and variance of each BatchNorm
    assert any(n.startswith("BatchNorm folded into 4 convolutions by the exporter") and f"+{channels:,} parameters"
               in n for n in counted.notes), counted.notes


def _table_module(torch, window: int = 8, heads: int = 4):
    """Swin V2's continuous position bias: a float buffer of (2w − 1)² relative coordinates (×2) through an MLP
    (Linear 2 → 512, ReLU, Linear 512 → heads), added to the scores; 450 buffer values at w = 8."""
    nn = torch.nn

    class Bias(nn.Module):
        def __init__(self):
            super().__init__()
            side = 2 * window - 1
            self.register_buffer("relative_coords_table", torch.rand(1, side, side, 2))
            self.mlp = nn.Sequential(nn.Linear(2, 512), nn.ReLU(), nn.Linear(512, heads, bias=False))
            self.proj = nn.Linear(heads, heads)

        def forward(self, x):
            return self.proj(x + self.mlp(self.relative_coords_table).mean(dim=(1, 2)))

    return Bias().eval()


def test_a_float_buffer_fed_as_data_is_state_not_a_parameter(torch, tmp_path):
    """The TorchScript exporter keeps the buffer as an initializer feeding the MLP's first MatMul: it was counted
    as a parameter (+450 on Swin V2)."""
    module = _table_module(torch)
    path = tmp_path / "table.onnx"
    _legacy(torch, module, (torch.zeros(1, 4),), path)
    counted = _count(path)
    assert counted.params == _numel(module) == 2 * 512 + 512 + 512 * 4 + 4 * 4 + 4
    assert counted.state == 15 * 15 * 2 == 450
    assert any("fed as the data of a matrix product" in n for n in counted.notes), counted.notes


def test_dynamo_names_the_parameters_it_folded_into_constants(torch, tmp_path):
    """The dynamo exporter computes the MLP's first layer on the buffer ahead (table @ W₁ᵀ, a constant): W₁ is no
    longer in the file; the constant is not counted as a parameter and W₁ is named."""
    module = _table_module(torch)
    _randomize(module, torch)
    path = tmp_path / "table_dynamo.onnx"
    _dynamo(torch, module, (torch.zeros(1, 4),), path)
    counted = _count(path)
    assert counted.params == _numel(module) - 2 * 512
    assert any("not in the file and not counted: mlp_0_weight" in n for n in counted.notes), counted.notes


def test_an_untrained_models_identical_tensors_are_said_with_the_legacy_exporter(torch, tmp_path):
    """Two layers of different modules with identical zero biases (an untrained model): the TorchScript exporter
    stores one tensor for both; the count has it once and says PyTorch counts up to 16 more."""
    nn = torch.nn
    module = nn.Sequential(nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 16)).eval()
    with torch.no_grad():
        for layer in (module[0], module[2]):
            layer.bias.zero_()
    path = tmp_path / "twins.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, (torch.zeros(1, 16),), str(path), dynamo=False, input_names=["x"])
    counted = _count(path)
    assert counted.params == _numel(module) - 16
    assert any("read by layers of different modules" in n and "up to 16 parameters more" in n
               for n in counted.notes), counted.notes
