"""SymInt operations: ``sym_size``, ``sym_stride``, ``sym_numel``, the arithmetic
and comparisons FX records on SymInts (``exir.sym_add``, ``exir.sym_floordiv``,
``exir.sym_ge``, ...), and ``assert_scalar``.

The arithmetic ops are generated from one table, one op per FX callable, so the
callable, the op and its sympy meaning cannot drift apart; their verifiers
check a recorded result value against the operands symbolically.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar, cast

from xdsl.dialects.builtin import ArrayAttr, IntAttr, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, prop_def, result_def, traits_def, var_operand_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects.exir.args import (
    ArgParser,
    ArgsOpMixin,
    encode_arg,
    parse_operand_and_result_types,
    print_call_args,
)
from xdsl_exir.dialects.exir.types import (
    BoolType,
    FloatType,
    IntType,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymScalarType,
    TensorType,
)
from xdsl_exir.utils.symbolic import SymSize, floordiv, print_expr, sympy, to_sym


def _tensor_operand_type(value: SSAValue, what: str) -> TensorType:
    if not isinstance(value.type, TensorType):
        raise VerifyException(f"{what} expects a tensor, got {value.type}")
    return value.type


def _check_sym_result(op: Operation, expected: SymSize | None) -> None:
    """A result's recorded value must agree with what its operands imply."""
    rtype = op.results[0].type
    if expected is None or not isinstance(rtype, SymScalarType):
        return
    recorded = rtype.value
    if recorded is not None and not sym_equal(recorded, to_sym(expected)):
        raise VerifyException(
            f"result is recorded as {print_expr(recorded)} but the operands give "
            f"{print_expr(to_sym(expected))}"
        )


def sym_equal(a: sympy.Expr, b: sympy.Expr) -> bool:
    """Equality of size expressions, trying the cheap forms first."""
    if a == b:
        return True
    diff = sympy.expand(a - b)
    if diff.is_Number:
        # a constant difference needs no simplification; `sympy.simplify` would first import
        # `sympy.physics.units`, the slowest part of sympy to load
        return diff == 0
    return sympy.simplify(diff) == 0


