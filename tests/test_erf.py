"""The interpreter's erf against correctly rounded references, to the ulp.

`aten.erf`, GELU's erf form and the upstream interpreter's `math.erf` share
one function (`semantics.kernels.pointwise.erf`); numpy has none. The references are
math.erf (float64, C's libm) and mpmath at 40 digits; torch.erf is compared as a
peer. Float32 GELU, which evaluates in float32, is held to torch's own float32
GELU error instead. Each test reports the largest error it saw in ulps.
"""

from __future__ import annotations

import math
from typing import Any

import mpmath
import numpy as np
import pytest
import torch

from xdsl_exir.semantics.kernels.pointwise import erf


def _ordinal(a: np.ndarray) -> np.ndarray:
    """Floats mapped to integers that count representable values (so -0.0 == 0.0)."""
    bits = a.view(np.int32 if a.dtype == np.float32 else np.int64).astype(np.int64)
    return np.where(bits < 0, -(bits & np.iinfo(np.int64).max if a.dtype == np.float64 else bits & 0x7FFFFFFF), bits)


def ulps(got: np.ndarray, want: np.ndarray) -> int:
    assert got.dtype == want.dtype and got.shape == want.shape
    return int(np.abs(_ordinal(got) - _ordinal(want)).max())


def _mp_erf(x: np.ndarray) -> np.ndarray:
    with mpmath.workdps(40):
        return np.array([float(mpmath.erf(mpmath.mpf(float(v)))) for v in x])


def test_float32_dense_grid(record_property: Any) -> None:
    """Every 499th float32 in [0, 5) (subnormals to the tail; erf rounds to 1 beyond 3.9),
    200,000 consecutive floats above 0.5 and above 2, and the negations of all."""
    x = np.arange(0, np.float32(5.0).view(np.int32), 499, dtype=np.int32).view(np.float32)
    runs = [np.arange(200_000, dtype=np.int32) + np.float32(v).view(np.int32) for v in (0.5, 2.0)]
    x = np.concatenate([x, *(r.view(np.float32) for r in runs)])
    x = np.concatenate([x, -x])
    # math.erf is correct to about an ulp of float64: rounding it to float32 is correctly rounded
    # except within ~1e-16 of a float32 midpoint, which a 1-ulp bound absorbs.
    want = np.asarray(np.frompyfunc(math.erf, 1, 1)(x.astype(np.float64)), np.float64).astype(np.float32)
    got = erf(x)
    assert got.dtype == np.float32
    worst = ulps(got, want)
    peer = ulps(torch.erf(torch.from_numpy(x)).numpy(), want)
    record_property("max_ulp_float32", worst)
    print(f"float32 erf: max {worst} ulp over {x.size} values (torch.erf: {peer} ulp)")
    assert worst <= 1, f"float32 erf is off by {worst} ulps"


@pytest.mark.parametrize(
    "grid",
    [
        np.linspace(-7.0, 7.0, 200_001),
        np.linspace(0.98, 1.02, 20_001),  # the switch between the two float64 ranges
        np.linspace(5.9, 6.1, 2_001),  # where erf becomes 1
        np.geomspace(1e-300, 0.5, 4_001),
    ],
    ids=["dense", "near-1", "near-6", "tiny"],
)
def test_float64_against_libm(grid: np.ndarray, record_property: Any) -> None:
    x = np.concatenate([grid, -grid])
    want = np.asarray(np.frompyfunc(math.erf, 1, 1)(x), np.float64)
    worst = ulps(erf(x), want)
    record_property("max_ulp_float64_vs_libm", worst)
    print(f"float64 erf: max {worst} ulp against math.erf over {x.size} values")
    assert worst <= 1, f"float64 erf is {worst} ulps from math.erf"


