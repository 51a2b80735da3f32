"""Kernels on the layouts transformer models hand them, against torch eager.

Attention and windowed attention (Swin, MaxViT) feed kernels strided views: a
channels-last LayerNorm's NHWC view of an NCHW buffer, a permuted relative
position bias broadcast against scores, transposed keys. The fast paths for
these (dense copies of small operands, row sums, blockwise GELU) must give what
torch gives on exactly those layouts, and a whole windowed-attention block must
run through the interpreter as torch runs it.
"""

from __future__ import annotations

import io
from typing import Any, cast

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics.kernels import run_kernel
from xdsl_exir.semantics.kernels.core import softmax_rows, sum_keepdims
from xdsl_exir.semantics.kernels.pointwise import dense_broadcast_operands


def _randn(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


@pytest.mark.parametrize("shape", [(2, 96, 7, 7), (1, 48, 16, 16), (1, 768, 2, 2)])
def test_channels_last_layer_norm(shape: tuple[int, ...]) -> None:
    """ConvNeXt's LayerNorm2d: permute to NHWC, normalise over C, permute back."""
    x = _randn(*shape)
    c = shape[1]
    w, b = _randn(c, seed=1), _randn(c, seed=2)
    view = x.transpose(0, 2, 3, 1)
    assert not view.flags.c_contiguous
    res = run_kernel("aten.native_layer_norm.default", [view, [c], w, b, 1e-6], {})
    y, mean, rstd = cast(tuple[np.ndarray, np.ndarray, np.ndarray], res)
    ty, tmean, trstd = torch.ops.aten.native_layer_norm.default(
        torch.from_numpy(x).permute(0, 2, 3, 1), [c], torch.from_numpy(w), torch.from_numpy(b), 1e-6
    )
    np.testing.assert_allclose(y, ty.numpy(), rtol=1e-5, atol=2e-5)
    np.testing.assert_allclose(mean, tmean.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(rstd, trstd.numpy(), rtol=1e-4)
    assert y.flags.c_contiguous and mean.shape == tuple(tmean.shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(64, 3, 49, 49), (2, 4, 7, 13), (5, 1), (3, 0)])
@pytest.mark.parametrize("log", [False, True])
def test_softmax_rows_on_every_dim(shape: tuple[int, ...], dtype: Any, log: bool) -> None:
    x = np.random.default_rng(3).standard_normal(shape).astype(dtype) * 4
    fn = torch.log_softmax if log else torch.softmax
    # log-probabilities near 0 are x - max - log(sum): absolute error of an ulp of the terms
    rtol, atol = (2e-6, 2e-6 if log else 1e-7) if dtype == np.float32 else (1e-12, 1e-14)
    for dim in range(len(shape)):
        np.testing.assert_allclose(
            softmax_rows(x, dim, log), fn(torch.from_numpy(x), dim).numpy(), rtol=rtol, atol=atol
        )
    # a transposed (non-contiguous) input takes the reduction path
    xt = np.swapaxes(x, 0, -1)
    np.testing.assert_allclose(
        softmax_rows(xt, xt.ndim - 1, log), fn(torch.from_numpy(xt), -1).numpy(), rtol=rtol, atol=atol
    )


def test_softmax_special_rows_match_torch() -> None:
    x = np.array([[1, np.nan, 2], [-np.inf] * 3, [np.inf, 1, 2], [-np.inf, 0, 1], [1e30, -1e30, 0]], np.float32)
    for log in (False, True):
        want = (torch.log_softmax if log else torch.softmax)(torch.from_numpy(x), 1).numpy()
        np.testing.assert_array_equal(np.isnan(softmax_rows(x, 1, log)), np.isnan(want))
        np.testing.assert_allclose(softmax_rows(x, 1, log), want, rtol=1e-6)


@pytest.mark.parametrize("shape", [(9408, 49), (3, 5, 96), (7, 1)])
def test_row_sums(shape: tuple[int, ...]) -> None:
    x = _randn(*shape)
    np.testing.assert_allclose(
        sum_keepdims(x, x.ndim - 1), x.sum(-1, keepdims=True, dtype=np.float64), rtol=1e-5, atol=1e-5
    )


def test_broadcast_operand_made_dense() -> None:
    """Swin's relative position bias: a permuted (3, 49, 49) view broadcast against the mask."""
    bias = _randn(49, 49, 3).transpose(2, 0, 1)[None, None]
    mask = _randn(1, 64, 1, 49, 49, seed=1)
    x, y = dense_broadcast_operands(bias, mask)
    assert x.flags.c_contiguous and y is mask
    np.testing.assert_array_equal(x + y, bias + mask)
    y2, x2 = dense_broadcast_operands(mask, bias)
    assert x2.flags.c_contiguous and y2 is mask
    same = _randn(3, 4).T
    assert dense_broadcast_operands(same, _randn(4, 3))[0] is same  # equal sizes: left alone


class _WindowBlock(nn.Module):
    """A shifted-window attention block on NHWC input: roll, window partition
    (view/permute/reshape), attention with a permuted bias, the reverse chain, GELU MLP."""

    def __init__(self, dim: int = 32, heads: int = 2, window: int = 4, shift: int = 2) -> None:
        super().__init__()
        self.heads, self.window, self.shift = heads, window, shift
        self.norm = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)
        self.table = nn.Parameter(0.1 * torch.randn(window * window, window * window, heads))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, h, w, c = x.shape
        ws, n, hd = self.window, self.window * self.window, c // self.heads
        y = torch.roll(self.norm(x), (-self.shift, -self.shift), (1, 2))
        win = y.view(b, h // ws, ws, w // ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, n, c)
        q, k, v = self.qkv(win).reshape(-1, n, 3, self.heads, hd).permute(2, 0, 3, 1, 4).unbind(0)
        scores = (q * hd**-0.5) @ k.transpose(-2, -1) + self.table.permute(2, 0, 1).unsqueeze(0)
        out = (scores.softmax(-1) @ v).transpose(1, 2).reshape(-1, n, c)
        out = self.proj(out).view(b, h // ws, w // ws, ws, ws, c).permute(0, 1, 3, 2, 4, 5).reshape(b, h, w, c)
        x = x + torch.roll(out, (self.shift, self.shift), (1, 2))
        return x + self.fc2(F.gelu(self.fc1(x)))


def test_window_attention_block_runs_as_torch() -> None:
    torch.manual_seed(0)
    model = _WindowBlock().eval()
    x = torch.randn(2, 8, 8, 32)
    ep = torch.export.export(model, (x,)).run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    runner = ProgramRunner(load_pt2(buf.getvalue(), "window.pt2"))
    with torch.inference_mode():
        want = model(x).numpy()
    (got,) = runner.run([x.numpy()])
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(("mask_kind", "causal"), [(None, False), (None, True), ("bool", False), ("float", False)])
def test_sdpa_kernel(mask_kind: str | None, causal: bool) -> None:
    """The kernel kept by the training IR (no decomposition), with rows masked out entirely."""
    q, k, v = _randn(2, 3, 40, 16), _randn(2, 3, 40, 16, seed=1), _randn(2, 3, 40, 8, seed=2)
    mask: np.ndarray | None = None
    if mask_kind == "bool":
        mask = np.random.default_rng(4).random((40, 40)) < 0.7
        mask[5] = False  # a fully masked row: zeros, as torch's safe softmax gives
    elif mask_kind == "float":
        mask = _randn(1, 3, 40, 40, seed=5)
        mask[0, 1, 7] = -np.inf
    got = run_kernel("aten.scaled_dot_product_attention.default", [q, k, v, mask, 0.0, causal], {})
    tm = None if mask is None else torch.from_numpy(mask)
    want = torch.ops.aten.scaled_dot_product_attention.default(
        torch.from_numpy(q), torch.from_numpy(k), torch.from_numpy(v), tm, 0.0, causal
    )
    np.testing.assert_allclose(cast(np.ndarray, got), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize(("shape", "dim"), [((2, 3, 40, 40), -1), ((5, 7), 0), ((4, 6, 9), 1), ((), 0)])
def test_safe_softmax_kernel(shape: tuple[int, ...], dim: int, dtype: Any) -> None:
    """`_safe_softmax` against torch's: rows of only -inf give 0, a NaN still gives NaN."""
    x = np.random.default_rng(6).standard_normal(shape).astype(dtype)
    if x.ndim >= 2:
        moved = np.moveaxis(x, dim, -1)  # a view: rows along `dim`
        moved[(0,) * (x.ndim - 1)] = -np.inf  # one row all -inf
        moved[(1,) * (x.ndim - 2) + (0,)][:2] = -np.inf  # one partly
        moved[(1,) * (x.ndim - 2) + (0,)][2] = np.nan
    got = run_kernel("aten._safe_softmax.default", [x, dim], {})
    want = torch.ops.aten._safe_softmax.default(torch.from_numpy(x), dim).numpy()
    assert cast(np.ndarray, got).dtype == want.dtype
    np.testing.assert_allclose(cast(np.ndarray, got), want, rtol=1e-6, atol=1e-7)
    minus_inf = np.full((3, 4), -np.inf, dtype)
    np.testing.assert_array_equal(cast(np.ndarray, run_kernel("aten._safe_softmax.default", [minus_inf, -1], {})), 0)


class _MaskedAttention(nn.Module):
    """SDPA with a boolean mask that hides every key from one query (a padded position)."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = nn.Linear(32, 96)

    def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(x).view(2, 20, 3, 4, 8).permute(2, 0, 3, 1, 4).unbind(0)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


def test_recompose_safe_softmax_on_exported_sdpa() -> None:
    """`run_decompositions()` spells SDPA's safe softmax out; the pass (alone and inside
    optimize-inference) puts `_safe_softmax` back, and the interpreter's results before and
    after agree with each other and with torch, the fully masked row included."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    import pass_harness as ph

    torch.manual_seed(0)
    model = _MaskedAttention().eval()
    x = torch.randn(2, 20, 32)
    mask = torch.rand(20, 20) < 0.6
    mask[3] = False
    ep = torch.export.export(model, (x, mask)).run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    module = load_pt2(buf.getvalue(), "masked.pt2")

    def names(m: Any) -> list[str]:
        return [op.name for op in m.walk() if op.name.startswith("aten.")]

    assert "aten._safe_softmax.default" not in names(module) and "aten.any.dim" in names(module)
    with torch.inference_mode():
        want = model(x, mask).numpy()
    inputs = [x.numpy(), mask.numpy()]
    (before,) = ProgramRunner(module).run(inputs)
    for pipeline in ("recompose-safe-softmax", "optimize-inference"):
        after_module = ph.apply(module, pipeline)
        after_names = names(after_module)
        assert after_names.count("aten._safe_softmax.default") == 1, pipeline
        assert not {"aten.any.dim", "aten.eq.Scalar", "aten.full_like.default"} & set(after_names), pipeline
        (after,) = ProgramRunner(after_module).run(inputs)
        np.testing.assert_allclose(after, before, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(before, want, rtol=1e-5, atol=1e-6)
    assert not np.isnan(before).any()
