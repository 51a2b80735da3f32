"""
Implementations of the `exir` and `aten` ops for the graph compiler.

Operator calls (`aten.*` ops and `exir.call_function` of an ATen target) bind
their arguments to the schema once, at compile time; what is left per run is
filling in the operand values and calling the numpy kernel. Pointwise ops whose
operands and result share one floating dtype skip the kernels' type-promotion
logic and call the numpy ufunc directly (the result is the same; the IR types
prove that no promotion happens).
"""

from __future__ import annotations

import keyword
import math
import operator
from collections.abc import Callable, Sequence
from types import CodeType
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, StringAttr
from xdsl.ir import Attribute, Operation, OpResult

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    AssertScalarOp,
    CallFunctionOp,
    CondOp,
    ConstantOp,
    DType,
    GetAttrOp,
    GetItemOp,
    MapOp,
    SymArithOp,
    SymNumelOp,
    SymSizeOp,
    SymStrideOp,
    TensorType,
    WhileLoopOp,
    decode_arg,
)
from xdsl_exir.interpreters.compiler import (
    CompileContext,
    CompiledGraph,
    InterpreterError,
    Prepared,
    register_op,
    truth,
)
from xdsl_exir.interpreters.fx_functions import compile_python_call
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.kernels.conv_pool import conv_forward
from xdsl_exir.semantics.kernels.core import DepthwiseTaps, dense_in_order, softmax_rows, storage_root
from xdsl_exir.semantics.kernels.matmul import RowMajorWeight, product
from xdsl_exir.semantics.kernels.norms import layer_norm_rows
from xdsl_exir.semantics.kernels.pointwise import clamp_scalar_bounds, dense_broadcast_operands
from xdsl_exir.semantics.kernels.views import with_dim_order
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.dtypes import LOW_PRECISION, to_float32
from xdsl_exir.utils.schema_binding import SchemaBindError, bind
from xdsl_exir.utils.tensor_data import contiguous_strides


