"""LAPACK-backed kernels: inverses, determinants, factorizations, solves and matrix norms
(the products `linalg_matmul`/`multi_dot`/`vecdot` are in `matmul`, `vander` in `creation`).

torch runs these through LAPACK; numpy.linalg wraps the same routines, so the
kernels call it where it has the routine and write the rest (the pivoted LU
that `lu_factor`/`lu_solve`/`det` expose, triangular solves, the matrix
exponential) on top of it. Every kernel is batched over the leading dims, as
torch's are. Float32 inputs are computed in float64 and rounded back: the
results agree with torch to float32 precision, not bit for bit.

Output conventions follow torch's CPU kernels: pivots are LAPACK's 1-based
int32 row interchanges, `info` is int32 (0, or the 1-based index of the first
failing pivot/minor), `svd` returns V where `linalg_svd` returns Vh. The signs
of eigenvectors and of the columns of Q, U and V are not unique; LAPACK picks
them, and numpy and torch need not pick the same.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from xdsl_exir.semantics.kernels.dtypes import numpy_dtype_or_none
from xdsl_exir.semantics.kernels.registry import register, wrap_dim
from xdsl_exir.utils.dtypes import is_floating

I32 = np.dtype(np.int32)
I64 = np.dtype(np.int64)


def _f64(a: object) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


def _out_dtype(a: object) -> np.dtype[Any]:
    dt = np.asarray(a).dtype
    return dt if is_floating(dt) else np.dtype(np.float32)


def _back(x: np.ndarray, like: object) -> np.ndarray:
    return np.asarray(x).astype(_out_dtype(like), copy=False)


def _mT(a: np.ndarray) -> np.ndarray:
    return np.swapaxes(a, -1, -2)


def _square(a: np.ndarray, api: str) -> None:
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"{api}: A must be batches of square matrices, but they are {tuple(a.shape[-2:])} matrices")


# ---------------------------------------------------------------------------
# the pivoted LU factorization (LAPACK getrf), batched
# ---------------------------------------------------------------------------


def lu_factor(a: object) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Partial-pivoting LU of every matrix: (LU packed as getrf does, 1-based int32 pivots, int32 info)."""
    x = _f64(a).copy()
    m, n = x.shape[-2:]
    k = min(m, n)
    # the batch count is explicit: reshape(-1, ...) cannot infer it for an empty array
    batch = x.reshape(math.prod(x.shape[:-2]), m, n)
    pivots = np.zeros((batch.shape[0], k), dtype=I32)
    info = np.zeros(batch.shape[0], dtype=I32)
    rows = np.arange(batch.shape[0])
    for j in range(k):
        r = j + np.argmax(np.abs(batch[:, j:, j]), axis=1)
        pivots[:, j] = r + 1
        row_j = batch[rows, j].copy()
        batch[rows, j] = batch[rows, r]
        batch[rows, r] = row_j
        pivot = batch[:, j, j]
        zero = pivot == 0
        info = np.where(zero & (info == 0), j + 1, info).astype(I32)
        batch[:, j + 1 :, j] /= np.where(zero, 1.0, pivot)[:, None]
        batch[:, j + 1 :, j + 1 :] -= batch[:, j + 1 :, j : j + 1] * batch[:, j : j + 1, j + 1 :]
    lead = x.shape[:-2]
    return batch.reshape(x.shape), pivots.reshape(*lead, k), info.reshape(lead)


def _permutation(pivots: np.ndarray, m: int) -> np.ndarray:
    """The row order `perm` with A[perm] = L @ U, from getrf's sequential interchanges."""
    piv = np.asarray(pivots).reshape(math.prod(pivots.shape[:-1]), pivots.shape[-1]).astype(np.int64) - 1
    perm = np.tile(np.arange(m), (piv.shape[0], 1))
    rows = np.arange(piv.shape[0])
    for j in range(piv.shape[1]):
        a, b = perm[rows, j].copy(), perm[rows, piv[:, j]].copy()
        perm[rows, j], perm[rows, piv[:, j]] = b, a
    return perm.reshape(*pivots.shape[:-1], m)


