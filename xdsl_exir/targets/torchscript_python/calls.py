"""
How a call and a signature are written: the operator's name (`torch.xxx`, `ops.<ns>.<name>`),
the schema resolved from the input types, the arguments kept (those equal to their defaults
dropped from the end), node attributes, a method's parameters and its return annotation.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, FloatAttr, IntegerAttr, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue, TypeAttribute
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.analysis.overload_resolution import OverloadError, resolve_node, schema_type_to_ts
from xdsl_exir.dialects.ts import MethodOp, NodeOp, TSTensorType, TSTypeError, parse_ts_type, ts_type_str
from xdsl_exir.targets.torchscript_python.spelling import (
    MISSING,
    annotation_str,
    constant_value,
    debug_name_base,
    format_float,
    make_valid_identifier,
    quote_string,
    same_ivalue,
)
from xdsl_exir.targets.torchscript_python.structure import block_return
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.function_schema import Argument, FunctionSchema, SchemaParseError, parse_schema
from xdsl_exir.utils.op_registry import all_operators

BUILTIN_CALLS = {
    "aten::Int": "int",
    "aten::Float": "float",
    "aten::Bool": "bool",
    "aten::str": "str",
    "prim::Print": "print",
    "aten::sorted": "sorted",
}

_OVERRIDDEN_NAMES = {("aten", "backward"): "torch.autograd.backward", ("aten", "grad"): "torch.autograd.grad"}


def op_name(ns: str, name: str) -> str:
    if (ns, name) in _OVERRIDDEN_NAMES:
        return _OVERRIDDEN_NAMES[(ns, name)]
    return f"torch.{name}" if ns == "aten" else f"ops.{ns}.{name}"


def schema_for(op: Operation, ns: str, name: str, overload: str) -> FunctionSchema | None:
    """The schema torch would print the node's call against, None when unknown."""
    if overload:
        entry = all_operators().get(f"{ns}.{name}.{overload}")
        return entry.schema if entry is not None else None
    try:
        return resolve_node(f"{ns}::{name}", [v.type for v in op.operands]).schema
    except (OverloadError, TypeError):  # no overload; operands of non-TorchScript types
        return None


def necessary_args(schema: FunctionSchema, ins: Sequence[SSAValue]) -> tuple[int, int]:
    """
    (how many leading arguments to print, how many trailing `out=` arguments
    there are): defaults equal to what the node passes are dropped from the
    end of the arguments before the `out=` ones (torch's CalculateNecessaryArgs).
    """
    args = schema.arguments
    if not args:
        return 0, 0
    idx = len(args) - 1
    while idx >= 0 and args[idx].is_out:
        idx -= 1
    n_out = len(args) - idx - 1
    if len(args) < len(ins):
        return len(ins), n_out
    idx = min(idx, len(ins) - 1)
    while idx >= 0:
        arg = args[idx]
        if not arg.has_default:
            return idx + 1, n_out
        actual = constant_value(ins[idx])
        if actual is MISSING or not same_ivalue(actual, arg.default_value):
            return idx + 1, n_out
        idx -= 1
    return 0, n_out


def int_attr(op: Operation, key: str) -> int:
    attrs = op.properties.get("attrs")
    value = attrs.data.get(key) if isinstance(attrs, DictionaryAttr) else None
    if not isinstance(value, IntegerAttr):
        raise ExirDiagnostic(op, f"expected an integer attribute '{key}'")
    return value.value.data


def type_list_attr(op: Operation, key: str) -> list[Attribute]:
    """A list of types kept as types or as their dump spelling (`types=[Tensor]`)."""
    attrs = op.properties.get("attrs")
    value = attrs.data.get(key) if isinstance(attrs, DictionaryAttr) else None
    items = value.data if isinstance(value, ArrayAttr) else (value,) if value is not None else ()
    types: list[Attribute] = []
    for item in items:
        if isinstance(item, StringAttr):
            try:
                types.append(parse_ts_type(item.data))
            except TSTypeError as e:
                raise ExirDiagnostic(op, f"malformed type '{item.data}' in '{key}': {e}") from e
        elif isinstance(item, TypeAttribute):
            types.append(item)
        else:
            raise ExirDiagnostic(op, f"expected types in '{key}'")
    if not types:
        raise ExirDiagnostic(op, f"expected the attribute '{key}'")
    return types


def extra_attrs(op: Operation) -> list[tuple[str, Attribute]]:
    """Node attributes that only a keyword argument can show (`index=1`, `seen_none=0`)."""
    items: list[tuple[str, Attribute]] = []
    for key, value in op.properties.items():
        if key == "attrs" and isinstance(value, DictionaryAttr):
            items.extend(value.data.items())
        elif not (isinstance(op, NodeOp) and key == "kind"):
            items.append((key, value))
    return items


def format_attr(value: Attribute) -> str:
    if isinstance(value, IntegerAttr):
        n = value.value.data
        return ("True" if n else "False") if value.type.width.data == 1 else str(n)
    if isinstance(value, FloatAttr):
        return format_float(float(value.value.data))
    if isinstance(value, StringAttr):
        return quote_string(value.data)
    if isinstance(value, ArrayAttr):
        return "[" + ", ".join(format_attr(x) for x in value.data) + "]"
    if isinstance(value, TSTensorType) and value != TSTensorType():
        return quote_string(ts_type_str(value))  # the refinement has no annotation
    if isinstance(value, TypeAttribute):
        try:
            return annotation_str(value)
        except DiagnosticException:
            pass
    return quote_string(str(value))


def return_annotation(types: Sequence[Attribute]) -> str:
    if len(types) == 1:
        return annotation_str(types[0])
    if not types:
        return "None"
    return f"Tuple[{', '.join(annotation_str(t) for t in types)}]"


def _method_schema(method: MethodOp) -> FunctionSchema | None:
    if method.schema is None:
        return None
    try:
        return parse_schema(method.schema.data)
    except SchemaParseError as e:
        raise ExirDiagnostic(method, f"malformed schema: {e}") from e


def method_parameters(method: MethodOp, is_method: bool) -> list[tuple[str, str, Argument | None]]:
    """Per graph input: its name, its annotation and the schema argument giving its default."""
    block = method.body.block
    schema = _method_schema(method)
    if schema is not None and len(schema.arguments) == len(block.args):
        return [
            (a.name, annotation_str(schema_type_to_ts(a.type)), a if a.has_default else None)
            for a in schema.arguments
        ]
    params: list[tuple[str, str, Argument | None]] = []
    for i, arg in enumerate(block.args):
        if i == 0 and is_method:
            name = "self"
        elif arg.name_hint:
            name = make_valid_identifier(debug_name_base(arg.name_hint))
        else:
            name = f"argument_{i}"
        params.append((name, annotation_str(arg.type), None))
    return params


def method_return_annotation(method: MethodOp) -> str:
    schema = _method_schema(method)
    if schema is not None and len(schema.returns) == 1:
        return annotation_str(schema_type_to_ts(schema.returns[0].type))
    if schema is not None and not schema.returns:
        return "NoneType"
    return return_annotation([v.type for v in block_return(method.body.block, method).operands])