class OperandRef:
    """Stands for operand `index` in an argument tree bound at compile time."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"<operand {self.index}>"


def _has_ref(value: object) -> bool:
    if isinstance(value, OperandRef):
        return True
    if isinstance(value, list):
        return any(_has_ref(v) for v in cast(list[object], value))
    return False


def _filler(value: object) -> Callable[[Sequence[Any]], Any]:
    """A function of the operand values rebuilding `value` with its refs filled in."""
    if isinstance(value, OperandRef):
        index = value.index
        return lambda ops: ops[index]
    if isinstance(value, list):
        parts = [_filler(v) for v in cast(list[object], value)]
        return lambda ops: [p(ops) for p in parts]
    return lambda ops: value


def decode_call_args(op: Operation) -> tuple[list[object], dict[str, object]]:
    """The FX args and kwargs of `op` with `OperandRef` placeholders for its operands."""
    refs = cast(Sequence[Any], [OperandRef(i) for i in range(len(op.operands))])
    args_attr = op.properties.get("args")
    args = [decode_arg(a, refs) for a in cast(ArrayAttr[Attribute], args_attr).data] if args_attr else []
    kwargs_attr = op.properties.get("kwargs")
    kwargs = (
        {k: decode_arg(v, refs) for k, v in kwargs_attr.data.items()}
        if isinstance(kwargs_attr, DictionaryAttr)
        else {}
    )
    return cast(list[object], args), cast(dict[str, object], kwargs)


def _result_dtypes(op: Operation) -> list[DType | None]:
    return [r.type.element_dtype if isinstance(r.type, TensorType) else None for r in op.results]


def target_of(op: Operation) -> str:
    """The operator an op calls, in IR spelling (`aten.add.Tensor`)."""
    if isinstance(op, AtenOp):
        return op.name
    target = cast(StringAttr, op.properties["target"]).data.removeprefix("torch.ops.")
    if "::" in target and (entry := op_registry.lookup(target)) is not None:
        # the schema spelling (`aten::relu`, what OpOverload.name() gives): the
        # registry's resolver, the one the lowering's op classes agree with
        return entry.op_name
    return target


# ---------------------------------------------------------------------------
# fast paths: same-dtype pointwise ops
# ---------------------------------------------------------------------------

FAST_BINARY: dict[str, str] = {
    "aten.add.Tensor": "add",
    "aten.sub.Tensor": "subtract",
    "aten.mul.Tensor": "multiply",
    "aten.div.Tensor": "true_divide",
    "aten.maximum.default": "maximum",
    "aten.minimum.default": "minimum",
}
"""Same-dtype float binary ops that are one numpy ufunc (by name), for this fast path and fusion groups."""

FAST_UNARY: dict[str, tuple[str, ...]] = {
    # each step writes `{o}` (which may be `{x}`'s own buffer); `{x}` is the operand, `{z}` a
    # zero of the dtype; `_m` and `_v` are scratch names
    "aten.neg.default": ("np.negative({x}, out={o})",),
    "aten.exp.default": ("np.exp({x}, out={o})",),
    "aten.tanh.default": ("np.tanh({x}, out={o})",),
    "aten.sqrt.default": ("np.sqrt({x}, out={o})",),
    "aten.abs.default": ("np.abs({x}, out={o})",),
    # x < 0 -> 0, as torch's max(x, 0): NaN passes (np.maximum returns it) and so does -0.0,
    # to which np.maximum may give +0.0: the zeros, rare, are kept aside first and put back.
    # A masked store of the negatives instead costs 15x as much on a random sign pattern.
    "aten.relu.default": (
        "_m = {x} == {z}",
        "_v = {x}[_m] if _m.any() else None",
        "np.maximum({x}, {z}, out={o})",
        "if _v is not None: {o}[_m] = _v",
    ),
    # 1 / (1 + exp(-x))
    "aten.sigmoid.default": (
        "np.negative({x}, out={o})",
        "np.exp({o}, out={o})",
        "np.add({o}, 1, out={o})",
        "np.true_divide(1, {o}, out={o})",
    ),
}
"""Same-dtype float unary ops as numpy steps into an output buffer: run here by a function made
from the steps, and emitted as they are by fusion groups, so both compute alike bit for bit."""

FAST_DTYPES = (DType.float32, DType.float64)


def _unary_function(steps: Sequence[str]) -> Callable[[Any], Any]:
    body = "".join(f"    {step.format(x='x', o='o', z='x.dtype.type(0)')}\n" for step in steps)
    namespace: dict[str, Any] = {"np": np}
    exec(f"def run(x):\n    o = np.empty_like(x)\n{body}    return o\n", namespace)
    return cast(Callable[[Any], Any], namespace["run"])


_UNARY_FUNCTIONS: dict[str, Callable[[Any], Any]] = {k: _unary_function(v) for k, v in FAST_UNARY.items()}
_BINARY_UFUNCS: dict[str, Callable[[Any, Any], Any]] = {k: getattr(np, v) for k, v in FAST_BINARY.items()}
_SCALAR_OVERLOADS = {
    "aten.add.Scalar": "aten.add.Tensor",
    "aten.sub.Scalar": "aten.sub.Tensor",
    "aten.mul.Scalar": "aten.mul.Tensor",
    "aten.div.Scalar": "aten.div.Tensor",
}
"""The `.Scalar` overloads compute what their `.Tensor` overloads do with a number operand
(torch wraps it as a 0-d tensor), so they take the same fast path."""
_DENSE_TARGETS = frozenset(
    {
        "aten.linear.default", "aten.addmm.default", "aten.mm.default", "aten.bmm.default", "aten._softmax.default",
        "aten.softmax.int",
    }
)  # fmt: skip


def _fast_dense(op: Operation, target: str, args: list[object], kwargs: dict[str, object]) -> Prepared | None:
    """linear / addmm / mm / bmm / softmax on one float dtype: BLAS and ufuncs, no promotion logic."""
    if kwargs and target != "aten.addmm.default":
        return None
    if target == "aten.linear.default" and len(args) in (2, 3) and all(isinstance(a, OperandRef) for a in args):
        ix, iw = cast(OperandRef, args[0]).index, cast(OperandRef, args[1]).index
        if cast(TensorType, op.operands[iw].type).rank != 2:
            return None
        weight = RowMajorWeight()
        if len(args) == 2:
            return lambda *ops: (weight.matmul(ops[ix], ops[iw].T),)
        ib = cast(OperandRef, args[2]).index

        def linear(*ops: Any) -> tuple[Any, ...]:
            r = weight.matmul(ops[ix], ops[iw].T)
            r += ops[ib]
            return (r,)

        return linear
    if target == "aten.addmm.default" and len(args) == 3 and all(isinstance(a, OperandRef) for a in args):
        if kwargs.get("beta", 1) != 1 or kwargs.get("alpha", 1) != 1 or set(kwargs) - {"beta", "alpha"}:
            return None
        ib, ix, iw = (cast(OperandRef, a).index for a in args)
        weight = RowMajorWeight()

        def addmm(*ops: Any) -> tuple[Any, ...]:
            r = weight.matmul(ops[ix], ops[iw])
            r += ops[ib]
            return (r,)

        return addmm
    if target == "aten.mm.default" and len(args) == 2 and all(isinstance(a, OperandRef) for a in args):
        ia, ib2 = (cast(OperandRef, a).index for a in args)
        weight = RowMajorWeight()
        return lambda *ops: (weight.matmul(ops[ia], ops[ib2]),)
    if target == "aten.bmm.default" and len(args) == 2 and all(isinstance(a, OperandRef) for a in args):
        # attention's products: the kernel's own `product` (ATen's small-bmm rounding
        # included), without its per-call promotion and shape checks, which the IR types
        # settle here: two 3-d operands with one static batch size (numpy's matmul would
        # broadcast a batch of 1, which torch's bmm refuses)
        ia, ib2 = (cast(OperandRef, a).index for a in args)
        ta, tb = (op.operands[i].type for i in (ia, ib2))
        if not (isinstance(ta, TensorType) and isinstance(tb, TensorType) and ta.rank == 3 and tb.rank == 3):
            return None
        if type(ta.sizes[0]) is not int or ta.sizes[0] != tb.sizes[0]:
            return None
        return lambda *ops: (product(ops[ia], ops[ib2], small_bmm=True),)
    if target in ("aten._softmax.default", "aten.softmax.int") and isinstance(args[0], OperandRef) and len(args) >= 2:
        if len(args) == 3 and args[2] not in (False, None):
            return None
        dim = args[1]
        rank = cast(TensorType, op.operands[0].type).rank
        if not isinstance(dim, int) or rank == 0:
            return None
        dim %= rank
        return lambda x: (softmax_rows(x, dim),)
    return None


_RESHAPES = frozenset({"aten.view.default", "aten._unsafe_view.default", "aten.reshape.default"})


def _fast_reshape(target: str, args: list[object], kwargs: dict[str, object]) -> Prepared | None:
    """A view to sizes fixed at compile time is a numpy reshape (which reads -1 as torch does)."""
    if target not in _RESHAPES or kwargs or len(args) != 2 or not isinstance(args[0], OperandRef):
        return None
    sizes = args[1]
    if not isinstance(sizes, list) or not all(type(v) is int for v in sizes) or sizes.count(-1) > 1:
        return None
    shape = tuple(cast(list[int], sizes))
    if 0 in shape:
        return None  # -1 next to a zero size is ambiguous for numpy; the kernel handles it
    return lambda x: (x.reshape(shape),)


def _fast_permute(op: Operation, args: list[object], kwargs: dict[str, object]) -> Prepared | None:
    """A permutation fixed at compile time is a numpy transpose (a view); a bad one goes to the kernel's error."""
    if kwargs or len(args) != 2 or not isinstance(args[0], OperandRef) or not isinstance(args[1], list):
        return None
    operand = op.operands[args[0].index].type
    if not isinstance(operand, TensorType):
        return None
    rank = operand.rank
    dims = cast(list[object], args[1])
    if not all(type(d) is int and -rank <= d < rank for d in dims):
        return None
    axes = tuple(cast(int, d) % rank for d in dims)
    if sorted(axes) != list(range(rank)):
        return None
    return lambda x: (x.transpose(axes),)


