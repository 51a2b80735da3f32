"""
The one attribute of IREE's `stream` dialect the lowering writes: a named
parameter, the initial value of a global whose data IREE reads at run time
from a parameter provider instead of from the compiled module.

    ml_program.global private @"param.w"(#stream.parameter.named<"model"::"w"> : tensor<4x3xf32>) : tensor<4x3xf32>

IREE's input conversion turns `ml_program.global` into its `util.global`; the
parameter is then looked up by scope and key in the providers of the
`io_parameters` module the caller registers (an `.irpa` archive, or buffers
added to a `ParameterIndex`). The attribute is typed (`: tensor<...>`), as
iree-compile requires of a global's initial value. Only what the lowering
emits is modelled: a scope and a key, both strings.
"""

from __future__ import annotations

from xdsl.dialects.builtin import ModuleOp, StringAttr, TensorType
from xdsl.dialects.ml_program import GlobalOp
from xdsl.ir import Attribute, Dialect, ParametrizedAttribute
from xdsl.irdl import irdl_attr_definition
from xdsl.parser import AttrParser
from xdsl.printer import Printer


@irdl_attr_definition
class ParameterNamedAttr(ParametrizedAttribute):
    """`#stream.parameter.named<"scope"::"key"> : type`: a tensor IREE reads from a parameter provider."""

    name = "stream.parameter.named"

    scope: StringAttr
    key: StringAttr
    type: TensorType[Attribute]

    def __init__(self, scope: str, key: str, type: TensorType[Attribute]) -> None:
        super().__init__(StringAttr(scope), StringAttr(key), type)

    @classmethod
    def parse_parameters(cls, parser: AttrParser) -> tuple[StringAttr, StringAttr, TensorType[Attribute]]:
        with parser.in_angle_brackets():
            scope = parser.parse_str_literal()
            parser.parse_punctuation(":")
            parser.parse_punctuation(":")
            key = parser.parse_str_literal()
        parser.parse_punctuation(":")
        pos = parser.pos
        t = parser.parse_type()
        if not isinstance(t, TensorType):
            parser.raise_error("a named parameter holds a tensor", pos)
        return StringAttr(scope), StringAttr(key), t

    def print_parameters(self, printer: Printer) -> None:
        printer.print_string("<")
        printer.print_string_literal(self.scope.data)
        printer.print_string("::")
        printer.print_string_literal(self.key.data)
        printer.print_string("> : ")
        printer.print_attribute(self.type)


def parameter_keys(module: ModuleOp) -> list[str]:
    """The keys of the named parameters a (lowered) module's globals read, in order."""
    return [
        op.value.key.data
        for op in module.ops
        if isinstance(op, GlobalOp) and isinstance(op.value, ParameterNamedAttr)
    ]


def parameters_refused(keys: list[str], what: str) -> str:
    """Why a lowered module whose weights are named parameters cannot run by itself."""
    shown = ", ".join(keys[:3]) + (", ..." if len(keys) > 3 else "")
    return (
        f"the lowered module reads {len(keys)} weights as IREE named parameters ({shown}), which it does not "
        f"hold, so {what} cannot run it: run the program it was lowered from (its .pt2 or Export IR), "
        "or lower it without parameters-from-bytes"
    )


Stream = Dialect("stream", [], [ParameterNamedAttr])

__all__ = ["ParameterNamedAttr", "Stream", "parameter_keys", "parameters_refused"]