def test_float64_against_mpmath(record_property: Any) -> None:
    """A correctly rounded reference on random points of every range, tails included."""
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-1, 1, 3000), rng.uniform(1, 6.5, 3000), rng.uniform(-6.5, -1, 1000)])
    worst = ulps(erf(x), _mp_erf(x))
    peer = ulps(torch.erf(torch.from_numpy(x)).numpy(), _mp_erf(x))
    record_property("max_ulp_float64", worst)
    print(f"float64 erf: max {worst} ulp against mpmath (torch.erf: {peer} ulp)")
    assert worst <= 1


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_special_values(dtype: type[np.floating[Any]]) -> None:
    tiny = np.finfo(dtype).smallest_subnormal
    x = np.array([np.inf, -np.inf, np.nan, -0.0, 0.0, tiny, -tiny, 30.0, -30.0], dtype=dtype)
    got = erf(x)
    assert got.dtype == dtype
    assert got[0] == 1 and got[1] == -1 and np.isnan(got[2])
    assert got[3] == 0 and np.signbit(got[3]) and got[4] == 0 and not np.signbit(got[4])
    assert got[7] == 1 and got[8] == -1
    # erf(x) = 2x/sqrt(pi) near 0: the smallest subnormal maps to itself or its double
    assert 0 < got[5] <= 2 * tiny and got[6] == -got[5]
    if dtype != np.float16:
        np.testing.assert_array_equal(got, torch.erf(torch.from_numpy(x)).numpy())


def test_shapes_and_layouts() -> None:
    """0-d, empty, non-contiguous and several-block inputs keep their shape; values match a flat call."""
    x = np.random.default_rng(2).standard_normal((70, 300)).astype(np.float32)
    np.testing.assert_array_equal(erf(x.T), erf(np.ascontiguousarray(x.T)))
    np.testing.assert_array_equal(erf(x).reshape(-1), erf(x.reshape(-1)))
    assert erf(np.asarray(np.float32(0.5))).shape == () and erf(np.zeros((0, 3), np.float32)).shape == (0, 3)
    assert erf(np.array([1, 2])).dtype == np.float64  # anything else computes in float64


def _gelu_reference(x: np.ndarray) -> np.ndarray:
    """x Phi(x) from libm's erfc in float64 (no cancellation for negative x), rounded to float32."""
    return np.asarray(
        np.frompyfunc(lambda v: 0.5 * v * math.erfc(-v / math.sqrt(2.0)), 1, 1)(x.astype(np.float64)), np.float64
    ).astype(np.float32)


def test_float32_gelu_within_torchs_own_error(record_property: Any) -> None:
    """Float32 GELU evaluates in float32, so it is held to torch's float32 GELU's own error,
    not to 1 ulp: where x Phi(x) is well conditioned (x >= -1) its largest ulp error may not
    exceed torch's, and below -1 (where 1 + erf cancels in torch too) its largest absolute
    error, in units of |x| times float32's epsilon, may not exceed torch's."""
    from xdsl_exir.semantics.kernels.pointwise import _gelu  # pyright: ignore[reportPrivateUsage] - the float32 GELU itself, not the aten kernel around it

    rng = np.random.default_rng(3)
    x = np.concatenate([np.linspace(-10.0, 10.0, 400_001), 3.0 * rng.standard_normal(200_000)]).astype(np.float32)
    want = _gelu_reference(x)
    got = _gelu(x)
    peer = torch.nn.functional.gelu(torch.from_numpy(x)).numpy()
    assert got.dtype == np.float32 and got.shape == x.shape
    well = x >= -1.0
    worst, peer_worst = ulps(got[well], want[well]), ulps(peer[well], want[well])

    def scaled_abs(y: np.ndarray) -> float:
        neg = ~well
        err = np.abs(y[neg].astype(np.float64) - want[neg].astype(np.float64))
        return float((err / (np.abs(x[neg].astype(np.float64)) * np.finfo(np.float32).eps)).max())

    tail, peer_tail = scaled_abs(got), scaled_abs(peer)
    record_property("gelu_float32_max_ulp", worst)
    print(f"float32 gelu: max {worst} ulp for x >= -1 (torch: {peer_worst}); ", end="")
    print(f"below -1 {tail:.2f} |x| eps (torch: {peer_tail:.2f})")
    assert worst <= peer_worst, f"float32 gelu is {worst} ulps off where torch is {peer_worst}"
    assert tail <= peer_tail
    # Special values as torch's vectorised float32 kernel gives them (NaN at +-inf, inf at 3e38).
    edges = np.array([np.nan, np.inf, -np.inf, 3e38, -3e38, 1e20, -0.0], np.float32)
    special = _gelu(edges)
    torch_special = torch.nn.functional.gelu(torch.from_numpy(edges)).numpy()
    np.testing.assert_array_equal(special, torch_special)
    real = ~np.isnan(special)  # (a NaN's sign is not defined)
    assert np.array_equal(np.signbit(special[real]), np.signbit(torch_special[real]))