def _fast_expand(op: Operation, args: list[object], kwargs: dict[str, object]) -> Prepared | None:
    """An `expand` to the sizes its operand already has (what `matmul`'s decomposition
    writes before each `bmm`) is the operand itself: a view of all of it, the same strides.
    numpy's `as_strided`, which the kernel needs for a real broadcast, costs several
    microseconds a call."""
    if kwargs or len(args) != 2 or not isinstance(args[0], OperandRef) or not isinstance(args[1], list):
        return None
    operand = op.operands[args[0].index].type
    sizes = cast(list[object], args[1])
    if not isinstance(operand, TensorType) or not all(type(s) is int for s in sizes):
        return None
    shape = tuple(cast(list[int], sizes))
    if list(operand.sizes) != list(shape):
        return None

    def expand(x: Any) -> tuple[Any, ...]:
        if x.shape == shape:
            return (x,)
        return (aten_kernels.run_kernel("aten.expand.default", [x, list(shape)], {}),)

    return expand


_INDEX_VIEWS = frozenset({"aten.slice.Tensor", "aten.select.int", "aten.squeeze.dims", "aten.unsqueeze.default"})


def _fast_index_view(op: Operation, target: str, args: list[object], kwargs: dict[str, object]) -> Prepared | None:
    """
    `slice.Tensor` (a positive step), `select.int`, `squeeze.dims` and `unsqueeze` with
    constant arguments: the kernel's own numpy index, built once here (attention's q/k/v
    split is three slices and three squeezes per layer, each a few microseconds through
    the kernel's argument handling). numpy reads negative and out-of-range slice bounds
    and negative indices as the kernel does; a `squeeze` needs the sizes of the dims it
    names in the IR type (only those of size 1 go). Anything else is left to the kernel.
    """
    if kwargs or not args or not isinstance(args[0], OperandRef):
        return None
    t = op.operands[args[0].index].type
    if not isinstance(t, TensorType):
        return None
    rank = t.rank
    if target == "aten.squeeze.dims":
        dims = args[1] if len(args) == 2 else None
        if not rank or not isinstance(dims, list):
            return None
        if not all(type(v) is int and -rank <= v < rank for v in cast(list[object], dims)):
            return None
        if len({v % rank for v in cast(list[int], dims)}) != len(dims):
            return None  # a dim named twice: the kernel's error, as torch's
        named = [t.sizes[v % rank] for v in cast(list[int], dims)]
        if not all(type(s) is int for s in named):
            return None
        axes = tuple(sorted({v % rank for v, s in zip(cast(list[int], dims), named) if s == 1}))
        if not axes:
            return lambda x: (x.view(),)
        return lambda x: (x.squeeze(axes),)
    ints = args[1:]
    if not all(v is None or type(v) is int for v in ints):
        return None
    index: tuple[Any, ...]
    if target == "aten.slice.Tensor":
        if len(ints) > 4:
            return None
        dim, start, end, step = cast(list[int | None], [*ints, *(0, None, None, 1)[len(ints) :]])
        if not rank or dim is None or not -rank <= dim < rank or step is None or step < 1:
            return None
        index = (slice(None),) * (dim % rank) + (slice(start, end, step),)
    elif target == "aten.select.int":
        if not rank or len(ints) != 2 or None in ints:
            return None
        dim, i = cast(list[int], ints)
        if not -rank <= dim < rank:
            return None
        index = (slice(None),) * (dim % rank) + (i, Ellipsis)  # (Ellipsis: a 0-d result stays an array)
    else:  # unsqueeze: a reshape, as `np.expand_dims` (the strides of the new dim alike)
        first = ints[0] if len(ints) == 1 else None
        if not isinstance(first, int) or not -(rank + 1) <= first <= rank:
            return None
        d = first % (rank + 1)
        return lambda x: (x.reshape(x.shape[:d] + (1,) + x.shape[d:]),)
    return lambda x: (x[index],)


def _fast_pointwise(op: Operation, target: str, args: list[object], kwargs: dict[str, object]) -> Prepared | None:
    """A direct ufunc call when the IR proves every tensor has one float dtype."""
    if (reshape := _fast_reshape(target, args, kwargs)) is not None:
        return reshape
    if target == "aten.permute.default" and (permute := _fast_permute(op, args, kwargs)) is not None:
        return permute
    if target == "aten.expand.default" and (expand := _fast_expand(op, args, kwargs)) is not None:
        return expand
    if target in _INDEX_VIEWS and (view := _fast_index_view(op, target, args, kwargs)) is not None:
        return view
    if len(op.results) != 1 or not isinstance(rt := op.results[0].type, TensorType):
        return None
    dtype = rt.element_dtype
    if dtype not in FAST_DTYPES or any(
        not isinstance(o.type, TensorType) or o.type.element_dtype != dtype for o in op.operands
    ):
        return None
    if target in _DENSE_TARGETS:
        return _fast_dense(op, target, args, kwargs)
    if target == "aten.mean.dim" and not kwargs and 2 <= len(args) <= 3 and isinstance(args[0], OperandRef):
        return _fast_mean(op, args)
    if target == "aten.clamp.default" and not kwargs and len(args) in (2, 3) and isinstance(args[0], OperandRef):
        # ReLU6 and hardswish: the bounds are checked and converted once, not per call
        probe = np.empty((0,), aten_kernels.numpy_dtype(dtype))
        if (bounds := clamp_scalar_bounds(probe, args[1], args[2] if len(args) == 3 else None)) is None:
            return None
        lo, hi = bounds
        # a 0-d operand would give a numpy scalar back: np.asarray keeps it a tensor
        if hi is None:
            return lambda x: (np.asarray(np.maximum(x, lo)),)
        if lo is None:
            return lambda x: (np.asarray(np.minimum(x, hi)),)
        return lambda x: (np.asarray(np.clip(x, lo, hi)),)
    if target in FAST_UNARY and len(args) == 1 and not kwargs and isinstance(args[0], OperandRef):
        fn1 = _UNARY_FUNCTIONS[target]
        return lambda x: (fn1(x),)
    if target == "aten.pow.Tensor_Scalar" and not kwargs and len(args) == 2 and isinstance(args[0], OperandRef):
        # x ** 2 (RMSNorm's square) is the product x * x, as the kernel and torch's CPU pow compute it
        if type(args[1]) in (int, float) and args[1] == 2:
            return lambda x: (np.asarray(np.multiply(x, x)),)
        return None
    target = _SCALAR_OVERLOADS.get(target, target)
    if target not in FAST_BINARY or len(args) != 2 or kwargs.get("alpha", 1) != 1:
        return None
    if set(kwargs) - {"alpha"}:
        return None
    a, b = args
    fn2 = _BINARY_UFUNCS[target]
    np_dtype = aten_kernels.numpy_dtype(dtype)
    if isinstance(a, OperandRef) and isinstance(b, OperandRef):
        ia, ib = a.index, b.index

        def binary(*ops: Any) -> tuple[Any, ...]:
            x, y = ops[ia], ops[ib]
            if x.size != y.size:
                x, y = dense_broadcast_operands(x, y)
            r = fn2(x, y)
            return (r if type(r) is np.ndarray else np.asarray(r),)

        return binary
    if isinstance(a, OperandRef) and isinstance(b, (int, float)) and not isinstance(b, bool):
        scalar = np_dtype.type(b)  # a Python scalar takes the tensor's float dtype

        def with_scalar(x: Any) -> tuple[Any, ...]:
            r = fn2(x, scalar)
            return (r if type(r) is np.ndarray else np.asarray(r),)

        return with_scalar
    return None


