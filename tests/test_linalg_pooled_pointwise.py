"""
Average pooling of a 1x1 convolution lowered as the convolution of the pooled
input (`conv_pool._POOL_BEFORE_POINTWISE`, DenseNet's transitions), checked
against torch eager: the exported program is lowered with the form on and off,
run in xDSL's Interpreter (`interpreters.upstream`, on every machine) and, when
the `iree` extra is installed, compiled by IREE and run natively. The cases:
DenseNet's transition (batch norm, ReLU, a 1x1 convolution without bias, 2x2
pooling), a bias, a 3x3 pool of stride 3, odd sizes whose last row and column
no window reads, two groups, a non-contiguous input, and special values (NaN,
+-inf, -0.0); and pools the form leaves alone: padded, in ceil mode with a
partial window, with a divisor, after a strided or a 3x3 convolution, after a
convolution something else reads too, and over an empty batch.
"""

from __future__ import annotations

import pathlib
import re
import warnings
from typing import Any

import numpy as np
import pytest
import torch
from torch import nn

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import lower_to_upstream, print_mlir, to_core
from xdsl_exir.transforms.linalg_lowering import conv_pool

# (in, out, groups, bias, conv stride, conv kernel, pool kernel, pool stride, pool padding,
#  ceil mode, divisor, input [N, C, H, W], pooled first)
CASES: list[tuple[int, int, int, bool, int, int, int, int, int, bool, int | None, tuple[int, ...], bool]] = [
    (8, 4, 1, False, 1, 1, 2, 2, 0, False, None, (1, 8, 8, 8), True),  # DenseNet's transition
    (6, 5, 1, True, 1, 1, 3, 3, 0, False, None, (1, 6, 9, 9), True),  # a bias, 3x3 windows
    (5, 3, 1, True, 1, 1, 2, 2, 0, False, None, (2, 5, 7, 5), True),  # odd sizes, a batch of two
    (4, 6, 2, False, 1, 1, 2, 1, 0, False, None, (1, 4, 5, 6), True),  # two groups, overlapping windows
    (4, 4, 1, False, 1, 1, 2, 2, 1, False, None, (1, 4, 6, 6), False),  # padded pool
    (4, 4, 1, False, 1, 1, 2, 2, 0, True, None, (1, 4, 5, 5), False),  # ceil mode, a partial window
    (4, 4, 1, False, 1, 1, 2, 2, 0, False, 3, (1, 4, 6, 6), False),  # a divisor
    (4, 4, 1, False, 2, 1, 2, 2, 0, False, None, (1, 4, 8, 8), False),  # a strided convolution
    (4, 4, 1, False, 1, 3, 2, 2, 0, False, None, (1, 4, 8, 8), False),  # a 3x3 convolution
    (4, 4, 1, False, 1, 1, 2, 2, 0, False, None, (0, 4, 6, 6), False),  # an empty batch
]


class Transitions(nn.Module):
    """Per case: batch norm, ReLU, the convolution, the pooling; and a convolution whose result is
    pooled and returned too (two readers, so it keeps its form)."""

    def __init__(self) -> None:
        super().__init__()
        gen = torch.Generator().manual_seed(0)
        self.bns, self.convs = nn.ModuleList(), nn.ModuleList()
        for cin, cout, groups, bias, stride, k, *_ in CASES:
            bn = nn.BatchNorm2d(cin)
            conv = nn.Conv2d(cin, cout, k, stride, 0, 1, groups, bias)
            with torch.no_grad():
                bn.running_mean.copy_(torch.randn(cin, generator=gen))
                bn.running_var.copy_(torch.rand(cin, generator=gen) + 0.5)
                bn.weight.copy_(torch.randn(cin, generator=gen))
                bn.bias.copy_(torch.randn(cin, generator=gen))
                conv.weight.copy_(torch.randn(conv.weight.shape, generator=gen))
                if conv.bias is not None:
                    conv.bias.copy_(torch.randn(conv.bias.shape, generator=gen))
            self.bns.append(bn)
            self.convs.append(conv)
        self.shared = nn.Conv2d(4, 3, 1)

    def forward(self, *xs: torch.Tensor) -> tuple[torch.Tensor, ...]:
        out = []
        for (*_, k, s, p, ceil, divisor, _shape, _first), bn, conv, x in zip(CASES, self.bns, self.convs, xs):
            y = conv(torch.relu(bn(x)))
            out.append(nn.functional.avg_pool2d(y, k, s, p, ceil, divisor_override=divisor))
        y = self.shared(xs[-1])
        return (*out, nn.functional.avg_pool2d(y, 2), y)


