"""
The `aten` dialect: one operation per ATen overload of `aten_ops.txt`, generated
from the operator schemas rather than written by hand.

Every op has the operand layout of `exir.call_function` (an FX argument tree in
the `args`/`kwargs` properties whose `#exir.ref<i>` leaves point at variadic
operands, and variadic results), so converting between the two is a rename:

    %r = aten.add.Tensor(%x, %y, alpha = 2) : (T, T) -> T

Classes are made by a factory from the `AtenOp` base. Importing the dialect
only reads the op list: schemas are parsed, and traits computed, when an op's
`SCHEMA` or traits are first asked for.

Effects (derived from the schema's alias annotations):
* functional ops (no annotation) are `Pure`;
* ops that write an argument (`add_`, `out=` variants, `_native_batch_norm_legit`)
  report a WRITE (and READ) effect on the operands bound to the written arguments,
  so DCE keeps them and CSE does not merge across them;
* view ops whose results alias an input (`view`, `transpose`, `select`, ...)
  report a READ effect on the aliased operand: an unused view is still dead code,
  but two identical views are not merged across an intervening write, because
  the write through one alias is visible through the other.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from functools import cache
from typing import Any, ClassVar, Self, cast

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    StringAttr,
    f64,
)
from xdsl.ir import Attribute, Dialect, Operation, OpTraits, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    OpDef,
    irdl_op_definition,
    prop_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    EffectInstance,
    HasCanonicalizationPatternsTrait,
    MemoryEffect,
    MemoryEffectKind,
    OpTrait,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.aten_binding import Bound, InferenceError, NoInference, bind_arguments
from xdsl_exir.dialects.exir import (
    ArgParser,
    ArgsOpMixin,
    BoolType,
    CallFunctionOp,
    DeviceAttr,
    DType,
    FloatType,
    IntType,
    Layout,
    ListType,
    MemoryFormat,
    OptionalType,
    ScalarType,
    SymBoolType,
    SymFloatType,
    SymIntType,
    TensorType,
    TupleType,
    array_attr,
    encode_arg,
    int_attr,
    iter_refs,
    parse_operand_and_result_types,
    print_call_args,
    ref_attr,
    sym_equal,
)
from xdsl_exir.utils.aten_enums import enum_problem
from xdsl_exir.utils.function_schema import AliasSet, FunctionSchema, SchemaType, TypeKind
from xdsl_exir.utils.op_registry import lookup, selected_operators
from xdsl_exir.utils.schema_binding import bind
from xdsl_exir.utils.symbolic import sympy

__all__ = [
    "Aten",
    "AtenOp",
    "ATEN_OP_NAMES",
    "aten_op_class",
    "build",
    "from_call_function",
    "to_call_function",
    "types_agree",
]


# ---------------------------------------------------------------------------
# Effects
# ---------------------------------------------------------------------------


class AtenWriteEffect(MemoryEffect):
    """Reads and writes the operands bound to the schema's `!` arguments."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        written = cast(AtenOp, op).written_operands()
        effects = {EffectInstance(MemoryEffectKind.WRITE, v) for v in written}
        effects |= {EffectInstance(MemoryEffectKind.READ, v) for v in written}
        if not written:
            effects.add(EffectInstance(MemoryEffectKind.WRITE))
        return frozenset(effects)


class AtenViewEffect(MemoryEffect):
    """Reads the operands its results alias (see the module docstring)."""

    @classmethod
    def get_effects(cls, op: Operation) -> frozenset[EffectInstance]:
        aten = cast(AtenOp, op)
        values = {aten.aliased_operand(i) for i in range(len(op.results))}
        return frozenset(
            EffectInstance(MemoryEffectKind.READ, v) for v in values if v is not None
        )


def _traits_of(schema: FunctionSchema) -> tuple[OpTrait, ...]:
    if schema.is_mutable:
        return (AtenWriteEffect(),)
    if schema.is_functional:
        return (Pure(),)
    return (AtenViewEffect(),)