def _fast_mean(op: Operation, args: list[object]) -> Prepared | None:
    """`mean.dim` over dims fixed at compile time: numpy's own sum and divide, without
    `np.mean`'s Python-level argument handling (same arithmetic, so the same values)."""
    dims, keep = args[1], args[2] if len(args) == 3 else False
    rank = cast(TensorType, op.operands[0].type).rank
    if not isinstance(dims, list) or not dims or not isinstance(keep, bool):
        return None
    if not all(type(d) is int and -rank <= d < rank for d in cast(list[object], dims)):
        return None
    axes = tuple(sorted({d % rank for d in cast(list[int], dims)}))

    def mean(x: Any) -> tuple[Any, ...]:
        total = np.add.reduce(x, axis=axes, keepdims=keep)
        count = np.intp(math.prod(x.shape[a] for a in axes))
        if type(total) is not np.ndarray:
            return (np.asarray(np.true_divide(total, count), dtype=x.dtype),)
        np.true_divide(total, count, out=total, casting="unsafe")
        return (total,)

    return mean


def _fast_convolution(op: Operation, bound: dict[str, object]) -> Prepared | None:
    """
    A batched, non-transposed convolution on one float dtype with its stride,
    padding, dilation and groups fixed at compile time: they are expanded once
    here, and each call is the kernel's own `conv_forward`.
    """
    dtype = op.results[0].type.element_dtype if isinstance(op.results[0].type, TensorType) else None
    if dtype not in FAST_DTYPES or not all(
        isinstance(o.type, TensorType) and o.type.element_dtype == dtype for o in op.operands
    ):
        return None
    x, w, b = bound.get("input"), bound.get("weight"), bound.get("bias")
    if not isinstance(x, OperandRef) or not isinstance(w, OperandRef) or not (b is None or isinstance(b, OperandRef)):
        return None
    rank = cast(TensorType, op.operands[x.index].type).rank
    n = rank - 2
    if n < 1 or cast(TensorType, op.operands[w.index].type).rank != rank or bound.get("transposed") is not False:
        return None
    params: list[list[int]] = []
    for name in ("stride", "padding", "dilation"):
        value = bound.get(name)
        if not isinstance(value, list) or len(value) not in (1, n) or not all(type(v) is int for v in value):
            return None
        params.append(cast(list[int], value) * n if len(value) == 1 else cast(list[int], value))
    groups = bound.get("groups")
    if type(groups) is not int or groups < 1:
        return None
    stride, padding, dilation = params
    ix, iw, ib = x.index, w.index, None if b is None else b.index
    taps = DepthwiseTaps()
    if ib is None:
        return lambda *ops: (conv_forward(ops[ix], ops[iw], None, stride, padding, padding, dilation, groups, taps),)
    return lambda *ops: (conv_forward(ops[ix], ops[iw], ops[ib], stride, padding, padding, dilation, groups, taps),)


_BN_INFERENCE = "aten._native_batch_norm_legit_no_training.default"


def _fast_batch_norm(op: Operation, bound: dict[str, object]) -> Prepared | None:
    """
    Inference batch norm on one float dtype as a per-channel scale and shift, in
    the fewest numpy calls: the statistics are operands (parameters and buffers
    may change between runs), so they are folded per call, but into C-sized
    vectors, and the input is read once for the multiply and once for the add.
    Same arithmetic, in the same order, as the kernel's inference branch.
    """
    dtype = op.results[0].type.element_dtype if isinstance(op.results[0].type, TensorType) else None
    if dtype not in FAST_DTYPES or not all(
        isinstance(o.type, TensorType) and o.type.element_dtype == dtype for o in op.operands
    ):
        return None
    names = ("input", "weight", "bias", "running_mean", "running_var")
    refs = [bound.get(n) for n in names]
    eps = bound.get("eps")
    if not all(isinstance(r, OperandRef) for r in (refs[0], refs[3], refs[4])) or not all(
        r is None or isinstance(r, OperandRef) for r in refs[1:3]
    ):
        return None
    if not isinstance(eps, (int, float)) or isinstance(eps, bool):
        return None
    ix, iw, ib, im, iv = (r.index if isinstance(r, OperandRef) else None for r in refs)
    assert ix is not None and im is not None and iv is not None
    rank = cast(TensorType, op.operands[ix].type).rank
    if rank < 2:
        return None
    np_dtype = aten_kernels.numpy_dtype(cast(DType, dtype))
    eps_value = np_dtype.type(eps)
    shape = (-1,) + (1,) * (rank - 2)

    def batch_norm(*ops: Any) -> tuple[Any, ...]:
        scale = np.add(ops[iv], eps_value)
        np.sqrt(scale, out=scale)
        np.true_divide(1.0, scale, out=scale)
        if iw is not None:
            scale *= ops[iw]
        shift = np.multiply(ops[im], scale)
        if ib is not None:
            np.subtract(ops[ib], shift, out=shift)
        else:
            np.subtract(0, shift, out=shift)  # torch's absent bias is 0: +0.0 where the shift is a zero
        y = np.multiply(ops[ix], scale.reshape(shape))
        y += shift.reshape(shape)
        return (y, np.empty((0,), np_dtype), np.empty((0,), np_dtype))

    return batch_norm