def _inputs(seed: int) -> list[torch.Tensor]:
    """Random inputs, the first non-contiguous (every other column of a wider one), with NaN,
    +-inf and -0.0 in the first three cases' and the shared convolution's."""
    gen = torch.Generator().manual_seed(seed)
    xs = [torch.randn(c[-2], generator=gen) for c in CASES] + [torch.randn(1, 4, 6, 6, generator=gen)]
    n, c, h, w = CASES[0][-2]
    xs[0] = torch.randn(n, c, h, 2 * w, generator=gen)[..., ::2]
    for x in (xs[0], xs[1], xs[2], xs[-1]):
        x[0, 0, 0, 0] = float("nan")
        x[0, 1, 2, 2] = float("inf")
        x[0, 2, 3, 1] = float("-inf")
        x[0, 3, 1, 1] = -0.0
    return xs


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[Transitions, Any]:
    model = Transitions().eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, tuple(_inputs(0))).run_decompositions()
    path = pathlib.Path(tmp_path_factory.mktemp("pooled")) / "transitions.pt2"
    torch.export.save(ep, path)
    return model, load_pt2(path.read_bytes(), path.name)


def _compare(got: list[Any], model: Transitions, xs: list[torch.Tensor], what: str) -> None:
    """Close to eager (the pooled form sums in another order), NaN exactly where eager has NaN,
    infinities where eager has them."""
    with torch.inference_mode():
        want = [w.numpy() for w in model(*xs)]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape, f"{what} output {i}: {g.shape} vs {w.shape}"
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, equal_nan=True, err_msg=f"{what} output {i}")
        assert np.array_equal(np.isnan(g), np.isnan(w)), f"{what} output {i}: NaN elsewhere than eager"


def _pooled_products(text: str) -> set[str]:
    """The `[N, C, H, W]` inputs of the lowered 1x1 convolutions (named ops of 1x1 weights)."""
    return set(re.findall(r"linalg.conv_2d_nchw_fchw[^\n]*ins\([^:]*: tensor<(\d+x\d+x\d+x\d+)xf32>, tensor<\d+x\d+x1x1xf32>", text))


@pytest.mark.parametrize("first", [True, False], ids=["pooled-first", "convolved-first"])
def test_lowered_forms_equal_eager(program: tuple[Transitions, Any], first: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    model, module = program
    monkeypatch.setattr(conv_pool, "_POOL_BEFORE_POINTWISE", first)
    monkeypatch.setattr(conv_pool, "_POINTWISE_MATMUL", False)
    lowered = lower_to_upstream(to_core(module))
    text = print_mlir(lowered)
    inputs = _pooled_products(text)
    # the applicable cases' named products read the pooled input (DenseNet's: 8 channels at 4x4),
    # the others the convolution's (two groups are a contraction over columns, checked by value)
    for (cin, _, groups, _, _, k, pk, ps, _, _, _, (n, _, h, w), pooled) in CASES:
        if k != 1 or n == 0 or groups != 1:
            continue
        at_pool = f"{n}x{cin}x{(h - pk) // ps + 1}x{(w - pk) // ps + 1}"
        assert (at_pool in inputs) == (first and pooled), (at_pool, inputs)
    assert ("1x8x8x8" in inputs) != first
    assert "1x4x6x6" in inputs  # the shared convolution, read twice, keeps its form
    # one named op per 1x1 of one group and the shared one: the products the pooled form
    # replaced are gone from the lowered program, not left behind unread
    assert text.count("linalg.conv_2d_nchw_fchw") == 9
    for seed in (1, 2):
        xs = _inputs(seed)
        _compare(run_lowered(lowered, [x.numpy() for x in xs]), model, xs, f"upstream interpreter, seed {seed}")


def test_iree_pooled_first_equals_eager(program: tuple[Transitions, Any]) -> None:
    """The default form natively."""
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    from xdsl_exir.targets.iree import IreeOptions, compile_program

    assert conv_pool._POOL_BEFORE_POINTWISE
    model, module = program
    compiled = compile_program(module, IreeOptions(threads=1, use_cache=False))
    assert "1x8x4x4" in _pooled_products(compiled.text) or conv_pool._POINTWISE_MATMUL
    for seed in (1, 2):
        xs = _inputs(seed)
        _compare(compiled(*[x.numpy() for x in xs]), model, xs, f"IREE seed {seed}")
