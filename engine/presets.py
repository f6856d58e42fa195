"""Preset scenarios, each with its source: Epoch AI's worked example and published training runs."""

from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from .method1 import vision_nets as nets
from .scenario import Scenario
from .shipped import ShippedDataError

OPENAI_APPENDIX = "https://openai.com/index/ai-and-compute/#appendixmethods"


class Preset(BaseModel):
    model_config = ConfigDict(frozen=True)
    id: str
    title: str
    source: str
    notes: str
    scenario: Scenario


def _conv(filters, k, s=1, p=0, g=1):
    return {"type": "conv2d", "filters": filters, "kernel_size": k, "stride": s, "padding": p, "groups": g}


RELU = {"type": "activation", "function": "relu"}


def _vgg16_layers() -> list[dict]:
    layers: list[dict] = []
    for filters, convs in ((64, 2), (128, 2), (256, 3), (512, 3), (512, 3)):
        for _ in range(convs):
            layers += [_conv(filters, 3, 1, 1), RELU]
        layers.append({"type": "max_pool2d", "kernel_size": 2, "stride": 2})
    layers.append({"type": "flatten"})
    for units in (4096, 4096):
        layers += [{"type": "dense", "units": units}, RELU, {"type": "dropout", "rate": 0.5}]
    layers.append({"type": "dense", "units": 1000})
    return layers


def _alexnet_layers() -> list[dict]:
    pool = {"type": "max_pool2d", "kernel_size": 3, "stride": 2}
    # Two GPUs: conv2, conv4 and conv5 see only their own GPU's half of the channels (groups = 2).
    return [
        _conv(96, 11, 4), RELU, pool,
        _conv(256, 5, 1, 2, g=2), RELU, pool,
        _conv(384, 3, 1, 1), RELU,
        _conv(384, 3, 1, 1, g=2), RELU,
        _conv(256, 3, 1, 1, g=2), RELU, pool,
        {"type": "flatten"},
        {"type": "dense", "units": 4096}, RELU, {"type": "dropout", "rate": 0.5},
        {"type": "dense", "units": 4096}, RELU, {"type": "dropout", "rate": 0.5},
        {"type": "dense", "units": 1000},
    ]