_LAYER_NORM = "aten.native_layer_norm.default"


def _fast_layer_norm(op: Operation, bound: dict[str, object]) -> Prepared | None:
    """
    `native_layer_norm` on one float dtype over trailing sizes the IR fixes: the argument
    checks and conversions are done here, once, and each call is the kernel's own
    `layer_norm_rows` (the same arithmetic, so the same values) -- about 6 of the 35 us a
    50 x 192 layer norm took through the kernel. A call whose input does not end in those
    sizes, or is empty, goes to the kernel (its error, its empty statistics).
    """
    dtype = op.results[0].type.element_dtype if isinstance(op.results[0].type, TensorType) else None
    if dtype not in FAST_DTYPES or not all(
        isinstance(o.type, TensorType) and o.type.element_dtype == dtype for o in op.operands
    ):
        return None
    x, shape, w, b, eps = (bound.get(n) for n in ("input", "normalized_shape", "weight", "bias", "eps"))
    if not isinstance(x, OperandRef) or not isinstance(shape, list) or not shape:
        return None
    if not all(r is None or isinstance(r, OperandRef) for r in (w, b)):
        return None
    if not isinstance(eps, (int, float)) or isinstance(eps, bool):
        return None
    want = cast(list[object], shape)
    if not all(type(v) is int and v >= 0 for v in want):
        return None
    sizes = tuple(cast(list[int], want))
    k, count = len(sizes), math.prod(sizes)
    xt = cast(TensorType, op.operands[x.index].type)
    if xt.rank < k or tuple(xt.sizes[xt.rank - k :]) != sizes:
        return None
    for r in (w, b):
        if isinstance(r, OperandRef) and tuple(cast(TensorType, op.operands[r.index].type).sizes) != sizes:
            return None
    ix = x.index
    iw, ib = (r.index if isinstance(r, OperandRef) else None for r in (w, b))
    eps_value = float(eps)

    def layer_norm(*ops: Any) -> tuple[Any, ...]:
        a = ops[ix]
        if not a.size or a.shape[a.ndim - k :] != sizes:
            args = [a, list(sizes), None if iw is None else ops[iw], None if ib is None else ops[ib], eps_value]
            return tuple(cast(tuple[Any, ...], aten_kernels.run_kernel(_LAYER_NORM, args, {})))
        y, mean, rstd = layer_norm_rows(
            a, a.size // count, count, None if iw is None else ops[iw], None if ib is None else ops[ib], eps_value
        )
        stat = a.shape[: a.ndim - k] + (1,) * k
        return (y.reshape(a.shape), mean.reshape(stat), rstd.reshape(stat))

    return layer_norm


# ---------------------------------------------------------------------------
# operator calls
# ---------------------------------------------------------------------------


def _compile_kernel(
    op: Operation, target: str, args: list[object], kwargs: dict[str, object], n_results: int | None = None
) -> Prepared:
    """Bind the kernel of `target` once; `n_results` limits the results it returns."""
    if not aten_kernels.takes_low_precision(target) and any(
        isinstance(v.type, TensorType) and v.type.element_dtype in LOW_PRECISION for v in op.operands
    ):
        return _widened(op, _compile_plain_kernel(op, target, args, kwargs, n_results))
    return _compile_plain_kernel(op, target, args, kwargs, n_results)


def _widened(op: Operation, inner: Prepared) -> Prepared:
    """
    torch's CPU kernels compute on bfloat16 and float8 in float32 (their opmath
    type) and round once: the kernel sees float32 copies of those operands, its
    results get the IR's dtypes, and an operand it writes (an in-place op) gets
    the new values back, rounded, and is the result it aliases.
    """
    written = [i for i, v in enumerate(op.operands) if isinstance(op, AtenOp) and v in op.written_operands()]
    aliases = [
        op.operands.index(a) if isinstance(op, AtenOp) and (a := op.aliased_operand(r)) is not None else None
        for r in range(len(op.results))
    ]

    def call(*ops: Any) -> tuple[Any, ...]:
        wide = [to_float32(o) for o in ops]
        results = inner(*wide)
        if not written:
            return results
        for i in written:
            if wide[i] is not ops[i]:
                np.copyto(ops[i], wide[i], casting="unsafe")
        return tuple(ops[a] if a is not None and a in written else r for r, a in zip(results, aliases))

    return call


