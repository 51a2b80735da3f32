"""
Golden tests of the LAPACK kernel family (`semantics/kernels/lapack.py`) against torch eager.

Each row runs one overload through `aten_kernels.run_kernel` and through
`torch.ops.aten.<op>.<overload>` on the same inputs (several batch shapes,
float32 and float64) and compares every result. Factorizations whose outputs
are not unique (the signs of eigenvectors and of the columns of Q, U, V) are
checked by reconstruction and by their invariant parts instead (`test_qr`,
`test_svd`, `test_eigh`): LAPACK's sign choice is arbitrary, numpy's and torch's
need not agree.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest

from xdsl_exir.semantics import kernels as aten_kernels

torch = pytest.importorskip("torch")

SHAPES = ((3, 3), (2, 4, 4), (2, 1, 5, 5))
DTYPES = ("float32", "float64")
TOL = {"float32": (2e-4, 2e-5), "float64": (1e-9, 1e-11)}


def _general(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    """Well-conditioned square matrices: random plus a dominant diagonal."""
    a = rng.standard_normal(shape)
    return a + 3 * np.eye(shape[-1])


def _spd(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    a = rng.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def _upper(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return np.triu(_general(shape, rng))


def _rhs(cols: int) -> Callable[[tuple[int, ...], np.random.Generator], np.ndarray]:
    return lambda shape, rng: rng.standard_normal((*shape[:-1], cols))


def _vec(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal(shape[:-1])


def _rect(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return rng.standard_normal((*shape[:-1], shape[-1] - 1))


def _scaled(shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
    return 0.7 * rng.standard_normal(shape)


@dataclass(frozen=True)
class Row:
    """An overload, how to make each tensor argument from the case's matrix shape, other arguments."""

    op: str
    makers: tuple[Callable[[tuple[int, ...], np.random.Generator], np.ndarray], ...]
    kwargs: dict[str, Any] = field(default_factory=dict[str, Any])
    extra: tuple[Any, ...] = ()
    label: str = ""


