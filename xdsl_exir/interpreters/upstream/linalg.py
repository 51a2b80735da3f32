"""
`linalg` on numpy arrays, vectorized.

A structured op (`linalg.generic`, and every named op through its indexing
maps and hidden region) runs its body on whole arrays: each operand is
gathered onto the iteration grid through its indexing map (a view for
projected permutations, `0` results included; fancy indexing over index
arrays for general affine results such as `d1 * 2 + d4`), and the body is
interpreted once with those arrays as block arguments.

Parallel loops are always vectorized. Reduction loops go one of two ways:

* when every output's body argument feeds exactly one combining op (`addf`,
  `maximumf`, `addi`, `ori`, ...) whose result is yielded and used nowhere
  else, the body is evaluated over whole blocks of the reduction loops too,
  with the accumulator set to the combiner's identity, and the block is folded
  with the matching numpy reduction (sums may therefore be reassociated, as
  any vectorizing compiler does);
* otherwise the reduction loops are walked one index tuple at a time, the body
  vectorized over the parallel loops, the accumulator carried along.

Named ops with a numpy counterpart (matmul, convolutions, pooling, fill,
copy, transpose, broadcast) are computed directly; inputs are cast to the
output element type first, as MLIR's named ops do.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, cast

import numpy as np
from numpy.lib.stride_tricks import as_strided
from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, IntegerType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.abstract_ops import ConvOperation, LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
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
from xdsl.ir import Attribute, Block, Operation, Region
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineMap

from xdsl_exir.interpreters.upstream.values import finish, numpy_dtype

GRID_BUDGET = 1 << 22
"""Elements of iteration grid the reduction fast path evaluates at once."""


# ---------------------------------------------------------------------------
# the iteration grid
# ---------------------------------------------------------------------------


def _is_projection(amap: AffineMap) -> bool:
    """Results are distinct loop dims or constants: the operand is a view of the grid."""
    dims = [e.position for e in amap.results if isinstance(e, AffineDimExpr)]
    return len(dims) == len(set(dims)) and all(isinstance(e, AffineDimExpr | AffineConstantExpr) for e in amap.results)


def _grid_view(array: np.ndarray, amap: AffineMap, window: Sequence[slice]) -> np.ndarray:
    """
    The elements a projection map reaches over `window` (one slice per loop),
    as a view with one axis per loop (size 1 for the loops it ignores).
    """
    index: list[slice | int] = []
    dims: list[int] = []
    for expr in amap.results:
        if isinstance(expr, AffineDimExpr):
            index.append(window[expr.position])
            dims.append(expr.position)
        else:
            index.append(cast(AffineConstantExpr, expr).value)
    view = array[(*index, ...)]  # the Ellipsis keeps even a 0-d result a (writable) view
    order = sorted(range(len(dims)), key=lambda k: dims[k])
    view = view.transpose(order)
    missing = [d for d in range(len(window)) if d not in dims]
    return np.expand_dims(view, missing) if missing else view


def _index_arrays(window: Sequence[slice]) -> list[np.ndarray]:
    """Each loop's indices over `window`, shaped to broadcast along its own axis."""
    n = len(window)
    return [
        np.arange(w.start, w.stop, dtype=np.int64).reshape([-1 if k == d else 1 for k in range(n)])
        for d, w in enumerate(window)
    ]


def _gather(value: Any, amap: AffineMap, window: Sequence[slice], indices: list[np.ndarray] | None) -> Any:
    """An operand's elements over the grid `window`, broadcastable to the grid."""
    if not amap.results:
        return value  # a scalar operand, or a 0-d tensor
    array = np.asarray(value)
    if _is_projection(amap):
        return _grid_view(array, amap, window)
    idx = indices if indices is not None else _index_arrays(window)
    return array[tuple(np.asarray(expr.eval(cast(Any, idx), [])) for expr in amap.results)]  # arrays of indices evaluate elementwise