def _compile_plain_kernel(
    op: Operation, target: str, args: list[object], kwargs: dict[str, object], n_results: int | None = None
) -> Prepared:
    fast = _fast_pointwise(op, target, args, kwargs)
    if fast is not None:
        return fast
    kernel, bound, extra = aten_kernels.bind_kernel(target, args, kwargs)
    n_results = len(op.results) if n_results is None else n_results
    if target == _BN_INFERENCE and not extra and n_results == 3 and (bn := _fast_batch_norm(op, bound)) is not None:
        return bn
    if target == "aten.convolution.default" and not extra and (conv := _fast_convolution(op, bound)) is not None:
        return conv
    if target == _LAYER_NORM and not extra and n_results == 3 and (ln := _fast_layer_norm(op, bound)) is not None:
        return ln
    dtypes = _result_dtypes(op)[:n_results]
    fix = aten_kernels.apply_result_dtype

    if extra:
        fill_args, fill_kwargs = _filler(args), _filler(list(kwargs.values()))
        names = list(kwargs)

        def vararg_call(*ops: Any) -> tuple[Any, ...]:
            kw = dict(zip(names, fill_kwargs(ops)))
            res = aten_kernels.run_kernel(target, fill_args(ops), kw, dtypes)
            return _split(res, n_results)

        return vararg_call

    # The call is generated as Python source with the argument names spelled out
    # (`kernel(input=o0, eps=c0)`): no keyword dictionary is built per run. numpy's
    # warnings are silenced once per run by the compiled graph, not here.
    namespace: dict[str, Any] = {"kernel": kernel, "fix": fix, "split": _split, "dtypes": dtypes, "n": n_results}
    parts: list[str] = []
    for i, (name, value) in enumerate(bound.items()):
        if isinstance(value, OperandRef):
            expr = f"ops[{value.index}]"
        elif _has_ref(value):
            namespace[f"f{i}"] = _filler(value)
            expr = f"f{i}(ops)"
        else:
            namespace[f"c{i}"] = value
            expr = f"c{i}"
        usable = name.isidentifier() and not keyword.iskeyword(name)  # `from` is a schema name
        parts.append(f"{name}={expr}" if usable else f"**{{{name!r}: {expr}}}")
    invoke = f"kernel({', '.join(parts)})"
    if n_results == 1:
        namespace["dt"] = dtypes[0]
        source = f"def call(*ops):\n    return (fix({invoke}, dt),)\n"
    else:
        source = f"def call(*ops):\n    return split({invoke}, n, dtypes)\n"
    code = _CALL_CODE.get(source)
    if code is None:
        code = _CALL_CODE[source] = compile(source, "<aten-call>", "exec")
    exec(code, namespace)
    return cast(Prepared, namespace["call"])


_CALL_CODE: dict[str, CodeType] = {}
"""Compiled call sources by text: programs repeat a few argument shapes many times."""


def _split(res: Any, n: int, dtypes: Sequence[DType | None] = ()) -> tuple[Any, ...]:
    if n == 1:
        return (res,)
    if not isinstance(res, (tuple, list)) or len(cast(Sequence[Any], res)) != n:
        raise InterpreterError(f"the kernel returned {type(res).__name__}, expected {n} results")
    items = list(cast(Sequence[Any], res))
    if dtypes:
        items = [aten_kernels.apply_result_dtype(v, d) for v, d in zip(items, dtypes)]
    return tuple(items)


def _check_assert(cond: object, message: str) -> None:
    if isinstance(cond, np.ndarray):
        cond = bool(cond.all())
    if not cond:
        raise InterpreterError(f"runtime assertion failed: {message}")


def _assert_tensor_metadata(
    a: Any, size: Any = None, stride: Any = None, dtype: Any = None, *_: Any, **__: Any
) -> tuple[Any, ...]:
    """`aten._assert_tensor_metadata`: the dtype and sizes export saw."""
    if dtype is not None and isinstance(a, np.ndarray):
        want = aten_kernels.numpy_dtype(DType(dtype) if isinstance(dtype, str) else dtype)
        if a.dtype != want:
            raise InterpreterError(f"tensor metadata assertion failed: dtype is {a.dtype}, expected {dtype}")
    if size is not None and isinstance(a, np.ndarray) and list(a.shape) != list(size):
        raise InterpreterError(f"tensor metadata assertion failed: sizes are {list(a.shape)}, expected {list(size)}")
    return (None,)


def _constrain_range(size: Any, min: Any = None, max: Any = None) -> tuple[Any, ...]:
    value = int(size)
    if min is not None and value < min or max is not None and value > max:
        raise InterpreterError(f"runtime assertion failed: {value} is outside [{min}, {max}]")
    return (None,)


def _call_graph(g: Any, args: Sequence[Any]) -> tuple[Any, ...]:
    if not isinstance(g, CompiledGraph):
        raise InterpreterError("a higher-order op was given something that is not a graph")
    return g(*args)


def _hop_cond(pred: Any, true_g: Any, false_g: Any, operands: Sequence[Any]) -> tuple[Any, ...]:
    return (list(_call_graph(true_g if truth(pred) else false_g, operands)),)


def _hop_while(cond_g: Any, body_g: Any, carried: Sequence[Any], additional: Sequence[Any] = ()) -> tuple[Any, ...]:
    values = list(carried)
    while truth(_call_graph(cond_g, [*values, *additional])[0]):
        values = list(_call_graph(body_g, [*values, *additional]))
    return (values,)


def _hop_map(body_g: Any, xs: Sequence[Any], extra: Sequence[Any] = ()) -> tuple[Any, ...]:
    return (map_over(lambda *a: _call_graph(body_g, a), list(xs), list(extra)),)


_BUILTIN_TARGETS: dict[str, Callable[..., tuple[Any, ...]]] = {
    "aten._assert_scalar.default": lambda cond, msg: (_check_assert(cond, msg), None)[1:],
    "aten._assert_async.msg": lambda cond, msg: (_check_assert(cond, msg), None)[1:],
    "aten._assert_async.default": lambda cond: (_check_assert(cond, "assert_async"), None)[1:],
    "aten._assert_tensor_metadata.default": _assert_tensor_metadata,
    "aten.sym_constrain_range_for_size.default": _constrain_range,
    "aten.sym_constrain_range.default": _constrain_range,
    "aten.sym_size.int": lambda a, dim: (int(a.shape[dim]),),
    "aten.sym_numel.default": lambda a: (int(a.size),),
    "aten.sym_stride.int": lambda a, dim: (contiguous_strides(a.shape)[dim],),
    "aten.sym_storage_offset.default": lambda a: (0,),
    "_operator.getitem": lambda seq, i: (seq[i],),
    "operator.getitem": lambda seq, i: (seq[i],),
    "higher_order.cond": _hop_cond,
    "higher_order.while_loop": _hop_while,
    "higher_order.map_impl": _hop_map,
}
"""Targets that are not numpy kernels: asserts, SymInt queries, higher-order calls."""