class _DimOp(IRDLOperation):
    """Shared shape of `sym_size` / `sym_stride`: a tensor and a constant dim."""

    input = operand_def(TensorType)
    dim = prop_def(IntAttr)
    result = result_def(SymIntType | IntType)

    traits = traits_def(Pure())

    def __init__(
        self, value: SSAValue | Operation, dim: int, result_type: Attribute | None = None
    ) -> None:
        value = SSAValue.get(value)
        if result_type is None:
            t = cast(TensorType, value.type)
            result_type = SymIntType(self.compute(t, dim % max(t.rank, 1)))
        super().__init__(
            operands=[value], result_types=[result_type], properties={"dim": IntAttr(dim)}
        )

    @staticmethod
    def compute(t: TensorType, dim: int) -> SymSize:
        raise NotImplementedError

    def verify_(self) -> None:
        t = _tensor_operand_type(self.input, self.name)
        dim = self.dim.data
        if not -t.rank <= dim < t.rank:
            raise VerifyException(f"dim {dim} out of range for a rank-{t.rank} tensor")
        _check_sym_result(self, self.compute(t, dim % t.rank))

    @classmethod
    def parse(cls, parser: Parser) -> _DimOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        dim = parser.parse_integer()
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        vtype = parser.parse_type()
        parser.parse_punctuation("->")
        rtype = parser.parse_type()
        return cls.create(
            operands=[parser.resolve_operand(value, vtype)],
            result_types=[rtype],
            properties={"dim": IntAttr(dim)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.input)
        printer.print_string(f", {self.dim.data}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_attribute(self.input.type)
        printer.print_string(" -> ")
        printer.print_attribute(self.result.type)


@irdl_op_definition
class SymSizeOp(_DimOp):
    """`aten.sym_size.int(x, dim)`: one size of a tensor, as a SymInt."""

    name = "exir.sym_size"

    @staticmethod
    def compute(t: TensorType, dim: int) -> SymSize:
        return t.sizes[dim]


@irdl_op_definition
class SymStrideOp(_DimOp):
    """`aten.sym_stride.int(x, dim)`: the stride of a dense tensor of this type."""

    name = "exir.sym_stride"

    @staticmethod
    def compute(t: TensorType, dim: int) -> SymSize:
        return t.strides()[dim]


@irdl_op_definition
class SymNumelOp(IRDLOperation):
    """`aten.sym_numel.default(x)`."""

    name = "exir.sym_numel"

    input = operand_def(TensorType)
    result = result_def(SymIntType | IntType)

    traits = traits_def(Pure())

    assembly_format = "$input attr-dict `:` type($input) `->` type($result)"

    def __init__(
        self, value: SSAValue | Operation, result_type: Attribute | None = None
    ) -> None:
        value = SSAValue.get(value)
        if result_type is None:
            result_type = SymIntType(cast(TensorType, value.type).numel())
        super().__init__(operands=[value], result_types=[result_type])

    def verify_(self) -> None:
        _check_sym_result(self, _tensor_operand_type(self.input, self.name).numel())


_SYM_NUMERIC = (SymIntType, SymFloatType, SymBoolType, IntType, FloatType, BoolType)


class SymArithOp(ArgsOpMixin, IRDLOperation):
    """
    Python arithmetic and comparison on symbolic scalars (FX's `operator.add`,
    `operator.floordiv`, `operator.eq`, `torch.sym_max`, ...). Arguments are
    SymInt/SymFloat/SymBool values or embedded constants, as in FX.

    %r = exir.sym_mul(%s0, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
    """

    PYTHON_TARGET: ClassVar[str]
    ARITY: ClassVar[int]
    RESULT_KIND: ClassVar[str]
    """'num' (int unless a float is involved), 'float', 'int' or 'bool'."""

    args = prop_def(ArrayAttr)
    arguments = var_operand_def(SymIntType | SymFloatType | SymBoolType | IntType | FloatType | BoolType)
    result = result_def(SymIntType | SymFloatType | SymBoolType)

    traits = traits_def(Pure())

    def __init__(self, *args: SSAValue | Operation | int | float | bool) -> None:
        operands: list[SSAValue] = []
        arg_attrs = [encode_arg(a, operands) for a in args]
        values = [self._value_of(a) for a in args]
        result_type = self._result_type(values)
        super().__init__(
            operands=[operands],
            result_types=[result_type],
            properties={"args": ArrayAttr(arg_attrs)},
        )

    @staticmethod
    def _value_of(arg: object) -> sympy.Basic | float | None:
        """The symbolic value of an argument, None if unknown."""
        if isinstance(arg, Operation):
            arg = arg.results[0]
        if isinstance(arg, SSAValue):
            t = arg.type
            return t.value if isinstance(t, SymScalarType) else None
        if isinstance(arg, bool):
            return sympy.true if arg else sympy.false
        if isinstance(arg, int):
            return sympy.Integer(arg)
        if isinstance(arg, float):
            return sympy.Float(arg)
        return None

    @classmethod
    def _is_float(cls, arg: object) -> bool:
        if isinstance(arg, Operation):
            arg = arg.results[0]
        if isinstance(arg, SSAValue):
            return isinstance(arg.type, SymFloatType | FloatType)
        return isinstance(arg, float)

    @classmethod
    def compute(cls, values: Sequence[sympy.Expr]) -> sympy.Expr:
        raise NotImplementedError

    def _result_type(self, values: Sequence[object]) -> Attribute:
        kind = self.RESULT_KIND
        known = [v for v in values if v is not None]
        expr = None
        if len(known) == len(values) and all(isinstance(v, sympy.Basic) for v in known):
            try:
                expr = self.compute(cast(Sequence[sympy.Expr], values))
            except (TypeError, ZeroDivisionError):
                expr = None
        if kind == "bool":
            return SymBoolType(
                expr if isinstance(expr, sympy.Basic) and not expr.is_Boolean else None
            )
        if kind == "float":
            return SymFloatType()
        if kind == "num" and any(isinstance(v, sympy.Float) for v in known):
            return SymFloatType()
        return SymIntType(expr)

    def inferred_type(self) -> Attribute:
        """The result type the arguments' types give (what `__init__` builds; shape propagation uses it)."""
        return self._result_type(self._arg_values())

    def _arg_values(self) -> list[sympy.Basic | None]:
        values: list[sympy.Basic | None] = []
        for a in self.get_args():
            v = self._value_of(a)
            values.append(v if isinstance(v, sympy.Basic) else None)
        return values

    def _any_float(self) -> bool:
        return any(self._is_float(a) for a in self.get_args())

    def verify_(self) -> None:
        self.verify_refs()
        args = self.get_args()
        if len(args) != self.ARITY:
            raise VerifyException(
                f"{self.name} takes {self.ARITY} argument(s), got {len(args)}"
            )
        for a in args:
            if not isinstance(a, SSAValue | int | float | bool):
                raise VerifyException(f"{self.name} argument {a!r} is not a scalar")
        rtype = self.result.type
        kind = self.RESULT_KIND
        if kind == "num":
            kind = "float" if self._any_float() else "int"
        expected_type = {"int": SymIntType, "float": SymFloatType, "bool": SymBoolType}[
            kind
        ]
        if not isinstance(rtype, expected_type):
            raise VerifyException(
                f"{self.name} of these arguments gives a {expected_type.name}, "
                f"not {rtype}"
            )
        values = self._arg_values()
        if kind == "int" and all(v is not None for v in values):
            try:
                expected = self.compute(cast(list[sympy.Expr], values))
            except (TypeError, ZeroDivisionError):
                return
            _check_sym_result(self, expected)

    @classmethod
    def parse(cls, parser: Parser) -> SymArithOp:
        arg_parser = ArgParser(parser)
        args, kwargs = arg_parser.parse_call()
        if kwargs:
            parser.raise_error(f"{cls.name} takes no keyword arguments")
        attrs = parser.parse_optional_attr_dict()
        operands, results = parse_operand_and_result_types(parser, arg_parser.operands)
        return cls.create(
            operands=operands,
            result_types=results,
            properties={"args": ArrayAttr(args)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        print_call_args(printer, self.args.data, None, self.operands)
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : ")
        printer.print_function_type(self.operand_types, self.result_types)


def _sympy_bool(fn: str) -> object:
    """sympy's relation or connective `fn`, looked up when first applied (sympy loads lazily)."""
    return lambda a, b: getattr(sympy, fn)(a, b)


_SYM_OPS: list[tuple[str, str, int, str, object]] = [
    # name, FX target, arity, result kind, symbolic semantics
    ("add", "operator.add", 2, "num", lambda a, b: a + b),
    ("sub", "operator.sub", 2, "num", lambda a, b: a - b),
    ("mul", "operator.mul", 2, "num", lambda a, b: a * b),
    ("floordiv", "operator.floordiv", 2, "num", floordiv),
    ("mod", "operator.mod", 2, "num", lambda a, b: sympy.Mod(a, b)),
    ("pow", "operator.pow", 2, "num", lambda a, b: a**b),
    ("truediv", "operator.truediv", 2, "float", lambda a, b: a / b),
    ("neg", "operator.neg", 1, "num", lambda a: -a),
    ("max", "torch.sym_max", 2, "num", lambda a, b: sympy.Max(a, b)),
    ("min", "torch.sym_min", 2, "num", lambda a, b: sympy.Min(a, b)),
    ("eq", "operator.eq", 2, "bool", _sympy_bool("Eq")),
    ("ne", "operator.ne", 2, "bool", _sympy_bool("Ne")),
    ("lt", "operator.lt", 2, "bool", _sympy_bool("Lt")),
    ("le", "operator.le", 2, "bool", _sympy_bool("Le")),
    ("gt", "operator.gt", 2, "bool", _sympy_bool("Gt")),
    ("ge", "operator.ge", 2, "bool", _sympy_bool("Ge")),
    ("and", "operator.and_", 2, "bool", _sympy_bool("And")),
    ("or", "operator.or_", 2, "bool", _sympy_bool("Or")),
    ("not", "torch.sym_not", 1, "bool", lambda a: sympy.Not(a)),
    ("float", "torch.sym_float", 1, "float", lambda a: a),
    ("int", "torch.sym_int", 1, "int", lambda a: a),
]


def _make_sym_op(
    name: str, target: str, arity: int, kind: str, fn: object
) -> type[SymArithOp]:
    """One op class per Python operator, generated from the table above."""
    camel = "".join(part.capitalize() for part in name.split("_"))
    cls = type(
        f"Sym{camel}Op",
        (SymArithOp,),
        {
            "name": f"exir.sym_{name}",
            "PYTHON_TARGET": target,
            "ARITY": arity,
            "RESULT_KIND": kind,
            "compute": classmethod(lambda _cls, values: fn(*values)),  # pyright: ignore[reportCallIssue] - fn is the Python operator this op computes, typed object by its table
            "__doc__": f"`{target}` on symbolic scalars.",
            "__annotations__": {
                "PYTHON_TARGET": ClassVar[str],
                "ARITY": ClassVar[int],
                "RESULT_KIND": ClassVar[str],
            },
        },
    )
    return irdl_op_definition(cls)


SYM_ARITH_OPS: dict[str, type[SymArithOp]] = {
    row[1]: _make_sym_op(*row) for row in _SYM_OPS
}
"""The generated ops, keyed by their FX target (`operator.add`, ...)."""


@irdl_op_definition
class AssertScalarOp(IRDLOperation):
    """`aten._assert_scalar.default(cond, msg)`: a runtime assert on a SymBool."""

    name = "exir.assert_scalar"

    condition = operand_def(SymBoolType | BoolType)
    message = prop_def(StringAttr)

    assembly_format = "$condition `,` $message attr-dict `:` type($condition)"

    def __init__(self, condition: SSAValue | Operation, message: str) -> None:
        super().__init__(
            operands=[condition], properties={"message": StringAttr(message)}
        )


