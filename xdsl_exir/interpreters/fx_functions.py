"""
Running the `fx` dialect and Python-level calls in the graph compiler.

Symbolically traced graphs call Python, not ATen: leaf modules
(`fx.call_module`), tensor methods (`fx.call_method`), and functions such as
`torch.relu`, `operator.add`, `torch.nn.functional.relu` or `getattr(x,
"shape")` (`exir.call_function` with a non-ATen target). Each is prepared once,
at compile time, by mapping it to ATen: the operator's base name comes from
the call (a method or `torch.*` function is named after its operator; a small
table maps Python operators and the `torch.nn.functional` wrappers whose
signatures differ from ATen's), and the overload is chosen from the operand
*types* by `xdsl_exir.analysis.overload_resolution.resolve`, the way TorchScript matches
schemas. At run time only the operand values are filled in and the numpy
kernel is called.

Leaf modules map to the ATen calls their `forward` makes, from the class and
configuration the importer recorded on the op and the module's parameters and
buffers in the program state. Batch norm in training mode updates its running
statistics (and `num_batches_tracked`) in the state, as torch does; dropout in
training mode draws from the kernels' generator, not torch's.

The core compiler (`exir_functions.compile_call`) calls `compile_python_call`
here for every `exir.call_function` whose target is not an ATen operator,
including `operator.getitem` on a tensor (indexing, not the core's `seq[i]`).
"""

from __future__ import annotations

import builtins
import math
import operator
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.ir import Attribute, Operation

from xdsl_exir.analysis.overload_resolution import Implicit, OverloadError, Typed, apply_implicit, candidates, resolve
from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    DeviceAttr,
    DType,
    FloatType,
    IntType,
    ListType,
    TensorType,
    decode_arg,
)
from xdsl_exir.dialects.fx import CallMethodOp, CallModuleOp, EllipsisOp, GetAttrOp, SliceOp
from xdsl_exir.interpreters.compiler import (
    CompileContext,
    InterpreterError,
    Prepared,
    register_op,
    truth,
)
from xdsl_exir.semantics import kernels as aten_kernels

__all__ = ["compile_python_call", "module_classes", "python_targets"]

Env = Sequence[Any]
"""The values a prepared step reads: the op's operands, or intermediate results."""

Step = Callable[[Env], Any]
"""A kernel call with its constant arguments bound, taking the values it reads."""


# ---------------------------------------------------------------------------
# Argument trees with typed placeholders
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class _StateKey:
    """A `Typed` key naming program state rather than an operand."""

    name: str


def _operand_leaves(op: Operation) -> list[Typed]:
    return [Typed(v.type, i) for i, v in enumerate(op.operands)]


def decode_typed(op: Operation) -> tuple[list[object], dict[str, object]]:
    """The op's FX args/kwargs with a `Typed` leaf (keyed by operand index) per operand."""
    leaves = cast(Sequence[Any], _operand_leaves(op))
    args_attr = op.properties.get("args")
    kwargs_attr = op.properties.get("kwargs")
    args = [decode_arg(a, leaves) for a in getattr(args_attr, "data", ())]
    kwargs = {k: decode_arg(v, leaves) for k, v in getattr(kwargs_attr, "data", {}).items()}
    return cast(list[object], args), cast(dict[str, object], kwargs)


def _builder(tree: object, state: Mapping[str, Any]) -> Callable[[Env], Any]:
    """A function of the env rebuilding `tree` with its placeholders filled in."""
    if isinstance(tree, Typed):
        key = tree.key
        if isinstance(key, int):
            return lambda env: env[key]
        if isinstance(key, _StateKey):
            name = key.name
            return lambda env: state[name]
        if isinstance(key, tuple):
            parent, index = cast(tuple[object, int], key)
            outer = _builder(Typed(tree.type, parent), state)
            return lambda env: outer(env)[index]
        raise InterpreterError(f"internal: unfillable placeholder {tree!r}")
    if isinstance(tree, Implicit):
        inner = _builder(tree.value, state)
        kind = tree.kind
        return lambda env: apply_implicit(kind, inner(env))
    if isinstance(tree, list):
        parts = [_builder(v, state) for v in cast(list[object], tree)]
        if all(getattr(p, "_constant", False) for p in parts):
            value = [p([]) for p in parts]
            return _const(value)
        return lambda env: [p(env) for p in parts]
    return _const(tree)


def _const(value: object) -> Callable[[Env], Any]:
    def constant(env: Env) -> Any:
        return value

    constant._constant = True
    return constant


def _is_tensor(value: object) -> bool:
    return isinstance(value, Typed) and isinstance(value.type, TensorType)


def _is_placeholder(value: object) -> bool:
    if isinstance(value, Typed | Implicit):
        return True
    if isinstance(value, list):
        return any(_is_placeholder(v) for v in cast(list[object], value))
    return False


# ---------------------------------------------------------------------------
# ATen calls
# ---------------------------------------------------------------------------

_SUBSTITUTES: dict[str, tuple[str, dict[str, object]]] = {
    "floor_divide": ("div", {"rounding_mode": "floor"}),
    "floor_divide_": ("div_", {"rounding_mode": "floor"}),
}
"""Operators without a kernel and the equivalent call that has one (torch defines them so)."""


def _has_runnable_overload(base: str) -> bool:
    return any(aten_kernels.has_kernel(e.op_name) for e in candidates(f"aten::{base}"))


def aten_step(
    op: Operation,
    ctx: CompileContext,
    base: str,
    args: Sequence[object],
    kwargs: Mapping[str, object] | None = None,
) -> Step:
    """A step calling the ATen overload of `base` that accepts these (typed) arguments."""
    kwargs = dict(kwargs or {})
    if not _has_runnable_overload(base) and base in _SUBSTITUTES:
        base, extra = _SUBSTITUTES[base]
        kwargs.update(extra)
    try:
        op_name, bound = resolve(base, args, kwargs, accept=aten_kernels.has_kernel)
    except OverloadError as e:
        raise InterpreterError(str(e), op) from None
    kernel, full, extra_args = aten_kernels.bind_kernel(op_name, [], bound)
    if extra_args:
        raise InterpreterError(f"internal: {op_name} bound vararg positionals", op)
    constants = {k: v for k, v in full.items() if not _is_placeholder(v)}
    dynamic = [(k, _builder(v, ctx.state)) for k, v in full.items() if _is_placeholder(v)]

    def step(env: Env) -> Any:
        kw = dict(constants)
        for name, build in dynamic:
            kw[name] = build(env)
        with np.errstate(all="ignore"):
            return kernel(**kw)

    step.op_name = op_name
    return step


