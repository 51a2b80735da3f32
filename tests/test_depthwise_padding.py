"""
A float32 depthwise convolution with an infinite or NaN weight over the padding:
torch's CPU takes oneDNN's depthwise kernel, which leaves the padding out of the
sum (finite where a zero times the infinite weight would give NaN); a float64 one,
one with several outputs per channel, and one whose padding is as wide as the
kernel go to torch's im2col kernel, which multiplies the padding in (NaN). Each
case is checked against torch eager, per path, through the kernel and through
the graph compiler's convolution.
"""

from __future__ import annotations

import io
import itertools
import warnings
from typing import Any

import numpy as np
import pytest

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics import kernels as aten_kernels

torch = pytest.importorskip("torch")
F = torch.nn.functional
CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}


def _operands(n: int, c: int, m: int, dtype: Any, seed: int) -> tuple[Any, Any]:
    g = torch.Generator().manual_seed(seed)
    x = torch.randn((2, c) + (5,) * n, generator=g).to(dtype)
    flat = x.view(-1)
    flat[3], flat[7], flat[11] = float("nan"), -0.0, float("inf")
    w = torch.randn((c * m, 1) + (3,) * n, generator=g).to(dtype)
    w.view(-1)[0] = -float("inf")  # the corner tap: it meets the padding
    w.view(-1)[-1] = float("inf")
    return x, w


def _kernel(x: Any, w: Any, c: int, n: int, pad: int, stride: int, dil: int) -> Any:
    return aten_kernels.run_kernel(
        "aten.convolution.default",
        [x.numpy(), w.numpy(), None, [stride] * n, [pad] * n, [dil] * n, False, [0] * n, c], {},
    )


def test_brief_example_top_row_is_finite() -> None:
    x = torch.ones(1, 2, 5, 5)
    w = torch.ones(2, 1, 3, 3)
    w[0, 0, 0, 0] = -float("inf")
    want = F.conv2d(x, w, padding=1, groups=2)
    got = _kernel(x, w, 2, 2, 1, 1, 1)
    np.testing.assert_array_equal(got, want.numpy())
    np.testing.assert_array_equal(got[0, 0, 0], [4, 6, 6, 6, 4])


@pytest.mark.parametrize(
    ("dtype", "n", "m", "pad", "stride"),
    [
        *itertools.product([torch.float32, torch.float64], [1, 2, 3], [1], [1, 2], [1, 2]),
        (torch.float32, 2, 2, 1, 1),  # two outputs per channel: im2col, padding multiplied in
        (torch.float32, 2, 1, 3, 1),  # padding as wide as the kernel: im2col
        (torch.float32, 1, 1, 3, 2),
    ],
)
def test_depthwise_padding_matches_torch(dtype: object, n: int, m: int, pad: int, stride: int) -> None:
    x, w = _operands(n, 3, m, dtype, seed=n * 10 + pad)
    want = CONV[n](x, w, padding=pad, stride=stride, groups=3).numpy()
    got = _kernel(x, w, 3, n, pad, stride, 1)
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)  # equal_nan: NaN where torch's is, only there
    assert np.isnan(got).sum() == np.isnan(want).sum()


def test_one_tap_kernel_and_3d_one_tap() -> None:
    """A one-element depthwise kernel over padding multiplies it in (NaN): im2col in 2-d;
    in 3-d torch 2.13 does so on one thread and leaves it out (zeros) on more, so the
    reference is torch on one thread, the convolution's definition."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        for n in (2, 3):
            x = torch.ones((1, 2) + (4,) * n)
            w = torch.ones((2, 1) + (1,) * n)
            w.view(-1)[0] = -float("inf")
            want = CONV[n](x, w, padding=1, groups=2).numpy()
            assert np.isnan(want).any()
            np.testing.assert_array_equal(_kernel(x, w, 2, n, 1, 1, 1), want)
    finally:
        torch.set_num_threads(threads)


def test_dilated_depthwise_with_infinite_weight_is_refused() -> None:
    """With dilation torch's choice of kernel depends on sizes not modelled: refused, not guessed."""
    x, w = _operands(2, 3, 1, torch.float32, seed=1)
    with pytest.raises(ValueError, match="convolution: .*depthwise.*dilation"):
        _kernel(x, w, 3, 2, 2, 1, 2)
    w = torch.where(torch.isinf(w), torch.zeros(()), w)  # finite weights: no difference, computed
    want = F.conv2d(x, w, padding=2, dilation=2, groups=3).numpy()
    np.testing.assert_allclose(_kernel(x, w, 3, 2, 2, 1, 2), want, rtol=1e-5, atol=1e-5)


def test_non_contiguous_input_and_program() -> None:
    """A transposed (non-contiguous) input through the graph compiler's convolution."""

    class M(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(4, 4, 3, padding=1, groups=4, bias=True)
            with torch.no_grad():
                self.conv.weight[1, 0, 2, 2] = float("inf")
                self.conv.weight[3, 0, 0, 1] = -float("inf")

        def forward(self, x: Any) -> Any:
            return self.conv(x.transpose(2, 3))

    x, _ = _operands(2, 4, 1, torch.float32, seed=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(M().eval(), (x,))
    f = io.BytesIO()
    torch.export.save(ep, f)
    got = ProgramRunner(load_pt2(f.getvalue())).run([x.numpy()])[0]
    want = ep.module()(x).detach().numpy()
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
    assert np.isnan(got).sum() == np.isnan(want).sum()
    assert np.isinf(got).sum() == np.isinf(want).sum() > 0
