"""The graph signature and range constraints of an ``exir.program``.

As in "torch.export IR Specification", input and output specs say what each
placeholder and each output of the entry graph is (user input, parameter,
buffer, constant, token; user output, buffer or user-input mutation, ...),
aligned by position; range constraints bound each symbol or derived
expression by ``[min, max]``. They are attributes of the program op, kept
apart from it so passes that rewrite the signature need not import the ops.
"""

from __future__ import annotations

from collections.abc import Sequence

import sympy
from xdsl.dialects.builtin import BoolAttr, IntegerAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.str_enum import StrEnum

from xdsl_exir.dialects.exir.types import SymExprAttr, parse_sym_expr
from xdsl_exir.utils.symbolic import SymSize, print_expr, to_sym


class InputKind(StrEnum):
    """ExportGraphSignature input kinds, in the order torch places them."""

    token = "token"
    parameter = "parameter"
    buffer = "buffer"
    constant_tensor = "constant_tensor"
    custom_obj = "custom_obj"
    user_input = "user_input"


class OutputKind(StrEnum):
    token = "token"
    buffer_mutation = "buffer_mutation"
    user_input_mutation = "user_input_mutation"
    user_output = "user_output"
    loss_output = "loss_output"
    gradient_to_parameter = "gradient_to_parameter"
    gradient_to_user_input = "gradient_to_user_input"
    parameter_mutation = "parameter_mutation"


STATE_INPUT_KINDS = (
    InputKind.parameter,
    InputKind.buffer,
    InputKind.constant_tensor,
    InputKind.custom_obj,
)
TARGETED_OUTPUT_KINDS = (
    OutputKind.buffer_mutation,
    OutputKind.parameter_mutation,
    OutputKind.user_input_mutation,
    OutputKind.gradient_to_parameter,
    OutputKind.gradient_to_user_input,
)


@irdl_attr_definition
class InputSpecAttr(ParametrizedAttribute):
    """
    One graph input of the signature, aligned by position with the graph's
    arguments: `<user_input "x">`, `<parameter "p_w" -> "w">`,
    `<buffer "b_n" -> "n" non_persistent>`.
    """

    name = "exir.input_spec"

    kind: StringAttr
    arg_name: StringAttr
    target: StringAttr | NoneAttr
    persistent: BoolAttr | NoneAttr

    def __init__(
        self,
        kind: InputKind,
        arg_name: str,
        target: str | None = None,
        persistent: bool | None = None,
    ) -> None:
        if kind == InputKind.buffer and persistent is None:
            persistent = True
        super().__init__(
            StringAttr(kind.value),
            StringAttr(arg_name),
            NoneAttr() if target is None else StringAttr(target),
            NoneAttr() if persistent is None else BoolAttr.from_bool(persistent),
        )

    @property
    def input_kind(self) -> InputKind:
        return InputKind(self.kind.data)

    @property
    def target_name(self) -> str | None:
        return self.target.data if isinstance(self.target, StringAttr) else None

    @property
    def is_persistent(self) -> bool | None:
        if isinstance(self.persistent, NoneAttr):
            return None
        return bool(self.persistent.value.data)

    def verify(self) -> None:
        if self.kind.data not in InputKind.__members__:
            raise VerifyException(f"unknown input kind '{self.kind.data}'")
        needs_target = self.input_kind in STATE_INPUT_KINDS
        if needs_target != isinstance(self.target, StringAttr):
            raise VerifyException(
                f"input kind '{self.kind.data}' "
                + ("needs" if needs_target else "takes no")
                + " state target"
            )
        if (self.input_kind == InputKind.buffer) != isinstance(
            self.persistent, IntegerAttr
        ):
            raise VerifyException("only buffer inputs are persistent or not")

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parser.parse_str_enum(InputKind)
            name = parser.parse_str_literal("placeholder name")
            target = None
            if parser.parse_optional_punctuation("->"):
                target = parser.parse_str_literal("state name")
            persistent = None
            if kind == InputKind.buffer:
                persistent = parser.parse_optional_keyword("non_persistent") is None
        attr = InputSpecAttr(kind, name, target, persistent)
        return (attr.kind, attr.arg_name, attr.target, attr.persistent)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.kind.data + " ")
            printer.print_string_literal(self.arg_name.data)
            if isinstance(self.target, StringAttr):
                printer.print_string(" -> ")
                printer.print_string_literal(self.target.data)
            if self.is_persistent is False:
                printer.print_string(" non_persistent")


