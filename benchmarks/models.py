"""
Real model architectures in the numpy interpreter against torch eager, plus
start-up time and text-read time.

Usage:
    .venv/bin/python benchmarks/models.py [--models a,b] [--reps N] [--optimize] [--quick]
        [--no-models] [--startup] [--text] [--profile MODEL] [--ops MODEL]

Models, written here in plain torch with random weights at small input sizes
(torchvision is not needed; `scripts/gen_zoo.py`'s classes where they fit):

- `resnet18`     ResNet-18 at full width (64..512, fc 1000), 1x3x64x64;
- `mobilenetv3`  MobileNetV3-small (inverted residuals, squeeze-excite with
                 hardsigmoid, hardswish, 3x3/5x5 depthwise), 1x3x96x96;
- `convnext`     ConvNeXt-T sized (depths 3,3,9,3, widths 96..768; 7x7
                 depthwise, channels-last LayerNorm, GELU, layer scale), 1x3x64x64;
- `vit`          ViT-Ti/16 (width 192, 12 layers, 3 heads, class token), 1x3x112x112;
- `bert`         a BERT-base sized encoder (width 768, 12 layers, 12 heads, FFN
                 3072, embeddings + post-norm, GELU erf), token ids 1x64;
- `transformer`  4 post-norm encoder layers (width 256, 4 heads, FFN 1024, GELU),
                 batch 4, seq 128;
- `swin`         two Swin-style windowed-attention blocks (7x7 windows, the second
                 shifted with torch.roll and a mask, relative position bias),
                 width 96, 3 heads, 1x56x56x96;
- `maxvit`       two MaxViT blocks (MBConv with squeeze-excite, 7x7 block attention,
                 7x7 grid attention, GELU), width 64, 2 heads, 1x64x28x28;
- `whisper`      a Whisper-style audio encoder (conv1d stem with GELU, sinusoidal
                 positions, 4 pre-norm layers, width 256, 4 heads), 1x80x400 mels;
- `llama`        the zoo's LLaMA decoder block (RMSNorm, rotary positions, causal
                 attention, SiLU-gated MLP), width 256, 4 heads, hidden 768, 1x128;
- `mistral`      the same block with grouped-query attention (8 query heads over
                 2 key/value heads) and a 64-position sliding window, 1x128;
- `qwen2`        grouped-query attention (8 over 2) with q/k/v biases, 1x128.

Each model is exported (`torch.export.export(...).run_decompositions()`, core
ATen IR), saved to a temporary `.pt2` and read back with `load_pt2`, then run by
`ProgramRunner` (the public runner API) -- as exported and, with `--optimize`,
after `-p optimize-inference` -- and by torch eager under
`torch.inference_mode()`, interleaved round-robin in this one process, median
per call. Outputs are checked against eager first. Everything is
single-threaded: torch's intra/inter-op threads, and the BLAS under numpy
(environment set before numpy loads, and threadpoolctl when installed). Times
are the process's CPU time (`--wall` for wall-clock): with both sides on one
thread that is their run time, without the waits for a core that other work on
a shared machine adds.

`--ops MODEL` times each compiled step of one model in place and prints the
interpreter's time by operator beside torch's for the same operators (the exported
graph run node by node) and the whole call's against eager; `--profile MODEL` is
cProfile of the same calls.

`--startup` times `exir-run --help` and `exir-run small.pt2` (the zoo's `mlp`)
as fresh subprocesses. `--text` times reading `.mlir` text of a pointwise chain
of 1k, 10k and 50k ops through exir-opt's frontend, in microseconds per op.

The machine is shared, so figures are noisy: ratios are between runners of the
same interleaved run, and nothing here asserts a time. A kernel change is best
judged in one process too: two runners of the same program, one with the change
switched off (a module constant, or a fast path left out when the graph compiles),
interleaved with eager.

What the remaining gap is made of, and what was measured against it (one thread,
CPU time, kernels against torch on the models' own shapes):

- Products: numpy's OpenBLAS takes 1.1-1.35x the time of torch's MKL on the
  models' GEMMs (most at 64 to 512 rows); BERT spends 85% of its call there.
  Computing `W @ x.T` (the weight as stored) instead of `x @ W.T` is 5-13% faster
  for 64 to 128 rows by 768 x 768 and larger, but not once its result is laid out
  row-major again (a transposing copy), so it was not kept.
- GELU (erf form) is 18 numpy passes over cache-sized blocks, 4-7x torch's single
  fused loop; the polynomial in x^2 inside its tanh cannot drop a degree (degree 5
  is 17 ulp off where torch is 5).
- Layer norm and softmax are at the fewest whole-array passes numpy allows (six
  and five); what is left is about 20-30 us of small calls per layer norm.
- Depthwise 3x3 on 256 x 28 x 28 (MaxViT): the channels-last `einsum` is 0.6 ms,
  its two transposes 0.55 ms more; a multiply-add per tap with preallocated
  buffers took 0.9-1.2 ms (blocked or not), on a flat NCHW buffer 3.9 ms, and an
  `einsum` writing NCHW directly 2.4 ms.
- Swin's shifted-window softmax makes subnormal probabilities (exp of -100), which
  slow both sides' products alike.

Measured later against the same gaps (one thread, CPU time, each alternative a column of
one interleaved run, load 4-7 on the 2 cores), kept; together, over seven rounds of the
whole table alternating with the code before them (load 3-8), ours/eager's geometric
mean of per-model medians went 1.24 -> 1.21 and MaxViT's 1.66 -> 1.58, while a single
model's ratio moved by up to 0.3 between rounds on this shared machine:

- the depthwise result's way back from channels-last to NCHW, in blocks of 32
  positions from 128 channels and 32k elements a sample on (`kernels.core.channels_first`):
  MaxViT's 256 x 28 x 28, 0.29-0.33 -> 0.14-0.26 ms over four runs (the gain shrinks
  when the core's other hyperthread is busy); on smaller arrays the plain copy is
  faster (192 x 8 x 8: 8.6 against 16 us, 96 x 16 x 16: 14 against 29);
- `slice`, `select`, `squeeze.dims` and `unsqueeze` as a numpy index built at compile
  time: 0.25 us a call against 1.3-3.4 through the kernel (72 calls a run in ViT).
- layer norm's argument handling done when the graph compiles (`exir_functions.
  _fast_layer_norm`, the kernel's `layer_norm_rows` per call): 50 x 192 52 -> 42 us,
  64 x 768 100 -> 87 (torch 8 and 26: the rest is its six passes);
- softmax without its shift on the rows whose maximum lies in [0, 64]
  (`kernels.core.softmax_rows`; exp(x) cannot overflow there and underflows only where
  torch's exp(x - max) does too), the other rows shifted as before, or all rows when
  more than an eighth need it (a causal mask's first rows): one of five passes fewer,
  16 x 2 x 49 x 49 176 -> 132 us, 4 x 4 x 128 x 128 1.86 -> 1.19 ms, causal 1 x 8 x
  128 x 128 291 -> 277 us (torch 112, 1150, 139).

Measured and not kept:

- GELU as x / (1 + exp(-2u)) (the -2 folded exactly into the polynomial) instead of
  x/2 (1 + tanh(u)): one pass fewer but slower, exp and a division costing more than
  tanh and two multiplies (256 x 28 x 28: 672 against 630 us; torch 117);
- GELU from tables indexed by the top 16 bits of x (Taylor terms of Phi per bucket,
  about 14 passes): `np.take` costs 2.2 ns an element (145 us per 64k), several passes'
  worth each, so it was not built;
- GELU's polynomial as one BLAS product of a matrix of powers of x: the powers take as
  many multiplies as Horner's rule and the matrix-vector product as long as 3.5 of them;
- depthwise 3x3 as one `einsum` over the flat padded NCHW buffer (the output over whole
  padded rows, two junk columns each, then cropped): 5x slower than the channels-last
  `einsum` (256 x 28 x 28: 5.1 against 1.0 ms); the padded channels-last copy of the
  input by blocks of channels or of rows: 125-155 against 145 us, no gain;
- products cut into column blocks (256, 512), row blocks (16, 32) or reduction blocks
  (256) of the same BLAS call: none faster across BERT's, the encoder's and the LLaMA
  block's shapes (within 5%, row blocks up to 2x slower); at 128 rows (the decoder
  blocks) numpy's products are as fast as torch's or faster;
- layer norm's scale and shift as one `einsum` ("ij,i,j->ij") and an add: 55 against
  53 us for the three passes it replaces at 784 x 64 (counted, not built: the variance
  from the sum of squares skips the centring pass but needs x * rstd and a per-row
  shift after it, as many passes again, and cancels where |mean| >> std);
- GELU's products of three as one `np.einsum` ("i,i,i->i", or with a scalar): einsum's
  loops for more than two operands are scalar, 53 us per 64k elements against 12.5 for
  a `np.multiply` (and the polynomial has only complex roots, so no product form);
- GELU's polynomial as a rational function of x^2 (`scripts/fit_erf.py`'s fit): degrees
  (3, 2) take one pass fewer than the degree-6 polynomial but reach 5.4e-8 against
  2.9e-8, (3, 1) and (2, 2) 1.5e-6 and 6.3e-7; none both cheaper and as accurate.

Against MaxViT's convolutions and norms later (one thread, CPU time, load 3.5-6.5 on the
2 cores, so single kernels were compared as columns of one interleaved run, and the
choices that survived that were run again with the calls alternating one by one, as
they do in a model):

- kept: a depthwise weight's form tiled along the output row (`kernels.core.
  DepthwiseTaps`) is made once per program for a weight nothing can write, as
  `RowMajorWeight` keeps a product's weight: the tiling was 20-36 us a call (256 x 3x3
  over rows of 28, 96 x 7x7 over rows of 16); MobileNetV3-small 0.96x in two in-process
  runs with the cache on and off, ConvNeXt and MaxViT within those runs' noise
  (0.91-1.04). Whole models, ours/eager, three rounds alternating the code before it
  and after it (load 5.4-7.0): MobileNetV3-small 0.75, 0.88, 0.83 -> 0.93, 0.79, 0.77;
  ConvNeXt 1.10, 1.22, 1.28 -> 1.15, 1.22, 1.13; MaxViT 1.53, 1.75, 1.66 -> 1.55, 1.60,
  1.81: at that load a round moves a model by up to 0.2, more than the change;
- not kept: the 1x1 convolutions are already one GEMM on the flat NCHW buffer without a
  copy, at torch's time (MaxViT's 256 -> 64 on 28 x 28: 314 against 273 us; 64 -> 256:
  255 against 256); as `(X.T @ W.T).T` they take 420 and 586 us (the transposing copy);
- not kept: depthwise 3x3 (256 x 28 x 28) as nine multiply-adds on shifted views of a
  padded NCHW buffer, blocked by 8, 32 or all 256 channels: 2.0-3.0 ms over whole padded
  rows (inner loops of 840), 2.6-3.9 ms on 3-d views, against 1.07 ms for the whole
  channels-last path; on the channels-last rows the per-tap form is 1.08-1.32 ms against
  the `einsum`'s 0.43-0.56; the `einsum` with the untiled (kh, kw, C) weight on a 6-d view
  697 against 601 us, one output row at a time 744;
- not kept: inference batch norm's per-channel multiply as `einsum("ncp,c->ncp")`
  (numpy's broadcast multiply by a per-row factor runs about 3x slower per element than by
  one scalar): 20-35% faster in blocks of repeated calls over 196 to 3136 positions (256 x
  784: 122 -> 83 us), but 5-30% slower with the calls alternating; and `einsum` adds each
  product to a zero, so a -0.0 product comes out +0.0 (the batch norm's result then
  differs from torch's where the shift is -0.0). Channel blocks of the multiply and add
  (8 to 64 channels, in cache) were slower still (256 x 784: 262-480 against 237 us);
- not kept: products as `W @ x.T` with the bias added in the copy back to row-major
  (`np.add(r.T, b, out=...)`) at 48 to 128 rows: within +-15% of the row-major product
  either way, no consistent winner (48 x 768 x 768 0.83, 64 x 768 x 768 1.02, 128 x 256 x
  1024 1.40);
- not built: kernels handing on channels-last results (a depthwise result as a
  transposed view, pointwise ops keeping the layout) would save both of its transposes
  (about 0.25 ms a MaxViT block), but a tensor's element order is observable:
  `as_strided` reads its storage in memory order, and a program checks that order
  against the dim order its types record (relaying or refusing where numpy's differs),
  so a result laid out NHWC where torch's is NCHW would be relaid or refused there;
- measuring: a depthwise call timed alone faults about 650 fresh pages (its 0.9 MB
  padded buffer and outputs) and takes 2-3x its time inside a model, where no call
  faults (the heap stays grown): single-kernel figures overstate allocation.

Measured again later (one thread, CPU time, `--reps 5`, load 5-6 from other work on the
2 cores), the whole table three times; the target (<= 1.0x geometric mean, none above
1.5x) was met in all three, narrowly:

    round                            mean  MaxViT  ConvNeXt  ViT   Swin  encoder  whisper
    1                                0.97  1.25    1.04      1.10  1.06  1.05     0.99
    2                                0.95  1.35    1.02      1.06  1.05  1.09     1.05
    3, glibc's heap never trimmed    1.00  1.24    1.28      1.05  1.05  1.05     1.05

  (the decoder blocks 0.92-1.00, ResNet-18 0.57-0.66, MobileNetV3-small 0.64-0.82). What is
  left is the numpy kernels' passes: by operator in place, MaxViT's GELU 3.38 against
  torch's 1.48 ms a call (8 calls of 200k elements), its layer norms 0.77 against 0.50,
  softmax 0.58 against 0.46, convolutions 2.95 against 2.55, products 3.89 against 4.10;
  ConvNeXt's GELU 2.07 against 1.17 and layer norms 1.28 against 0.81, products equal.

- Page faults, both sides: Swin's 1 x 56 x 56 x 384 arrays (4.8 MB) come from a heap
  glibc trims and grows again, so in one process running a few models before it, a Swin
  call faulted about 6,000 pages (ours 6,564, eager 5,873: 13-16 ms of system time in
  calls of 44-49 ms). With `mallopt(M_MMAP_THRESHOLD, 64 MB)` and `mallopt(M_TRIM_THRESHOLD,
  512 MB)` neither faults (Swin 32.0 against 32.3 ms) and the table (round 3 above) moves
  by up to 0.26 a model: eager's ConvNeXt 33.0 -> 25.7 ms, ours 33.8 -> 32.8. Both sides
  share the process's heap, so no ratio is biased by it, but a model's time depends on the
  heap's history; the interpreter does not call `mallopt` (a process-wide setting of the C
  library is the embedding program's choice).
- GELU's pass costs, one 64k-element float32 block (of 110 us): the degree-6 polynomial
  54 us (Horner: 6 multiplies by t at 5.4 us, 6 scalar adds at 3.4), `tanh` 25, x^2 7,
  the three multiplies and add after `tanh` 18, the +inf/NaN check (`max`) 5. numpy's
  float32 `tanh` and `exp` take 0.4-0.5 ns an element here, torch's whole GELU 0.6-0.9.
- not kept: GELU's polynomial as three quadratic factors `(t - a)^2 + d` of its complex
  roots (t scaled so that the product is monic; each factor a sum of positive terms):
  9 scalar passes, 2 squares and 3 products in place of Horner's 12 passes, but no faster
  (200k elements 400-480 against 380-465 us; 1.2M elements 2.9-3.7 against 2.6-2.8 ms,
  the fourth block array leaving L2);
- not kept: erf(x / sqrt 2) / x as a rational in x^2 evaluated in float32 (clipped at
  5.75) instead of `tanh`: fits (`scripts/fit_erf.py`'s `fit`, absolute error of erf) of
  degrees (3, 3), (4, 3), (4, 4), (5, 4) reach only 2.4e-5, 3.6e-6, 2.2e-6, 1.2e-6, where
  torch's float32 GELU is a few ulp (about 1e-7) off, and the clip and the division
  (10.7 and 7.4 us a block) take most of what `tanh` costs;
- not kept: products of Swin's and MaxViT's shapes are no slower in numpy than in torch
  alone (3136 x 96 by 96 x 384: 2.76-2.86 against 3.62 ms; 784 x 64 by 64 x 256 0.29
  against 0.34), so nothing was changed there;
- layer norm on short rows: a per-row broadcast (`d * rstd[:, None]`) costs 4-6x a
  multiply by one scalar on 3136 x 96 (95-130 against 20-24 us), a multiply by the weight
  3x (68-83 us); the weight tiled to 32 rows (inner loops of 3,072) took 55, too little to
  build.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy (and torch) load their BLAS

import argparse
import contextlib
import cProfile
import gc
import math
import pathlib
import pstats
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
import torch.utils._pytree as pytree
from torch import nn
from xdsl.dialects.builtin import ModuleOp

ROOT = pathlib.Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
BIN = pathlib.Path(sys.executable).parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))

import gen_zoo
import pass_harness

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner

RTOL = 2e-3  # against the largest output magnitude: deep float32 stacks sum in other orders


# -- models ---------------------------------------------------------------------


class MobileNetV3Small(nn.Module):
    """MobileNetV3-small: the paper's table of inverted-residual blocks with squeeze-excite."""

    # kernel, expansion, out, squeeze-excite, hardswish, stride
    BLOCKS = (
        (3, 16, 16, True, False, 2), (3, 72, 24, False, False, 2), (3, 88, 24, False, False, 1),
        (5, 96, 40, True, True, 2), (5, 240, 40, True, True, 1), (5, 240, 40, True, True, 1),
        (5, 120, 48, True, True, 1), (5, 144, 48, True, True, 1), (5, 288, 96, True, True, 2),
        (5, 576, 96, True, True, 1), (5, 576, 96, True, True, 1),
    )  # fmt: skip

    class SqueezeExcite(nn.Module):
        def __init__(self, c: int) -> None:
            super().__init__()
            squeezed = max(8, (c // 4 + 4) // 8 * 8)
            self.fc1 = nn.Conv2d(c, squeezed, 1)
            self.fc2 = nn.Conv2d(squeezed, c, 1)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            s = F.adaptive_avg_pool2d(x, 1)
            return x * F.hardsigmoid(self.fc2(F.relu(self.fc1(s))))

    class Block(nn.Module):
        def __init__(self, cin: int, k: int, exp: int, cout: int, se: bool, hs: bool, stride: int, gen: torch.Generator) -> None:
            super().__init__()
            act: nn.Module = nn.Hardswish() if hs else nn.ReLU()
            layers: list[nn.Module] = []
            if exp != cin:
                layers += [nn.Conv2d(cin, exp, 1, bias=False), _bn(exp, gen), act]
            layers += [nn.Conv2d(exp, exp, k, stride, k // 2, groups=exp, bias=False), _bn(exp, gen), act]
            if se:
                layers.append(MobileNetV3Small.SqueezeExcite(exp))
            layers += [nn.Conv2d(exp, cout, 1, bias=False), _bn(cout, gen)]
            self.body = nn.Sequential(*layers)
            self.residual = stride == 1 and cin == cout

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            y = self.body(x)
            return x + y if self.residual else y

    def __init__(self, gen: torch.Generator, classes: int = 1000) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Conv2d(3, 16, 3, 2, 1, bias=False), _bn(16, gen), nn.Hardswish()]
        cin = 16
        for k, exp, cout, se, hs, stride in self.BLOCKS:
            layers.append(self.Block(cin, k, exp, cout, se, hs, stride, gen))
            cin = cout
        layers += [nn.Conv2d(cin, 576, 1, bias=False), _bn(576, gen), nn.Hardswish()]
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Linear(576, 1024), nn.Hardswish(), nn.Linear(1024, classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def _bn(c: int, gen: torch.Generator) -> nn.BatchNorm2d:
    bn = nn.BatchNorm2d(c)
    gen_zoo._randomize_bn(bn, gen)
    return bn


class LayerNorm2d(nn.LayerNorm):
    """ConvNeXt's LayerNorm over the channels of an NCHW tensor (permute, normalize, permute back)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return super().forward(x.permute(0, 2, 3, 1)).permute(0, 3, 1, 2)


class ConvNeXtBlock(nn.Module):
    """7x7 depthwise conv, channels-last LayerNorm, 4x MLP with GELU, layer scale, residual."""

    def __init__(self, dim: int, gen: torch.Generator) -> None:
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(0.5 + 0.1 * torch.randn(dim, generator=gen))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.dwconv(x).permute(0, 2, 3, 1)
        y = self.fc2(F.gelu(self.fc1(self.norm(y)))) * self.gamma
        return x + y.permute(0, 3, 1, 2)


class ConvNeXt(nn.Module):
    """ConvNeXt: a 4x4 patchify stem, four stages with LayerNorm + 2x2 strided downsampling."""

    def __init__(
        self, gen: torch.Generator, depths: Sequence[int] = (3, 3, 9, 3), dims: Sequence[int] = (96, 192, 384, 768)
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = [nn.Conv2d(3, dims[0], 4, 4), LayerNorm2d(dims[0], eps=1e-6)]
        for i, (depth, dim) in enumerate(zip(depths, dims)):
            if i:
                layers += [LayerNorm2d(dims[i - 1], eps=1e-6), nn.Conv2d(dims[i - 1], dim, 2, 2)]
            layers += [ConvNeXtBlock(dim, gen) for _ in range(depth)]
        self.features = nn.Sequential(*layers)
        self.norm = nn.LayerNorm(dims[-1], eps=1e-6)
        self.head = nn.Linear(dims[-1], 1000)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.norm(self.features(x).mean((2, 3))))


class SelfAttention(nn.Module):
    """Multi-head self-attention written out (fused qkv), as timm and Hugging Face models compute it."""

    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x: torch.Tensor, bias: torch.Tensor | None = None) -> torch.Tensor:
        b, t, d = x.shape
        hd = d // self.heads
        q, k, v = self.qkv(x).reshape(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4).unbind(0)
        scores = (q * hd**-0.5) @ k.transpose(-2, -1)
        if bias is not None:
            scores = scores + bias
        out = (scores.softmax(-1) @ v).transpose(1, 2).reshape(b, t, d)
        return self.proj(out)


class PreNormBlock(nn.Module):
    """ViT's block: x + attn(norm(x)), x + mlp(norm(x)) with GELU."""

    def __init__(self, dim: int, heads: int, mlp: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = SelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.fc1 = nn.Linear(dim, mlp)
        self.fc2 = nn.Linear(mlp, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class ViT(nn.Module):
    """A Vision Transformer: 16x16 patch embedding, class token, learned positions, pre-norm blocks."""

    def __init__(self, gen: torch.Generator, image: int = 112, dim: int = 192, depth: int = 12, heads: int = 3) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, dim, 16, 16)
        tokens = (image // 16) ** 2 + 1
        self.cls = nn.Parameter(0.02 * torch.randn(1, 1, dim, generator=gen))
        self.pos = nn.Parameter(0.02 * torch.randn(1, tokens, dim, generator=gen))
        self.blocks = nn.Sequential(*[PreNormBlock(dim, heads, 4 * dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, 1000)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.patch(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1) + self.pos
        return self.head(self.norm(self.blocks(x))[:, 0])


class BertLayer(nn.Module):
    """BERT's post-norm layer: attention, add & norm, GELU (erf) feed-forward, add & norm."""

    def __init__(self, dim: int, heads: int, ff: int) -> None:
        super().__init__()
        self.attn = SelfAttention(dim, heads)
        self.norm1 = nn.LayerNorm(dim, eps=1e-12)
        self.fc1 = nn.Linear(dim, ff)
        self.fc2 = nn.Linear(ff, dim)
        self.norm2 = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        x = self.norm1(x + self.attn(x, mask))
        return self.norm2(x + self.fc2(F.gelu(self.fc1(x))))


class Bert(nn.Module):
    """A BERT encoder: word + position + token-type embeddings, LayerNorm, post-norm layers, pooler."""

    def __init__(
        self, gen: torch.Generator, vocab: int = 30522, dim: int = 768, depth: int = 12, heads: int = 12, max_len: int = 512
    ) -> None:
        super().__init__()
        self.words = nn.Embedding(vocab, dim)
        self.positions = nn.Embedding(max_len, dim)
        self.types = nn.Embedding(2, dim)
        self.norm = nn.LayerNorm(dim, eps=1e-12)
        self.layers = nn.ModuleList([BertLayer(dim, heads, 4 * dim) for _ in range(depth)])
        self.pooler = nn.Linear(dim, dim)

    def forward(self, ids: torch.Tensor, attention_mask: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        t = ids.shape[1]
        pos = torch.arange(t, device=ids.device).unsqueeze(0)
        x = self.norm(self.words(ids) + self.positions(pos) + self.types(torch.zeros_like(ids)))
        bias = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        for layer in self.layers:
            x = layer(x, bias)
        return x, torch.tanh(self.pooler(x[:, 0]))


class SwinBlock(nn.Module):
    """A Swin Transformer block on NHWC input: (shifted) window attention with relative
    position bias, then a GELU MLP; the window partition is the reshape/permute chain."""

    def __init__(self, gen: torch.Generator, dim: int, heads: int, size: int, window: int, shift: int) -> None:
        super().__init__()
        self.window, self.shift, self.heads = window, shift, heads
        self.norm1 = nn.LayerNorm(dim)
        self.attn = SelfAttention(dim, heads)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.table = nn.Parameter(0.02 * torch.randn((2 * window - 1) ** 2, heads, generator=gen))
        coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (window - 1)
        self.register_buffer("index", rel[..., 0] * (2 * window - 1) + rel[..., 1], persistent=False)
        mask = torch.zeros(1, (size // window) ** 2, 1, window * window, window * window)
        if shift:
            region = torch.zeros(1, size, size, 1)
            cuts = (slice(0, -window), slice(-window, -shift), slice(-shift, None))
            for n, (h, w) in enumerate((h, w) for h in cuts for w in cuts):
                region[:, h, w, :] = n
            ids = self._partition(region).squeeze(-1)
            same = ids[:, :, None] == ids[:, None, :]
            mask = torch.where(same, 0.0, -100.0).view(1, -1, 1, window * window, window * window)
        self.register_buffer("mask", mask, persistent=False)

    def _partition(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        ws = self.window
        x = x.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5)
        return x.reshape(-1, ws * ws, c)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        ws, n = self.window, self.window * self.window
        y = self.norm1(x)
        if self.shift:
            y = torch.roll(y, (-self.shift, -self.shift), (1, 2))
        windows = self._partition(y)  # [b * nW, ws*ws, c]
        bias = self.table[self.index.view(-1)].view(n, n, self.heads).permute(2, 0, 1)
        bias = (bias.unsqueeze(0).unsqueeze(0) + self.mask).view(-1, self.heads, n, n)
        y = self.attn(windows, bias.expand(b, -1, -1, -1, -1).reshape(-1, self.heads, n, n))
        y = y.view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        if self.shift:
            y = torch.roll(y, (self.shift, self.shift), (1, 2))
        x = x + y
        return x + self.fc2(F.gelu(self.fc1(self.norm2(x))))


class SwinStage(nn.Module):
    """A regular and a shifted Swin block."""

    def __init__(self, gen: torch.Generator, dim: int = 96, heads: int = 3, size: int = 56, window: int = 7) -> None:
        super().__init__()
        self.blocks = nn.Sequential(
            SwinBlock(gen, dim, heads, size, window, 0), SwinBlock(gen, dim, heads, size, window, window // 2)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(x)


class MaxViTBlock(nn.Module):
    """A MaxViT block on NCHW input: MBConv (1x1 expand, BN, GELU, 3x3 depthwise, BN, GELU,
    squeeze-excite, 1x1 project, BN, residual), then block attention over non-overlapping
    `part` x `part` windows and grid attention over a `part` x `part` grid of strided
    tokens, each a pre-norm attention + GELU MLP block on channels-last tokens."""

    def __init__(self, gen: torch.Generator, dim: int, heads: int, part: int) -> None:
        super().__init__()
        self.part = part
        hidden = 4 * dim
        self.mbconv = nn.Sequential(
            nn.Conv2d(dim, hidden, 1, bias=False), _bn(hidden, gen), nn.GELU(),
            nn.Conv2d(hidden, hidden, 3, 1, 1, groups=hidden, bias=False), _bn(hidden, gen), nn.GELU(),
            MobileNetV3Small.SqueezeExcite(hidden),
            nn.Conv2d(hidden, dim, 1, bias=False), _bn(dim, gen),
        )  # fmt: skip
        self.block_attn = PreNormBlock(dim, heads, 4 * dim)
        self.grid_attn = PreNormBlock(dim, heads, 4 * dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.mbconv(x)
        b, c, h, w = x.shape
        p = self.part
        y = x.permute(0, 2, 3, 1)  # NHWC
        # block: window (i, j) holds pixels (i*p + u, j*p + v)
        t = y.reshape(b, h // p, p, w // p, p, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, p * p, c)
        t = self.block_attn(t).view(b, h // p, w // p, p, p, c).permute(0, 1, 3, 2, 4, 5)
        y = t.reshape(b, h, w, c)
        # grid: group (i, j) holds pixels (u*(h/p) + i, v*(w/p) + j)
        t = y.reshape(b, p, h // p, p, w // p, c).permute(0, 2, 4, 1, 3, 5).reshape(-1, p * p, c)
        t = self.grid_attn(t).view(b, h // p, w // p, p, p, c).permute(0, 3, 1, 4, 2, 5)
        return t.reshape(b, h, w, c).permute(0, 3, 1, 2)


class MaxViTStage(nn.Module):
    """Two MaxViT blocks at width 64, 2 heads, 7x7 blocks and grid (MaxViT-T's first stage width)."""

    def __init__(self, gen: torch.Generator, dim: int = 64, heads: int = 2, part: int = 7) -> None:
        super().__init__()
        self.blocks = nn.Sequential(MaxViTBlock(gen, dim, heads, part), MaxViTBlock(gen, dim, heads, part))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.blocks(x)


class WhisperEncoder(nn.Module):
    """Whisper's audio encoder: two conv1d + GELU (the second stride 2) over log-mel frames,
    sinusoidal positions, pre-norm transformer blocks with GELU MLPs, a final LayerNorm."""

    def __init__(self, gen: torch.Generator, mels: int = 80, frames: int = 400, dim: int = 256, depth: int = 4) -> None:
        super().__init__()
        self.conv1 = nn.Conv1d(mels, dim, 3, padding=1)
        self.conv2 = nn.Conv1d(dim, dim, 3, stride=2, padding=1)
        tokens = frames // 2
        inv = torch.exp(-math.log(10000.0) * torch.arange(dim // 2) / (dim // 2 - 1))
        angle = torch.arange(tokens)[:, None] * inv[None, :]
        self.register_buffer("pos", torch.cat([angle.sin(), angle.cos()], dim=1), persistent=False)
        self.blocks = nn.Sequential(*[PreNormBlock(dim, dim // 64, 4 * dim) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)

    def forward(self, mel: torch.Tensor) -> torch.Tensor:
        x = F.gelu(self.conv2(F.gelu(self.conv1(mel)))).transpose(1, 2)
        return self.norm(self.blocks(x + self.pos))


class DecoderBlock(gen_zoo.LlamaBlock):
    """The zoo's LLaMA block with the variations of later decoders: `kv_heads` key/value
    heads shared by groups of query heads (grouped-query attention: Mistral, Qwen2; the
    keys and values are repeated per group, as Hugging Face's `repeat_kv`), biases on the
    q/k/v projections (Qwen2), and a sliding window of `window` positions on top of the
    causal mask (Mistral)."""

    def __init__(
        self, gen: torch.Generator, dim: int, heads: int, kv_heads: int, hidden: int, max_seq: int,
        qkv_bias: bool = False, window: int | None = None,
    ) -> None:  # fmt: skip
        super().__init__(gen, dim, heads, hidden, max_seq)
        hd = dim // heads
        self.kv_heads, self.window = kv_heads, window
        self.q_proj = nn.Linear(dim, dim, bias=qkv_bias)
        self.k_proj = nn.Linear(dim, kv_heads * hd, bias=qkv_bias)
        self.v_proj = nn.Linear(dim, kv_heads * hd, bias=qkv_bias)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        hd, group = d // self.heads, self.heads // self.kv_heads
        h = self.input_norm(x)
        q = self.q_proj(h).view(b, t, self.heads, hd).transpose(1, 2)
        k = self.k_proj(h).view(b, t, self.kv_heads, hd).transpose(1, 2)
        v = self.v_proj(h).view(b, t, self.kv_heads, hd).transpose(1, 2)
        cos, sin = self.cos_cached[:t], self.sin_cached[:t]
        q = q * cos + gen_zoo._rotate_half(q) * sin
        k = k * cos + gen_zoo._rotate_half(k) * sin
        k = k[:, :, None].expand(b, self.kv_heads, group, t, hd).reshape(b, self.heads, t, hd)
        v = v[:, :, None].expand(b, self.kv_heads, group, t, hd).reshape(b, self.heads, t, hd)
        mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
        if self.window is not None:  # position i sees i - window < j <= i
            mask = mask + torch.tril(torch.full((t, t), float("-inf")), diagonal=-self.window)
        scores = q @ k.transpose(-2, -1) / hd**0.5 + mask
        x = x + self.o_proj((torch.softmax(scores, dim=-1) @ v).transpose(1, 2).reshape(b, t, d))
        h = self.post_attention_norm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


def _randn(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen)


def _bert_args(gen: torch.Generator) -> tuple[torch.Tensor, ...]:
    ids = torch.randint(0, 30522, (1, 64), generator=gen)
    mask = torch.ones(1, 64, dtype=torch.int64)
    mask[:, 56:] = 0
    return ids, mask


@dataclass
class Case:
    name: str
    label: str
    make: Callable[[torch.Generator], nn.Module]
    args: Callable[[torch.Generator], tuple[torch.Tensor, ...]]


def _resnet18(gen: torch.Generator) -> nn.Module:
    model = gen_zoo.ResNet18(gen, widths=(64, 128, 256, 512))
    model.fc = nn.Linear(512, 1000)
    return model


CASES = [
    Case("resnet18", "ResNet-18 1x3x64x64", _resnet18, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("mobilenetv3", "MobileNetV3-small 1x3x96x96", MobileNetV3Small, lambda g: (_randn(g, 1, 3, 96, 96),)),
    Case("convnext", "ConvNeXt-T sized 1x3x64x64", ConvNeXt, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("vit", "ViT-Ti/16 1x3x112x112", ViT, lambda g: (_randn(g, 1, 3, 112, 112),)),
    Case("bert", "BERT-base sized 1x64", Bert, _bert_args),
    Case(
        "transformer",
        "4-layer GELU encoder d256 4x128",
        lambda g: gen_zoo.TransformerEncoder(layers=4, dim=256, heads=4, ff=1024),
        lambda g: (_randn(g, 4, 128, 256),),
    ),
    Case("swin", "2 Swin blocks d96 1x56x56x96", SwinStage, lambda g: (_randn(g, 1, 56, 56, 96),)),
    Case("maxvit", "2 MaxViT blocks d64 1x64x28x28", MaxViTStage, lambda g: (_randn(g, 1, 64, 28, 28),)),
    Case("whisper", "Whisper encoder d256 4 layers 1x80x400", WhisperEncoder, lambda g: (_randn(g, 1, 80, 400),)),
    Case(
        "llama",
        "LLaMA block d256 4 heads 1x128",
        lambda g: gen_zoo.LlamaBlock(g, dim=256, heads=4, hidden=768, max_seq=128),
        lambda g: (_randn(g, 1, 128, 256),),
    ),
    Case(
        "mistral",
        "Mistral-style block d256 8/2 heads window 64 1x128",
        lambda g: DecoderBlock(g, dim=256, heads=8, kv_heads=2, hidden=768, max_seq=128, window=64),
        lambda g: (_randn(g, 1, 128, 256),),
    ),
    Case(
        "qwen2",
        "Qwen2-style block d256 8/2 heads qkv bias 1x128",
        lambda g: DecoderBlock(g, dim=256, heads=8, kv_heads=2, hidden=768, max_seq=128, qkv_bias=True),
        lambda g: (_randn(g, 1, 128, 256),),
    ),
]


# -- running ----------------------------------------------------------------------


@contextlib.contextmanager
def one_thread() -> Iterator[None]:
    """BLAS on one thread (threadpoolctl when installed; the environment is set already)."""
    torch.set_num_threads(1)
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    with threadpool_limits(limits=1):
        yield


def flat(out: Any) -> list[np.ndarray]:
    return [np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t) for t in pytree.tree_leaves(out)]


def rel_error(got: Sequence[Any], want: Sequence[np.ndarray]) -> float:
    """Largest error over all outputs, relative to each output's largest magnitude."""
    if len(got) != len(want):
        return math.inf
    worst = 0.0
    for g, w in zip(got, want):
        g = np.asarray(g, dtype=np.float64)
        if g.shape != w.shape:
            return math.inf
        scale = max(float(np.abs(w).max()) if w.size else 0.0, 1e-6)
        worst = max(worst, float(np.abs(g - w).max()) / scale if w.size else 0.0)
    return worst


CLOCK: Callable[[], float] = time.process_time
"""CPU time of this process by default (`--wall`: wall-clock time). Both sides run on one
thread, so CPU time is their run time without the waits for a core that other programs on
a shared machine cause."""


def interleave(fns: dict[str, Callable[[], Any]], reps: int, sample_s: float) -> dict[str, float]:
    """Median seconds per call of each function, round-robin with a rotating start;
    each sample is as many calls as fill `sample_s` (at least one)."""
    number: dict[str, int] = {}
    for name, fn in fns.items():
        fn()  # warm-up
        t = CLOCK()
        fn()
        number[name] = max(1, min(100, int(sample_s / max(CLOCK() - t, 1e-7))))
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    gc.collect()
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            fn, k = fns[name], number[name]
            t = CLOCK()
            for _ in range(k):
                fn()
            times[name].append((CLOCK() - t) / k)
    return {n: statistics.median(ts) for n, ts in times.items()}


@dataclass
class Row:
    name: str
    label: str
    ms: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


def build(case: Case, tmp: pathlib.Path) -> tuple[nn.Module, tuple[torch.Tensor, ...], ModuleOp]:
    """The eager model, its inputs, and its core-ATen program read back from a saved `.pt2`."""
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = case.make(gen).eval()
    args = case.args(gen)
    ep = torch.export.export(model, args).run_decompositions()
    path = tmp / f"{case.name}.core.pt2"
    torch.export.save(ep, path)
    return model, args, load_pt2(path.read_bytes(), path.name)


def bench(case: Case, tmp: pathlib.Path, reps: int, sample_s: float, optimize: bool) -> Row:
    row = Row(case.name, case.label)
    try:
        model, args, module = build(case, tmp)
    except Exception as e:
        row.errors.append(f"export/import: {one_line(e)}")
        return row
    np_args = [a.numpy() for a in args]
    with torch.inference_mode():
        want = flat(model(*args))

    def eager() -> Any:
        with torch.inference_mode():
            return model(*args)

    fns: dict[str, Callable[[], Any]] = {"eager": eager}
    runners = {"ours": ProgramRunner(module)}
    if optimize:
        try:
            runners["ours -O"] = ProgramRunner(pass_harness.apply(module, "optimize-inference"))
        except Exception as e:
            row.errors.append(f"optimize-inference: {one_line(e)}")
    checks = []
    for name, r in runners.items():
        try:
            err = rel_error(r.run(np_args), want)
        except Exception as e:
            row.errors.append(f"{name}: {one_line(e)}")
            continue
        checks.append(f"{name} {err:.1e}")
        if err <= RTOL:
            fns[name] = lambda r=r: r.run(np_args)
        else:
            row.errors.append(f"{name}: outputs differ from eager (relative error {err:.1e}; not timed)")
    print(f"  {case.name}: error vs eager (relative to max |output|): {', '.join(checks) or '-'}", flush=True)
    row.ms = {k: v * 1e3 for k, v in interleave(fns, reps, sample_s).items()}
    return row


def one_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:240]


def fmt_ms(x: float | None) -> str:
    """Three significant digits without an exponent."""
    if x is None:
        return "-"
    return f"{x:.{min(4, max(0, 2 - math.floor(math.log10(x)))) if x > 0 else 2}f}"


def report(rows: list[Row], reps: int, optimize: bool) -> None:
    cols = ["model", "eager ms", "ours ms", "ours/eager"] + (["ours -O ms", "-O/eager"] if optimize else [])
    table = []
    ratios: dict[str, list[float]] = {"ours": [], "ours -O": []}
    for r in rows:
        eager = r.ms.get("eager")
        cells = [r.name, fmt_ms(eager)]
        for key in ("ours", "ours -O") if optimize else ("ours",):
            ms = r.ms.get(key)
            ratio = ms / eager if ms is not None and eager else None
            if ratio is not None:
                ratios[key].append(ratio)
            cells += [fmt_ms(ms), "-" if ratio is None else f"{ratio:.2f}"]
        table.append(cells)
    widths = [max(len(c), *(len(t[i]) for t in table)) for i, c in enumerate(cols)]

    def line(cells: Sequence[str]) -> str:
        return " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))

    clock = "CPU" if CLOCK is time.process_time else "wall-clock"
    print(f"\nnumpy interpreter vs torch eager, single-threaded, {clock} time, median of {reps} interleaved samples")
    print(line(cols))
    print("-+-".join("-" * w for w in widths))
    for r, cells in zip(rows, table):
        print(line(cells))
        for e in r.errors:
            print(f"    {r.name}: {e}")
    for key in ("ours", "ours -O") if optimize else ("ours",):
        rs = ratios[key]
        if not rs:
            continue
        geo = math.exp(sum(math.log(x) for x in rs) / len(rs))
        worst = max(rs)
        met = geo <= 1.0 and worst <= 1.5 and len(rs) == len(rows)
        print(
            f"{key}/eager: geometric mean {geo:.2f}x, worst {worst:.2f}x over {len(rs)} of {len(rows)} models "
            f"(target <= 1.0x mean, none > 1.5x: {'MET' if met else 'NOT MET'})"
        )


# -- start-up and text ------------------------------------------------------------------


def startup(reps: int) -> None:
    """`exir-run --help` and `exir-run` on a small `.pt2`, each a fresh process; median wall time
    (start-up is mostly imports and disk: wall time is what a user waits)."""
    exe = str(BIN / "exir-run")
    small = [str(ZOO / "mlp.core.pt2"), "--inputs", str(ZOO / "mlp.inputs.npz")]
    cases = {"exir-run --help": [exe, "--help"], "exir-run mlp.core.pt2": [exe, *small]}
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "0"}
    times: dict[str, list[float]] = {k: [] for k in cases}
    for name, cmd in cases.items():
        done = subprocess.run(cmd, capture_output=True, env=env, text=True)  # bytecode caches warm
        if done.returncode:
            print(f"\nstart-up: {name} failed: {done.stderr.strip()[-300:]}")
            return
    for _ in range(reps):
        for name, cmd in cases.items():
            t = time.perf_counter()
            subprocess.run(cmd, capture_output=True, env=env, check=True)
            times[name].append(time.perf_counter() - t)
    print(f"\nstart-up, fresh process each, median of {reps}:")
    for name, ts in times.items():
        print(f"  {name:28s} {statistics.median(ts):6.2f} s")


def chain_text(n_ops: int) -> str:
    """The `.mlir` of an exported program that is a chain of `n_ops` pointwise ops on a 4x16 tensor."""
    t = "!exir.tensor<[4, 16], float32>"
    leaf = "{\\22type\\22: null, \\22context\\22: null, \\22children_spec\\22: []}"
    tup = "{\\22type\\22: \\22builtins.tuple\\22, \\22context\\22: \\22null\\22, \\22children_spec\\22: "
    no_kwargs = "{\\22type\\22: \\22builtins.dict\\22, \\22context\\22: \\22[]\\22, \\22children_spec\\22: []}"
    in_spec = f"[1, {tup}[{tup}[{leaf}]}}, {no_kwargs}]}}]"
    lines = [
        "builtin.module {",
        f'  exir.program inputs [<user_input "x">] outputs [<user_output "v{n_ops}">] '
        f'in_spec "{in_spec}" out_spec "[1, {leaf}]" {{',
        f"    exir.graph @forward(%v0: {t}) -> {t} {{",
    ]
    for i in range(1, n_ops + 1):
        if i % 3 == 1:
            lines.append(f"      %v{i} = aten.relu.default(%v{i - 1}) : ({t}) -> {t}")
        elif i % 3 == 2:
            lines.append(f"      %v{i} = aten.add.Tensor(%v{i - 1}, %v{max(i - 2, 0)}) : ({t}, {t}) -> {t}")
        else:
            lines.append(f"      %v{i} = aten.mul.Scalar(%v{i - 1}, 0.5) : ({t}) -> {t}")
    lines += [f"      exir.output %v{n_ops} : {t}", "    }", "  }", "}", ""]
    return "\n".join(lines)


def read_text(path: pathlib.Path) -> Any:
    """Read `path` the way `exir-opt` does (its frontend, verification included), printing nothing."""
    from xdsl_exir.tools.exir_opt import ExirOptMain

    got: list[Any] = []

    class Reader(ExirOptMain):
        def output_resulting_program(self, prog: Any) -> str:
            got.append(prog)
            return ""

    Reader(args=[str(path), "-o", os.devnull]).run()
    return got[0]


def text_read(sizes: Sequence[int], tmp: pathlib.Path) -> None:
    print("\ntext read (.mlir, exir-opt's frontend + verification), a pointwise chain:")
    for n in sizes:
        path = tmp / f"chain{n}.mlir"
        path.write_text(chain_text(n))
        if n == sizes[0]:
            read_text(path)  # imports and caches warm
        best = math.inf
        for _ in range(3 if n <= 10_000 else 1):
            t = time.perf_counter()
            read_text(path)
            best = min(best, time.perf_counter() - t)
        print(f"  {n:6d} ops  {best:7.2f} s  {best / n * 1e6:8.1f} us/op")


def profile(case: Case, tmp: pathlib.Path, top: int) -> None:
    """cProfile of a few interpreter calls: where the time goes."""
    _, args, module = build(case, tmp)
    runner = ProgramRunner(module)
    np_args = [a.numpy() for a in args]
    runner.run(np_args)
    prof = cProfile.Profile(CLOCK)
    prof.enable()
    for _ in range(10):
        runner.run(np_args)
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def op_times(case: Case, tmp: pathlib.Path, top: int, calls: int = 10) -> None:
    """Where a run's time goes, by operator: each compiled step timed in place (a `wrap_op`
    around it), so every kernel meets the caches a real run leaves it, unlike a kernel
    timed alone. cProfile (`--profile`) charges its own overhead to each Python call,
    which inflates the many small ones. Beside it, torch's own time for the same
    operators: the exported graph run node by node by `torch.fx.Interpreter`, each
    call timed the same way (a few microseconds of the interpreter's own per node, so
    views and other cheap ops read high on that side)."""
    from xdsl_exir.interpreters.exir_functions import target_of

    model, args, module = build(case, tmp)
    spent: dict[str, float] = {}
    count: dict[str, int] = {}

    def wrap(prepared: Callable[..., Any], op: Any) -> Callable[..., Any]:
        name = target_of(op) if op.name == "exir.call_function" or op.name.startswith("aten.") else op.name

        def timed(*ops: Any) -> Any:
            t = CLOCK()
            out = prepared(*ops)
            spent[name] = spent.get(name, 0.0) + CLOCK() - t
            count[name] = count.get(name, 0) + 1
            return out

        return timed

    np_args = [a.numpy() for a in args]
    timed_runner, plain = ProgramRunner(module, wrap_op=wrap), ProgramRunner(module)
    timed_runner.run(np_args)
    spent.clear()
    count.clear()
    for _ in range(calls):
        timed_runner.run(np_args)
    torch_spent = _eager_op_times(model, args, calls)

    def eager() -> Any:
        with torch.inference_mode():
            return model(*args)

    ms = {k: v * 1e3 for k, v in interleave({"eager": eager, "ours": lambda: plain.run(np_args)}, 5, 0.05).items()}
    print(f"{case.name}: eager {fmt_ms(ms['eager'])} ms, ours {fmt_ms(ms['ours'])} ms a call; by operator, timed in place:")
    print(f"  {'operator':50s} {'calls':>5s} {'ours ms':>9s} {'torch ms':>9s} {'ours/torch':>10s}")
    for name, total in sorted(spent.items(), key=lambda kv: -kv[1])[:top]:
        theirs = torch_spent.get(name)
        ratio = f"{total / theirs:10.2f}" if theirs else f"{'-':>10s}"
        theirs_ms = f"{theirs / calls * 1e3:9.3f}" if theirs is not None else f"{'-':>9s}"
        print(f"  {name:50s} {count[name] // calls:5d} {total / calls * 1e3:9.3f} {theirs_ms} {ratio}")


def _eager_op_times(model: nn.Module, args: tuple[torch.Tensor, ...], calls: int) -> dict[str, float]:
    """Seconds torch spends in each operator of the exported core-ATen graph over `calls` runs."""
    import torch.fx

    gm = torch.export.export(model, args).run_decompositions().module()
    spent: dict[str, float] = {}

    class Timed(torch.fx.Interpreter):
        def run_node(self, n: torch.fx.Node) -> Any:
            if n.op != "call_function":
                return super().run_node(n)
            t = CLOCK()
            out = super().run_node(n)
            key = str(n.target)
            spent[key] = spent.get(key, 0.0) + CLOCK() - t
            return out

    with torch.inference_mode():
        Timed(gm).run(*args)
        spent.clear()
        for _ in range(calls):
            Timed(gm).run(*args)
    return spent


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("--models", default="", help=f"comma-separated subset of {','.join(c.name for c in CASES)}")
    parser.add_argument("--reps", type=int, default=None, help="interleaved samples per runner (default 9, --quick 3)")
    parser.add_argument("--quick", action="store_true", help="few short samples: a smoke run")
    parser.add_argument("-O", "--optimize", action="store_true", help="also time the program after -p optimize-inference")
    parser.add_argument("--wall", action="store_true", help="time wall-clock instead of CPU time")
    parser.add_argument("--no-models", action="store_true", help="skip the model table")
    parser.add_argument("--startup", action="store_true", help="time exir-run start-up (subprocesses)")
    parser.add_argument("--text", action="store_true", help="time reading .mlir text at 1k, 10k, 50k ops")
    parser.add_argument("--text-sizes", default="1000,10000,50000", help="op counts for --text")
    parser.add_argument("--profile", metavar="MODEL", help="cProfile the interpreter on one model instead")
    parser.add_argument("--ops", metavar="MODEL", help="the interpreter's time by operator on one model instead")
    opts = parser.parse_args(argv)
    global CLOCK
    if opts.wall:
        CLOCK = time.perf_counter
    reps = opts.reps or (3 if opts.quick else 9)
    sample_s = 0.01 if opts.quick else 0.05
    by_name = {c.name: c for c in CASES}
    wanted = [m for m in opts.models.split(",") if m]
    single = {m for m in (opts.profile, opts.ops) if m}
    unknown = set(wanted) - set(by_name) | single - set(by_name)
    if unknown:
        parser.error(f"unknown models: {', '.join(sorted(unknown))}")
    torch.set_num_interop_threads(1)
    with one_thread(), tempfile.TemporaryDirectory(prefix="exir-models-") as d:
        tmp = pathlib.Path(d)
        if opts.profile:
            profile(by_name[opts.profile], tmp, 30)
            return
        if opts.ops:
            op_times(by_name[opts.ops], tmp, 25)
            return
        if not opts.no_models:
            rows = []
            for case in CASES:
                if wanted and case.name not in wanted:
                    continue
                print(f"{case.name} ({case.label}) ...", flush=True)
                rows.append(bench(case, tmp, reps, sample_s, opts.optimize))
            report(rows, reps, opts.optimize)
        if opts.startup:
            startup(3 if opts.quick else 5)
        if opts.text:
            text_read([int(n) for n in opts.text_sizes.split(",") if n], tmp)


if __name__ == "__main__":
    main()
