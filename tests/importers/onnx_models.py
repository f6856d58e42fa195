"""The test models of the ONNX import, each with the reference figures PyTorch gives for it.

Each is exported with ``torch.onnx.export`` (the TorchScript path, ``dynamo=False``: seconds, and only ``onnx``
needed) with ``training=PRESERVE`` (the exporter's default eval export folds BatchNorm into the convolution
before it) and ``do_constant_folding=False`` (folding writes a tied weight's transpose as a second tensor); both
defaults are checked apart, with their bound, in ``test_onnx_torch.py``. Parameters are drawn at random
before the export: the exporter merges initializers of equal values (every fresh LayerNorm's γ = 1), which a
trained model never has. Exports are cached for the session.

References: Σ ``p.numel()`` over ``parameters()``, and ``FlopCounterMode`` over one forward pass (on the
``meta`` device, where ``nn.LSTM`` decomposes into the matrix products it counts; transformers' models on
the CPU, whose mask code reads values the meta device does not have).
"""
from __future__ import annotations

import io
import time
import warnings
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Exported:
    name: str
    path: Path
    dims: dict
    params: int
    flop: int
    export_s: float
    module: object = None


def _randomize(module, torch):
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.rand(p.shape, generator=gen) * 0.2 - 0.1)
        for name, b in module.named_buffers():
            if b.is_floating_point() and "running_var" in name:
                b.copy_(torch.rand(b.shape, generator=gen) + 0.5)
            elif b.is_floating_point():
                b.copy_(torch.rand(b.shape, generator=gen) * 0.2 - 0.1)


def export(torch, module, args, input_names, dynamic_axes, path: Path, *, meta: bool = True,
           **options) -> tuple[float, int, int]:
    """Export ``module`` to ``path``; (seconds, Σ numel, FlopCounterMode FLOP of one forward pass)."""
    from tests.meta_memo import flop_counter

    module = module.eval()
    _randomize(module, torch)
    params = sum(p.numel() for p in module.parameters())
    kwargs = dict(dynamo=False, training=torch.onnx.TrainingMode.PRESERVE, do_constant_folding=False)
    kwargs.update(options)
    buffer = io.BytesIO()
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, args, buffer, input_names=input_names, dynamic_axes=dynamic_axes, **kwargs)
    seconds = time.perf_counter() - start
    path.write_bytes(buffer.getvalue())
    if meta:
        module = module.to("meta")
        args = tuple(a.to("meta") for a in args)
    with torch.no_grad(), flop_counter() as counter:
        module(*args)
    return seconds, params, counter.get_total_flops()


# ---------------------------------------------------------------- the models

def resnet50(torch):
    from tests.method1 import torch_nets
    return torch_nets.resnet50(), (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def resnet18(torch):
    from tests.method1 import torch_nets
    return torch_nets.resnet18(), (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def mobilenet_v2(torch):
    from tests.method1 import torch_nets
    return torch_nets.MobileNetV2(), (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def mobilenet_v3(torch):
    from tests.importers.mobilenet_v3 import mobilenet_v3_small
    return mobilenet_v3_small(), (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def efficientnet_b0(torch):
    from tests.method1 import torch_nets
    return torch_nets.EfficientNetB0(), (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def vit(torch):
    from tests.method1 import torch_nets
    net = torch_nets.VisionTransformer(image_size=64, patch_size=16, num_layers=2, num_heads=3, hidden_dim=192,
                                       mlp_dim=768, num_classes=10)
    return net, (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def swin_t(torch):
    from tests.method1 import torch_nets
    return torch_nets.SwinTransformer(), (torch.zeros(1, 3, 224, 224),), ["image"], {"image": {0: "batch"}}


def convnext_tiny(torch):
    from tests.method1 import torch_nets
    return torch_nets.ConvNeXt(), (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def shufflenet_v2(torch):
    from tests.method1 import torch_nets
    return torch_nets.ShuffleNetV2(), (torch.zeros(1, 3, 64, 64),), ["image"], {"image": {0: "batch"}}


def lstm(torch):
    class Tagger(torch.nn.Module):
        """Embedding → 2-layer LSTM → linear head on the last step."""

        def __init__(self):
            super().__init__()
            self.embedding = torch.nn.Embedding(100, 32)
            self.lstm = torch.nn.LSTM(32, 64, num_layers=2, batch_first=True)
            self.head = torch.nn.Linear(64, 10)

        def forward(self, tokens):
            out, _ = self.lstm(self.embedding(tokens))
            return self.head(out[:, -1])

    return Tagger(), (torch.zeros(1, 12, dtype=torch.long),), ["tokens"], {"tokens": {0: "batch", 1: "sequence"}}


def gpt2(torch, mask: bool = True):
    import transformers

    class Logits(torch.nn.Module):
        """GPT-2's logits; for the export the attention mask is given, so transformers does not look for packed
        sequences (an ``aten::diff`` the TorchScript exporter lacks); on the meta device it is not (the mask code
        reads values the meta device does not have). The FLOP are the same."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids):
            extra = {"attention_mask": torch.ones_like(input_ids)} if mask else {}
            return self.model(input_ids=input_ids, use_cache=False, return_dict=False, **extra)[0]

    config = transformers.GPT2Config(n_layer=2, n_embd=128, n_head=4, vocab_size=1000, n_positions=64,
                                     bos_token_id=0, eos_token_id=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = transformers.GPT2LMHeadModel._from_config(config, attn_implementation="eager")
    return Logits(model), (torch.zeros(1, 16, dtype=torch.long),), ["input_ids"], \
        {"input_ids": {0: "batch", 1: "sequence"}}


def bert(torch):
    import transformers

    class Encoder(torch.nn.Module):
        """BERT's hidden states and pooled output (so the pooler is in the graph)."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, input_ids):
            out = self.model(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), return_dict=False)
            return out[0], out[1]

    config = transformers.BertConfig(num_hidden_layers=2, hidden_size=128, num_attention_heads=4,
                                     intermediate_size=512, vocab_size=1000, max_position_embeddings=64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = transformers.BertModel._from_config(config, attn_implementation="eager")
    return Encoder(model), (torch.zeros(1, 16, dtype=torch.long),), ["input_ids"], \
        {"input_ids": {0: "batch", 1: "sequence"}}


MODELS = {"resnet50": resnet50, "mobilenet_v2": mobilenet_v2, "mobilenet_v3": mobilenet_v3,
          "efficientnet_b0": efficientnet_b0, "vit": vit, "swin_t": swin_t, "convnext_tiny": convnext_tiny,
          "shufflenet_v2": shufflenet_v2,
          "lstm": lstm, "gpt2": gpt2, "bert": bert}
CPU_REFERENCE = frozenset({"gpt2", "bert"})
DIMS = {"image": {"batch": 1}, "input_ids": {"batch": 1, "sequence": 16}, "tokens": {"batch": 1, "sequence": 12}}