ROWS = [
    Row("linalg_inv.default", (_general,)),
    Row("linalg_inv_ex.default", (_general,)),
    Row("inverse.default", (_general,)),
    Row("linalg_det.default", (_general,)),
    Row("det.default", (_general,)),
    Row("_linalg_det.default", (_general,)),
    Row("linalg_slogdet.default", (_general,)),
    Row("_linalg_slogdet.default", (_general,)),
    Row("logdet.default", (_spd,)),
    Row("logdet.default", (_general,), label="negative det gives nan"),
    Row("linalg_solve.default", (_general, _rhs(2))),
    Row("linalg_solve.default", (_general, _vec), label="vector B"),
    Row(
        "linalg_solve.default",
        (_general, lambda s, r: r.standard_normal((*s[:-2], 2, s[-1]))),
        {"left": False},
        label="right",
    ),
    Row("linalg_solve_ex.default", (_general, _rhs(3))),
    Row("_linalg_solve_ex.default", (_general, _rhs(3))),
    Row("linalg_cholesky.default", (_spd,)),
    Row("linalg_cholesky.default", (_spd,), {"upper": True}, label="upper"),
    Row("linalg_cholesky_ex.default", (_spd,)),
    Row("cholesky.default", (_spd,), extra=(True,)),
    Row("cholesky_inverse.default", (lambda s, r: np.linalg.cholesky(_spd(s, r)),)),
    Row("cholesky_solve.default", (_rhs(2), lambda s, r: np.linalg.cholesky(_spd(s, r)))),
    Row(
        "cholesky_solve.default",
        (_rhs(2), lambda s, r: np.swapaxes(np.linalg.cholesky(_spd(s, r)), -1, -2)),
        extra=(True,),
        label="upper",
    ),
    Row("linalg_lu_factor.default", (_scaled,)),
    Row("linalg_lu_factor_ex.default", (_scaled,)),
    Row("_lu_with_info.default", (_scaled,)),
    Row("linalg_lu.default", (_scaled,)),
    Row("linalg_lu.default", (_rect,), label="wide"),
    Row("linalg_solve_triangular.default", (_upper, _rhs(2)), {"upper": True}),
    Row("linalg_solve_triangular.default", (_general, _rhs(2)), {"upper": False, "unitriangular": True}, label="unit"),
    Row("triangular_solve.default", (_rhs(2), _upper)),
    Row("triangular_solve.default", (_rhs(2), _general), extra=(False, True), label="lower transposed"),
    Row("linalg_svdvals.default", (_scaled,)),
    Row("linalg_svdvals.default", (_rect,), label="wide"),
    Row("linalg_eigvalsh.default", (_spd,)),
    Row("linalg_eigvalsh.default", (_general,), {"UPLO": "U"}, label="upper triangle read"),
    Row("linalg_pinv.atol_rtol_float", (_rect,)),
    Row("linalg_pinv.atol_rtol_float", (_spd,), {"hermitian": True}, label="hermitian"),
    Row("pinverse.default", (_scaled,)),
    Row("linalg_matrix_rank.atol_rtol_float", (lambda s, r: _rect(s, r) @ np.swapaxes(_rect(s, r), -1, -2),)),
    Row("linalg_matrix_rank.atol_rtol_float", (_scaled,), {"atol": 1.0, "rtol": 0.0}, label="atol"),
    Row("linalg_matrix_exp.default", (_scaled,)),
    Row("linalg_matrix_exp.default", (lambda s, r: 4 * r.standard_normal(s),), label="large norm: squaring"),
    Row("matrix_exp.default", (_scaled,)),
    Row("linalg_matrix_power.default", (_scaled,), extra=(3,)),
    Row("linalg_matrix_power.default", (_general,), extra=(-2,), label="negative"),
    Row("matrix_power.default", (_scaled,), extra=(0,)),
    Row("linalg_matrix_norm.default", (_scaled,), extra=(1,)),
    Row("linalg_matrix_norm.default", (_scaled,), extra=(float("-inf"),), label="-inf"),
    Row("linalg_matrix_norm.default", (_scaled,), extra=(-2,), label="-2"),
    Row("linalg_matrix_norm.str_ord", (_scaled,), {"ord": "nuc", "keepdim": True}, label="nuc keepdim"),
    Row("linalg_matrix_norm.str_ord", (_scaled,), {"ord": "fro", "dim": [0, -1]}, label="fro dims"),
    Row("linalg_norm.default", (_scaled,)),
    Row("linalg_norm.default", (_scaled,), {"ord": 3, "dim": [-1], "keepdim": True}, label="vector ord 3"),
    Row("linalg_norm.default", (_scaled,), {"ord": float("inf"), "dim": [-2, -1]}, label="matrix inf"),
    Row("linalg_norm.ord_str", (_scaled,), extra=("fro", [-2, -1])),
    Row("nuclear_norm.default", (lambda s, r: r.standard_normal(s[-2:]),)),
    Row("linalg_cond.default", (_general,)),
    Row("linalg_cond.default", (_general,), extra=(1,), label="p=1"),
    Row("linalg_cond.p_str", (_general,), extra=("fro",)),
    Row("linalg_lstsq.default", (lambda s, r: r.standard_normal((*s[:-1], s[-1] - 2)), _rhs(2))),
    Row(
        "linalg_lstsq.default",
        (lambda s, r: r.standard_normal((*s[:-1], s[-1] - 2)), _rhs(2)),
        {"driver": "gelsd"},
        label="gelsd",
    ),
    Row("linalg_matmul.default", (_scaled, _rhs(2))),
    Row("linalg_diagonal.default", (_scaled,), {"offset": 1}),
]


def _lu_case(shape: tuple[int, ...], rng: np.random.Generator) -> list[np.ndarray]:
    a = _general(shape, rng)
    lu, piv = torch.linalg.lu_factor(torch.from_numpy(a))
    return [lu.numpy(), piv.numpy()]


def _ids() -> list[Any]:
    return [
        pytest.param(
            row,
            shape,
            dtype,
            id=f"{row.op}{'[' + row.label + ']' if row.label else ''}-{'x'.join(map(str, shape))}-{dtype}",
        )
        for row in ROWS
        for shape in SHAPES
        for dtype in DTYPES
    ]


