"""``count``: a PyTorch module counted per module on the meta device gives the same rows as its ONNX export and
the same totals as the hand-built preset; its backward pass follows the module's own ``requires_grad``."""
from __future__ import annotations

import json
from collections import defaultdict

import pytest

from engine.errors import InputError
from tests.cli import cli
from tests.importers import onnx_models


def _by_scope(rows) -> dict[str, tuple[int, int]]:
    """ONNX rows (one per node, ``/scope/Op``) summed per scope: (params, MACs), where either is not 0."""
    out: dict = defaultdict(lambda: [0, 0])
    for r in rows:
        scope = r.name.rsplit("/", 1)[0] or "/"
        out[scope][0] += r.params
        out[scope][1] += r.macs
    return {k: tuple(v) for k, v in out.items() if any(v)}


@pytest.mark.external_check("counted")
@pytest.mark.parametrize("name,shape,dtype", [("resnet50", [1, 3, 64, 64], "float"),
                                              ("vit", [1, 3, 64, 64], "float"),
                                              ("lstm", [1, 12], "long")])
def test_rows_equal_the_onnx_rows_module_by_module(torch, exported, name, shape, dtype):
    from engine.importers.onnx_graph import count_onnx, read_onnx
    from engine.importers.torch_count import count_module

    item = exported(name)
    graph = count_onnx(read_onnx(item.path.read_bytes()), item.dims)
    counted = count_module(lambda: onnx_models.MODELS[name](torch)[0], shape, dtype)
    assert (counted.params, counted.forward_flop) == (item.params, item.flop)
    assert {r.name: (r.params, r.macs) for r in counted.rows if r.params or r.macs} == _by_scope(graph.rows)
    assert sum(r.macs for r in counted.rows) * 2 == counted.forward_flop
    assert all(r.type == "counted" and r.extra_flop == 0 for r in counted.rows)


def test_a_transformers_model_on_meta_equals_its_onnx_rows(torch, exported):
    """GPT-2 wrapped in a module of the user's that passes no attention mask and no cache: transformers' check for
    packed sequences reads position values, which the meta device lacks; ``count`` answers it there, and the rows
    equal the ONNX export's scope by scope, and the CPU's count."""
    from engine.importers.onnx_graph import count_onnx, read_onnx
    from engine.importers.torch_count import count_module

    counted = count_module(lambda: onnx_models.gpt2(torch, mask=False)[0], [1, 16], "long")
    item = exported("gpt2")
    graph = count_onnx(read_onnx(item.path.read_bytes()), item.dims)
    assert (counted.params, counted.forward_flop) == (item.params, item.flop)
    assert {r.name: (r.params, r.macs) for r in counted.rows if r.params or r.macs} == _by_scope(graph.rows)
    assert 2 * sum(r.macs for r in counted.rows) == counted.forward_flop  # h (a ModuleList) is not counted twice
    on_cpu = count_module(lambda: onnx_models.gpt2(torch, mask=False)[0], [1, 16], "long", device="cpu")
    assert (on_cpu.params, on_cpu.forward_flop, on_cpu.backward_flop, on_cpu.rows) == \
        (counted.params, counted.forward_flop, counted.backward_flop, counted.rows)
    assert any("packed-sequence" in n for n in counted.notes)


TRANSFORMERS_FACTORIES = """\
import transformers


def gpt2():
    return transformers.GPT2LMHeadModel(transformers.GPT2Config(n_layer=2, n_embd=64, n_head=4, vocab_size=100,
                                                                n_positions=64, use_cache=False))


def bert():
    return transformers.BertForMaskedLM(transformers.BertConfig(num_hidden_layers=2, hidden_size=64,
        num_attention_heads=4, intermediate_size=128, vocab_size=100, max_position_embeddings=64))
"""