def _result_dtype(op: Operation) -> DType | None:
    if op.results and isinstance(t := op.results[0].type, TensorType):
        return t.element_dtype
    return None


def finish(op: Operation, step: Step) -> Prepared:
    """The prepared form of a one-result op computed by `step` from its operands."""
    dtype = _result_dtype(op)
    fix = aten_kernels.apply_result_dtype
    if dtype is None:
        return lambda *ops: (step(ops),)
    return lambda *ops: (fix(step(ops), dtype),)


def _then(first: Step, second: Step) -> Step:
    """`second` run on the result of `first` (its placeholder key 0)."""
    return lambda env: second((first(env),))


# ---------------------------------------------------------------------------
# Python binding helpers
# ---------------------------------------------------------------------------

_REQUIRED = object()


def bind_python(
    op: Operation,
    what: str,
    params: Sequence[tuple[str, object]],
    args: Sequence[object],
    kwargs: Mapping[str, object],
) -> dict[str, object]:
    """Bind a call to a Python signature given as `(name, default)` pairs (`_REQUIRED`)."""
    names = [p for p, _ in params]
    if len(args) > len(names):
        raise InterpreterError(f"{what} takes {len(names)} arguments, got {len(args)}", op)
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k not in names:
            raise InterpreterError(f"{what} has no argument '{k}'", op)
        if k in bound:
            raise InterpreterError(f"{what} got argument '{k}' twice", op)
        bound[k] = v
    for name, default in params:
        if name not in bound:
            if default is _REQUIRED:
                raise InterpreterError(f"{what} is missing argument '{name}'", op)
            bound[name] = default
    return bound


def _static_bool(op: Operation, value: object, what: str) -> bool:
    if isinstance(value, Typed | Implicit):
        raise InterpreterError(f"{what} must be a constant, not a run-time value", op)
    return bool(value)


def _inplace(base: str, flag: object, op: Operation) -> str:
    """`relu` or, for `inplace=True`, `relu_` (which writes its input, as torch does)."""
    return base + "_" if _static_bool(op, flag, "inplace") else base


def _legacy_softmax_dim(t: Attribute) -> int:
    """`F.softmax(x)` without `dim`: torch's `_get_softmax_dim` rule."""
    rank = t.rank if isinstance(t, TensorType) else 2
    return 0 if rank in (0, 1, 3) else 1


# ---------------------------------------------------------------------------
# torch.nn.functional and torch.functional wrappers
# ---------------------------------------------------------------------------

FunctionalImpl = Callable[[Operation, CompileContext, dict[str, object]], Step]
_FUNCTIONAL: dict[str, tuple[list[tuple[str, object]], FunctionalImpl]] = {}


def _functional(name: str, *params: tuple[str, object]) -> Callable[[FunctionalImpl], FunctionalImpl]:
    def register(fn: FunctionalImpl) -> FunctionalImpl:
        _FUNCTIONAL[name] = (list(params), fn)
        return fn

    return register