def _compare(actual: Any, expected: Any, dtype: str, what: str) -> None:
    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(actual) == len(expected), what
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, dtype, f"{what}[{i}]")
        return
    e = expected.numpy() if isinstance(expected, torch.Tensor) else np.asarray(expected)
    a = np.asarray(actual)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != torch's {e.shape}"
    assert a.dtype == e.dtype, f"{what}: dtype {a.dtype} != torch's {e.dtype}"
    rtol, atol = TOL[dtype] if e.dtype.kind == "f" else (0, 0)
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=what, equal_nan=True)


@pytest.mark.parametrize(("row", "shape", "dtype"), _ids())
def test_golden(row: Row, shape: tuple[int, ...], dtype: str) -> None:
    rng = np.random.default_rng(zlib.crc32(repr((row.op, row.label, shape)).encode()))  # the same matrices every run (hash() of a str is salted per process)
    arrays = [m(shape, rng).astype(dtype) for m in row.makers]
    name, overload = row.op.split(".")
    expected = getattr(getattr(torch.ops.aten, name), overload)(
        *[torch.from_numpy(a.copy()) for a in arrays], *row.extra, **row.kwargs
    )
    actual = aten_kernels.run_kernel(f"aten.{row.op}", [*arrays, *row.extra], row.kwargs)
    _compare(actual, expected, dtype, row.op)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
def test_lu_solve_and_unpack(shape: tuple[int, ...], dtype: str) -> None:
    """lu_solve and lu_unpack consume torch's own LU and pivots; our lu_factor reproduces them (same pivoting)."""
    rng = np.random.default_rng(7)
    lu, piv = _lu_case(shape, rng)
    lu = lu.astype(dtype)
    b = rng.standard_normal((*shape[:-1], 2)).astype(dtype)
    tlu, tpiv, tb = torch.from_numpy(lu), torch.from_numpy(piv), torch.from_numpy(b)
    for kwargs in ({}, {"adjoint": True}, {"left": False}):
        bb, tbb = (b, tb) if kwargs.get("left", True) else (np.swapaxes(b, -1, -2).copy(), tb.mT.contiguous())
        expected = torch.ops.aten.linalg_lu_solve.default(tlu, tpiv, tbb, **kwargs)
        _compare(
            aten_kernels.run_kernel("aten.linalg_lu_solve.default", [lu, piv, bb], kwargs), expected, dtype, str(kwargs)
        )
    _compare(
        aten_kernels.run_kernel("aten.lu_solve.default", [b, lu, piv], {}),
        torch.ops.aten.lu_solve.default(tb, tlu, tpiv),
        dtype,
        "lu_solve",
    )
    _compare(
        aten_kernels.run_kernel("aten.lu_unpack.default", [lu, piv], {}),
        torch.ops.aten.lu_unpack.default(tlu, tpiv),
        dtype,
        "lu_unpack",
    )


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (2, 1, 5, 3)])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r"])
def test_qr(shape: tuple[int, ...], dtype: str, mode: str) -> None:
    """Q R = A with orthonormal Q and upper R; |diag R| matches torch (the signs are LAPACK's choice)."""
    a = np.random.default_rng(1).standard_normal(shape).astype(dtype)
    q, r = aten_kernels.run_kernel("aten.linalg_qr.default", [a], {"mode": mode})  # pyright: ignore[reportGeneralTypeIssues] - run_kernel is typed as one array; this op returns a pair
    tq, tr = torch.ops.aten.linalg_qr.default(torch.from_numpy(a), mode)
    rtol, atol = TOL[dtype]
    assert q.shape == tuple(tq.shape) and r.shape == tuple(tr.shape) and r.dtype == a.dtype
    np.testing.assert_allclose(
        np.abs(np.diagonal(r, axis1=-2, axis2=-1)),
        np.abs(np.diagonal(tr.numpy(), axis1=-2, axis2=-1)),
        rtol=rtol,
        atol=atol,
    )
    np.testing.assert_array_equal(r, np.triu(r))
    if mode != "r":
        np.testing.assert_allclose(q @ r, a, rtol=rtol, atol=atol * 10)
        k = q.shape[-1]
        np.testing.assert_allclose(
            np.swapaxes(q, -1, -2) @ q, np.broadcast_to(np.eye(k), (*q.shape[:-2], k, k)), atol=atol * 10
        )


