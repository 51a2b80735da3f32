"""
`tensor` on numpy arrays. Sizes, offsets and strides mix static attributes
with `index` operands (a static entry of `DYNAMIC_INDEX` takes the next
operand), exactly as MLIR's "mixed" operand lists do. Reshapes and slices
return numpy views where they can; ops that write (insert, insert_slice,
pad) write into a copy, since values are immutable.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, ArrayAttr, DenseArrayBase, IntegerAttr, TensorType
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    PythonValues,
    ReturnedValues,
    TerminatorValue,
    impl,
    impl_terminator,
    register_impls,
)

from xdsl_exir.interpreters.upstream.values import finish, numpy_dtype, shaped_zeros
from xdsl_exir.utils.diagnostics import locate


def _mixed(static: DenseArrayBase[Any], dynamic: Sequence[Any]) -> list[int]:
    """Static entries, with each `DYNAMIC_INDEX` replaced by the next dynamic value."""
    values = iter(dynamic)
    return [int(next(values)) if v == DYNAMIC_INDEX else int(v) for v in static.get_values()]


def _split(args: Sequence[Any], *counts: int) -> list[Sequence[Any]]:
    out: list[Sequence[Any]] = []
    start = 0
    for n in counts:
        out.append(args[start : start + n])
        start += n
    return out


def _slices(offsets: Sequence[int], sizes: Sequence[int], strides: Sequence[int]) -> tuple[slice, ...]:
    for o, n, s in zip(offsets, sizes, strides):
        if o < 0 or n < 0 or s <= 0:
            raise ValueError(f"invalid slice offsets {list(offsets)}, sizes {list(sizes)}, strides {list(strides)}")
    return tuple(slice(o, o + n * s, s) for o, n, s in zip(offsets, sizes, strides))


def _reduced_sizes(sizes: Sequence[int], static_sizes: Sequence[int], reduced: Sequence[int]) -> list[int]:
    """
    The sizes a rank-reducing slice keeps: walking the slice sizes, one that
    matches the next result dimension (static value, or both dynamic) is kept,
    an unmatched size 1 is dropped, as MLIR's rank-reduction mask does.
    """
    if len(sizes) == len(reduced):
        return list(sizes)
    kept: list[int] = []
    j = 0
    for size, static in zip(sizes, static_sizes):
        if j < len(reduced) and reduced[j] == static:
            kept.append(size)
            j += 1
        elif size == 1:
            continue
        else:
            kept.append(size)
            j += 1
    return kept


def _groups(reassociation: ArrayAttr[Any]) -> list[list[int]]:
    return [[cast(IntegerAttr, i).value.data for i in cast(ArrayAttr[Any], group)] for group in reassociation]


@register_impls
class TensorFunctions(InterpreterFunctions):
    """`tensor` ops on numpy arrays."""

    @impl(tensor.EmptyOp)
    def run_empty(self, interpreter: Interpreter, op: tensor.EmptyOp, args: PythonValues) -> PythonValues:
        """Zero-filled: `tensor.empty`'s contents are unspecified, zeros make runs reproducible."""
        return (shaped_zeros(cast(TensorType[Any], op.tensor.type), list(args), locate(op)),)

    @impl(tensor.DimOp)
    def run_dim(self, interpreter: Interpreter, op: tensor.DimOp, args: PythonValues) -> PythonValues:
        source, index = args
        return (int(np.shape(source)[int(index)]),)

    @impl(tensor.CastOp)
    def run_cast(self, interpreter: Interpreter, op: tensor.CastOp, args: PythonValues) -> PythonValues:
        (source,) = args
        dest = op.dest.type
        if isinstance(dest, TensorType):
            shape = cast(TensorType[Any], dest).get_shape()
            if len(shape) != np.ndim(source) or any(s >= 0 and s != n for s, n in zip(shape, np.shape(source))):
                raise ValueError(f"tensor.cast of a {list(np.shape(source))} tensor to {dest}")
        return (source,)

    @impl(tensor.ExtractSliceOp)
    def run_extract_slice(
        self, interpreter: Interpreter, op: tensor.ExtractSliceOp, args: PythonValues
    ) -> PythonValues:
        source, offsets, sizes, strides = _split(args, 1, len(op.offsets), len(op.sizes), len(op.strides))
        offs = _mixed(op.static_offsets, offsets)
        szs = _mixed(op.static_sizes, sizes)
        strs = _mixed(op.static_strides, strides)
        piece = source[0][_slices(offs, szs, strs)]
        if list(piece.shape) != szs:
            raise ValueError(f"slice sizes {szs} at offsets {offs} run past a {list(source[0].shape)} tensor")
        result_shape = cast(TensorType[Any], op.result.type).get_shape()
        return (piece.reshape(_reduced_sizes(szs, op.static_sizes.get_values(), result_shape)),)

    @impl(tensor.InsertSliceOp)
    def run_insert_slice(self, interpreter: Interpreter, op: tensor.InsertSliceOp, args: PythonValues) -> PythonValues:
        source, dest, offsets, sizes, strides = _split(args, 1, 1, len(op.offsets), len(op.sizes), len(op.strides))
        result = np.array(dest[0], copy=True)
        window = _slices(
            _mixed(op.static_offsets, offsets), _mixed(op.static_sizes, sizes), _mixed(op.static_strides, strides)
        )
        target = result[window]
        target[...] = np.reshape(source[0], target.shape)
        return (result,)

    @impl(tensor.ExpandShapeOp)
    def run_expand_shape(self, interpreter: Interpreter, op: tensor.ExpandShapeOp, args: PythonValues) -> PythonValues:
        source, *dynamic = args
        return (np.reshape(source, _mixed(op.static_output_shape, dynamic)),)

    @impl(tensor.CollapseShapeOp)
    def run_collapse_shape(
        self, interpreter: Interpreter, op: tensor.CollapseShapeOp, args: PythonValues
    ) -> PythonValues:
        (source,) = args
        shape = np.shape(source)
        sizes = [int(np.prod([shape[i] for i in group], dtype=np.int64)) for group in _groups(op.reassociation)]
        return (np.reshape(source, sizes),)

    @impl(tensor.ReshapeOp)
    def run_reshape(self, interpreter: Interpreter, op: tensor.ReshapeOp, args: PythonValues) -> PythonValues:
        source, shape = args
        return (np.reshape(source, [int(s) for s in np.asarray(shape).reshape(-1)]),)

    @impl(tensor.PadOp)
    def run_pad(self, interpreter: Interpreter, op: tensor.PadOp, args: PythonValues) -> PythonValues:
        """
        The region yields the padding value. It runs once: with zeros for its
        index arguments when it ignores them, else with index arrays over the
        whole result, so a position-dependent padding is vectorized too.
        """
        source, low, high = _split(args, 1, len(op.low), len(op.high))
        src = np.asarray(source[0])
        lows = _mixed(op.static_low, low)
        highs = _mixed(op.static_high, high)
        if any(n < 0 for n in (*lows, *highs)):
            raise ValueError(f"negative padding low={lows} high={highs} is not supported")
        shape = tuple(n + lo + hi for n, lo, hi in zip(src.shape, lows, highs))
        block_args = op.region.block.args
        if any(arg.uses for arg in block_args):
            indices: tuple[Any, ...] = tuple(np.indices(shape, sparse=True))
        else:
            indices = (0,) * len(block_args)
        (value,) = interpreter.run_ssacfg_region(op.region, indices, "tensor.pad")
        result = np.empty(shape, dtype=numpy_dtype(op.result.type))
        result[...] = value
        result[tuple(slice(lo, lo + n) for lo, n in zip(lows, src.shape))] = src
        return (result,)

    @impl_terminator(tensor.YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: tensor.YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(tensor.ConcatOp)
    def run_concat(self, interpreter: Interpreter, op: tensor.ConcatOp, args: PythonValues) -> PythonValues:
        return (np.concatenate(args, axis=op.dim.value.data),)

    @impl(tensor.ExtractOp)
    def run_extract(self, interpreter: Interpreter, op: tensor.ExtractOp, args: PythonValues) -> PythonValues:
        """
        Inside a vectorized `linalg` body the indices are arrays over the
        iteration grid: the extract is then a gather (fancy indexing).
        """
        source, *indices = args
        if all(np.ndim(i) == 0 for i in indices):
            return (finish(np.asarray(source)[tuple(int(i) for i in indices)], op.result.type),)
        return (np.asarray(source)[tuple(np.asarray(i) for i in indices)],)

    @impl(tensor.InsertOp)
    def run_insert(self, interpreter: Interpreter, op: tensor.InsertOp, args: PythonValues) -> PythonValues:
        value, dest, *indices = args
        result = np.array(dest, copy=True)
        result[tuple(int(i) for i in indices)] = value
        return (result,)

    @impl(tensor.FromElementsOp)
    def run_from_elements(
        self, interpreter: Interpreter, op: tensor.FromElementsOp, args: PythonValues
    ) -> PythonValues:
        t = cast(TensorType[Any], op.result.type)
        return (np.array(args, dtype=numpy_dtype(t)).reshape(t.get_shape()),)

    @impl(tensor.SplatOp)
    def run_splat(self, interpreter: Interpreter, op: tensor.SplatOp, args: PythonValues) -> PythonValues:
        value, *dynamic = args
        t = cast(TensorType[Any], op.result.type)
        result = shaped_zeros(t, dynamic)
        result[...] = value
        return (result,)