def _loop_ranges(maps: Sequence[AffineMap], values: Sequence[Any], n_loops: int) -> list[int]:
    """Each loop's trip count, read off the first operand dimension that is exactly that loop."""
    ranges: list[int | None] = [None] * n_loops
    for amap, value in zip(maps, values):
        shape = np.shape(value)
        for expr, size in zip(amap.results, shape):
            if isinstance(expr, AffineDimExpr) and ranges[expr.position] is None:
                ranges[expr.position] = int(size)
    if any(r is None for r in ranges):
        raise ValueError("a loop of the structured op is not the dimension of any operand")
    return cast(list[int], ranges)


# ---------------------------------------------------------------------------
# reductions folded with numpy
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _Combiner:
    """How one output folds its elements: a numpy reduction and its identity."""

    ufunc: np.ufunc
    identity: Callable[[np.dtype[Any]], Any]
    unsigned: bool = False


def _float_identity(value: float) -> Callable[[np.dtype[Any]], Any]:
    return lambda dtype: dtype.type(value)


def _int_identity(pick: Callable[[np.iinfo[Any]], int]) -> Callable[[np.dtype[Any]], Any]:
    return lambda dtype: dtype.type(pick(np.iinfo(dtype)))


_COMBINERS: dict[type[Operation], _Combiner] = {
    arith.AddfOp: _Combiner(np.add, _float_identity(-0.0)),
    arith.MulfOp: _Combiner(np.multiply, _float_identity(1.0)),
    arith.MaximumfOp: _Combiner(np.maximum, _float_identity(-math.inf)),
    arith.MinimumfOp: _Combiner(np.minimum, _float_identity(math.inf)),
    arith.MaxnumfOp: _Combiner(np.fmax, _float_identity(math.nan)),
    arith.MinnumfOp: _Combiner(np.fmin, _float_identity(math.nan)),
    arith.AddiOp: _Combiner(np.add, _int_identity(lambda i: 0)),
    arith.MuliOp: _Combiner(np.multiply, _int_identity(lambda i: 1)),
    arith.MaxSIOp: _Combiner(np.maximum, _int_identity(lambda i: i.min)),
    arith.MinSIOp: _Combiner(np.minimum, _int_identity(lambda i: i.max)),
    arith.MaxUIOp: _Combiner(np.maximum, _int_identity(lambda i: 0), unsigned=True),
    arith.MinUIOp: _Combiner(np.minimum, _int_identity(lambda i: -1), unsigned=True),
    arith.AndIOp: _Combiner(np.bitwise_and, _int_identity(lambda i: -1)),
    arith.OrIOp: _Combiner(np.bitwise_or, _int_identity(lambda i: 0)),
    arith.XOrIOp: _Combiner(np.bitwise_xor, _int_identity(lambda i: 0)),
}
_BOOL_COMBINERS: dict[type[Operation], _Combiner] = {
    arith.AndIOp: _Combiner(np.logical_and, lambda dtype: np.True_),
    arith.OrIOp: _Combiner(np.logical_or, lambda dtype: np.False_),
    arith.XOrIOp: _Combiner(np.logical_xor, lambda dtype: np.False_),
}


def _combiners(body: Block, n_inputs: int) -> list[_Combiner] | None:
    """
    The combiner of each output when the body is a pure fold: the output's
    argument is used once, by a combining op whose result is only yielded, in
    that output's position. Then the body's value with the accumulator set to
    the identity is the element being folded in.
    """
    terminator = body.last_op
    if terminator is None:
        return None
    found: list[_Combiner] = []
    for k, acc in enumerate(body.args[n_inputs:]):
        user = acc.get_user_of_unique_use() if acc.has_one_use() else None
        if user is None:
            return None
        table = _BOOL_COMBINERS if acc.type == IntegerType(1) else _COMBINERS
        combiner = table.get(type(user))
        if combiner is None or len(user.results) != 1:
            return None
        result = user.results[0]
        if not result.has_one_use() or terminator.operands[k] is not result:
            return None
        if not isinstance(acc.type, AnyFloat | IntegerType):
            return None
        found.append(combiner)
    return found


