"""
Result-type inference for the `aten` dialect, the FakeTensor computation of
torch done on `exir` types: shapes may be sympy expressions, dtypes follow
PyTorch's type promotion, devices follow the first tensor argument.

This module holds what the rules share (type promotion, symbolic sizes; the
argument binding comes from the dialect's `aten_binding`) and the registry;
the rules live in the family modules beside it (the families of
`docs/architecture.md`, "Operator families") and are registered by full overload
name (`aten.add.Tensor`); one rule serves every overload listed with it.
Mutating overloads need no rule: an in-place or `out=` result has the type of
the argument it aliases (in-place *view* ops, `squeeze_` and friends, use the
functional rule instead since they change the metadata of `self`).

Nothing here imports torch.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Mapping, Sequence
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, StringAttr
from xdsl.ir import Attribute, SSAValue

from xdsl_exir.dialects.aten_binding import (
    BindError,
    Bound,
    InferenceError,
    NoInference,
    argument_value,
    as_dtype,
    as_list,
    as_size,
    bind_arguments,
    describe_value,
    normalize_size,
    tensor_type,
)
from xdsl_exir.dialects.exir import (
    BoolType,
    DType,
    DTypeAttr,
    FloatType,
    IntType,
    ListType,
    MemoryFormat,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymShapeAttr,
    TensorType,
    TupleType,
)
from xdsl_exir.utils import dtypes as lattice
from xdsl_exir.utils import symbolic
from xdsl_exir.utils.broadcast import BroadcastError, UndecidedBroadcast
from xdsl_exir.utils.broadcast import broadcast_shapes as shared_broadcast
from xdsl_exir.utils.dtypes import Category, Priority, PromotionError
from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.op_registry import custom_operator, functional_variant, lookup
from xdsl_exir.utils.symbolic import SymSize, make_symbol, sympy

__all__ = [  # what the rules share: the family modules import it from here, never from each other
    "BindError",
    "Bound",
    "InferenceError",
    "NONE_REDUCTION",
    "NoInference",
    "RULES",
    "Rule",
    "add",
    "argument_value",
    "as_dtype",
    "as_list",
    "as_size",
    "as_sympy",
    "bind_arguments",
    "broadcast_shapes",
    "ceildiv",
    "describe_value",
    "device_of",
    "dim_order_of",
    "dims_arg",
    "factory_type",
    "floordiv",
    "has_inference",
    "infer_bound",
    "infer_minus_one",
    "infer_result_types",
    "list_type",
    "make_tensor",
    "mul",
    "normalize_size",
    "number_value",
    "numel_of",
    "pointwise_type",
    "pool_out",
    "promote_types",
    "reduced_shape",
    "result_type",
    "rule",
    "rule_of",
    "same_as_self",
    "scalar_dtype",
    "size_is",
    "spatial_arg",
    "sum_dtype",
    "sym_max",
    "sym_min",
    "tensor_type",
    "unbacked_symbol",
    "wrap_dim",
]


# ---------------------------------------------------------------------------
# Cheap type construction
# ---------------------------------------------------------------------------

_DTYPE_ATTRS: dict[DType, DTypeAttr] = {}
_DEVICES: dict[str, StringAttr] = {}
_EMPTY_ORDER: ArrayAttr[Attribute] = ArrayAttr(())


_TENSOR_CACHE: dict[tuple[tuple[SymSize, ...], DType, str], TensorType] = {}
_TENSOR_CACHE_LIMIT = 1 << 16


def make_tensor(
    shape: Sequence[SymSize],
    dtype: DType,
    device: str = "cpu",
    dim_order: Sequence[int] | None = None,
) -> TensorType:
    """
    A TensorType, memoized: graphs repeat a few shapes many times, and building
    (and verifying) the attribute is most of the cost of inference.
    """
    sizes = tuple(normalize_size(s) for s in shape)
    if dim_order is not None and list(dim_order) != list(range(len(sizes))):
        return TensorType(sizes, dtype, device, dim_order)
    key = (sizes, dtype, device)
    cached = _TENSOR_CACHE.get(key)
    if cached is not None:
        return cached
    for s in sizes:
        if type(s) is int and s < 0:
            raise InferenceError(f"negative size {s} in inferred shape {list(sizes)}")
    dattr = _DTYPE_ATTRS.get(dtype)
    if dattr is None:
        dattr = _DTYPE_ATTRS[dtype] = DTypeAttr(dtype)
    dev = _DEVICES.get(device)
    if dev is None:
        dev = _DEVICES[device] = StringAttr(device)
    t = TensorType.new((SymShapeAttr(sizes), dattr, dev, _EMPTY_ORDER))
    if len(_TENSOR_CACHE) < _TENSOR_CACHE_LIMIT:
        _TENSOR_CACHE[key] = t
    return t


# ---------------------------------------------------------------------------
# dtypes and type promotion
# ---------------------------------------------------------------------------

def promote_types(a: DType, b: DType) -> DType:
    """`torch.promote_types` by the core's lattice; dtypes torch refuses to promote are an `InferenceError`."""
    try:
        return lattice.promote_types(a, b)
    except PromotionError as e:
        raise InferenceError(str(e)) from None