@pytest.mark.parametrize("factory", ["gpt2", "bert"])
def test_the_command_counts_transformers_models_on_meta(torch, tmp_path, factory):
    """``count FILE.py:gpt2 --input 2,16 --input-dtype long`` on the meta device (GPT-2 with ``use_cache=False``
    used to fail in transformers' mask code there): parameters = Σ numel, forward and backward FLOP = the
    test's own FlopCounterMode run of the same model on the meta device, with eager attention (GPT-2 given an
    all-ones mask, so transformers does not look for packed sequences; BERT needs none)."""
    import importlib.util

    from torch.utils.flop_counter import FlopCounterMode

    code = tmp_path / "hf.py"
    code.write_text(TRANSFORMERS_FACTORIES, encoding="utf-8")
    out = cli("count", f"{code}:{factory}", "--input", "2,16", "--input-dtype", "long", "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)

    spec = importlib.util.spec_from_file_location("hf_factories", code)
    user = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(user)
    with torch.device("meta"):
        model = getattr(user, factory)()
    model.set_attn_implementation("eager")
    ids = torch.zeros(2, 16, dtype=torch.long, device="meta")
    extra = {"attention_mask": torch.ones_like(ids), "use_cache": False} if factory == "gpt2" else {}
    with FlopCounterMode(display=False) as forward:
        logits = model(input_ids=ids, **extra).logits
    with FlopCounterMode(display=False) as backward:
        logits.sum().backward()
    params = sum(p.numel() for p in model.parameters())  # tied embeddings once
    count = data["count"]
    assert (count["params"], count["forward_flop"], count["backward_flop"]) == \
        (params, forward.get_total_flops(), backward.get_total_flops())
    # the scenario is per example: the batch of 2 sequences divided out
    assert (data["params"], 2 * data["forward_flop"]) == (params, forward.get_total_flops())
    # each module's backward is its own, also where branches share an input (BERT's query, key and value,
    # which FlopCounterMode's module tracker would each charge with all three): the rows add up to the pass
    assert 2 * data["backward_flop"] == backward.get_total_flops()
    rows = data["layers"]
    if factory == "bert":  # a d×d projection of S = 16 positions: weight and input gradient, 2·(2·16·d·d) each
        for branch in ("query", "key", "value"):
            row = next(r for r in rows if r["name"] == f"/bert/encoder/layer/0/attention/self/{branch}")
            assert (row["forward_flop"], row["backward_flop"]) == (2 * 16 * 64 * 64, 2 * (2 * 16 * 64 * 64))
    assert sum(r["params"] for r in rows) == params and sum(r["forward_flop"] for r in rows) == data["forward_flop"]
    blocks = {"gpt2": "/transformer/h/", "bert": "/bert/encoder/layer/"}[factory]
    assert {r["name"].removeprefix(blocks).split("/")[0] for r in rows if r["name"].startswith(blocks)} == {"0", "1"}


def test_totals_equal_the_hand_built_preset(torch):
    from engine.importers.torch_count import count_module
    from engine.presets import presets
    from tests.method1 import torch_nets

    preset = presets()["resnet50"].scenario.method1()
    counted = count_module(torch_nets.resnet50, [1, 3, 224, 224])
    assert (counted.params, counted.forward_flop) == (preset.params, preset.forward_flop)
    convs = [r for r in counted.rows if r.op == "Conv2d"]
    preset_convs = [r for r in preset.architecture.rows if r.type == "conv2d"]
    # the preset's repeats stand for their copies (one row × copies): compare the sums
    assert (sum(r.params for r in convs), sum(r.macs for r in convs)) == \
        (sum(r.params for r in preset_convs), sum(r.macs for r in preset_convs))


def test_backward_follows_requires_grad(torch):
    from engine.importers.torch_count import count_module

    def mlp(frozen: bool):
        def build():
            net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
            net[0].requires_grad_(not frozen)
            return net
        return build

    frozen = count_module(mlp(True), [3, 8])
    assert frozen.forward_flop == 2 * 3 * (8 * 16 + 16 * 4)
    assert frozen.backward_flop == 2 * 3 * 16 * 4  # the last layer's weight gradient only
    assert frozen.trainable_params == 16 * 4 + 4
    trained = count_module(mlp(False), [3, 8])
    assert trained.backward_flop == 2 * 3 * (8 * 16 + 2 * 16 * 4)  # + the first's weight, the last's input gradient
    assert [(r.name, r.backward_macs) for r in trained.rows] == [("/0", 3 * 8 * 16), ("/2", 2 * 3 * 16 * 4)]


def test_the_command_writes_a_scenario_the_dashboard_opens(torch, tmp_path):
    code = tmp_path / "model.py"
    code.write_text("import torch\n\ndef build():\n    return torch.nn.Sequential(torch.nn.Embedding(50, 8), "
                    "torch.nn.Flatten(), torch.nn.Linear(8 * 6, 3))\n", encoding="utf-8")
    saved = tmp_path / "model.json"
    out = cli("count", f"{code}:build", "--input", "2,6", "--input-dtype", "long", "--save", str(saved),
              "--format", "json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    # counted for a batch of 2; the scenario is per example (its training multiplies by the examples)
    assert data["count"]["forward_flop"] == 2 * 2 * 48 * 3
    assert data["params"] == 50 * 8 + 8 * 6 * 3 + 3 and data["forward_flop"] == 2 * 48 * 3
    assert "per example: the counted run's figures ÷ its batch of 2" in " ".join(data["count"]["notes"])
    assert [(r["name"], r["params"]) for r in data["layers"]] == [("/0", 400), ("/2", 147)]
    from engine.scenario import load_scenario_text

    scenario = load_scenario_text(saved.read_text(encoding="utf-8"))
    assert scenario.method1().forward_flop == data["forward_flop"]
    text = cli("count", f"{code}:build", "--input", "2,6", "--input-dtype", "long", "--format", "text").stdout
    assert "backward / run" in text and "extra FLOP is 0" in text


@pytest.mark.parametrize("spec,args,line", [
    ("{code}:nothing", ("--input", "1,4"), "error: MODULE: '{code}' has no function or class named nothing"),
    ("{code}", ("--input", "1,4"), "error: MODULE: write FILE.py:FACTORY"),
    ("{code}:build", ("--input", "1,x4"), "error: --input: '1,x4': write the input's sizes"),
    ("{code}:build", ("--input", "1,0"), "error: --input: '1,0'"),
    ("{code}:build", ("--input", "1,5"), "error: --input: the module's forward or backward pass failed"),
    # an input no machine holds (320 GB): it was 'an unexpected RuntimeError', exit 1
    ("{code}:build", ("--input", "100000,100000,8", "--device", "cpu"),
     "error: --input: an input of shape [100000, 100000, 8] cannot be made on the cpu (RuntimeError: "),
    ("{code}:broken", ("--input", "1,4"), "error: FACTORY: calling it failed: ValueError: no"),
    ("{code}:not_a_module", ("--input", "1,4"), "error: FACTORY: returned int, not a torch.nn.Module"),
    # the user's code ending the program: said (it exited 0 with no output)
    ("{code}:leaves", ("--input", "1,4"), "error: FACTORY: calling it ended the program (SystemExit 0)"),
    ("{code}:build", ("--input", "1,4", "--exit-on-import"), None),
])
def test_bad_input_gives_one_line(torch, tmp_path, spec, args, line):
    code = tmp_path / "m.py"
    code.write_text("import sys\nimport torch\n\ndef build():\n    return torch.nn.Linear(4, 2)\n\n"
                    "def broken():\n    raise ValueError('no')\n\ndef not_a_module():\n    return 3\n\n"
                    "def leaves():\n    sys.exit(0)\n", encoding="utf-8")
    if "--exit-on-import" in args:  # a file that ends the program as it is imported
        args = args[:-1]
        code.write_text("raise SystemExit(3)\n", encoding="utf-8")
        line = "error: MODULE: importing '"  # the path (cut at 80 characters), then the reason:
        assert "ended the program (SystemExit 3)" in cli("count", spec.format(code=code), *args).stderr
    out = cli("count", spec.format(code=code), *args)
    assert out.returncode == 2 and out.stderr.startswith(line.format(code=code)), out.stderr
    assert out.stderr.count("\n") == 1


def test_without_torch_the_command_says_how_to_install_it(monkeypatch, tmp_path):
    import sys

    from engine.importers.torch_count import import_torch

    monkeypatch.setitem(sys.modules, "torch", None)  # import torch now raises ImportError
    with pytest.raises(InputError, match="needs PyTorch, which is not installed: pip install torch"):
        import_torch()
    code = tmp_path / "m.py"
    code.write_text("def build():\n    return None\n", encoding="utf-8")
    out = cli("count", f"{code}:build", "--input", "1,4")
    assert out.returncode == 2 and "needs PyTorch" in out.stderr


def test_frozen_weights_and_trainable_biases_carry_into_the_scenario(torch):
    """BitFit: every weight frozen, every bias trained. The rows keep which of their parameters train, so the
    scenario's trainable parameters (the optimizer's and the planner's) are the biases: 16 + 4."""
    from engine.importers.torch_count import count_module
    from engine.scenario import parse_scenario

    def bitfit():
        net = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))
        for layer in (net[0], net[2]):
            layer.weight.requires_grad_(False)
        return net

    counted = count_module(bitfit, [1, 8])
    assert (counted.params, counted.trainable_params) == (8 * 16 + 16 + 16 * 4 + 4, 16 + 4)
    result = parse_scenario(counted.scenario_data(), "count").method1()
    assert (result.params, result.architecture.trainable_params) == (212, 20)
    # backward: no weight gradient; the input gradient of the last layer (its input comes from a trained bias)
    assert result.backward_flop == counted.backward_flop == 2 * 16 * 4