def _unpack(lu: np.ndarray, pivots: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, L, U with A = P @ L @ U."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = np.tril(lu[..., :, :k], -1) + np.eye(m, k)
    upper = np.triu(lu[..., :k, :])
    # no row to interchange (an empty LU): torch leaves the pivots unread and P empty
    perm = _permutation(pivots, m) if k else np.broadcast_to(np.arange(m), (*lu.shape[:-2], m))
    eye = np.eye(m)
    p = _mT(eye[perm])  # rows of the identity in perm order, transposed: A = P L U
    return p, lower, upper


@register("aten.linalg_lu_factor_ex.default")
def _linalg_lu_factor_ex(A: np.ndarray, pivot: bool = True, check_errors: bool = False) -> tuple[np.ndarray, ...]:
    if not pivot:
        raise ValueError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, info = lu_factor(A)
    if check_errors:
        _check_errors(info, "torch.linalg.lu_factor_ex", True)
    return _back(lu, A), piv, info


@register("aten.linalg_lu_factor.default")
def _linalg_lu_factor(A: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray]:
    lu, piv, _ = _linalg_lu_factor_ex(A, pivot)
    return lu, piv


@register("aten._lu_with_info.default")
def _lu_with_info(self: np.ndarray, pivot: bool = True, check_errors: bool = True) -> tuple[np.ndarray, ...]:
    return _linalg_lu_factor_ex(self, pivot, False)


@register("aten.linalg_lu.default")
def _linalg_lu(A: np.ndarray, pivot: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    if not pivot:
        raise ValueError("linalg.lu: LU without pivoting is not implemented on the CPU")
    lu, piv, _ = lu_factor(A)
    return tuple(_back(x, A) for x in _unpack(lu, piv))  # pyright: ignore[reportReturnType] - three arrays


@register("aten.lu_unpack.default")
def _lu_unpack(
    LU_data: np.ndarray, LU_pivots: np.ndarray, unpack_data: bool = True, unpack_pivots: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    p, lower, upper = _unpack(_f64(LU_data), np.asarray(LU_pivots))
    empty = np.empty(0, dtype=_out_dtype(LU_data))
    return (
        _back(p, LU_data) if unpack_pivots else empty,
        _back(lower, LU_data) if unpack_data else empty,
        _back(upper, LU_data) if unpack_data else empty,
    )


def _lu_matrix(lu: np.ndarray, pivots: np.ndarray) -> np.ndarray:
    p, lower, upper = _unpack(_f64(lu), np.asarray(pivots))
    return p @ lower @ upper


@register("aten.linalg_lu_solve.default")
def _linalg_lu_solve(
    LU: np.ndarray, pivots: np.ndarray, B: np.ndarray, left: bool = True, adjoint: bool = False
) -> np.ndarray:
    a = _lu_matrix(LU, pivots)
    if adjoint:
        a = _mT(a)
    return _back(_solve(a, _f64(B), left), B)


@register("aten.lu_solve.default")
def _lu_solve(self: np.ndarray, LU_data: np.ndarray, LU_pivots: np.ndarray) -> np.ndarray:
    return _linalg_lu_solve(LU_data, LU_pivots, self)


# ---------------------------------------------------------------------------
# errors, inverses, determinants
# ---------------------------------------------------------------------------


def _check_errors(info: np.ndarray, api: str, is_matrix: bool) -> None:
    bad = np.flatnonzero(np.asarray(info).reshape(-1))
    if bad.size:
        where = "" if is_matrix and np.asarray(info).ndim == 0 else f" for batch {int(bad[0])}"
        code = int(np.asarray(info).reshape(-1)[bad[0]])
        raise ValueError(
            f"{api}: the factorization{where} failed: the diagonal element {code} is zero (singular input)"
        )


@register("aten._linalg_check_errors.default")
def _linalg_check_errors(info: np.ndarray, api_name: str, is_matrix: bool) -> None:
    _check_errors(info, api_name, is_matrix)


@register("aten.linalg_inv_ex.default")
def _linalg_inv_ex(A: np.ndarray, check_errors: bool = False) -> tuple[np.ndarray, np.ndarray]:
    a = _f64(A)
    _square(a, "linalg.inv")
    _, _, info = lu_factor(a)
    if check_errors:
        _check_errors(info, "linalg.inv_ex", a.ndim == 2)
    safe = np.where((info == 0)[..., None, None], a, np.eye(a.shape[-1]))
    inv = np.linalg.inv(safe)
    return _back(inv, A), info


@register("aten.linalg_inv.default")
def _linalg_inv(A: np.ndarray) -> np.ndarray:
    return _linalg_inv_ex(A, check_errors=True)[0]


@register("aten.inverse.default")
def _inverse(self: np.ndarray) -> np.ndarray:
    return _linalg_inv(self)


@register("aten._linalg_det.default")
def _linalg_det_lu(A: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Also the LU factors autograd keeps: torch factors a row-major A through LAPACK's
    column-major view, that is Aᵀ, and so does this kernel."""
    a = _f64(A)
    _square(a, "linalg.det")
    lu, piv, _ = lu_factor(_mT(a))
    return _back(np.linalg.det(a), A), _back(lu, A), piv


@register("aten.linalg_det.default", "aten.det.default")
def _det(A: np.ndarray | None = None, self: np.ndarray | None = None) -> np.ndarray:
    a = A if A is not None else self
    x = _f64(a)
    _square(x, "linalg.det")
    return _back(np.linalg.det(x), a)


@register("aten._linalg_slogdet.default")
def _linalg_slogdet_lu(A: np.ndarray) -> tuple[np.ndarray, ...]:
    sign, logabs = _slogdet(A)
    lu, piv, _ = lu_factor(_mT(_f64(A)))
    return sign, logabs, _back(lu, A), piv


@register("aten.linalg_slogdet.default", "aten.slogdet.default")
def _slogdet(A: np.ndarray | None = None, self: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    a = A if A is not None else self
    x = _f64(a)
    _square(x, "linalg.slogdet")
    # torch's rule, from the LU of the transpose (LAPACK's column-major view): the
    # product of the signs of U's diagonal, the sign of a NaN being 0, times the
    # pivots' parity, and the sum of log|U_ii|. numpy's slogdet gives a NaN input
    # a sign of -1 or a log of -inf.
    lu, piv, _ = lu_factor(_mT(x))
    diag = np.diagonal(lu, axis1=-2, axis2=-1)
    swaps = np.count_nonzero(piv != np.arange(1, x.shape[-1] + 1, dtype=I32), axis=-1)
    signs = np.nan_to_num(np.sign(diag), nan=0.0)
    sign = np.prod(signs, axis=-1) * np.where(swaps % 2 == 1, -1.0, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        logabs = np.sum(np.log(np.abs(diag)), axis=-1)
    return _back(sign, a), _back(logabs, a)


@register("aten.logdet.default")
def _logdet(self: np.ndarray) -> np.ndarray:
    """log(det): NaN for a negative determinant, -inf for a singular matrix (torch's convention)."""
    sign, logabs = np.linalg.slogdet(_f64(self))
    return _back(np.where(sign < 0, np.nan, logabs), self)


# ---------------------------------------------------------------------------
# solves
# ---------------------------------------------------------------------------


def _solve(a: np.ndarray, b: np.ndarray, left: bool = True) -> np.ndarray:
    """X with A X = B (left) or X A = B; B is a vector (batch) when torch's rule says so."""
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    if vector:
        b = b[..., None] if left else b[..., None, :]
    if left:
        x = np.linalg.solve(a, b)
    else:
        x = _mT(np.linalg.solve(_mT(a), _mT(b)))
    return x[..., 0] if vector and left else x[..., 0, :] if vector else x


@register("aten.linalg_solve_ex.default")
def _linalg_solve_ex(
    A: np.ndarray, B: np.ndarray, left: bool = True, check_errors: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    result, _, _, info = _linalg_solve_ex_lu(A, B, left, check_errors)
    return result, info


@register("aten._linalg_solve_ex.default")
def _linalg_solve_ex_lu(
    A: np.ndarray, B: np.ndarray, left: bool = True, check_errors: bool = False
) -> tuple[np.ndarray, ...]:
    a, b = _f64(A), _f64(B)
    _square(a, "linalg.solve")
    lu, piv, info = lu_factor(a)
    if check_errors or np.any(info):
        _check_errors(info, "torch.linalg.solve", a.ndim == 2)
    dt = np.promote_types(_out_dtype(A), _out_dtype(B))
    return _solve(a, b, left).astype(dt), lu.astype(dt), piv, info


@register("aten.linalg_solve.default")
def _linalg_solve(A: np.ndarray, B: np.ndarray, left: bool = True) -> np.ndarray:
    return _linalg_solve_ex(A, B, left, True)[0]


def _trsm(a: np.ndarray, b: np.ndarray, upper: bool, unitriangular: bool) -> np.ndarray:
    """
    A X = B for triangular A by substitution, as BLAS's `trsm` (which torch calls) runs it:
    column by column of B, row k of X divided by A[k, k] and then subtracted, times A's
    column k, from the rows still to come, except where X[k] is zero (so a zero never
    meets an infinity of A: 0 * inf would be NaN). Only A's `upper`/lower triangle is read.
    In B's dtype: a float32 product overflows as torch's does.
    """
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    x = np.broadcast_to(b, shape + b.shape[-2:]).astype(b.dtype, copy=True)
    m = a.shape[-1]
    with np.errstate(all="ignore"):
        for k in range(m - 1, -1, -1) if upper else range(m):
            row = x[..., k, :]
            live = row != 0
            if not unitriangular:
                row = np.where(live, row / a[..., k, k, None], row)
                x[..., k, :] = row
            rest = slice(0, k) if upper else slice(k + 1, m)
            x[..., rest, :] -= np.where(live[..., None, :], row[..., None, :] * a[..., rest, k, None], 0)
    return x


@register("aten.linalg_solve_triangular.default")
def _linalg_solve_triangular(
    self: np.ndarray, B: np.ndarray, upper: bool, left: bool = True, unitriangular: bool = False
) -> np.ndarray:
    """`_trsm` on A (or, for X A = B, on Aᵀ and Bᵀ: the other triangle)."""
    dt = np.promote_types(_out_dtype(self), _out_dtype(B))
    a, b = np.asarray(self).astype(dt), np.asarray(B).astype(dt)
    if left:
        return _trsm(a, b, upper, unitriangular)
    return _mT(_trsm(_mT(a), _mT(b), not upper, unitriangular))


@register("aten.triangular_solve.default")
def _triangular_solve(
    self: np.ndarray, A: np.ndarray, upper: bool = True, transpose: bool = False, unitriangular: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """The legacy form: solves A X = self (Aᵀ X = self with `transpose`); also returns a copy of A."""
    dt = np.promote_types(_out_dtype(self), _out_dtype(A))
    a = np.asarray(A).astype(dt)
    if transpose:
        a, upper = _mT(a), not upper
    return _trsm(a, np.asarray(self).astype(dt), upper, unitriangular), np.array(A, copy=True)


# ---------------------------------------------------------------------------
# Cholesky
# ---------------------------------------------------------------------------


def _cholesky_info(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """
    Lower factors and potrf's info, column by column as LAPACK's unblocked potf2
    does: the first column whose pivot is not positive (NaN included) gives info
    (its 1-based order) and keeps that pivot unrooted; the columns after it keep
    the input, as torch's result then shows. numpy's cholesky instead returns NaN
    factors without an error for a NaN input.
    """
    n = a.shape[-1]
    out = a.reshape(math.prod(a.shape[:-2]), n, n).copy()
    info = np.zeros(out.shape[0], dtype=I32)
    live = np.ones(out.shape[0], dtype=bool)
    for j in range(n):
        row = out[:, j, :j]
        ajj = out[:, j, j] - np.einsum("bk,bk->b", row, row)
        bad = live & ~(ajj > 0)
        info[bad] = j + 1
        out[bad, j, j] = ajj[bad]
        live &= ~bad
        if not live.any():
            break
        root = np.sqrt(np.where(live, ajj, 1.0))
        out[live, j, j] = root[live]
        below = out[:, j + 1 :, j] - np.einsum("bik,bk->bi", out[:, j + 1 :, :j], row)
        out[live, j + 1 :, j] = (below / root[:, None])[live]
    return np.tril(out).reshape(a.shape), info.reshape(a.shape[:-2])


@register("aten.linalg_cholesky_ex.default")
def _linalg_cholesky_ex(
    self: np.ndarray, upper: bool = False, check_errors: bool = False
) -> tuple[np.ndarray, np.ndarray]:
    """
    Reads one triangle only, as LAPACK's potrf does: the lower one, or with
    `upper` the upper one, whose factor is the transpose of the lower factor of
    the transposed triangle (the two differ for an input that is not symmetric).
    """
    a = _f64(self)
    _square(a, "linalg.cholesky")
    factor, info = _cholesky_info(_mT(a) if upper else a)
    if check_errors:
        _check_errors(info, "linalg.cholesky_ex", a.ndim == 2)
    return _back(_mT(factor) if upper else factor, self), info


@register("aten.linalg_cholesky.default")
def _linalg_cholesky(self: np.ndarray, upper: bool = False) -> np.ndarray:
    factor, info = _linalg_cholesky_ex(self, upper)
    if np.any(info):
        code = int(np.asarray(info).reshape(-1)[np.flatnonzero(np.asarray(info).reshape(-1))[0]])
        raise ValueError(
            f"linalg.cholesky: The factorization could not be completed because the input is not positive-definite "
            f"(the leading minor of order {code} is not positive-definite)."
        )
    return factor


@register("aten.cholesky.default")
def _cholesky(self: np.ndarray, upper: bool = False) -> np.ndarray:
    """The deprecated `torch.cholesky` returns an empty input as it is (its
    dtype and shape, square or not) before it checks anything."""
    a = np.asarray(self)
    if a.size == 0:
        return np.empty_like(a)
    return _linalg_cholesky(self, upper)


def _from_factor(factor: np.ndarray, upper: bool) -> np.ndarray:
    f = np.triu(factor) if upper else np.tril(factor)
    return _mT(f) @ f if upper else f @ _mT(f)


@register("aten.cholesky_solve.default", "aten._cholesky_solve_helper.default")
def _cholesky_solve(
    self: np.ndarray, input2: np.ndarray | None = None, upper: bool = False, A: np.ndarray | None = None
) -> np.ndarray:
    """Solves (L Lᵀ) X = self given the factor L (or U with `upper`)."""
    factor = input2 if input2 is not None else A
    x = np.linalg.solve(_from_factor(_f64(factor), upper), _f64(self))
    return x.astype(np.promote_types(_out_dtype(self), _out_dtype(factor)))


@register("aten.cholesky_inverse.default")
def _cholesky_inverse(self: np.ndarray, upper: bool = False) -> np.ndarray:
    return _back(np.linalg.inv(_from_factor(_f64(self), upper)), self)


# ---------------------------------------------------------------------------
# QR, SVD, symmetric eigendecomposition
# ---------------------------------------------------------------------------


@register("aten.linalg_qr.default")
def _linalg_qr(A: np.ndarray, mode: str = "reduced") -> tuple[np.ndarray, np.ndarray]:
    """`mode="r"` returns an empty Q, as torch does."""
    a = _f64(A)
    if mode == "r":
        return np.empty(0, dtype=_out_dtype(A)), _back(np.asarray(np.linalg.qr(a, mode="r")), A)
    if mode not in ("reduced", "complete"):
        raise ValueError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    q, r = np.linalg.qr(a, mode=mode)
    return _back(q, A), _back(r, A)


@register("aten.qr.default")
def _qr(self: np.ndarray, some: bool = True) -> tuple[np.ndarray, np.ndarray]:
    return _linalg_qr(self, "reduced" if some else "complete")


@register("aten._linalg_svd.default")
def _linalg_svd_full(
    A: np.ndarray, full_matrices: bool = False, compute_uv: bool = True, driver: str | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Without `compute_uv`, U and Vh are empty tensors (torch's convention)."""
    a = _f64(A)
    if not compute_uv:
        empty = np.empty(0, dtype=_out_dtype(A))
        return empty, _back(np.linalg.svd(a, compute_uv=False), A), empty
    u, s, vh = np.linalg.svd(a, full_matrices=full_matrices)
    return _back(u, A), _back(s, A), _back(vh, A)


@register("aten.linalg_svd.default")
def _linalg_svd(A: np.ndarray, full_matrices: bool = True, driver: str | None = None) -> tuple[np.ndarray, ...]:
    return _linalg_svd_full(A, full_matrices, True)


@register("aten.svd.default")
def _svd(self: np.ndarray, some: bool = True, compute_uv: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The legacy form returns V, not Vh; without `compute_uv` U and V are zero matrices of full size."""
    a = _f64(self)
    m, n = a.shape[-2:]
    if not compute_uv:
        s = np.linalg.svd(a, compute_uv=False)
        lead = a.shape[:-2]
        return np.zeros((*lead, m, m), _out_dtype(self)), _back(s, self), np.zeros((*lead, n, n), _out_dtype(self))
    u, s, vh = np.linalg.svd(a, full_matrices=not some)
    return _back(u, self), _back(s, self), _back(_mT(vh), self)


def _svdvals(a: np.ndarray) -> np.ndarray:
    return np.linalg.svd(a, compute_uv=False)


@register("aten.linalg_svdvals.default")
def _linalg_svdvals(A: np.ndarray, driver: str | None = None) -> np.ndarray:
    return _back(_svdvals(_f64(A)), A)


@register("aten._linalg_eigh.default")
def _linalg_eigh_full(A: np.ndarray, UPLO: str = "L", compute_v: bool = True) -> tuple[np.ndarray, np.ndarray]:
    a = _f64(A)
    _square(a, "linalg.eigh")
    if UPLO not in ("L", "U"):
        raise ValueError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    if not compute_v:
        return _back(np.linalg.eigvalsh(a, UPLO=UPLO), A), np.empty(0, dtype=_out_dtype(A))
    w, v = np.linalg.eigh(a, UPLO=UPLO)
    return _back(w, A), _back(v, A)


@register("aten.linalg_eigh.default")
def _linalg_eigh(self: np.ndarray, UPLO: str = "L") -> tuple[np.ndarray, np.ndarray]:
    return _linalg_eigh_full(self, UPLO, True)


@register("aten.linalg_eigvalsh.default")
def _linalg_eigvalsh(self: np.ndarray, UPLO: str = "L") -> np.ndarray:
    return _linalg_eigh_full(self, UPLO, False)[0]


# ---------------------------------------------------------------------------
# pseudo-inverse, rank, least squares
# ---------------------------------------------------------------------------


def _tolerance(s_max: np.ndarray, m: int, n: int, atol: object, rtol: object) -> np.ndarray:
    """torch's rule: max(atol, rtol * σ_max); rtol defaults to eps * max(m, n) unless atol alone is given."""
    if rtol is None:
        rtol = 0.0 if atol is not None and not (isinstance(atol, float) and atol <= 0) else None
    a = np.zeros(()) if atol is None else _f64(atol)
    r = np.asarray(np.finfo(np.float64).eps * max(m, n) if rtol is None else _f64(rtol))
    return np.maximum(a[..., None] if np.ndim(a) else a, (r[..., None] if np.ndim(r) else r) * s_max)


def _eps_rtol(like: object, m: int, n: int) -> float:
    return float(np.finfo(_out_dtype(like)).eps) * max(m, n)


@register("aten.linalg_pinv.atol_rtol_tensor", "aten.linalg_pinv.atol_rtol_float")
def _linalg_pinv(self: np.ndarray, atol: object = None, rtol: object = None, hermitian: bool = False) -> np.ndarray:
    a = _f64(self)
    m, n = a.shape[-2:]
    if rtol is None and (atol is None or np.all(_f64(atol) <= 0)):
        rtol = _eps_rtol(self, m, n)
    if rtol is None:
        rtol = 0.0
    if a.size == 0:  # no singular value to threshold; torch accepts any empty shape, square or not
        return np.zeros((*a.shape[:-2], n, m), dtype=_out_dtype(self))
    if hermitian:
        w, v = np.linalg.eigh(a)
        tol = _tolerance(np.max(np.abs(w), axis=-1, keepdims=True), m, n, atol, rtol)
        inv = np.where(np.abs(w) > tol, 1.0 / np.where(w == 0, 1.0, w), 0.0)
        return _back((v * inv[..., None, :]) @ _mT(v), self)
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    tol = _tolerance(s[..., :1], m, n, atol, rtol)
    inv = np.where(s > tol, 1.0 / np.where(s == 0, 1.0, s), 0.0)
    return _back((_mT(vh) * inv[..., None, :]) @ _mT(u), self)


@register("aten.linalg_pinv.default", "aten.linalg_pinv.rcond_tensor")
def _linalg_pinv_rcond(self: np.ndarray, rcond: object, hermitian: bool = False) -> np.ndarray:
    return _linalg_pinv(self, 0.0, rcond, hermitian)


@register("aten.pinverse.default")
def _pinverse(self: np.ndarray, rcond: float = 1e-15) -> np.ndarray:
    return _linalg_pinv(self, 0.0, rcond)


@register("aten.linalg_matrix_rank.atol_rtol_tensor", "aten.linalg_matrix_rank.atol_rtol_float")
def _linalg_matrix_rank(
    self: np.ndarray | None = None,
    atol: object = None,
    rtol: object = None,
    hermitian: bool = False,
    input: np.ndarray | None = None,
) -> np.ndarray:
    x = self if self is not None else input
    a = _f64(x)
    m, n = a.shape[-2:]
    if rtol is None and (atol is None or np.all(_f64(atol) <= 0)):
        rtol = _eps_rtol(x, m, n)
    if rtol is None:
        rtol = 0.0
    if a.size == 0:  # rank 0; torch accepts any empty shape, square or not
        return np.zeros(a.shape[:-2], dtype=I64)
    s = np.abs(np.linalg.eigvalsh(a)) if hermitian else _svdvals(a)
    s_max = np.max(s, axis=-1, keepdims=True) if s.shape[-1] else np.zeros((*s.shape[:-1], 1))
    return np.sum(s > _tolerance(s_max, m, n, atol, rtol), axis=-1).astype(I64)


@register("aten.linalg_matrix_rank.default", "aten.linalg_matrix_rank.tol_tensor")
def _linalg_matrix_rank_tol(
    self: np.ndarray | None = None, tol: object = 0.0, hermitian: bool = False, input: np.ndarray | None = None
) -> np.ndarray:
    return _linalg_matrix_rank(self if self is not None else input, tol, 0.0, hermitian)


@register("aten.linalg_lstsq.default")
def _linalg_lstsq(
    self: np.ndarray, b: np.ndarray, rcond: float | None = None, driver: str | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Minimum-norm least squares. torch's CPU default driver is gelsy: rank is returned, the
    singular values are empty, and residuals are returned only by the gelsd/gelss/gelsy drivers
    when m > n and every matrix has full rank."""
    a, bb = _f64(self), _f64(b)
    m, n = a.shape[-2:]
    vector = bb.ndim == a.ndim - 1
    if vector:
        bb = bb[..., None]
    driver = driver or "gelsy"
    r = float(np.finfo(_out_dtype(self)).eps) * max(m, n) if rcond is None or rcond < 0 else float(rcond)
    s = _svdvals(a)
    s_max = s[..., :1] if s.shape[-1] else np.zeros((*s.shape[:-1], 1))
    rank = np.sum(s > r * s_max, axis=-1).astype(I64)
    sol = _linalg_pinv(a, 0.0, r) @ bb if driver != "gels" else np.linalg.solve(_mT(a) @ a, _mT(a) @ bb)
    dt = np.promote_types(_out_dtype(self), _out_dtype(b))
    if m > n and driver != "gelsy" and bool(np.all(rank == n)):
        residuals = np.sum((a @ sol - bb) ** 2, axis=-2)
    else:
        residuals = np.empty(0)
    if vector:
        sol = sol[..., 0]
        residuals = residuals[..., 0] if residuals.size else residuals
    svals = s if driver in ("gelsd", "gelss") else np.empty(0)
    rank_out = rank if driver != "gels" else np.empty(0, dtype=I64)
    return sol.astype(dt), residuals.astype(dt), rank_out, svals.astype(dt)


# ---------------------------------------------------------------------------
# matrix functions and norms
# ---------------------------------------------------------------------------


@register("aten.linalg_matrix_exp.default", "aten.matrix_exp.default")
def _matrix_exp(self: np.ndarray) -> np.ndarray:
    """Scaling and squaring: exp(A) = exp(A / 2^s)^(2^s), with a degree-18 Taylor polynomial
    of A / 2^s (norm at most 1/2, truncation error below float64 rounding)."""
    a = _f64(self)
    _square(a, "linalg.matrix_exp")
    n = a.shape[-1]
    norm = float(np.max(np.sum(np.abs(a), axis=-2))) if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / 0.5)))) if norm > 0.5 else 0
    x = a / (2.0**s)
    term = np.broadcast_to(np.eye(n), a.shape).copy()
    result = term.copy()
    for k in range(1, 19):
        term = term @ x / k
        result = result + term
    for _ in range(s):
        result = result @ result
    return _back(result, self)


@register("aten.linalg_matrix_power.default", "aten.matrix_power.default")
def _matrix_power(self: np.ndarray, n: int) -> np.ndarray:
    a = np.asarray(self)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(
            f"linalg.matrix_power: A must be batches of square matrices, but they are {a.shape[-2:]} matrices"
        )
    if n < 0:
        return _back(np.linalg.matrix_power(np.linalg.inv(_f64(a)), -int(n)), a)
    if is_floating(a.dtype):
        return np.linalg.matrix_power(_f64(a), int(n)).astype(a.dtype)
    return np.linalg.matrix_power(a, int(n))


def _move_to_end(a: np.ndarray, dim: Sequence[int]) -> tuple[np.ndarray, tuple[int, int]]:
    d0, d1 = (wrap_dim(int(d), a.ndim) for d in dim)
    if d0 == d1:
        raise ValueError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    return np.moveaxis(a, (d0, d1), (-2, -1)), (d0, d1)


def _matrix_norm_last(x: np.ndarray, ord: object) -> np.ndarray:
    if ord == "fro":
        return np.sqrt(np.sum(x * x, axis=(-2, -1)))
    if ord == "nuc":
        return np.sum(_svdvals(x), axis=-1)
    o = float(ord)  # pyright: ignore[reportArgumentType] - a number once bound (ord: Scalar)
    if o in (2.0, -2.0):
        s = _svdvals(x)
        return np.max(s, axis=-1) if o > 0 else np.min(s, axis=-1)
    if o in (1.0, -1.0):
        sums = np.sum(np.abs(x), axis=-2)
        return np.max(sums, axis=-1) if o > 0 else np.min(sums, axis=-1)
    if o in (np.inf, -np.inf):
        sums = np.sum(np.abs(x), axis=-1)
        return np.max(sums, axis=-1) if o > 0 else np.min(sums, axis=-1)
    raise ValueError(f"linalg.matrix_norm: Order {ord} not supported.")


def _result_dtype(self: object, dtype: object) -> np.dtype[Any]:
    if dtype is not None:
        want = numpy_dtype_or_none(dtype)
        if want is not None:
            return want
    return _out_dtype(self)


@register("aten.linalg_matrix_norm.default", "aten.linalg_matrix_norm.str_ord")
def _linalg_matrix_norm(
    self: np.ndarray, ord: object = "fro", dim: Sequence[int] = (-2, -1), keepdim: bool = False, dtype: object = None
) -> np.ndarray:
    x, (d0, d1) = _move_to_end(_f64(self), dim)
    out = _matrix_norm_last(x, ord)
    if keepdim:
        for d in sorted((d0, d1)):
            out = np.expand_dims(out, d)
    return np.asarray(out).astype(_result_dtype(self, dtype))


def _vector_norm(x: np.ndarray, ord: float, axes: tuple[int, ...] | None, keepdim: bool) -> np.ndarray:
    ax = np.abs(x)
    if ord == np.inf:
        return np.max(ax, axis=axes, keepdims=keepdim)
    if ord == -np.inf:
        return np.min(ax, axis=axes, keepdims=keepdim)
    if ord == 0:
        return np.sum(ax != 0, axis=axes, keepdims=keepdim).astype(np.float64)
    return np.sum(ax**ord, axis=axes, keepdims=keepdim) ** (1.0 / ord)


@register("aten.linalg_norm.default", "aten.linalg_norm.ord_str")
def _linalg_norm(
    self: np.ndarray, ord: object = None, dim: Sequence[int] | None = None, keepdim: bool = False, dtype: object = None
) -> np.ndarray:
    """A matrix norm over two dims (or a 2-D input with `ord`), else a vector norm (2 by default)."""
    x = _f64(self)
    if dim is not None and isinstance(dim, int):
        dim = [dim]
    if isinstance(ord, str) or (dim is not None and len(dim) == 2) or (dim is None and ord is not None and x.ndim == 2):
        return _linalg_matrix_norm(
            self, "fro" if ord is None else ord, dim if dim is not None else (-2, -1), keepdim, dtype
        )
    o = 2.0 if ord is None else float(ord)  # pyright: ignore[reportArgumentType] - a number once bound
    axes = None if dim is None else tuple(wrap_dim(int(d), x.ndim) for d in dim)
    return np.asarray(_vector_norm(x, o, axes, keepdim)).astype(_result_dtype(self, dtype))


@register("aten.nuclear_norm.default", "aten.nuclear_norm.dim")
def _nuclear_norm(self: np.ndarray, dim: Sequence[int] = (-2, -1), keepdim: bool = False) -> np.ndarray:
    return _linalg_matrix_norm(self, "nuc", dim, keepdim)


@register("aten.linalg_cond.default", "aten.linalg_cond.p_str")
def _linalg_cond(self: np.ndarray, p: object = None) -> np.ndarray:
    """σ_max / σ_min for p in (None, 2), σ_min / σ_max for -2, else ‖A‖_p ‖A⁻¹‖_p (inf when singular)."""
    x = _f64(self)
    if p is None or p in (2, -2, 2.0, -2.0):
        s = _svdvals(x)
        hi, lo = np.max(s, axis=-1), np.min(s, axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = lo / hi if p in (-2, -2.0) else hi / lo
        return _back(out, self)
    _square(x, "linalg.cond")
    _, _, info = lu_factor(x)
    safe = np.where((info == 0)[..., None, None], x, np.eye(x.shape[-1]))
    out = _matrix_norm_last(x, p) * _matrix_norm_last(np.linalg.inv(safe), p)
    return _back(np.where(info == 0, out, np.inf), self)


@register("aten.linalg_tensorinv.default")
def _linalg_tensorinv(self: np.ndarray, ind: int = 2) -> np.ndarray:
    return _back(np.linalg.tensorinv(_f64(self), ind=int(ind)), self)


@register("aten.linalg_tensorsolve.default")
def _linalg_tensorsolve(self: np.ndarray, other: np.ndarray, dims: Sequence[int] | None = None) -> np.ndarray:
    axes = None if dims is None else tuple(int(d) for d in dims)
    x = np.linalg.tensorsolve(_f64(self), _f64(other), axes=axes)
    return x.astype(np.promote_types(_out_dtype(self), _out_dtype(other)))


# ---------------------------------------------------------------------------
# linalg_ spellings of existing operators
# ---------------------------------------------------------------------------


