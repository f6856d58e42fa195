"""torchvision's MobileNetV3-Small (torchvision/models/mobilenetv3.py, v0.20) in plain ``torch.nn``, as
``tests/method1/torch_nets.py`` rewrites the others (torchvision does not install beside the CPU torch).
Its model card: 2,542,856 parameters (``test_onnx_torch.py`` checks the rewrite against it)."""
from __future__ import annotations

from torch import nn

from tests.method1.torch_nets import _make_divisible, conv_bn_act

SMALL = [  # input, kernel, expanded, output, squeeze-excite, activation, stride
    (16, 3, 16, 16, True, "RE", 2), (16, 3, 72, 24, False, "RE", 2), (24, 3, 88, 24, False, "RE", 1),
    (24, 5, 96, 40, True, "HS", 2), (40, 5, 240, 40, True, "HS", 1), (40, 5, 240, 40, True, "HS", 1),
    (40, 5, 120, 48, True, "HS", 1), (48, 5, 144, 48, True, "HS", 1), (48, 5, 288, 96, True, "HS", 2),
    (96, 5, 576, 96, True, "HS", 1), (96, 5, 576, 96, True, "HS", 1),
]


class SqueezeExcitation(nn.Module):
    def __init__(self, channels, squeeze):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1, self.fc2 = nn.Conv2d(channels, squeeze, 1), nn.Conv2d(squeeze, channels, 1)
        self.activation, self.scale_activation = nn.ReLU(), nn.Hardsigmoid()

    def forward(self, x):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
        return scale * x


class InvertedResidual(nn.Module):
    def __init__(self, inp, k, exp, out, se, act, stride):
        super().__init__()
        act = nn.Hardswish if act == "HS" else nn.ReLU
        self.use_res_connect = stride == 1 and inp == out
        layers = []
        if exp != inp:
            layers.append(conv_bn_act(inp, exp, 1, act=act))
        layers.append(conv_bn_act(exp, exp, k, stride, groups=exp, act=act))
        if se:
            layers.append(SqueezeExcitation(exp, _make_divisible(exp // 4, 8)))
        layers.append(conv_bn_act(exp, out, 1, act=None))
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        y = self.block(x)
        return y + x if self.use_res_connect else y


class MobileNetV3(nn.Module):
    def __init__(self, settings=SMALL, last_channel=1024, num_classes=1000):
        super().__init__()
        layers = [conv_bn_act(3, settings[0][0], 3, 2, act=nn.Hardswish)]
        layers += [InvertedResidual(*s) for s in settings]
        last_in = settings[-1][3]
        layers.append(conv_bn_act(last_in, 6 * last_in, 1, act=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(6 * last_in, last_channel), nn.Hardswish(inplace=True),
                                        nn.Dropout(0.2, inplace=True), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)).flatten(1))


def mobilenet_v3_small():
    return MobileNetV3()
