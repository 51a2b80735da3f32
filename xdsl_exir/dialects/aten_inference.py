"""
Result-type inference for the `aten` dialect, the FakeTensor computation of
torch done on `exir` types: shapes may be sympy expressions, dtypes follow
PyTorch's type promotion, devices follow the first tensor argument.

Rules are grouped by family (pointwise, reductions, views, shape ops,
convolution and pooling, matmul, indexing, creation, norms) and registered by
full overload name (`aten.add.Tensor`); one rule serves every overload listed
with it.
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
from xdsl.ir import Attribute, Operation, SSAValue

from xdsl_exir.dialects.exir import (
    BoolType,
    DeviceAttr,
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
from xdsl_exir.utils import symbolic
from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.op_registry import custom_operator, functional_variant, lookup
from xdsl_exir.utils.schema_binding import SchemaBindError, bind
from xdsl_exir.utils.symbolic import SymSize, make_symbol, sympy

__all__ = [
    "BindError",
    "Bound",
    "InferenceError",
    "NoInference",
    "bind_arguments",
    "infer_result_types",
    "has_inference",
    "promote_types",
    "make_tensor",
]


class InferenceError(ValueError):
    """The arguments are invalid for the operator (torch would raise too)."""


class BindError(InferenceError):
    """The arguments do not bind to the operator's schema."""


class NoInference(Exception):
    """The result type cannot be computed from the argument types alone."""


# ---------------------------------------------------------------------------
# Cheap type construction
# ---------------------------------------------------------------------------

_DTYPE_ATTRS: dict[DType, DTypeAttr] = {}
_DEVICES: dict[str, StringAttr] = {}
_EMPTY_ORDER: ArrayAttr[Attribute] = ArrayAttr(())


def _norm(value: SymSize) -> SymSize:
    """Plain int for constant sizes, sympy otherwise (fast path for ints)."""
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, sympy.Basic) and value.is_Integer:
        return int(value)
    return value


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
    sizes = tuple(_norm(s) for s in shape)
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
# Argument binding
# ---------------------------------------------------------------------------


class Bound(dict[str, object]):
    """Schema argument name -> value (SSAValue, Python constant or list), defaults filled."""

    schema: FunctionSchema

    def __init__(self, schema: FunctionSchema, values: dict[str, object]) -> None:
        super().__init__(values)
        self.schema = schema

    # -- typed accessors ---------------------------------------------------

    def tensor(self, name: str) -> TensorType:
        return tensor_type(self[name], name)

    def opt_tensor(self, name: str) -> TensorType | None:
        value = self.get(name)
        return None if value is None else tensor_type(value, name)

    def tensors(self, name: str) -> list[TensorType]:
        return [tensor_type(v, name) for v in _as_list(self[name])]

    def size(self, name: str) -> SymSize:
        return as_size(self[name], name)

    def opt_size(self, name: str) -> SymSize | None:
        value = self.get(name)
        return None if value is None else as_size(value, name)

    def sizes(self, name: str, n: int | None = None) -> list[SymSize]:
        value = self[name]
        if n is not None and not isinstance(value, list | tuple):
            value = [value] * n
        sizes = [as_size(v, name) for v in _as_list(value)]
        if n is not None and len(sizes) == 1 and n > 1:
            sizes = sizes * n
        return sizes

    def int(self, name: str) -> int:
        value = self[name]
        if isinstance(value, int):
            return int(value)
        size = as_size(value, name)
        if isinstance(size, int):
            return size
        raise NoInference(f"argument '{name}' must be a constant, got {size}")

    def ints(self, name: str, n: int | None = None) -> list[int]:
        out: list[int] = []
        for s in self.sizes(name, n):
            if not isinstance(s, int):
                raise NoInference(f"argument '{name}' must be constants")
            out.append(s)
        return out

    def dtype(self, name: str) -> DType | None:
        return as_dtype(self.get(name))

    def device(self, name: str) -> str | None:
        value = self.get(name)
        if value is None:
            return None
        if isinstance(value, DeviceAttr):
            return value.device.data
        if isinstance(value, str):
            return value
        raise InferenceError(f"argument '{name}' is not a device: {value!r}")


def _as_list(value: object) -> list[object]:
    if isinstance(value, list | tuple):
        return list(cast(Sequence[object], value))
    if isinstance(value, SSAValue) and isinstance(value.type, ListType):
        raise NoInference("a list passed as one SSA value has unknown elements")
    return [value]


def _value(v: object) -> object:
    return v.results[0] if isinstance(v, Operation) else v


def tensor_type(value: object, what: str = "argument") -> TensorType:
    value = _value(value)
    if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
        return value.type
    raise InferenceError(f"'{what}' must be a tensor, got {_describe(value)}")


def as_size(value: object, what: str = "argument") -> SymSize:
    """An int-like argument as a size: int constant or a SymInt with known value."""
    value = _value(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, SSAValue):
        t = value.type
        if isinstance(t, SymIntType):
            if t.value is None:
                raise NoInference(f"'{what}' is a SymInt of unknown value")
            return _norm(t.value)
        if isinstance(t, IntType):
            raise NoInference(f"'{what}' is an int known only at run time")
    if isinstance(value, sympy.Expr):
        return _norm(value)
    raise InferenceError(f"'{what}' must be an int, got {_describe(value)}")


_DTYPE_CODES = {
    0: DType.uint8, 1: DType.int8, 2: DType.int16, 3: DType.int32, 4: DType.int64,
    5: DType.float16, 6: DType.float32, 7: DType.float64, 8: DType.complex32,
    9: DType.complex64, 10: DType.complex128, 11: DType.bool, 15: DType.bfloat16,
}  # fmt: skip
"""torch's ScalarType numbering, used by integer defaults such as `dtype=4`."""


def as_dtype(value: object) -> DType | None:
    if value is None:
        return None
    if isinstance(value, DType):
        return value
    if isinstance(value, DTypeAttr):
        return value.data
    if isinstance(value, int) and value in _DTYPE_CODES:
        return _DTYPE_CODES[value]
    raise InferenceError(f"{_describe(value)} is not a dtype")


def _describe(value: object) -> str:
    if isinstance(value, SSAValue):
        return f"a value of type {value.type}"
    return repr(value)


def bind_arguments(
    schema: FunctionSchema, args: Sequence[object], kwargs: Mapping[str, object]
) -> Bound:
    """FX args/kwargs bound by the core binder (defaults filled), as a `Bound` with typed
    accessors; arguments the schema refuses are a `BindError`, since torch would refuse them too."""
    try:
        values, _ = bind(schema, args, kwargs)
    except SchemaBindError as e:
        raise BindError(str(e)) from None
    return Bound(schema, values)


# ---------------------------------------------------------------------------
# dtypes and type promotion
# ---------------------------------------------------------------------------

DEFAULT_FLOAT = DType.float32
_INT_BITS = {
    DType.uint8: 8, DType.int8: 8, DType.int16: 16, DType.int32: 32,
    DType.int64: 64, DType.uint16: 16, DType.uint32: 32, DType.uint64: 64,
}  # fmt: skip
_FLOAT_RANK = {
    DType.float8_e5m2: 0, DType.float8_e4m3fn: 0, DType.float8_e5m2fnuz: 0,
    DType.float8_e4m3fnuz: 0, DType.float16: 1, DType.bfloat16: 1,
    DType.float32: 2, DType.float64: 3,
}  # fmt: skip
_COMPLEX_OF = {
    DType.float16: DType.complex32, DType.bfloat16: DType.complex64,
    DType.float32: DType.complex64, DType.float64: DType.complex128,
}  # fmt: skip
_REAL_OF = {
    DType.complex32: DType.float16,
    DType.complex64: DType.float32,
    DType.complex128: DType.float64,
}
ITEMSIZE = {
    DType.bool: 1, DType.uint8: 1, DType.int8: 1, DType.int16: 2, DType.int32: 4,
    DType.int64: 8, DType.uint16: 2, DType.uint32: 4, DType.uint64: 8,
    DType.float16: 2, DType.bfloat16: 2, DType.float32: 4, DType.float64: 8,
    DType.complex32: 4, DType.complex64: 8, DType.complex128: 16,
}  # fmt: skip


def category(d: DType) -> int:
    """0 bool, 1 integral, 2 floating, 3 complex: the order promotion respects."""
    if d is DType.bool:
        return 0
    if d.is_complex:
        return 3
    if d.is_floating_point:
        return 2
    return 1


def _promote_int(a: DType, b: DType) -> DType:
    bits = max(_INT_BITS.get(a, 64), _INT_BITS.get(b, 64))
    a_unsigned, b_unsigned = cast(str, a.value).startswith("u"), cast(str, b.value).startswith("u")
    if a_unsigned == b_unsigned:
        return DType(("uint" if a_unsigned else "int") + str(bits))
    unsigned, signed = (a, b) if a_unsigned else (b, a)
    if _INT_BITS[signed] > _INT_BITS[unsigned]:
        return signed
    # A signed type wide enough for the unsigned one.
    return DType("int" + str(min(64, 2 * _INT_BITS[unsigned])))


def promote_types(a: DType, b: DType) -> DType:
    """torch.promote_types: the smallest dtype both convert to without losing kind."""
    if a is b:
        return a
    ca, cb = category(a), category(b)
    if ca != cb:
        hi, lo = (a, b) if ca > cb else (b, a)
        if category(hi) == 3 and category(lo) == 2:
            real = promote_types(_REAL_OF[hi], lo)
            return _COMPLEX_OF[real]
        return hi
    if ca == 1:
        return _promote_int(a, b)
    if ca == 2:
        if {a, b} == {DType.float16, DType.bfloat16}:
            return DType.float32
        return a if _FLOAT_RANK.get(a, 2) >= _FLOAT_RANK.get(b, 2) else b
    if ca == 3:
        return _COMPLEX_OF[promote_types(_REAL_OF[a], _REAL_OF[b])]
    return a


def _promote_all(dtypes: Sequence[DType]) -> DType | None:
    result: DType | None = None
    for d in dtypes:
        result = d if result is None else promote_types(result, d)
    return result


def _combine(higher: DType | None, lower: DType | None) -> DType | None:
    """Let a lower-priority group raise the result's category, never its width."""
    if higher is None:
        return lower
    if lower is None:
        return higher
    ch, cl = category(higher), category(lower)
    if ch >= cl:
        return higher
    # The lower-priority group has the higher category: it decides, except that
    # a floating group keeps its width when a complex one makes it complex.
    if cl == 3 and ch == 2:
        return _COMPLEX_OF[higher]
    return lower


def scalar_dtype(value: object) -> DType | None:
    """The dtype a Python number or symbolic scalar takes part in promotion as."""
    value = _value(value)
    if isinstance(value, bool):
        return DType.bool
    if isinstance(value, int):
        return DType.int64
    if isinstance(value, float):
        return DType.float64
    if isinstance(value, complex):
        return DType.complex128
    if isinstance(value, SSAValue):
        t = value.type
        if isinstance(t, SymBoolType | BoolType):
            return DType.bool
        if isinstance(t, SymIntType | IntType):
            return DType.int64
        if isinstance(t, SymFloatType | FloatType):
            return DType.float64
    return None


def result_type(operands: Sequence[object]) -> DType:
    """
    Type promotion over tensors and scalars: dimensioned tensors win over 0-d
    tensors, which win over Python scalars, unless a lower group has a higher
    category (bool < integral < floating < complex); scalars then contribute
    their category's default dtype only.
    """
    dim: list[DType] = []
    zero: list[DType] = []
    wrapped: list[DType] = []
    for v in operands:
        v = _value(v)
        if v is None:
            continue
        if isinstance(v, SSAValue) and isinstance(v.type, TensorType):
            (dim if v.type.rank else zero).append(v.type.element_dtype)
            continue
        d = scalar_dtype(v)
        if d is None:
            raise InferenceError(f"{_describe(v)} cannot take part in type promotion")
        wrapped.append(d)
    w = _promote_all(wrapped)
    if w is not None:
        c = category(w)
        w = {0: DType.bool, 1: DType.int64, 2: DEFAULT_FLOAT}.get(
            c, _COMPLEX_OF[DEFAULT_FLOAT]
        )
    result = _combine(_promote_all(dim), _combine(_promote_all(zero), w))
    if result is None:
        raise InferenceError("type promotion needs at least one operand")
    return result


def _to_float(d: DType) -> DType:
    return DEFAULT_FLOAT if category(d) < 2 else d


def _real(d: DType) -> DType:
    return _REAL_OF.get(d, d)


# ---------------------------------------------------------------------------
# Shape helpers
# ---------------------------------------------------------------------------


def _sym(v: SymSize) -> sympy.Expr:
    return sympy.Integer(v) if isinstance(v, int) else v