# ---------------------------------------------------------------------------
# the structured-op engine
# ---------------------------------------------------------------------------

_INDEX_STACK = "linalg.index"


def _uses_index(body: Block) -> bool:
    return any(isinstance(op, linalg.IndexOp) for op in body.walk())


def run_structured(
    interpreter: Interpreter,
    maps: Sequence[AffineMap],
    reduction: Sequence[bool],
    body: Region,
    inputs: Sequence[Any],
    inits: Sequence[Any],
    output_types: Sequence[Attribute],
) -> list[np.ndarray]:
    """
    Run a structured op: `maps` index inputs then outputs, `reduction[d]`
    says whether loop `d` is a reduction, `body` combines the elements.
    Returns the updated outputs (fresh arrays).
    """
    n = len(reduction)
    operands = [*inputs, *inits]
    ranges = _loop_ranges(maps, operands, n)
    outputs = [np.array(init, dtype=numpy_dtype(t), copy=True) for init, t in zip(inits, output_types)]
    out_maps = maps[len(inputs) :]
    block = body.block
    needs_index = _uses_index(block)
    stack: list[list[np.ndarray]] = interpreter.get_data(LinalgFunctions, _INDEX_STACK, list)
    reduced = [d for d in range(n) if reduction[d]]
    wants_indices = needs_index or not all(map(_is_projection, maps))

    def evaluate(window: Sequence[slice], accumulators: Sequence[Any]) -> PythonValues:
        indices = _index_arrays(window) if wants_indices else None
        args = [_gather(v, m, window, indices) for v, m in zip(inputs, maps)]
        if indices is not None:
            stack.append(indices)
        try:
            return interpreter.run_ssacfg_region(body, (*args, *accumulators), "linalg body")
        finally:
            if indices is not None:
                stack.pop()

    full = [slice(0, r) for r in ranges]
    # accumulators live on the parallel grid, size 1 along the reduction loops
    acc_window = [slice(0, 1) if reduction[d] else full[d] for d in range(n)]
    acc_shape = tuple(1 if reduction[d] else ranges[d] for d in range(n))
    current = [_gather(out, m, acc_window, None) for out, m in zip(outputs, out_maps)]

    if not reduced:
        # one evaluation; the outputs' current values are only read
        results = evaluate(full, current)
        accumulators = [finish(np.broadcast_to(r, acc_shape), t) for r, t in zip(results, output_types)]
    elif math.prod(ranges) == 0:
        accumulators = current
    else:
        accumulators = [np.array(np.broadcast_to(c, acc_shape), copy=True) for c in current]
        combiners = _combiners(block, len(inputs))
        if combiners is not None:
            accumulators = _fold_blocks(evaluate, combiners, ranges, reduction, accumulators, output_types)
        else:
            for point in itertools.product(*(range(ranges[d]) for d in reduced)):
                window = list(full)
                for d, i in zip(reduced, point):
                    window[d] = slice(i, i + 1)
                results = evaluate(window, accumulators)
                accumulators = [
                    np.broadcast_to(np.asarray(finish(r, t), dtype=a.dtype), acc_shape)
                    for r, t, a in zip(results, output_types, accumulators)
                ]

    for out, amap, acc in zip(outputs, out_maps, accumulators):
        if _is_projection(amap):
            _grid_view(out, amap, acc_window)[...] = acc
        else:
            idx = _index_arrays(acc_window)
            out[tuple(np.asarray(e.eval(cast(Any, idx), [])) for e in amap.results)] = acc
    return outputs


