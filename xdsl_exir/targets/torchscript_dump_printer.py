"""
`--emit torchscript`: TorchScript graphs printed exactly as torch prints them
(`str(graph)`), the inverse of `frontends/torchscript_dump_reader`.

    graph(%x.1 : Tensor,
          %y : int):
      %5 : int = prim::Constant[value=1]()
      %x : Tensor = prim::If(%4) # models.py:12:4
        block0():
          -> (%x.2)
        block1():
          -> (%x.1)
       = prim::SetAttr[name="count"](%self, %v)
      return (%x)
    with prim::FusionGroup_0 = graph(...):
      ...

Each `ts.method` is one graph; a `ts.module` prints the graph of each of its
methods, and then of its submodules, after a `# <module path>.<method>` line
(the path of symbol names, `m.sub.forward`). A lone top-level method prints
with no such line, so a parsed dump prints back as torch wrote it.

Value names are the name hints where there are any (made unique torch's way,
`x`, `x.1`, `x.2`) and numbers otherwise. Attribute values are spelled as
torch spells them: floats as `1.` or with 17 significant digits, bools of
`prim::Constant` as `1`/`0`, one-element tensors as `{2}`, tensors of up to
ten elements in at::print's layout, larger ones as `<Tensor>`. Subgraphs are
numbered per graph in the order their nodes print (`prim::FusionGroup_0`) and
follow the graph's `return` in `with` sections, nested ones right after the
graph holding them, as torch prints them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import IO

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    NoneAttr,
    OpaqueAttr,
    StringAttr,
    UnitAttr,
)
from xdsl.ir import Attribute, Operation, Region, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from xdsl_exir.dialects import prim, ts
from xdsl_exir.dialects.ts import (
    TensorValueAttr,
    TSAnyType,
    TSComplexType,
    TSListType,
    TSNumberType,
    TSOptionalType,
    TSTupleType,
    TSUnionType,
    ts_annotation_str,
    ts_type_str,
)
from xdsl_exir.utils.tensor_data import TensorDataError
from xdsl_exir.utils.tensor_print import format_tensor_print

__all__ = [
    "TorchScriptTarget",
    "format_float",
    "format_graph",
    "format_string",
    "format_tensor",
    "print_torchscript",
]

SUBGRAPH_ATTR = "Subgraph"
"""The `attrs` key marking a `ts.node`'s last region as its subgraph (see the frontend)."""

OPAQUE_DIALECT = "torchscript"
"""`opaque<"torchscript", "text">` attributes print as their text."""

MAX_TENSOR_DISPLAY = 10
"""torch prints the elements of tensor attributes up to this many elements."""


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


def format_float(x: float) -> str:
    """A double as TorchScript prints it: `2.`, `0.5`, `0.10000000000000001`, `1e+20`, `inf`."""
    if math.isfinite(x) and abs(x) < 1e10 and x == int(x):
        if x == 0 and math.copysign(1.0, x) < 0:
            return "-0."
        return f"{int(x)}."
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:.17g}"


_QUOTED = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n",
           "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def format_string(s: str) -> str:
    """A string literal as torch quotes it (C escapes, other unprintable bytes in octal)."""
    out = ['"']
    for b in s.encode("utf-8", errors="surrogateescape"):
        ch = chr(b)
        esc = _QUOTED.get(ch)
        if esc is not None:
            out.append(esc)
        elif 0x20 <= b < 0x7F:
            out.append(ch)
        else:
            out.append(f"\\{b:03o}")
    out.append('"')
    return "".join(out)


def format_complex(re_: float, im: float) -> str:
    re_ = re_ if re_ != 0 else 0.0  # torch drops the sign of a zero real part
    return f"{format_float(re_)}{'+' if im >= 0 else '-'}{format_float(abs(im))}j"


