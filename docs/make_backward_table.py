"""The measured backward/forward ratio r per net and fine-tuning setting: FLOPscope's layer-by-layer count
against PyTorch's own (``FlopCounterMode`` over ``loss.backward()``, meta device), for docs/training.md.

    python docs/make_backward_table.py      # prints the Markdown table (needs torch and transformers)

Settings: full training; the last 2 blocks (+ what follows them; embeddings frozen); LoRA rank 8 (dense
layers and transformer blocks' q and v; conv, recurrent and multi-head-attention layers have no adapter
kind, so their weights are simply frozen).
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import torch  # noqa: E402
from torch import nn  # noqa: E402

from engine.llm.config import read_hf_config  # noqa: E402
from engine.llm.estimate import TransformerRun, estimate_transformer  # noqa: E402
from engine.llm.library import library_model  # noqa: E402
from engine.method1.architecture import Architecture, evaluate  # noqa: E402
from engine.method1.finetune import FineTune, fine_tuned  # noqa: E402
from engine.presets import presets  # noqa: E402
from tests.llm.hf_reference import build  # noqa: E402
from tests.method1.backward_reference import forward_backward, lora_linear, set_trainable  # noqa: E402
from tests.method1.torch_nets import resnet18, vit_b_16  # noqa: E402

RANK = 8
SEQ = 512


def _ours(input_spec: dict, layers: list[dict]) -> tuple[int, int]:
    arch = evaluate(Architecture.model_validate({"input": input_spec, "layers": layers}))
    return arch.forward_flop, arch.backward_flop


def _lora_all_linear(module, parent_filter=lambda name: True):
    for name, child in list(module.named_children()):
        if isinstance(child, nn.Linear) and parent_filter(name):
            setattr(module, name, lora_linear(torch, child, RANK))
        else:
            _lora_all_linear(child, parent_filter)


# ---------------------------------------------------------------- the nets

def mlp(setting):
    sizes = [784, 512, 512, 10]
    with torch.device("meta"):
        net = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
        layers = [{"type": "dense", "units": 512}, {"type": "activation"}, {"type": "dense", "units": 512},
                  {"type": "activation"}, {"type": "dense", "units": 10}]
        if setting == "last":  # the last two layers
            set_trainable(net[0], False)
            layers[0]["trainable"] = False
        if setting == "lora":
            _lora_all_linear(net)
            layers = fine_tuned(layers, FineTune(mode="lora", rank=RANK))
        x = torch.empty(1, sizes[0])
    return forward_backward(torch, net, x), _ours({"shape": [784]}, layers)


def cnn_lstm(setting):
    scenario = presets()["epoch-cnn-lstm"].scenario
    layers = [layer.model_dump(mode="json") for layer in scenario.layers]
    with torch.device("meta"):
        conv, lstm, fc = nn.Conv2d(5, 16, 5, 2, 2), nn.LSTM(200 * 200 * 16, 256, batch_first=True), nn.Linear(256, 10)
        if setting == "last":  # the LSTM and the classifier
            set_trainable(conv, False)
            layers[0]["trainable"] = False
        if setting == "lora":
            set_trainable(conv, False)
            set_trainable(lstm, False)
            fc = lora_linear(torch, fc, RANK)
            layers = fine_tuned(layers, FineTune(mode="lora", rank=RANK))
        x = torch.empty(20, 5, 400, 400)

    def run(frames):
        maps = conv(frames).permute(0, 2, 3, 1).reshape(1, 20, -1)  # channels last, as the engine flattens
        return fc(lstm(maps)[0][:, -1])

    return forward_backward(torch, run, x), _ours(scenario.input.model_dump(), layers)


def resnet(setting):
    scenario = presets()["resnet18"].scenario
    layers = [layer.model_dump(mode="json") for layer in scenario.layers]
    with torch.device("meta"):
        net = resnet18().eval()
        if setting == "last":  # layer4's two basic blocks and fc
            set_trainable(net, False)
            set_trainable(net.layer4, True)
            set_trainable(net.fc, True)
            layers = fine_tuned(layers, FineTune(mode="last", blocks=1))  # the top-level block 'layer4'
        if setting == "lora":
            set_trainable(net, False)
            net.fc = lora_linear(torch, net.fc, RANK)
            layers = fine_tuned(layers, FineTune(mode="lora", rank=RANK))
        x = torch.empty(1, 3, 224, 224)
    return forward_backward(torch, net, x), _ours(scenario.input.model_dump(), layers)


def vit(setting):
    scenario = presets()["vit_b_16"].scenario
    layers = [layer.model_dump(mode="json") for layer in scenario.layers]
    with torch.device("meta"):
        net = vit_b_16().eval()
        if setting == "last":
            set_trainable(net, False)
            for block in list(net.layers)[-2:]:
                set_trainable(block, True)
            set_trainable(net.ln, True)
            set_trainable(net.heads, True)
            layers = fine_tuned(layers, FineTune(mode="last", blocks=2))
        if setting == "lora":  # the MLPs' and the head's linear layers (attention has no adapter kind here)
            set_trainable(net, False)
            for block in net.layers:
                block.mlp[0] = lora_linear(torch, block.mlp[0], RANK)
                block.mlp[3] = lora_linear(torch, block.mlp[3], RANK)
            net.heads[0] = lora_linear(torch, net.heads[0], RANK)
            layers = fine_tuned(layers, FineTune(mode="lora", rank=RANK))
        x = torch.empty(1, 3, 224, 224)
    return forward_backward(torch, net, x), _ours(scenario.input.model_dump(), layers)


def language_model(model_id, setting):
    from tests.llm.test_backward_hf import _adapt, _blocks

    config = library_model(model_id).config
    family = "gpt2" if config["model_type"] == "gpt2" else "bert"
    model = build(config)
    set_trainable(model, setting == "full")
    blocks = _blocks(model, family)
    if setting == "last":
        for block in list(blocks)[-2:]:
            set_trainable(block, True)
        if family == "gpt2":
            set_trainable(model.transformer.ln_f, True)
        else:
            set_trainable(model.cls.predictions.transform, True)
    if setting == "lora":
        with torch.device("meta"):
            _adapt(torch, family, blocks, RANK, ("q", "v"))
    ids = torch.zeros(1, SEQ, dtype=torch.long, device="meta")
    kwargs = {}
    if family == "gpt2":
        kwargs = {"attention_mask": torch.ones(1, SEQ, dtype=torch.long, device="meta"), "use_cache": False}
    theirs = forward_backward(torch, model, ids, kwargs=kwargs)
    run = {"last": {"trainable_last": 2}, "lora": {"lora_rank": RANK, "lora_targets": ("q", "v")}}.get(setting, {})
    estimate = estimate_transformer(read_hf_config(config), TransformerRun(tokens=1e6, seq_len=SEQ, **run))
    return theirs, (estimate.architecture.forward_flop, estimate.architecture.backward_flop)


NETS = {"MLP 784-512-512-10": mlp, "Epoch CNN-LSTM-FCN": cnn_lstm, "ResNet-18": resnet, "ViT-B/16": vit,
        f"GPT-2 small (T = {SEQ})": lambda s: language_model("gpt2", s),
        f"BERT-base (T = {SEQ})": lambda s: language_model("bert-base-uncased", s)}
SETTINGS = {"full": "full", "last": "last 2 blocks", "lora": f"LoRA r = {RANK}"}


def main() -> None:
    print("| net | setting | r FLOPscope | r PyTorch | backward FLOP FLOPscope | backward FLOP PyTorch |")
    print("|---|---|---|---|---|---|")
    for name, fn in NETS.items():
        for key, label in SETTINGS.items():
            (tf, tb), (of, ob) = fn(key)
            same = "=" if ob == tb else "≠"
            print(f"| {name} | {label} | {ob / of:.3f} | {tb / tf:.3f} | {ob:,} | {tb:,} {same} |", flush=True)


if __name__ == "__main__":
    main()
