"""
`as_strided` reads a tensor's storage in memory order, as torch does, where the
interpreter can know that order (issue 24's measurements found the row-major
reading): a pointwise result of a transposed input is laid out permuted by torch
and by numpy alike, and its storage is that memory; in an exported program the
types carry torch's dim order, so a result numpy lays out otherwise (operands of
different layouts meeting) is relaid, or, when only a view of it is read,
refused with the operator named.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.kernels.core import storage_of
from xdsl_exir.utils.diagnostics import InterpreterError

torch = pytest.importorskip("torch")


def _edge(shape: tuple[int, ...]) -> Any:
    x = torch.arange(float(np.prod(shape))).reshape(shape)
    flat = x.view(-1)
    if flat.numel() >= 4:
        flat[0], flat[1], flat[2], flat[3] = float("nan"), float("inf"), -float("inf"), -0.0
    return x


def test_permuted_pointwise_result_is_read_in_memory_order() -> None:
    a = np.arange(6.0).reshape(2, 3)
    got = aten_kernels.run_kernel("aten.as_strided.default", [a.T * 2, [6], [1]], {})
    want = torch.as_strided(torch.from_numpy(a).T * 2, [6], [1])
    np.testing.assert_array_equal(got, want.numpy())
    np.testing.assert_array_equal(got, [0, 2, 4, 6, 8, 10])


@pytest.mark.parametrize("perm", [(1, 0, 2), (2, 0, 1), (0, 2, 1)])
def test_permuted_results_and_their_views(perm: tuple[int, int, int]) -> None:
    """Edge values, a narrowed view of a permuted owner with its storage offset, and an
    explicit offset: torch's storage addressing, element for element."""
    t = _edge((2, 3, 4))
    r = t.permute(perm) * 1.5  # torch and numpy both keep the permuted layout
    assert r.stride() != r.contiguous().stride()
    a = t.numpy().transpose(perm) * 1.5
    got = aten_kernels.run_kernel("aten.as_strided.default", [a, [4, 5], [5, 1]], {})
    np.testing.assert_array_equal(got, torch.as_strided(r, [4, 5], [5, 1]).numpy())
    got = aten_kernels.run_kernel("aten.as_strided.default", [a[1:], [3, 2], [1, 3]], {})
    np.testing.assert_array_equal(got, torch.as_strided(r[1:], [3, 2], [1, 3]).numpy())
    got = aten_kernels.run_kernel("aten.as_strided.default", [a[:, 1:], [2, 2], [2, 7], 3], {})
    np.testing.assert_array_equal(got, torch.as_strided(r[:, 1:], [2, 2], [2, 7], 3).numpy())


def test_storage_of_dtype_view_and_empty() -> None:
    """A view as another dtype reads the owner's bytes (torch's untyped storage); an empty
    permuted owner is an empty storage."""
    x = np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3))
    v = x.view(np.int32)
    flat, off = storage_of(v)
    want = torch.from_numpy(np.ascontiguousarray(x.T)).T.view(torch.int32)
    assert off == 0
    np.testing.assert_array_equal(torch.as_strided(want, [6], [1]).numpy(), flat)
    empty = np.empty((0, 3), dtype=np.float64).T
    flat, off = storage_of(empty)
    assert flat.size == 0 and off == 0


def _run(fn: Callable[..., Any], *inputs: Any) -> tuple[list[np.ndarray], Any]:
    class M(torch.nn.Module):
        def forward(self, *xs: Any) -> Any:
            return fn(*xs)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(M(), inputs)
    f = io.BytesIO()
    torch.export.save(ep, f)
    got = ProgramRunner(load_pt2(f.getvalue())).run([i.numpy() for i in inputs])
    return got, fn(*inputs)


CASES: dict[str, Callable[..., Any]] = {
    "lone_transposed": lambda x, y: torch.as_strided(x.T * 2, [6], [1]),
    "transposed_first": lambda x, y: torch.as_strided(x.T + y, [6], [1]),  # torch: column-major, numpy: row-major
    "transposed_second": lambda x, y: torch.as_strided(y + x.T, [6], [1]),
    "scatter_transposed_first": lambda x, y: torch.as_strided_scatter(x.T + y, torch.full((2,), -0.0), [2], [2], 1),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_reads_torch_storage(name: str) -> None:
    x, y = _edge((2, 3)), torch.arange(6.0).reshape(3, 2) * 10
    got, want = _run(CASES[name], x, y)
    np.testing.assert_array_equal(got[0], want.numpy())
    assert np.signbit(got[0]).tolist() == np.signbit(want.numpy()).tolist()


def test_view_of_a_differently_laid_result_is_refused() -> None:
    x, y = _edge((2, 3)), torch.arange(6.0).reshape(3, 2)
    with pytest.raises(InterpreterError, match="aten.as_strided.default.*dim order"):
        _run(lambda x, y: torch.as_strided((x.T + y)[1:], [2], [1]), x, y)


def test_view_of_an_agreeing_result_is_read() -> None:
    """A lone operand's layout is kept by numpy as by torch: a view of that result is read."""
    x, y = _edge((2, 3)), torch.arange(6.0).reshape(3, 2)
    got, want = _run(lambda x, y: torch.as_strided((x.T * 2).T[:, 1:], [3], [2], 1), x, y)
    np.testing.assert_array_equal(got[0], want.numpy())