def _tensor_elements(v: TensorValueAttr) -> list[float] | None:
    """The elements of a tensor constant as doubles (what at::print formats), or None if unknown."""
    if v.scalar.data.startswith(("Complex", "Q")):
        return None
    try:
        return [float(x) for x in v.to_array().reshape(-1).astype(np.float64)]
    except TensorDataError:
        return None
_FLOATING = frozenset({"Half", "Float", "Double", "BFloat16", "Float8_e5m2", "Float8_e4m3fn",
                       "Float8_e5m2fnuz", "Float8_e4m3fnuz"})


def format_tensor(v: TensorValueAttr) -> str:
    """A tensor attribute: `{2}` for one element, at::print's layout up to ten, else `<Tensor>`."""
    n = math.prod(v.shape)
    if n > MAX_TENSOR_DISPLAY or not v.known:
        return "<Tensor>"
    values = _tensor_elements(v)
    if values is None:
        return "<Tensor>"
    if n == 1:
        x = values[0]
        if v.scalar.data in _FLOATING:
            return "{" + f"{x:g}" + "}"
        return "{" + str(int(x)) + "}"
    return format_tensor_print(values, list(v.shape), v.scalar.data)


# -- attribute values -------------------------------------------------------------


def _is_bool(a: IntegerAttr) -> bool:
    t = a.type
    return getattr(getattr(t, "width", None), "data", None) == 1


def format_attribute(a: Attribute) -> str:
    """A node attribute of any kind, as torch prints it."""
    if isinstance(a, IntegerAttr):
        if _is_bool(a):
            return "True" if a.value.data else "False"
        return str(a.value.data)
    if isinstance(a, FloatAttr):
        return format_float(a.value.data)
    if isinstance(a, StringAttr):
        return format_string(a.data)
    if isinstance(a, TensorValueAttr):
        return format_tensor(a)
    if isinstance(a, ArrayAttr):
        return "[" + ", ".join(format_attribute(x) for x in a.data) + "]"
    if isinstance(a, OpaqueAttr):
        return a.value.data
    if isinstance(a, NoneAttr):
        return "None"
    if isinstance(a, ts.TS_TYPES):
        return ts_type_str(a)
    return str(a)


def _format_ivalue(a: Attribute | None, t: Attribute) -> str:
    """An element of a list or tuple constant (IValue's repr: `True`, `1.`, `"s"`, `(1,)`)."""
    if a is None or isinstance(a, NoneAttr):
        return "None"
    if isinstance(t, TSOptionalType):
        return _format_ivalue(a, t.element)
    if isinstance(a, ArrayAttr):
        if isinstance(t, TSComplexType) and len(a.data) == 2:
            return _format_complex_attr(a)
        if isinstance(t, TSListType):
            return _format_list(a, t)
        if isinstance(t, TSTupleType):
            items = [_format_ivalue(x, e) for x, e in zip(a.data, t.element_types)]
            return "(" + ", ".join(items) + (",)" if len(items) == 1 else ")")
    return format_attribute(a)


def _format_complex_attr(a: ArrayAttr[Attribute]) -> str:
    re_, im = a.data
    assert isinstance(re_, FloatAttr) and isinstance(im, FloatAttr)
    return format_complex(re_.value.data, im.value.data)


def _format_list(a: ArrayAttr[Attribute], t: TSListType) -> str:
    body = "[" + ", ".join(_format_ivalue(x, t.element) for x in a.data) + "]"
    # torch annotates lists whose element type the elements do not tell
    if not a.data or isinstance(t.element, TSOptionalType | TSUnionType | TSNumberType | TSAnyType):
        return f"annotate({ts_annotation_str(t)}, {body})"
    return body


def format_constant_value(value: Attribute, t: Attribute) -> str:
    """The `value=` of a `prim::Constant` of type `t` (bools as `1`/`0`, as torch stores them as ints)."""
    if isinstance(value, IntegerAttr):
        if _is_bool(value):
            return "1" if value.value.data else "0"
        return str(value.value.data)
    if isinstance(value, ArrayAttr):
        return _format_ivalue(value, t)
    return format_attribute(value)


