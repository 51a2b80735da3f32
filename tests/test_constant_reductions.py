"""
Reductions of tensors the program creates (`ones`, `full`, `zeros`), on both
backends, against torch eager. iree-compile 3.13 miscompiles a reduction whose
input is a whole-tensor `linalg.fill` (`ones(5).sum()` gave 1, `ones(5, 5, 5).sum()`
8), so the lowering builds created tensors as a broadcast 0-d fill
(`linalg_lowering/creation.py`); this test fails if that form goes back.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import xdsl_exir

torch = pytest.importorskip("torch")


class Created(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return (
            torch.ones(5, 5, 5).sum() + x,
            torch.ones(5).sum() * x,
            torch.full((3, 4), 2.5).mean() * x,
            torch.zeros(4, dtype=torch.int64).sum() + 7,
            torch.ones(2, 3).sum(1) + x,
            torch.full((6,), -3, dtype=torch.int32).sum(),
            torch.full((4,), float("inf")).sum() + x,
            torch.full((4,), float("nan")).amax(),
            torch.ones(0).sum() + x,
            torch.full((), 4.0) * x,
        )


@pytest.mark.parametrize("backend", ["interpreter", "iree"])
def test_reductions_of_created_tensors_match_eager(backend: str) -> None:
    if backend == "iree":
        pytest.importorskip("iree.compiler")
        pytest.importorskip("iree.runtime")
    x = torch.tensor(1.5)
    ep = torch.export.export(Created(), (x,))
    eager = Created()(x)
    ours = xdsl_exir.compile(ep, backend=backend)(x)
    assert len(ours) == len(eager)
    for k, (got, want) in enumerate(zip(ours, eager, strict=True)):
        got_np, want_np = np.asarray(got), want.numpy()
        assert got_np.dtype == want_np.dtype, (k, got_np.dtype, want_np.dtype)
        assert got_np.shape == want_np.shape, (k, got_np.shape, want_np.shape)
        np.testing.assert_array_equal(got_np, want_np, err_msg=f"output {k}")