_PRESETS: list[dict] = [
    {
        "id": "epoch-cnn-lstm",
        "title": "Epoch AI's worked example: CNN-LSTM-FCN video classifier (Sevilla et al. 2022)",
        "source": "Sevilla et al. (2022), 'Estimating Training Compute of Deep Learning Models', Epoch AI — "
                  "https://epoch.ai/blog/estimating-training-compute (worked example)",
        "notes": "Sequences of 20 images 400×400×5 → CNN (16 filters 5×5×5, stride 2, padding 2) → 200×200×16 "
                 "→ flatten (640,000) → LSTM 256 (many-to-one) → FC 10; 10 epochs × 100 batches × 128. "
                 "Correct total ≈ 1.13e16 FLOP. The article states CNN ≈ 1.024e12 = 2·(400·400·5)·(200·200·16): "
                 "the convolution counted as if fully connected (6,400× too high, 2·H′·W′·D·K²·C = 1.6e8 is "
                 "right), and its total 7.86e18 keeps only that figure and drops the LSTM.",
        "scenario": {
            "name": "Epoch AI worked example (CNN-LSTM-FCN)",
            "input": {"shape": [400, 400, 5], "sequence_length": 20},
            "layers": [_conv(16, 5, 2, 2), {"type": "flatten"}, {"type": "lstm", "units": 256},
                       {"type": "dense", "units": 10}],
            "training": {"epochs": 10, "batches_per_epoch": 100, "batch_size": 128},
        },
    },
    {
        "id": "dqn",
        "title": "DQN (Mnih et al. 2013, Atari)",
        "source": "Mnih et al. (2013), 'Playing Atari with Deep Reinforcement Learning', "
                  "https://arxiv.org/abs/1312.5602 ; training as in OpenAI's appendix: " + OPENAI_APPENDIX,
        "notes": "84×84×4 frames → conv 16 8×8/4 → conv 32 4×4/2 → FC 256 → FC 4 actions (games use 4–18). "
                 "OpenAI: ~2.5M add-multiplies per forward, 5M updates × batch 32 → 2.3 PFLOP; the layer "
                 "count here is 2.97M MACs.",
        "scenario": {
            "name": "DQN",
            "input": {"shape": [84, 84, 4]},
            "layers": [_conv(16, 8, 4), RELU, _conv(32, 4, 2), RELU, {"type": "flatten"},
                       {"type": "dense", "units": 256}, RELU, {"type": "dense", "units": 4}],
            "training": {"epochs": 1, "batches_per_epoch": 5_000_000, "batch_size": 32},
        },
    },
    {
        "id": "alexnet",
        "title": "AlexNet (Krizhevsky et al. 2012)",
        "source": "Krizhevsky, Sutskever, Hinton (2012), 'ImageNet Classification with Deep Convolutional Neural "
                  "Networks', https://papers.nips.cc/paper/4824 ; OpenAI appendix: " + OPENAI_APPENDIX,
        "notes": "227×227×3 input (the paper's 224 does not give its 55×55 maps), two-GPU grouped convolutions; "
                 "1.2M images × 90 epochs. OpenAI: 0.75 G add-multiplies per forward → 470 PFLOP.",
        "scenario": {
            "name": "AlexNet",
            "input": {"shape": [227, 227, 3]},
            "layers": _alexnet_layers(),
            "training": {"epochs": 90, "examples": 1_200_000},
        },
    },
    {
        "id": "vgg16",
        "title": "VGG-16 (Simonyan & Zisserman 2014)",
        "source": "Simonyan & Zisserman (2014), 'Very Deep Convolutional Networks for Large-Scale Image "
                  "Recognition', https://arxiv.org/abs/1409.1556 ; OpenAI appendix: " + OPENAI_APPENDIX,
        "notes": "224×224×3, 13 conv 3×3 + 3 FC; 1.2M images × 74 epochs. OpenAI used 16 G add-multiplies "
                 "per forward → 8,524 PFLOP; the layer count here is 15.47 G MACs.",
        "scenario": {
            "name": "VGG-16",
            "input": {"shape": [224, 224, 3]},
            "layers": _vgg16_layers(),
            "training": {"epochs": 74, "examples": 1_200_000},
        },
    },
    {
        "id": "seq2seq",
        "title": "Seq2Seq (Sutskever et al. 2014) — published ops per forward",
        "source": "Sutskever, Vinyals, Le (2014), https://arxiv.org/abs/1409.3215 ; OpenAI appendix: "
                  + OPENAI_APPENDIX,
        "notes": "OpenAI: (348M + 304M) words × 0.380 GF × 2 × 3 × 7.5 epochs. Those inputs give 1.1e19 FLOP; "
                 "the appendix prints 7,300 PF (7.3e18), which does not follow from them.",
        "scenario": {
            "name": "Seq2Seq", "mode": "quick",
            "quick": {"kind": "ops_per_forward", "value": 0.380e9, "unit": "macs"},
            "training": {"epochs": 7.5, "examples": 652_000_000},
        },
    },
    {
        "id": "deepspeech2",
        "title": "DeepSpeech2 (Amodei et al. 2015) — published ops per time step",
        "source": "Amodei et al. (2015), https://arxiv.org/abs/1512.02595 ; OpenAI appendix: " + OPENAI_APPENDIX,
        "notes": "98 M add-multiplies per time step; 12,000 h of audio × 3,600 s/h × 50 steps/s per epoch, "
                 "20 epochs → 26,000 PFLOP.",
        "scenario": {
            "name": "DeepSpeech2", "mode": "quick",
            "quick": {"kind": "ops_per_forward", "value": 98e6, "unit": "macs"},
            "training": {"epochs": 20, "examples": 12_000 * 3_600 * 50},
        },
    },
    {
        "id": "nas",
        "title": "Neural Architecture Search (Zoph & Le 2016) — published ops per forward",
        "source": "Zoph & Le (2016), https://arxiv.org/abs/1611.01578 ; OpenAI appendix: " + OPENAI_APPENDIX,
        "notes": "12,800 child networks × 50,000 images × 50 epochs at 10.0 G add-multiplies → 1.9e6 PFLOP.",
        "scenario": {
            "name": "NAS", "mode": "quick",
            "quick": {"kind": "ops_per_forward", "value": 10.0e9, "unit": "macs"},
            "training": {"epochs": 50, "examples": 50_000 * 12_800},
        },
    },
    {
        "id": "gpt3-175b",
        "title": "GPT-3 175B (Brown et al. 2020) — transformer blocks",
        "source": "Brown et al. (2020), 'Language Models are Few-Shot Learners', Table 2.1 and App. D, "
                  "https://arxiv.org/abs/2005.14165",
        "notes": "96 blocks, d_model 12,288, 96 heads of 128, context 2,048, vocabulary 50,257 (tied), learned "
                 "positions; 300B tokens = 146,484,375 sequences of 2,048. The paper's 3.14e23 FLOP is 6·N·D; "
                 "the block count (every attention layer counted dense, though GPT-3 alternates dense and "
                 "banded sparse ones) adds attention over the context and the output layer: 3.23e23, +2.8%.",
        "scenario": lambda: _language_model("GPT3_175B_CONFIG", "GPT-3 175B", 300e9),
    },
    {
        "id": "llama2-7b",
        "title": "Llama 2 7B (Touvron et al. 2023) — transformer blocks",
        "source": "Touvron et al. (2023), 'Llama 2: Open Foundation and Fine-Tuned Chat Models', Table 1, "
                  "https://arxiv.org/abs/2307.09288 ; config: https://huggingface.co/meta-llama/Llama-2-7b-hf",
        "notes": "32 blocks, d_model 4,096, 32 heads, SwiGLU 11,008, RMSNorm, untied head, vocabulary 32,000; "
                 "2.0T tokens in sequences of 4,096. 6,738,415,616 parameters; 6·N·D = 8.09e22, the block count "
                 "9.22e22 (+14%: attention over 4,096 positions).",
        "scenario": lambda: _language_model("LLAMA2_7B_CONFIG", "Llama 2 7B", 2e12),
    },
]