def builtin_targets() -> frozenset[str]:
    """Targets run by the interpreter itself rather than a numpy kernel (asserts, SymInt queries, ...)."""
    return frozenset(_BUILTIN_TARGETS)


def _compile_builtin(op: Operation, fn: Callable[..., tuple[Any, ...]], args: list[object], kwargs: dict[str, object]) -> Prepared:
    fill_args = _filler(args)
    fill_kwargs = _filler(list(kwargs.values()))
    names = list(kwargs)
    n_results = len(op.results)

    def call(*ops: Any) -> tuple[Any, ...]:
        res = fn(*fill_args(ops), **dict(zip(names, fill_kwargs(ops))))
        return res[:n_results] if n_results < len(res) else res

    return call


_VALUES_ONLY = {"aten.max_pool2d_with_indices.default": "aten.max_pool2d.default"}
"""Ops whose second result (indices) is often dead, and the overload computing only the first."""

_GETITEM_TARGETS = ("operator.getitem", "_operator.getitem")
"""On a list or tuple these index it; on a tensor they are indexing (`x[:, 0:2]`), which
the fx module implements."""


@register_op(AtenOp, CallFunctionOp)
def compile_call(op: Operation, ctx: CompileContext) -> Prepared:
    target = target_of(op)
    args, kwargs = decode_call_args(op)
    tensor_index = target in _GETITEM_TARGETS and op.operands and isinstance(op.operands[0].type, TensorType)
    if target in _BUILTIN_TARGETS and not tensor_index:
        return _compile_builtin(op, _BUILTIN_TARGETS[target], args, kwargs)
    if aten_kernels.has_kernel(target):
        cheaper = _VALUES_ONLY.get(target)
        if cheaper is not None and len(op.results) == 2 and not op.results[1].uses:
            values = _compile_kernel(op, cheaper, args, kwargs, n_results=1)
            return lambda *ops: (*values(*ops), None)
        if target in _STORAGE_READERS:
            return _with_torch_storage(op, target, _compile_kernel(op, target, args, kwargs))
        return _compile_kernel(op, target, args, kwargs)
    custom = op_registry.custom_operator(target)
    if custom is not None:
        return _compile_custom(op, custom, args, kwargs)
    if not target.startswith("aten."):
        return compile_python_call(op, ctx)
    raise InterpreterError(f"the interpreter has no implementation of the operator '{target}'", op)


_STORAGE_READERS = frozenset({"aten.as_strided.default", "aten.as_strided_scatter.default"})
"""Operators that address their first operand's storage, not its elements."""


def _with_torch_storage(op: Operation, target: str, inner: Prepared) -> Prepared:
    """
    `inner` (an operator reading its first operand's storage) given that storage laid
    out as torch lays it. The tensor owning the storage is the value the operand is a
    chain of views of; its type records torch's dim order. numpy lays a pointwise
    result out by its own rules, which differ from torch's when operands of different
    layouts meet (`x.t() + y` is row-major in numpy, column-major in torch), so before
    the call the array owning the memory is compared with that order: an operand that
    is itself the owner is copied into torch's layout when they differ; a view of a
    differently laid owner is refused, naming the operator (its storage as torch
    holds it is not in the interpreter's memory). A graph input or state is taken as
    laid out: the caller's array, or the state as loaded, is the storage.
    """
    value = op.operands[0]
    chained = False
    while isinstance(value, OpResult) and isinstance(value.op, AtenOp):
        base = value.op.aliased_operand(value.index)
        if base is None:
            break
        value, chained = base, True
    t = value.type
    if not isinstance(value, OpResult) or not isinstance(t, TensorType) or not t.is_static():
        return inner
    shape = tuple(int(s) for s in t.sizes)
    order = list(t.get_dim_order())
    maker = target_of(value.op)

    def call(*ops: Any) -> tuple[Any, ...]:
        x = ops[0]
        if not isinstance(x, np.ndarray):
            return inner(*ops)
        root = storage_root(x)
        if root.shape == shape and dense_in_order(root, order):
            return inner(*ops)
        if root.shape != shape and root.size == math.prod(shape) and root.flags.c_contiguous:
            return inner(*ops)  # a view the interpreter had to copy (a reshape): a fresh row-major tensor, as torch's copy is
        if root is x and not chained:
            laid = with_dim_order(x, order)
            return inner(np.ascontiguousarray(x) if laid is x else laid, *ops[1:])
        raise InterpreterError(
            f"{target}: the storage it reads is that of the result of {maker}, which torch lays out in dim order "
            f"{order} and the interpreter does not (its memory order follows numpy's rules), so the elements it "
            f"would read are not torch's; make the tensor contiguous (`.contiguous()`) before {target}",
            op,
        )

    return call


def _compile_custom(
    op: Operation, custom: op_registry.CustomOperator, args: list[object], kwargs: dict[str, object]
) -> Prepared:
    """A registered custom operator's kernel: arguments bound to its schema when it has one."""
    if custom.entry is not None:
        try:
            bound, extra = bind(custom.entry.schema, args, kwargs, missing="none")
        except SchemaBindError as e:
            raise InterpreterError(f"{custom.op_name}: {e}", op) from None
        args, kwargs = extra, bound
    fill_args, fill_kwargs = _filler(args), _filler(list(kwargs.values()))
    names = list(kwargs)
    kernel = custom.kernel
    results = [r.type for r in op.results]

    def call(*ops: Any) -> tuple[Any, ...]:
        try:
            res = kernel(*fill_args(ops), **dict(zip(names, fill_kwargs(ops))))
        except InterpreterError:
            raise
        except Exception as e:  # a user's kernel: its failure is the op's, with the op named
            raise InterpreterError(f"the kernel of {custom.op_name} failed: {type(e).__name__}: {e}", op) from e
        values = _split(res, len(results)) if len(results) != 1 else (res,)
        return tuple(_checked_result(v, t, custom.op_name, op) for v, t in zip(values, results))

    return call


