"""
Published image-classification architectures, compact, with random weights, for
`benchmarks/compile.py`. Each follows its paper's (and torchvision's) block
structure, channel counts, groups, kernel sizes, strides, squeeze-excitation
and activations; dropout and stochastic depth are identities in eval mode and
left out. Batch norms get random running statistics (`gen_zoo._randomize_bn`)
so that they are not identities.

- RegNet-X-400MF ("Designing Network Design Spaces"): widths 32/64/160/400,
  depths 1/2/7/12, group width 16, bottleneck ratio 1;
- EfficientNet-B0 ("EfficientNet: Rethinking Model Scaling for Convolutional
  Neural Networks"): MBConv blocks with SE (ratio 0.25) and SiLU;
- MobileNetV3-small ("Searching for MobileNetV3"): hard-swish, SE with hard
  sigmoid;
- SqueezeNet 1.1 ("SqueezeNet: AlexNet-level accuracy with 50x fewer
  parameters"): Fire modules;
- ShuffleNetV2 1.0x ("ShuffleNet V2: Practical Guidelines for Efficient CNN
  Architecture Design"): channel split and shuffle, 116/232/464;
- DenseNet-121 ("Densely Connected Convolutional Networks"): growth 32, blocks
  6/12/24/16, bottleneck 4x;
- ViT-tiny ("An Image is Worth 16x16 Words"; the tiny size of "Training
  data-efficient image transformers & distillation through attention"): width
  192, 12 pre-norm layers, 3 heads, MLP 768, patch 16.
"""

from __future__ import annotations

import math

import gen_zoo
import torch
import torch.nn.functional as F
from torch import nn


def randomize_bns(model: nn.Module, gen: torch.Generator) -> nn.Module:
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            gen_zoo._randomize_bn(m, gen)
    return model


