"""
Matrix products with an operand of zeros (or of any one value), compiled by IREE,
equal torch eager. IREE 3.13 computed `zeros @ W + b` as `b @ W + b` when the
lowering handed it a `linalg.matmul` of a zero fill followed by an add: an LSTM's
first step (h0 = zeros, `h @ W_hh^T + b_hh`) was 4e-2 off. The lowering now
leaves such an operand out of the contraction (`linalg_lowering/matmul.py`).
The zoo's LSTM and GRU models run on IREE in `test_iree_backend.py`.
Skipped when the `iree` extra is not installed.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")
pytest.importorskip("torch")

import torch

from xdsl_exir.frontends.torch_live import import_exported_program
from xdsl_exir.targets.iree import IreeOptions, compile_program


class _Products(torch.nn.Module):
    """Products of a splat operand, each followed by a bias add (the pattern IREE fused wrongly)."""

    def __init__(self) -> None:
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.linear = torch.nn.Linear(16, 64)
        self.w = torch.nn.Parameter(torch.randn(16, 64, generator=g))
        self.wb = torch.nn.Parameter(torch.randn(3, 16, 64, generator=g))
        self.b = torch.nn.Parameter(torch.randn(64, generator=g))

    def forward(self, x: Any, w_edge: Any) -> tuple[Any, ...]:
        zeros = torch.zeros(2, 16)
        return (
            self.linear(zeros) + x,  # linear with bias: addmm onto the bias
            zeros @ self.w + self.b,  # mm, then a separate add
            x[:, :16] @ torch.zeros(16, 64) + self.b,  # a zero RHS
            torch.addmm(self.b, torch.full((2, 16), 0.25), self.w, beta=0.5, alpha=2.0),
            torch.bmm(torch.zeros(3, 2, 16), self.wb) + self.b,
            zeros @ w_edge + self.b,  # 0 * inf and 0 * nan are nan, as in torch
            torch.zeros(2, 16).t().contiguous().t() @ self.w + self.b,
        )


def _check(got: Any, want: tuple[Any, ...]) -> None:
    got = list(got) if isinstance(got, tuple | list) else [got]
    assert len(got) == len(want)
    for i, (g, w) in enumerate(zip(got, want)):
        np.testing.assert_allclose(np.asarray(g), w.detach().numpy(), rtol=1e-5, atol=1e-6, err_msg=f"out{i}")


def test_products_of_a_splat_operand_on_iree_equal_eager(tmp_path: Any) -> None:
    """The training IR as export gives it, through the project's own to-core-aten."""
    model = _Products().eval()
    x = torch.randn(2, 64, generator=torch.Generator().manual_seed(1))
    w_edge = torch.randn(16, 64, generator=torch.Generator().manual_seed(2))
    w_edge[3, 5], w_edge[7, 9], w_edge[0, 11] = float("inf"), float("-inf"), float("nan")
    want = model(x, w_edge)
    assert torch.isnan(want[5][:, [5, 9, 11]]).all()  # the edge values reach the result
    ep = torch.export.export(model, (x, w_edge))
    program = compile_program(import_exported_program(ep), IreeOptions(threads=1, cache_dir=str(tmp_path)))
    _check(program(x.numpy(), w_edge.numpy()), want)

