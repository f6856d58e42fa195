"""Every vision preset against torchvision's definition (rewritten in torch.nn, ``torch_nets.py``):
parameters = Σ p.numel(), matmul forward FLOP = FlopCounterMode on the meta device, exactly."""
from __future__ import annotations

import pytest

from engine.presets import presets
from engine.share_link import encode

PUBLISHED_PARAMS = {
    # torchvision's model cards (num_params); Inception-v3 less its auxiliary classifier (27,161,264 with it)
    "resnet18": 11_689_512, "resnet50": 25_557_032, "mobilenet_v2": 3_504_872, "efficientnet_b0": 5_288_548,
    "inception_v3": 23_834_568, "densenet121": 7_978_856, "vit_b_16": 86_567_656,
    "shufflenet_v2_x1_0": 2_278_604, "swin_t": 28_288_354, "convnext_tiny": 28_589_128,
}
PUBLISHED_GFLOPS = {  # torchvision's model cards: GFLOPS, which are G multiply-accumulates (2 decimals)
    "resnet18": 1.81, "resnet50": 4.09, "mobilenet_v2": 0.30, "efficientnet_b0": 0.39, "inception_v3": 5.71,
    "densenet121": 2.83, "vit_b_16": 17.56, "shufflenet_v2_x1_0": 0.14, "swin_t": 4.49, "convnext_tiny": 4.46,
}


@pytest.mark.parametrize("preset_id", ["resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "inception_v3",
                                       "densenet121", "vit_b_16", "unet", "shufflenet_v2_x1_0", "swin_t",
                                       "convnext_tiny"])
def test_preset_matches_torch_exactly(torch, preset_id):
    from tests.method1.torch_nets import REFERENCE_NETS, count

    make, chw = REFERENCE_NETS[preset_id]
    params, flop = count(make, chw)
    est = presets()[preset_id].scenario.method1()
    assert (est.params, est.forward_flop) == (params, flop)
    if preset_id in PUBLISHED_PARAMS:
        assert params == PUBLISHED_PARAMS[preset_id]
        assert round(flop / 2e9, 2) == PUBLISHED_GFLOPS[preset_id]


def test_resnet50_share_link_is_short():
    assert len("https://flopscope.streamlit.app/?s=" + encode(presets()["resnet50"].scenario)) < 2_000


def test_full_convention_adds_the_merges_and_the_norms():
    # ResNet-18, full − matmul: the 8 residual adds are one FLOP per output value each
    est = {c: presets()["resnet18"].scenario.model_copy(update={"convention": c}).method1()
           for c in ("matmul", "full")}
    rows = est["full"].architecture.rows
    adds = [r for r in rows if r.type == "add"]
    sizes = [56 * 56 * 64] * 2 + [28 * 28 * 128] * 2 + [14 * 14 * 256] * 2 + [7 * 7 * 512] * 2
    assert sorted(r.forward_flop for r in adds) == sorted(sizes)
    assert est["full"].forward_flop > est["matmul"].forward_flop


def test_googlenet_needs_no_padding_trick(torch):
    """GoogLeNet (not a preset), written with pools that round up (ceil_mode), as torchvision writes it:
    exact against its torch.nn twin and torchvision's model card (6,624,904 parameters, 1.50 GFLOPS)."""
    from engine.method1.architecture import Architecture, evaluate
    from tests.method1.googlenet import googlenet
    from tests.method1.torch_nets import GoogLeNet, count

    shape, layers = googlenet()
    result = evaluate(Architecture.model_validate({"input": {"shape": shape}, "layers": layers}))
    params, flop = count(GoogLeNet, (3, 224, 224))
    assert (result.params, result.forward_flop) == (params, flop)
    assert params == 6_624_904 and round(flop / 2e9, 2) == 1.50


@pytest.mark.parametrize("preset_id", ["shufflenet_v2_x1_0", "swin_t", "convnext_tiny"])
def test_new_presets_backward_matches_torch_exactly(torch, preset_id):
    """The backward pass of the nets with the new kinds (channel split and shuffle, window attention, patch
    merging, layer scale, stochastic depth): FlopCounterMode over out.sum().backward() on meta, every
    parameter trainable, no input gradient (tests/method1/backward_reference.py)."""
    from engine.method1.architecture import evaluate
    from tests.method1.backward_reference import forward_backward
    from tests.method1.torch_nets import REFERENCE_NETS

    make, chw = REFERENCE_NETS[preset_id]
    with torch.device("meta"):
        net = make().eval()
        x = torch.empty(1, *chw)
    forward, backward = forward_backward(torch, net, x)
    result = evaluate(presets()[preset_id].scenario.architecture())
    assert (result.forward_flop, result.backward_flop) == (forward, backward)