# ---------------------------------------------------------------------------
# Argument checking against the schema
# ---------------------------------------------------------------------------

_INT_TYPES = (SymIntType, IntType)
_FLOAT_TYPES = (SymFloatType, FloatType, SymIntType, IntType)
_BOOL_TYPES = (SymBoolType, BoolType)
_SCALAR_TYPES = (SymIntType, SymFloatType, SymBoolType, IntType, FloatType, BoolType, ScalarType)


def _check_value(st: SchemaType, value: object) -> str | None:
    """Why `value` does not fit schema type `st`, or None when it does."""
    if st.kind is TypeKind.OPTIONAL:
        if value is None:
            return None
        return _check_value(st.elements[0], value)
    if isinstance(value, SSAValue):
        return _check_ssa(st, value.type)
    if st.kind is TypeKind.LIST:
        elem = st.elements[0]
        if isinstance(value, list | tuple):
            for v in cast(Sequence[object], value):
                if (why := _check_value(elem, v)) is not None:
                    return why
            # `int[N]` only says a lone int is repeated N times; torch does not
            # check list lengths against N when binding, the kernels do.
            return None
        if st.size is not None and elem.is_base("int", "SymInt", "bool"):
            return _check_value(elem, value)
        return f"expected a list, got {value!r}"
    if st.kind is not TypeKind.BASE:
        return None
    name = st.name
    if name == "Tensor":
        # A Python number where a Tensor is expected is a wrapped number: FX
        # records `aten.add.Tensor(x, 1)` and torch makes `1` a 0-d tensor.
        if isinstance(value, int | float | complex):
            return None
        return f"expected a tensor, got {value!r}"
    if name in ("int", "SymInt", "DeviceIndex"):
        ok = isinstance(value, int)
    elif name in ("float", "SymFloat"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
    elif name in ("bool", "SymBool"):
        ok = isinstance(value, bool)
    elif name == "Scalar":
        ok = isinstance(value, int | float | complex)
    elif name == "ScalarType":
        ok = isinstance(value, DType) or (isinstance(value, int) and not isinstance(value, bool))
    elif name == "Layout":
        ok = isinstance(value, Layout | int) and not isinstance(value, bool)
    elif name == "MemoryFormat":
        ok = isinstance(value, MemoryFormat | int) and not isinstance(value, bool)
    elif name == "Device":
        ok = isinstance(value, DeviceAttr | str)
    elif name in ("str", "c10::string_view"):
        ok = isinstance(value, str)
    else:
        return None
    return None if ok else f"expected {st}, got {value!r}"


def _check_ssa(st: SchemaType, t: Attribute) -> str | None:
    if st.kind is TypeKind.LIST:
        if isinstance(t, ListType):
            return None
        if st.size is not None and st.elements[0].is_base("int", "SymInt"):
            return _check_ssa(st.elements[0], t)
        return f"expected a list, got a value of type {t}"
    if isinstance(t, OptionalType):
        return None
    if st.kind is not TypeKind.BASE:
        return None
    expected: tuple[type[Attribute], ...] | None = {
        "Tensor": (TensorType, *_SCALAR_TYPES),  # SymInts are wrapped numbers too
        "int": _INT_TYPES,
        "SymInt": _INT_TYPES,
        "float": _FLOAT_TYPES,
        "SymFloat": _FLOAT_TYPES,
        "bool": _BOOL_TYPES,
        "SymBool": _BOOL_TYPES,
        "Scalar": _SCALAR_TYPES,
    }.get(st.name)
    if expected is None or isinstance(t, expected):
        return None
    return f"expected {st}, got a value of type {t}"


def _check_result(st: SchemaType, t: Attribute) -> str | None:
    if st.kind is TypeKind.LIST and st.elements[0].is_base("Tensor"):
        ok = isinstance(t, ListType | TupleType)
    elif st.is_base("Tensor"):
        ok = isinstance(t, TensorType)
    elif st.is_base("int", "SymInt"):
        ok = isinstance(t, _INT_TYPES)
    elif st.is_base("float", "SymFloat"):
        ok = isinstance(t, SymFloatType | FloatType)
    elif st.is_base("bool", "SymBool"):
        ok = isinstance(t, _BOOL_TYPES)
    elif st.is_base("Scalar"):
        ok = isinstance(t, _SCALAR_TYPES)
    else:
        ok = True
    return None if ok else f"expected a result of schema type {st}, got {t}"


def _is_unbacked(expr: object) -> bool:
    return isinstance(expr, sympy.Basic) and any(
        str(s).startswith("u") for s in expr.free_symbols
    )


def types_agree(inferred: Attribute, actual: Attribute) -> bool:
    """
    Inferred and recorded types agree; data-dependent (`u*`) sizes match anything.
    The op verifier's comparison, which shape propagation uses too, so that both agree.
    """
    if inferred == actual:
        return True
    if isinstance(inferred, TensorType) and isinstance(actual, TensorType):
        if (
            inferred.element_dtype is not actual.element_dtype
            or inferred.device != actual.device
            or inferred.rank != actual.rank
        ):
            return False
        for a, b in zip(inferred.sizes, actual.sizes):
            if a == b or _is_unbacked(a):
                continue
            if isinstance(a, int) and isinstance(b, int):
                return False
            if not sym_equal(sympy.sympify(a), sympy.sympify(b)):
                return False
        return True
    if isinstance(actual, ListType):
        elems = (
            [inferred.element_type]
            if isinstance(inferred, ListType)
            else list(inferred.types.data)
            if isinstance(inferred, TupleType)
            else None
        )
        return elems is not None and all(
            types_agree(e, actual.element_type) for e in elems
        )
    if isinstance(inferred, TupleType) and isinstance(actual, TupleType):
        return len(inferred.types) == len(actual.types) and all(
            types_agree(a, b) for a, b in zip(inferred.types, actual.types)
        )
    if isinstance(inferred, SymIntType | SymFloatType | SymBoolType):
        if type(inferred) is not type(actual):
            return isinstance(inferred, SymIntType) and isinstance(actual, IntType)
        a, b = inferred.value, cast(SymIntType, actual).value
        return a is None or b is None or _is_unbacked(a) or sym_equal(a, b)
    return False


# ---------------------------------------------------------------------------
# The base op
# ---------------------------------------------------------------------------


class _LazySchema:
    """`cls.SCHEMA`: the FunctionSchema, parsed on first access."""

    def __get__(self, obj: object, owner: type[AtenOp]) -> FunctionSchema:
        return _schema_of(owner.name)


@cache
def _schema_of(name: str) -> FunctionSchema:
    entry = lookup(name)
    if entry is None:
        raise KeyError(f"no schema for {name}")
    return entry.schema


@cache
def _result_type_rules() -> Callable[[Bound], list[Attribute]]:
    """
    The result-type inference of every op (`infer_bound`), imported on first use as the
    canonicalization patterns are (`AtenCanonicalization`): the rules belong to the
    operator semantics, a layer above the dialects (they compute what torch's
    FakeTensor mode computes), and loading the dialect never loads them.
    """
    from xdsl_exir.semantics.inference import infer_bound

    return infer_bound


_FLOAT_ATTRS: dict[str, FloatAttr] = {}
"""Float leaves by `repr`: `-0.0 == 0.0` and NaN never equals itself, so the value is no key."""


def _encode(value: object, operands: list[SSAValue]) -> Attribute:
    """`encode_arg` with the common leaves (values, small ints) on a fast path."""
    if isinstance(value, SSAValue | Operation):
        operands.append(value if isinstance(value, SSAValue) else value.results[0])
        return ref_attr(len(operands) - 1)
    if type(value) is int:
        return int_attr(value)
    if type(value) is float:
        key = repr(value)
        fattr = _FLOAT_ATTRS.get(key)
        if fattr is None:
            fattr = FloatAttr(value, f64)
            if len(_FLOAT_ATTRS) < 1 << 16:
                _FLOAT_ATTRS[key] = fattr
        return fattr
    if isinstance(value, list | tuple):
        return array_attr(tuple(_encode(v, operands) for v in cast(Sequence[object], value)))
    return encode_arg(value, operands)


_CALLS: dict[object, tuple[ArrayAttr[Attribute], DictionaryAttr]] = {}


def _key(value: object, operands: list[SSAValue]) -> object:
    """A hashable image of an argument tree (values replaced by their operand index)."""
    if isinstance(value, SSAValue):
        operands.append(value)
        return (SSAValue, len(operands) - 1)
    if isinstance(value, Operation):
        operands.append(value.results[0])
        return (SSAValue, len(operands) - 1)
    if isinstance(value, list | tuple):
        return (list, tuple(_key(v, operands) for v in cast(Sequence[object], value)))
    if type(value) is float:
        return (float, repr(value))  # tells -0.0 from 0.0
    return (type(value), value)


def _encode_call(
    args: Sequence[object], kwargs: dict[str, object], operands: list[SSAValue]
) -> tuple[ArrayAttr[Attribute], DictionaryAttr]:
    """
    The `args`/`kwargs` properties of a call, collecting operands. Attribute
    trees are memoized by the tree's shape and constants, since hashing Python
    values is much cheaper than building (or hashing) attributes.
    """
    key: object = (
        tuple(_key(a, operands) for a in args),
        tuple((k, _key(v, operands)) for k, v in kwargs.items()),
    )
    try:
        cached = _CALLS.get(key)
    except TypeError:  # an unhashable constant
        cached, key = None, None
    if cached is not None:
        return cached
    scratch: list[SSAValue] = []
    arg_attrs = array_attr(tuple(_encode(a, scratch) for a in args))
    kw_attrs = (
        DictionaryAttr({k: _encode(v, scratch) for k, v in kwargs.items()})
        if kwargs
        else _EMPTY_KWARGS
    )
    if key is not None and len(_CALLS) < 1 << 16:
        _CALLS[key] = (arg_attrs, kw_attrs)
    return arg_attrs, kw_attrs


_EMPTY_KWARGS = DictionaryAttr({})


_VERIFIED: set[tuple[object, ...]] = set()
"""(op name, args, kwargs, operand types, result types) of calls that verified."""
_VERIFIED_LIMIT = 65536


@irdl_op_definition
class AtenOp(ArgsOpMixin, IRDLOperation):
    """
    Base of the generated ATen ops. Subclasses differ only by `name`, `SCHEMA`
    and traits; the argument tree and verification are shared.
    """

    name = "aten.__base__"

    SCHEMA: ClassVar[FunctionSchema] = cast(FunctionSchema, _LazySchema())

    args = prop_def(ArrayAttr)
    kwargs = prop_def(DictionaryAttr)
    arguments = var_operand_def()
    res = var_result_def()

    # -- building -------------------------------------------------------------

    @classmethod
    def build(
        cls,
        *args: object,
        result_types: Sequence[Attribute] | None = None,
        **kwargs: object,
    ) -> Self:
        """
        Create the op from FX-style arguments (SSA values, ops, Python constants,
        lists), inferring result types unless given. Nothing is verified here:
        call `verify()` when the arguments may be wrong.
        """
        operands: list[SSAValue] = []
        arg_attrs, kw_attrs = _encode_call(args, kwargs, operands)
        if result_types is None:
            result_types = _result_type_rules()(bind_arguments(cls.SCHEMA, args, kwargs))
        return cls.create(
            operands=operands,
            result_types=result_types,
            properties={"args": arg_attrs, "kwargs": kw_attrs},
        )

    # -- schema queries -------------------------------------------------------

    def _argument_attrs(self) -> dict[str, Attribute]:
        """Schema argument name -> its attribute in the argument tree (given ones)."""
        values, _ = bind(self.SCHEMA, self.args.data, self.kwargs.data, defaults=False, missing="ignore")
        return cast(dict[str, Attribute], values)

    def _operands_of(self, arg_name: str) -> list[SSAValue]:
        attr = self._argument_attrs().get(arg_name)
        if attr is None:
            return []
        return [self.operands[i] for i in iter_refs(attr)]

    def alias_sets(self) -> dict[str, AliasSet]:
        """The schema's named alias sets with their argument and result indices."""
        return self.SCHEMA.alias_sets()

    def written_operands(self) -> list[SSAValue]:
        """The operands this op may mutate (bound to `!`-annotated arguments)."""
        out: list[SSAValue] = []
        for a in self.SCHEMA.written_arguments:
            out += self._operands_of(a.name)
        return out

    def aliased_operand(self, result_index: int) -> SSAValue | None:
        """The operand result `result_index` may alias (a view's base), if any."""
        schema = self.SCHEMA
        hits = schema.return_alias_map().get(result_index)
        if not hits:
            return None
        values = self._operands_of(schema.arguments[hits[0]].name)
        return values[0] if values else None

    def bound_arguments(self) -> Bound:
        """The arguments bound to the schema (decoded, defaults filled)."""
        return bind_arguments(self.SCHEMA, self.get_args(), self.get_kwargs())

    # -- verification ---------------------------------------------------------

    def verify_(self) -> None:
        self.verify_refs()
        schema = self.SCHEMA
        try:
            bound = self.bound_arguments()
        except InferenceError as e:
            raise VerifyException(str(e)) from e
        given = set(self._argument_attrs())
        for a in schema.arguments:
            if a.name not in given:
                continue
            why = _check_value(a.type, bound[a.name]) or enum_problem(self.name, a.name, bound[a.name])
            if why is not None:
                raise VerifyException(f"argument '{a.name}' of {self.name}: {why}")
        results = self.result_types
        if not schema.is_varret and len(results) != len(schema.returns):
            raise VerifyException(
                f"{self.name} has {len(schema.returns)} result(s), got {len(results)}"
            )
        for r, t in zip(schema.returns, results):
            if (why := _check_result(r.type, t)) is not None:
                raise VerifyException(f"{self.name}: {why}")
        try:
            inferred = _result_type_rules()(bound)
        except NoInference:
            return
        except InferenceError as e:
            raise VerifyException(f"{self.name}: {e}") from e
        for i, (a, b) in enumerate(zip(inferred, results)):
            if not types_agree(a, b):
                raise VerifyException(
                    f"{self.name} result {i} has type {b}, but its arguments give {a}"
                )

    # -- syntax ---------------------------------------------------------------

    @classmethod
    def parse(cls, parser: Parser) -> Self:
        arg_parser = ArgParser(parser)
        args, kwargs = arg_parser.parse_call()
        attrs = parser.parse_optional_attr_dict()
        operands, results = parse_operand_and_result_types(parser, arg_parser.operands)
        return cls.create(
            operands=operands,
            result_types=results,
            properties={"args": array_attr(tuple(args)), "kwargs": DictionaryAttr(kwargs) if kwargs else _EMPTY_KWARGS},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        print_call_args(printer, self.args.data, self.kwargs, self.operands)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


# ---------------------------------------------------------------------------
# The class factory
# ---------------------------------------------------------------------------

_BASE_DEF: OpDef = AtenOp.get_irdl_definition()

_CHECK_CALL = AtenOp.verify_
"""xDSL's verifier of the op: the definition's constraints, then the schema checks above."""


def _verify_once(self: AtenOp) -> None:
    """
    Both checks read only the op's name, argument tree and types, so a call found
    valid with the same ones (a read program repeats them on many lines) is valid
    again: its verification is a set lookup.
    """
    key = (self.name, self.args, self.kwargs, tuple(self.operand_types), tuple(self.result_types))
    if key in _VERIFIED:
        return
    _CHECK_CALL(self)
    if len(_VERIFIED) >= _VERIFIED_LIMIT:
        _VERIFIED.clear()
    _VERIFIED.add(key)


AtenOp.verify_ = _verify_once


class AtenCanonicalization(HasCanonicalizationPatternsTrait):
    """
    The canonicalization trait every aten op carries, so xDSL's stock `canonicalize`
    applies the aten peepholes. The patterns live in
    `transforms/canonicalization_patterns/aten.py` and are imported on first use, as
    xDSL's own dialects import theirs: loading the dialect never loads them, and they may
    ask the alias analysis, a layer above the dialects. Which ops have a rule is the
    patterns' business (`patterns_for`), so the dialect keeps no copy of that list.
    """

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        from xdsl_exir.transforms.canonicalization_patterns.aten import patterns_for

        return patterns_for(op.name)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        from xdsl_exir.transforms.canonicalization_patterns.aten import PATTERNS

        return PATTERNS


_CANONICALIZATION = AtenCanonicalization()


def _class_name(op_name: str) -> str:
    parts = op_name.split(".")[1:]
    return "Aten_" + "_".join(p for p in parts) + "_Op"


def _make_op_class(op_name: str) -> type[AtenOp]:
    traits = OpTraits(lambda: (*_traits_of(_schema_of(op_name)), _CANONICALIZATION))
    op_def = dataclasses.replace(_BASE_DEF, name=op_name, traits=traits)

    def get_irdl_definition(cls: type[AtenOp]) -> OpDef:
        return op_def

    namespace = {
        "name": op_name,
        "traits": traits,
        "get_irdl_definition": classmethod(get_irdl_definition),
        "__module__": __name__,
        "__doc__": f"`{op_name}`, generated from its schema (see `SCHEMA`).",
    }
    return cast(type[AtenOp], type(_class_name(op_name), (AtenOp,), namespace))


ATEN_OP_NAMES: tuple[str, ...] = selected_operators()
"""IR names of every generated op, in the order of `aten_ops.txt`."""

_OP_CLASSES: dict[str, type[AtenOp]] = {n: _make_op_class(n) for n in ATEN_OP_NAMES}


def aten_op_class(name: str) -> type[AtenOp] | None:
    """The op class of an overload: `aten.add.Tensor`, `aten::add.Tensor` or `torch.ops.aten.add.Tensor`."""
    cls = _OP_CLASSES.get(name)
    if cls is not None:
        return cls
    if name.startswith("torch.ops."):
        name = name[len("torch.ops.") :]
    if "::" in name:
        qualified, _, overload = name.partition(".")
        name = f"{qualified.replace('::', '.')}.{overload or 'default'}"
    elif name.count(".") == 1:
        name += ".default"
    return _OP_CLASSES.get(name)


def build(name: str, *args: object, **kwargs: Any) -> AtenOp:  # kwargs forwarded to AtenOp.build, result_types included
    """Build `name` from FX-style arguments with inferred result types."""
    cls = aten_op_class(name)
    if cls is None:
        raise KeyError(f"{name} is not an op of the aten dialect")
    return cls.build(*args, **kwargs)


def from_call_function(op: CallFunctionOp) -> AtenOp | None:
    """The aten op equivalent to an `exir.call_function`, if its target is one."""
    cls = aten_op_class(op.target.data)
    if cls is None:
        return None
    return cls.create(
        operands=list(op.operands),
        result_types=list(op.result_types),
        properties={"args": op.args, "kwargs": op.kwargs},
        attributes=dict(op.attributes),
    )


def to_call_function(op: AtenOp) -> CallFunctionOp:
    """The `exir.call_function` spelling of an aten op."""
    return CallFunctionOp.create(
        operands=list(op.operands),
        result_types=list(op.result_types),
        properties={
            "target": StringAttr(op.name),
            "args": op.args,
            "kwargs": op.kwargs,
        },
        attributes=dict(op.attributes),
    )


def iter_ops() -> Iterator[type[AtenOp]]:
    return iter(_OP_CLASSES.values())


Aten = Dialect("aten", list(_OP_CLASSES.values()), [])