# ---------------------------------------------------------------------------
# Graphs
# ---------------------------------------------------------------------------


_PROPS: dict[type[IRDLOperation], tuple[str, ...]] = {}


def _prop_order(cls: type[IRDLOperation]) -> tuple[str, ...]:
    order = _PROPS.get(cls)
    if order is None:
        order = _PROPS[cls] = tuple(n for n in cls.get_irdl_definition().properties if n != "attrs")
    return order


def _type_str(t: Attribute, op: Operation) -> str:
    try:
        return ts_type_str(t)
    except TypeError:
        raise DiagnosticException(
            f"'{op.name}' has a value of type {t}, which TorchScript cannot spell"
        ) from None


_SUFFIX = re.compile(r"\.\d+$")


class _GraphPrinter:
    """Prints one graph; subgraphs get printers of their own (their own names)."""

    def __init__(self) -> None:
        self.names: dict[SSAValue, str] = {}
        self.used: set[str] = set()
        self.counter = 0
        self.groups: list[tuple[str, Region]] = []
        self.out: list[str] = []

    def define(self, v: SSAValue) -> str:
        hint = v.name_hint
        if hint:
            name = hint
            if name in self.used:
                base = _SUFFIX.sub("", hint)
                k = 1
                while f"{base}.{k}" in self.used:
                    k += 1
                name = f"{base}.{k}"
        else:
            while str(self.counter) in self.used:
                self.counter += 1
            name = str(self.counter)
        self.used.add(name)
        self.names[v] = name
        return name

    def use(self, v: SSAValue, op: Operation) -> str:
        name = self.names.get(v)
        if name is None:
            raise DiagnosticException(f"'{op.name}' uses a value defined outside its graph or after it")
        return "%" + name

    def typed(self, values: Sequence[SSAValue], op: Operation) -> list[str]:
        return [f"%{self.define(v)} : {_type_str(v.type, op)}" for v in values]

    def graph(self, region: Region, owner: Operation) -> str:
        block = region.block
        self.out.append("graph(" + ",\n      ".join(self.typed(block.args, owner)) + "):\n")
        ret = self.body(region, 1, owner)
        self.out.append("  return (" + ", ".join(self.use(v, ret) for v in ret.operands) + ")\n")
        for i, (kind, sub) in enumerate(self.groups):
            self.out.append(f"with {kind}_{i} = ")
            self.out.append(_GraphPrinter().graph(sub, owner))
        return "".join(self.out)

    def body(self, region: Region, level: int, owner: Operation) -> Operation:
        """Print a block's nodes; return its terminator."""
        if len(region.blocks) != 1:
            raise DiagnosticException(f"a region of '{owner.name}' must have exactly one block")
        block = region.block
        last = block.last_op
        if not isinstance(last, prim.ReturnOp):
            raise DiagnosticException(f"a block of '{owner.name}' must end with prim.Return")
        for op in block.ops:
            if op is not last:
                self.node(op, level)
        return last

    def node(self, op: Operation, level: int) -> None:
        kind, attrs, blocks, subgraph = _describe(op)
        indent = "  " * level
        head = ", ".join(self.typed(op.results, op))
        if subgraph is not None:
            shown = f"{kind}_{len(self.groups)}"
            self.groups.append((kind, subgraph))
        else:
            shown = kind
        text = f"{indent}{head} = {shown}"
        if attrs:
            text += "[" + ", ".join(f"{k}={v}" for k, v in attrs) + "]"
        text += "(" + ", ".join(self.use(v, op) for v in op.operands) + ")"
        loc = op.location
        if isinstance(loc, NameLoc):  # a traced node's module scope
            text += f", scope: {loc.desc.data}"
            loc = loc.location
        if isinstance(loc, FileLineColLoc):
            text += f" # {loc.filename.data}:{loc.line.data}:{loc.column.data}"
        self.out.append(text + "\n")
        for i, region in enumerate(blocks):
            params = ", ".join(self.typed(region.block.args, op) if region.blocks else [])
            self.out.append(f"{indent}  block{i}({params}):\n")
            ret = self.body(region, level + 2, op)
            self.out.append(f"{indent}    -> (" + ", ".join(self.use(v, ret) for v in ret.operands) + ")\n")


