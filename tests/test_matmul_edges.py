"""The matmul family's kernels and decompositions against torch eager on edge values:
overflowing products in ATen's small-`bmm` loop (unfused, so `-inf + 1e30 * 1e30` is NaN)
and in BLAS-sized products (fused), and the integer truncation of `alpha` / `beta`."""

from __future__ import annotations

import numpy as np
import pytest

from xdsl_exir.semantics.kernels.matmul import _baddbmm, _bmm, _mm  # pyright: ignore[reportPrivateUsage] - the kernels under test

torch = pytest.importorskip("torch")

POOL = np.array([1e30, -1e30, 1.0, -7.0, 3.0, 0.5, -2.0, np.inf, -np.inf, -0.0], np.float32)


def _same(got: np.ndarray, want: np.ndarray, scale: np.ndarray, either: np.ndarray | None = None) -> None:
    """NaN and infinities exactly; finite values within float32 rounding of the sum of the
    terms' magnitudes `scale` (1e30 terms that cancel leave order-dependent residues). Where
    `either` is set, any NaN or infinity: the value depends on the BLAS's order (`_fusion_decides`)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    either = np.zeros(got.shape, bool) if either is None else either
    np.testing.assert_array_equal(np.isnan(got) | either, np.isnan(want) | either)
    np.testing.assert_array_equal(np.isposinf(got) | either, np.isposinf(want) | either)
    np.testing.assert_array_equal(np.isneginf(got) | either, np.isneginf(want) | either)
    assert not np.isfinite(got[either]).any() and not np.isfinite(want[either]).any()
    finite = np.isfinite(want)
    assert (np.abs(got - want)[finite] <= 1e-5 + 1e-6 * scale[finite]).all()


def _fusion_decides(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Elements of `a @ b` that are NaN if products are rounded to float32 before they are
    added and an infinity if a fused multiply-add keeps them exact (or the reverse, by order):
    a finite product beyond float32's range beside an infinite product, or finite products
    beyond it of both signs. Which a BLAS gives depends on its kernel for the CPU (torch's
    MKL on an AVX-512 AMD EPYC and on an Intel Xeon differ on `test_mm_overflow_as_torch`)."""
    big = float(np.finfo(np.float32).max)
    with np.errstate(invalid="ignore", over="ignore"):
        p = a.astype(np.float64)[:, :, None] * b.astype(np.float64)[None, :, :]
    over_pos = ((p > big) & np.isfinite(p)).any(axis=1)
    over_neg = ((p < -big) & np.isfinite(p)).any(axis=1)
    inf_pos, inf_neg = (p == np.inf).any(axis=1), (p == -np.inf).any(axis=1)
    return (over_pos & (over_neg | inf_neg)) | (over_neg & inf_pos)


def _scale(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.matmul(np.abs(a).astype(np.float64), np.abs(b).astype(np.float64))


@pytest.mark.parametrize(
    "shapes",
    [((3, 5, 5), (3, 5, 10)), ((2, 4, 7), (2, 7, 3)), ((2, 16, 8), (2, 8, 16))],
    ids=["small-250", "small-84", "blas-2048"],
)
def test_bmm_and_baddbmm_overflow_as_torch(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    rng = np.random.default_rng(0)
    for _ in range(10):
        a, b = (rng.choice(POOL, s).astype(np.float32) for s in shapes)
        c = rng.choice(POOL, (shapes[0][0], shapes[0][1], shapes[1][2])).astype(np.float32)
        ta, tb, tc = (torch.from_numpy(x) for x in (a, b, c))
        sc = _scale(a, b)
        _same(_bmm(a, b), torch.bmm(ta, tb).numpy(), sc)
        _same(_baddbmm(c, a, b), torch.baddbmm(tc, ta, tb).numpy(), sc + np.abs(c))
        _same(_baddbmm(c, a, b, beta=0, alpha=2), torch.baddbmm(tc, ta, tb, beta=0, alpha=2).numpy(), 2 * sc)


def test_mm_overflow_as_torch() -> None:
    rng = np.random.default_rng(1)
    for _ in range(10):
        a, b = rng.choice(POOL, (5, 7)).astype(np.float32), rng.choice(POOL, (7, 4)).astype(np.float32)
        _same(_mm(a, b), torch.mm(torch.from_numpy(a), torch.from_numpy(b)).numpy(), _scale(a, b), _fusion_decides(a, b))


def test_integer_factors_truncate() -> None:
    """`beta=0.2, alpha=0.6` on int64 are 0 and 0 in ATen: the result is all zeros."""
    rng = np.random.default_rng(2)
    c, a, b = rng.integers(-9, 9, (2, 3, 4)), rng.integers(-9, 9, (2, 3, 5)), rng.integers(-9, 9, (2, 5, 4))
    want = torch.baddbmm(*(torch.from_numpy(x) for x in (c, a, b)), beta=0.2, alpha=0.6).numpy()
    np.testing.assert_array_equal(_baddbmm(c, a, b, beta=0.2, alpha=0.6), want)
    want = torch.baddbmm(*(torch.from_numpy(x) for x in (c, a, b)), beta=1.7, alpha=2.9).numpy()
    np.testing.assert_array_equal(_baddbmm(c, a, b, beta=1.7, alpha=2.9), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_solve_triangular_matches_torch(dtype: type) -> None:
    """Substitution as BLAS's trsm: every side, triangle and diagonal on well-conditioned
    matrices, and a zero of B never meeting an infinity of A (where LU gave NaN or refused a
    singular matrix)."""
    from xdsl_exir.semantics.kernels.lapack import _linalg_solve_triangular  # pyright: ignore[reportPrivateUsage] - the kernel under test

    rng = np.random.default_rng(3)
    for upper in (False, True):
        for left in (False, True):
            for unit in (False, True):
                a = (rng.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype(dtype)
                b = rng.standard_normal((2, 4, 3) if left else (2, 3, 4)).astype(dtype)
                want = torch.linalg.solve_triangular(
                    torch.from_numpy(a), torch.from_numpy(b), upper=upper, left=left, unitriangular=unit
                ).numpy()
                got = _linalg_solve_triangular(a, b, upper, left, unit)
                assert got.dtype == want.dtype
                np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    # the OpInfo's edge sample: an infinity above a unit diagonal, B with zeros and infinities
    a = np.array([[np.nan, np.inf, -np.inf], [-0.0, 0.0, 1.0], [-1.0, 0.5, -2.5]], dtype)
    b = np.array([[1e30, -1e-30], [3.0, -7.0], [np.nan, np.inf]], dtype)
    want = torch.linalg.solve_triangular(torch.from_numpy(a), torch.from_numpy(b), upper=True, unitriangular=True).numpy()
    _same(_linalg_solve_triangular(a, b, True, True, True), want, np.full(want.shape, 1e30))