def conv_bn(cin: int, cout: int, k: int, s: int = 1, groups: int = 1, act: type[nn.Module] | None = nn.ReLU) -> nn.Sequential:
    layers: list[nn.Module] = [nn.Conv2d(cin, cout, k, s, k // 2, groups=groups, bias=False), nn.BatchNorm2d(cout)]
    if act is not None:
        layers.append(act())
    return nn.Sequential(*layers)


def _divisible(v: float, d: int = 8) -> int:
    """torchvision's `_make_divisible`: round to a multiple of `d`, not below 90% of `v`."""
    new = max(d, int(v + d / 2) // d * d)
    return new + d if new < 0.9 * v else new


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, squeeze: int, act: type[nn.Module], gate: type[nn.Module]) -> None:
        super().__init__()
        self.fc1, self.fc2 = nn.Conv2d(channels, squeeze, 1), nn.Conv2d(squeeze, channels, 1)
        self.act, self.gate = act(), gate()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = x.mean((2, 3), keepdim=True)
        return x * self.gate(self.fc2(self.act(self.fc1(s))))


class Classifier(nn.Module):
    """Global average pooling and a linear layer."""

    def __init__(self, features: nn.Module, width: int, classes: int = 1000) -> None:
        super().__init__()
        self.features, self.fc = features, nn.Linear(width, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x).mean((2, 3)))


# -- RegNet-X-400MF ------------------------------------------------------------------


class RegNetBlock(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int, group_width: int) -> None:
        super().__init__()
        self.a = conv_bn(cin, cout, 1)
        self.b = conv_bn(cout, cout, 3, stride, groups=cout // group_width)
        self.c = conv_bn(cout, cout, 1, act=None)
        self.proj = conv_bn(cin, cout, 1, stride, act=None) if cin != cout or stride != 1 else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        short = x if self.proj is None else self.proj(x)
        return F.relu(short + self.c(self.b(self.a(x))))


def regnet_x_400mf(gen: torch.Generator) -> nn.Module:
    layers: list[nn.Module] = [conv_bn(3, 32, 3, 2)]
    cin = 32
    for width, depth in zip((32, 64, 160, 400), (1, 2, 7, 12)):
        for i in range(depth):
            layers.append(RegNetBlock(cin, width, 2 if i == 0 else 1, 16))
            cin = width
    return randomize_bns(Classifier(nn.Sequential(*layers), 400), gen)


# -- EfficientNet-B0 -----------------------------------------------------------------


class MBConv(nn.Module):
    """Inverted residual: 1x1 expansion, depthwise kxk, squeeze-excitation, 1x1 projection."""

    def __init__(
        self, cin: int, cout: int, k: int, stride: int, expand: float, act: type[nn.Module], se: int | None, gate: type[nn.Module]
    ) -> None:
        super().__init__()
        mid = _divisible(cin * expand) if expand != 1 else cin
        layers: list[nn.Module] = [] if mid == cin else [conv_bn(cin, mid, 1, act=act)]
        layers.append(conv_bn(mid, mid, k, stride, groups=mid, act=act))
        if se is not None:
            layers.append(SqueezeExcite(mid, se, act if act is nn.SiLU else nn.ReLU, gate))
        layers.append(conv_bn(mid, cout, 1, act=None))
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and cin == cout

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        return x + y if self.residual else y


def efficientnet_b0(gen: torch.Generator) -> nn.Module:
    layers: list[nn.Module] = [conv_bn(3, 32, 3, 2, act=nn.SiLU)]
    cin = 32
    # expansion, kernel, stride, channels, layers
    for expand, k, stride, cout, depth in (
        (1, 3, 1, 16, 1), (6, 3, 2, 24, 2), (6, 5, 2, 40, 2), (6, 3, 2, 80, 3),
        (6, 5, 1, 112, 3), (6, 5, 2, 192, 4), (6, 3, 1, 320, 1),
    ):  # fmt: skip
        for i in range(depth):
            layers.append(MBConv(cin, cout, k, stride if i == 0 else 1, expand, nn.SiLU, max(1, cin // 4), nn.Sigmoid))
            cin = cout
    layers.append(conv_bn(cin, 1280, 1, act=nn.SiLU))
    return randomize_bns(Classifier(nn.Sequential(*layers), 1280), gen)


# -- MobileNetV3-small ---------------------------------------------------------------


class MobileNetV3Small(nn.Module):
    # input, kernel, expanded, output, SE, hard-swish, stride
    BLOCKS = (
        (16, 3, 16, 16, True, False, 2), (16, 3, 72, 24, False, False, 2), (24, 3, 88, 24, False, False, 1),
        (24, 5, 96, 40, True, True, 2), (40, 5, 240, 40, True, True, 1), (40, 5, 240, 40, True, True, 1),
        (40, 5, 120, 48, True, True, 1), (48, 5, 144, 48, True, True, 1), (48, 5, 288, 96, True, True, 2),
        (96, 5, 576, 96, True, True, 1), (96, 5, 576, 96, True, True, 1),
    )  # fmt: skip

    def __init__(self, classes: int = 1000) -> None:
        super().__init__()
        layers: list[nn.Module] = [conv_bn(3, 16, 3, 2, act=nn.Hardswish)]
        for cin, k, mid, cout, se, hs, stride in self.BLOCKS:
            act = nn.Hardswish if hs else nn.ReLU
            layers.append(MBConv(cin, cout, k, stride, mid / cin, act, _divisible(mid // 4) if se else None, nn.Hardsigmoid))
        layers.append(conv_bn(96, 576, 1, act=nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(), nn.Linear(1024, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.features(x).mean((2, 3)))


def mobilenet_v3_small(gen: torch.Generator) -> nn.Module:
    return randomize_bns(MobileNetV3Small(), gen)


# -- SqueezeNet 1.1 ------------------------------------------------------------------


class Fire(nn.Module):
    def __init__(self, cin: int, squeeze: int, e1: int, e3: int) -> None:
        super().__init__()
        self.squeeze, self.e1, self.e3 = nn.Conv2d(cin, squeeze, 1), nn.Conv2d(squeeze, e1, 1), nn.Conv2d(squeeze, e3, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = F.relu(self.squeeze(x))
        return torch.cat([F.relu(self.e1(s)), F.relu(self.e3(s))], 1)


class SqueezeNet(nn.Module):
    def __init__(self, classes: int = 1000) -> None:
        super().__init__()
        pool = lambda: nn.MaxPool2d(3, 2, ceil_mode=True)  # noqa: E731 - three identical pools
        self.features = nn.Sequential(
            nn.Conv2d(3, 64, 3, 2), nn.ReLU(), pool(), Fire(64, 16, 64, 64), Fire(128, 16, 64, 64), pool(),
            Fire(128, 32, 128, 128), Fire(256, 32, 128, 128), pool(), Fire(256, 48, 192, 192),
            Fire(384, 48, 192, 192), Fire(384, 64, 256, 256), Fire(512, 64, 256, 256),
        )  # fmt: skip
        self.classifier = nn.Conv2d(512, classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.classifier(self.features(x))).mean((2, 3))


def squeezenet(gen: torch.Generator) -> nn.Module:
    return SqueezeNet()


# -- ShuffleNetV2 1.0x ---------------------------------------------------------------


def _shuffle(x: torch.Tensor, groups: int = 2) -> torch.Tensor:
    n, c, h, w = x.shape
    return x.view(n, groups, c // groups, h, w).transpose(1, 2).reshape(n, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, cin: int, cout: int, stride: int) -> None:
        super().__init__()
        half = cout // 2
        self.stride = stride
        if stride > 1:
            self.left = nn.Sequential(conv_bn(cin, cin, 3, stride, groups=cin, act=None), conv_bn(cin, half, 1))
        right_in = cin if stride > 1 else half
        self.right = nn.Sequential(conv_bn(right_in, half, 1), conv_bn(half, half, 3, stride, groups=half, act=None), conv_bn(half, half, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stride == 1:
            a, b = x.chunk(2, dim=1)
            out = torch.cat([a, self.right(b)], 1)
        else:
            out = torch.cat([self.left(x), self.right(x)], 1)
        return _shuffle(out)


def shufflenet_v2(gen: torch.Generator) -> nn.Module:
    layers: list[nn.Module] = [conv_bn(3, 24, 3, 2), nn.MaxPool2d(3, 2, 1)]
    cin = 24
    for cout, repeats in zip((116, 232, 464), (4, 8, 4)):
        for i in range(repeats):
            layers.append(ShuffleUnit(cin, cout, 2 if i == 0 else 1))
            cin = cout
    layers.append(conv_bn(cin, 1024, 1))
    return randomize_bns(Classifier(nn.Sequential(*layers), 1024), gen)


# -- DenseNet-121 --------------------------------------------------------------------


class DenseLayer(nn.Module):
    def __init__(self, cin: int, growth: int, bottleneck: int) -> None:
        super().__init__()
        self.bn1, self.conv1 = nn.BatchNorm2d(cin), nn.Conv2d(cin, bottleneck * growth, 1, bias=False)
        self.bn2, self.conv2 = nn.BatchNorm2d(bottleneck * growth), nn.Conv2d(bottleneck * growth, growth, 3, padding=1, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([x, self.conv2(F.relu(self.bn2(self.conv1(F.relu(self.bn1(x))))))], 1)


def densenet121(gen: torch.Generator) -> nn.Module:
    layers: list[nn.Module] = [nn.Conv2d(3, 64, 7, 2, 3, bias=False), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(3, 2, 1)]
    c = 64
    for i, depth in enumerate((6, 12, 24, 16)):
        for _ in range(depth):
            layers.append(DenseLayer(c, 32, 4))
            c += 32
        if i < 3:
            layers += [nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, c // 2, 1, bias=False), nn.AvgPool2d(2, 2)]
            c //= 2
    layers += [nn.BatchNorm2d(c), nn.ReLU()]
    return randomize_bns(Classifier(nn.Sequential(*layers), c), gen)


# -- ViT-tiny ------------------------------------------------------------------------


class ViTLayer(nn.Module):
    def __init__(self, dim: int, heads: int, mlp: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.qkv, self.proj = nn.LayerNorm(dim, eps=1e-6), nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.norm2, self.fc1, self.fc2 = nn.LayerNorm(dim, eps=1e-6), nn.Linear(dim, mlp), nn.Linear(mlp, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, n, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).view(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(d // self.heads), dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(b, n, d))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class ViT(nn.Module):
    def __init__(self, image: int, patch: int = 16, dim: int = 192, depth: int = 12, heads: int = 3, mlp: int = 768) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, dim, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.pos = nn.Parameter(torch.randn(1, (image // patch) ** 2 + 1, dim) * 0.02)
        self.layers = nn.Sequential(*(ViTLayer(dim, heads, mlp) for _ in range(depth)))
        self.norm, self.head = nn.LayerNorm(dim, eps=1e-6), nn.Linear(dim, 1000)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(p.shape[0], -1, -1), p], 1) + self.pos
        return self.head(self.norm(self.layers(x))[:, 0])


def vit_tiny(image: int) -> nn.Module:
    return ViT(image)
