"""
The graph compiler's index views (`exir_functions._fast_index_view`): `slice.Tensor`,
`select.int`, `squeeze.dims` and `unsqueeze` with constant arguments are a numpy index
built once. Each is checked against the kernel it stands for, value, shape, dtype and
strides, on contiguous, transposed, empty and bfloat16 operands, with negative, omitted
and out-of-range arguments; the result must stay a view of the operand.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np
import pytest

BIG = 9223372036854775807  # what export writes for an open slice end


def _operands() -> list[np.ndarray]:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 4, 5)).astype(np.float32)
    a[0, 0, 0], a[1, 2, 3], a[2, 3, 4] = np.nan, -np.inf, -0.0
    return [
        a,
        np.ascontiguousarray(a.transpose(2, 0, 1)).transpose(1, 2, 0),  # same values, other strides
        a.transpose(1, 0, 2),  # non-contiguous
        np.zeros((3, 0, 5), np.float32),  # empty
        a.astype(ml_dtypes.bfloat16),  # views take low-precision operands as they are
        np.arange(60, dtype=np.int64).reshape(3, 4, 5),
    ]


def _run(target: str, x: np.ndarray, args: list[Any], fast_expected: bool) -> None:
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.aten_binding import InferenceError
    from xdsl_exir.dialects.exir import DType, TensorType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import _fast_index_view, compile_call, decode_call_args
    from xdsl_exir.semantics import kernels as aten_kernels
    from xdsl_exir.utils.dtypes import dtype_of

    dt = DType.bfloat16 if x.dtype == ml_dtypes.bfloat16 else dtype_of(x.dtype)
    src = TestOp(result_types=[TensorType(list(x.shape), dt)])
    try:
        op = aten.build(target, src.results[0], *args)
    except InferenceError:
        return  # (an index out of range of a static size: no program holds it)
    assert (_fast_index_view(op, target, *decode_call_args(op)) is not None) == fast_expected
    want = aten_kernels.run_kernel(target, [x, *args], {})
    (got,) = compile_call(op, CompileContext())(x)
    assert isinstance(want, np.ndarray) and isinstance(got, np.ndarray)
    assert got.dtype == want.dtype and got.shape == want.shape and got.strides == want.strides
    # the same view of the same memory: the same values, -0.0 and NaN payloads included
    if got.size:
        assert got.__array_interface__["data"][0] == want.__array_interface__["data"][0]
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))
    if got.size:
        assert np.shares_memory(got, x)  # a view stays a view


SLICES: list[list[Any]] = [
    [0, 0, 2], [1, 1, BIG], [-1, -3, -1], [2, 0, BIG, 2], [1, -BIG, 2], [0, 5, 9], [2, 3, 1],
    [1, None, None], [0], [-3, 1, 3, 3],
]  # fmt: skip


@pytest.mark.parametrize("args", SLICES)
def test_slice_matches_kernel(args: list[Any]) -> None:
    for x in _operands():
        _run("aten.slice.Tensor", x, args, True)


@pytest.mark.parametrize("args", [[0, 0], [0, -1], [1, 3], [-1, 4], [2, -5], [0, 3], [1, -5]])
def test_select_matches_kernel(args: list[int]) -> None:
    """In range and negative."""
    for x in _operands():
        if x.size:
            _run("aten.select.int", x, args, True)


def test_select_of_a_vector_is_a_0d_array() -> None:
    _run("aten.select.int", np.arange(4, dtype=np.float32), [0, -1], True)


@pytest.mark.parametrize("dim", [0, 1, 3, -1, -4])
def test_unsqueeze_matches_kernel(dim: int) -> None:
    for x in _operands():
        _run("aten.unsqueeze.default", x, [dim], True)
    _run("aten.unsqueeze.default", np.asarray(np.float32(2.5)), [0], True)


def test_squeeze_dims_matches_kernel() -> None:
    x = np.random.default_rng(1).standard_normal((1, 3, 1, 2)).astype(np.float32).transpose(0, 2, 1, 3)
    for dims in ([0], [0, 1], [-3, 0], [2], [1, 2, 3], [-4, -1]):
        _run("aten.squeeze.dims", x, [dims], True)
        _run("aten.squeeze.dims", x.astype(ml_dtypes.bfloat16), [dims], True)
    _run("aten.squeeze.dims", np.zeros((1, 0, 1), np.float32), [[0, 1, 2]], True)


def test_squeeze_naming_a_dim_twice_is_left_to_the_kernel() -> None:
    """torch refuses a dim named twice; the kernel does too, so the index is not built."""
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.exir import DType, TensorType
    from xdsl_exir.interpreters.exir_functions import _fast_index_view, decode_call_args

    src = TestOp(result_types=[TensorType([1, 3, 1], DType.float32)])
    op = aten.build("aten.squeeze.dims", src.results[0], [0, -3])
    assert _fast_index_view(op, "aten.squeeze.dims", *decode_call_args(op)) is None
