"""Kernels with a cheap common path and an exact slow one agree with torch on both.

Each kernel here checks its input once and takes the slow path only where
torch's order of operations matters (values near overflow, NaN, infinities);
these tests mix such rows with ordinary ones, so that a check that let one
through, or sent every row down the slow path, shows up as a wrong value.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from xdsl_exir.semantics.kernels import run_kernel


def _rows(rng: np.random.Generator, shape: tuple[int, int], special: dict[tuple[int, int], float]) -> np.ndarray:
    x = rng.standard_normal(shape).astype(np.float32)
    for (i, j), v in special.items():
        x[i, j] = v
    return x


@pytest.mark.parametrize(
    "special",
    [
        {},
        {(1, 3): 3e37},
        {(2, 5): float("nan")},
        {(3, 0): float("inf"), (5, 7): float("-inf")},
        {(0, 0): 2e18, (0, 1): -2e18},
        {(4, 2): -0.0},
    ],
    ids=["ordinary", "near-overflow", "nan", "inf", "square-overflows", "negative-zero"],
)
def test_layer_norm_rows_near_overflow(special: dict[tuple[int, int], float]) -> None:
    rng = np.random.default_rng(0)
    x = _rows(rng, (8, 64), special)
    x[6] *= 1e17  # a large row that is still safe
    w = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    got = run_kernel("aten.native_layer_norm.default", [x, [64], w, b, 1e-5], {})
    want = torch.ops.aten.native_layer_norm.default(torch.from_numpy(x), [64], torch.from_numpy(w), torch.from_numpy(b), 1e-5)
    for g, t in zip(got, want):
        t = t.numpy()
        scale = np.abs(np.where(np.isfinite(t), t, 0)).max(axis=-1, keepdims=True) + 1
        np.testing.assert_array_equal(np.isnan(g), np.isnan(t))
        np.testing.assert_allclose(np.nan_to_num(g / scale), np.nan_to_num(t / scale), rtol=0, atol=1e-5)
