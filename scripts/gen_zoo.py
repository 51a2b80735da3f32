"""
Generate the model zoo in `tests/zoo/`: small real `torch.export` programs with
inputs and torch eager outputs, for testing the `.pt2` frontend and `exir-run`
end to end.

For every model `<name>` this writes

- `<name>.train.pt2`  `torch.export.save` of `torch.export.export(...)` (training IR),
- `<name>.core.pt2`   the same after `.run_decompositions()` (core ATen IR),
- `<name>.inputs.npz` the pytree-flattened user inputs `arg0 ..` (Python scalars as
  0-d arrays),
- `<name>.expected.npz` torch eager's pytree-flattened outputs `out0 ..` on them,

plus further input sets where a model needs them (`inputs2`/`expected2`: another batch
size of a dynamic model or the other branch of a `cond`; `inputs3`, `inputs4`: sizes
outside a dynamic range, which must be refused), and `manifest.json` describing all of
it. Run from anywhere with torch 2.13 installed: `python scripts/gen_zoo.py`.

The output is byte-stable: seeds are fixed, `.npz` files are written with fixed zip
timestamps, stack traces in the archives name files relative to the repository (and
to site-packages for torch's own frames), and the random `.data/serialization_id`
that torch's archive writer puts in every `.pt2` is replaced in place by a digest of
the archive's other records (same length, CRC updated; torch loads it unchanged).
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import io
import json
import operator
import os
import pathlib
import re
import struct
import sys
import zipfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
import torch.utils._pytree as pytree
from torch import nn
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop
from torch.export import Dim, ExportedProgram

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"
TORCH_SITE = pathlib.Path(torch.__file__).resolve().parents[1]

DEFAULT_RTOL = 1e-5
DEFAULT_ATOL = 1e-6

Args = tuple[Any, ...]


# ---------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------


class MLP(nn.Module):
    """Three linear layers with ReLU and tanh-approximated GELU."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 32)
        self.fc2 = nn.Linear(32, 32)
        self.fc3 = nn.Linear(32, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.fc1(x))
        x = F.gelu(self.fc2(x), approximate="tanh")
        return self.fc3(x)


def _randomize_bn(bn: nn.BatchNorm2d, gen: torch.Generator) -> None:
    """Give a batch norm non-trivial affine parameters and running statistics."""
    with torch.no_grad():
        n = bn.num_features
        bn.weight.copy_(1.0 + 0.2 * torch.randn(n, generator=gen))
        bn.bias.copy_(0.1 * torch.randn(n, generator=gen))
        assert bn.running_mean is not None and bn.running_var is not None
        bn.running_mean.copy_(0.1 * torch.randn(n, generator=gen))
        bn.running_var.copy_(0.5 + torch.rand(n, generator=gen))


class ConvBN(nn.Module):
    """A CNN: conv-bn-relu, max pool, conv-bn-relu, average pool, linear (eval mode)."""

    def __init__(self, gen: torch.Generator) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 12, 3, stride=1, padding=0, bias=False)
        self.bn2 = nn.BatchNorm2d(12)
        self.pool1 = nn.MaxPool2d(2)
        self.pool2 = nn.AvgPool2d(kernel_size=3, stride=2, padding=1)
        self.fc = nn.Linear(12 * 3 * 3, 10)
        _randomize_bn(self.bn1, gen)
        _randomize_bn(self.bn2, gen)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool1(F.relu(self.bn1(self.conv1(x))))
        x = self.pool2(F.relu(self.bn2(self.conv2(x))))
        return self.fc(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    """A ResNet basic block: two conv-bn with ReLU and a (projected) skip."""

    def __init__(self, cin: int, cout: int, stride: int, gen: torch.Generator) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.downsample: nn.Module | None = None
        if stride != 1 or cin != cout:
            bn = nn.BatchNorm2d(cout)
            self.downsample = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False), bn)
            _randomize_bn(bn, gen)
        _randomize_bn(self.bn1, gen)
        _randomize_bn(self.bn2, gen)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        identity = x if self.downsample is None else self.downsample(x)
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + identity)


class ResNetTiny(nn.Module):
    """A stem, two basic blocks (the second downsampling), global pooling, a classifier."""

    def __init__(self, gen: torch.Generator) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1, bias=False)
        self.bn = nn.BatchNorm2d(8)
        _randomize_bn(self.bn, gen)
        self.layer1 = BasicBlock(8, 8, 1, gen)
        self.layer2 = BasicBlock(8, 16, 2, gen)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(16, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn(self.stem(x)))
        x = self.layer2(self.layer1(x))
        return self.fc(torch.flatten(self.pool(x), 1))


class CausalSelfAttention(nn.Module):
    """Pre-norm causal multi-head self-attention with a residual connection."""

    def __init__(self, dim: int = 16, heads: int = 2) -> None:
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(dim)
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        h = self.norm(x)
        q = self.q(h).view(b, t, self.heads, hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.heads, hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.heads, hd).transpose(1, 2)
        scores = (q @ k.transpose(-2, -1)) * (1.0 / hd**0.5)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        attn = torch.softmax(scores, dim=-1)
        out = (attn @ v).transpose(1, 2).reshape(b, t, d)
        return x + self.proj(out)