def _reduction_blocks(ranges: Sequence[int], reduction: Sequence[bool]) -> list[list[slice]]:
    """
    Windows covering the iteration space: parallel loops whole, reduction
    loops in blocks, innermost first, so that a block has at most about
    `GRID_BUDGET` points.
    """
    n = len(ranges)
    parallel = math.prod(ranges[d] for d in range(n) if not reduction[d])
    budget = max(1, GRID_BUDGET // max(parallel, 1))
    chunk = [ranges[d] for d in range(n)]
    for d in reversed(range(n)):
        if not reduction[d]:
            continue
        chunk[d] = max(1, min(ranges[d], budget))
        budget = max(1, budget // max(ranges[d], 1))
    starts = [range(0, ranges[d], chunk[d]) if reduction[d] else range(1) for d in range(n)]
    windows: list[list[slice]] = []
    for point in itertools.product(*starts):
        windows.append(
            [
                slice(s, min(s + chunk[d], ranges[d])) if reduction[d] else slice(0, ranges[d])
                for d, s in enumerate(point)
            ]
        )
    return windows


def _fold_blocks(
    evaluate: Callable[[Sequence[slice], Sequence[Any]], PythonValues],
    combiners: Sequence[_Combiner],
    ranges: Sequence[int],
    reduction: Sequence[bool],
    accumulators: list[np.ndarray],
    output_types: Sequence[Attribute],
) -> list[np.ndarray]:
    axes = tuple(d for d in range(len(ranges)) if reduction[d])
    identities = [np.asarray(c.identity(a.dtype)) for c, a in zip(combiners, accumulators)]
    for window in _reduction_blocks(ranges, reduction):
        block_shape = tuple(w.stop - w.start for w in window)
        with np.errstate(all="ignore"):
            elements = evaluate(window, identities)
            new: list[np.ndarray] = []
            for c, x, acc, t in zip(combiners, elements, accumulators, output_types):
                x = np.broadcast_to(np.asarray(x, dtype=acc.dtype), block_shape)
                if c.unsigned:
                    unsigned = f"u{acc.dtype.itemsize}"
                    folded = c.ufunc.reduce(x.view(unsigned), axis=axes, keepdims=True)
                    combined = c.ufunc(folded, acc.view(unsigned)).view(acc.dtype)
                else:
                    folded = c.ufunc.reduce(x, axis=axes, keepdims=True, dtype=acc.dtype)
                    combined = c.ufunc(folded, acc)
                new.append(np.asarray(finish(combined, t), dtype=acc.dtype))
        accumulators = new
    return accumulators


def _structured(interpreter: Interpreter, op: LinalgStructuredOperation, args: PythonValues) -> PythonValues:
    """Any structured op through its indexing maps, iterator types and (hidden) body."""
    n_inputs = len(op.inputs)
    maps = [m.data for m in op.get_indexing_maps()]
    reduction = [it.data == IteratorType.REDUCTION for it in op.get_iterator_types()]
    output_types = [v.type for v in op.outputs]
    results = run_structured(interpreter, maps, reduction, op.body, args[:n_inputs], args[n_inputs:], output_types)
    return tuple(results) if op.res else ()


# ---------------------------------------------------------------------------
# named ops computed directly
# ---------------------------------------------------------------------------


def _cast_to(value: Any, t: Attribute) -> np.ndarray:
    return np.asarray(value).astype(numpy_dtype(t), copy=False)


def _strides_dilations(op: ConvOperation | linalg.PoolingNchwMaxOp) -> tuple[tuple[int, int], tuple[int, int]]:
    sh, sw = (int(v) for v in op.strides.get_values())
    dh, dw = (int(v) for v in op.dilations.get_values())
    return (sh, sw), (dh, dw)


def _windows(
    image: np.ndarray,
    out_hw: tuple[int, ...],
    kernel_hw: tuple[int, ...],
    strides: tuple[int, int],
    dilations: tuple[int, int],
) -> np.ndarray:
    """
    The strided, dilated windows of an (..., H, W) image as a view of shape
    (..., OH, OW, KH, KW), element [oh, ow, kh, kw] = image[oh*sh + kh*dh, ow*sw + kw*dw].
    """
    (oh, ow), (kh, kw), (sh, sw), (dh, dw) = out_hw, kernel_hw, strides, dilations
    if oh and kh and (oh - 1) * sh + (kh - 1) * dh >= image.shape[-2] or ow and kw and (
        (ow - 1) * sw + (kw - 1) * dw >= image.shape[-1]
    ):
        raise ValueError(f"windows of {kernel_hw} over {out_hw} outputs run past a {image.shape[-2:]} image")
    image = np.ascontiguousarray(image)
    s = image.strides
    return as_strided(
        image,
        shape=(*image.shape[:-2], oh, ow, kh, kw),
        strides=(*s[:-2], s[-2] * sh, s[-1] * sw, s[-2] * dh, s[-1] * dw),
        writeable=False,
    )


def _grouped_conv(
    image: np.ndarray, filters: np.ndarray, init: np.ndarray, strides: tuple[int, int], dilations: tuple[int, int]
) -> np.ndarray:
    """init + conv of image (N, G, C, H, W) with filters (G, F, C, KH, KW) into (N, G, F, OH, OW)."""
    windows = _windows(image, init.shape[-2:], filters.shape[-2:], strides, dilations)
    with np.errstate(all="ignore"):
        conv = np.einsum("ngchwij,gfcij->ngfhw", windows, filters, optimize=True)
        return (init + conv).astype(init.dtype, copy=False)


class _ConvLayout(NamedTuple):
    """How a conv op's operands map to the grouped (N, G, C, H, W) / (G, F, C, KH, KW) / (N, G, F, OH, OW) form."""

    image: tuple[int, ...] | None
    """Transpose of the image into N(G)CHW order."""
    filter: tuple[int, ...] | None
    """Transpose of the filter into (G)FCHW order."""
    output: tuple[int, ...] | None
    """Transpose from N(G)FHW order into the op's output layout."""
    grouped: bool
    """Whether the layout has a group axis (else one of size 1 is inserted)."""


_CONV_LAYOUTS: dict[type[Operation], _ConvLayout] = {
    linalg.Conv2DNchwFchwOp: _ConvLayout(None, None, None, False),
    linalg.Conv2DNhwc_FhwcOp: _ConvLayout((0, 3, 1, 2), (0, 3, 1, 2), (0, 2, 3, 1), False),
    linalg.Conv2DNhwc_HwcfOp: _ConvLayout((0, 3, 1, 2), (3, 2, 0, 1), (0, 2, 3, 1), False),
    linalg.Conv2DNgchwFgchwOp: _ConvLayout(None, (1, 0, 2, 3, 4), None, True),
    linalg.Conv2DNgchwGfchwOp: _ConvLayout(None, None, None, True),
    linalg.Conv2DNhwgcGfhwcOp: _ConvLayout((0, 3, 4, 1, 2), (0, 1, 4, 2, 3), (0, 3, 4, 1, 2), True),
}


def _conv(op: ConvOperation, args: PythonValues) -> PythonValues:
    image, filters, init = args
    out_t = op.outputs[0].type
    image, filters = _cast_to(image, out_t), _cast_to(filters, out_t)
    init = np.asarray(init, dtype=numpy_dtype(out_t))
    image_perm, filter_perm, out_perm, grouped = _CONV_LAYOUTS[type(op)]
    if image_perm is not None:
        image = image.transpose(image_perm)
    if filter_perm is not None:
        filters = filters.transpose(filter_perm)
    inverse = None if out_perm is None else tuple(int(i) for i in np.argsort(out_perm))
    canonical = init if inverse is None else init.transpose(inverse)
    if not grouped:
        image, filters, canonical = image[:, None], filters[None], canonical[:, None]
    strides, dilations = _strides_dilations(op)
    result = _grouped_conv(image, filters, canonical, strides, dilations)
    if not grouped:
        result = result[:, 0]
    if out_perm is not None:
        result = result.transpose(out_perm)
    return (finish(np.ascontiguousarray(result), out_t),) if op.res else ()


_DEFAULT_MATMUL_MAPS = linalg.MatmulOp.get_irdl_definition().properties["indexing_maps"].default_value
"""linalg.matmul's own maps: any other `indexing_maps` (a transposed operand) runs as a generic."""


@register_impls
class LinalgFunctions(InterpreterFunctions):
    """`linalg` ops on numpy arrays, vectorized (see the module docstring)."""

    @impl(linalg.GenericOp)
    def run_generic(self, interpreter: Interpreter, op: linalg.GenericOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl_terminator(linalg.YieldOp)
    def run_yield(
        self, interpreter: Interpreter, op: linalg.YieldOp, args: PythonValues
    ) -> tuple[TerminatorValue, PythonValues]:
        return ReturnedValues(args), ()

    @impl(linalg.IndexOp)
    def run_index(self, interpreter: Interpreter, op: linalg.IndexOp, args: PythonValues) -> PythonValues:
        """The loop's indices over the grid the enclosing body is evaluated on."""
        stack: list[list[np.ndarray]] = interpreter.get_data(LinalgFunctions, _INDEX_STACK, list)
        if not stack:
            raise ValueError("linalg.index outside a structured op body")
        return (stack[-1][op.dim.value.data],)

    # elementwise named ops: their hidden bodies, vectorized
    @impl(linalg.AddOp)
    def run_add(self, interpreter: Interpreter, op: linalg.AddOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.SubOp)
    def run_sub(self, interpreter: Interpreter, op: linalg.SubOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.MulOp)
    def run_mul(self, interpreter: Interpreter, op: linalg.MulOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.MaxOp)
    def run_max(self, interpreter: Interpreter, op: linalg.MaxOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.MinOp)
    def run_min(self, interpreter: Interpreter, op: linalg.MinOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.ExpOp)
    def run_exp(self, interpreter: Interpreter, op: linalg.ExpOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.LogOp)
    def run_log(self, interpreter: Interpreter, op: linalg.LogOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.SqrtOp)
    def run_sqrt(self, interpreter: Interpreter, op: linalg.SqrtOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.SelectOp)
    def run_select(self, interpreter: Interpreter, op: linalg.SelectOp, args: PythonValues) -> PythonValues:
        return _structured(interpreter, op, args)

    @impl(linalg.QuantizedMatmulOp)
    def run_quantized_matmul(
        self, interpreter: Interpreter, op: linalg.QuantizedMatmulOp, args: PythonValues
    ) -> PythonValues:
        return _structured(interpreter, op, args)

    # named ops computed with numpy directly

    @impl(linalg.FillOp)
    def run_fill(self, interpreter: Interpreter, op: linalg.FillOp, args: PythonValues) -> PythonValues:
        value, init = args
        t = op.outputs[0].type
        result = np.empty(np.shape(init), dtype=numpy_dtype(t))
        result[...] = finish(np.asarray(value).astype(result.dtype), t)
        return (result,) if op.res else ()

    @impl(linalg.CopyOp)
    def run_copy(self, interpreter: Interpreter, op: linalg.CopyOp, args: PythonValues) -> PythonValues:
        source, init = args
        t = op.outputs[0].type
        result = np.array(np.broadcast_to(source, np.shape(init)), dtype=numpy_dtype(t), copy=True)
        return (finish(result, t),) if op.res else ()

    @impl(linalg.TransposeOp)
    def run_transpose(self, interpreter: Interpreter, op: linalg.TransposeOp, args: PythonValues) -> PythonValues:
        source, _init = args
        perm = [int(p) for p in op.permutation.get_values()]
        return (_cast_to(np.transpose(source, perm), op.outputs[0].type),) if op.res else ()

    @impl(linalg.BroadcastOp)
    def run_broadcast(self, interpreter: Interpreter, op: linalg.BroadcastOp, args: PythonValues) -> PythonValues:
        """The input's dims fill the init's dims not listed in `dimensions`, in order."""
        source, init = args
        added = [int(d) for d in op.dimensions.get_values()]
        expanded = np.expand_dims(np.asarray(source), added) if added else np.asarray(source)
        return (_cast_to(np.broadcast_to(expanded, np.shape(init)), op.init.type),) if op.result else ()

    @impl(linalg.ReduceOp)
    def run_reduce(self, interpreter: Interpreter, op: linalg.ReduceOp, args: PythonValues) -> PythonValues:
        """A generic with the identity map on the input and the kept dims on the init."""
        source, init = args
        rank = np.ndim(source)
        dims = {int(d) for d in op.dimensions.get_values()}
        kept = tuple(AffineDimExpr(d) for d in range(rank) if d not in dims)
        maps = [AffineMap.identity(rank), AffineMap(rank, 0, kept)]
        reduction = [d in dims for d in range(rank)]
        (result,) = run_structured(interpreter, maps, reduction, op.region, [source], [init], [op.init.type])
        return (result,) if op.result else ()

    @impl(linalg.MatmulOp)
    def run_matmul(self, interpreter: Interpreter, op: linalg.MatmulOp, args: PythonValues) -> PythonValues:
        if op.indexing_maps != _DEFAULT_MATMUL_MAPS:
            return _structured(interpreter, op, args)
        a, b, init = args
        t = op.outputs[0].type
        with np.errstate(all="ignore"):
            product = np.matmul(_cast_to(a, t), _cast_to(b, t))
            result = np.add(np.asarray(init, dtype=numpy_dtype(t)), product)
        return (finish(result.astype(numpy_dtype(t), copy=False), t),) if op.res else ()

    @impl(linalg.PoolingNchwMaxOp)
    def run_pooling_nchw_max(
        self, interpreter: Interpreter, op: linalg.PoolingNchwMaxOp, args: PythonValues
    ) -> PythonValues:
        """Max over each window, NaN-propagating for floats as `arith.maximumf`."""
        image, window, init = args
        t = op.outputs[0].type
        strides, dilations = _strides_dilations(op)
        init_arr = np.asarray(init, dtype=numpy_dtype(t))
        windows = _windows(_cast_to(image, t), init_arr.shape[-2:], np.shape(window), strides, dilations)
        result = np.maximum(init_arr, windows.max(axis=(-2, -1))) if windows.size else init_arr.copy()
        return (result,) if op.res else ()

    @impl(linalg.Conv2DNchwFchwOp)
    def run_conv_2d_nchw_fchw(
        self, interpreter: Interpreter, op: linalg.Conv2DNchwFchwOp, args: PythonValues
    ) -> PythonValues:
        return _conv(op, args)

    @impl(linalg.Conv2DNgchwFgchwOp)
    def run_conv_2d_ngchw_fgchw(
        self, interpreter: Interpreter, op: linalg.Conv2DNgchwFgchwOp, args: PythonValues
    ) -> PythonValues:
        return _conv(op, args)

    @impl(linalg.Conv2DNgchwGfchwOp)
    def run_conv_2d_ngchw_gfchw(
        self, interpreter: Interpreter, op: linalg.Conv2DNgchwGfchwOp, args: PythonValues
    ) -> PythonValues:
        return _conv(op, args)

    @impl(linalg.Conv2DNhwc_FhwcOp)
    def run_conv_2d_nhwc_fhwc(
        self, interpreter: Interpreter, op: linalg.Conv2DNhwc_FhwcOp, args: PythonValues
    ) -> PythonValues:
        return _conv(op, args)

    @impl(linalg.Conv2DNhwc_HwcfOp)
    def run_conv_2d_nhwc_hwcf(
        self, interpreter: Interpreter, op: linalg.Conv2DNhwc_HwcfOp, args: PythonValues
    ) -> PythonValues:
        return _conv(op, args)

    @impl(linalg.Conv2DNhwgcGfhwcOp)
    def run_conv_2d_nhwgc_gfhwc(
        self, interpreter: Interpreter, op: linalg.Conv2DNhwgcGfhwcOp, args: PythonValues
    ) -> PythonValues:
        return _conv(op, args)