def test_a_batch_is_divided_out_unless_the_module_mixes_examples(torch):
    """Counted for a batch of 4, the scenario's rows are one example's (= the batch-1 count); a module whose
    figures do not divide by the batch (it appends one example to the batch) keeps one run's rows, and says so."""
    from engine.importers.torch_count import count_module
    from engine.scenario import parse_scenario

    def mlp():
        return torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 4))

    one, four = count_module(mlp, [1, 8]), count_module(mlp, [4, 8])
    assert four.forward_flop == 4 * one.forward_flop == 4 * 2 * (8 * 16 + 16 * 4)
    per_example = parse_scenario(four.scenario_data(), "count").method1()
    assert (per_example.forward_flop, per_example.backward_flop) == (2 * (8 * 16 + 16 * 4), one.backward_flop)

    class Appends(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = torch.nn.Linear(1, 1)

        def forward(self, x):
            return self.fc(torch.cat([x, x[:1]]))  # B + 1 rows: 3 MACs for a batch of 2

    mixed = count_module(Appends, [2, 1])
    assert parse_scenario(mixed.scenario_data(), "count").method1().forward_flop == 2 * 3
    assert any("do not divide by the batch of 2" in n for n in mixed.notes)


def test_a_module_reached_by_two_paths_keeps_all_its_calls(torch):
    """One nn.Linear inside a block and called again from the top (weights shared): its row holds both calls, under
    its first path (the parameters' own) — before, the rows lost one call (FlopCounterMode's tracker files a shared
    module under its last path, and the parent's remainder was cut at 0), and the scenario's total with it."""
    from engine.importers.torch_count import count_module

    def tied():
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.a = torch.nn.Linear(8, 8)
                self.b = torch.nn.Sequential(torch.nn.ReLU(), self.a)

            def forward(self, x):
                return self.b(self.a(x))
        return M()

    counted = count_module(tied, [3, 8])
    assert counted.forward_flop == 2 * 3 * 2 * 8 * 8  # two calls of x·W, 3 rows each
    assert [(r.name, r.macs, r.params) for r in counted.rows] == [("/a", 2 * 3 * 8 * 8, 8 * 8 + 8)]
    assert 2 * sum(r.macs for r in counted.rows) == counted.forward_flop


def test_a_grouped_convolutions_weight_gradient_is_its_arithmetic(torch):
    """Depthwise 3×3 on 32 channels of 16×16: input and weight gradient each = the forward's 2·16²·32·9 FLOP
    (docs/training.md: FlopCounterMode's formula counts the weight gradient ×32); the first convolution (its input
    needs no gradient) its weight gradient only, 2·16²·32·27 — as the layer builder's exact backward."""
    from engine.importers.torch_count import count_module
    from engine.scenario import parse_scenario

    counted = count_module(lambda: torch.nn.Sequential(torch.nn.Conv2d(3, 32, 3, padding=1),
                                                       torch.nn.Conv2d(32, 32, 3, padding=1, groups=32)),
                           [1, 3, 16, 16])
    depthwise = 2 * 16 * 16 * 32 * 9
    assert counted.backward_flop == 2 * 16 * 16 * 32 * 27 + 2 * depthwise
    assert [r.backward_macs for r in counted.rows] == [16 * 16 * 32 * 27, depthwise]
    layers = parse_scenario({"input": {"shape": [16, 16, 3]}, "layers": [
        {"type": "conv2d", "filters": 32, "kernel_size": 3, "padding": 1},
        {"type": "conv2d", "filters": 32, "kernel_size": 3, "padding": 1, "groups": 32}]}).method1()
    assert layers.architecture.backward_flop == counted.backward_flop


def test_attention_on_the_cpu_is_counted_as_on_meta(torch, tmp_path):
    """F.scaled_dot_product_attention with grouped-query heads: on the CPU it runs a fused kernel FlopCounterMode
    has no formula for (it counted 0, silently); now the forward equals the meta device's count: Q·Kᵀ and P·V,
    2·B·H·S²·D each (B 2, H 8 query heads, S 7, D 4), beside the projections."""
    from engine.importers.torch_count import count_module

    def attention():
        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.q, self.kv = torch.nn.Linear(16, 32), torch.nn.Linear(16, 32)

            def forward(self, x):
                b, t, _ = x.shape
                q = self.q(x).view(b, t, 8, 4).transpose(1, 2)
                k, v = self.kv(x).view(b, t, 2, 4, 4).permute(2, 0, 3, 1, 4)
                return torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
        return M()

    meta, cpu = count_module(attention, [2, 7, 16]), count_module(attention, [2, 7, 16], device="cpu")
    products = 2 * 2 * 7 * (16 * 32 + 16 * 32)
    assert meta.forward_flop == cpu.forward_flop == products + 2 * (2 * 2 * 8 * 7 * 7 * 4)
    assert any("Scaled-dot-product attention runs fused" in n for n in cpu.notes)