@pytest.mark.parametrize("shape", [(4, 3), (3, 5), (2, 4, 4), (2, 1, 5, 3)])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("full", [False, True])
def test_svd(shape: tuple[int, ...], dtype: str, full: bool) -> None:
    """Singular values match torch; U diag(S) Vh rebuilds A; the legacy `svd` returns V = Vhᵀ."""
    a = np.random.default_rng(2).standard_normal(shape).astype(dtype)
    rtol, atol = TOL[dtype]
    ta = torch.from_numpy(a)
    u, s, vh = aten_kernels.run_kernel("aten.linalg_svd.default", [a, full], {})  # pyright: ignore[reportGeneralTypeIssues] - run_kernel is typed as one array; this op returns a triple
    tu, ts, tvh = torch.ops.aten.linalg_svd.default(ta, full)
    assert (u.shape, s.shape, vh.shape) == (tuple(tu.shape), tuple(ts.shape), tuple(tvh.shape))
    np.testing.assert_allclose(s, ts.numpy(), rtol=rtol, atol=atol)
    k = s.shape[-1]
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a, rtol=rtol, atol=atol * 10)
    lu_, ls, lv = aten_kernels.run_kernel("aten.svd.default", [a, not full], {})  # pyright: ignore[reportGeneralTypeIssues] - run_kernel is typed as one array; this op returns a triple
    tlu, _, tlv = torch.ops.aten.svd.default(ta, not full)
    assert (lu_.shape, lv.shape) == (tuple(tlu.shape), tuple(tlv.shape))
    np.testing.assert_allclose(
        (lu_[..., :k] * ls[..., None, :]) @ np.swapaxes(lv[..., :k], -1, -2), a, rtol=rtol, atol=atol * 10
    )
    for got, want in zip(
        aten_kernels.run_kernel("aten.svd.default", [a, True, False], {}),  # pyright: ignore[reportArgumentType] - run_kernel is typed as one array; this op returns a triple
        torch.ops.aten.svd.default(ta, True, False),
    ):
        assert got.shape == tuple(want.shape)
    for got, want in zip(
        aten_kernels.run_kernel("aten._linalg_svd.default", [a, False, False], {}),  # pyright: ignore[reportArgumentType] - run_kernel is typed as one array; this op returns a triple
        torch.ops.aten._linalg_svd.default(ta, False, False),
    ):
        assert got.shape == tuple(want.shape)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh(shape: tuple[int, ...], dtype: str, uplo: str) -> None:
    """Eigenvalues match torch; V diag(w) Vᵀ rebuilds the symmetric matrix read from the `uplo` triangle."""
    a = np.random.default_rng(3).standard_normal(shape).astype(dtype)
    w, v = aten_kernels.run_kernel("aten.linalg_eigh.default", [a, uplo], {})  # pyright: ignore[reportGeneralTypeIssues] - run_kernel is typed as one array; this op returns a pair
    tw, tv = torch.ops.aten.linalg_eigh.default(torch.from_numpy(a), uplo)
    rtol, atol = TOL[dtype]
    assert w.dtype == a.dtype and v.shape == tuple(tv.shape)
    np.testing.assert_allclose(w, tw.numpy(), rtol=rtol, atol=atol * 10)
    tri = np.tril(a) if uplo == "L" else np.triu(a)
    sym = tri + np.swapaxes(tri, -1, -2) - np.eye(shape[-1]) * a
    np.testing.assert_allclose((v * w[..., None, :]) @ np.swapaxes(v, -1, -2), sym, rtol=rtol, atol=atol * 10)


@pytest.mark.parametrize(
    ("op", "make"),
    [
        ("aten.linalg_inv.default", lambda: ([np.ones((3, 3))], {})),
        ("aten.linalg_solve.default", lambda: ([np.zeros((2, 2)), np.ones((2, 1))], {})),
        ("aten.linalg_cholesky.default", lambda: ([-np.eye(3)], {})),
        (
            "aten._linalg_check_errors.default",
            lambda: ([np.array([0, 2], dtype=np.int32), "linalg.inv"], {"is_matrix": False}),
        ),
    ],
)
def test_singular_input_is_an_error(op: str, make: Callable[[], tuple[list[Any], dict[str, Any]]]) -> None:
    """A singular or indefinite matrix is refused with torch's kind of message, as torch refuses it."""
    with pytest.raises(ValueError, match="singular|positive-definite"):
        aten_kernels.run_kernel(op, *make())