def scalar_dtype(value: object) -> DType | None:
    """The dtype a Python number or symbolic scalar takes part in promotion as."""
    value = argument_value(value)
    if isinstance(value, SSAValue):
        t = value.type
        if isinstance(t, SymBoolType | BoolType):
            return DType.bool
        if isinstance(t, SymIntType | IntType):
            return DType.int64
        if isinstance(t, SymFloatType | FloatType):
            return DType.float64
        return None
    return lattice.scalar_dtype(value)


def result_type(operands: Sequence[object]) -> DType:
    """
    `torch.result_type` over tensor values and scalars (Python numbers and
    symbolic ones), by the core's lattice (`DType` promotion): a tensor's
    priority is dimensioned or 0-d by its rank, a scalar is a wrapped number.
    """
    keyed: list[tuple[DType, Priority]] = []
    for v in operands:
        v = argument_value(v)
        if v is None:
            continue
        if isinstance(v, SSAValue) and isinstance(v.type, TensorType):
            keyed.append((v.type.element_dtype, Priority.DIMENSIONED if v.type.rank else Priority.ZERO_DIM))
            continue
        d = scalar_dtype(v)
        if d is None:
            raise InferenceError(f"{describe_value(v)} cannot take part in type promotion")
        keyed.append((d, Priority.WRAPPED))
    try:
        return lattice.result_type(keyed)
    except PromotionError as e:
        raise InferenceError(str(e)) from None


# ---------------------------------------------------------------------------
# Shape helpers
# ---------------------------------------------------------------------------


def as_sympy(v: SymSize) -> sympy.Expr:
    return sympy.Integer(v) if isinstance(v, int) else v