TORCHVISION = "torchvision's definition: https://github.com/pytorch/vision/blob/v0.20.0/torchvision/models/"
IMAGENET_IMAGES = 1_281_167
"""ImageNet-1k (ILSVRC 2012) training images (Russakovsky et al. 2015, Table 2)."""
PARITY = ("Parameters and matmul forward FLOP equal torchvision's model in eval mode (Σ p.numel(); "
          "FlopCounterMode on the meta device) exactly. ")


def _language_model(config: str, name: str, tokens: float) -> dict:
    """A published language model's scenario from its config (``engine.llm.presets``), read when asked for."""
    from .llm import presets as llm

    return llm.transformer_scenario(getattr(llm, config), name, tokens)


def _vision(id_, title, source, notes, net, training) -> dict:
    """A vision preset; ``net`` makes its (input shape, layers) when the preset is asked for."""

    def scenario() -> dict:
        shape, layers = net()
        data = {"name": title.split(" (")[0], "input": {"shape": shape}, "layers": layers}
        return {**data, "training": training} if training else data

    return {"id": id_, "title": title, "source": source, "notes": PARITY + notes, "scenario": scenario}


_PRESETS += [
    _vision("resnet18", "ResNet-18 (He et al. 2016)",
            "He, Zhang, Ren, Sun (2016), 'Deep Residual Learning for Image Recognition', "
            "https://arxiv.org/abs/1512.03385 ; " + TORCHVISION + "resnet.py",
            "224×224×3; 4 stages of 2 basic blocks (two 3×3 convolutions and a residual; a strided 1×1 "
            "projection where the shape changes). 90 epochs of ImageNet-1k (torchvision's recipe).",
            lambda: nets.resnet((2, 2, 2, 2), bottleneck=False), {"epochs": 90, "examples": IMAGENET_IMAGES}),
    _vision("resnet50", "ResNet-50 (He et al. 2016)",
            "He et al. (2016), https://arxiv.org/abs/1512.03385 ; " + TORCHVISION + "resnet.py",
            "224×224×3; 3, 4, 6, 3 bottleneck blocks (1×1, 3×3 with the stride (v1.5), 1×1 to 4× the width), "
            "written as repeats. 4.09 G MACs. 90 epochs of ImageNet-1k (torchvision's recipe).",
            lambda: nets.resnet((3, 4, 6, 3), bottleneck=True), {"epochs": 90, "examples": IMAGENET_IMAGES}),
    _vision("mobilenet_v2", "MobileNetV2 (Sandler et al. 2018)",
            "Sandler et al. (2018), 'MobileNetV2: Inverted Residuals and Linear Bottlenecks', "
            "https://arxiv.org/abs/1801.04381 ; " + TORCHVISION + "mobilenetv2.py",
            "224×224×3; inverted residuals (1×1 expansion ×6, 3×3 depthwise convolution (groups = channels), "
            "linear 1×1 projection; residual where stride 1 and widths equal), ReLU6. 300 epochs of ImageNet-1k "
            "(torchvision's recipe).",
            lambda: nets.mobilenet_v2(), {"epochs": 300, "examples": IMAGENET_IMAGES}),
    _vision("efficientnet_b0", "EfficientNet-B0 (Tan & Le 2019)",
            "Tan & Le (2019), 'EfficientNet: Rethinking Model Scaling for CNNs', https://arxiv.org/abs/1905.11946 ; "
            + TORCHVISION + "efficientnet.py",
            "224×224×3; MBConv blocks with squeeze-excite (global pooling → 1×1 → SiLU → 1×1 → sigmoid, "
            "multiplied into the block by broadcasting), SiLU; stochastic depth is the identity in eval mode. "
            "350 epochs of ImageNet-1k: the authors' TPU training script (tensorflow/tpu, "
            "models/official/efficientnet/main.py: 218,949 steps of 2,048 images).",
            lambda: nets.efficientnet_b0(), {"epochs": 350, "examples": IMAGENET_IMAGES}),
    _vision("inception_v3", "Inception-v3 (Szegedy et al. 2016), without the auxiliary classifier",
            "Szegedy et al. (2016), 'Rethinking the Inception Architecture for Computer Vision', "
            "https://arxiv.org/abs/1512.00567 ; " + TORCHVISION + "inception.py",
            "299×299×3; parallel branches merged by concatenation (Mixed_5b … Mixed_7c, the 7c/7b branches split "
            "again into 1×3 and 3×1), aux_logits off. 100 epochs (section 8: 50 replicas, batch 32, 100 epochs) "
            "of ImageNet-1k.",
            lambda: nets.inception_v3(), {"epochs": 100, "examples": IMAGENET_IMAGES}),
    _vision("densenet121", "DenseNet-121 (Huang et al. 2017)",
            "Huang et al. (2017), 'Densely Connected Convolutional Networks', https://arxiv.org/abs/1608.06993 ; "
            + TORCHVISION + "densenet.py",
            "224×224×3; growth 32, blocks of 6, 12, 24, 16 layers, each layer's 32 new channels concatenated to "
            "its input (a branch beside the identity, repeated); transitions halve the channels. 90 epochs of "
            "ImageNet-1k, batch 256 (Huang et al., section 4.2).",
            lambda: nets.densenet((6, 12, 24, 16)),
            {"epochs": 90, "examples": IMAGENET_IMAGES, "batch_size": 256}),
    _vision("vit_b_16", "ViT-B/16 (Dosovitskiy et al. 2021)",
            "Dosovitskiy et al. (2021), 'An Image is Worth 16x16 Words', https://arxiv.org/abs/2010.11929 ; "
            + TORCHVISION + "vision_transformer.py",
            "224×224×3; a 16×16/16 patchify convolution → 196 tokens of 768, a class token (197), a learned "
            "position table, 12 pre-norm encoder blocks (attention and MLP 3,072, each a residual), the class "
            "token → 1,000 classes. 300 epochs of ImageNet-1k (Table 3; torchvision's recipe).",
            lambda: nets.vit(), {"epochs": 300, "examples": IMAGENET_IMAGES}),
    _vision("unet", "U-Net (Ronneberger et al. 2015), padded convolutions, 512×512",
            "Ronneberger, Fischer, Brox (2015), 'U-Net: Convolutional Networks for Biomedical Image "
            "Segmentation', https://arxiv.org/abs/1505.04597",
            "512×512×1 input (padded 3×3 convolutions keep the sizes, so the skips need no cropping), "
            "64…1,024 channels, 2×2 up-convolutions, skip concatenation, 1×1 to 2 classes; no batch norm, as in "
            "the paper. Training: the ISBI 2012 set's 30 images; the paper gives no epoch count, so 1 epoch "
            "here: set your own. Reference: the same net written in torch.nn (U-Net is not in torchvision).",
            lambda: nets.unet(), {"epochs": 1, "examples": 30}),
    _vision("shufflenet_v2_x1_0", "ShuffleNetV2 ×1.0 (Ma et al. 2018)",
            "Ma, Zhang, Zheng, Sun (2018), 'ShuffleNet V2: Practical Guidelines for Efficient CNN Architecture "
            "Design', https://arxiv.org/abs/1807.11164 ; " + TORCHVISION + "shufflenetv2.py",
            "224×224×3; units of two branches concatenated and their channels shuffled in 2 groups: at stride 1 "
            "a channel split passes one half and convolves the other (1×1, 3×3 depthwise, 1×1), at stride 2 "
            "both branches convolve the whole input; 4, 8, 4 units of 116, 232, 464 channels, 1×1 to 1,024, "
            "global pooling. ImageNet-1k; the paper states no epoch count, so 1 epoch here: set your own.",
            lambda: nets.shufflenet_v2(), {"epochs": 1, "examples": IMAGENET_IMAGES}),
    _vision("swin_t", "Swin-T (Liu et al. 2021)",
            "Liu et al. (2021), 'Swin Transformer: Hierarchical Vision Transformer using Shifted Windows', "
            "https://arxiv.org/abs/2103.14030 ; " + TORCHVISION + "swin_transformer.py",
            "224×224×3; a 4×4/4 patchify convolution → a 56×56 grid of 96; 2, 2, 6, 2 blocks of attention "
            "inside 7×7 windows (shifted by 3 every other block; 3, 6, 12, 24 heads; relative position bias "
            "tables) and an MLP (4×), each a pre-norm residual with stochastic depth up to 0.2; patch merging "
            "between stages (2×2 → 4C → 2C). 300 epochs of ImageNet-1k (section 4.1).",
            lambda: nets.swin(), {"epochs": 300, "examples": IMAGENET_IMAGES}),
    _vision("convnext_tiny", "ConvNeXt-T (Liu et al. 2022)",
            "Liu et al. (2022), 'A ConvNet for the 2020s', https://arxiv.org/abs/2201.03545 ; "
            + TORCHVISION + "convnext.py",
            "224×224×3; a 4×4/4 patchify convolution; 3, 3, 9, 3 blocks of 96, 192, 384, 768 channels (7×7 "
            "depthwise convolution, layer norm, an MLP of 4× at every position, layer scale, stochastic depth up "
            "to 0.1, in a residual); a norm and a 2×2/2 convolution between stages. 300 epochs of ImageNet-1k "
            "(section 2 and appendix A.1).",
            lambda: nets.convnext(), {"epochs": 300, "examples": IMAGENET_IMAGES}),
]