def test_inv_ex_reports_info_without_raising() -> None:
    a = np.stack([np.eye(3), np.ones((3, 3))])
    _, info = aten_kernels.run_kernel("aten.linalg_inv_ex.default", [a], {})  # pyright: ignore[reportGeneralTypeIssues] - run_kernel is typed as one array; this op returns a pair
    _, tinfo = torch.ops.aten.linalg_inv_ex.default(torch.from_numpy(a))
    np.testing.assert_array_equal(info, tinfo.numpy())


def test_cholesky_ex_reports_the_failing_minor() -> None:
    """`info` is potrf's: the order of the first leading minor that is not positive definite
    (the factor itself is unspecified then, so it is not compared)."""
    rng = np.random.default_rng(5)
    a = np.stack([_spd((4, 4), rng), rng.standard_normal((4, 4)), -np.eye(4)])
    _, info = aten_kernels.run_kernel("aten.linalg_cholesky_ex.default", [a], {})  # pyright: ignore[reportGeneralTypeIssues] - run_kernel is typed as one array; this op returns a pair
    _, tinfo = torch.ops.aten.linalg_cholesky_ex.default(torch.from_numpy(a))
    np.testing.assert_array_equal(info, tinfo.numpy())
    assert tinfo[0] == 0 and tinfo[2] == 1


def test_multi_dot_and_tensor_routines() -> None:
    rng = np.random.default_rng(4)
    xs = [rng.standard_normal(5), rng.standard_normal((5, 3)), rng.standard_normal((3, 4)), rng.standard_normal(4)]
    _compare(
        aten_kernels.run_kernel("aten.linalg_multi_dot.default", [xs], {}),
        torch.ops.aten.linalg_multi_dot.default([torch.from_numpy(x) for x in xs]),
        "float64",
        "multi_dot",
    )
    ms = [rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((4, 2)).astype(np.float32)]
    _compare(
        aten_kernels.run_kernel("aten.chain_matmul.default", [ms], {}),
        torch.ops.aten.chain_matmul.default([torch.from_numpy(m) for m in ms]),
        "float32",
        "chain_matmul",
    )
    t = (rng.standard_normal((4, 6, 8, 3)) + 0).reshape(24, 24)
    t = (t + 6 * np.eye(24)).reshape(4, 6, 8, 3)
    _compare(
        aten_kernels.run_kernel("aten.linalg_tensorinv.default", [t, 2], {}),
        torch.ops.aten.linalg_tensorinv.default(torch.from_numpy(t), 2),
        "float64",
        "tensorinv",
    )
    b = rng.standard_normal((4, 6))
    _compare(
        aten_kernels.run_kernel("aten.linalg_tensorsolve.default", [t, b], {}),
        torch.ops.aten.linalg_tensorsolve.default(torch.from_numpy(t), torch.from_numpy(b)),
        "float64",
        "tensorsolve",
    )


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
def test_vecdot_and_vander(dtype: str) -> None:
    rng = np.random.default_rng(6)
    x = (rng.standard_normal((2, 3, 4)) * 3).astype(dtype)
    y = (rng.standard_normal((3, 4)) * 3).astype(dtype)
    tx, ty = torch.from_numpy(x), torch.from_numpy(y)
    tol = dtype if dtype != "int64" else "float64"
    for dim in (-1, 1) if dtype != "int64" else ():  # torch's vecdot takes floating tensors only
        yy, tyy = (y, ty) if dim == -1 else (y[:, :1].copy(), ty[:, :1])
        _compare(
            aten_kernels.run_kernel("aten.linalg_vecdot.default", [x, yy], {"dim": dim}),
            torch.ops.aten.linalg_vecdot.default(tx, tyy, dim=dim),
            tol,
            f"vecdot dim={dim}",
        )
    v = x[0, 0]
    _compare(
        aten_kernels.run_kernel("aten.linalg_vander.default", [x], {"N": 3}),
        torch.ops.aten.linalg_vander.default(tx, N=3),
        tol,
        "linalg_vander",
    )
    for increasing in (False, True):
        _compare(
            aten_kernels.run_kernel("aten.vander.default", [v, None, increasing], {}),
            torch.ops.aten.vander.default(torch.from_numpy(v), None, increasing),
            tol,
            "vander",
        )