def floordiv(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return normalize_size(symbolic.floordiv(as_sympy(a), as_sympy(b)))


def ceildiv(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return normalize_size(symbolic.ceildiv(as_sympy(a), as_sympy(b)))


def add(*values: SymSize) -> SymSize:
    if all(type(v) is int for v in values):
        return sum(cast(Sequence[int], values))
    return normalize_size(sympy.Add(*(as_sympy(v) for v in values)))


def mul(*values: SymSize) -> SymSize:
    if all(type(v) is int for v in values):
        return math.prod(cast(Sequence[int], values))
    return normalize_size(sympy.Mul(*(as_sympy(v) for v in values)))


def sym_max(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return normalize_size(sympy.Max(as_sympy(a), as_sympy(b)))


def sym_min(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return normalize_size(sympy.Min(as_sympy(a), as_sympy(b)))


def size_is(value: SymSize, n: int) -> bool:
    """`value == n` without sympy's slow comparison of an expression with an int."""
    return type(value) is int and value == n


def wrap_dim(dim: int, rank: int) -> int:
    """Negative dims count from the end; a 0-d tensor accepts dims 0 and -1."""
    r = max(rank, 1)
    if not -r <= dim < r:
        raise InferenceError(f"dimension {dim} out of range for a {rank}-d tensor")
    return dim % r


def broadcast_shapes(*shapes: Sequence[SymSize]) -> list[SymSize]:
    """The core's symbolic broadcast (`utils/broadcast.py`), its refusals as inference errors."""
    try:
        return shared_broadcast(*shapes)
    except BroadcastError as e:
        raise InferenceError(str(e)) from None
    except UndecidedBroadcast as e:
        raise NoInference(str(e)) from None


def device_of(tensors: Sequence[TensorType]) -> str:
    for t in tensors:
        if t.rank:
            return t.device.data
    return tensors[0].device.data if tensors else "cpu"


_unbacked = itertools.count()


def unbacked_symbol() -> sympy.Symbol:
    """A fresh data-dependent size, named `u<n>` as torch names them."""
    return make_symbol(f"u{next(_unbacked)}")


def numel_of(shape: Sequence[SymSize]) -> SymSize:
    return mul(*shape) if shape else 1


def infer_minus_one(sizes: Sequence[SymSize], numel: SymSize) -> list[SymSize]:
    """Resolve one `-1` in a view size from the element count."""
    sizes = list(sizes)
    holes = [i for i, s in enumerate(sizes) if size_is(s, -1)]
    if len(holes) > 1:
        raise InferenceError("only one dimension can be inferred (-1)")
    known = numel_of([s for s in sizes if not size_is(s, -1)])
    if holes:
        if isinstance(numel, int) and isinstance(known, int):
            if known == 0 or numel % known:
                raise InferenceError(f"shape {sizes} is invalid for {numel} elements")
            sizes[holes[0]] = numel // known
        elif isinstance(known, int) and known != 0 and (
            (split := numel.as_coeff_Mul())[0].is_Integer  # pyright: ignore[reportAttributeAccessIssue] - numel is symbolic here: the int case is the branch above
            and int(split[0]) % known == 0
        ):
            # The common case `[k*s0, ...] -> [-1, m]`: divide the coefficient.
            sizes[holes[0]] = normalize_size(sympy.Integer(int(split[0]) // known) * split[1])
        else:
            q = sympy.cancel(as_sympy(numel) / as_sympy(known))
            num, den = sympy.fraction(q)
            sizes[holes[0]] = normalize_size(num) if den == 1 else floordiv(numel, known)
    elif isinstance(numel, int) and isinstance(known, int) and numel != known:
        raise InferenceError(f"shape {sizes} is invalid for {numel} elements")
    return sizes


# ---------------------------------------------------------------------------
# Helpers the family modules share
# ---------------------------------------------------------------------------


def pointwise_type(
    b: Bound, names: Sequence[str], promote: Sequence[str] | None = None
) -> tuple[list[SymSize], DType, str]:
    """Broadcast the tensor arguments among `names`; promote those in `promote`."""
    tensors: list[TensorType] = []
    for n in names:
        v = argument_value(b.get(n))
        if isinstance(v, SSAValue) and isinstance(v.type, TensorType):
            tensors.append(v.type)
    shape = broadcast_shapes(*(t.sizes for t in tensors))
    dtype = result_type([b[n] for n in (names if promote is None else promote)])
    return shape, dtype, device_of(tensors)


_MEMORY_FORMAT_CODES = {
    0: MemoryFormat.contiguous_format,
    1: MemoryFormat.preserve_format,
    2: MemoryFormat.channels_last,
    3: MemoryFormat.channels_last_3d,
}


def dim_order_of(fmt: object, self_type: TensorType | None, rank: int) -> list[int] | None:
    if isinstance(fmt, int) and not isinstance(fmt, bool):
        fmt = _MEMORY_FORMAT_CODES.get(fmt)
    if fmt is MemoryFormat.channels_last and rank == 4:
        return [0, 2, 3, 1]
    if fmt is MemoryFormat.channels_last_3d and rank == 5:
        return [0, 2, 3, 4, 1]
    if fmt in (None, MemoryFormat.preserve_format) and self_type is not None:
        order = self_type.get_dim_order()
        return list(order) if len(order) == rank else None
    return None


def reduced_shape(t: TensorType, dims: Sequence[int] | None, keepdim: bool) -> list[SymSize]:
    if dims is None or len(dims) == 0:
        reduced = set(range(t.rank))
    else:
        reduced = {wrap_dim(d, t.rank) for d in dims}
    if keepdim:
        return [1 if i in reduced else s for i, s in enumerate(t.sizes)]
    return [s for i, s in enumerate(t.sizes) if i not in reduced]


def dims_arg(b: Bound, name: str = "dim") -> list[int] | None:
    value = b.get(name)
    if value is None:
        return None
    if isinstance(value, int):
        return [value]
    return b.ints(name)


def sum_dtype(t: TensorType, dtype: DType | None) -> DType:
    if dtype is not None:
        return dtype
    return DType.int64 if t.element_dtype.category < Category.FLOATING else t.element_dtype


def factory_type(b: Bound, shape: Sequence[SymSize], default: DType) -> Attribute:
    dtype = b.dtype("dtype") or default
    device = b.device("device") or "cpu"
    order = dim_order_of(b.get("memory_format"), None, len(shape))
    return make_tensor(shape, dtype, device, order)


def number_value(value: object) -> float | int | sympy.Expr:
    value = argument_value(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, SSAValue):
        t = value.type
        if isinstance(t, SymIntType | SymFloatType) and t.value is not None:
            return t.value
    raise NoInference(f"arange bound {describe_value(value)} is not known")


def pool_out(
    size: SymSize,
    kernel: int,
    stride: int,
    pad: int,
    dilation: int,
    ceil_mode: bool,
) -> SymSize:
    """
    Pooling output size; with ceil_mode the last window must still start
    inside the input or its left padding (torch drops it otherwise). For a
    symbolic size that rule is a minimum: starts j*stride < size + pad allow
    floor((size + pad - 1) / stride) + 1 windows, and as torch keeps pad at
    most half the effective kernel, ceil mode's count exceeds it by one at
    most, which is exactly when torch drops the last window.
    """
    span = add(size, 2 * pad, -dilation * (kernel - 1) - 1)
    if not ceil_mode:
        return add(floordiv(span, stride), 1)
    out = add(floordiv(add(span, stride - 1), stride), 1)
    last_start = mul(add(out, -1), stride)
    limit = add(size, pad)
    if isinstance(last_start, int) and isinstance(limit, int):
        return out - 1 if last_start >= limit else out
    if pad - dilation * (kernel - 1) + stride - 1 <= 0:  # the numerator of `out` is at most that of the bound
        return out
    return sym_min(out, add(floordiv(add(limit, -1), stride), 1))


def spatial_arg(b: Bound, name: str, n: int, default: Sequence[int] | None = None) -> list[int]:
    value = b.get(name)
    if value is None or (isinstance(value, list | tuple) and len(value) == 0):
        if default is None:
            raise InferenceError(f"argument '{name}' is required")
        return list(default)
    return b.ints(name, n)


NONE_REDUCTION = 0


def _first_tensor_name(b: Bound) -> str:
    for a in b.schema.arguments:
        if a.type.is_base("Tensor"):
            return a.name
    raise NoInference("no tensor argument")


def same_as_self(b: Bound) -> Attribute:
    """The rule of an operator whose result has its first tensor argument's type (in the
    memory format asked for, if any); each family registers it for its own operators."""
    t = b.tensor(_first_tensor_name(b))
    fmt = b.get("memory_format")
    if fmt is not None:
        return make_tensor(t.sizes, t.element_dtype, t.device.data, dim_order_of(fmt, t, t.rank))
    return t


# ---------------------------------------------------------------------------
# Rule registry
# ---------------------------------------------------------------------------

Rule = Callable[[Bound], Attribute | Sequence[Attribute]]
RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register a rule for overloads by full IR name (`aten.add.Tensor`); in-place and
    out= variants need none (see `_aliasing_returns`)."""

    def register(fn: Rule) -> Rule:
        for n in names:
            if lookup(n) is None:
                raise ValueError(f"inference rule for unknown overload {n}")
            if n in RULES:
                raise ValueError(f"two inference rules for {n}")
            RULES[n] = fn
        return fn

    return register


_INPLACE_VIEW = frozenset({
    "aten.squeeze_.default", "aten.squeeze_.dim", "aten.squeeze_.dims", "aten.unsqueeze_.default",
    "aten.t_.default", "aten.transpose_.default", "aten.as_strided_.default", "aten.resize_.default",
    "aten.detach_.default", "aten.swapaxes_.default", "aten.swapdims_.default",
})  # fmt: skip
"""In-place ops that change `self`'s metadata: typed by their functional variant's rule."""


def _find_rule(schema: FunctionSchema) -> Rule | None:
    name = schema.op_name
    if name in _INPLACE_VIEW:
        name = functional_variant(name) or name
    found = RULES.get(name)
    if found is None and (custom := custom_operator(name)) is not None and custom.infer is not None:
        return _custom_rule(custom.infer)
    return found


def _custom_rule(infer: Callable[..., object]) -> Rule:
    """A custom operator's `infer(**arguments)`: SSA values given as their types."""

    def typed(v: object) -> object:
        v = argument_value(v)
        if isinstance(v, SSAValue):
            return v.type
        if isinstance(v, list | tuple):
            return [typed(x) for x in cast(Sequence[object], v)]
        return v

    def apply(bound: Bound) -> Attribute | Sequence[Attribute]:
        return cast(Attribute | Sequence[Attribute], infer(**{k: typed(v) for k, v in bound.items()}))

    return apply


def rule_of(op_name: str) -> Rule | None:
    """
    The rule typing `op_name` (a custom operator's `infer` included), None when it
    has none (an in-place or out= variant is typed from its alias annotations):
    for tools that show where an operator's facts live (`scripts/op_card.py`).
    """
    entry = lookup(op_name)
    return None if entry is None else _find_rule(entry.schema)


def has_inference(op_name: str) -> bool:
    """Whether result types of `op_name` can be inferred (for some arguments)."""
    entry = lookup(op_name)
    if entry is None:
        return False
    schema = entry.schema
    return _aliasing_returns(schema) is not None or _find_rule(schema) is not None


def _aliasing_returns(schema: FunctionSchema) -> list[str] | None:
    """For a mutating op whose every result is a written argument: those arguments."""
    if not schema.is_mutable or schema.op_name in _INPLACE_VIEW:
        return None
    amap = schema.return_alias_map()
    names: list[str] = []
    for i in range(len(schema.returns)):
        hits = amap.get(i)
        if not hits or not schema.arguments[hits[0]].is_write:
            return None
        names.append(schema.arguments[hits[0]].name)
    return names


def infer_result_types(
    op_name: str, args: Sequence[object], kwargs: Mapping[str, object] | None = None
) -> list[Attribute]:
    """The result types of `op_name` applied to FX-style args and kwargs."""
    entry = lookup(op_name)
    if entry is None:
        raise NoInference(f"unknown operator {op_name}")
    return infer_bound(bind_arguments(entry.schema, args, kwargs or {}))


_PLANS: dict[int, tuple[list[str] | None, Rule | None]] = {}


def infer_bound(bound: Bound) -> list[Attribute]:
    schema = bound.schema
    plan = _PLANS.get(id(schema))
    if plan is None:
        plan = _PLANS[id(schema)] = (_aliasing_returns(schema), _find_rule(schema))
    aliased, fn = plan
    if aliased is not None:
        return [_arg_type(bound[n], n) for n in aliased]
    if fn is None:
        raise NoInference(f"no inference rule for {schema.op_name}")
    try:
        result = fn(bound)
    except (KeyError, TypeError, AttributeError) as e:
        # Arguments outside what the rule models (a Dict overload, varargs).
        raise NoInference(f"{schema.op_name}: {e!r}") from e
    if isinstance(result, Attribute):
        return [result]
    return list(result)


def _arg_type(value: object, name: str) -> Attribute:
    value = argument_value(value)
    if isinstance(value, SSAValue):
        return value.type
    if isinstance(value, list | tuple):
        types = [_arg_type(v, name) for v in cast(Sequence[object], value)]
        return list_type(types)
    raise InferenceError(f"written argument '{name}' must be a value")


def list_type(types: Sequence[Attribute]) -> Attribute:
    """`!exir.list<T>` for homogeneous elements, `!exir.tuple<...>` otherwise."""
    if types and all(t == types[0] for t in types):
        return ListType(types[0])
    return TupleType(types)
