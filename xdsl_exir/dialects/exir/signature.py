"""The graph signature and range constraints of an ``exir.program``.

As in "torch.export IR Specification", input and output specs say what each
placeholder and each output of the entry graph is (user input, parameter,
buffer, constant, token; user output, buffer or user-input mutation, ...),
aligned by position; range constraints bound each symbol or derived
expression by ``[min, max]``. They are attributes of the program op, kept
apart from it so passes that rewrite the signature need not import the ops.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import cast

from xdsl.dialects.builtin import BoolAttr, IntegerAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser, Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException
from xdsl.utils.mlir_lexer import MLIRTokenKind
from xdsl.utils.str_enum import StrEnum

from xdsl_exir.dialects.exir.types import SymExprAttr, parse_sym_expr
from xdsl_exir.utils.mlir_parser import ResourceParser
from xdsl_exir.utils.symbolic import SymSize, print_expr, sympy, to_sym
from xdsl_exir.utils.xdsl_compat import current_token


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


_SPEC_ITEM = r'<[a-z_]+ "[^"\\\n]*"(?: -> "[^"\\\n]*")?(?: non_persistent)?>'
_SPEC_LIST = re.compile(rf"\[\s*(?:{_SPEC_ITEM}\s*(?:,\s*{_SPEC_ITEM}\s*)*)?\]")
"""A list of input or output specs as printed: names without escapes."""
_SPEC_PIECES = re.compile(r'<([a-z_]+) "([^"]*)"(?: -> "([^"]*)")?( non_persistent)?>')


def _fast_specs(parser: Parser, attr_type: type[ParametrizedAttribute]) -> list[Attribute] | None:
    """
    A program's input and output specs as printed (one per weight, so hundreds),
    read with regular expressions instead of a token at a time; None (nothing
    consumed) for any other form, left to the general parser and its diagnostics.
    """
    if not isinstance(parser, ResourceParser) or attr_type not in (InputSpecAttr, OutputSpecAttr):
        return None
    match = parser.peek_raw(_SPEC_LIST)
    if match is None:
        return None
    specs: list[Attribute] = []
    for piece in _SPEC_PIECES.finditer(match.string, match.start(), match.end()):
        kind, name, target, non_persistent = piece.groups()
        if attr_type is InputSpecAttr:
            if kind not in InputKind.__members__ or (non_persistent and kind != InputKind.buffer):
                return None
            if (InputKind(kind) in STATE_INPUT_KINDS) != (target is not None):
                return None  # the general parser reports it
            persistent = (non_persistent is None) if kind == InputKind.buffer else None
            specs.append(InputSpecAttr(InputKind(kind), name, target, persistent))
        else:
            if kind not in OutputKind.__members__ or non_persistent:
                return None
            if (OutputKind(kind) in TARGETED_OUTPUT_KINDS) != (target is not None):
                return None  # the general parser reports it
            specs.append(OutputSpecAttr(OutputKind(kind), name, target))
    parser.skip_raw(match.end())
    return specs


def parse_optional_spec_list(
    parser: Parser, keyword: str, attr_type: type[ParametrizedAttribute]
) -> list[Attribute]:
    if parser.parse_optional_keyword(keyword) is None:
        return []
    fast = _fast_specs(parser, attr_type)
    if fast is not None:
        return fast
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




# ---------------------------------------------------------------------------
# Pytree specs
# ---------------------------------------------------------------------------
#
# torch.export keeps how user inputs and outputs flatten as torch's
# `treespec_dumps` JSON (`[1, {"type": "builtins.tuple", "context": "null",
# "children_spec": [...]}]`). The program holds that text unchanged (other tools
# read it); printed, it is written as the structure it describes:
#
#   spec ::= `*`                               a leaf (a tensor, a number)
#          | `(` spec,* `)`                    builtins.tuple
#          | `[` spec,* `]`                    builtins.list
#          | `{` (key `:` spec),* `}`          builtins.dict, keys strings or integers
#          | string (`<` string `>`)? `(` spec,* `)`
#                                              any other node: its type name, its
#                                              context's JSON text, its children
#
# so `torch.export.export(m, (x,))` reads `in_spec ((*), {})`. A spec this syntax
# cannot give back byte for byte (another protocol, other JSON spacing) prints
# as the JSON string it is, which also reads back.

_PYTREE_PROTOCOL = 1
_LEAF = {"type": None, "context": None, "children_spec": []}


def _pytree_node_ok(node: object) -> bool:
    if not isinstance(node, dict) or list(node) != ["type", "context", "children_spec"]:
        return False
    children = node["children_spec"]
    return (
        (node["type"] is None or isinstance(node["type"], str))
        and (node["context"] is None or isinstance(node["context"], str))
        and isinstance(children, list)
        and all(_pytree_node_ok(c) for c in children)
    )


def _dict_keys(node: dict[str, object]) -> list[str | int] | None:
    """The keys of a `builtins.dict` node, when its context is a JSON list of strings or integers."""
    try:
        keys = json.loads(cast(str, node["context"]))
    except (TypeError, ValueError):
        return None
    if not isinstance(keys, list) or len(keys) != len(cast(list[object], node["children_spec"])):
        return None
    keys = cast(list[object], keys)
    if not all(isinstance(k, str) or (isinstance(k, int) and not isinstance(k, bool)) for k in keys):
        return None
    if json.dumps(keys) != node["context"]:
        return None
    return cast(list[str | int], keys)


def _print_pytree_node(printer: Printer, node: dict[str, object]) -> None:
    children = cast(list[dict[str, object]], node["children_spec"])

    def each(c: dict[str, object]) -> None:
        _print_pytree_node(printer, c)

    kind, context = node["type"], node["context"]
    if node == _LEAF:
        printer.print_string("*")
    elif kind in ("builtins.tuple", "builtins.list") and context == "null":
        opening, closing = ("(", ")") if kind == "builtins.tuple" else ("[", "]")
        printer.print_string(opening)
        printer.print_list(children, each)
        printer.print_string(closing)
    elif kind == "builtins.dict" and (keys := _dict_keys(node)) is not None:
        printer.print_string("{")

        def entry(item: tuple[str | int, dict[str, object]]) -> None:
            if isinstance(item[0], str):
                printer.print_string_literal(item[0])
            else:
                printer.print_string(str(item[0]))
            printer.print_string(": ")
            each(item[1])

        printer.print_list(list(zip(keys, children)), entry)
        printer.print_string("}")
    else:
        printer.print_string_literal(cast(str, kind))
        if context is not None:
            printer.print_string("<")
            printer.print_string_literal(cast(str, context))
            printer.print_string(">")
        printer.print_string("(")
        printer.print_list(children, each)
        printer.print_string(")")


def print_pytree_spec(printer: Printer, spec: str) -> None:
    """A `treespec_dumps` text in the syntax above, or as a string when that would not give it back."""
    try:
        loaded = json.loads(spec)
    except ValueError:
        loaded = None
    if (
        isinstance(loaded, list)
        and len(cast(list[object], loaded)) == 2
        and loaded[0] == _PYTREE_PROTOCOL
        and _pytree_node_ok(loaded[1])
        and loaded[1]["type"] is not None  # the root is a container: `*` alone reads as no spec
        and json.dumps(loaded) == spec
    ):
        _print_pytree_node(printer, cast(dict[str, object], loaded[1]))
    else:
        printer.print_string_literal(spec)


def _parse_pytree_node(parser: Parser) -> dict[str, object]:
    def children(delimiter: Parser.Delimiter) -> list[dict[str, object]]:
        return parser.parse_comma_separated_list(delimiter, lambda: _parse_pytree_node(parser), " in a pytree spec")

    if parser.parse_optional_punctuation("*") is not None:
        return dict(_LEAF)
    if current_token(parser).kind == MLIRTokenKind.L_PAREN:
        return {"type": "builtins.tuple", "context": "null", "children_spec": children(parser.Delimiter.PAREN)}
    if current_token(parser).kind == MLIRTokenKind.L_SQUARE:
        return {"type": "builtins.list", "context": "null", "children_spec": children(parser.Delimiter.SQUARE)}
    if current_token(parser).kind == MLIRTokenKind.L_BRACE:
        keys: list[str | int] = []

        def entry() -> dict[str, object]:
            key = parser.parse_optional_str_literal()
            if key is None:
                key = parser.parse_integer(allow_boolean=False, context_msg=" (a dict key: a string or an integer)")
            keys.append(key)
            parser.parse_punctuation(":")
            return _parse_pytree_node(parser)

        nodes = parser.parse_comma_separated_list(parser.Delimiter.BRACES, entry, " in a pytree spec")
        return {"type": "builtins.dict", "context": json.dumps(keys), "children_spec": nodes}
    kind = parser.parse_optional_str_literal()
    if kind is None:
        parser.raise_error("expected a pytree spec: `*`, `(...)`, `[...]`, `{...}` or \"type\"(...)")
    context: str | None = None
    if parser.parse_optional_punctuation("<") is not None:
        context = parser.parse_str_literal("the node's context (JSON text)")
        parser.parse_punctuation(">")
    return {"type": kind, "context": context, "children_spec": children(parser.Delimiter.PAREN)}


def parse_pytree_spec(parser: Parser) -> str:
    """A spec in the syntax above (or the JSON string itself), as `treespec_dumps` text."""
    text = parser.parse_optional_str_literal()
    if text is not None:
        kind = current_token(parser).kind
        if kind not in (MLIRTokenKind.L_PAREN, MLIRTokenKind.LESS):
            return text  # the JSON text itself
        context: str | None = None
        if parser.parse_optional_punctuation("<") is not None:
            context = parser.parse_str_literal("the node's context (JSON text)")
            parser.parse_punctuation(">")
        nodes = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, lambda: _parse_pytree_node(parser), " in a pytree spec"
        )
        root: dict[str, object] = {"type": text, "context": context, "children_spec": nodes}
    else:
        root = _parse_pytree_node(parser)
    return json.dumps([_PYTREE_PROTOCOL, root])
