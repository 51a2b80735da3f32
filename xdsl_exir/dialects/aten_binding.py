"""
Arguments of an `aten` op bound to its schema: the `Bound` mapping with typed
accessors (a tensor argument's type, a size, a dtype), and the errors binding
and result-type inference raise.

It sits in the dialect layer because the `aten` dialect binds its own
arguments (`AtenOp.bound_arguments`, the verifier, `AtenOp.build`) before it
asks the semantics layer's inference rules for result types; the rules, the
kernels' callers and the passes read the same `Bound`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import DeviceAttr, DType, DTypeAttr, IntType, ListType, SymIntType, TensorType
from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.schema_binding import SchemaBindError, bind
from xdsl_exir.utils.symbolic import SymSize, sympy

__all__ = [
    "DTYPE_CODES",
    "BindError",
    "Bound",
    "InferenceError",
    "NoInference",
    "argument_value",
    "as_dtype",
    "as_list",
    "as_size",
    "bind_arguments",
    "describe_value",
    "normalize_size",
    "tensor_type",
]


class InferenceError(ValueError):
    """The arguments are invalid for the operator (torch would raise too)."""


class BindError(InferenceError):
    """The arguments do not bind to the operator's schema."""


class NoInference(Exception):
    """The result type cannot be computed from the argument types alone."""


def normalize_size(value: SymSize) -> SymSize:
    """Plain int for constant sizes, sympy otherwise (fast path for ints)."""
    if type(value) is int:
        return value
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, sympy.Basic) and value.is_Integer:
        return int(value)
    return value


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

    def value(self, name: str) -> SSAValue:
        """The SSA value an argument is bound to (a rule's operand), checked rather than cast."""
        value = argument_value(self[name])
        if isinstance(value, SSAValue):
            return value
        raise InferenceError(f"'{name}' must be a value, got {describe_value(value)}")

    def tensor(self, name: str) -> TensorType:
        return tensor_type(self[name], name)

    def opt_tensor(self, name: str) -> TensorType | None:
        value = self.get(name)
        return None if value is None else tensor_type(value, name)

    def tensors(self, name: str) -> list[TensorType]:
        return [tensor_type(v, name) for v in as_list(self[name])]

    def size(self, name: str) -> SymSize:
        return as_size(self[name], name)

    def opt_size(self, name: str) -> SymSize | None:
        value = self.get(name)
        return None if value is None else as_size(value, name)

    def sizes(self, name: str, n: int | None = None) -> list[SymSize]:
        value = self[name]
        if n is not None and not isinstance(value, list | tuple):
            value = [value] * n
        sizes = [as_size(v, name) for v in as_list(value)]
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


def as_list(value: object) -> list[object]:
    if isinstance(value, list | tuple):
        return list(cast(Sequence[object], value))
    if isinstance(value, SSAValue) and isinstance(value.type, ListType):
        raise NoInference("a list passed as one SSA value has unknown elements")
    return [value]


def argument_value(v: object) -> object:
    return v.results[0] if isinstance(v, Operation) else v


def tensor_type(value: object, what: str = "argument") -> TensorType:
    value = argument_value(value)
    if isinstance(value, SSAValue) and isinstance(value.type, TensorType):
        return value.type
    raise InferenceError(f"'{what}' must be a tensor, got {describe_value(value)}")


def as_size(value: object, what: str = "argument") -> SymSize:
    """An int-like argument as a size: int constant or a SymInt with known value."""
    value = argument_value(value)
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    if isinstance(value, SSAValue):
        t = value.type
        if isinstance(t, SymIntType):
            if t.value is None:
                raise NoInference(f"'{what}' is a SymInt of unknown value")
            return normalize_size(t.value)
        if isinstance(t, IntType):
            raise NoInference(f"'{what}' is an int known only at run time")
    if isinstance(value, sympy.Expr):
        return normalize_size(value)
    raise InferenceError(f"'{what}' must be an int, got {describe_value(value)}")


DTYPE_CODES = {
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
    if isinstance(value, int) and value in DTYPE_CODES:
        return DTYPE_CODES[value]
    raise InferenceError(f"{describe_value(value)} is not a dtype")


def describe_value(value: object) -> str:
    if isinstance(value, SSAValue):
        return f"a value of type {value.type}"
    return repr(value)


def bind_arguments(schema: FunctionSchema, args: Sequence[object], kwargs: Mapping[str, object]) -> Bound:
    """FX args/kwargs bound by the core binder (defaults filled), as a `Bound` with typed
    accessors; arguments the schema refuses are a `BindError`, since torch would refuse them too."""
    try:
        values, _ = bind(schema, args, kwargs)
    except SchemaBindError as e:
        raise BindError(str(e)) from None
    return Bound(schema, values)