def _checked_result(value: Any, t: Attribute, name: str, op: Operation) -> Any:
    """A user kernel's result given the IR's dtype; a result of another shape is refused."""
    if not isinstance(t, TensorType):
        return value
    array = aten_kernels.apply_result_dtype(np.asarray(value), t.element_dtype)
    assert isinstance(array, np.ndarray)
    if t.is_static() and tuple(array.shape) != tuple(int(s) for s in t.sizes):
        raise InterpreterError(
            f"the kernel of {name} returned shape {list(array.shape)}, but the program says "
            f"{[int(s) for s in t.sizes]}",
            op,
        )
    return array


# ---------------------------------------------------------------------------
# structure, SymInt and asserts
# ---------------------------------------------------------------------------


@register_op(GetItemOp)
def compile_getitem(op: Operation, ctx: CompileContext) -> Prepared:
    index = cast(GetItemOp, op).index.data
    return lambda seq: (seq[index],)


@register_op(ConstantOp)
def compile_constant(op: Operation, ctx: CompileContext) -> Prepared:
    value = cast(ConstantOp, op).python_value
    return lambda: (value,)


@register_op(GetAttrOp)
def compile_get_attr(op: Operation, ctx: CompileContext) -> Prepared:
    name = cast(GetAttrOp, op).target.root_reference.data
    if name in ctx.state:
        state = ctx.state
        return lambda: (state[name],)
    graph = ctx.compile_graph(name)
    return lambda: (graph,)


@register_op(SymSizeOp)
def compile_sym_size(op: Operation, ctx: CompileContext) -> Prepared:
    dim = cast(SymSizeOp, op).dim.data
    return lambda a: (int(a.shape[dim]),)


@register_op(SymStrideOp)
def compile_sym_stride(op: Operation, ctx: CompileContext) -> Prepared:
    dim = cast(SymStrideOp, op).dim.data
    return lambda a: (contiguous_strides(a.shape)[dim],)


@register_op(SymNumelOp)
def compile_sym_numel(op: Operation, ctx: CompileContext) -> Prepared:
    return lambda a: (int(a.size),)


def _sym_float(a: Any) -> float:
    return float(a)


_PYTHON_SEMANTICS: dict[str, Callable[..., Any]] = {
    "operator.add": operator.add,
    "operator.sub": operator.sub,
    "operator.mul": operator.mul,
    "operator.floordiv": operator.floordiv,
    "operator.mod": operator.mod,
    "operator.pow": operator.pow,
    "operator.truediv": operator.truediv,
    "operator.neg": operator.neg,
    "torch.sym_max": max,
    "torch.sym_min": min,
    "operator.eq": operator.eq,
    "operator.ne": operator.ne,
    "operator.lt": operator.lt,
    "operator.le": operator.le,
    "operator.gt": operator.gt,
    "operator.ge": operator.ge,
    "operator.and_": lambda a, b: bool(a) and bool(b),
    "operator.or_": lambda a, b: bool(a) or bool(b),
    "torch.sym_not": operator.not_,
    "torch.sym_float": _sym_float,
    "torch.sym_int": lambda a: int(math.trunc(a)),
}
"""What each generated SymInt op computes on concrete Python numbers."""

assert set(_PYTHON_SEMANTICS) == set(SYM_ARITH_OPS), "every SymInt op needs its runtime semantics"


@register_op(SymArithOp)
def compile_sym_arith(op: Operation, ctx: CompileContext) -> Prepared:
    fn = _PYTHON_SEMANTICS[cast(SymArithOp, op).PYTHON_TARGET]
    args, _ = decode_call_args(op)
    if all(isinstance(a, OperandRef) for a in args):
        order = [cast(OperandRef, a).index for a in args]
        if order == list(range(len(order))):
            return lambda *ops: (fn(*ops),)
    fill = _filler(args)
    return lambda *ops: (fn(*fill(ops)),)


@register_op(AssertScalarOp)
def compile_assert_scalar(op: Operation, ctx: CompileContext) -> Prepared:
    message = cast(AssertScalarOp, op).message.data

    def check(cond: Any) -> tuple[Any, ...]:
        _check_assert(cond, message)
        return ()

    return check


# ---------------------------------------------------------------------------
# higher-order ops
# ---------------------------------------------------------------------------


@register_op(CondOp)
def compile_cond(op: Operation, ctx: CompileContext) -> Prepared:
    cond = cast(CondOp, op)
    true_branch = ctx.compile_region(cond.true_branch)
    false_branch = ctx.compile_region(cond.false_branch)

    def run(pred: Any, *inputs: Any) -> tuple[Any, ...]:
        return (true_branch if truth(pred) else false_branch)(*inputs)

    return run


@register_op(WhileLoopOp)
def compile_while_loop(op: Operation, ctx: CompileContext) -> Prepared:
    loop = cast(WhileLoopOp, op)
    cond = ctx.compile_region(loop.cond_region)
    body = ctx.compile_region(loop.body_region)
    n_carried = len(loop.carried)

    def run(*values: Any) -> tuple[Any, ...]:
        carried, additional = values[:n_carried], values[n_carried:]
        while truth(cond(*carried, *additional)[0]):
            carried = body(*carried, *additional)
        return tuple(carried)

    return run


def map_over(body: Callable[..., tuple[Any, ...]], xs: list[Any], extra: list[Any]) -> list[Any]:
    """
    `exir.map`: `body` on each row of `xs` (with `extra` as it is), the results
    stacked; xDSL's interpreter framework (`framework.py`) runs its regions with it too.
    """
    n = int(xs[0].shape[0])
    if any(int(x.shape[0]) != n for x in xs):
        raise InterpreterError(f"map inputs disagree on the leading dimension: {[list(x.shape) for x in xs]}")
    if n == 0:
        raise InterpreterError("map over an empty leading dimension")
    rows = [body(*[x[i] for x in xs], *extra) for i in range(n)]
    return [np.stack([np.asarray(r[j]) for r in rows]) for j in range(len(rows[0]))]


@register_op(MapOp)
def compile_map(op: Operation, ctx: CompileContext) -> Prepared:
    map_op = cast(MapOp, op)
    body = ctx.compile_region(map_op.body)
    n_xs = len(map_op.xs)
    return lambda *values: tuple(map_over(body, list(values[:n_xs]), list(values[n_xs:])))
