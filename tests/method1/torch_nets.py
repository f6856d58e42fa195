"""torchvision's model definitions, rewritten in plain ``torch.nn`` (torchvision does not install beside
the pinned CPU torch). Each follows torchvision/models/<name>.py (v0.20): the same modules, the same
order, the same options, so that Σ ``p.numel()`` and ``FlopCounterMode`` give torchvision's figures.
They are the independent reference of the presets: nothing here imports the engine.
"""
from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def conv_bn_act(inp, out, k=3, stride=1, groups=1, act=nn.ReLU, padding=None):
    """torchvision.ops.Conv2dNormActivation: conv (no bias), BatchNorm2d, activation."""
    padding = (k - 1) // 2 if padding is None else padding
    layers = [nn.Conv2d(inp, out, k, stride, padding, groups=groups, bias=False), nn.BatchNorm2d(out)]
    if act is not None:
        layers.append(act(inplace=True) if act in (nn.ReLU, nn.ReLU6, nn.SiLU) else act())
    return nn.Sequential(*layers)


# ---------------------------------------------------------------- resnet.py

class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(planes, planes, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None):
        super().__init__()
        width = planes
        self.conv1 = nn.Conv2d(inplanes, width, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, width, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = nn.Conv2d(width, planes * 4, 1, bias=False)
        self.bn3 = nn.BatchNorm2d(planes * 4)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.relu(self.bn2(self.conv2(out)))
        out = self.bn3(self.conv3(out))
        return self.relu(out + identity)


class ResNet(nn.Module):
    def __init__(self, block, layers, num_classes=1000):
        super().__init__()
        self.inplanes = 64
        self.conv1 = nn.Conv2d(3, 64, 7, 2, 3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        self.layer1 = self._make_layer(block, 64, layers[0])
        self.layer2 = self._make_layer(block, 128, layers[1], 2)
        self.layer3 = self._make_layer(block, 256, layers[2], 2)
        self.layer4 = self._make_layer(block, 512, layers[3], 2)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(512 * block.expansion, num_classes)

    def _make_layer(self, block, planes, blocks, stride=1):
        downsample = None
        if stride != 1 or self.inplanes != planes * block.expansion:
            downsample = nn.Sequential(nn.Conv2d(self.inplanes, planes * block.expansion, 1, stride, bias=False),
                                       nn.BatchNorm2d(planes * block.expansion))
        layers = [block(self.inplanes, planes, stride, downsample)]
        self.inplanes = planes * block.expansion
        layers += [block(self.inplanes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def resnet18():
    return ResNet(BasicBlock, [2, 2, 2, 2])


def resnet50():
    return ResNet(Bottleneck, [3, 4, 6, 3])


def resnet152():
    return ResNet(Bottleneck, [3, 8, 36, 3])


# ---------------------------------------------------------------- mobilenetv2.py

def _make_divisible(v, divisor=8, min_value=None):
    min_value = min_value or divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


class InvertedResidual(nn.Module):
    def __init__(self, inp, oup, stride, expand_ratio):
        super().__init__()
        hidden_dim = int(round(inp * expand_ratio))
        self.use_res_connect = stride == 1 and inp == oup
        layers = []
        if expand_ratio != 1:
            layers.append(conv_bn_act(inp, hidden_dim, 1, act=nn.ReLU6))
        layers += [conv_bn_act(hidden_dim, hidden_dim, 3, stride, groups=hidden_dim, act=nn.ReLU6),
                   nn.Conv2d(hidden_dim, oup, 1, 1, 0, bias=False), nn.BatchNorm2d(oup)]
        self.conv = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.conv(x) if self.use_res_connect else self.conv(x)


class MobileNetV2(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        input_channel, last_channel = 32, 1280
        settings = [[1, 16, 1, 1], [6, 24, 2, 2], [6, 32, 3, 2], [6, 64, 4, 2], [6, 96, 3, 1], [6, 160, 3, 2],
                    [6, 320, 1, 1]]
        features = [conv_bn_act(3, input_channel, stride=2, act=nn.ReLU6)]
        for t, c, n, s in settings:
            output_channel = _make_divisible(c)
            for i in range(n):
                features.append(InvertedResidual(input_channel, output_channel, s if i == 0 else 1, t))
                input_channel = output_channel
        features.append(conv_bn_act(input_channel, last_channel, 1, act=nn.ReLU6))
        self.features = nn.Sequential(*features)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last_channel, num_classes))

    def forward(self, x):
        x = F.adaptive_avg_pool2d(self.features(x), (1, 1))
        return self.classifier(torch.flatten(x, 1))


# ---------------------------------------------------------------- efficientnet.py (B0: width 1.0, depth 1.0)

class SqueezeExcitation(nn.Module):
    """torchvision.ops.SqueezeExcitation: avgpool, fc1 (1×1 conv), SiLU, fc2, sigmoid, scale."""

    def __init__(self, input_channels, squeeze_channels):
        super().__init__()
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(input_channels, squeeze_channels, 1)
        self.fc2 = nn.Conv2d(squeeze_channels, input_channels, 1)
        self.activation = nn.SiLU()
        self.scale_activation = nn.Sigmoid()

    def forward(self, x):
        scale = self.scale_activation(self.fc2(self.activation(self.fc1(self.avgpool(x)))))
        return scale * x


class MBConv(nn.Module):
    def __init__(self, expand_ratio, kernel, stride, input_channels, out_channels):
        super().__init__()
        self.use_res_connect = stride == 1 and input_channels == out_channels
        layers = []
        expanded = _make_divisible(input_channels * expand_ratio)
        if expanded != input_channels:
            layers.append(conv_bn_act(input_channels, expanded, 1, act=nn.SiLU))
        layers.append(conv_bn_act(expanded, expanded, kernel, stride, groups=expanded, act=nn.SiLU))
        layers.append(SqueezeExcitation(expanded, max(1, input_channels // 4)))
        layers.append(conv_bn_act(expanded, out_channels, 1, act=None))
        self.block = nn.Sequential(*layers)

    def forward(self, x):
        result = self.block(x)
        return result + x if self.use_res_connect else result  # stochastic depth: identity in eval


class EfficientNetB0(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        settings = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
                    (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
        layers = [conv_bn_act(3, 32, 3, 2, act=nn.SiLU)]
        for t, k, s, inp, out, n in settings:
            stage = []
            for i in range(n):
                stage.append(MBConv(t, k, s if i == 0 else 1, inp if i == 0 else out, out))
            layers.append(nn.Sequential(*stage))
        layers.append(conv_bn_act(320, 1280, 1, act=nn.SiLU))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2, inplace=True), nn.Linear(1280, num_classes))

    def forward(self, x):
        return self.classifier(torch.flatten(self.avgpool(self.features(x)), 1))


# ---------------------------------------------------------------- inception.py (aux_logits=False)

class BasicConv2d(nn.Module):
    def __init__(self, inp, out, **kwargs):
        super().__init__()
        self.conv = nn.Conv2d(inp, out, bias=False, **kwargs)
        self.bn = nn.BatchNorm2d(out, eps=0.001)

    def forward(self, x):
        return F.relu(self.bn(self.conv(x)), inplace=True)


class InceptionA(nn.Module):
    def __init__(self, inp, pool_features):
        super().__init__()
        self.branch1x1 = BasicConv2d(inp, 64, kernel_size=1)
        self.branch5x5_1 = BasicConv2d(inp, 48, kernel_size=1)
        self.branch5x5_2 = BasicConv2d(48, 64, kernel_size=5, padding=2)
        self.branch3x3dbl_1 = BasicConv2d(inp, 64, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = BasicConv2d(96, 96, kernel_size=3, padding=1)
        self.branch_pool = BasicConv2d(inp, pool_features, kernel_size=1)

    def forward(self, x):
        b1 = self.branch1x1(x)
        b5 = self.branch5x5_2(self.branch5x5_1(x))
        b3 = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        bp = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return torch.cat([b1, b5, b3, bp], 1)


class InceptionB(nn.Module):
    def __init__(self, inp):
        super().__init__()
        self.branch3x3 = BasicConv2d(inp, 384, kernel_size=3, stride=2)
        self.branch3x3dbl_1 = BasicConv2d(inp, 64, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(64, 96, kernel_size=3, padding=1)
        self.branch3x3dbl_3 = BasicConv2d(96, 96, kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3(x)
        bd = self.branch3x3dbl_3(self.branch3x3dbl_2(self.branch3x3dbl_1(x)))
        return torch.cat([b3, bd, F.max_pool2d(x, kernel_size=3, stride=2)], 1)


class InceptionC(nn.Module):
    def __init__(self, inp, c7):
        super().__init__()
        self.branch1x1 = BasicConv2d(inp, 192, kernel_size=1)
        self.branch7x7_1 = BasicConv2d(inp, c7, kernel_size=1)
        self.branch7x7_2 = BasicConv2d(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7_3 = BasicConv2d(c7, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_1 = BasicConv2d(inp, c7, kernel_size=1)
        self.branch7x7dbl_2 = BasicConv2d(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_3 = BasicConv2d(c7, c7, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7dbl_4 = BasicConv2d(c7, c7, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7dbl_5 = BasicConv2d(c7, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch_pool = BasicConv2d(inp, 192, kernel_size=1)

    def forward(self, x):
        b1 = self.branch1x1(x)
        b7 = self.branch7x7_3(self.branch7x7_2(self.branch7x7_1(x)))
        bd = self.branch7x7dbl_1(x)
        for m in (self.branch7x7dbl_2, self.branch7x7dbl_3, self.branch7x7dbl_4, self.branch7x7dbl_5):
            bd = m(bd)
        bp = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return torch.cat([b1, b7, bd, bp], 1)


class InceptionD(nn.Module):
    def __init__(self, inp):
        super().__init__()
        self.branch3x3_1 = BasicConv2d(inp, 192, kernel_size=1)
        self.branch3x3_2 = BasicConv2d(192, 320, kernel_size=3, stride=2)
        self.branch7x7x3_1 = BasicConv2d(inp, 192, kernel_size=1)
        self.branch7x7x3_2 = BasicConv2d(192, 192, kernel_size=(1, 7), padding=(0, 3))
        self.branch7x7x3_3 = BasicConv2d(192, 192, kernel_size=(7, 1), padding=(3, 0))
        self.branch7x7x3_4 = BasicConv2d(192, 192, kernel_size=3, stride=2)

    def forward(self, x):
        b3 = self.branch3x3_2(self.branch3x3_1(x))
        b7 = self.branch7x7x3_4(self.branch7x7x3_3(self.branch7x7x3_2(self.branch7x7x3_1(x))))
        return torch.cat([b3, b7, F.max_pool2d(x, kernel_size=3, stride=2)], 1)


class InceptionE(nn.Module):
    def __init__(self, inp):
        super().__init__()
        self.branch1x1 = BasicConv2d(inp, 320, kernel_size=1)
        self.branch3x3_1 = BasicConv2d(inp, 384, kernel_size=1)
        self.branch3x3_2a = BasicConv2d(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3_2b = BasicConv2d(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch3x3dbl_1 = BasicConv2d(inp, 448, kernel_size=1)
        self.branch3x3dbl_2 = BasicConv2d(448, 384, kernel_size=3, padding=1)
        self.branch3x3dbl_3a = BasicConv2d(384, 384, kernel_size=(1, 3), padding=(0, 1))
        self.branch3x3dbl_3b = BasicConv2d(384, 384, kernel_size=(3, 1), padding=(1, 0))
        self.branch_pool = BasicConv2d(inp, 192, kernel_size=1)

    def forward(self, x):
        b1 = self.branch1x1(x)
        b3 = self.branch3x3_1(x)
        b3 = torch.cat([self.branch3x3_2a(b3), self.branch3x3_2b(b3)], 1)
        bd = self.branch3x3dbl_2(self.branch3x3dbl_1(x))
        bd = torch.cat([self.branch3x3dbl_3a(bd), self.branch3x3dbl_3b(bd)], 1)
        bp = self.branch_pool(F.avg_pool2d(x, kernel_size=3, stride=1, padding=1))
        return torch.cat([b1, b3, bd, bp], 1)


class Inception3(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.Conv2d_1a_3x3 = BasicConv2d(3, 32, kernel_size=3, stride=2)
        self.Conv2d_2a_3x3 = BasicConv2d(32, 32, kernel_size=3)
        self.Conv2d_2b_3x3 = BasicConv2d(32, 64, kernel_size=3, padding=1)
        self.maxpool1 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Conv2d_3b_1x1 = BasicConv2d(64, 80, kernel_size=1)
        self.Conv2d_4a_3x3 = BasicConv2d(80, 192, kernel_size=3)
        self.maxpool2 = nn.MaxPool2d(kernel_size=3, stride=2)
        self.Mixed_5b = InceptionA(192, pool_features=32)
        self.Mixed_5c = InceptionA(256, pool_features=64)
        self.Mixed_5d = InceptionA(288, pool_features=64)
        self.Mixed_6a = InceptionB(288)
        self.Mixed_6b = InceptionC(768, c7=128)
        self.Mixed_6c = InceptionC(768, c7=160)
        self.Mixed_6d = InceptionC(768, c7=160)
        self.Mixed_6e = InceptionC(768, c7=192)
        self.Mixed_7a = InceptionD(768)
        self.Mixed_7b = InceptionE(1280)
        self.Mixed_7c = InceptionE(2048)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.dropout = nn.Dropout(0.5)
        self.fc = nn.Linear(2048, num_classes)

    def forward(self, x):
        for name in ("Conv2d_1a_3x3", "Conv2d_2a_3x3", "Conv2d_2b_3x3", "maxpool1", "Conv2d_3b_1x1",
                     "Conv2d_4a_3x3", "maxpool2", "Mixed_5b", "Mixed_5c", "Mixed_5d", "Mixed_6a", "Mixed_6b",
                     "Mixed_6c", "Mixed_6d", "Mixed_6e", "Mixed_7a", "Mixed_7b", "Mixed_7c", "avgpool"):
            x = getattr(self, name)(x)
        return self.fc(torch.flatten(self.dropout(x), 1))


# ---------------------------------------------------------------- densenet.py

class _DenseLayer(nn.Module):
    def __init__(self, num_input_features, growth_rate, bn_size):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(num_input_features)
        self.relu1 = nn.ReLU(inplace=True)
        self.conv1 = nn.Conv2d(num_input_features, bn_size * growth_rate, 1, 1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth_rate)
        self.relu2 = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv2d(bn_size * growth_rate, growth_rate, 3, 1, 1, bias=False)

    def forward(self, features):
        bottleneck = self.conv1(self.relu1(self.norm1(torch.cat(features, 1))))
        return self.conv2(self.relu2(self.norm2(bottleneck)))


class _DenseBlock(nn.ModuleDict):
    def __init__(self, num_layers, num_input_features, bn_size, growth_rate):
        super().__init__()
        for i in range(num_layers):
            self.add_module(f"denselayer{i + 1}", _DenseLayer(num_input_features + i * growth_rate, growth_rate,
                                                               bn_size))

    def forward(self, init_features):
        features = [init_features]
        for layer in self.values():
            features.append(layer(features))
        return torch.cat(features, 1)


class _Transition(nn.Sequential):
    def __init__(self, inp, out):
        super().__init__()
        self.norm = nn.BatchNorm2d(inp)
        self.relu = nn.ReLU(inplace=True)
        self.conv = nn.Conv2d(inp, out, 1, 1, bias=False)
        self.pool = nn.AvgPool2d(2, 2)


class DenseNet(nn.Module):
    def __init__(self, block_config, growth_rate=32, num_init_features=64, bn_size=4, num_classes=1000):
        super().__init__()
        layers = [nn.Conv2d(3, num_init_features, 7, 2, 3, bias=False), nn.BatchNorm2d(num_init_features),
                  nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
        num_features = num_init_features
        for i, num_layers in enumerate(block_config):
            layers.append(_DenseBlock(num_layers, num_features, bn_size, growth_rate))
            num_features += num_layers * growth_rate
            if i != len(block_config) - 1:
                layers.append(_Transition(num_features, num_features // 2))
                num_features //= 2
        layers.append(nn.BatchNorm2d(num_features))
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(num_features, num_classes)

    def forward(self, x):
        out = F.adaptive_avg_pool2d(F.relu(self.features(x), inplace=True), (1, 1))
        return self.classifier(torch.flatten(out, 1))


def densenet121():
    return DenseNet((6, 12, 24, 16))


def densenet201():
    return DenseNet((6, 12, 48, 32))


# ---------------------------------------------------------------- vision_transformer.py (ViT-B/16)

class MLPBlock(nn.Sequential):
    def __init__(self, in_dim, mlp_dim):
        super().__init__(nn.Linear(in_dim, mlp_dim), nn.GELU(), nn.Dropout(0.0), nn.Linear(mlp_dim, in_dim),
                         nn.Dropout(0.0))


class EncoderBlock(nn.Module):
    def __init__(self, num_heads, hidden_dim, mlp_dim):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden_dim, eps=1e-6)
        self.self_attention = nn.MultiheadAttention(hidden_dim, num_heads, dropout=0.0, batch_first=True)
        self.dropout = nn.Dropout(0.0)
        self.ln_2 = nn.LayerNorm(hidden_dim, eps=1e-6)
        self.mlp = MLPBlock(hidden_dim, mlp_dim)

    def forward(self, x):
        y = self.ln_1(x)
        y, _ = self.self_attention(y, y, y, need_weights=False)
        x = self.dropout(y) + x
        return x + self.mlp(self.ln_2(x))


class VisionTransformer(nn.Module):
    def __init__(self, image_size=224, patch_size=16, num_layers=12, num_heads=12, hidden_dim=768, mlp_dim=3072,
                 num_classes=1000):
        super().__init__()
        self.patch_size, self.hidden_dim = patch_size, hidden_dim
        self.conv_proj = nn.Conv2d(3, hidden_dim, patch_size, patch_size)
        seq_length = (image_size // patch_size) ** 2 + 1
        self.class_token = nn.Parameter(torch.zeros(1, 1, hidden_dim))
        self.pos_embedding = nn.Parameter(torch.empty(1, seq_length, hidden_dim))
        self.encoder_dropout = nn.Dropout(0.0)
        self.layers = nn.Sequential(*[EncoderBlock(num_heads, hidden_dim, mlp_dim) for _ in range(num_layers)])
        self.ln = nn.LayerNorm(hidden_dim, eps=1e-6)
        self.heads = nn.Sequential(nn.Linear(hidden_dim, num_classes))

    def forward(self, x):
        n = x.shape[0]
        x = self.conv_proj(x)
        x = x.reshape(n, self.hidden_dim, -1).permute(0, 2, 1)
        x = torch.cat([self.class_token.expand(n, -1, -1), x], dim=1)
        x = self.ln(self.layers(self.encoder_dropout(x + self.pos_embedding)))
        return self.heads(x[:, 0])


def vit_b_16():
    return VisionTransformer()


# ---------------------------------------------------------------- U-Net (Ronneberger et al. 2015), padded 3×3

class DoubleConv(nn.Sequential):
    def __init__(self, inp, out):
        super().__init__(nn.Conv2d(inp, out, 3, padding=1), nn.ReLU(inplace=True),
                         nn.Conv2d(out, out, 3, padding=1), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, in_channels=1, classes=2, widths=(64, 128, 256, 512, 1024)):
        super().__init__()
        self.downs = nn.ModuleList()
        inp = in_channels
        for w in widths:
            self.downs.append(DoubleConv(inp, w))
            inp = w
        self.ups = nn.ModuleList(nn.ConvTranspose2d(w * 2, w, 2, stride=2) for w in reversed(widths[:-1]))
        self.up_convs = nn.ModuleList(DoubleConv(w * 2, w) for w in reversed(widths[:-1]))
        self.out = nn.Conv2d(widths[0], classes, 1)

    def forward(self, x):
        skips = []
        for i, down in enumerate(self.downs):
            x = down(x if i == 0 else F.max_pool2d(x, 2))
            skips.append(x)
        skips.pop()
        for up, double in zip(self.ups, self.up_convs):
            x = double(torch.cat([skips.pop(), up(x)], 1))
        return self.out(x)


# ---------------------------------------------------------------- shufflenetv2.py (ShuffleNetV2 ×1.0)

def channel_shuffle(x, groups):
    b, c, h, w = x.shape
    return x.view(b, groups, c // groups, h, w).transpose(1, 2).contiguous().view(b, c, h, w)


class ShuffleUnit(nn.Module):
    """torchvision's shufflenetv2.InvertedResidual: stride 1 splits the channels in two halves and convolves
    the second; stride 2 convolves the whole input in both branches. Concatenated, then shuffled (2 groups)."""

    def __init__(self, inp, oup, stride):
        super().__init__()
        self.stride = stride
        half = oup // 2

        def dw(ch):
            return nn.Conv2d(ch, ch, 3, stride, 1, groups=ch, bias=False)

        if stride > 1:
            self.branch1 = nn.Sequential(dw(inp), nn.BatchNorm2d(inp), nn.Conv2d(inp, half, 1, bias=False),
                                         nn.BatchNorm2d(half), nn.ReLU(inplace=True))
        self.branch2 = nn.Sequential(nn.Conv2d(inp if stride > 1 else half, half, 1, bias=False),
                                     nn.BatchNorm2d(half), nn.ReLU(inplace=True), dw(half), nn.BatchNorm2d(half),
                                     nn.Conv2d(half, half, 1, bias=False), nn.BatchNorm2d(half),
                                     nn.ReLU(inplace=True))

    def forward(self, x):
        if self.stride == 1:
            kept, rest = x.chunk(2, dim=1)
            out = torch.cat((kept, self.branch2(rest)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    def __init__(self, repeats=(4, 8, 4), channels=(24, 116, 232, 464, 1024), num_classes=1000):
        super().__init__()
        self.conv1 = conv_bn_act(3, channels[0], 3, 2)
        self.maxpool = nn.MaxPool2d(3, 2, 1)
        stages, inp = [], channels[0]
        for n, out in zip(repeats, channels[1:4]):
            stages.append(nn.Sequential(ShuffleUnit(inp, out, 2), *[ShuffleUnit(out, out, 1) for _ in range(n - 1)]))
            inp = out
        self.stages = nn.Sequential(*stages)
        self.conv5 = conv_bn_act(inp, channels[4], 1)
        self.fc = nn.Linear(channels[4], num_classes)

    def forward(self, x):
        x = self.conv5(self.stages(self.maxpool(self.conv1(x))))
        return self.fc(x.mean([2, 3]))


# ---------------------------------------------------------------- swin_transformer.py (Swin-T)

class ShiftedWindowAttention(nn.Module):
    """torchvision's ShiftedWindowAttention (v1) on [B, H, W, C]: pad to whole windows, roll by −shift,
    attention per window with the relative position bias (and the shift mask), roll back, crop."""

    def __init__(self, dim, window, shift, heads, bias=True, relative_position_bias=True):
        super().__init__()
        self.window, self.shift, self.heads = list(window), list(shift), heads
        self.qkv = nn.Linear(dim, 3 * dim, bias=bias)
        self.proj = nn.Linear(dim, dim, bias=bias)
        wh, ww = self.window
        self.table = nn.Parameter(torch.zeros((2 * wh - 1) * (2 * ww - 1), heads)) if relative_position_bias \
            else None
        coords = torch.stack(torch.meshgrid(torch.arange(wh), torch.arange(ww), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0)
        self.register_buffer("index", (rel[..., 0] + wh - 1) * (2 * ww - 1) + rel[..., 1] + ww - 1)

    def forward(self, x):
        b, h, w, c = x.shape
        (wh, ww), heads = self.window, self.heads
        x = F.pad(x, (0, 0, 0, (ww - w % ww) % ww, 0, (wh - h % wh) % wh))
        _, ph, pw, _ = x.shape
        shift = [0 if m >= p else s for s, m, p in zip(self.shift, self.window, (ph, pw))]
        if sum(shift):
            x = torch.roll(x, (-shift[0], -shift[1]), (1, 2))
        nw, n = (ph // wh) * (pw // ww), wh * ww
        x = x.view(b, ph // wh, wh, pw // ww, ww, c).permute(0, 1, 3, 2, 4, 5).reshape(b * nw, n, c)
        q, k, v = self.qkv(x).reshape(b * nw, n, 3, heads, c // heads).permute(2, 0, 3, 1, 4)
        attn = (q * (c // heads) ** -0.5).matmul(k.transpose(-2, -1))
        if self.table is not None:
            attn = attn + self.table[self.index.flatten()].view(n, n, heads).permute(2, 0, 1).unsqueeze(0)
        if sum(shift):
            mask = x.new_zeros(ph, pw)  # the regions a rolled window mixes: −100 between different ones
            region = 0
            for hs in ((0, -wh), (-wh, -shift[0]), (-shift[0], None)):
                for ws in ((0, -ww), (-ww, -shift[1]), (-shift[1], None)):
                    mask[hs[0]:hs[1], ws[0]:ws[1]] = region
                    region += 1
            mask = mask.view(ph // wh, wh, pw // ww, ww).permute(0, 2, 1, 3).reshape(nw, n)
            mask = (mask.unsqueeze(1) - mask.unsqueeze(2)).masked_fill(mask.unsqueeze(1) != mask.unsqueeze(2), -100.0)
            attn = (attn.view(b, nw, heads, n, n) + mask.unsqueeze(1).unsqueeze(0)).view(-1, heads, n, n)
        x = self.proj(F.softmax(attn, dim=-1).matmul(v).transpose(1, 2).reshape(b * nw, n, c))
        x = x.view(b, ph // wh, pw // ww, wh, ww, c).permute(0, 1, 3, 2, 4, 5).reshape(b, ph, pw, c)
        if sum(shift):
            x = torch.roll(x, (shift[0], shift[1]), (1, 2))
        return x[:, :h, :w, :].contiguous()


class PatchMerging(nn.Module):
    def __init__(self, dim, out=None):
        super().__init__()
        self.norm = nn.LayerNorm(4 * dim)
        self.reduction = nn.Linear(4 * dim, out or 2 * dim, bias=False)

    def forward(self, x):
        h, w = x.shape[-3:-1]
        x = F.pad(x, (0, 0, 0, w % 2, 0, h % 2))
        x = torch.cat([x[..., 0::2, 0::2, :], x[..., 1::2, 0::2, :], x[..., 0::2, 1::2, :], x[..., 1::2, 1::2, :]],
                      -1)
        return self.reduction(self.norm(x))


class StochasticDepth(nn.Module):
    """torchvision.ops.StochasticDepth: the identity in eval mode."""

    def __init__(self, p):
        super().__init__()
        self.p = p

    def forward(self, x):
        if not self.training or self.p == 0.0:
            return x
        keep = x.new_empty([x.shape[0]] + [1] * (x.ndim - 1)).bernoulli_(1.0 - self.p)
        return x * keep.div_(1.0 - self.p)


class SwinBlock(nn.Module):
    def __init__(self, dim, heads, window, shift, sd_prob):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = ShiftedWindowAttention(dim, window, shift, heads)
        self.stochastic_depth = StochasticDepth(sd_prob)
        self.norm2 = nn.LayerNorm(dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Dropout(0.0), nn.Linear(4 * dim, dim),
                                 nn.Dropout(0.0))

    def forward(self, x):
        x = x + self.stochastic_depth(self.attn(self.norm1(x)))
        return x + self.stochastic_depth(self.mlp(self.norm2(x)))


class SwinTransformer(nn.Module):
    def __init__(self, patch=4, dim=96, depths=(2, 2, 6, 2), heads=(3, 6, 12, 24), window=(7, 7), sd=0.2,
                 num_classes=1000):
        super().__init__()
        layers = [nn.Sequential(nn.Conv2d(3, dim, patch, patch), Permute(0, 2, 3, 1), nn.LayerNorm(dim))]
        block_id, total = 0, sum(depths)
        for stage, (depth, h) in enumerate(zip(depths, heads)):
            d = dim * 2 ** stage
            blocks = []
            for i in range(depth):
                blocks.append(SwinBlock(d, h, window, [0 if i % 2 == 0 else m // 2 for m in window],
                                        sd * block_id / (total - 1)))
                block_id += 1
            layers.append(nn.Sequential(*blocks))
            if stage < len(depths) - 1:
                layers.append(PatchMerging(d))
        self.features = nn.Sequential(*layers)
        self.norm = nn.LayerNorm(dim * 2 ** (len(depths) - 1))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Linear(dim * 2 ** (len(depths) - 1), num_classes)

    def forward(self, x):
        x = self.norm(self.features(x)).permute(0, 3, 1, 2)
        return self.head(torch.flatten(self.avgpool(x), 1))


class Permute(nn.Module):
    def __init__(self, *dims):
        super().__init__()
        self.dims = dims

    def forward(self, x):
        return x.permute(*self.dims)


# ---------------------------------------------------------------- convnext.py (ConvNeXt-T)

class LayerNorm2d(nn.LayerNorm):
    """LayerNorm over the channels of a channels-first map."""

    def forward(self, x):
        return F.layer_norm(x.permute(0, 2, 3, 1), self.normalized_shape, self.weight, self.bias,
                            self.eps).permute(0, 3, 1, 2)


class CNBlock(nn.Module):
    def __init__(self, dim, sd_prob, layer_scale=1e-6):
        super().__init__()
        self.block = nn.Sequential(nn.Conv2d(dim, dim, 7, padding=3, groups=dim), Permute(0, 2, 3, 1),
                                   nn.LayerNorm(dim, eps=1e-6), nn.Linear(dim, 4 * dim), nn.GELU(),
                                   nn.Linear(4 * dim, dim), Permute(0, 3, 1, 2))
        self.layer_scale = nn.Parameter(torch.ones(dim, 1, 1) * layer_scale)
        self.stochastic_depth = StochasticDepth(sd_prob)

    def forward(self, x):
        return self.stochastic_depth(self.layer_scale * self.block(x)) + x


class ConvNeXt(nn.Module):
    def __init__(self, stages=((96, 192, 3), (192, 384, 3), (384, 768, 9), (768, None, 3)), sd=0.1,
                 num_classes=1000):
        super().__init__()
        layers = [nn.Sequential(nn.Conv2d(3, stages[0][0], 4, 4), LayerNorm2d(stages[0][0], eps=1e-6))]
        block_id, total = 0, sum(n for _, _, n in stages)
        for dim, out, n in stages:
            blocks = []
            for _ in range(n):
                blocks.append(CNBlock(dim, sd * block_id / (total - 1.0)))
                block_id += 1
            layers.append(nn.Sequential(*blocks))
            if out is not None:
                layers.append(nn.Sequential(LayerNorm2d(dim, eps=1e-6), nn.Conv2d(dim, out, 2, 2)))
        self.features = nn.Sequential(*layers)
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        last = stages[-1][1] or stages[-1][0]
        self.classifier = nn.Sequential(LayerNorm2d(last, eps=1e-6), nn.Flatten(1), nn.Linear(last, num_classes))

    def forward(self, x):
        return self.classifier(self.avgpool(self.features(x)))


# ---------------------------------------------------------------- googlenet.py (aux_logits off)

class InceptionV1(nn.Module):
    def __init__(self, inp, c1, c3r, c3, c5r, c5, pool):
        super().__init__()
        self.branch1 = conv_bn_act(inp, c1, 1)
        self.branch2 = nn.Sequential(conv_bn_act(inp, c3r, 1), conv_bn_act(c3r, c3, 3))
        self.branch3 = nn.Sequential(conv_bn_act(inp, c5r, 1), conv_bn_act(c5r, c5, 3))  # torchvision's 3×3
        self.branch4 = nn.Sequential(nn.MaxPool2d(3, 1, 1, ceil_mode=True), conv_bn_act(inp, pool, 1))

    def forward(self, x):
        return torch.cat([self.branch1(x), self.branch2(x), self.branch3(x), self.branch4(x)], 1)


class GoogLeNet(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.stem = nn.Sequential(conv_bn_act(3, 64, 7, 2, padding=3), nn.MaxPool2d(3, 2, ceil_mode=True),
                                  conv_bn_act(64, 64, 1), conv_bn_act(64, 192, 3), nn.MaxPool2d(3, 2, ceil_mode=True))
        self.blocks = nn.Sequential(
            InceptionV1(192, 64, 96, 128, 16, 32, 32), InceptionV1(256, 128, 128, 192, 32, 96, 64),
            nn.MaxPool2d(3, 2, ceil_mode=True),
            InceptionV1(480, 192, 96, 208, 16, 48, 64), InceptionV1(512, 160, 112, 224, 24, 64, 64),
            InceptionV1(512, 128, 128, 256, 24, 64, 64), InceptionV1(512, 112, 144, 288, 32, 64, 64),
            InceptionV1(528, 256, 160, 320, 32, 128, 128), nn.MaxPool2d(2, 2, ceil_mode=True),
            InceptionV1(832, 256, 160, 320, 32, 128, 128), InceptionV1(832, 384, 192, 384, 48, 128, 128))
        self.avgpool = nn.AdaptiveAvgPool2d(1)
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(1024, num_classes)

    def forward(self, x):
        return self.fc(self.dropout(torch.flatten(self.avgpool(self.blocks(self.stem(x))), 1)))


REFERENCE_NETS = {
    "resnet18": (resnet18, (3, 224, 224)),
    "resnet50": (resnet50, (3, 224, 224)),
    "mobilenet_v2": (MobileNetV2, (3, 224, 224)),
    "efficientnet_b0": (EfficientNetB0, (3, 224, 224)),
    "inception_v3": (Inception3, (3, 299, 299)),
    "densenet121": (densenet121, (3, 224, 224)),
    "vit_b_16": (vit_b_16, (3, 224, 224)),
    "unet": (UNet, (1, 512, 512)),
    "shufflenet_v2_x1_0": (ShuffleNetV2, (3, 224, 224)),
    "swin_t": (SwinTransformer, (3, 224, 224)),
    "convnext_tiny": (ConvNeXt, (3, 224, 224)),
}


def count(make, chw) -> tuple[int, int]:
    """(Σ p.numel(), FlopCounterMode forward FLOP) of the net in eval mode on the meta device."""
    from tests.meta_memo import flop_counter

    with torch.device("meta"):
        net = make().eval()
        x = torch.empty(1, *chw)
    params = sum(p.numel() for p in net.parameters())
    with flop_counter() as counter:
        net(x)
    return params, counter.get_total_flops()