def _describe(op: Operation) -> tuple[str, list[tuple[str, str]], list[Region], Region | None]:
    """An op as a node: its kind, printed attributes, blocks and subgraph."""
    if isinstance(op, ts.NodeOp):
        attrs: list[tuple[str, str]] = []
        has_subgraph = False
        if op.node_attrs is not None:
            for k, v in op.node_attrs.data.items():
                if k == SUBGRAPH_ATTR and isinstance(v, UnitAttr):
                    has_subgraph = True
                else:
                    attrs.append((k, format_attribute(v)))
        regions = list(op.regions)
        if has_subgraph and regions:
            return op.kind.data, attrs, regions[:-1], regions[-1]
        return op.kind.data, attrs, regions, None
    if isinstance(op, prim.ConstantOp):
        attrs = []
        if op.fn_name is not None:
            attrs.append(("name", format_string(op.fn_name.data)))
        elif op.value is not None:
            attrs.append(("value", format_constant_value(op.value, op.results[0].type)))
        attrs.extend(_extra(op))
        return op.KIND, attrs, [], None
    if isinstance(op, prim.ReturnOp):
        raise DiagnosticException("prim.Return must be the last op of its block")
    if isinstance(op, prim.PrimOp):
        attrs = [(k, format_attribute(op.properties[k])) for k in _prop_order(type(op)) if k in op.properties]
        attrs.extend(_extra(op))
        regions = list(op.regions)
        if isinstance(op, prim.SUBGRAPH_OPS):
            return op.KIND, attrs, [], regions[0]
        if isinstance(op, prim.BailOutOp):
            return op.KIND, attrs, [], regions[0] if regions else None
        return op.KIND, attrs, regions, None
    raise DiagnosticException(f"'{op.name}' is not a TorchScript node (only ts and prim ops print as a graph)")


def _extra(op: Operation) -> list[tuple[str, str]]:
    extra = op.properties.get("attrs")
    if isinstance(extra, DictionaryAttr):
        return [(k, format_attribute(v)) for k, v in extra.data.items()]
    return []


def format_graph(method: ts.MethodOp) -> str:
    """The graph of a method as `str(graph)` prints it (ends with a newline)."""
    return _GraphPrinter().graph(method.body, method)


def _methods(module: ModuleOp) -> Iterator[tuple[str, ts.MethodOp, bool]]:
    """(qualified name, method, inside a ts.module) for every method to print, in order."""

    def walk_module(m: ts.ScriptModuleOp, prefix: str) -> Iterator[tuple[str, ts.MethodOp, bool]]:
        path = f"{prefix}{m.sym_name.data}"
        for meth in m.methods():
            yield f"{path}.{meth.sym_name.data}", meth, True
        for sub in m.submodules():
            yield from walk_module(sub, path + ".")

    for op in module.ops:
        if isinstance(op, ts.MethodOp):
            yield op.sym_name.data, op, False
        elif isinstance(op, ts.ScriptModuleOp):
            yield from walk_module(op, "")
        elif isinstance(op, ModuleOp):
            yield from _methods(op)


def print_torchscript(module: ModuleOp) -> str:
    """Every graph of the module, as torch prints graphs."""
    methods = list(_methods(module))
    if not methods:
        raise DiagnosticException("--emit torchscript prints ts.method and ts.module ops; there are none")
    if len(methods) == 1 and not methods[0][2]:
        return format_graph(methods[0][1])
    return "\n".join(f"# {name}\n{format_graph(m)}" for name, m, _ in methods)


@dataclass(frozen=True)
class TorchScriptTarget(Target):
    """`-t torchscript` / `--emit torchscript`."""

    name = "torchscript"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        output.write(print_torchscript(module))
