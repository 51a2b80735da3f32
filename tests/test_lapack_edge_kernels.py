"""
Edge inputs of the LAPACK kernels against torch eager: empty matrices and
batches (every output's shape and dtype, info included), Cholesky's info and
factor for inputs that are not positive definite (negative, NaN and inf
pivots: LAPACK's potrf stops at the first one), and slogdet's sign for a
NaN input (torch takes the sign of a NaN as 0).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from xdsl_exir.semantics import kernels as aten_kernels

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def _check(op: str, *args: Any, **kwargs: Any) -> None:
    """Our kernel and eager agree in every output: shape, dtype, values (NaN where NaN)."""
    packet, overload = op.split(".")
    expected = getattr(getattr(torch.ops.aten, packet), overload)(*args, **kwargs)
    got = aten_kernels.run_kernel(f"aten.{op}", [a.numpy() for a in args], kwargs)
    expected = expected if isinstance(expected, tuple) else (expected,)
    got = got if isinstance(got, tuple) else (got,)
    assert len(got) == len(expected)
    for g, e in zip(got, expected, strict=True):
        g = np.asarray(g)
        assert g.shape == tuple(e.shape)
        assert g.dtype == e.numpy().dtype
        np.testing.assert_allclose(g, e.numpy(), rtol=1e-5, atol=1e-6, equal_nan=True)


EMPTY_SQUARE = ((0, 0), (3, 0, 0), (0, 4, 4), (2, 0, 1, 1))
EMPTY_ANY = (*EMPTY_SQUARE, (5, 0), (0, 5), (2, 0, 3))


@pytest.mark.parametrize("shape", EMPTY_ANY)
def test_lu_factor_empty(shape: tuple[int, ...]) -> None:
    _check("linalg_lu_factor_ex.default", torch.zeros(shape))
    _check("linalg_lu_factor.default", torch.zeros(shape, dtype=torch.float64))


@pytest.mark.parametrize("shape", [(3, 5), (5, 3), (4, 4)])
def test_lu_unpack_of_an_lu_without_rows(shape: tuple[int, ...]) -> None:
    """OpInfo's empty sample: the LU emptied to no rows, its pivots kept; torch reads no pivot and P is empty."""
    lu, pivots = torch.linalg.lu_factor(torch.randn(shape, generator=torch.Generator().manual_seed(0)))
    _check("lu_unpack.default", lu[:0], pivots)
    _check("lu_unpack.default", lu, pivots)


@pytest.mark.parametrize("shape", EMPTY_SQUARE)
@pytest.mark.parametrize(
    "op", ["linalg_inv_ex.default", "linalg_cholesky_ex.default", "linalg_slogdet.default", "linalg_det.default"]
)
def test_square_empty(op: str, shape: tuple[int, ...]) -> None:
    _check(op, torch.zeros(shape))


def _spd(n: int) -> Any:
    g = torch.Generator().manual_seed(n)
    a = torch.randn(3, n, n, generator=g, dtype=torch.float64)
    return a @ a.mT + 0.5 * torch.eye(n, dtype=torch.float64)


@pytest.mark.parametrize(
    "where,value", [((0, 0), NAN), ((2, 2), -1.0), ((3, 1), NAN), ((3, 1), INF), ((4, 4), 0.0)]
)
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_cholesky_ex_not_positive_definite(where: tuple[int, int], value: float, dtype: Any, upper: bool) -> None:
    """
    The batch's middle matrix is spoiled; the others factor as before. An inf
    pivot is left out: eager's float32 factor then scales the column below it
    to NaN and fails one column later, where float64 scales it to -0.0 and
    succeeds (OpenBLAS's kernels differ; LAPACK does not define it).
    """
    a = _spd(5)
    a[1, where[0], where[1]] = value
    a = a.to(dtype)
    _check("linalg_cholesky_ex.default", a.mT if upper else a, upper=upper)


def test_cholesky_ex_edge_sample() -> None:
    pool = [NAN, INF, -INF, -0.0, 0.0, 1.0, -1.0, 0.5, -2.5, 1e30, -1e-30, 3.0, -7.0]
    a = torch.tensor([pool[i % len(pool)] for i in range(25)], dtype=torch.float64).reshape(5, 5)
    _check("linalg_cholesky_ex.default", a)
    _check("linalg_cholesky_ex.default", a, upper=True)
    _check("linalg_slogdet.default", a)


@pytest.mark.parametrize("upper", [False, True])
def test_cholesky_ex_reads_one_triangle(upper: bool) -> None:
    """The other triangle is ignored, even where it would make the input not positive definite."""
    a = torch.tensor([[4.0, 100.0], [2.0, 3.0]], dtype=torch.float64)
    _check("linalg_cholesky_ex.default", a, upper=upper)
    _check("linalg_cholesky_ex.default", a.mT, upper=upper)


@pytest.mark.parametrize(
    "rows",
    [
        [[NAN, 1.0], [1.0, 1.0]],
        [[1.0, NAN], [1.0, 1.0]],
        [[INF, 1.0], [1.0, 1.0]],
        [[INF, 0.0], [0.0, 0.0]],
        [[0.0, 1.0], [1.0, 0.0]],
        [[-0.0, 1.0], [1.0, -0.0]],
        [[2.0, 1.0], [4.0, 2.0]],
    ],
)
def test_slogdet_edges(rows: list[list[float]]) -> None:
    _check("linalg_slogdet.default", torch.tensor(rows, dtype=torch.float64))


@pytest.mark.parametrize("shape", [*EMPTY_SQUARE, (0, 5), (3, 0, 2)])
@pytest.mark.parametrize("dtype", [torch.float32, torch.int64])
def test_deprecated_cholesky_of_empty(shape: tuple[int, ...], dtype: Any) -> None:
    """torch.cholesky returns any empty input as it is, square or not."""
    _check("cholesky.default", torch.zeros(shape, dtype=dtype))
    _check("cholesky.default", torch.zeros(shape, dtype=dtype), upper=True)


@pytest.mark.parametrize("shape", EMPTY_ANY)
@pytest.mark.parametrize("hermitian", [False, True])
def test_pinv_and_matrix_rank_of_empty(shape: tuple[int, ...], hermitian: bool) -> None:
    a = torch.zeros(shape)
    _check("linalg_pinv.atol_rtol_float", a, hermitian=hermitian)
    _check("linalg_matrix_rank.atol_rtol_float", a, hermitian=hermitian)
