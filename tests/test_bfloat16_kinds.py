"""bfloat16 arrays (ml_dtypes, numpy kind 'V') are floating point wherever the kernels and
the TorchScript runner ask, through `utils.dtypes`, not `dtype.kind == "f"`."""

from __future__ import annotations

import ml_dtypes
import numpy as np

from xdsl_exir.dialects.exir import DType
from xdsl_exir.interpreters.ts_runner import _scalar  # pyright: ignore[reportPrivateUsage] - the helper under test
from xdsl_exir.semantics.kernels.creation import _convert  # pyright: ignore[reportPrivateUsage] - the helper under test
from xdsl_exir.semantics.kernels.lapack import _matrix_power, _out_dtype  # pyright: ignore[reportPrivateUsage] - the kernels under test

BF16 = np.dtype(ml_dtypes.bfloat16)


def test_lapack_keeps_bfloat16() -> None:
    a = np.array([[1.5, 2.0], [0.5, -1.0]], BF16)
    assert _out_dtype(a) == BF16
    got = _matrix_power(a, 3)
    assert got.dtype == BF16
    np.testing.assert_array_equal(got.astype(np.float32), np.linalg.matrix_power(a.astype(np.float64), 3).astype(BF16).astype(np.float32))


def test_bfloat16_to_int_truncates() -> None:
    a = np.array([2.75, -2.75, 0.5], BF16)
    np.testing.assert_array_equal(_convert(a, DType.int64, True), np.array([2, -2, 0]))


def test_a_bfloat16_scalar_is_a_float_input() -> None:
    assert _scalar(np.asarray(1.5, BF16), "fiu", "a float", "x") == 1.5
