"""
The graph compiler's layer norm (`exir_functions._fast_layer_norm`): its argument checks are
done when the graph compiles and each call is the kernel's own `layer_norm_rows`, so its three
results must equal the kernel's bit for bit, and torch's within its tolerance, on NaN, +-inf,
values near overflow (the kernel's careful statistics), constant rows, -0.0, non-contiguous and
empty inputs, with and without weight and bias.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


def _inputs(dtype: Any) -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    a = rng.standard_normal((3, 5, 16)).astype(dtype)
    a[0, 0, 3], a[0, 1, 0], a[0, 2, 5] = np.nan, np.inf, -np.inf
    a[1, 0, :] = 2.5  # a constant row: variance 0
    a[1, 1, :] = -0.0
    a[1, 2, :4] = 3e19 if dtype == np.float32 else 1e160  # near overflow: the careful statistics
    return [a, np.ascontiguousarray(a.transpose(1, 0, 2)).transpose(1, 0, 2), a.transpose(1, 0, 2)[:, ::2]]


def _build(shape: tuple[int, ...], normalized: list[int], dt: Any, with_weight: bool, with_bias: bool) -> Any:
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.exir import TensorType

    src = TestOp(result_types=[TensorType(list(shape), dt), TensorType(normalized, dt), TensorType(normalized, dt)])
    x, w, b = src.results
    return aten.build(
        "aten.native_layer_norm.default", x, normalized, w if with_weight else None, b if with_bias else None, 1e-5
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("with_weight, with_bias", [(True, True), (False, True), (True, False), (False, False)])
@pytest.mark.parametrize("last", [1, 2])
def test_fast_layer_norm_matches_kernel(dtype: Any, with_weight: bool, with_bias: bool, last: int) -> None:
    import torch

    from xdsl_exir.dialects.exir import DType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import _fast_layer_norm, compile_call, decode_call_args
    from xdsl_exir.semantics import kernels as aten_kernels

    dt = DType.float32 if dtype == np.float32 else DType.float64
    rng = np.random.default_rng(3)
    for x in _inputs(dtype):
        normalized = list(x.shape[x.ndim - last :])
        w = (rng.standard_normal(normalized) + 1).astype(dtype)
        b = rng.standard_normal(normalized).astype(dtype)
        w.reshape(-1)[0] = -0.0
        op = _build(x.shape, normalized, dt, with_weight, with_bias)
        name = "aten.native_layer_norm.default"
        assert _fast_layer_norm(op, aten_kernels.bind_kernel(name, *decode_call_args(op))[1]) is not None
        operands = [x] + ([w] if with_weight else []) + ([b] if with_bias else [])
        got = compile_call(op, CompileContext())(*operands)
        want = aten_kernels.run_kernel(
            name, [x, normalized, w if with_weight else None, b if with_bias else None, 1e-5], {}
        )
        for g, e in zip(got, want):
            assert g.dtype == e.dtype and g.shape == e.shape
            np.testing.assert_array_equal(g, e)
            assert np.array_equal(np.signbit(g), np.signbit(e))
        # and torch's, where the values are finite and far from overflow (rows 0 and 2 of the first
        # sample hold the specials and the huge values, checked against the kernel above)
        ref = torch.native_layer_norm(
            torch.from_numpy(np.ascontiguousarray(x)), normalized, torch.from_numpy(w) if with_weight else None,
            torch.from_numpy(b) if with_bias else None, 1e-5,
        )[0].numpy()
        plain = np.isfinite(ref) & np.isfinite(got[0]) & (np.abs(x).max(axis=tuple(range(x.ndim - last, x.ndim)), keepdims=True) < 1e10)
        np.testing.assert_allclose(got[0][plain], ref[plain], rtol=1e-4, atol=1e-5)


def test_fast_layer_norm_empty_input_goes_to_the_kernel() -> None:
    from xdsl_exir.dialects.exir import DType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import compile_call
    from xdsl_exir.semantics import kernels as aten_kernels

    x = np.zeros((0, 4), np.float32)
    op = _build(x.shape, [4], DType.float32, False, False)
    got = compile_call(op, CompileContext())(x)
    want = aten_kernels.run_kernel("aten.native_layer_norm.default", [x, [4], None, None, 1e-5], {})
    for g, e in zip(got, want):
        assert g.shape == e.shape and g.dtype == e.dtype
        np.testing.assert_array_equal(g, e)