_BY_ID = {p["id"]: p for p in _PRESETS}
if len(_BY_ID) != len(_PRESETS):
    raise ValueError("two presets share an id")


def preset_ids() -> tuple[str, ...]:
    """Every preset's id, in order, without building any of them."""
    return tuple(_BY_ID)


@lru_cache(maxsize=None)
def preset(preset_id: str) -> Preset:
    """One preset, validated; only its own architecture is built (``KeyError`` for an unknown id)."""
    entry = _BY_ID[preset_id]
    scenario = entry["scenario"]
    return Preset.model_validate({**entry, "scenario": scenario() if callable(scenario) else scenario})


@lru_cache(maxsize=1)
def _built() -> tuple[dict[str, Preset], dict[str, ShippedDataError]]:
    """(every preset by id, validated; the ids left out because a shipped file their scenario is read with is
    broken: a language model read from its config needs ``config_keys.json``). A broken data file leaves out those
    presets, never the page."""
    built, left_out = {}, {}
    for preset_id in _BY_ID:
        try:
            built[preset_id] = preset(preset_id)
        except ShippedDataError as exc:
            left_out[preset_id] = exc
    return built, left_out


def presets() -> dict[str, Preset]:
    """Every preset by id, validated (those whose data file is broken left out: ``unavailable_presets``)."""
    return _built()[0]


def unavailable_presets() -> dict[str, ShippedDataError]:
    """The presets left out, each with the broken data file's error."""
    return _built()[1]