def _activation(name: str, base: str, *extra: tuple[str, object]) -> None:
    """`F.<name>(input, *extra, inplace=False)` -> `aten::<base>(input, *extra)` or `<base>_`."""

    def impl(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
        values = [a[p] for p, _ in extra]
        return aten_step(op, ctx, _inplace(base, a["inplace"], op), [a["input"], *values])

    _FUNCTIONAL[f"torch.nn.functional.{name}"] = ([("input", _REQUIRED), *extra, ("inplace", False)], impl)


for _name, _extra in {
    "relu": (),
    "elu": (("alpha", 1.0),),
    "selu": (),
    "celu": (("alpha", 1.0),),
    "leaky_relu": (("negative_slope", 0.01),),
    "hardtanh": (("min_val", -1.0), ("max_val", 1.0)),
    "silu": (),
    "mish": (),
    "hardswish": (),
    "hardsigmoid": (),
}.items():
    _activation(_name, _name, *_extra)


@_functional("torch.nn.functional.relu6", ("input", _REQUIRED), ("inplace", False))
def _relu6(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    return aten_step(op, ctx, _inplace("hardtanh", a["inplace"], op), [a["input"], 0.0, 6.0])


@_functional("torch.nn.functional.threshold", ("input", _REQUIRED), ("threshold", _REQUIRED), ("value", _REQUIRED), ("inplace", False))
def _threshold(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    return aten_step(op, ctx, _inplace("threshold", a["inplace"], op), [a["input"], a["threshold"], a["value"]])


def _softmax_like(base: str, negate: bool = False) -> FunctionalImpl:
    def impl(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
        x = a["input"]
        dim = a["dim"] if a["dim"] is not None else _legacy_softmax_dim(_type_of(x))
        if not negate:
            return aten_step(op, ctx, base, [x, dim], {"dtype": a["dtype"]})
        neg = aten_step(op, ctx, "neg", [x])
        return _then(neg, aten_step(op, ctx, base, [Typed(_type_of(x), 0), dim], {"dtype": a["dtype"]}))

    return impl


def _type_of(value: object) -> Attribute:
    """The IR type of a placeholder (a float tensor for constants, which only matter by kind)."""
    return value.type if isinstance(value, Typed) else TensorType([], DType.float32)


for _name, _base, _neg in (("softmax", "softmax", False), ("log_softmax", "log_softmax", False), ("softmin", "softmax", True)):
    _FUNCTIONAL[f"torch.nn.functional.{_name}"] = (
        [("input", _REQUIRED), ("dim", None), ("_stacklevel", 3), ("dtype", None)],
        _softmax_like(_base, _neg),
    )


def _dropout_like(name: str, train_kernel: str | None) -> None:
    def impl(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
        if not _static_bool(op, a["training"], "training"):
            return _builder(a["input"], ctx.state)
        if train_kernel is None:
            raise InterpreterError(f"F.{name} in training mode is not supported", op)
        return aten_step(op, ctx, _inplace(train_kernel, a["inplace"], op), [a["input"], a["p"], True])

    _FUNCTIONAL[f"torch.nn.functional.{name}"] = (
        [("input", _REQUIRED), ("p", 0.5), ("training", True), ("inplace", False)],
        impl,
    )


_dropout_like("dropout", "dropout")
for _name in ("alpha_dropout", "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d"):
    _dropout_like(_name, None)


@_functional(
    "torch.nn.functional.batch_norm",
    ("input", _REQUIRED), ("running_mean", _REQUIRED), ("running_var", _REQUIRED), ("weight", None),
    ("bias", None), ("training", False), ("momentum", 0.1), ("eps", 1e-5),
)
def _f_batch_norm(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    return aten_step(
        op, ctx, "batch_norm",
        [a["input"], a["weight"], a["bias"], a["running_mean"], a["running_var"], a["training"], a["momentum"], a["eps"], True],
    )


@_functional(
    "torch.nn.functional.layer_norm",
    ("input", _REQUIRED), ("normalized_shape", _REQUIRED), ("weight", None), ("bias", None), ("eps", 1e-5),
)
def _f_layer_norm(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    return aten_step(op, ctx, "layer_norm", [a["input"], a["normalized_shape"], a["weight"], a["bias"], a["eps"]])


@_functional(
    "torch.nn.functional.group_norm",
    ("input", _REQUIRED), ("num_groups", _REQUIRED), ("weight", None), ("bias", None), ("eps", 1e-5),
)
def _f_group_norm(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    return aten_step(op, ctx, "group_norm", [a["input"], a["num_groups"], a["weight"], a["bias"], a["eps"]])


@_functional(
    "torch.nn.functional.embedding",
    ("input", _REQUIRED), ("weight", _REQUIRED), ("padding_idx", None), ("max_norm", None),
    ("norm_type", 2.0), ("scale_grad_by_freq", False), ("sparse", False),
)
def _f_embedding(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    if a["max_norm"] is not None:
        raise InterpreterError("embedding with max_norm renormalizes the weight in place; not supported", op)
    padding_idx = -1 if a["padding_idx"] is None else a["padding_idx"]
    return aten_step(op, ctx, "embedding", [a["weight"], a["input"], padding_idx, a["scale_grad_by_freq"], a["sparse"]])


def _max_pool(n: int, with_indices: bool) -> FunctionalImpl:
    def impl(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
        stride = a["stride"] if a["stride"] not in (None, []) else a["kernel_size"]
        return max_pool_step(
            op, ctx, n, a["input"], a["kernel_size"], stride, a["padding"], a["dilation"],
            a["ceil_mode"], with_indices or _static_bool(op, a["return_indices"], "return_indices"),
        )

    return impl


for _n in (1, 2):
    for _suffix, _with in (("", False), ("_with_indices", True)):
        _FUNCTIONAL[f"torch.nn.functional.max_pool{_n}d{_suffix}"] = (
            [("input", _REQUIRED), ("kernel_size", _REQUIRED), ("stride", None), ("padding", 0), ("dilation", 1),
             ("ceil_mode", False), ("return_indices", False)],
            _max_pool(_n, _with),
        )


@_functional("torch.nn.functional.pad", ("input", _REQUIRED), ("pad", _REQUIRED), ("mode", "constant"), ("value", None))
def _f_pad(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    return aten_step(op, ctx, "pad", [a["input"], a["pad"], a["mode"], a["value"]])


def max_pool_step(
    op: Operation, ctx: CompileContext, n: int, x: object, kernel_size: object, stride: object,
    padding: object, dilation: object, ceil_mode: object, return_indices: bool,
) -> Step:
    """`max_pool{n}d`; 1-d pooling runs as 2-d pooling over a unit height, as torch's CPU path does."""
    base = "max_pool2d_with_indices" if return_indices else "max_pool2d"
    if n == 2:
        return aten_step(op, ctx, base, [x, kernel_size, stride, padding, dilation, ceil_mode])

    def widen(v: object, fill: int) -> list[object]:
        return [fill, *(v if isinstance(v, list) else [v])]

    t = _type_of(x)
    pool = aten_step(
        op, ctx, base,
        [Typed(t, 0), widen(kernel_size, 1), widen(stride, 1), widen(padding, 0), widen(dilation, 1), ceil_mode],
    )
    lift = aten_step(op, ctx, "unsqueeze", [x, -2])
    squeeze = aten_step(op, ctx, "squeeze", [Typed(t, 0), -2])
    if not return_indices:
        return lambda env: squeeze((pool((lift(env),)),))
    return lambda env: tuple(squeeze((r,)) for r in pool((lift(env),)))


def adaptive_avg_pool_step(op: Operation, ctx: CompileContext, n: int, x: object, output_size: object) -> Step:
    """`adaptive_avg_pool{n}d`; a `None` in the output size keeps that input size."""
    sizes = output_size if isinstance(output_size, list) else [output_size] * n
    if None not in sizes:
        return aten_step(op, ctx, f"adaptive_avg_pool{n}d", [x, sizes])
    t = _type_of(x)
    pool = aten_step(op, ctx, f"adaptive_avg_pool{n}d", [Typed(t, 0), Typed(ListType(IntType()), 1)])
    read = _builder(x, ctx.state)

    def step(env: Env) -> Any:
        value = read(env)
        spatial = value.shape[-n:]
        return pool((value, [s if s is not None else spatial[i] for i, s in enumerate(sizes)]))

    return step


for _n in (1, 2):
    _FUNCTIONAL[f"torch.nn.functional.adaptive_avg_pool{_n}d"] = (
        [("input", _REQUIRED), ("output_size", _REQUIRED)],
        (lambda n: lambda op, ctx, a: adaptive_avg_pool_step(op, ctx, n, a["input"], a["output_size"]))(_n),
    )


@_functional("torch.functional.split", ("tensor", _REQUIRED), ("split_size_or_sections", _REQUIRED), ("dim", 0))
def _split(op: Operation, ctx: CompileContext, a: dict[str, object]) -> Step:
    return aten_step(op, ctx, "split", [a["tensor"], a["split_size_or_sections"], a["dim"]])


def _einsum(op: Operation, ctx: CompileContext, args: list[object], kwargs: dict[str, object]) -> Step:
    if not args:
        raise InterpreterError("einsum needs an equation", op)
    equation, operands = args[0], args[1:]
    if len(operands) == 1 and isinstance(operands[0], list):
        operands = cast(list[object], operands[0])
    return aten_step(op, ctx, "einsum", [equation, list(operands)], kwargs)


# ---------------------------------------------------------------------------
# Python operators
# ---------------------------------------------------------------------------

_BINARY: dict[str, tuple[str, str | None]] = {
    "add": ("add", "add"),
    "sub": ("sub", "rsub"),
    "mul": ("mul", "mul"),
    "truediv": ("div", None),
    "floordiv": ("floor_divide", None),
    "mod": ("remainder", None),
    "pow": ("pow", None),
    "matmul": ("matmul", None),
    "and_": ("bitwise_and", "bitwise_and"),
    "or_": ("bitwise_or", "bitwise_or"),
    "xor": ("bitwise_xor", "bitwise_xor"),
    "lshift": ("bitwise_left_shift", None),
    "rshift": ("bitwise_right_shift", None),
    "eq": ("eq", "eq"),
    "ne": ("ne", "ne"),
    "lt": ("lt", "gt"),
    "le": ("le", "ge"),
    "gt": ("gt", "lt"),
    "ge": ("ge", "le"),
}
"""Python operator -> (ATen base, the base of its reflected form with swapped operands).

A scalar on the left of a tensor makes Python call the tensor's reflected
method (`2 - x` is `x.__rsub__(2)`, i.e. `rsub(x, 2)`); where torch has no
swapped form, the scalar stays first and is a wrapped number."""

_INPLACE: dict[str, str] = {
    "iadd": "add_", "isub": "sub_", "imul": "mul_", "itruediv": "div_", "ifloordiv": "floor_divide_",
    "imod": "remainder_", "ipow": "pow_", "iand": "bitwise_and_", "ior": "bitwise_or_", "ixor": "bitwise_xor_",
}
"""Augmented assignment on a tensor writes it (`x += y` is `x.add_(y)`)."""

_UNARY: dict[str, str] = {"neg": "neg", "invert": "bitwise_not", "abs": "abs"}


def _compile_operator(op: Operation, ctx: CompileContext, name: str, args: list[object], kwargs: dict[str, object]) -> Prepared | None:
    fn = getattr(operator, name, None)
    if fn is None:
        return None
    if not any(_is_tensor(a) for a in args):
        return _python_call(op, ctx, fn, args, kwargs)
    if kwargs:
        raise InterpreterError(f"operator.{name} takes no keyword arguments", op)
    if name in _BINARY and len(args) == 2:
        base, reflected = _BINARY[name]
        a, b = args
        if not _is_tensor(a) and reflected is not None:
            return finish(op, aten_step(op, ctx, reflected, [b, a]))
        return finish(op, aten_step(op, ctx, base, [a, b]))
    if name in _INPLACE and len(args) == 2 and _is_tensor(args[0]):
        return finish(op, aten_step(op, ctx, _INPLACE[name], args))
    if name in _INPLACE and len(args) == 2:
        return _compile_operator(op, ctx, name[1:] if name[1:] in _BINARY else name[1:] + "_", args, kwargs)
    if name in _UNARY and len(args) == 1:
        return finish(op, aten_step(op, ctx, _UNARY[name], args))
    if name == "pos" and len(args) == 1:
        return finish(op, _builder(args[0], ctx.state))
    if name == "getitem" and len(args) == 2:
        return _compile_tensor_getitem(op, ctx, args[0], args[1])
    if name in ("not_", "truth") and len(args) == 1:
        read = _builder(args[0], ctx.state)
        negate = name == "not_"
        return lambda *ops: (truth(read(ops)) != negate,)
    return None


def _python_call(
    op: Operation, ctx: CompileContext, fn: Callable[..., Any], args: list[object], kwargs: dict[str, object]
) -> Prepared:
    """Plain Python semantics (ints, floats, tuples): call `fn` on the values."""
    read_args = _builder(list(args), ctx.state)
    names = list(kwargs)
    read_kwargs = _builder(list(kwargs.values()), ctx.state)
    return lambda *ops: (fn(*read_args(ops), **dict(zip(names, read_kwargs(ops)))),)


# ---------------------------------------------------------------------------
# Tensor indexing (`x[...]`), after torch's applySlicing
# ---------------------------------------------------------------------------

_K = aten_kernels.KERNELS


def index_tensor(x: np.ndarray, index: object) -> np.ndarray:
    """
    `x[index]` as torch computes it: ints select, slices slice, `None` and
    `True`/`False` insert a dimension, `...` skips dimensions, and tensor (or
    nested sequence) indices are gathered by `aten.index` at the end. A Python
    list at the top level is the tuple form (one index per dimension).
    """
    items = list(cast(list[object], index)) if isinstance(index, list) else [index]
    items = [np.asarray(i) if isinstance(i, list) else i for i in items]
    specified = 0
    for it in items:
        if isinstance(it, np.ndarray):
            specified += it.ndim if it.dtype in (np.bool_, np.uint8) else 1
        elif it is not None and it is not Ellipsis and not isinstance(it, bool):
            specified += 1
    if specified > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    result = x
    dim = 0
    out: list[np.ndarray | None] = []

    def record(t: np.ndarray) -> None:
        nonlocal dim
        if not out:
            out.extend([None] * dim)
        out.append(t)
        dim += t.ndim if t.dtype in (np.bool_, np.uint8) else 1

    def pad(n: int) -> None:
        if out:
            out.extend([None] * n)

    for real_dim, it in enumerate(items):
        if isinstance(it, np.ndarray) and it.ndim == 0 and it.dtype.kind in "iu" and it.dtype != np.uint8:
            it = int(it)
        if isinstance(it, bool) or (isinstance(it, np.ndarray) and it.ndim == 0 and it.dtype in (np.bool_, np.uint8)):
            result = _K["aten.unsqueeze.default"](result, dim)
            record(np.zeros((1,), np.int64) if bool(it) else np.zeros((0,), np.int64))
        elif isinstance(it, int | np.integer):
            size = result.shape[dim]
            if not -size <= int(it) < size:
                raise IndexError(f"index {int(it)} is out of bounds for dimension {real_dim} with size {size}")
            result = _K["aten.select.int"](result, dim, int(it))
        elif isinstance(it, slice):
            start, stop, step = it.start, it.stop, 1 if it.step is None else it.step
            if step <= 0:
                raise ValueError("step must be greater than zero")
            if not ((start is None or start == 0) and (stop is None or stop >= result.shape[dim]) and step == 1):
                result = _K["aten.slice.Tensor"](result, dim, start, stop, step)
            dim += 1
            pad(1)
        elif it is Ellipsis:
            skip = x.ndim - specified
            dim += skip
            pad(skip)
        elif it is None:
            result = _K["aten.unsqueeze.default"](result, dim)
            dim += 1
            pad(1)
        elif isinstance(it, np.ndarray):
            record(it)
        else:
            raise TypeError(f"a tensor cannot be indexed with {type(it).__name__}")
    if out:
        while out and out[-1] is None:
            out.pop()
        return _K["aten.index.Tensor"](result, out)
    if result is x:
        return _K["aten.alias.default"](x)
    return result


def _compile_tensor_getitem(op: Operation, ctx: CompileContext, container: object, index: object) -> Prepared:
    read_x = _builder(container, ctx.state)
    read_index = _builder(index, ctx.state)
    return finish(op, lambda env: index_tensor(read_x(env), read_index(env)))


# ---------------------------------------------------------------------------
# Tensor attributes and Python-level methods
# ---------------------------------------------------------------------------


def _dtype_of(value: Any, t: Attribute) -> DType:
    if isinstance(t, TensorType):
        return t.element_dtype
    return aten_kernels.dtype_of(value)


def _compile_getattr(op: Operation, ctx: CompileContext, args: list[object], kwargs: dict[str, object]) -> Prepared:
    if len(args) not in (2, 3) or kwargs or not isinstance(args[1], str):
        raise InterpreterError("getattr takes an object and a constant attribute name", op)
    obj, name = args[0], cast(str, args[1])
    read = _builder(obj, ctx.state)
    if not _is_tensor(obj):
        if len(args) == 3:
            default = _builder(args[2], ctx.state)
            return lambda *ops: (getattr(read(ops), name, default(ops)),)
        if name in ("values", "indices"):
            position = 0 if name == "values" else 1  # torch.return_types tuples carried as tuples
            return lambda *ops: (read(ops)[position],)
        return lambda *ops: (getattr(read(ops), name),)
    t = cast(Typed, obj).type
    attrs: dict[str, Callable[[Any], Any]] = {
        "shape": lambda v: tuple(int(s) for s in v.shape),
        "ndim": lambda v: int(v.ndim),
        "dtype": lambda v: _dtype_of(v, t),
        "device": lambda v: DeviceAttr("cpu"),
        "is_cuda": lambda v: False,
        "requires_grad": lambda v: False,
        "is_leaf": lambda v: True,
        "data": lambda v: v,
        "T": lambda v: _K["aten.permute.default"](v, list(reversed(range(v.ndim)))),
        "mT": lambda v: _K["aten.transpose.int"](v, -2, -1),
    }
    if name not in attrs:
        raise InterpreterError(f"the tensor attribute '{name}' is not supported", op)
    fn = attrs[name]
    return finish(op, lambda env: fn(read(env)))


_TO_DTYPE: dict[str, DType] = {
    "float": DType.float32, "double": DType.float64, "half": DType.float16, "bfloat16": DType.bfloat16,
    "int": DType.int32, "long": DType.int64, "short": DType.int16, "char": DType.int8, "byte": DType.uint8,
    "bool": DType.bool, "cfloat": DType.complex64, "cdouble": DType.complex128,
}


def _size(v: np.ndarray, dim: int | None = None) -> object:
    if dim is None:
        return tuple(int(s) for s in v.shape)
    if not -max(v.ndim, 1) <= dim < max(v.ndim, 1):
        raise IndexError(f"dimension {dim} is out of range for a tensor of {v.ndim} dimensions")
    return int(v.shape[dim])


_METADATA_METHODS: dict[str, Callable[..., Any]] = {
    "size": _size,
    "dim": lambda v: int(v.ndim),
    "ndimension": lambda v: int(v.ndim),
    "numel": lambda v: int(v.size),
    "nelement": lambda v: int(v.size),
    "item": lambda v: _item(v),
    "tolist": lambda v: v.tolist(),
    "is_contiguous": lambda v, memory_format=None: True,
    "is_floating_point": lambda v: v.dtype.kind == "f",
    "is_complex": lambda v: v.dtype.kind == "c",
    "get_device": lambda v: -1,
    "cpu": lambda v: v,
    "element_size": lambda v: int(v.itemsize),
}
"""Methods that read tensor metadata or leave ATen (their results are Python values)."""


def _item(v: np.ndarray) -> object:
    if v.size != 1:
        raise ValueError(f"a tensor with {v.size} elements cannot be converted to a Python scalar")
    return v.reshape(()).item()


def compile_method(op: Operation, ctx: CompileContext, name: str, args: list[object], kwargs: dict[str, object]) -> Prepared:
    """`args[0].<name>(*args[1:], **kwargs)` on a tensor (or a Python value)."""
    if not args:
        raise InterpreterError(f"method '{name}' called on nothing", op)
    self_value = args[0]
    if not _is_tensor(self_value):
        read = _builder(args, ctx.state)
        names = list(kwargs)
        read_kw = _builder(list(kwargs.values()), ctx.state)
        return lambda *ops: (getattr((v := read(ops))[0], name)(*v[1:], **dict(zip(names, read_kw(ops)))),)
    if name in _METADATA_METHODS:
        fn = _METADATA_METHODS[name]
        read = _builder(args, ctx.state)
        names = list(kwargs)
        read_kw = _builder(list(kwargs.values()), ctx.state)
        return finish(op, lambda env: fn(*read(env), **dict(zip(names, read_kw(env)))))
    if name in _TO_DTYPE and len(args) == 1:
        return finish(op, aten_step(op, ctx, "to", [self_value, _TO_DTYPE[name]], kwargs))
    if name == "type" and len(args) == 2 and isinstance(args[1], DType):
        return finish(op, aten_step(op, ctx, "to", args, kwargs))
    if name in ("view_as", "reshape_as") and len(args) == 2 and not kwargs:
        shape_of = _builder(args[1], ctx.state)
        target = aten_step(op, ctx, name.removesuffix("_as"), [self_value, Typed(ListType(IntType()), 1)])
        read = _builder(self_value, ctx.state)
        return finish(op, lambda env: target((read(env), list(shape_of(env).shape))))
    if name == "cuda":
        raise InterpreterError("the interpreter runs on the CPU; x.cuda() is not supported", op)
    if name == "__getitem__" and len(args) == 2:
        return _compile_tensor_getitem(op, ctx, args[0], args[1])
    if not candidates(f"aten::{name}") and not candidates(f"aten::{name.removesuffix('_')}"):
        raise InterpreterError(f"the tensor method '{name}' is not supported (no aten::{name} operator)", op)
    return finish(op, aten_step(op, ctx, name, args, kwargs))


# ---------------------------------------------------------------------------
# exir.call_function with a Python target
# ---------------------------------------------------------------------------

_TORCH_PREFIXES = ("torch._C._nn.", "torch._C._fft.", "torch._C._linalg.", "torch._C._special.",
                   "torch._C._VariableFunctions.", "torch.Tensor.", "torch.nn.functional.", "torch.")

_F_DIRECT = frozenset(f"torch.nn.functional.{n}" for n in ("sigmoid", "tanh"))
"""`torch.nn.functional` wrappers that only forward to the ATen operator of their name."""

_PYTHON_BUILTINS: dict[str, Callable[..., Any]] = {
    "builtins.len": len,
    "builtins.int": int,
    "builtins.float": float,
    "builtins.bool": bool,
    "builtins.max": max,
    "builtins.min": min,
    "builtins.round": round,
    "builtins.tuple": tuple,
    "builtins.list": list,
    "builtins.slice": slice,
    "builtins.isinstance": isinstance,
}


def python_targets() -> list[str]:
    """The call_function targets with a specific implementation (others go by name)."""
    return sorted(
        [f"operator.{n}" for n in (*_BINARY, *_INPLACE, *_UNARY, "getitem", "pos", "not_", "truth")]
        + list(_FUNCTIONAL)
        + list(_PYTHON_BUILTINS)
        + ["builtins.getattr", "builtins.abs", "torch.functional.einsum"]
    )


def compile_python_call(op: Operation, ctx: CompileContext) -> Prepared:
    """Prepare an `exir.call_function` of a Python callable (anything but `aten.*`)."""
    target = cast(CallFunctionOp, op).target.data
    if target.startswith("_operator."):
        target = "operator." + target[len("_operator."):]
    args, kwargs = decode_typed(op)
    if target.startswith("operator."):
        prepared = _compile_operator(op, ctx, target[len("operator."):], args, kwargs)
        if prepared is None:
            raise InterpreterError(f"the interpreter has no implementation of the operator '{target}' for these arguments", op)
        return prepared
    if target == "builtins.getattr":
        return _compile_getattr(op, ctx, args, kwargs)
    if target == "builtins.abs" and args and _is_tensor(args[0]):
        return finish(op, aten_step(op, ctx, "abs", args, kwargs))
    if target in _PYTHON_BUILTINS or target == "builtins.abs":
        fn = _PYTHON_BUILTINS.get(target, builtins.abs)
        if any(_is_tensor(a) for a in args):
            raise InterpreterError(f"'{target}' of a tensor is not supported", op)
        return _python_call(op, ctx, fn, args, kwargs)
    if target.startswith("math.") and hasattr(math, target[5:]) and not any(_is_tensor(a) for a in args):
        return _python_call(op, ctx, getattr(math, target[5:]), args, kwargs)
    if target in _FUNCTIONAL:
        params, impl = _FUNCTIONAL[target]
        bound = bind_python(op, target, params, args, kwargs)
        return finish(op, impl(op, ctx, bound))
    if target == "torch.functional.einsum":
        return finish(op, _einsum(op, ctx, args, kwargs))
    if target.startswith(("torch.functional.", "torch.nn.functional.")) and target not in _F_DIRECT:
        # Python wrappers whose signatures need not be ATen's (F.instance_norm
        # orders its arguments differently): only the tabled ones are safe
        raise InterpreterError(f"the interpreter has no implementation of the operator '{target}'", op)
    for prefix in _TORCH_PREFIXES:
        if target.startswith(prefix):
            base = target[len(prefix):]
            if "." in base or not candidates(f"aten::{base}"):
                break
            if prefix == "torch.Tensor.":
                return compile_method(op, ctx, base, args, kwargs)
            return finish(op, aten_step(op, ctx, base, args, kwargs))
    raise InterpreterError(f"the interpreter has no implementation of the operator '{target}'", op)


# ---------------------------------------------------------------------------
# Leaf modules
# ---------------------------------------------------------------------------


@dataclass
class ModuleView:
    """What a module implementation sees: config, state placeholders and the input."""

    op: CallModuleOp
    ctx: CompileContext
    config: dict[str, Any]
    args: list[object]
    kwargs: dict[str, object]

    @property
    def where(self) -> str:
        return f"module '{self.op.target.data}' ({self.op.module_class.data.rsplit('.', 1)[-1]})"

    def get(self, key: str, default: object = None) -> Any:
        return self.config.get(key, default)

    def require(self, key: str) -> Any:
        if key not in self.config:
            raise InterpreterError(f"{self.where} has no '{key}' in its recorded configuration", self.op)
        return self.config[key]

    def state(self, local: str) -> Typed | None:
        """The placeholder of the module's parameter or buffer `local`, None if it has none."""
        if local not in {s.data for s in self.op.state.data}:
            return None
        name = f"{self.op.target.data}.{local}"
        if name not in self.ctx.state:
            raise InterpreterError(f"{self.where} needs @{name}, which has no data", self.op)
        return Typed(_state_type(self.ctx, name), _StateKey(name))

    def input(self) -> object:
        if self.args:
            return self.args[0]
        if "input" in self.kwargs:
            return self.kwargs["input"]
        raise InterpreterError(f"{self.where} is called without an input", self.op)

    def only_input(self) -> object:
        if len(self.args) + len(self.kwargs) != 1:
            raise InterpreterError(f"{self.where} takes one input", self.op)
        return self.input()


def _state_type(ctx: CompileContext, name: str) -> Attribute:
    if ctx.program is not None:
        state_op = ctx.program.state().get(name)
        if state_op is not None:
            return state_op.state_type
    value = ctx.state[name]
    if isinstance(value, np.ndarray):
        return TensorType(value.shape, aten_kernels.dtype_of(value))
    return FloatType() if isinstance(value, float) else IntType()


ModuleImpl = Callable[[ModuleView], Step]
_MODULES: dict[str, ModuleImpl] = {}


def _module(*class_names: str) -> Callable[[ModuleImpl], ModuleImpl]:
    def register(fn: ModuleImpl) -> ModuleImpl:
        for name in class_names:
            _MODULES[name] = fn
        return fn

    return register


def module_classes() -> list[str]:
    """The leaf module classes `fx.call_module` can run."""
    return sorted(_MODULES)


_NN = "torch.nn.modules."


@_module(f"{_NN}linear.Identity")
def _identity(m: ModuleView) -> Step:
    return _builder(m.input(), m.ctx.state)


@_module(f"{_NN}linear.Linear")
def _linear(m: ModuleView) -> Step:
    return aten_step(m.op, m.ctx, "linear", [m.only_input(), m.state("weight"), m.state("bias")])


@_module(f"{_NN}conv.Conv1d", f"{_NN}conv.Conv2d", f"{_NN}conv.Conv3d")
def _conv(m: ModuleView) -> Step:
    x = m.only_input()
    n = len(m.require("kernel_size"))
    weight, bias = m.state("weight"), m.state("bias")
    stride, padding, dilation, groups = m.require("stride"), m.require("padding"), m.require("dilation"), m.require("groups")
    mode = m.get("padding_mode", "zeros")
    if mode != "zeros":
        if isinstance(padding, str):
            raise InterpreterError(f"{m.where}: padding '{padding}' with padding_mode '{mode}' is not supported", m.op)
        pads = [p for p in reversed(padding) for _ in (0, 1)]
        pad = aten_step(m.op, m.ctx, "pad", [x, pads, mode])
        conv = aten_step(m.op, m.ctx, "convolution", [Typed(_type_of(x), 0), weight, bias, stride, [0] * n, dilation, False, [0] * n, groups])
        return _then(pad, conv)
    if isinstance(padding, str):
        return aten_step(m.op, m.ctx, f"conv{n}d", [x, weight, bias, stride, padding, dilation, groups])
    return aten_step(m.op, m.ctx, "convolution", [x, weight, bias, stride, padding, dilation, False, [0] * n, groups])


@_module(f"{_NN}conv.ConvTranspose1d", f"{_NN}conv.ConvTranspose2d", f"{_NN}conv.ConvTranspose3d")
def _conv_transpose(m: ModuleView) -> Step:
    if len(m.args) + len(m.kwargs) != 1:
        raise InterpreterError(f"{m.where}: an explicit output_size is not supported", m.op)
    if m.get("padding_mode", "zeros") != "zeros":
        raise InterpreterError(f"{m.where}: only zero padding is supported", m.op)
    return aten_step(
        m.op, m.ctx, "convolution",
        [m.input(), m.state("weight"), m.state("bias"), m.require("stride"), m.require("padding"),
         m.require("dilation"), True, m.require("output_padding"), m.require("groups")],
    )


@_module(f"{_NN}batchnorm.BatchNorm1d", f"{_NN}batchnorm.BatchNorm2d", f"{_NN}batchnorm.BatchNorm3d")
def _batch_norm(m: ModuleView) -> Step:
    """`_BatchNorm.forward`: batch statistics in training mode (updating the running ones) or without them."""
    x = m.only_input()
    weight, bias = m.state("weight"), m.state("bias")
    mean, var = m.state("running_mean"), m.state("running_var")
    training = bool(m.require("training"))
    tracking = bool(m.get("track_running_stats", True)) and mean is not None and var is not None
    use_batch_stats = training or not tracking
    momentum = m.get("momentum", 0.1)
    count = m.state("num_batches_tracked")
    if not (training and tracking):
        return aten_step(
            m.op, m.ctx, "batch_norm",
            [x, weight, bias, mean if tracking else None, var if tracking else None, use_batch_stats,
             0.0 if momentum is None else momentum, m.require("eps"), True],
        )
    if count is None and momentum is None:
        raise InterpreterError(f"{m.where}: cumulative averaging (momentum=None) needs num_batches_tracked", m.op)
    factor = Typed(FloatType(), 1)
    norm = aten_step(m.op, m.ctx, "batch_norm", [Typed(_type_of(x), 0), weight, bias, mean, var, True, factor, m.require("eps"), True])
    read_x = _builder(x, m.ctx.state)
    state = m.ctx.state
    count_name = cast(_StateKey, count.key).name if count is not None else None

    def step(env: Env) -> Any:
        if count_name is not None:
            counter = state[count_name]
            counter += 1  # in place: the state array itself
        f = 1.0 / float(np.asarray(state[cast(str, count_name)]).reshape(-1)[0]) if momentum is None else float(momentum)
        return norm((read_x(env), f))

    return step


@_module(f"{_NN}normalization.LayerNorm")
def _layer_norm(m: ModuleView) -> Step:
    return aten_step(
        m.op, m.ctx, "layer_norm",
        [m.only_input(), m.require("normalized_shape"), m.state("weight"), m.state("bias"), m.require("eps")],
    )


@_module(f"{_NN}normalization.GroupNorm")
def _group_norm(m: ModuleView) -> Step:
    return aten_step(
        m.op, m.ctx, "group_norm",
        [m.only_input(), m.require("num_groups"), m.state("weight"), m.state("bias"), m.require("eps")],
    )


@_module(f"{_NN}sparse.Embedding")
def _embedding(m: ModuleView) -> Step:
    if m.get("max_norm") is not None:
        raise InterpreterError(f"{m.where}: max_norm renormalizes the weight in place; not supported", m.op)
    padding_idx = m.get("padding_idx")
    return aten_step(
        m.op, m.ctx, "embedding",
        [m.state("weight"), m.only_input(), -1 if padding_idx is None else padding_idx,
         m.get("scale_grad_by_freq", False), m.get("sparse", False)],
    )


def _simple_activation(class_name: str, base: str, *config: tuple[str, object]) -> None:
    def impl(m: ModuleView) -> Step:
        values = [m.get(k, d) for k, d in config]
        return aten_step(m.op, m.ctx, _inplace(base, m.get("inplace", False), m.op), [m.only_input(), *values])

    _MODULES[f"{_NN}activation.{class_name}"] = impl


for _cls, _base, _cfg in (
    ("ReLU", "relu", ()),
    ("LeakyReLU", "leaky_relu", (("negative_slope", 0.01),)),
    ("Hardtanh", "hardtanh", (("min_val", -1.0), ("max_val", 1.0))),
    ("ReLU6", "hardtanh", (("min_val", 0.0), ("max_val", 6.0))),
    ("ELU", "elu", (("alpha", 1.0),)),
    ("CELU", "celu", (("alpha", 1.0),)),
    ("SELU", "selu", ()),
    ("SiLU", "silu", ()),
    ("Mish", "mish", ()),
    ("Hardswish", "hardswish", ()),
    ("Hardsigmoid", "hardsigmoid", ()),
    ("Sigmoid", "sigmoid", ()),
    ("Tanh", "tanh", ()),
    ("Softplus", "softplus", (("beta", 1.0), ("threshold", 20.0))),
):
    _simple_activation(_cls, _base, *_cfg)


@_module(f"{_NN}activation.GELU")
def _gelu(m: ModuleView) -> Step:
    return aten_step(m.op, m.ctx, "gelu", [m.only_input()], {"approximate": m.get("approximate", "none")})


def _softmax_module(base: str) -> ModuleImpl:
    def impl(m: ModuleView) -> Step:
        x = m.only_input()
        dim = m.get("dim")
        if dim is None:
            dim = _legacy_softmax_dim(_type_of(x))
        return aten_step(m.op, m.ctx, base, [x, dim])

    return impl


_MODULES[f"{_NN}activation.Softmax"] = _softmax_module("softmax")
_MODULES[f"{_NN}activation.LogSoftmax"] = _softmax_module("log_softmax")


@_module(f"{_NN}pooling.MaxPool1d", f"{_NN}pooling.MaxPool2d")
def _max_pool_module(m: ModuleView) -> Step:
    n = 1 if m.op.module_class.data.endswith("1d") else 2
    kernel = m.require("kernel_size")
    stride = m.get("stride") if m.get("stride") not in (None, []) else kernel
    return max_pool_step(
        m.op, m.ctx, n, m.only_input(), kernel, stride, m.get("padding", 0), m.get("dilation", 1),
        m.get("ceil_mode", False), bool(m.get("return_indices", False)),
    )


@_module(f"{_NN}pooling.AvgPool1d", f"{_NN}pooling.AvgPool2d")
def _avg_pool_module(m: ModuleView) -> Step:
    n = 1 if m.op.module_class.data.endswith("1d") else 2
    kernel = m.require("kernel_size")
    stride = m.get("stride") if m.get("stride") not in (None, []) else kernel
    args = [m.only_input(), kernel, stride, m.get("padding", 0), m.get("ceil_mode", False), m.get("count_include_pad", True)]
    if n == 2:
        args.append(m.get("divisor_override"))
    return aten_step(m.op, m.ctx, f"avg_pool{n}d", args)


@_module(f"{_NN}pooling.AdaptiveAvgPool1d", f"{_NN}pooling.AdaptiveAvgPool2d")
def _adaptive_avg_pool_module(m: ModuleView) -> Step:
    n = 1 if m.op.module_class.data.endswith("1d") else 2
    return adaptive_avg_pool_step(m.op, m.ctx, n, m.only_input(), m.require("output_size"))


@_module(f"{_NN}flatten.Flatten")
def _flatten(m: ModuleView) -> Step:
    return aten_step(m.op, m.ctx, "flatten", [m.only_input(), m.get("start_dim", 1), m.get("end_dim", -1)])


@_module(f"{_NN}flatten.Unflatten")
def _unflatten(m: ModuleView) -> Step:
    return aten_step(m.op, m.ctx, "unflatten", [m.only_input(), m.require("dim"), m.require("unflattened_size")])


@_module(f"{_NN}dropout.Dropout", f"{_NN}dropout.Dropout1d", f"{_NN}dropout.Dropout2d",
         f"{_NN}dropout.Dropout3d", f"{_NN}dropout.AlphaDropout", f"{_NN}dropout.FeatureAlphaDropout")
def _dropout_module(m: ModuleView) -> Step:
    x = m.only_input()
    if not m.require("training"):
        return _builder(x, m.ctx.state)
    if not m.op.module_class.data.endswith(".Dropout"):
        raise InterpreterError(f"{m.where} in training mode is not supported", m.op)
    return aten_step(m.op, m.ctx, _inplace("dropout", m.get("inplace", False), m.op), [x, m.require("p"), True])


# ---------------------------------------------------------------------------
# Op registrations
# ---------------------------------------------------------------------------


@register_op(CallModuleOp)
def compile_call_module(op: Operation, ctx: CompileContext) -> Prepared:
    call = cast(CallModuleOp, op)
    impl = _MODULES.get(call.module_class.data)
    if impl is None:
        raise InterpreterError(
            f"the interpreter cannot run module '{call.target.data}' of class {call.module_class.data}", op
        )
    args, kwargs = decode_typed(op)
    view = ModuleView(call, ctx, call.get_config(), args, kwargs)
    return finish(op, impl(view))


@register_op(CallMethodOp)
def compile_call_method(op: Operation, ctx: CompileContext) -> Prepared:
    args, kwargs = decode_typed(op)
    return compile_method(op, ctx, cast(CallMethodOp, op).target.data, args, kwargs)


@register_op(GetAttrOp)
def compile_fx_get_attr(op: Operation, ctx: CompileContext) -> Prepared:
    name = cast(GetAttrOp, op).state_name
    if name not in ctx.state:
        raise InterpreterError(f"get_attr reads @{name}, which has no data in the program state", op)
    state = ctx.state
    return lambda: (state[name],)


@register_op(SliceOp)
def compile_slice(op: Operation, ctx: CompileContext) -> Prepared:
    args, _ = decode_typed(op)
    read = _builder(args, ctx.state)
    return lambda *ops: (slice(*read(ops)),)


@register_op(EllipsisOp)
def compile_ellipsis(op: Operation, ctx: CompileContext) -> Prepared:
    return lambda: (Ellipsis,)


