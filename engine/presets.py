"""Preset scenarios, each with its source: the seed's worked example and published training runs."""
from __future__ import annotations

from functools import lru_cache

from pydantic import BaseModel, ConfigDict

from engine.llm.presets import GPT3_175B_CONFIG, LLAMA2_7B_CONFIG, transformer_scenario
from engine.scenario import Scenario

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
        "id": "seed-cnn-lstm",
        "title": "Seed example: CNN-LSTM-FCN video classifier",
        "source": "Sevilla et al. (2022), 'Estimating Training Compute of Deep Learning Models', Epoch AI — "
                  "https://epoch.ai/blog/estimating-training-compute (worked example)",
        "notes": "Sequences of 20 images 400×400×5 → CNN (16 filters 5×5×5, stride 2, padding 2) → 200×200×16 "
                 "→ flatten (640,000) → LSTM 256 (many-to-one) → FC 10; 10 epochs × 100 batches × 128. "
                 "Correct total ≈ 1.13e16 FLOP. The seed states CNN ≈ 1.024e12 = 2·(400·400·5)·(200·200·16): "
                 "the convolution counted as if fully connected (6,400× too high, 2·H′·W′·D·K²·C = 1.6e8 is "
                 "right), and its total 7.86e18 keeps only that figure and drops the LSTM.",
        "scenario": {
            "name": "Seed CNN-LSTM-FCN",
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
        "scenario": transformer_scenario(GPT3_175B_CONFIG, "GPT-3 175B", 300e9),
    },
    {
        "id": "llama2-7b",
        "title": "Llama 2 7B (Touvron et al. 2023) — transformer blocks",
        "source": "Touvron et al. (2023), 'Llama 2: Open Foundation and Fine-Tuned Chat Models', Table 1, "
                  "https://arxiv.org/abs/2307.09288 ; config: https://huggingface.co/meta-llama/Llama-2-7b-hf",
        "notes": "32 blocks, d_model 4,096, 32 heads, SwiGLU 11,008, RMSNorm, untied head, vocabulary 32,000; "
                 "2.0T tokens in sequences of 4,096. 6,738,415,616 parameters; 6·N·D = 8.09e22, the block count "
                 "9.22e22 (+14%: attention over 4,096 positions).",
        "scenario": transformer_scenario(LLAMA2_7B_CONFIG, "Llama 2 7B", 2e12),
    },
]


@lru_cache(maxsize=1)
def presets() -> dict[str, Preset]:
    """Every preset by id, validated."""
    return {p["id"]: Preset.model_validate(p) for p in _PRESETS}