class EmbeddingMean(nn.Module):
    """Token embedding, mean over the sequence, a linear classifier (int64 input)."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = nn.Embedding(50, 16)
        self.fc = nn.Linear(16, 4)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.fc(self.embed(tokens).mean(dim=1))


class CondBranch(nn.Module):
    """`torch.cond` on a data-dependent predicate; each branch uses its own weights."""

    def __init__(self) -> None:
        super().__init__()
        self.pos = nn.Linear(6, 6)
        self.neg = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        def true_fn(x: torch.Tensor) -> torch.Tensor:
            return torch.tanh(self.pos(x)) * 2.0

        def false_fn(x: torch.Tensor) -> torch.Tensor:
            return torch.sigmoid(self.neg(x)) - x

        return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


class WhileLoop(nn.Module):
    """A `while_loop` iterating a recurrent cell until a counter reaches `n`."""

    def __init__(self) -> None:
        super().__init__()
        self.cell = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor, n: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        def cond_fn(i: torch.Tensor, h: torch.Tensor) -> torch.Tensor:
            return i < n

        def body_fn(i: torch.Tensor, h: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            return i + 1, torch.tanh(self.cell(h)) + 0.5 * h

        i0 = torch.zeros((), dtype=torch.int64)
        i, h = while_loop(cond_fn, body_fn, (i0, x))
        return i, h


class DynamicBatch(nn.Module):
    """A model over a dynamic batch: the batch size is used in view and arithmetic."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(12, 6)

    def forward(self, x: torch.Tensor, bias: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        b = x.shape[0]
        flat = x.reshape(b, -1)  # [b, 3, 4] -> [b, 12]
        y = torch.relu(self.fc(flat)) + bias
        scale = y.new_full((b, 1), 1.0) / b
        return y * scale, y.sum(dim=0)


class BufferMutation(nn.Module):
    """Buffers updated in forward: a counter (`add_`), a running mean, a last-input copy."""

    def __init__(self, gen: torch.Generator) -> None:
        super().__init__()
        self.register_buffer("count", torch.zeros((), dtype=torch.int64))
        self.register_buffer("running_mean", 0.5 * torch.randn(8, generator=gen))
        self.register_buffer("last", torch.zeros(8))
        self.proj = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.count.add_(1)
        self.running_mean.mul_(0.9).add_(x.mean(dim=0), alpha=0.1)
        self.last.copy_(x[-1])
        y = self.proj(x - self.running_mean) + self.last
        return y, self.count * 10


class NestedIO(nn.Module):
    """Nested inputs (tuple, dict, Python scalars) and nested outputs (tuple, list, dict)."""

    def forward(
        self,
        x: torch.Tensor,
        pair: tuple[torch.Tensor, torch.Tensor],
        cfg: dict[str, torch.Tensor],
        scale: float,
        k: int,
    ) -> tuple[torch.Tensor, list[torch.Tensor], dict[str, torch.Tensor]]:
        a, b = pair
        first = x * scale
        middle = [a + cfg["w"], b * k]
        # Keys deliberately not in sorted order: pytree keeps insertion order.
        last = {"z": x.sum(dim=0), "a": cfg["v"] - 1.0}
        return first, middle, last


class ShapeOps(nn.Module):
    """A spread of shape, view, indexing and reduction operators."""

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # x: [2, 6, 4], y: [2, 4]
        c = torch.cat([x, x * 2.0], dim=1)  # [2, 12, 4]
        p0, p1, p2 = torch.chunk(c, 3, dim=1)  # 3 x [2, 4, 4]
        perm = p1.permute(2, 0, 1)  # [4, 2, 4]
        stepped = c[:, 1::3, ::2]  # [2, 4, 2]
        w = torch.where(p0 > 0, p0, p2 * 0.5)
        s = w.sum(dim=(0, 2))  # [4]
        m = w.mean(dim=-1, keepdim=True)  # [2, 4, 1]
        mx = torch.amax(x, dim=1)  # [2, 4]
        am = torch.argmax(x, dim=1)  # int64 [2, 4]
        v = x.view(2, 24).reshape(4, 3, 4)
        t = v.transpose(0, 2).contiguous()  # [4, 3, 4]
        u = y.unsqueeze(1).expand(2, 3, 4)  # [2, 3, 4]
        sq = m.squeeze(-1) + u[:, 0, :]  # [2, 4]
        flip = stepped.flip(1)
        return perm, stepped + flip, s, mx, am, t * 0.5, u.sum(1), sq


class MapHop(nn.Module):
    """`torch.ops.higher_order.map` applying a small network to each row."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(5, 5)

    def forward(self, xs: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        def body(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
            return torch.relu(self.fc(x)) + y.sin()

        return hop_map(body, xs, y)


class IntOps(nn.Module):
    """Integer arithmetic with PyTorch's integer semantics (floor division, bitwise, casts)."""

    def forward(self, a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, ...]:
        # a: int32 [3, 5], b: int64 [5] with no zeros.
        s = a * 3 + b  # int64 by promotion
        fd = torch.floor_divide(a, b)  # floor toward -inf
        rem = torch.remainder(a, b)  # sign of the divisor
        bits = (a & 0x0F) | (b << 2)
        cmp = (a > b) & (a % 2 == 0)
        total = a.sum(dim=1)  # int32 sums to int64
        mean = (a.to(torch.float32) / b).mean(dim=0)
        clamped = torch.clamp(a, min=-7, max=7).to(torch.int8)
        return s, fd, rem, bits, cmp, total, mean, clamped


class HalfPrecision(nn.Module):
    """bfloat16 and float16 computation between float32 inputs and outputs."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        xb = x.to(torch.bfloat16)
        wb = self.fc.weight.to(torch.bfloat16)
        yb = torch.relu(xb @ wb.t()) * 1.5 + xb
        xh = x.to(torch.float16)
        yh = torch.tanh(xh) * xh - 0.25
        return yb.to(torch.float32), yh.to(torch.float32)


class ResNet18(nn.Module):
    """ResNet-18's shape at reduced width: 7x7 stem, max pool, 4 stages of 2 basic blocks."""

    def __init__(self, gen: torch.Generator, widths: tuple[int, ...] = (8, 16, 32, 64)) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, widths[0], 7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(widths[0])
        _randomize_bn(self.bn1, gen)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        stages: list[nn.Module] = []
        cin = widths[0]
        for i, cout in enumerate(widths):
            stride = 1 if i == 0 else 2
            blocks = [BasicBlock(cin, cout, stride, gen), BasicBlock(cout, cout, 1, gen)]
            stages.append(nn.Sequential(*blocks))
            cin = cout
        self.layer1, self.layer2, self.layer3, self.layer4 = stages
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(widths[-1], 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.maxpool(F.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


class EncoderLayer(nn.Module):
    """`nn.TransformerEncoderLayer(d, heads, ff, dropout=0, activation="gelu",
    batch_first=True)` (post-norm) written out, so export sees plain ATen ops
    instead of the fused fast path."""

    def __init__(self, dim: int, heads: int, ff: int) -> None:
        super().__init__()
        self.heads = heads
        self.q = nn.Linear(dim, dim)
        self.k = nn.Linear(dim, dim)
        self.v = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)
        self.norm1 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, ff)
        self.fc2 = nn.Linear(ff, dim)
        self.norm2 = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        q = self.q(x).view(b, t, self.heads, hd).transpose(1, 2)
        k = self.k(x).view(b, t, self.heads, hd).transpose(1, 2)
        v = self.v(x).view(b, t, self.heads, hd).transpose(1, 2)
        attn = torch.softmax((q @ k.transpose(-2, -1)) * (1.0 / hd**0.5), dim=-1)
        a = (attn @ v).transpose(1, 2).reshape(b, t, d)
        x = self.norm1(x + self.out(a))
        return self.norm2(x + self.fc2(F.gelu(self.fc1(x))))


class TransformerEncoder(nn.Module):
    """A stack of post-norm encoder layers."""

    def __init__(self, layers: int = 4, dim: int = 32, heads: int = 4, ff: int = 64) -> None:
        super().__init__()
        self.layers = nn.ModuleList([EncoderLayer(dim, heads, ff) for _ in range(layers)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x)
        return x


class RMSNorm(nn.Module):
    """LLaMA's RMSNorm: `x * rsqrt(mean(x^2) + eps) * weight`, no mean subtraction."""

    def __init__(self, dim: int, eps: float = 1e-6) -> None:
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class LlamaBlock(nn.Module):
    """A LLaMA decoder block: RMSNorm, rotary q/k, causal attention, SiLU-gated MLP.

    As in Hugging Face's implementation: the rotary cos/sin tables are
    precomputed non-persistent buffers sliced to the sequence length, and the
    causal mask is additive (-inf above the diagonal, from `torch.triu`).
    """

    def __init__(
        self,
        gen: torch.Generator,
        dim: int = 32,
        heads: int = 4,
        hidden: int = 64,
        max_seq: int = 32,
    ) -> None:
        super().__init__()
        self.heads = heads
        hd = dim // heads
        self.input_norm = RMSNorm(dim)
        self.post_attention_norm = RMSNorm(dim)
        with torch.no_grad():  # non-trivial norm weights
            self.input_norm.weight.copy_(1.0 + 0.2 * torch.randn(dim, generator=gen))
            self.post_attention_norm.weight.copy_(1.0 + 0.2 * torch.randn(dim, generator=gen))
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, dim, bias=False)
        self.v_proj = nn.Linear(dim, dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        freqs = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)  # [max_seq, hd]
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        h = self.input_norm(x)
        q = self.q_proj(h).view(b, t, self.heads, hd).transpose(1, 2)
        k = self.k_proj(h).view(b, t, self.heads, hd).transpose(1, 2)
        v = self.v_proj(h).view(b, t, self.heads, hd).transpose(1, 2)
        cos, sin = self.cos_cached[:t], self.sin_cached[:t]
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        scores = q @ k.transpose(-2, -1) / hd**0.5 + mask
        attn = torch.softmax(scores, dim=-1)
        x = x + self.o_proj((attn @ v).transpose(1, 2).reshape(b, t, d))
        h = self.post_attention_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


def _conv_bn_relu6(
    cin: int, cout: int, kernel: int, stride: int, groups: int, gen: torch.Generator
) -> nn.Sequential:
    bn = nn.BatchNorm2d(cout)
    _randomize_bn(bn, gen)
    conv = nn.Conv2d(cin, cout, kernel, stride, padding=kernel // 2, groups=groups, bias=False)
    return nn.Sequential(conv, bn, nn.ReLU6())


class DepthwiseSeparableCNN(nn.Module):
    """MobileNet-v1 style: a strided stem, depthwise 3x3 + pointwise 1x1 blocks, mean pooling."""

    def __init__(self, gen: torch.Generator) -> None:
        super().__init__()
        self.stem = _conv_bn_relu6(3, 8, 3, 2, 1, gen)
        blocks: list[nn.Module] = []
        for cin, cout, stride in ((8, 16, 1), (16, 32, 2), (32, 32, 1)):
            blocks.append(_conv_bn_relu6(cin, cin, 3, stride, cin, gen))  # depthwise
            blocks.append(_conv_bn_relu6(cin, cout, 1, 1, 1, gen))  # pointwise
        self.blocks = nn.Sequential(*blocks)
        self.fc = nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.blocks(self.stem(x))
        return self.fc(x.mean(dim=(2, 3)))


class LlamaDecoderTrainingOps(nn.Module):
    """A LLaMA/Mistral-style decoder layer written as Hugging Face writes it, for the
    operators torch.export's training IR keeps: position ids from a padding mask
    (`cumsum`, `masked_fill_`), the packed-sequence check `diff(position_ids) >= 0`,
    rotary tables gathered by position, grouped-query attention by `repeat_kv`
    (`expand` + `reshape`), `scaled_dot_product_attention` with an additive mask,
    `swapaxes`/`reshape_as` back to the residual stream, a constant scalar
    tensor (`lift_fresh_copy`), RMSNorm and a SiLU-gated MLP."""

    def __init__(self, gen: torch.Generator, dim: int = 32, heads: int = 4, kv_heads: int = 2,
                 hidden: int = 64, max_seq: int = 32) -> None:
        super().__init__()
        self.heads, self.kv_heads = heads, kv_heads
        hd = dim // heads
        self.input_norm = RMSNorm(dim)
        self.post_attention_norm = RMSNorm(dim)
        with torch.no_grad():
            self.input_norm.weight.copy_(1.0 + 0.2 * torch.randn(dim, generator=gen))
            self.post_attention_norm.weight.copy_(1.0 + 0.2 * torch.randn(dim, generator=gen))
        self.q_proj = nn.Linear(dim, heads * hd, bias=False)
        self.k_proj = nn.Linear(dim, kv_heads * hd, bias=False)
        self.v_proj = nn.Linear(dim, kv_heads * hd, bias=False)
        self.o_proj = nn.Linear(heads * hd, dim, bias=False)
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)
        inv_freq = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
        freqs = torch.outer(torch.arange(max_seq, dtype=torch.float32), inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def _repeat_kv(self, x: torch.Tensor) -> torch.Tensor:
        b, kvh, t, hd = x.shape
        rep = self.heads // kvh
        return x[:, :, None, :, :].expand(b, kvh, rep, t, hd).reshape(b, kvh * rep, t, hd)

    def forward(self, x: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        position_ids = attention_mask.long().cumsum(-1) - 1
        position_ids.masked_fill_(attention_mask == 0, 1)
        in_order = (torch.diff(position_ids, dim=-1) >= 0).all()
        h = self.input_norm(x)
        q = self.q_proj(h).view(b, t, self.heads, hd).transpose(1, 2)
        k = self.k_proj(h).view(b, t, self.kv_heads, hd).transpose(1, 2)
        v = self.v_proj(h).view(b, t, self.kv_heads, hd).transpose(1, 2)
        cos = self.cos_cached[position_ids].unsqueeze(1)
        sin = self.sin_cached[position_ids].unsqueeze(1)
        q = q * cos + _rotate_half(q) * sin
        k = k * cos + _rotate_half(k) * sin
        k, v = self._repeat_kv(k), self._repeat_kv(v)
        causal = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        padding = (1.0 - attention_mask[:, None, None, :].float()) * torch.finfo(torch.float32).min
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=causal + padding)
        out = out.swapaxes(1, 2).reshape_as(x)
        residual_scale = torch.tensor(0.5)
        x = x + self.o_proj(out) * (residual_scale + in_order.float() * 0.5)
        h = self.post_attention_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


class Conv3dNet(nn.Module):
    """A 3-D CNN (video / volumetric ResNet stem): Conv3d + BatchNorm3d + ReLU, a strided
    Conv3d, AdaptiveAvgPool3d to 2x2x2 over a size it does not divide, flatten, Linear."""

    def __init__(self, gen: torch.Generator) -> None:
        super().__init__()
        self.conv1 = nn.Conv3d(3, 8, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm3d(8)
        _randomize_bn(self.bn1, gen)  # pyright: ignore[reportArgumentType] - typed for BatchNorm2d; it only sets the statistics every BatchNorm has
        self.conv2 = nn.Conv3d(8, 8, 3, stride=2, padding=1)
        self.pool = nn.AdaptiveAvgPool3d((2, 2, 2))
        self.fc = nn.Linear(8 * 8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(self.pool(x), 1))


# ---------------------------------------------------------------------------
# Zoo entries
# ---------------------------------------------------------------------------


class ConstantOutputs(nn.Module):
    """
    Graph outputs that are Python constants: torch.export records each as a
    ConstantArgument in the output spec (a bool, the static batch size, a
    float).
    """

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 3)

    def forward(self, x: torch.Tensor, scale: float) -> tuple[Any, ...]:
        return self.fc(x) * scale, True, x.shape[0], 2.5


_MYLIB = torch.library.Library("mylib", "DEF")  # noqa: TOR901 - kept alive: the operators live as long as it
_MYLIB.define("scale2(Tensor x, float k=2.0) -> Tensor")
_MYLIB.impl("scale2", lambda x, k=2.0: x * k, "CompositeExplicitAutograd")
torch.library.register_fake("mylib::scale2", lambda x, k=2.0: torch.empty_like(x), lib=_MYLIB)


class CustomOp(nn.Module):
    """
    A user's `torch.library` operator, `mylib::scale2(x, k=2.0) = x * k`: torch
    keeps it in both IRs; the interpreter runs it with the kernel that
    `tests/zoo/mylib_kernels.py` registers through the `xdsl_exir.kernels` entry point.
    """

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.ops.mylib.scale2(self.fc(x), 3.0).relu()
        return y + torch.ops.mylib.scale2(x)



class UNetBilinear(nn.Module):
    """A two-level U-Net: conv-BN-ReLU encoder, max pool, a bottleneck, bilinear upsampling
    (align_corners False in one decoder stage, True in the other), skip concatenation."""

    def __init__(self) -> None:
        super().__init__()

        def block(cin: int, cout: int) -> nn.Sequential:
            return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU())

        self.enc1, self.enc2, self.mid = block(3, 8), block(8, 16), block(16, 16)
        self.dec2, self.dec1 = block(32, 8), block(16, 8)
        self.head = nn.Conv2d(8, 2, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([F.interpolate(m, scale_factor=2.0, mode="bilinear", align_corners=False), e2], 1))
        up = F.interpolate(d2, size=e1.shape[2:], mode="bilinear", align_corners=True)
        return self.head(self.dec1(torch.cat([up, e1], 1)))


class ConvNeXtBlock(nn.Module):
    """A ConvNeXt stage as timm writes it: depthwise 7x7 conv, permute to channels-last,
    LayerNorm, Linear-GELU-Linear (4x), layer scale, permute back, residual; then global
    average pooling of the channels-last-strided result, LayerNorm, Linear head."""

    def __init__(self, dim: int = 16) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, dim, 4, stride=4)
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pw1, self.pw2 = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(torch.full((dim,), 0.5))
        self.head_norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.pw2(F.gelu(self.pw1(self.norm(y)))) * self.gamma
        x = x + y.permute(0, 3, 1, 2)
        pooled = F.adaptive_avg_pool2d(x, 1)
        return self.head(self.head_norm(pooled.flatten(1)))