@irdl_attr_definition
class OutputSpecAttr(ParametrizedAttribute):
    """
    One graph output of the signature, aligned by position with `exir.output`:
    `<user_output "add">`, `<buffer_mutation "add_1" -> "count">`.
    """

    name = "exir.output_spec"

    kind: StringAttr
    arg_name: StringAttr
    target: StringAttr | NoneAttr

    def __init__(self, kind: OutputKind, arg_name: str, target: str | None = None):
        super().__init__(
            StringAttr(kind.value),
            StringAttr(arg_name),
            NoneAttr() if target is None else StringAttr(target),
        )

    @property
    def output_kind(self) -> OutputKind:
        return OutputKind(self.kind.data)

    @property
    def target_name(self) -> str | None:
        return self.target.data if isinstance(self.target, StringAttr) else None

    def verify(self) -> None:
        if self.kind.data not in OutputKind.__members__:
            raise VerifyException(f"unknown output kind '{self.kind.data}'")
        needs_target = self.output_kind in TARGETED_OUTPUT_KINDS
        if needs_target != isinstance(self.target, StringAttr):
            raise VerifyException(
                f"output kind '{self.kind.data}' "
                + ("needs" if needs_target else "takes no")
                + " target"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            kind = parser.parse_str_enum(OutputKind)
            name = parser.parse_str_literal("output name")
            target = None
            if parser.parse_optional_punctuation("->"):
                target = parser.parse_str_literal("target name")
        attr = OutputSpecAttr(kind, name, target)
        return (attr.kind, attr.arg_name, attr.target)

    def print_parameters(self, printer: Printer) -> None:
        with printer.in_angle_brackets():
            printer.print_string(self.kind.data + " ")
            printer.print_string_literal(self.arg_name.data)
            if isinstance(self.target, StringAttr):
                printer.print_string(" -> ")
                printer.print_string_literal(self.target.data)


@irdl_attr_definition
class RangeConstraintAttr(ParametrizedAttribute):
    """`<s0 in [2, 1024]>`, `<2*s0 in [4, inf]>`: a symbol's (or derived size's) range."""

    name = "exir.range"

    expr: SymExprAttr
    lower: SymExprAttr
    upper: SymExprAttr

    def __init__(self, expr: SymSize, lower: SymSize, upper: SymSize) -> None:
        super().__init__(
            SymExprAttr(to_sym(expr)),
            SymExprAttr(to_sym(lower)),
            SymExprAttr(to_sym(upper)),
        )

    def verify(self) -> None:
        for bound in (self.lower.data, self.upper.data):
            if not (bound.is_Integer or bound in (sympy.oo, -sympy.oo)):
                raise VerifyException(f"range bound '{bound}' is not an integer")
        if bool(self.lower.data > self.upper.data):
            raise VerifyException(
                f"empty range [{print_expr(self.lower.data)}, "
                f"{print_expr(self.upper.data)}]"
            )

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> Sequence[Attribute]:
        with parser.in_angle_brackets():
            expr = parse_sym_expr(parser, stop_words=("in",))
            parser.parse_keyword("in")
            parser.parse_punctuation("[")
            lower = parse_sym_expr(parser, allow_infinity=True)
            parser.parse_punctuation(",")
            upper = parse_sym_expr(parser, allow_infinity=True)
            parser.parse_punctuation("]")
        return (SymExprAttr(expr), SymExprAttr(lower), SymExprAttr(upper))

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string(
            f"<{print_expr(self.expr.data)} in [{print_expr(self.lower.data)}, "
            f"{print_expr(self.upper.data)}]>"
        )


def parse_optional_spec_list(
    parser: Parser, keyword: str, attr_type: type[ParametrizedAttribute]
) -> list[Attribute]:
    if parser.parse_optional_keyword(keyword) is None:
        return []
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE,
        lambda: attr_type.new(attr_type.parse_parameters(parser)),
    )


def print_spec_list(
    printer: Printer, keyword: str, specs: Sequence[ParametrizedAttribute]
) -> None:
    if not specs:
        return
    printer.print_string(f" {keyword} [")
    printer.print_list(specs, lambda s: s.print_parameters(printer))
    printer.print_string("]")