def floordiv(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return a // b
    return _norm(symbolic.floordiv(_sym(a), _sym(b)))


def ceildiv(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return _norm(symbolic.ceildiv(_sym(a), _sym(b)))


def add(*values: SymSize) -> SymSize:
    if all(type(v) is int for v in values):
        return sum(cast(Sequence[int], values))
    return _norm(sympy.Add(*(_sym(v) for v in values)))


def mul(*values: SymSize) -> SymSize:
    if all(type(v) is int for v in values):
        return math.prod(cast(Sequence[int], values))
    return _norm(sympy.Mul(*(_sym(v) for v in values)))


def sym_max(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return max(a, b)
    return _norm(sympy.Max(_sym(a), _sym(b)))


def sym_min(a: SymSize, b: SymSize) -> SymSize:
    if isinstance(a, int) and isinstance(b, int):
        return min(a, b)
    return _norm(sympy.Min(_sym(a), _sym(b)))


def _is(value: SymSize, n: int) -> bool:
    """`value == n` without sympy's slow comparison of an expression with an int."""
    return type(value) is int and value == n


def _same(a: SymSize, b: SymSize) -> bool:
    if a is b:
        return True
    if type(a) is int and type(b) is int:
        return a == b
    if type(a) is int or type(b) is int:
        return False  # normalized: a constant is never a non-constant expression
    return a == b or sympy.expand(_sym(a) - _sym(b)) == 0


def wrap_dim(dim: int, rank: int) -> int:
    """Negative dims count from the end; a 0-d tensor accepts dims 0 and -1."""
    r = max(rank, 1)
    if not -r <= dim < r:
        raise InferenceError(f"dimension {dim} out of range for a {rank}-d tensor")
    return dim % r


def broadcast_shapes(*shapes: Sequence[SymSize]) -> list[SymSize]:
    rank = max((len(s) for s in shapes), default=0)
    out: list[SymSize] = [1] * rank
    for shape in shapes:
        offset = rank - len(shape)
        for i, s in enumerate(shape):
            cur = out[offset + i]
            if _is(cur, 1):
                out[offset + i] = s
            elif _is(s, 1) or _same(cur, s):
                continue
            elif isinstance(cur, int) and isinstance(s, int):
                raise InferenceError(
                    f"shapes {[list(x) for x in shapes]} do not broadcast"
                )
            elif isinstance(s, int):
                out[offset + i] = s  # torch would guard the symbol to this value
            elif not isinstance(cur, int):
                raise NoInference(f"cannot decide whether {cur} and {s} broadcast")
    return out


def _device_of(tensors: Sequence[TensorType]) -> str:
    for t in tensors:
        if t.rank:
            return t.device.data
    return tensors[0].device.data if tensors else "cpu"


_unbacked = itertools.count()


def unbacked_symbol() -> sympy.Symbol:
    """A fresh data-dependent size, named `u<n>` as torch names them."""
    return make_symbol(f"u{next(_unbacked)}")


def _numel(shape: Sequence[SymSize]) -> SymSize:
    return mul(*shape) if shape else 1


def _infer_minus_one(sizes: Sequence[SymSize], numel: SymSize) -> list[SymSize]:
    """Resolve one `-1` in a view size from the element count."""
    sizes = list(sizes)
    holes = [i for i, s in enumerate(sizes) if _is(s, -1)]
    if len(holes) > 1:
        raise InferenceError("only one dimension can be inferred (-1)")
    known = _numel([s for s in sizes if not _is(s, -1)])
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
            sizes[holes[0]] = _norm(sympy.Integer(int(split[0]) // known) * split[1])
        else:
            q = sympy.cancel(_sym(numel) / _sym(known))
            num, den = sympy.fraction(q)
            sizes[holes[0]] = _norm(num) if den == 1 else floordiv(numel, known)
    elif isinstance(numel, int) and isinstance(known, int) and numel != known:
        raise InferenceError(f"shape {sizes} is invalid for {numel} elements")
    return sizes


# ---------------------------------------------------------------------------
# Rule registry
# ---------------------------------------------------------------------------

Rule = Callable[[Bound], Attribute | Sequence[Attribute]]
_RULES: dict[str, Rule] = {}


def rule(*names: str) -> Callable[[Rule], Rule]:
    """Register a rule for overloads by full IR name (`aten.add.Tensor`); in-place and
    out= variants need none (see `_aliasing_returns`)."""

    def register(fn: Rule) -> Rule:
        for n in names:
            if lookup(n) is None:
                raise ValueError(f"inference rule for unknown overload {n}")
            if n in _RULES:
                raise ValueError(f"two inference rules for {n}")
            _RULES[n] = fn
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
    found = _RULES.get(name)
    if found is None and (custom := custom_operator(name)) is not None and custom.infer is not None:
        return _custom_rule(custom.infer)
    return found


def _custom_rule(infer: Callable[..., object]) -> Rule:
    """A custom operator's `infer(**arguments)`: SSA values given as their types."""

    def typed(v: object) -> object:
        v = _value(v)
        if isinstance(v, SSAValue):
            return v.type
        if isinstance(v, list | tuple):
            return [typed(x) for x in cast(Sequence[object], v)]
        return v

    def apply(bound: Bound) -> Attribute | Sequence[Attribute]:
        return cast(Attribute | Sequence[Attribute], infer(**{k: typed(v) for k, v in bound.items()}))

    return apply


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
    value = _value(value)
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


# ---------------------------------------------------------------------------
# Pointwise
# ---------------------------------------------------------------------------


def _pointwise(
    b: Bound, names: Sequence[str], promote: Sequence[str] | None = None
) -> tuple[list[SymSize], DType, str]:
    """Broadcast the tensor arguments among `names`; promote those in `promote`."""
    tensors: list[TensorType] = []
    for n in names:
        v = _value(b.get(n))
        if isinstance(v, SSAValue) and isinstance(v.type, TensorType):
            tensors.append(v.type)
    shape = broadcast_shapes(*(t.sizes for t in tensors))
    dtype = result_type([b[n] for n in (names if promote is None else promote)])
    return shape, dtype, _device_of(tensors)


_UNARY_SAME = (
    "aten.abs.default", "aten.neg.default", "aten.ceil.default", "aten.floor.default",
    "aten.round.default", "aten.round.decimals", "aten.trunc.default", "aten.sign.default",
    "aten.relu.default", "aten.relu6.default", "aten.hardtanh.default", "aten.leaky_relu.default",
    "aten.elu.default", "aten.gelu.default", "aten.silu.default", "aten.mish.default",
    "aten.hardswish.default", "aten.hardsigmoid.default", "aten.softplus.default", "aten.clone.default",
    "aten.contiguous.default", "aten.alias.default", "aten.detach.default", "aten.bitwise_not.default",
    "aten.dropout.default", "aten.tril.default", "aten.triu.default", "aten.flip.default",
    "aten.roll.default", "aten.nan_to_num.default", "aten.fill.Scalar", "aten.fill.Tensor",
    "aten.copy.default", "aten.copy.Dict_Tensor", "aten.index_put.default", "aten.index_put.hacked_twin",
    "aten.scatter.reduce", "aten.scatter.src", "aten.scatter.value", "aten.scatter.value_reduce",
    "aten.scatter_add.default", "aten.scatter_reduce.two", "aten.select_scatter.default",
    "aten.slice_scatter.default",
)  # fmt: skip
_UNARY_FLOAT = (
    "aten.acos.default", "aten.acosh.default", "aten.asin.default", "aten.asinh.default",
    "aten.atan.default", "aten.atanh.default", "aten.cos.default", "aten.cosh.default", "aten.erf.default",
    "aten.exp.default", "aten.expm1.default", "aten.log.default", "aten.log10.default",
    "aten.log1p.default", "aten.log2.default", "aten.reciprocal.default", "aten.rsqrt.default",
    "aten.sigmoid.default", "aten.sin.default", "aten.sinh.default", "aten.sqrt.default",
    "aten.tan.default", "aten.tanh.default",
)  # fmt: skip


def _first_tensor_name(b: Bound) -> str:
    for a in b.schema.arguments:
        if a.type.is_base("Tensor"):
            return a.name
    raise NoInference("no tensor argument")


_MEMORY_FORMAT_CODES = {
    0: MemoryFormat.contiguous_format,
    1: MemoryFormat.preserve_format,
    2: MemoryFormat.channels_last,
    3: MemoryFormat.channels_last_3d,
}


def _dim_order(fmt: object, self_type: TensorType | None, rank: int) -> list[int] | None:
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


@rule(*_UNARY_SAME)
def _same_as_self(b: Bound) -> Attribute:
    t = b.tensor(_first_tensor_name(b))
    fmt = b.get("memory_format")
    if fmt is not None:
        return make_tensor(t.sizes, t.element_dtype, t.device.data, _dim_order(fmt, t, t.rank))
    return t


@rule(
    "aten.avg_pool2d_backward.default", "aten.max_pool2d_with_indices_backward.default",
    "aten._adaptive_avg_pool2d_backward.default",
)  # fmt: skip
def _grad_input(b: Bound) -> Attribute:
    """Pooling backward: the gradient has the forward input's type."""
    return b.tensor("self")


@rule(*_UNARY_FLOAT)
def _unary_float(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, _to_float(t.element_dtype), t.device.data)


@rule("aten.isnan.default", "aten.isinf.default", "aten.logical_not.default")
def _unary_bool(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.bool, t.device.data)


_BINARY = {
    "aten.add.Scalar": ("self", "other"),
    "aten.add.Tensor": ("self", "other"),
    "aten.sub.Scalar": ("self", "other"),
    "aten.sub.Tensor": ("self", "other"),
    "aten.mul.Scalar": ("self", "other"),
    "aten.mul.Tensor": ("self", "other"),
    "aten.rsub.Scalar": ("self", "other"),
    "aten.rsub.Tensor": ("self", "other"),
    "aten.maximum.default": ("self", "other"),
    "aten.minimum.default": ("self", "other"),
    "aten.max.other": ("self", "other"),
    "aten.min.other": ("self", "other"),
    "aten.remainder.Scalar": ("self", "other"),
    "aten.remainder.Scalar_Tensor": ("self", "other"),
    "aten.remainder.Tensor": ("self", "other"),
    "aten.fmod.Scalar": ("self", "other"),
    "aten.fmod.Tensor": ("self", "other"),
    "aten.bitwise_and.Scalar": ("self", "other"),
    "aten.bitwise_and.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_and.Tensor": ("self", "other"),
    "aten.bitwise_or.Scalar": ("self", "other"),
    "aten.bitwise_or.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_or.Tensor": ("self", "other"),
    "aten.bitwise_xor.Scalar": ("self", "other"),
    "aten.bitwise_xor.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_xor.Tensor": ("self", "other"),
    "aten.pow.Tensor_Scalar": ("self", "exponent"),
    "aten.pow.Tensor_Tensor": ("self", "exponent"),
    "aten.pow.Scalar": ("self", "exponent"),
    "aten.clamp.default": ("self", "min", "max"),
    "aten.clamp.Tensor": ("self", "min", "max"),
    "aten.clamp_min.default": ("self", "min"),
    "aten.clamp_min.Tensor": ("self", "min"),
    "aten.clamp_max.default": ("self", "max"),
    "aten.clamp_max.Tensor": ("self", "max"),
    "aten.where.self": ("condition", "self", "other"),
    "aten.where.ScalarOther": ("condition", "self", "other"),
    "aten.where.ScalarSelf": ("condition", "self", "other"),
    "aten.where.Scalar": ("condition", "self", "other"),
    "aten.lerp.Scalar": ("self", "end", "weight"),
    "aten.lerp.Tensor": ("self", "end", "weight"),
    "aten.addcmul.default": ("self", "tensor1", "tensor2"),
    "aten.__and__.Scalar": ("self", "other"),
    "aten.__and__.Tensor": ("self", "other"),
    "aten.__or__.Scalar": ("self", "other"),
    "aten.__or__.Tensor": ("self", "other"),
    "aten.__xor__.Scalar": ("self", "other"),
    "aten.__xor__.Tensor": ("self", "other"),
    "aten.__lshift__.Scalar": ("self", "other"),
    "aten.__lshift__.Tensor": ("self", "other"),
    "aten.__rshift__.Scalar": ("self", "other"),
    "aten.__rshift__.Tensor": ("self", "other"),
    "aten.bitwise_left_shift.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_left_shift.Tensor": ("self", "other"),
    "aten.bitwise_left_shift.Tensor_Scalar": ("self", "other"),
    "aten.bitwise_right_shift.Scalar_Tensor": ("self", "other"),
    "aten.bitwise_right_shift.Tensor": ("self", "other"),
    "aten.bitwise_right_shift.Tensor_Scalar": ("self", "other"),
    "aten.floor_divide.default": ("self", "other"),
    "aten.floor_divide.Scalar": ("self", "other"),
}  # fmt: skip


def _binary_rule(names: tuple[str, ...]) -> Rule:
    def infer(b: Bound) -> Attribute:
        promote = [n for n in names if n != "condition"]
        shape, dtype, device = _pointwise(b, names, promote)
        return make_tensor(shape, dtype, device)

    return infer


for _name, _names in _BINARY.items():
    rule(_name)(_binary_rule(_names))


@rule(
    "aten.div.Scalar", "aten.div.Scalar_mode", "aten.div.Tensor", "aten.div.Tensor_mode",
    "aten.atan2.default", "aten.addcdiv.default",
)  # fmt: skip
def _true_divide(b: Bound) -> Attribute:
    names = {"div": ("self", "other"), "atan2": ("self", "other")}.get(
        b.schema.name.rstrip("_"), ("self", "tensor1", "tensor2")
    )
    shape, dtype, device = _pointwise(b, names)
    if b.get("rounding_mode") is None:
        dtype = _to_float(dtype)
    return make_tensor(shape, dtype, device)


@rule(
    "aten.eq.Scalar", "aten.eq.Tensor", "aten.ne.Scalar", "aten.ne.Tensor", "aten.lt.Scalar",
    "aten.lt.Tensor", "aten.le.Scalar", "aten.le.Tensor", "aten.gt.Scalar", "aten.gt.Tensor",
    "aten.ge.Scalar", "aten.ge.Tensor", "aten.logical_and.default", "aten.logical_or.default",
    "aten.logical_xor.default",
)  # fmt: skip
def _compare(b: Bound) -> Attribute:
    shape, _, device = _pointwise(b, ("self", "other"))
    return make_tensor(shape, DType.bool, device)


@rule("aten.eq.Tensor_list", "aten.ne.Tensor_list")
def _list_compare(b: Bound) -> Attribute:
    return BoolType()


@rule("aten.masked_fill.Scalar", "aten.masked_fill.Tensor")
def _masked_fill(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape, _, device = _pointwise(b, ("self", "mask"), ("self",))
    return make_tensor(shape, t.element_dtype, device)


@rule("aten.masked_scatter.default")
def _masked_scatter(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = broadcast_shapes(t.sizes, b.tensor("mask").sizes)
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.type_as.default")
def _type_as(b: Bound) -> Attribute:
    t, o = b.tensor("self"), b.tensor("other")
    return make_tensor(t.sizes, o.element_dtype, t.device.data)


@rule("aten.cumsum.default")
def _cumsum(b: Bound) -> Attribute:
    t = b.tensor("self")
    wrap_dim(b.int("dim"), t.rank)
    dtype = b.dtype("dtype") or (DType.int64 if category(t.element_dtype) < 2 else t.element_dtype)
    return make_tensor(t.sizes, dtype, t.device.data)


# ---------------------------------------------------------------------------
# Reductions and normalizations over a dim
# ---------------------------------------------------------------------------


def _reduce_shape(t: TensorType, dims: Sequence[int] | None, keepdim: bool) -> list[SymSize]:
    if dims is None or len(dims) == 0:
        reduced = set(range(t.rank))
    else:
        reduced = {wrap_dim(d, t.rank) for d in dims}
    if keepdim:
        return [1 if i in reduced else s for i, s in enumerate(t.sizes)]
    return [s for i, s in enumerate(t.sizes) if i not in reduced]


def _dims_arg(b: Bound, name: str = "dim") -> list[int] | None:
    value = b.get(name)
    if value is None:
        return None
    if isinstance(value, int):
        return [value]
    return b.ints(name)


def _sum_dtype(t: TensorType, dtype: DType | None) -> DType:
    if dtype is not None:
        return dtype
    return DType.int64 if category(t.element_dtype) < 2 else t.element_dtype


@rule("aten.sum.default", "aten.sum.dim_IntList", "aten.prod.default", "aten.prod.dim_int")
def _sum(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = _dims_arg(b) if "dim" in b else None
    shape = _reduce_shape(t, dims, bool(b.get("keepdim", False)))
    return make_tensor(shape, _sum_dtype(t, b.dtype("dtype")), t.device.data)


@rule("aten.mean.default", "aten.mean.dim")
def _mean(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = _dims_arg(b) if "dim" in b else None
    shape = _reduce_shape(t, dims, bool(b.get("keepdim", False)))
    dtype = b.dtype("dtype") or t.element_dtype
    if category(dtype) < 2:
        raise InferenceError(f"mean of a {dtype.value} tensor needs a floating dtype")
    return make_tensor(shape, dtype, t.device.data)


@rule("aten.amax.default", "aten.amin.default", "aten.max.default", "aten.min.default")
def _amax(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = _dims_arg(b) if "dim" in b else None
    shape = _reduce_shape(t, dims, bool(b.get("keepdim", False)))
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule(
    "aten.all.default", "aten.all.dim", "aten.all.dims", "aten.any.default", "aten.any.dim",
    "aten.any.dims",
)  # fmt: skip
def _all(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = _dims_arg(b) if "dim" in b else None
    shape = _reduce_shape(t, dims, bool(b.get("keepdim", False)))
    dtype = DType.uint8 if t.element_dtype is DType.uint8 else DType.bool
    return make_tensor(shape, dtype, t.device.data)


@rule("aten.argmax.default", "aten.argmin.default")
def _argmax(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = _dims_arg(b)
    keepdim = bool(b["keepdim"])
    if dims is None and keepdim:
        shape: list[SymSize] = [1] * t.rank
    else:
        shape = _reduce_shape(t, dims, keepdim)
    return make_tensor(shape, DType.int64, t.device.data)


@rule("aten.max.dim", "aten.min.dim")
def _max_dim(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    shape = _reduce_shape(t, [b.int("dim")], bool(b["keepdim"]))
    return [
        make_tensor(shape, t.element_dtype, t.device.data),
        make_tensor(shape, DType.int64, t.device.data),
    ]


@rule(
    "aten.std.default", "aten.std.correction", "aten.std.dim", "aten.var.default", "aten.var.correction",
    "aten.var.dim",
)  # fmt: skip
def _var(b: Bound) -> Attribute:
    t = b.tensor("self")
    if category(t.element_dtype) < 2:
        raise InferenceError("std and var need a floating point or complex tensor")
    dims = _dims_arg(b) if "dim" in b else None
    shape = _reduce_shape(t, dims, bool(b.get("keepdim", False)))
    return make_tensor(shape, _real(_to_float(t.element_dtype)), t.device.data)


@rule("aten.var_mean.default", "aten.var_mean.correction", "aten.var_mean.dim")
def _var_mean(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    v = cast(TensorType, _var(b))
    return [v, make_tensor(v.sizes, _to_float(t.element_dtype), t.device.data)]


@rule("aten.softmax.int", "aten.log_softmax.int", "aten._softmax.default", "aten._log_softmax.default")
def _softmax(b: Bound) -> Attribute:
    t = b.tensor("self")
    wrap_dim(b.int("dim"), t.rank)
    if "half_to_float" in b:
        dtype = DType.float32 if b["half_to_float"] else t.element_dtype
    else:
        dtype = b.dtype("dtype") or t.element_dtype
    if category(dtype) < 2:
        raise InferenceError(f"softmax of a {dtype.value} tensor")
    return make_tensor(t.sizes, dtype, t.device.data)


@rule("aten.sort.default", "aten.sort.stable", "aten.topk.default")
def _sort(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    shape = list(t.sizes)
    if "k" in b and t.rank:
        shape[wrap_dim(b.int("dim"), t.rank)] = b.size("k")
    return [
        make_tensor(shape, t.element_dtype, t.device.data),
        make_tensor(shape, DType.int64, t.device.data),
    ]


# ---------------------------------------------------------------------------
# Views and shape manipulation
# ---------------------------------------------------------------------------


@rule("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
def _view(b: Bound) -> Attribute:
    t = b.tensor("self")
    sizes = b.sizes("size" if "size" in b else "shape")
    return make_tensor(_infer_minus_one(sizes, t.numel()), t.element_dtype, t.device.data)


@rule("aten.view.dtype")
def _view_dtype(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = cast(DType, b.dtype("dtype"))
    old, new = ITEMSIZE.get(t.element_dtype, 1), ITEMSIZE.get(dtype, 1)
    shape = list(t.sizes)
    if old != new:
        if not shape:
            raise InferenceError("view.dtype of a 0-d tensor needs equal item sizes")
        shape[-1] = floordiv(mul(shape[-1], old), new)
    return make_tensor(shape, dtype, t.device.data)


@rule("aten.view_as_real.default")
def _view_as_real(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not t.element_dtype.is_complex:
        raise InferenceError("view_as_real needs a complex tensor")
    return make_tensor([*t.sizes, 2], _real(t.element_dtype), t.device.data)


@rule("aten.resize.default", "aten.as_strided.default")
def _resize(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(b.sizes("size"), t.element_dtype, t.device.data)


@rule("aten.expand.default")
def _expand(b: Bound) -> Attribute:
    t = b.tensor("self")
    sizes = b.sizes("size")
    if len(sizes) < t.rank:
        raise InferenceError(f"expand to {sizes} has fewer dims than the tensor")
    offset = len(sizes) - t.rank
    out: list[SymSize] = []
    for i, s in enumerate(sizes):
        if i < offset:
            out.append(s)
            continue
        cur = t.sizes[i - offset]
        if _is(s, -1):
            out.append(cur)
        elif _is(cur, 1) or _same(cur, s):
            out.append(s)
        elif isinstance(cur, int) and isinstance(s, int):
            raise InferenceError(f"cannot expand size {cur} to {s}")
        else:
            out.append(s)
    return make_tensor(out, t.element_dtype, t.device.data)


@rule("aten.expand_as.default")
def _expand_as(b: Bound) -> Attribute:
    t, o = b.tensor("self"), b.tensor("other")
    broadcast_shapes(t.sizes, o.sizes)
    return make_tensor(o.sizes, t.element_dtype, t.device.data)


@rule("aten.permute.default")
def _permute(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = [wrap_dim(d, t.rank) for d in b.ints("dims")]
    if sorted(dims) != list(range(t.rank)):
        raise InferenceError(f"permute dims {dims} are not a permutation")
    return make_tensor([t.sizes[d] for d in dims], t.element_dtype, t.device.data)


@rule("aten.transpose.int")
def _transpose(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        wrap_dim(b.int("dim0"), 0), wrap_dim(b.int("dim1"), 0)
        return t
    d0, d1 = wrap_dim(b.int("dim0"), t.rank), wrap_dim(b.int("dim1"), t.rank)
    shape = list(t.sizes)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.t.default")
def _t(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank > 2:
        raise InferenceError("t() expects a tensor with <= 2 dimensions")
    return make_tensor(list(reversed(t.sizes)), t.element_dtype, t.device.data)


@rule("aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims")
def _squeeze(b: Bound) -> Attribute:
    t = b.tensor("self")
    if "dim" not in b:
        dims = set(range(t.rank))
    else:
        dims = {wrap_dim(d, t.rank) for d in (_dims_arg(b) or [])}
    shape = [s for i, s in enumerate(t.sizes) if not (i in dims and _is(s, 1))]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.unsqueeze.default")
def _unsqueeze(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank + 1)
    shape = list(t.sizes)
    shape.insert(d, 1)
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.flatten.using_ints")
def _flatten(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        return make_tensor([1], t.element_dtype, t.device.data)
    start, end = wrap_dim(b.int("start_dim"), t.rank), wrap_dim(b.int("end_dim"), t.rank)
    if start > end:
        raise InferenceError("flatten() has start_dim after end_dim")
    shape = [*t.sizes[:start], _numel(t.sizes[start : end + 1]), *t.sizes[end + 1 :]]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.unflatten.int")
def _unflatten(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    sizes = _infer_minus_one(b.sizes("sizes"), t.sizes[d])
    shape = [*t.sizes[:d], *sizes, *t.sizes[d + 1 :]]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.movedim.int", "aten.movedim.intlist")
def _movedim(b: Bound) -> Attribute:
    t = b.tensor("self")
    src = [wrap_dim(d, t.rank) for d in (_dims_arg(b, "source") or [])]
    dst = [wrap_dim(d, t.rank) for d in (_dims_arg(b, "destination") or [])]
    order: list[int | None] = [None] * t.rank
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(i for i in range(t.rank) if i not in src)
    perm = [o if o is not None else next(rest) for o in order]
    return make_tensor([t.sizes[p] for p in perm], t.element_dtype, t.device.data)


@rule("aten.select.int")
def _select(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        raise InferenceError("select() on a 0-d tensor")
    d = wrap_dim(b.int("dim"), t.rank)
    index, size = b.size("index"), t.sizes[d]
    if isinstance(index, int) and isinstance(size, int) and not -size <= index < size:
        raise InferenceError(f"select index {index} out of range for size {size}")
    return make_tensor(
        [s for i, s in enumerate(t.sizes) if i != d], t.element_dtype, t.device.data
    )


_BIG = 2**62


def _clamp_index(value: SymSize | None, size: SymSize, default: SymSize) -> SymSize:
    """Python slice semantics; symbolic sizes are assumed large enough, as torch guards."""
    if value is None:
        return default
    if isinstance(value, int):
        if value >= _BIG:
            return size
        if value < 0:
            value = add(size, value)
            return max(value, 0) if isinstance(value, int) else value
        return min(value, size) if isinstance(size, int) else value
    return value


def slice_length(
    size: SymSize, start: SymSize | None, end: SymSize | None, step: SymSize
) -> SymSize:
    s = _clamp_index(start, size, 0)
    e = _clamp_index(end, size, size)
    if isinstance(s, int) and isinstance(e, int) and e < s:
        return 0
    length = add(e, -_sym(s) if not isinstance(s, int) else -s)
    if _is(step, 1):
        return length
    return floordiv(add(length, step, -1), step)


@rule("aten.slice.Tensor")
def _slice(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    step = b.size("step")
    if isinstance(step, int) and step <= 0:
        raise InferenceError("slice step must be positive")
    shape = list(t.sizes)
    shape[d] = slice_length(shape[d], b.opt_size("start"), b.opt_size("end"), step)
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.narrow.default", "aten.narrow.Tensor")
def _narrow(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    shape = list(t.sizes)
    shape[d] = b.size("length")
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.diagonal.default")
def _diagonal(b: Bound) -> Attribute:
    t = b.tensor("self")
    d1, d2 = wrap_dim(b.int("dim1"), t.rank), wrap_dim(b.int("dim2"), t.rank)
    if d1 == d2:
        raise InferenceError("diagonal dimensions cannot be identical")
    off = b.int("offset")
    s1, s2 = t.sizes[d1], t.sizes[d2]
    if off >= 0:
        n = sym_max(sym_min(s1, add(s2, -off)), 0)
    else:
        n = sym_max(sym_min(add(s1, off), s2), 0)
    shape = [s for i, s in enumerate(t.sizes) if i not in (d1, d2)] + [n]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.cat.default")
def _cat(b: Bound) -> Attribute:
    tensors = [t for t in b.tensors("tensors") if not (t.rank == 1 and t.sizes[0] == 0)]
    if not tensors:
        ts = b.tensors("tensors")
        if not ts:
            raise InferenceError("cat of an empty list")
        return ts[0]
    ref = tensors[0]
    d = wrap_dim(b.int("dim"), ref.rank)
    shape = list(ref.sizes)
    total: list[SymSize] = []
    for t in tensors:
        if t.rank != ref.rank:
            raise InferenceError("cat of tensors of different ranks")
        for i in range(ref.rank):
            if i != d and isinstance(t.sizes[i], int) and isinstance(shape[i], int):
                if t.sizes[i] != shape[i]:
                    raise InferenceError(f"cat sizes differ in dim {i}")
        total.append(t.sizes[d])
    shape[d] = add(*total)
    dtype = cast(DType, _promote_all([t.element_dtype for t in b.tensors("tensors")]))
    return make_tensor(shape, dtype, ref.device.data)


@rule("aten.stack.default")
def _stack(b: Bound) -> Attribute:
    tensors = b.tensors("tensors")
    if not tensors:
        raise InferenceError("stack of an empty list")
    ref = tensors[0]
    d = wrap_dim(b.int("dim"), ref.rank + 1)
    shape = list(broadcast_shapes(*(t.sizes for t in tensors)))
    for t in tensors:
        if t.rank != ref.rank:
            raise InferenceError("stack expects tensors of equal shape")
    shape.insert(d, len(tensors))
    dtype = cast(DType, _promote_all([t.element_dtype for t in tensors]))
    return make_tensor(shape, dtype, ref.device.data)


def _pieces(t: TensorType, d: int, lengths: Sequence[SymSize]) -> Attribute:
    types: list[Attribute] = []
    for n in lengths:
        shape = list(t.sizes)
        shape[d] = n
        types.append(make_tensor(shape, t.element_dtype, t.device.data))
    return list_type(types)


@rule("aten.split.Tensor")
def _split(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    size, step = t.sizes[d], b.size("split_size")
    if not isinstance(size, int) or not isinstance(step, int):
        raise NoInference("split of a symbolic size into a data-dependent count")
    if step == 0:
        return _pieces(t, d, [size])
    return _pieces(t, d, [min(step, size - i) for i in range(0, max(size, 1), step)])


@rule("aten.split.default", "aten.split.sizes", "aten.split_with_sizes.default")
def _split_sizes(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    names = [a.name for a in b.schema.arguments]
    lengths = b.sizes(names[1])
    total = add(*lengths) if lengths else 0
    if isinstance(total, int) and isinstance(t.sizes[d], int) and total != t.sizes[d]:
        raise InferenceError(f"split sizes {lengths} do not sum to {t.sizes[d]}")
    return _pieces(t, d, lengths)


@rule("aten.chunk.default")
def _chunk(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    size, chunks = t.sizes[d], b.int("chunks")
    if chunks <= 0:
        raise InferenceError("chunk expects a positive number of chunks")
    if not isinstance(size, int):
        raise NoInference("chunk of a symbolic size")
    step = -(-size // chunks)
    if step == 0:
        return _pieces(t, d, [0] * chunks)
    return _pieces(t, d, [min(step, size - i) for i in range(0, size, step)])


@rule("aten.unbind.int")
def _unbind(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    n = t.sizes[d]
    if not isinstance(n, int):
        raise NoInference("unbind of a symbolic size")
    shape = [s for i, s in enumerate(t.sizes) if i != d]
    return list_type([make_tensor(shape, t.element_dtype, t.device.data)] * n)


@rule("aten.repeat.default")
def _repeat(b: Bound) -> Attribute:
    t = b.tensor("self")
    reps = b.sizes("repeats")
    if len(reps) < t.rank:
        raise InferenceError("repeat needs at least as many repeats as dims")
    padded = [1] * (len(reps) - t.rank) + list(t.sizes)
    return make_tensor([mul(s, r) for s, r in zip(padded, reps)], t.element_dtype, t.device.data)


def _padded(t: TensorType, pads: Sequence[SymSize]) -> list[SymSize]:
    if len(pads) % 2 or len(pads) // 2 > t.rank:
        raise InferenceError(f"padding {list(pads)} does not fit a {t.rank}-d tensor")
    shape = list(t.sizes)
    for i in range(len(pads) // 2):
        d = t.rank - 1 - i
        shape[d] = add(shape[d], pads[2 * i], pads[2 * i + 1])
    return shape


@rule(
    "aten.constant_pad_nd.default", "aten.pad.default", "aten.reflection_pad1d.default",
    "aten.reflection_pad2d.default", "aten.reflection_pad3d.default", "aten.replication_pad2d.default",
    "aten.replication_pad3d.default",
)  # fmt: skip
def _pad(b: Bound) -> Attribute:
    t = b.tensor("self")
    pads = b.sizes("pad" if "pad" in b else "padding")
    return make_tensor(_padded(t, pads), t.element_dtype, t.device.data)


# ---------------------------------------------------------------------------
# Convolution and pooling
# ---------------------------------------------------------------------------


def conv_out(
    size: SymSize, kernel: SymSize, stride: SymSize, pad: SymSize, dilation: SymSize
) -> SymSize:
    """floor((in + 2p - d(k-1) - 1) / s) + 1"""
    reach = mul(dilation, add(kernel, -1))
    span = add(size, mul(2, pad), mul(-1, reach), -1)
    return add(floordiv(span, stride), 1)


def pool_out(
    size: SymSize,
    kernel: int,
    stride: int,
    pad: int,
    dilation: int,
    ceil_mode: bool,
) -> SymSize:
    """Pooling output size; with ceil_mode a window may not start in the padding."""
    span = add(size, 2 * pad, -dilation * (kernel - 1) - 1)
    if not ceil_mode:
        return add(floordiv(span, stride), 1)
    out = add(floordiv(add(span, stride - 1), stride), 1)
    last_start = mul(add(out, -1), stride)
    limit = add(size, pad)
    if isinstance(last_start, int) and isinstance(limit, int):
        return out - 1 if last_start >= limit else out
    return out


def _spatial(b: Bound, name: str, n: int, default: Sequence[int] | None = None) -> list[int]:
    value = b.get(name)
    if value is None or (isinstance(value, list | tuple) and len(value) == 0):
        if default is None:
            raise InferenceError(f"argument '{name}' is required")
        return list(default)
    return b.ints(name, n)


@rule(
    "aten.convolution.default", "aten.conv1d.default", "aten.conv1d.padding", "aten.conv2d.default",
    "aten.conv2d.padding", "aten.conv3d.default", "aten.conv3d.padding",
)  # fmt: skip
def _conv(b: Bound) -> Attribute:
    x, w = b.tensor("input"), b.tensor("weight")
    n = w.rank - 2
    if n < 1:
        raise InferenceError("convolution weight must have at least 3 dims")
    batched = x.rank == n + 2
    if not batched and x.rank != n + 1:
        raise InferenceError(f"expected a {n + 1}-d or {n + 2}-d input, got {x.rank}-d")
    xs = list(x.sizes) if batched else [1, *x.sizes]
    stride = b.sizes("stride", n)
    dilation = b.sizes("dilation", n)
    groups = b.size("groups")
    transposed = bool(b.get("transposed", False))
    padding_arg = b["padding"]
    same = padding_arg == "same"
    pad: list[SymSize] = [0] * n if isinstance(padding_arg, str) else b.sizes("padding", n)
    out: list[SymSize] = [xs[0]]
    if transposed:
        out_pad = b.sizes("output_padding", n)
        out.append(mul(w.sizes[1], groups))
        for i in range(n):
            k = add(mul(dilation[i], add(w.sizes[i + 2], -1)), 1)
            out.append(add(mul(add(xs[i + 2], -1), stride[i]), mul(-2, pad[i]), k, out_pad[i]))
    else:
        cin, wc = xs[1], w.sizes[1]
        if isinstance(cin, int) and isinstance(wc, int) and isinstance(groups, int):
            if cin != wc * groups:
                raise InferenceError(
                    f"input has {cin} channels, weight expects {wc} x {groups} groups"
                )
        out.append(w.sizes[0])
        for i in range(n):
            if same:
                out.append(xs[i + 2])
            else:
                out.append(conv_out(xs[i + 2], w.sizes[i + 2], stride[i], pad[i], dilation[i]))
    if not batched:
        out = out[1:]
    dtype = x.element_dtype
    return make_tensor(out, dtype, x.device.data)


def _pool(b: Bound, n: int, with_dilation: bool) -> list[SymSize]:
    t = b.tensor("self")
    if t.rank not in (n + 1, n + 2):
        raise InferenceError(f"expected a {n + 1}-d or {n + 2}-d input, got {t.rank}-d")
    kernel = _spatial(b, "kernel_size", n)
    stride = _spatial(b, "stride", n, kernel)
    pad = _spatial(b, "padding", n, [0] * n)
    dilation = _spatial(b, "dilation", n, [1] * n) if with_dilation else [1] * n
    ceil_mode = bool(b["ceil_mode"])
    lead = list(t.sizes[: t.rank - n])
    for i in range(n):
        if pad[i] * 2 > kernel[i]:
            raise InferenceError("pad should be at most half of the kernel size")
        lead.append(pool_out(t.sizes[t.rank - n + i], kernel[i], stride[i], pad[i], dilation[i], ceil_mode))
    return lead


@rule("aten.avg_pool1d.default", "aten.avg_pool2d.default", "aten.avg_pool3d.default")
def _avg_pool(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = int(b.schema.name[-2])
    return make_tensor(_pool(b, n, False), t.element_dtype, t.device.data)


@rule(
    "aten.max_pool2d.default", "aten.max_pool2d_with_indices.default",
    "aten.max_pool3d_with_indices.default",
)  # fmt: skip
def _max_pool(b: Bound) -> Attribute | list[Attribute]:
    t = b.tensor("self")
    n = 3 if "3d" in b.schema.name else 2
    shape = _pool(b, n, True)
    values = make_tensor(shape, t.element_dtype, t.device.data)
    if b.schema.name.endswith("indices"):
        return [values, make_tensor(shape, DType.int64, t.device.data)]
    return values


@rule(
    "aten._adaptive_avg_pool2d.default", "aten._adaptive_avg_pool3d.default",
    "aten.adaptive_avg_pool1d.default", "aten.adaptive_avg_pool2d.default",
)  # fmt: skip
def _adaptive(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = int(b.schema.name[-2])
    out = b.sizes("output_size", n)
    if t.rank not in (n + 1, n + 2):
        raise InferenceError(f"expected a {n + 1}-d or {n + 2}-d input")
    return make_tensor([*t.sizes[: t.rank - n], *out], t.element_dtype, t.device.data)


def _upsample(b: Bound, input_name: str) -> Attribute:
    t = b.tensor(input_name)
    if t.rank != 4:
        raise InferenceError("upsample2d expects a 4-d input")
    if b.get("output_size") is not None:
        out = b.sizes("output_size", 2)
    else:
        scales = cast(Sequence[float], b.get("scale_factors"))
        if scales is None:
            raise InferenceError("either output_size or scale_factors is required")
        out = []
        for s, f in zip(t.sizes[2:], scales):
            if isinstance(s, int):
                out.append(int(math.floor(s * float(f))))
            else:
                out.append(_norm(sympy.floor(s * sympy.nsimplify(f))))
    return make_tensor([*t.sizes[:2], *out], t.element_dtype, t.device.data)


@rule("aten.upsample_bilinear2d.default", "aten.upsample_nearest2d.default")
def _upsample_default(b: Bound) -> Attribute:
    return _upsample(b, "self")


@rule("aten.upsample_bilinear2d.vec", "aten.upsample_nearest2d.vec")
def _upsample_vec(b: Bound) -> Attribute:
    return _upsample(b, "input")


@rule("aten.col2im.default")
def _col2im(b: Bound) -> Attribute:
    t = b.tensor("self")
    out = b.sizes("output_size", 2)
    k = b.ints("kernel_size", 2)
    batched = t.rank == 3
    c = floordiv(t.sizes[-2], k[0] * k[1])
    shape = ([t.sizes[0]] if batched else []) + [c, *out]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.grid_sampler_2d.default")
def _grid_sampler(b: Bound) -> Attribute:
    x, g = b.tensor("input"), b.tensor("grid")
    return make_tensor([x.sizes[0], x.sizes[1], g.sizes[1], g.sizes[2]], x.element_dtype, x.device.data)


# ---------------------------------------------------------------------------
# Matmul family
# ---------------------------------------------------------------------------


def _check_inner(a: SymSize, b: SymSize, what: str) -> None:
    if isinstance(a, int) and isinstance(b, int) and a != b:
        raise InferenceError(f"{what}: inner sizes {a} and {b} differ")


def _mm_dtype(b: Bound, a: TensorType, c: TensorType) -> DType:
    out = b.dtype("out_dtype") if "out_dtype" in b else None
    if out is not None:
        return out
    if a.element_dtype is not c.element_dtype:
        raise InferenceError(
            f"expected both operands to have the same dtype, got "
            f"{a.element_dtype.value} and {c.element_dtype.value}"
        )
    return a.element_dtype


@rule("aten.mm.default", "aten.mm.dtype", "aten.addmm.default", "aten.addmm.dtype")
def _mm(b: Bound) -> Attribute:
    names = ("mat1", "mat2") if "mat1" in b else ("self", "mat2")
    a, c = b.tensor(names[0]), b.tensor(names[1])
    if a.rank != 2 or c.rank != 2:
        raise InferenceError("mm expects 2-d tensors")
    _check_inner(a.sizes[1], c.sizes[0], "mm")
    return make_tensor([a.sizes[0], c.sizes[1]], _mm_dtype(b, a, c), a.device.data)


@rule("aten.bmm.default", "aten.bmm.dtype", "aten.baddbmm.default", "aten.baddbmm.dtype")
def _bmm(b: Bound) -> Attribute:
    names = ("batch1", "batch2") if "batch1" in b else ("self", "mat2")
    a, c = b.tensor(names[0]), b.tensor(names[1])
    if a.rank != 3 or c.rank != 3:
        raise InferenceError("bmm expects 3-d tensors")
    _check_inner(a.sizes[2], c.sizes[1], "bmm")
    return make_tensor([a.sizes[0], a.sizes[1], c.sizes[2]], _mm_dtype(b, a, c), a.device.data)


@rule("aten.dot.default")
def _dot(b: Bound) -> Attribute:
    a, c = b.tensor("self"), b.tensor("tensor")
    if a.rank != 1 or c.rank != 1:
        raise InferenceError("dot expects 1-d tensors")
    return make_tensor([], _mm_dtype(b, a, c), a.device.data)


@rule("aten.outer.default")
def _outer(b: Bound) -> Attribute:
    a, c = b.tensor("self"), b.tensor("vec2")
    return make_tensor([a.sizes[0], c.sizes[0]], result_type([b["self"], b["vec2"]]), a.device.data)


def matmul_shape(a: Sequence[SymSize], c: Sequence[SymSize]) -> list[SymSize]:
    if not a or not c:
        raise InferenceError("matmul needs tensors of at least one dimension")
    if len(a) == 1 and len(c) == 1:
        _check_inner(a[0], c[0], "matmul")
        return []
    if len(c) == 1:
        _check_inner(a[-1], c[0], "matmul")
        return list(a[:-1])
    if len(a) == 1:
        _check_inner(a[0], c[-2], "matmul")
        return [*c[:-2], c[-1]]
    _check_inner(a[-1], c[-2], "matmul")
    batch = broadcast_shapes(a[:-2], c[:-2])
    return [*batch, a[-2], c[-1]]


@rule("aten.matmul.default")
def _matmul(b: Bound) -> Attribute:
    a, c = b.tensor("self"), b.tensor("other")
    return make_tensor(matmul_shape(a.sizes, c.sizes), _mm_dtype(b, a, c), a.device.data)


@rule("aten.linear.default")
def _linear(b: Bound) -> Attribute:
    x, w = b.tensor("input"), b.tensor("weight")
    if w.rank == 1:
        shape = matmul_shape(x.sizes, w.sizes)
    else:
        shape = matmul_shape(x.sizes, [w.sizes[1], w.sizes[0]])
    bias = b.opt_tensor("bias")
    if bias is not None:
        shape = broadcast_shapes(shape, bias.sizes)
    return make_tensor(shape, _mm_dtype(b, x, w), x.device.data)


@rule("aten.einsum.default", "aten.einsum.sublist")
def _einsum(b: Bound) -> Attribute:
    eq = cast(str, b["equation"]).replace(" ", "")
    tensors = b.tensors("tensors")
    lhs, arrow, rhs = eq.partition("->")
    terms = lhs.split(",")
    if len(terms) != len(tensors):
        raise InferenceError("einsum equation and operand count differ")
    sizes: dict[str, SymSize] = {}
    ell: list[SymSize] = []
    for term, t in zip(terms, tensors):
        letters = term.replace("...", "")
        n_ell = t.rank - len(letters)
        head, has_ell, tail = term.partition("...")
        dims = list(t.sizes)
        if has_ell:
            ell = broadcast_shapes(ell, dims[len(head) : len(head) + n_ell])
            dims = dims[: len(head)] + dims[len(head) + n_ell :]
            letters = head + tail
        elif len(letters) != t.rank:
            raise InferenceError(f"einsum term '{term}' does not fit a {t.rank}-d tensor")
        for ch, s in zip(letters, dims):
            cur = sizes.get(ch)
            sizes[ch] = s if cur is None or cur == 1 else cur
    if not arrow:
        counts = {ch: lhs.count(ch) for ch in sizes}
        rhs = ("..." if "..." in lhs else "") + "".join(sorted(c for c, k in counts.items() if k == 1))
    head, has_ell, tail = rhs.partition("...")
    shape = [sizes[c] for c in head] + (ell if has_ell else []) + [sizes[c] for c in tail]
    dtype = cast(DType, _promote_all([t.element_dtype for t in tensors]))
    return make_tensor(shape, dtype, tensors[0].device.data)


@rule("aten.scaled_dot_product_attention.default")
def _sdpa(b: Bound) -> Attribute:
    q, v = b.tensor("query"), b.tensor("value")
    return make_tensor([*q.sizes[:-1], v.sizes[-1]], q.element_dtype, q.device.data)


@rule("aten._cdist_forward.default")
def _cdist(b: Bound) -> Attribute:
    a, c = b.tensor("x1"), b.tensor("x2")
    batch = broadcast_shapes(a.sizes[:-2], c.sizes[:-2])
    return make_tensor([*batch, a.sizes[-2], c.sizes[-2]], a.element_dtype, a.device.data)


@rule("aten._pdist_forward.default")
def _pdist(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = t.sizes[0]
    return make_tensor([floordiv(mul(n, add(n, -1)), 2)], t.element_dtype, t.device.data)


# ---------------------------------------------------------------------------
# Indexing
# ---------------------------------------------------------------------------


@rule("aten.index.Tensor", "aten.index.Tensor_hacked_twin")
def _index(b: Bound) -> Attribute:
    t = b.tensor("self")
    raw = _as_list(b["indices"])
    if len(raw) > t.rank:
        raise InferenceError("too many indices for the tensor")
    # Boolean masks index as many dims as they have, with a data-dependent count.
    index_shapes: list[list[SymSize] | None] = []
    for v in raw:
        if v is None:
            index_shapes.append(None)
            continue
        it = tensor_type(v, "indices")
        if it.element_dtype in (DType.bool, DType.uint8):
            u: list[SymSize] = [unbacked_symbol()]
            index_shapes.extend([u] * max(it.rank, 1))
        else:
            index_shapes.append(list(it.sizes))
    positions = [i for i, s in enumerate(index_shapes) if s is not None]
    if not positions:
        return t
    bshape = broadcast_shapes(*(s for s in index_shapes if s is not None))
    adjacent = positions == list(range(positions[0], positions[-1] + 1))
    rest_after = list(t.sizes[len(index_shapes) :])
    if adjacent:
        before = [t.sizes[i] for i in range(positions[0])]
        middle = [t.sizes[i] for i in range(positions[-1] + 1, len(index_shapes))]
        shape = [*before, *bshape, *middle, *rest_after]
    else:
        kept = [t.sizes[i] for i, s in enumerate(index_shapes) if s is None]
        shape = [*bshape, *kept, *rest_after]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.index.list_Tensor")
def _index_list(b: Bound) -> Attribute:
    return IntType()


@rule("aten.index_select.default")
def _index_select(b: Bound) -> Attribute:
    t, i = b.tensor("self"), b.tensor("index")
    if i.rank > 1:
        raise InferenceError("index_select index must be 0-d or 1-d")
    if t.rank == 0:
        return t
    d = wrap_dim(b.int("dim"), t.rank)
    shape = list(t.sizes)
    shape[d] = i.sizes[0] if i.rank else 1
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.gather.default")
def _gather(b: Bound) -> Attribute:
    t, i = b.tensor("self"), b.tensor("index")
    wrap_dim(b.int("dim"), t.rank)
    return make_tensor(i.sizes, t.element_dtype, t.device.data)


@rule("aten.embedding.default")
def _embedding(b: Bound) -> Attribute:
    w, i = b.tensor("weight"), b.tensor("indices")
    if w.rank != 2:
        raise InferenceError("embedding weight must be 2-d")
    return make_tensor([*i.sizes, w.sizes[1]], w.element_dtype, w.device.data)


@rule("aten.embedding_dense_backward.default")
def _embedding_backward(b: Bound) -> Attribute:
    g = b.tensor("grad_output")
    return make_tensor([b.size("num_weights"), g.sizes[-1]], g.element_dtype, g.device.data)


@rule("aten._embedding_bag.default")
def _embedding_bag(b: Bound) -> list[Attribute]:
    w, i, o = b.tensor("weight"), b.tensor("indices"), b.tensor("offsets")
    bags = add(o.sizes[0], -1) if b["include_last_offset"] else o.sizes[0]
    dev = w.device.data
    mode = b.int("mode")
    # offset2bag is only materialized for the mean and max modes.
    offset2bag: list[SymSize] = [i.sizes[0]] if mode in (1, 2) else [0]
    return [
        make_tensor([bags, w.sizes[1]], w.element_dtype, dev),
        make_tensor(offset2bag, i.element_dtype, dev),
        make_tensor([bags], i.element_dtype, dev),
        make_tensor([bags, w.sizes[1]] if mode == 2 else [bags], i.element_dtype, dev),
    ]


@rule("aten.nonzero.default")
def _nonzero(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor([unbacked_symbol(), t.rank], DType.int64, t.device.data)


@rule("aten.masked_select.default")
def _masked_select(b: Bound) -> Attribute:
    t = b.tensor("self")
    broadcast_shapes(t.sizes, b.tensor("mask").sizes)
    return make_tensor([unbacked_symbol()], t.element_dtype, t.device.data)


@rule("aten.where.default")
def _where_nonzero(b: Bound) -> Attribute:
    t = b.tensor("condition")
    u = unbacked_symbol()
    return list_type([make_tensor([u], DType.int64, t.device.data)] * t.rank)


# ---------------------------------------------------------------------------
# Creation and conversion
# ---------------------------------------------------------------------------


def _factory(b: Bound, shape: Sequence[SymSize], default: DType) -> Attribute:
    dtype = b.dtype("dtype") or default
    device = b.device("device") or "cpu"
    order = _dim_order(b.get("memory_format"), None, len(shape))
    return make_tensor(shape, dtype, device, order)


@rule(
    "aten.empty.memory_format", "aten.zeros.default", "aten.ones.default", "aten.rand.default",
    "aten.rand.generator", "aten.randn.default", "aten.randn.generator", "aten.empty_strided.default",
)  # fmt: skip
def _empty(b: Bound) -> Attribute:
    return _factory(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.full.default")
def _full(b: Bound) -> Attribute:
    fill = scalar_dtype(b["fill_value"]) or DEFAULT_FLOAT
    default = {DType.float64: DEFAULT_FLOAT}.get(fill, fill)
    return _factory(b, b.sizes("size"), default)


@rule("aten.randperm.default", "aten.randperm.generator")
def _randperm(b: Bound) -> Attribute:
    return _factory(b, [b.size("n")], DType.int64)


@rule("aten.scalar_tensor.default")
def _scalar_tensor(b: Bound) -> Attribute:
    return _factory(b, [], DEFAULT_FLOAT)


def _number(value: object) -> float | int | sympy.Expr:
    value = _value(value)
    if isinstance(value, int | float):
        return value
    if isinstance(value, SSAValue):
        t = value.type
        if isinstance(t, SymIntType | SymFloatType) and t.value is not None:
            return t.value
    raise NoInference(f"arange bound {_describe(value)} is not known")


@rule("aten.arange.default", "aten.arange.start", "aten.arange.start_step")
def _arange(b: Bound) -> Attribute:
    start = b.get("start", 0)
    end, step = b["end"], b.get("step", 1)
    floating = any(scalar_dtype(v) in (DType.float64,) for v in (start, end, step))
    s, e, st = _number(start), _number(end), _number(step)
    if b.dtype("dtype") == DType.int64 and all(isinstance(v, int | float) for v in (s, e, st)):
        # torch's int64 arange converts start, end and step to int64 before sizing the
        # result; other dtypes size it from the arguments as doubles
        s, e, st = int(cast(float, s)), int(cast(float, e)), int(cast(float, st))
    if all(isinstance(v, int | float) for v in (s, e, st)):
        if st == 0:
            raise InferenceError("arange step must be nonzero")
        n: SymSize = max(0, math.ceil((float(e) - float(s)) / float(st)))
    elif all(isinstance(v, int | sympy.Expr) and not isinstance(v, float) for v in (s, e, st)):
        n = ceildiv(add(_norm(cast(SymSize, e)), -_sym(cast(SymSize, s))), cast(SymSize, st))
    else:
        n = _norm(sympy.ceiling((_sym(e) - _sym(s)) / _sym(st)))  # pyright: ignore[reportArgumentType] - floats mixed with symbols: sympy takes all three, _sym is typed for sizes
    return _factory(b, [n], DEFAULT_FLOAT if floating else DType.int64)


@rule("aten.new_empty.default", "aten.new_zeros.default", "aten.new_ones.default", "aten.new_full.default")
def _new(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = b.dtype("dtype") or t.element_dtype
    device = b.device("device") or t.device.data
    return make_tensor(b.sizes("size"), dtype, device)


@rule(
    "aten.zeros_like.default", "aten.ones_like.default", "aten.full_like.default", "aten._to_copy.default",
    "aten.to.dtype_layout",
)  # fmt: skip
def _like(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = b.dtype("dtype") or t.element_dtype
    device = b.device("device") or t.device.data
    return make_tensor(t.sizes, dtype, device, _dim_order(b.get("memory_format"), t, t.rank))


@rule("aten.to.dtype", "aten.to.device", "aten.to.prim_dtype", "aten.to.prim_Device")
def _to(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = b.dtype("dtype") or t.element_dtype
    device = b.device("device") if "device" in b else None
    return make_tensor(t.sizes, dtype, device or t.device.data, _dim_order(b.get("memory_format"), t, t.rank))


@rule("aten.to.other")
def _to_other(b: Bound) -> Attribute:
    t, o = b.tensor("self"), b.tensor("other")
    return make_tensor(t.sizes, o.element_dtype, o.device.data)


@rule("aten.to.prim_other")
def _to_prim_other(b: Bound) -> Attribute:
    return b.tensor("self")


# ---------------------------------------------------------------------------
# Normalization, dropout and backward ops
# ---------------------------------------------------------------------------


def _stats(x: TensorType, shape: Sequence[SymSize]) -> TensorType:
    dtype = DType.float32 if x.element_dtype in (DType.float16, DType.bfloat16) else x.element_dtype
    return make_tensor(shape, dtype, x.device.data)


@rule("aten.native_layer_norm.default")
def _native_layer_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    axis = x.rank - len(b.sizes("normalized_shape"))
    if axis < 0:
        raise InferenceError("normalized_shape has more dims than the input")
    stat = [*x.sizes[:axis], *([1] * (x.rank - axis))]
    return [x, _stats(x, stat), _stats(x, stat)]


@rule("aten.layer_norm.default", "aten.batch_norm.default", "aten.group_norm.default")
def _norm_same(b: Bound) -> Attribute:
    return b.tensor("input")


def _channels(x: TensorType) -> SymSize:
    return x.sizes[1] if x.rank > 1 else x.sizes[0]


@rule(
    "aten.native_batch_norm.default", "aten._native_batch_norm_legit.default",
    "aten._native_batch_norm_legit.no_stats",
)  # fmt: skip
def _native_batch_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    training = bool(b["training"])
    c: SymSize = _channels(x) if training or b.schema.name == "_native_batch_norm_legit" else 0
    return [x, _stats(x, [c]), _stats(x, [c])]


@rule("aten._native_batch_norm_legit_no_training.default")
def _bn_no_training(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    return [x, _stats(x, [0]), _stats(x, [0])]


@rule("aten.native_group_norm.default")
def _native_group_norm(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    stat = [b.size("N"), b.int("group")]
    return [x, _stats(x, stat), _stats(x, stat)]


@rule("aten.native_dropout.default")
def _native_dropout(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    return [x, make_tensor(x.sizes, DType.bool, x.device.data)]


@rule("aten.native_layer_norm_backward.default")
def _layer_norm_backward(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    ns = b.sizes("normalized_shape")
    w, bias = b.opt_tensor("weight"), b.opt_tensor("bias")
    return [x, w or make_tensor(ns, x.element_dtype, x.device.data),
            bias or make_tensor(ns, x.element_dtype, x.device.data)]  # fmt: skip


@rule("aten.native_group_norm_backward.default")
def _group_norm_backward(b: Bound) -> list[Attribute]:
    x = b.tensor("input")
    c = make_tensor([b.size("C")], x.element_dtype, x.device.data)
    return [x, c, c]


@rule("aten.convolution_backward.default")
def _conv_backward(b: Bound) -> list[Attribute]:
    x, w = b.tensor("input"), b.tensor("weight")
    bias_sizes = b.get("bias_sizes")
    nb = b.sizes("bias_sizes") if bias_sizes is not None else [w.sizes[0]]
    return [x, w, make_tensor(nb, w.element_dtype, w.device.data)]


# ---------------------------------------------------------------------------
# Scalars and metadata queries
# ---------------------------------------------------------------------------


@rule("aten._local_scalar_dense.default")
def _local_scalar(b: Bound) -> Attribute:
    c = category(b.tensor("self").element_dtype)
    return (SymBoolType() if c == 0 else SymIntType() if c == 1 else SymFloatType())


@rule("aten.sym_size.int")
def _sym_size(b: Bound) -> Attribute:
    t = b.tensor("self")
    return SymIntType(t.sizes[wrap_dim(b.int("dim"), t.rank)])


@rule("aten.sym_stride.int")
def _sym_stride(b: Bound) -> Attribute:
    t = b.tensor("self")
    return SymIntType(t.strides()[wrap_dim(b.int("dim"), t.rank)])


@rule("aten.sym_numel.default")
def _sym_numel(b: Bound) -> Attribute:
    return SymIntType(b.tensor("self").numel())


@rule("aten.sym_storage_offset.default")
def _sym_storage_offset(b: Bound) -> Attribute:
    b.tensor("self")
    return SymIntType(0)


@rule("aten.sym_is_contiguous.default")
def _sym_is_contiguous(b: Bound) -> Attribute:
    b.tensor("self")
    return SymBoolType()


@rule("aten._fft_r2c.default")
def _fft_r2c(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = list(t.sizes)
    dims = [wrap_dim(d, t.rank) for d in b.ints("dim")]
    if b["onesided"] and dims:
        shape[dims[-1]] = add(floordiv(shape[dims[-1]], 2), 1)
    return make_tensor(shape, _COMPLEX_OF[_to_float(t.element_dtype)], t.device.data)


@rule("aten._fft_c2r.default")
def _fft_c2r(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = list(t.sizes)
    dims = [wrap_dim(d, t.rank) for d in b.ints("dim")]
    shape[dims[-1]] = b.size("last_dim_size")
    return make_tensor(shape, _real(t.element_dtype), t.device.data)


# ---------------------------------------------------------------------------
# The long tail of training-IR operators (issue 12): the overloads the aten
# dialect gained so that TorchScript lowers them and `.pt2` imports them as ops;
# each decomposes (transforms/decompositions.py), and these types are those of
# its decomposition.
# ---------------------------------------------------------------------------


@rule("aten.lift_fresh_copy.default", "aten.channel_shuffle.default", "aten.native_channel_shuffle.default",
      "aten._index_put_impl.default")  # fmt: skip
def _long_tail_same(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.empty_like.default")
def _empty_like(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, b.dtype("dtype") or t.element_dtype, b.device("device") or t.device.data,
                       _dim_order(b.get("memory_format"), t, t.rank))


@rule("aten.empty_permuted.default")
def _empty_permuted(b: Bound) -> Attribute:
    return _factory(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.reshape_as.default", "aten.view_as.default")
def _reshape_as(b: Bound) -> Attribute:
    t, other = b.tensor("self"), b.tensor("other")
    return make_tensor(other.sizes, t.element_dtype, t.device.data)


@rule("aten.broadcast_to.default")
def _broadcast_to(b: Bound) -> Attribute | Sequence[Attribute]:
    return _expand(b)


def _swapped(t: TensorType, d0: int, d1: int) -> TensorType:
    sizes = list(t.sizes)
    if t.rank:
        d0, d1 = wrap_dim(d0, t.rank), wrap_dim(d1, t.rank)
        sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.swapaxes.default")
def _swapaxes(b: Bound) -> Attribute:
    return _swapped(b.tensor("self"), b.int("axis0"), b.int("axis1"))


@rule("aten.swapdims.default")
def _swapdims(b: Bound) -> Attribute:
    return _swapped(b.tensor("self"), b.int("dim0"), b.int("dim1"))


@rule("aten.numpy_T.default")
def _numpy_t(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(list(reversed(t.sizes)), t.element_dtype, t.device.data)


@rule("aten.mT.default")
def _mt(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank < 2:
        raise InferenceError("mT needs at least 2 dimensions")
    return _swapped(t, -1, -2)


@rule("aten.exp2.default")
def _exp2(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, _to_float(t.element_dtype), t.device.data)


@rule("aten.xlogy.Tensor", "aten.xlogy.Scalar_Self", "aten.xlogy.Scalar_Other")
def _xlogy(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("self", "other"))
    return make_tensor(shape, _to_float(dtype), device)


@rule("aten.fmax.default", "aten.fmin.default", "aten.linalg_cross.default")
def _long_tail_binary(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule("aten.trace.default")
def _trace(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor([], _sum_dtype(t, None), t.device.data)


@rule("aten.diff.default")
def _diff(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        raise InferenceError("diff needs at least one dimension")
    d = wrap_dim(b.int("dim"), t.rank)
    length: SymSize = t.sizes[d]
    dtype = t.element_dtype
    for extra in ("prepend", "append"):
        if b.get(extra) is not None:
            other = b.tensor(extra)
            length = add(length, other.sizes[d] if other.rank else 1)
            dtype = promote_types(dtype, other.element_dtype)
    n = b.int("n")
    if isinstance(length, int):
        length = max(length - n, 0)
    else:
        length = add(length, -n)
    return make_tensor([*t.sizes[:d], length, *t.sizes[d + 1 :]], dtype, t.device.data)


@rule("aten.diag_embed.default")
def _diag_embed(b: Bound) -> Attribute:
    t = b.tensor("self")
    rank = t.rank + 1
    d1, d2 = wrap_dim(b.int("dim1"), rank), wrap_dim(b.int("dim2"), rank)
    n = add(t.sizes[-1], abs(b.int("offset")))
    rest = iter(t.sizes[:-1])
    sizes = [n if i in (d1, d2) else next(rest) for i in range(rank)]
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.pixel_shuffle.default", "aten.pixel_unshuffle.default")
def _pixel_shuffle(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank < 3:
        raise InferenceError("pixel (un)shuffle needs at least 3 dimensions")
    c, h, w = t.sizes[-3:]
    if b.schema.name == "pixel_shuffle":
        r = b.int("upscale_factor")
        out = [floordiv(c, r * r), mul(h, r), mul(w, r)]
    else:
        r = b.int("downscale_factor")
        out = [mul(c, r * r), floordiv(h, r), floordiv(w, r)]
    return make_tensor([*t.sizes[:-3], *out], t.element_dtype, t.device.data)


@rule("aten.eye.default", "aten.eye.m")
def _eye(b: Bound) -> Attribute:
    n = b.size("n")
    return _factory(b, [n, b.size("m") if "m" in b else n], DEFAULT_FLOAT)


@rule("aten._convolution.default", "aten._convolution.deprecated")
def _convolution_full(b: Bound) -> Attribute | Sequence[Attribute]:
    return _conv(b)


@rule("aten.unfold.default")
def _unfold(b: Bound) -> Attribute:
    t = b.tensor("self")
    size, step = b.int("size"), b.int("step")
    if t.rank == 0:
        return make_tensor([size], t.element_dtype, t.device.data)
    d = wrap_dim(b.int("dimension"), t.rank)
    windows = add(floordiv(add(t.sizes[d], -size), step), 1)
    return make_tensor([*t.sizes[:d], windows, *t.sizes[d + 1 :], size], t.element_dtype, t.device.data)


@rule("aten.adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(b: Bound) -> Attribute | Sequence[Attribute]:
    return _adaptive(b)


@rule("aten.linalg_vector_norm.default")
def _vector_norm(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = _reduce_shape(t, _dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, _real(b.dtype("dtype") or t.element_dtype), t.device.data)


_NONE_REDUCTION = 0


@rule("aten.kl_div.default")
def _kl_div(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("self", "target"))
    return make_tensor(shape if b.int("reduction") == _NONE_REDUCTION else [], dtype, device)


@rule("aten.threshold_backward.default")
def _threshold_backward(b: Bound) -> Attribute:
    return b.tensor("grad_output")


def _nll_output(b: Bound) -> TensorType:
    t, target = b.tensor("self"), b.tensor("target")
    shape = list(target.sizes) if b.int("reduction") == _NONE_REDUCTION and t.rank > 1 else []
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.nll_loss_forward.default", "aten.nll_loss2d_forward.default")
def _nll_loss_forward(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    return [_nll_output(b), make_tensor([], t.element_dtype, t.device.data)]


@rule("aten.nll_loss.default", "aten.nll_loss_nd.default", "aten.nll_loss2d.default", "aten.cross_entropy_loss.default")
def _nll_loss(b: Bound) -> Attribute:
    return _nll_output(b)


@rule("aten.nll_loss_backward.default", "aten.nll_loss2d_backward.default")
def _nll_loss_backward(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.linspace.default")
def _linspace(b: Bound) -> Attribute:
    return _factory(b, [b.size("steps")], DEFAULT_FLOAT)


@rule("aten.item.default")
def _item(b: Bound) -> Attribute | Sequence[Attribute]:
    return _local_scalar(b)


@rule(
    "quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.quantize_per_tensor.tensor",
    "quantized_decomposed.quantize_per_tensor.tensor2",
)  # fmt: skip
def _quantize_per_tensor(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("dtype") or DType.int8, t.device.data)


@rule(
    "quantized_decomposed.dequantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.tensor",
    "quantized_decomposed.dequantize_per_tensor.tensor2",
)  # fmt: skip
def _dequantize_per_tensor(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("out_dtype") or DType.float32, t.device.data)


@rule(
    "aten.square.default", "aten.threshold.default", "aten.glu.default", "aten.celu.default",
    "aten.selu.default", "aten.prelu.default", "aten.hardshrink.default", "aten.softshrink.default",
    "aten.frac.default", "aten.positive.default", "aten.lift_fresh.default", "aten.fliplr.default",
    "aten.flipud.default", "aten.log_sigmoid.default",
)  # fmt: skip
def _long_tail_unary(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "glu":
        d = wrap_dim(b.int("dim"), t.rank)
        sizes = list(t.sizes)
        sizes[d] = floordiv(sizes[d], 2)
        return make_tensor(sizes, t.element_dtype, t.device.data)
    if b.schema.name == "square" and t.element_dtype == DType.bool:
        return make_tensor(t.sizes, DType.int64, t.device.data)
    return t


@rule("aten.rms_norm.default")
def _rms_norm(b: Bound) -> Attribute:
    return b.tensor("input")


@rule("aten.sinc.default", "aten.logit.default", "aten.rad2deg.default", "aten.deg2rad.default")
def _long_tail_float(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, _to_float(t.element_dtype), t.device.data)


@rule("aten.isfinite.default", "aten.isposinf.default", "aten.isneginf.default")
def _long_tail_bool(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.bool, t.device.data)


@rule("aten.logaddexp.default", "aten.hypot.default", "aten.heaviside.default")
def _long_tail_pointwise(b: Bound) -> Attribute:
    names = ("self", "values") if b.schema.name == "heaviside" else ("self", "other")
    shape, dtype, device = _pointwise(b, names)
    return make_tensor(shape, dtype, device)


@rule("aten.logsumexp.default")
def _logsumexp(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = _reduce_shape(t, _dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, _to_float(t.element_dtype), t.device.data)


@rule("aten.nansum.default")
def _nansum(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = _reduce_shape(t, _dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, _sum_dtype(t, b.dtype("dtype")), t.device.data)


@rule("aten.count_nonzero.dim_IntList", "aten.count_nonzero.default")
def _count_nonzero(b: Bound) -> Attribute:
    t = b.tensor("self")
    dim = b.get("dim")
    dims = None if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    return make_tensor(_reduce_shape(t, dims, False), DType.int64, t.device.data)


@rule("aten.aminmax.default")
def _aminmax(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    dims = None if b.get("dim") is None else [b.int("dim")]
    shape = _reduce_shape(t, dims, bool(b.get("keepdim", False)))
    return [make_tensor(shape, t.element_dtype, t.device.data)] * 2


@rule("aten.dist.default")
def _dist(b: Bound) -> Attribute:
    _, dtype, device = _pointwise(b, ("self", "other"))
    return make_tensor([], dtype, device)


@rule("aten.mse_loss.default", "aten.l1_loss.default", "aten.smooth_l1_loss.default", "aten.huber_loss.default",
      "aten.binary_cross_entropy.default", "aten.binary_cross_entropy_with_logits.default")  # fmt: skip
def _pointwise_loss(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("self", "target"))
    return make_tensor(shape if b.int("reduction") == _NONE_REDUCTION else [], dtype, device)


@rule("aten.cosine_similarity.default")
def _cosine_similarity(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("x1", "x2"))
    d = wrap_dim(b.int("dim"), len(shape))
    return make_tensor([s for i, s in enumerate(shape) if i != d], dtype, device)


@rule("aten.pairwise_distance.default")
def _pairwise_distance(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("x1", "x2"))
    dtype = _to_float(dtype)  # x1 - x2 + eps
    if not shape:
        return make_tensor([], dtype, device)
    return make_tensor([*shape[:-1], 1] if b.get("keepdim") else shape[:-1], dtype, device)


@rule("aten.tile.default")
def _tile(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = b.ints("dims")
    lead = max(len(dims) - t.rank, 0)
    sizes = [1] * lead + list(t.sizes)
    dims = [1] * (len(sizes) - len(dims)) + dims
    return make_tensor([mul(s, r) for s, r in zip(sizes, dims)], t.element_dtype, t.device.data)


@rule("aten.ravel.default")
def _ravel(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor([_numel(t.sizes)], t.element_dtype, t.device.data)


@rule("aten.repeat_interleave.self_int")
def _repeat_interleave(b: Bound) -> Attribute:
    t = b.tensor("self")
    r = b.size("repeats")
    if b.get("dim") is None:
        return make_tensor([mul(_numel(t.sizes), r)], t.element_dtype, t.device.data)
    d = wrap_dim(b.int("dim"), t.rank)
    sizes = list(t.sizes)
    sizes[d] = mul(sizes[d], r)
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.one_hot.default")
def _one_hot(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = b.int("num_classes")
    if n < 0:
        raise NoInference("one_hot without num_classes has a data-dependent size")
    return make_tensor([*t.sizes, n], DType.int64, t.device.data)


@rule("aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input")
def _conv_transpose(b: Bound) -> Attribute:
    x, w = b.tensor("input"), b.tensor("weight")
    n = w.rank - 2
    batched = x.rank == n + 2
    stride, padding = _spatial(b, "stride", n), _spatial(b, "padding", n)
    output_padding, dilation = _spatial(b, "output_padding", n), _spatial(b, "dilation", n)
    spatial = [
        add(mul(add(x.sizes[-n + i], -1), stride[i]), -2 * padding[i], dilation[i] * (w.sizes[2 + i] - 1) if isinstance(w.sizes[2 + i], int) else mul(dilation[i], add(w.sizes[2 + i], -1)), output_padding[i], 1)
        for i in range(n)
    ]
    channels = mul(w.sizes[1], b.int("groups"))
    lead = [x.sizes[0], channels] if batched else [channels]
    return make_tensor([*lead, *spatial], x.element_dtype, x.device.data)


@rule(
    "aten.view_copy.default", "aten.permute_copy.default", "aten.transpose_copy.int", "aten.slice_copy.Tensor",
    "aten.unsqueeze_copy.default",
)  # fmt: skip
def _view_copy(b: Bound) -> Attribute | Sequence[Attribute]:
    """A view's `_copy` form has the view's type, contiguous."""
    view = lookup(b.schema.op_name.replace("_copy.", "."))
    assert view is not None
    rule_fn = _RULES[view.op_name]
    return rule_fn(Bound(view.schema, dict(b)))


@rule("aten.argsort.default", "aten.argsort.stable")
def _argsort(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.int64, t.device.data)


@rule("aten.msort.default", "aten.take_along_dim.default", "aten.index_add.default", "aten.index_copy.default",
      "aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor", "aten._safe_softmax.default")  # fmt: skip
def _like_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "_safe_softmax" and b.dtype("dtype") is not None:
        return make_tensor(t.sizes, cast(DType, b.dtype("dtype")), t.device.data)
    if b.schema.name == "take_along_dim":
        i = b.tensor("indices")
        if b.get("dim") is None:
            return make_tensor([_numel(i.sizes)], t.element_dtype, t.device.data)
        d = wrap_dim(b.int("dim"), t.rank)
        shape = broadcast_shapes([1 if k == d else s for k, s in enumerate(t.sizes)],
                                 [1 if k == d else s for k, s in enumerate(i.sizes)])
        shape[d] = i.sizes[d]
        return make_tensor(shape, t.element_dtype, t.device.data)
    return t


@rule("aten.std_mean.correction", "aten.std_mean.dim", "aten.std_mean.default")
def _std_mean(b: Bound) -> Attribute | Sequence[Attribute]:
    return _var_mean(b)


@rule("aten.diag.default")
def _diag(b: Bound) -> Attribute:
    t = b.tensor("self")
    k = b.int("diagonal")
    if t.rank == 1:
        n = add(t.sizes[0], abs(k))
        return make_tensor([n, n], t.element_dtype, t.device.data)
    h, w = t.sizes
    if isinstance(h, int) and isinstance(w, int):
        length: SymSize = max(0, min(h + min(k, 0), w - max(k, 0)))
    else:
        length = sym_min(add(h, min(k, 0)), add(w, -max(k, 0)))
    return make_tensor([length], t.element_dtype, t.device.data)


@rule("aten.mv.default", "aten.addmv.default")
def _mv(b: Bound) -> Attribute:
    m = b.tensor("self" if b.schema.name == "mv" else "mat")
    dtype = result_type([b[n] for n in (("self", "vec") if b.schema.name == "mv" else ("self", "mat", "vec"))])
    return make_tensor([m.sizes[0]], dtype, m.device.data)


@rule("aten.ger.default", "aten.addr.default")
def _outer_product(b: Bound) -> Attribute:
    v1, v2 = (b.tensor("self"), b.tensor("vec2")) if b.schema.name == "ger" else (b.tensor("vec1"), b.tensor("vec2"))
    names = ("self", "vec2") if b.schema.name == "ger" else ("self", "vec1", "vec2")
    return make_tensor([v1.sizes[0], v2.sizes[0]], result_type([b[n] for n in names]), v1.device.data)


@rule("aten.inner.default")
def _inner(b: Bound) -> Attribute:
    x, y = b.tensor("self"), b.tensor("other")
    dtype, device = result_type([b["self"], b["other"]]), x.device.data
    if x.rank == 0 or y.rank == 0:
        return make_tensor(broadcast_shapes(x.sizes, y.sizes), dtype, device)
    return make_tensor([*x.sizes[:-1], *y.sizes[:-1]], dtype, device)


@rule("aten._add_relu.Tensor")
def _add_relu(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule("aten._addmm_activation.default")
def _addmm_activation(b: Bound) -> Attribute:
    m1, m2 = b.tensor("mat1"), b.tensor("mat2")
    dtype = result_type([b[n] for n in ("self", "mat1", "mat2")])
    return make_tensor([m1.sizes[0], m2.sizes[1]], dtype, m1.device.data)


@rule("aten.take.default")
def _take(b: Bound) -> Attribute:
    t, i = b.tensor("self"), b.tensor("index")
    return make_tensor(i.sizes, t.element_dtype, t.device.data)


@rule("aten.max_pool1d.default")
def _max_pool1d(b: Bound) -> Attribute:
    t = b.tensor("self")
    k = b.ints("kernel_size", 1)[0]
    stride = b.ints("stride", 1)[0] if b.get("stride") else k
    out = pool_out(t.sizes[-1], k, stride, b.ints("padding", 1)[0], b.ints("dilation", 1)[0], bool(b["ceil_mode"]))
    return make_tensor([*t.sizes[:-1], out], t.element_dtype, t.device.data)


@rule("aten.atleast_2d.default", "aten.atleast_3d.default")
def _atleast(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = int(b.schema.name[-2])
    sizes = list(t.sizes)
    if len(sizes) >= n:
        return t
    if not sizes:
        sizes = [1] * n
    elif n == 2:
        sizes = [1, *sizes]
    else:
        sizes = [1, *sizes, 1] if len(sizes) == 1 else [*sizes, 1]
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.instance_norm.default")
def _instance_norm(b: Bound) -> Attribute:
    return b.tensor("input")


@rule("aten.upsample_nearest1d.vec", "aten.upsample_nearest1d.default", "aten.upsample_nearest3d.vec",
      "aten.upsample_nearest3d.default")  # fmt: skip
def _upsample_nearest_nd(b: Bound) -> Attribute:
    t = b.tensor("input" if "input" in b else "self")
    n = t.rank - 2
    out_arg = b.get("output_size")
    if out_arg is not None:
        out = b.sizes("output_size", n)
    else:
        factors = cast(list[float] | None, b.get("scale_factors"))
        if factors is None:
            raise InferenceError("either output_size or scale_factors is required")
        out = []
        for s, f in zip(t.sizes[2:], factors):
            if not isinstance(s, int):
                raise NoInference("a symbolic size scaled by a float")
            out.append(int(math.floor(s * float(f))))
    return make_tensor([*t.sizes[:2], *out], t.element_dtype, t.device.data)


@rule(*(f"aten.{w}.{ov}" for w in ("hann_window", "hamming_window", "blackman_window", "bartlett_window")
        for ov in ("default", "periodic")))  # fmt: skip
def _window(b: Bound) -> Attribute:
    return _factory(b, [b.int("window_length")], DEFAULT_FLOAT)


@rule("aten.range.step", "aten.range.default")
def _range(b: Bound) -> Attribute:
    s, e, st = (float(cast(float, _number(b.get(k, 1)))) for k in ("start", "end", "step"))
    if st == 0:
        raise InferenceError("range step must be nonzero")
    return _factory(b, [max(int(math.floor((e - s) / st)) + 1, 0)], DEFAULT_FLOAT)


@rule(
    "aten.sigmoid_backward.default", "aten.tanh_backward.default", "aten.silu_backward.default",
    "aten.gelu_backward.default", "aten.hardswish_backward.default", "aten.hardsigmoid_backward.default",
    "aten.hardtanh_backward.default", "aten.leaky_relu_backward.default", "aten.softplus_backward.default",
    "aten.elu_backward.default", "aten.mish_backward.default", "aten.hardshrink_backward.default",
    "aten.softshrink_backward.default", "aten.log_sigmoid_backward.default", "aten.logit_backward.default",
    "aten.mse_loss_backward.default", "aten.native_dropout_backward.default",
)  # fmt: skip
def _pointwise_backward(b: Bound) -> Attribute:
    """The gradient of a pointwise activation or loss: the broadcast of the gradient and the saved tensor."""
    names = [a.name for a in b.schema.arguments if a.name in _BACKWARD_TENSORS]
    shape, dtype, device = _pointwise(b, names)
    return make_tensor(shape, dtype, device)


_BACKWARD_TENSORS = frozenset({"grad_output", "grad_out", "self", "output", "self_or_result", "target", "buffer"})


@rule("aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default")
def _softmax_backward_data(b: Bound) -> Attribute:
    t = b.tensor("grad_output")
    return make_tensor(t.sizes, b.dtype("input_dtype") or t.element_dtype, t.device.data)


_ALIAS_RULES: dict[str, str] = {
    **{f"aten.{a}.default": f"aten.{c}.default" for a, c in (
        ("absolute", "abs"), ("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"),
        ("arcsinh", "asinh"), ("arctanh", "atanh"), ("fix", "trunc"), ("negative", "neg"),
        ("special_erf", "erf"), ("special_expm1", "expm1"), ("special_log1p", "log1p"), ("special_exp2", "exp2"),
        ("special_expit", "sigmoid"), ("special_logit", "logit"), ("special_sinc", "sinc"), ("erfc", "erf"),
        ("logaddexp2", "logaddexp"), ("sgn", "sign"), ("zero", "clone"), ("concat", "cat"), ("concatenate", "cat"),
        ("special_logsumexp", "logsumexp"), ("feature_dropout", "dropout"), ("alpha_dropout", "dropout"),
        ("feature_alpha_dropout", "dropout"), ("clip", "clamp"),
        ("alias_copy", "alias"), ("detach_copy", "detach"), ("expand_copy", "expand"), ("t_copy", "t"),
        ("squeeze_copy", "squeeze"), ("diagonal_copy", "diagonal"), ("unfold_copy", "unfold"),
        ("as_strided_copy", "as_strided"), ("narrow_copy", "narrow"),
    )},
    **{f"aten.{a}.{o}": f"aten.{c}.{o}" for a, c, overloads in (
        ("multiply", "mul", ("Tensor", "Scalar")), ("subtract", "sub", ("Tensor", "Scalar")),
        ("greater", "gt", ("Tensor", "Scalar")), ("greater_equal", "ge", ("Tensor", "Scalar")),
        ("less", "lt", ("Tensor", "Scalar")), ("less_equal", "le", ("Tensor", "Scalar")),
        ("not_equal", "ne", ("Tensor", "Scalar")), ("clip", "clamp", ("Tensor",)),
        ("moveaxis", "movedim", ("int", "intlist")),
        ("squeeze_copy", "squeeze", ("dim", "dims")), ("select_copy", "select", ("int",)),
    ) for o in overloads},
    "aten.special_xlogy.default": "aten.xlogy.Tensor",
    "aten.special_xlogy.other_scalar": "aten.xlogy.Scalar_Other",
    "aten.special_xlogy.self_scalar": "aten.xlogy.Scalar_Self",
    "aten.special_softmax.default": "aten.softmax.int",
    "aten.special_log_softmax.default": "aten.log_softmax.int",
    "aten.special_round.default": "aten.round.decimals",
}  # fmt: skip
"""Aliases (torch's other spellings, `_copy` forms of views) whose result type is their operator's."""

for _alias, _canonical in _ALIAS_RULES.items():
    rule(_alias)(_RULES[_canonical])


# -- linear algebra (kernels in interpreters/aten_kernels/lapack.py) ------------------------


def _matrices(b: Bound, name: str, square: bool = False) -> TensorType:
    """A batch of floating matrices (torch's linalg functions take no integer tensors)."""
    t = b.tensor(name)
    if t.rank < 2:
        raise InferenceError(f"{b.schema.name}: {name} must have at least 2 dimensions")
    if not (t.element_dtype.is_floating_point or t.element_dtype.is_complex):
        raise InferenceError(f"{b.schema.name}: expected a floating point tensor, got {t.element_dtype.value}")
    m, n = t.sizes[-2], t.sizes[-1]
    if square and isinstance(m, int) and isinstance(n, int) and m != n:
        raise InferenceError(f"{b.schema.name}: {name} must be batches of square matrices")
    return t


def _smaller(m: SymSize, n: SymSize) -> SymSize:
    return min(m, n) if isinstance(m, int) and isinstance(n, int) else sympy.Min(m, n)


@rule(
    "aten.linalg_inv.default", "aten.inverse.default", "aten.linalg_matrix_exp.default", "aten.matrix_exp.default",
    "aten.linalg_matrix_power.default", "aten.matrix_power.default", "aten.linalg_cholesky.default",
    "aten.cholesky.default", "aten.cholesky_inverse.default",
)  # fmt: skip
def _linalg_same(b: Bound) -> Attribute:
    name = "A" if "A" in b else "self"
    square = b.schema.name not in ("cholesky_inverse",)
    if b.schema.name in ("matrix_power", "linalg_matrix_power"):
        t = b.tensor(name)
        if t.rank < 2:
            raise InferenceError(f"{b.schema.name}: the input must have at least 2 dimensions")
        return t
    return _matrices(b, name, square)


@rule("aten.linalg_inv_ex.default", "aten.linalg_cholesky_ex.default")
def _linalg_with_info(b: Bound) -> list[Attribute]:
    t = _matrices(b, "A" if "A" in b else "self", True)
    return [t, make_tensor(t.sizes[:-2], DType.int32, t.device.data)]


@rule("aten.linalg_det.default", "aten.det.default", "aten.logdet.default")
def _linalg_det(b: Bound) -> Attribute:
    t = _matrices(b, "A" if "A" in b else "self", True)
    return make_tensor(t.sizes[:-2], t.element_dtype, t.device.data)


@rule("aten.linalg_slogdet.default", "aten.slogdet.default")
def _linalg_slogdet(b: Bound) -> list[Attribute]:
    t = _matrices(b, "A" if "A" in b else "self", True)
    batch = make_tensor(t.sizes[:-2], t.element_dtype, t.device.data)
    return [batch, batch]


@rule("aten.linalg_svdvals.default")
def _linalg_svdvals(b: Bound) -> Attribute:
    t = _matrices(b, "A")
    return make_tensor([*t.sizes[:-2], _smaller(t.sizes[-2], t.sizes[-1])], t.element_dtype, t.device.data)


@rule("aten.linalg_eigvalsh.default")
def _linalg_eigvalsh(b: Bound) -> Attribute:
    t = _matrices(b, "self", True)
    return make_tensor(t.sizes[:-1], t.element_dtype, t.device.data)


@rule("aten.linalg_eigh.default")
def _linalg_eigh(b: Bound) -> list[Attribute]:
    t = _matrices(b, "self", True)
    return [make_tensor(t.sizes[:-1], t.element_dtype, t.device.data), t]


@rule("aten.linalg_qr.default")
def _linalg_qr(b: Bound) -> list[Attribute]:
    t = _matrices(b, "A")
    m, n = t.sizes[-2], t.sizes[-1]
    mode = b.get("mode", "reduced") or "reduced"
    k = m if mode == "complete" else _smaller(m, n)
    r = make_tensor([*t.sizes[:-2], k, n], t.element_dtype, t.device.data)
    if mode == "r":
        return [make_tensor([0], t.element_dtype, t.device.data), r]
    return [make_tensor([*t.sizes[:-2], m, k], t.element_dtype, t.device.data), r]


@rule("aten.linalg_pinv.default", "aten.linalg_pinv.atol_rtol_float", "aten.linalg_pinv.atol_rtol_tensor",
      "aten.linalg_pinv.rcond_tensor", "aten.pinverse.default")
def _linalg_pinv(b: Bound) -> Attribute:
    """(..., n, m); tolerance tensors broadcast with the batch dims."""
    t = _matrices(b, "self")
    tols = [b.tensor(n).sizes for n in ("rcond", "atol", "rtol") if isinstance(b.get(n), SSAValue)]
    batch = broadcast_shapes(t.sizes[:-2], *tols) if tols else list(t.sizes[:-2])
    return make_tensor([*batch, t.sizes[-1], t.sizes[-2]], t.element_dtype, t.device.data)


@rule("aten.linalg_vecdot.default")
def _linalg_vecdot(b: Bound) -> Attribute:
    shape, dtype, device = _pointwise(b, ("x", "y"))
    if not (dtype.is_floating_point or dtype.is_complex):
        raise InferenceError(f"linalg.vecdot: expected a floating point tensor, got {dtype.value}")
    d = wrap_dim(b.int("dim") if b.get("dim") is not None else -1, len(shape))
    return make_tensor([s for i, s in enumerate(shape) if i != d], dtype, device)


@rule("aten.linalg_matrix_norm.default", "aten.linalg_matrix_norm.str_ord")
def _linalg_matrix_norm(b: Bound) -> Attribute:
    t = _matrices(b, "self")
    dims = b.ints("dim") if b.get("dim") is not None else [-2, -1]
    dtype = b.dtype("dtype") or t.element_dtype
    return make_tensor(_reduce_shape(t, dims, bool(b.get("keepdim", False))), dtype, t.device.data)


@rule("aten.linalg_norm.default", "aten.linalg_norm.ord_str")
def _linalg_norm(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not (t.element_dtype.is_floating_point or t.element_dtype.is_complex):
        raise InferenceError(f"linalg.norm: expected a floating point tensor, got {t.element_dtype.value}")
    dims = _dims_arg(b)
    dtype = b.dtype("dtype") or t.element_dtype
    return make_tensor(_reduce_shape(t, dims, bool(b.get("keepdim", False))), dtype, t.device.data)


# -- gradients of views and indexing, more losses (decompositions in transforms/decompositions.py) ---


@rule("aten.select_backward.default", "aten.slice_backward.default", "aten.index_select_backward.default",
      "aten.trace_backward.default")
def _view_backward(b: Bound) -> Attribute:
    """The gradient has the shape of the viewed tensor (`input_sizes`) and the gradient's dtype."""
    g = b.tensor("grad_output" if "grad_output" in b else "grad")
    name = next(n for n in ("input_sizes", "self_sizes", "sizes") if n in b)
    return make_tensor(b.sizes(name), g.element_dtype, g.device.data)


@rule("aten.gather_backward.default")
def _gather_backward(b: Bound) -> Attribute:
    g, x = b.tensor("grad"), b.tensor("self")
    return make_tensor(x.sizes, g.element_dtype, g.device.data)


@rule("aten.embedding_backward.default")
def _embedding_backward_any(b: Bound) -> Attribute:
    g = b.tensor("grad")
    return make_tensor([as_size(b["num_weights"], "num_weights"), g.sizes[-1]], g.element_dtype, g.device.data)


@rule("aten.smooth_l1_loss_backward.default", "aten.huber_loss_backward.default",
      "aten.binary_cross_entropy_backward.default", "aten.rrelu_with_noise_backward.default")
def _loss_backward(b: Bound) -> Attribute:
    names = [n for n in ("grad_output", "self", "target", "weight", "noise") if isinstance(b.get(n), SSAValue)]
    shape, dtype, device = _pointwise(b, names)
    return make_tensor(shape, dtype, device)


@rule("aten.glu_backward.default")
def _glu_backward(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.isclose.default")
def _isclose(b: Bound) -> Attribute:
    shape, _, device = _pointwise(b, ("self", "other"))
    return make_tensor(shape, DType.bool, device)


@rule("aten.vdot.default")
def _vdot(b: Bound) -> Attribute:
    x, y = b.tensor("self"), b.tensor("other")
    if x.rank != 1 or y.rank != 1:
        raise InferenceError("vdot: expected 1-D tensors")
    if x.element_dtype != y.element_dtype:
        raise InferenceError(f"vdot: expected both tensors of one dtype, got {x.element_dtype.value} and {y.element_dtype.value}")
    return make_tensor([], x.element_dtype, x.device.data)


@rule("aten.margin_ranking_loss.default", "aten.hinge_embedding_loss.default", "aten.soft_margin_loss.default",
      "aten.poisson_nll_loss.default")
def _more_losses(b: Bound) -> Attribute:
    names = [n for n in ("input1", "input2", "input", "self", "target") if n in b]
    shape, dtype, device = _pointwise(b, names)
    return make_tensor(shape if b.int("reduction") == _NONE_REDUCTION else [], dtype, device)


# -- random samplers (interpreters/aten_kernels/random.py) -------------------------------------


@rule("aten.rand_like.default", "aten.randn_like.default", "aten.randint_like.default", "aten.randint_like.low_dtype",
      "aten.randint_like.Tensor")
def _random_like(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, b.dtype("dtype") or t.element_dtype, b.device("device") or t.device.data)


@rule("aten.randint.default", "aten.randint.generator", "aten.randint.low", "aten.randint.low_generator")
def _randint(b: Bound) -> Attribute:
    return _factory(b, b.sizes("size"), DType.int64)


@rule("aten.normal.float_float")
def _normal_sized(b: Bound) -> Attribute:
    return _factory(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.normal.Tensor_float", "aten.normal.float_Tensor", "aten.normal.Tensor_Tensor")
def _normal_tensors(b: Bound) -> Attribute:
    names = [n for n in ("mean", "std") if isinstance(b.get(n), SSAValue)]
    shape, dtype, device = _pointwise(b, names)
    return make_tensor(shape, dtype, device)


@rule(
    "aten.normal_functional.default", "aten.uniform.default", "aten.exponential.default", "aten.log_normal.default",
    "aten.cauchy.default", "aten.geometric.default", "aten.random.default", "aten.random.from", "aten.random.to",
    "aten.poisson.default", "aten._standard_gamma.default", "aten._sample_dirichlet.default",
    "aten.bernoulli.default", "aten.bernoulli.p",
)  # fmt: skip
def _random_same(b: Bound) -> Attribute:
    """A sample of the input's shape and dtype, one per element."""
    return b.tensor("self")


@rule("aten.binomial.default")
def _binomial(b: Bound) -> Attribute:
    return b.tensor("count")


@rule("aten.multinomial.default")
def _multinomial(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank not in (1, 2):
        raise InferenceError("multinomial: prob_dist must be 1 or 2 dim")
    return make_tensor([*t.sizes[:-1], b.size("num_samples")], DType.int64, t.device.data)