class LSTMSeq(nn.Module):
    """A two-layer batch-first nn.LSTM and a Linear on the last step, as torch.export
    records it by default (one `aten.lstm.input` call)."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.LSTM(8, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, 4)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, (h, c) = self.rnn(x)
        return self.fc(out[:, -1]), c


class GRUSeq(nn.Module):
    """A bidirectional sequence-first nn.GRU with a given initial state (`aten.gru.input`)."""

    def __init__(self) -> None:
        super().__init__()
        self.rnn = nn.GRU(8, 12, bidirectional=True)
        self.fc = nn.Linear(24, 4)

    def forward(self, x: torch.Tensor, h0: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        out, h = self.rnn(x, h0)
        return self.fc(out.mean(0)), h


class GPT2Conv1D(nn.Module):
    """GPT-2's Conv1D: a transposed Linear computed as addmm over the flattened rows."""

    def __init__(self, nf: int, nx: int) -> None:
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.randn(nx, nf) * 0.02)
        self.bias = nn.Parameter(torch.zeros(nf))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class GPT2Block(nn.Module):
    """A GPT-2 block as Hugging Face writes it (eager attention): Conv1D projections,
    split and head views, a causal mask sliced from a bool buffer, torch.where with the
    dtype's minimum, softmax, merged heads through contiguous + view, GELU (tanh) written
    out with pow."""

    def __init__(self, dim: int = 32, heads: int = 4, ctx: int = 16) -> None:
        super().__init__()
        self.heads, self.dim = heads, dim
        self.ln_1, self.ln_2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.c_attn, self.c_proj = GPT2Conv1D(3 * dim, dim), GPT2Conv1D(dim, dim)
        self.c_fc, self.mlp_proj = GPT2Conv1D(4 * dim, dim), GPT2Conv1D(dim, 4 * dim)
        self.register_buffer("bias", torch.tril(torch.ones(ctx, ctx, dtype=torch.bool)).view(1, 1, ctx, ctx), persistent=False)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        new_shape = t.size()[:-1] + (self.heads, self.dim // self.heads)
        return t.view(new_shape).permute(0, 2, 1, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.ln_1(x)
        q, k, v = self.c_attn(h).split(self.dim, dim=2)
        q, k, v = self._split(q), self._split(k), self._split(v)
        w = torch.matmul(q, k.transpose(-1, -2)) / torch.full([], v.size(-1) ** 0.5, dtype=q.dtype)
        qlen, klen = q.size(-2), k.size(-2)
        mask = self.bias[:, :, klen - qlen : klen, :klen]
        w = torch.where(mask, w, torch.full([], torch.finfo(w.dtype).min, dtype=w.dtype))
        w = F.softmax(w, dim=-1)
        a = torch.matmul(w, v).permute(0, 2, 1, 3).contiguous()
        a = a.view(a.size()[:-2] + (self.dim,))
        x = x + self.c_proj(a)
        m = self.c_fc(self.ln_2(x))
        m = 0.5 * m * (1.0 + torch.tanh(0.7978845608028654 * (m + 0.044715 * torch.pow(m, 3.0))))
        return x + self.mlp_proj(m)


class ItemScale(nn.Module):
    """Results that use `.item()`: a float (the largest magnitude) and an int (a count)
    read back from tensors and used as scalars."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = self.fc(x)
        s = y.abs().amax().item()
        n = (x > 0).sum().item()
        torch._check(n >= 0)
        return y / s, y * n


class LargeReduction(nn.Module):
    """The mean and variance of 2^22 float32 values in [100, 101) built inside the program
    (fractional parts of multiples of the golden ratio, plus a 0-d input): a sequential
    float32 accumulation is far off here, torch's pairwise summation is not."""

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        t = torch.arange(1 << 22, dtype=torch.float32) * 0.6180339887
        v = (t - t.floor()) + 100.0 + x
        return v.mean(), v.var()


@dataclass
class Entry:
    """One zoo model: how to build it, its inputs and its documentation."""

    name: str
    description: str
    make: Callable[[torch.Generator], nn.Module]
    args: Callable[[torch.Generator], Args]
    dynamic_shapes: Any = None
    dynamic: list[dict[str, Any]] = field(default_factory=list)
    more_args: list[tuple[Callable[[torch.Generator], Args], str]] = field(default_factory=list)
    bad_args: list[tuple[Callable[[torch.Generator], Args], list[str], str]] = field(
        default_factory=list
    )
    rtol: float = DEFAULT_RTOL
    atol: float = DEFAULT_ATOL
    tolerance_note: str = ""
    mutates_buffers: bool = False
    float64_reference: bool = True
    custom_ops: list[str] = field(default_factory=list)
    """torch.library operators the model calls; their kernels come from tests/zoo/<namespace>_kernels.py."""


def _randn(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen)


def _cond_args(sign: float) -> Callable[[torch.Generator], Args]:
    """Inputs for CondBranch whose sum is clearly positive (sign 1) or negative (-1)."""

    def make(gen: torch.Generator) -> Args:
        x = _randn(gen, 3, 6)
        return (x - x.mean() + sign * 0.5,)

    return make


def _dyn_args(batch: int) -> Callable[[torch.Generator], Args]:
    def make(gen: torch.Generator) -> Args:
        return (_randn(gen, batch, 3, 4), _randn(gen, 6))

    return make


def _int_args(gen: torch.Generator) -> Args:
    a = torch.randint(-20, 20, (3, 5), generator=gen, dtype=torch.int32)
    b = torch.tensor([3, -4, 5, -2, 7], dtype=torch.int64)
    return (a, b)


ENTRIES: list[Entry] = [
    Entry(
        "mlp",
        "Linear-ReLU-Linear-GELU(tanh)-Linear.",
        lambda g: MLP(),
        lambda g: (_randn(g, 4, 16),),
    ),
    Entry(
        "cnn_bn",
        "Conv2d + BatchNorm2d (eval) + ReLU + MaxPool2d, Conv2d + BatchNorm2d + ReLU + "
        "AvgPool2d(3, stride 2, padding 1), flatten, Linear.",
        ConvBN,
        lambda g: (_randn(g, 2, 3, 16, 16),),
    ),
    Entry(
        "resnet_blocks",
        "ResNet-style stem and two basic blocks (conv-bn-relu, skip; the second with a "
        "strided 1x1 conv-bn projection), AdaptiveAvgPool2d(1), Linear.",
        ResNetTiny,
        lambda g: (_randn(g, 2, 3, 12, 12),),
    ),
    Entry(
        "attention",
        "Pre-norm causal self-attention: LayerNorm, q/k/v Linear, 2 heads, triu causal "
        "mask with masked_fill(-inf), softmax, output projection, residual.",
        lambda g: CausalSelfAttention(),
        lambda g: (_randn(g, 2, 8, 16),),
    ),
    Entry(
        "embedding",
        "nn.Embedding(50, 16) on int64 tokens, mean over the sequence, Linear.",
        lambda g: EmbeddingMean(),
        lambda g: (torch.randint(0, 50, (3, 7), generator=g),),
    ),
    Entry(
        "cond",
        "torch.cond on x.sum() > 0; the true branch uses one Linear and tanh, the false "
        "branch another Linear and sigmoid. inputs takes the true branch, inputs2 the false.",
        lambda g: CondBranch(),
        _cond_args(1.0),
        more_args=[(_cond_args(-1.0), "sum < 0: takes the false branch")],
    ),
    Entry(
        "while_loop",
        "torch._higher_order_ops.while_loop: i from 0 while i < n (n a 0-d int64 input), "
        "h = tanh(Linear(h)) + 0.5 h; returns (i, h). The Linear's weights are lifted "
        "into the loop as additional inputs.",
        lambda g: WhileLoop(),
        lambda g: (_randn(g, 2, 8), torch.tensor(5)),
        more_args=[(lambda g: (_randn(g, 2, 8), torch.tensor(0)), "n = 0: zero iterations")],
    ),
    Entry(
        "dynamic_batch",
        "Dynamic batch Dim('batch', min=2, max=64) on arg0 dim 0: reshape by the symbolic "
        "batch size, Linear, division by the batch size, a reduction over the batch.",
        lambda g: DynamicBatch(),
        _dyn_args(4),
        dynamic_shapes=({0: Dim("batch", min=2, max=64)}, None),
        dynamic=[{"input": "arg0", "dim": 0, "name": "batch", "min": 2, "max": 64}],
        more_args=[(_dyn_args(37), "batch 37")],
        bad_args=[
            (_dyn_args(80), ["64", "80"], "batch 80 is above the maximum 64"),
        ],
    ),
    Entry(
        "dynamic_attention",
        "The attention block with two dynamic dims: Dim('batch', min=1, max=16) and "
        "Dim('seq', min=2, max=32) on arg0; the causal mask is built from the symbolic "
        "sequence length (triu of ones(seq, seq); arange/ge/logical_and in core IR).",
        lambda g: CausalSelfAttention(),
        lambda g: (_randn(g, 3, 8, 16),),
        dynamic_shapes=({0: Dim("batch", min=1, max=16), 1: Dim("seq", min=2, max=32)},),
        dynamic=[
            {"input": "arg0", "dim": 0, "name": "batch", "min": 1, "max": 16},
            {"input": "arg0", "dim": 1, "name": "seq", "min": 2, "max": 32},
        ],
        more_args=[(lambda g: (_randn(g, 1, 5, 16),), "batch 1, seq 5")],
        bad_args=[(lambda g: (_randn(g, 2, 33, 16),), ["32", "33"], "seq 33 is above the maximum 32")],
    ),
    Entry(
        "buffer_mutation",
        "Buffers mutated in forward: count.add_(1), running_mean.mul_(0.9).add_(mean, "
        "alpha=0.1), last.copy_(x[-1]); outputs use the updated buffers. expected is the "
        "first call on a fresh model; state_after holds the buffers after that call and "
        "expected_call2 the outputs of a second call on the same inputs.",
        BufferMutation,
        lambda g: (_randn(g, 4, 8),),
        mutates_buffers=True,
    ),
    Entry(
        "nested_io",
        "Inputs (x, (a, b), {'w': w, 'v': v}, 0.5, 3) and outputs "
        "(x * 0.5, [a + w, b * 3], {'z': x.sum(0), 'a': v - 1}). Pytree order: tuples "
        "and lists in order, dicts in insertion order (not sorted): arg0=x, arg1=a, "
        "arg2=b, arg3=w, arg4=v, arg5=0.5 (float64 0-d), arg6=3 (int64 0-d); out3 is "
        "'z', out4 is 'a'. torch.export specializes the Python scalars to constants.",
        lambda g: NestedIO(),
        lambda g: (
            _randn(g, 2, 3),
            (_randn(g, 2, 3), _randn(g, 3)),
            {"w": _randn(g, 3), "v": _randn(g, 2)},
            0.5,
            3,
        ),
    ),
    Entry(
        "shape_ops",
        "cat, chunk, permute, step slicing, where, sum/mean/amax, argmax (int64 output), "
        "view/reshape, transpose + contiguous, unsqueeze/squeeze, expand, flip.",
        lambda g: ShapeOps(),
        lambda g: (_randn(g, 2, 6, 4), _randn(g, 2, 4)),
    ),
    Entry(
        "map",
        "torch.ops.higher_order.map of relu(Linear(x)) + sin(y) over the rows of xs.",
        lambda g: MapHop(),
        lambda g: (_randn(g, 4, 5), _randn(g, 5)),
    ),
    Entry(
        "int_ops",
        "int32/int64 arithmetic: promotion, floor_divide and remainder with negative "
        "operands, bitwise and/or/shift, comparisons to bool, int sum to int64, "
        "true division to float32, clamp and cast to int8.",
        lambda g: IntOps(),
        _int_args,
        float64_reference=False,
    ),
    Entry(
        "half_precision",
        "float32 in and out; inside, a bfloat16 matmul/relu/mul/add and float16 "
        "tanh/mul/sub.",
        lambda g: HalfPrecision(),
        lambda g: (_randn(g, 4, 8),),
        rtol=1e-2,
        atol=1e-2,
        tolerance_note="bf16/fp16 intermediates: one bf16 ulp is 2^-8 relative, and "
        "matmul accumulation order may change the rounding of a result",
        float64_reference=False,
    ),
    Entry(
        "resnet18",
        "ResNet-18 at reduced width (8/16/32/64): conv 7x7 stride 2 + BatchNorm2d (eval) + "
        "ReLU + MaxPool2d(3, stride 2, padding 1), four stages of two basic blocks (the "
        "first block of stages 2-4 strided with a 1x1 conv-bn projection), "
        "AdaptiveAvgPool2d(1), flatten, Linear to 10 classes.",
        ResNet18,
        lambda g: (_randn(g, 1, 3, 32, 32),),
    ),
    Entry(
        "transformer_encoder",
        "Four post-norm transformer encoder layers (nn.TransformerEncoderLayer written "
        "out: width 32, 4 heads, q/k/v/out Linear, softmax(q k^T / sqrt(8)) v, residual, "
        "LayerNorm, Linear-GELU(erf)-Linear with 64 hidden, residual, LayerNorm), "
        "seq 16, eval mode. Dynamic Dim('batch', min=1, max=16) on arg0 dim 0.",
        lambda g: TransformerEncoder(),
        lambda g: (_randn(g, 2, 16, 32),),
        dynamic_shapes=({0: Dim("batch", min=1, max=16)},),
        dynamic=[{"input": "arg0", "dim": 0, "name": "batch", "min": 1, "max": 16}],
        more_args=[(lambda g: (_randn(g, 5, 16, 32),), "batch 5")],
        bad_args=[
            (lambda g: (_randn(g, 17, 16, 32),), ["16", "17"], "batch 17 is above the maximum 16"),
        ],
    ),
    Entry(
        "llama_block",
        "A LLaMA decoder block, width 32, 4 heads: RMSNorm written out (x * rsqrt(mean(x^2) "
        "+ eps) * w), q/k/v/o Linear without bias, rotary embedding from precomputed "
        "non-persistent cos/sin buffers sliced to seq 16 (rotate_half with neg and cat), "
        "additive causal mask triu(full(-inf), 1), softmax, residual; RMSNorm, "
        "down(silu(gate(x)) * up(x)) with 64 hidden, residual. Batch 2.",
        LlamaBlock,
        lambda g: (_randn(g, 2, 16, 32),),
    ),
    Entry(
        "llama_decoder_train",
        "A LLaMA/Mistral-style decoder layer as Hugging Face writes it, width 32, 4 query and "
        "2 key/value heads: position ids from a padding mask (cumsum, masked_fill_), the "
        "packed-sequence check diff(position_ids) >= 0, rotary cos/sin gathered by position, "
        "repeat_kv (expand + reshape), scaled_dot_product_attention with an additive causal "
        "and padding mask, swapaxes + reshape_as, a constant scalar tensor, RMSNorm and a "
        "SiLU-gated MLP. Batch 2, sequence 8, the second sequence left-padded by 3.",
        LlamaDecoderTrainingOps,
        lambda g: (_randn(g, 2, 8, 32), torch.tensor([[1] * 8, [0] * 3 + [1] * 5], dtype=torch.int64)),
    ),
    Entry(
        "conv3d_net",
        "A 3-D CNN: Conv3d(3, 8, 3, pad 1) + BatchNorm3d (eval) + ReLU, Conv3d(8, 8, 3, "
        "stride 2, pad 1) + ReLU, AdaptiveAvgPool3d(2, 2, 2) over 3x5x5 (uneven windows), "
        "flatten, Linear to 5. Input [1, 3, 6, 10, 10].",
        Conv3dNet,
        lambda g: (_randn(g, 1, 3, 6, 10, 10),),
    ),
    Entry(
        "dwsep_cnn",
        "MobileNet-style depthwise-separable CNN: conv 3x3 stride 2 + BatchNorm2d (eval) + "
        "ReLU6, three blocks of depthwise 3x3 conv (groups = channels) + BN + ReLU6 + "
        "pointwise 1x1 conv + BN + ReLU6 (8->16, 16->32 with stride 2, 32->32), mean over "
        "H and W, Linear to 10 classes.",
        DepthwiseSeparableCNN,
        lambda g: (_randn(g, 1, 3, 32, 32),),
    ),
    Entry(
        "constant_outputs",
        "Linear(4, 3) times a float input (0.5, specialized to a constant), returning "
        "(y, True, x.shape[0], 2.5): the last three are Python constants "
        "(ConstantArgument outputs), out1 True (bool 0-d), out2 2 (int64 0-d), "
        "out3 2.5 (float64 0-d).",
        lambda g: ConstantOutputs(),
        lambda g: (_randn(g, 2, 4), 0.5),
    ),
    Entry(
        "custom_op",
        "A torch.library operator mylib::scale2(Tensor x, float k=2.0) -> Tensor (x * k): "
        "relu(scale2(Linear(4, 4)(x), 3.0)) + scale2(x). torch keeps the call in both IRs; "
        "its numpy kernel is registered by tests/zoo/mylib_kernels.py (entry point "
        "xdsl_exir.kernels, name mylib).",
        lambda g: CustomOp(),
        lambda g: (_randn(g, 3, 4),),
        custom_ops=["mylib::scale2"],
    ),
    Entry(
        "unet_bilinear",
        "A two-level U-Net: conv 3x3 + BatchNorm2d (eval) + ReLU blocks (3->8, 8->16, "
        "16->16), max pools, bilinear upsampling by scale_factor 2 (align_corners False) and "
        "to a given size (align_corners True), skip concatenation, 1x1 head to 2 channels. "
        "Input [1, 3, 16, 16].",
        lambda g: UNetBilinear(),
        lambda g: (_randn(g, 1, 3, 16, 16),),
    ),
    Entry(
        "convnext_block",
        "A ConvNeXt stage in channels-last memory format (model and input): patchify stem "
        "conv 4x4 stride 4, depthwise 7x7 conv, permute to NHWC, LayerNorm, Linear-GELU-Linear "
        "(16->64->16), layer scale, permute back, residual, AdaptiveAvgPool2d(1) (in core IR a "
        "mean.dim and an as_strided restride to channels-last), LayerNorm, Linear to 10.",
        lambda g: ConvNeXtBlock().to(memory_format=torch.channels_last),
        lambda g: (_randn(g, 1, 3, 32, 32).to(memory_format=torch.channels_last),),
    ),
    Entry(
        "lstm",
        "nn.LSTM(8, 16, num_layers=2, batch_first=True) over [2, 5, 8], Linear(16, 4) on "
        "the last step; returns (logits, c_n). The training IR keeps one aten.lstm.input "
        "call, as torch.export emits it by default.",
        lambda g: LSTMSeq(),
        lambda g: (_randn(g, 2, 5, 8),),
    ),
    Entry(
        "gru",
        "A bidirectional nn.GRU(8, 12) over [5, 2, 8] (sequence first) from a given h0 "
        "[2, 2, 12], mean over the sequence, Linear(24, 4); returns (logits, h_n). The "
        "training IR keeps one aten.gru.input call.",
        lambda g: GRUSeq(),
        lambda g: (_randn(g, 5, 2, 8), _randn(g, 2, 2, 12)),
    ),
    Entry(
        "gpt2_block",
        "A GPT-2 block as Hugging Face writes it, width 32, 4 heads, context 16: LayerNorm, "
        "Conv1D (addmm over x.view(-1, nx)) to q/k/v, split, view + permute to heads, "
        "matmul / sqrt(d), causal mask sliced from a bool tril buffer, where(mask, w, "
        "finfo.min), softmax, merge heads (permute, contiguous, view), Conv1D, residual; "
        "LayerNorm, Conv1D-GELU(tanh, written out with pow)-Conv1D, residual. Dynamic "
        "Dim('batch', min=1, max=8) on arg0 dim 0.",
        lambda g: GPT2Block(),
        lambda g: (_randn(g, 2, 16, 32),),
        dynamic_shapes=({0: Dim("batch", min=1, max=8)},),
        dynamic=[{"input": "arg0", "dim": 0, "name": "batch", "min": 1, "max": 8}],
        more_args=[(lambda g: (_randn(g, 3, 16, 32),), "batch 3")],
        bad_args=[(lambda g: (_randn(g, 9, 16, 32),), ["8", "9"], "batch 9 is above the maximum 8")],
    ),
    Entry(
        "item",
        "Linear(6, 6), then y / y.abs().amax().item() and y * (x > 0).sum().item(): a float "
        "and an int read back from tensors with .item() (aten.item / _local_scalar_dense) "
        "and used as scalars.",
        lambda g: ItemScale(),
        lambda g: (_randn(g, 3, 6),),
    ),
    Entry(
        "large_reduction",
        "mean and var (correction 1) of 2^22 float32 values in [100, 101) that the program "
        "builds from arange: frac(i * 0.618...) + 100 + x, x a 0-d input. Checks that float32 "
        "reductions at scale stay as accurate as torch's.",
        lambda g: LargeReduction(),
        lambda g: (torch.tensor(0.25),),
    ),
]


# ---------------------------------------------------------------------------
# Writing
# ---------------------------------------------------------------------------


def _to_numpy(leaf: Any) -> np.ndarray:
    """A pytree leaf as numpy (Python scalars as 0-d arrays)."""
    if isinstance(leaf, torch.Tensor):
        t = leaf.detach()
        if t.dtype == torch.bfloat16:
            raise ValueError("bfloat16 tensors cannot be stored in .npz")
        return t.contiguous().numpy().copy()
    if isinstance(leaf, bool):
        return np.asarray(leaf, dtype=np.bool_)
    if isinstance(leaf, int):
        return np.asarray(leaf, dtype=np.int64)
    if isinstance(leaf, float):
        return np.asarray(leaf, dtype=np.float64)
    raise TypeError(f"unsupported pytree leaf {type(leaf).__name__}")


def write_npz(path: pathlib.Path, arrays: dict[str, np.ndarray]) -> None:
    """Write an uncompressed `.npz` with fixed timestamps (byte-stable)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for key, arr in arrays.items():
            data = io.BytesIO()
            np.lib.format.write_array(data, np.array(arr, order="C"), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, data.getvalue())
    with np.load(io.BytesIO(buf.getvalue()), allow_pickle=False) as back:
        for key, arr in arrays.items():
            if back[key].shape != arr.shape or back[key].dtype != arr.dtype:
                raise AssertionError(f"{path}: {key} does not round-trip")
    path.write_bytes(buf.getvalue())


def flat_npz(tree: Any, prefix: str) -> dict[str, np.ndarray]:
    """Flatten a pytree the way torch does into `prefix0, prefix1, ...`."""
    leaves, _ = pytree.tree_flatten(tree)
    return {f"{prefix}{i}": _to_numpy(leaf) for i, leaf in enumerate(leaves)}


def _all_graph_modules(ep: ExportedProgram) -> list[torch.fx.GraphModule]:
    return [m for m in ep.graph_module.modules() if isinstance(m, torch.fx.GraphModule)]


def normalize_metadata(ep: ExportedProgram) -> None:
    """Make node metadata independent of the machine and the process.

    Stack-trace file names become relative to site-packages or the repository;
    the process-wide counters in `<eval_with_key>.N` file names and the
    `graph_id`s of `from_node` provenance (Python object ids) are renumbered in
    order of first appearance.
    """
    prefixes = [f"{TORCH_SITE}{os.sep}", f"{ROOT}{os.sep}"]
    graph_ids: dict[int, int] = {}
    eval_keys: dict[str, int] = {}

    def renumber(sources: list[Any]) -> None:
        for source in sources:
            info = getattr(source, "node_info", None)
            if info is not None:
                info.graph_id = graph_ids.setdefault(info.graph_id, len(graph_ids))
            source._dict = None  # the cached dict representation
            renumber(getattr(source, "from_node", []))

    for gm in _all_graph_modules(ep):
        for node in gm.graph.nodes:
            trace = node.meta.get("stack_trace")
            if isinstance(trace, str):
                for prefix in prefixes:
                    trace = trace.replace(prefix, "")
                trace = re.sub(
                    r"<eval_with_key>\.(\d+)",
                    lambda m: f"<eval_with_key>.{eval_keys.setdefault(m[1], len(eval_keys))}",
                    trace,
                )
                node.meta["stack_trace"] = trace
            renumber(node.meta.get("from_node", []))


def _central_entries(data: bytes | bytearray) -> dict[str, int]:
    """Offsets of the central-directory entries of a zip, by name."""
    eocd = bytes(data).rfind(b"PK\x05\x06")
    if eocd == -1:
        raise ValueError("not a zip archive")
    count, _, start = struct.unpack_from("<HII", data, eocd + 10)
    if start == 0xFFFFFFFF:  # zip64: the real offset is in the zip64 end record
        locator = bytes(data).rfind(b"PK\x06\x07", 0, eocd)
        (end64,) = struct.unpack_from("<Q", data, locator + 8)
        (count,) = struct.unpack_from("<Q", data, end64 + 32)
        (start,) = struct.unpack_from("<Q", data, end64 + 48)
    entries: dict[str, int] = {}
    off = start
    for _ in range(count):
        if bytes(data[off : off + 4]) != b"PK\x01\x02":
            raise ValueError("malformed central directory")
        n_len, x_len, c_len = struct.unpack_from("<HHH", data, off + 28)
        entries[bytes(data[off + 46 : off + 46 + n_len]).decode()] = off
        off += 46 + n_len + x_len + c_len
    return entries


def _replace_stored_record(data: bytes, name: str, content: bytes) -> bytes:
    """Replace the bytes of an uncompressed zip record by as many others, fixing CRCs."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        info = zf.getinfo(name)
    if info.compress_type != zipfile.ZIP_STORED or info.file_size != len(content):
        raise ValueError(f"{name}: cannot be replaced in place")
    crc = zlib.crc32(content) & 0xFFFFFFFF
    out = bytearray(data)
    off = info.header_offset
    name_len, extra_len = struct.unpack_from("<HH", out, off + 26)
    data_off = off + 30 + name_len + extra_len
    out[data_off : data_off + len(content)] = content
    if info.flag_bits & 0x08:  # CRC in a data descriptor after the data
        desc = data_off + len(content)
        if bytes(out[desc : desc + 4]) == b"PK\x07\x08":
            desc += 4
        struct.pack_into("<I", out, desc, crc)
    else:
        struct.pack_into("<I", out, off + 14, crc)
    struct.pack_into("<I", out, _central_entries(out)[name] + 16, crc)
    return bytes(out)


def stabilize_archive(data: bytes) -> bytes:
    """Replace every random `serialization_id` (nested torch.save zips too) by a digest."""
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        names = zf.namelist()
        records = {n: zf.read(n) for n in names}
    for name in names:
        content = records[name]
        if content.startswith(b"PK\x03\x04") and name.endswith(".pt"):
            data = _replace_stored_record(data, name, stabilize_archive(content))
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        records = {n: zf.read(n) for n in zf.namelist()}
    for name in names:
        if name.endswith(".data/serialization_id"):
            digest = hashlib.sha256()
            for other in sorted(records):
                if other != name:
                    digest.update(other.encode() + b"\0" + records[other])
            size = len(records[name])
            stable = str(int(digest.hexdigest(), 16)).rjust(size, "0")[-size:].encode()
            data = _replace_stored_record(data, name, stable)
    return data


def save_program(ep: ExportedProgram, path: pathlib.Path) -> None:
    """`torch.export.save` to bytes, made byte-stable, written and checked to load."""
    normalize_metadata(ep)
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    data = stabilize_archive(buf.getvalue())
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        bad = zf.testzip()
        if bad is not None:
            raise ValueError(f"{path}: bad CRC for {bad}")
    torch.export.load(io.BytesIO(data))
    path.write_bytes(data)


def op_names(ep: ExportedProgram) -> list[str]:
    """The sorted call_function targets of every graph of a program."""
    names: set[str] = set()
    for gm in _all_graph_modules(ep):
        for node in gm.graph.nodes:
            if node.op == "call_function":
                target = node.target
                name = target.__name__ if target is operator.getitem else str(target)
                names.add(name.removeprefix("torch.ops.").removeprefix("aten."))
    return sorted(names)


def _eager(model: nn.Module, args: Args) -> Any:
    with torch.no_grad():
        return model(*args)


def _max_error_vs_float64(model: nn.Module, args: Args, out: Any) -> float | None:
    """Largest |float32 eager - float64 eager| / (|float64| + 1) over float outputs."""
    if not all(
        not isinstance(a, torch.Tensor) or a.dtype in (torch.float32, torch.int64, torch.int32)
        for a in pytree.tree_leaves(args)
    ):
        return None
    try:
        m64 = copy.deepcopy(model).double()
        args64 = pytree.tree_map(
            lambda a: a.double() if isinstance(a, torch.Tensor) and a.dtype == torch.float32 else a,
            args,
        )
        ref = pytree.tree_leaves(_eager(m64, args64))
    except Exception:
        return None
    worst = 0.0
    for got, want in zip(pytree.tree_leaves(out), ref, strict=True):
        if isinstance(got, torch.Tensor) and got.dtype == torch.float32:
            err = ((got.double() - want).abs() / (want.abs() + 1.0)).max().item()
            worst = max(worst, err)
    return worst


def generate(entry: Entry, out_dir: pathlib.Path) -> dict[str, Any]:
    """Export one model in both IRs, write its files, return its manifest record."""
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = entry.make(gen).eval()
    fresh = copy.deepcopy(model)
    args = entry.args(gen)
    more = [(make(gen), note) for make, note in entry.more_args]
    bad = [(make(gen), needles, note) for make, needles, note in entry.bad_args]

    eager_model = copy.deepcopy(fresh)
    expected = _eager(eager_model, args)
    record: dict[str, Any] = {"name": entry.name, "description": entry.description}

    files: dict[str, str] = {}
    ep = torch.export.export(copy.deepcopy(fresh), args, dynamic_shapes=entry.dynamic_shapes)
    core = copy.deepcopy(ep).run_decompositions()
    for ir, program in (("train", ep), ("core", core)):
        files[ir] = f"{entry.name}.{ir}.pt2"
        save_program(program, out_dir / files[ir])
        # The exported program must agree with eager before we trust the expectation.
        got = pytree.tree_leaves(program.module()(*copy.deepcopy(args)))
        for g, w in zip(got, pytree.tree_leaves(expected), strict=True):
            torch.testing.assert_close(g, w, rtol=entry.rtol, atol=entry.atol)
    record["programs"] = files

    sets: list[dict[str, str]] = []
    for index, (set_args, set_expected, note) in enumerate(
        [(args, expected, "")]
        + [(a, _eager(copy.deepcopy(fresh), a), note) for a, note in more]
    ):
        suffix = "" if index == 0 else str(index + 1)
        in_name = f"{entry.name}.inputs{suffix}.npz"
        out_name = f"{entry.name}.expected{suffix}.npz"
        write_npz(out_dir / in_name, flat_npz(set_args, "arg"))
        write_npz(out_dir / out_name, flat_npz(set_expected, "out"))
        item = {"inputs": in_name, "expected": out_name}
        if note:
            item["note"] = note
        sets.append(item)
    record["input_sets"] = sets

    if entry.dynamic:
        record["dynamic"] = entry.dynamic
    if entry.custom_ops:
        record["custom_ops"] = entry.custom_ops
    if bad:
        bad_sets: list[dict[str, Any]] = []
        for offset, (bad_args, needles, note) in enumerate(bad):
            in_name = f"{entry.name}.inputs{len(sets) + 1 + offset}.npz"
            write_npz(out_dir / in_name, flat_npz(bad_args, "arg"))
            try:
                ep.module()(*bad_args)
            except Exception:
                pass
            else:
                raise AssertionError(f"{entry.name}: torch accepted {in_name}")
            bad_sets.append({"inputs": in_name, "error_mentions": needles, "note": note})
        record["invalid_input_sets"] = bad_sets

    if entry.mutates_buffers:
        state = {name: buf.detach().clone() for name, buf in eager_model.named_buffers()}
        write_npz(
            out_dir / f"{entry.name}.state_after.npz",
            {name: _to_numpy(t) for name, t in state.items()},
        )
        second = _eager(eager_model, args)
        write_npz(out_dir / f"{entry.name}.expected_call2.npz", flat_npz(second, "out"))
        # The training IR keeps the in-place ops in the graph; the core IR is
        # functional and returns the new buffer values as BUFFER_MUTATION outputs.
        record["buffer_mutation_outputs"] = {
            ir: [
                str(spec.target)
                for spec in program.graph_signature.output_specs
                if spec.kind == torch.export.graph_signature.OutputKind.BUFFER_MUTATION
            ]
            for ir, program in (("train", ep), ("core", core))
        }
        record["state_after"] = f"{entry.name}.state_after.npz"
        record["expected_call2"] = f"{entry.name}.expected_call2.npz"

    tolerance = {"rtol": entry.rtol, "atol": entry.atol}
    if tolerance != {"rtol": DEFAULT_RTOL, "atol": DEFAULT_ATOL}:
        record["tolerance"] = tolerance | {"why": entry.tolerance_note}
    err = _max_error_vs_float64(fresh, args, expected) if entry.float64_reference else None
    if err is not None:
        record["float32_vs_float64_error"] = float(f"{err:.3g}")
    record["ops"] = {"train": op_names(ep), "core": op_names(core)}
    return record


def main(argv: Sequence[str] | None = None) -> int:
    """Generate the zoo (all models, or those named) and its manifest."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("models", nargs="*", help="only these models (default: all)")
    parser.add_argument("--out", type=pathlib.Path, default=ZOO, help="output directory")
    opts = parser.parse_args(argv)
    known = {e.name for e in ENTRIES}
    unknown = sorted(set(opts.models) - known)
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}")
    if not torch.__version__.startswith("2.13."):
        print(f"warning: generated with torch {torch.__version__}, not 2.13", file=sys.stderr)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    opts.out.mkdir(parents=True, exist_ok=True)

    manifest_path = opts.out / "manifest.json"
    old: dict[str, Any] = {}
    if opts.models and manifest_path.exists():
        old = {m["name"]: m for m in json.loads(manifest_path.read_text())["models"]}
    records: list[dict[str, Any]] = []
    for entry in ENTRIES:
        if opts.models and entry.name not in opts.models:
            if entry.name in old:
                records.append(old[entry.name])
            continue
        print(f"{entry.name} ...", file=sys.stderr, flush=True)
        records.append(generate(entry, opts.out))
    manifest = {
        "generator": "scripts/gen_zoo.py",
        "torch": torch.__version__,
        "default_tolerance": {"rtol": DEFAULT_RTOL, "atol": DEFAULT_ATOL},
        "models": records,
    }
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
