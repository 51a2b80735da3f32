"""
Reading TorchScript graph dumps (`str(graph)`, the canonical text form of "JIT Technical Overview")
into the `ts` and `prim` dialects, without torch.

    graph(%x.1 : Tensor,
          %y : int):
      %5 : int = prim::Constant[value=1]()
      %4 : bool = aten::gt(%y, %5) # models.py:12:7
      %x : Tensor = prim::If(%4) # models.py:12:4
        block0():
          ...
          -> (%x.2)
        block1():
          -> (%x.1)
      return (%x)
    with prim::FusionGroup_0 = graph(...):
      ...

becomes a `builtin.module` holding `ts.method @forward`, whose entry block
arguments are the graph inputs (named after the dump's names where xDSL
accepts them). A node becomes the prim op of its kind when there is one
(`prim::If` -> `prim.If`) and a `ts.node` otherwise; its blocks become
regions ending with `prim.Return`. A node printed as `kind_N` whose subgraph
is given by a `with kind_N = graph(...)` section gets that subgraph as its
(isolated) region and loses the `_N`; a `ts.node` with a subgraph records it
with a `Subgraph` unit attribute, as torch keeps it in an attribute of that
name. Node attributes become the op's properties where the op has them and
its `attrs` dictionary otherwise. A `# file:line:col` comment after a node
becomes its location (`FileLineColLoc`), a traced node's `, scope: <name>` a
`NameLoc` around it; other comments are skipped.

Tensor attributes hold what the dump shows: one-element tensors (`{0.333333}`,
six significant digits), tensors of up to ten elements in at::print's layout
(four decimals; an element may be moved by one ulp so that it prints back in
the layout torch chose), larger ones as `<Tensor>` (data unknown: an empty
blob). Attribute values with no faithful attribute (`[<Tensors>]`, `<Graph>`,
enum members, tuples outside constants) are kept as their text in an
`opaque<"torchscript", ...>` attribute; a `prim::Constant` holding one stays
a `ts.node`. Either way printing gives the text back.

Lenient where the JIT Technical Overview's examples need it: `Dynamic` reads as `Tensor`, a
`;` may end `return (...)`, lines holding only `}` are skipped.

Several graphs may follow each other (what `--emit torchscript` writes for a
`ts.module`); each becomes a method named by the `# qualified.name` comment
line before it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn

import numpy as np
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    FloatAttr,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    OpaqueAttr,
    StringAttr,
    UnitAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects import prim
from xdsl_exir.dialects.ts import (
    SCALAR_TYPES,
    MethodOp,
    NodeOp,
    TensorValueAttr,
    TSBoolType,
    TSComplexType,
    TSDeviceType,
    TSFloatType,
    TSFunctionType,
    TSIntType,
    TSListType,
    TSNumberType,
    TSOpaqueType,
    TSOptionalType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    TSTypeError,
    parse_ts_type_prefix,
    ts_type_str,
)
from xdsl_exir.utils.dtypes import DType
from xdsl_exir.utils.tensor_data import bytes_from_array, storage_dtype
from xdsl_exir.utils.tensor_print import format_tensor_print

__all__ = ["OPAQUE_DIALECT", "SUBGRAPH_ATTR", "TorchScriptParseError", "parse_torchscript", "tensor_bytes"]

OPAQUE_DIALECT = "torchscript"
"""The dialect name of `opaque<...>` attributes holding attribute text verbatim."""

SUBGRAPH_ATTR = "Subgraph"
"""The `attrs` key marking a `ts.node`'s last region as its subgraph (torch's `attr::Subgraph`)."""

# Node kinds that are nothing without their subgraph.
_NEEDS_SUBGRAPH = frozenset(c.KIND for c in prim.SUBGRAPH_OPS)

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1

_RECURSION = "Python's recursion limit"


class TorchScriptParseError(ValueError):
    """Malformed or inconsistent dump text, at a 1-based `line` and `col`."""

    def __init__(self, message: str, line: int, col: int) -> None:
        super().__init__(f"{line}:{col}: {message}")
        self.message = message
        self.line = line
        self.col = col


# ---------------------------------------------------------------------------
# Phase 1: the text as a tree of graphs, nodes and blocks
# ---------------------------------------------------------------------------


@dataclass(slots=True)
class _TensorText:
    """A tensor attribute as printed: `{v}`, torch's small-tensor print, or `<Tensor>`."""

    scalar: str | None  # from the print's `CPUFloatType`, else unknown
    dims: list[int] | None  # from the print's `{2,3}`, else unknown
    values: list[float | int] | None  # None: data not printed


@dataclass(slots=True)
class _Raw:
    """Attribute text kept verbatim."""

    text: str


@dataclass(slots=True)
class _Attr:
    name: str
    value: object
    raw: str
    pos: int


@dataclass(slots=True)
class _Def:
    name: str
    type: Attribute
    pos: int


@dataclass(slots=True)
class _Use:
    name: str
    pos: int


@dataclass(slots=True)
class _Block:
    index: int
    params: list[_Def]
    nodes: list[_Node]
    outputs: list[_Use]
    pos: int
    end_pos: int  # of the `->`


@dataclass(slots=True)
class _Node:
    outs: list[_Def]
    kind: str
    attrs: list[_Attr]
    args: list[_Use]
    loc: tuple[str, int, int] | None
    scope: str | None
    blocks: list[_Block]
    pos: int
    kind_pos: int
    subgraph: _Graph | None = None


@dataclass(slots=True)
class _Graph:
    params: list[_Def]
    nodes: list[_Node]
    outputs: list[_Use]
    pos: int
    return_pos: int
    # `kind_N` nodes waiting for their `with kind_N = graph(...)`
    pending: dict[str, list[_Node]] = field(default_factory=dict[str, list[_Node]])


_VALUE = re.compile(r"%([A-Za-z0-9_.]+)")
_KIND = re.compile(r"([A-Za-z_]\w*::[A-Za-z_]\w*)", re.ASCII)
_GROUP = re.compile(r"(.*)_(\d+)$")
_NAME = re.compile(r"[A-Za-z_]\w*", re.ASCII)  # torch's symbols are ASCII (and xDSL prints others escaped)
_BLOCK = re.compile(r"block(\d+)[ \t]*\(")
_WITH = re.compile(r"with[ \t]+([A-Za-z_]\w*::[A-Za-z_]\w*)[ \t]*=[ \t]*", re.ASCII)
_SPACE = re.compile(r"[ \t]*")
_LAYOUT_START = frozenset(" \t\r\n#}")
_USES = re.compile(r"[ \t]*((?:%[A-Za-z0-9_.]+(?:[ \t]*,[ \t]*%[A-Za-z0-9_.]+)*)?)[ \t]*\)")
_LAYOUT = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
_STRAY_BRACE = re.compile(r"[ \t]*\}[ \t]*(?:\n|$)")
_SCOPE = re.compile(r"[ \t]*,[ \t]*scope:[ \t]*([^#\n]*?)[ \t]*(?=#|\n|$)")
_LOC = re.compile(r"#[ \t]*(.+):(\d+):(\d+)[ \t]*$")
_NUMBER = re.compile(r"[-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan)(?![\w.])")
_COMPLEX = re.compile(
    r"([-+]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan))"
    r"([-+](?:(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|inf|nan))j"
)
# Types without nested parentheses (the usual `Float(3, 20, strides=[20, 1], ...)`, `int[]`), to cache
_SIMPLE_TYPE = re.compile(r"[A-Za-z_][\w.]*(?:\([^()]*\))?(?:\[\]|\?)*", re.ASCII)
_TYPE_CACHE: dict[str, Attribute] = {}
_DOTTED = re.compile(r"[A-Za-z_][\w.]*", re.ASCII)
# torch's print of a tensor of 2 to 10 elements (newlines made spaces):
# ` 1  2  3 [ CPUFloatType{3} ]`, `0.001 *  1.0000 ...`, `(1,.,.) = ...`, `Columns 1 to 6 ...`
_TENSOR_PRINT = re.compile(r"([^\[\]\"(){}<>,=]*(?:\((?:\d+,)+\.,\.\) =[^\[\]\"(){}<>,=]*)*)\[ ([A-Za-z0-9]+)Type\{([\d,]*)\} \]")
_BACKENDS = ("QuantizedCPU", "QuantizedCUDA", "SparseCPU", "SparseCUDA", "CPU", "CUDA", "MPS", "XPU", "HIP", "Meta", "Lazy")
_MATRIX_HEAD = re.compile(r"\((?:\d+,)+\.,\.\) =")
_COLUMNS = re.compile(r"Columns (\d+) to (\d+)")
_SCALE = re.compile(r"\s*([-+]?[\d.]+(?:e[-+]?\d+)?) \*")
_TYPE_ATTRS = frozenset({"types", "profiled_type"})
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class _Reader:
    """A recursive-descent reader of the dump text into `_Graph` trees."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.graphs: list[_Graph] = []  # the graphs being read, innermost last

    # -- errors and positions -------------------------------------------------

    def line_col(self, pos: int) -> tuple[int, int]:
        line = self.text.count("\n", 0, pos) + 1
        return line, pos - (self.text.rfind("\n", 0, pos) + 1) + 1

    def error(self, message: str, pos: int | None = None) -> NoReturn:
        line, col = self.line_col(self.pos if pos is None else pos)
        raise TorchScriptParseError(message, line, col)

    def found(self) -> str:
        """What is at the current position, for messages."""
        if self.pos >= len(self.text):
            return "end of input"
        rest = self.text[self.pos : self.pos + 20].split("\n", 1)[0]
        return f"'{rest}'" if rest.strip() else "end of line"

    # -- layout ---------------------------------------------------------------

    def layout(self) -> None:
        """Skip spaces, newlines, comments, and lines holding only a stray `}` (as in the seed)."""
        text = self.text
        if self.pos < len(text) and text[self.pos] not in _LAYOUT_START:
            return
        while True:
            self.pos = _LAYOUT.match(text, self.pos).end()  # pyright: ignore[reportOptionalMemberAccess] - the pattern matches the empty string: never None
            if self.pos < len(text) and text[self.pos] == "}":
                line_start = text.rfind("\n", 0, self.pos) + 1
                if not text[line_start : self.pos].strip() and (m := _STRAY_BRACE.match(text, self.pos)):
                    self.pos = m.end()
                    continue
            return

    def hspace(self) -> None:
        self.pos = _SPACE.match(self.text, self.pos).end()  # pyright: ignore[reportOptionalMemberAccess] - the pattern matches the empty string: never None

    def at(self, s: str) -> bool:
        return self.text.startswith(s, self.pos)

    def accept(self, s: str) -> bool:
        self.layout()
        if self.text.startswith(s, self.pos):
            self.pos += len(s)
            return True
        return False

    def expect(self, s: str, what: str | None = None) -> None:
        if not self.accept(s):
            self.error(f"expected {what or repr(s)}, found {self.found()}")

    # -- values and types -----------------------------------------------------

    def value_name(self) -> tuple[str, int]:
        self.layout()
        m = _VALUE.match(self.text, self.pos)
        if not m:
            self.error(f"expected a value name like %x, found {self.found()}")
        self.pos = m.end()
        return m.group(1), m.start()

    def uses(self, close: str) -> list[_Use]:
        """`%a, %b` up to `close` (consumed)."""
        if close == ")":
            m = _USES.match(self.text, self.pos)
            if m is not None:  # the one-line common case
                self.pos = m.end()
                return [_Use(v.group(1), v.start()) for v in _VALUE.finditer(self.text, m.start(1), m.end(1))]
        out: list[_Use] = []
        if self.accept(close):
            return out
        while True:
            name, pos = self.value_name()
            out.append(_Use(name, pos))
            if self.accept(close):
                return out
            self.expect(",", f"',' or '{close}'")

    def type_(self) -> Attribute:
        self.layout()
        return self.type_at(self.pos)

    def type_at(self, pos: int) -> Attribute:
        text = self.text
        if text.startswith("Enum<", pos):
            end = text.find(">", pos)
            if end < 0:
                self.error("unterminated Enum<...> type", pos)
            self.pos = end + 1
            return TSOpaqueType(text[pos : end + 1])
        if text.startswith("NamedTuple(", pos):
            return self.named_tuple(pos)
        m = _SIMPLE_TYPE.match(text, pos)
        if m is not None:
            cached = _TYPE_CACHE.get(m.group(0))
            if cached is not None:
                self.pos = m.end()
                return cached
        try:
            t, end = parse_ts_type_prefix(text, pos)
        except TSTypeError as e:
            self.error(str(e), e.pos if e.pos > pos else pos)
        except VerifyException as e:  # a well-formed but impossible type
            self.error(str(e), pos)
        except (ValueError, IndexError) as e:
            self.error(f"malformed type: {e}", pos)
        self.pos = end
        t = _dynamic_to_tensor(t)
        if m is not None and m.end() == end and len(_TYPE_CACHE) < 4096:
            _TYPE_CACHE[m.group(0)] = t
        return t

    def named_tuple(self, pos: int) -> Attribute:
        """`NamedTuple(a : int, b : Tensor)`: read as the tuple of its field types."""
        self.pos = pos + len("NamedTuple(")
        items: list[Attribute] = []
        if not self.accept(")"):
            while True:
                self.layout()
                m = _NAME.match(self.text, self.pos)
                if not m:
                    self.error(f"expected a field name, found {self.found()}")
                self.pos = m.end()
                self.expect(":")
                items.append(self.type_())
                if self.accept(")"):
                    break
                self.expect(",", "',' or ')'")
        return TSTupleType(*items)

    def defs(self, close: str) -> list[_Def]:
        """`%a : T, %b : T` up to `close` (consumed)."""
        out: list[_Def] = []
        if self.accept(close):
            return out
        while True:
            name, pos = self.value_name()
            self.expect(":", "':' and a type")
            out.append(_Def(name, self.type_(), pos))
            if self.accept(close):
                return out
            self.expect(",", f"',' or '{close}'")

    # -- graphs -----------------------------------------------------------------

    def graph(self) -> _Graph:
        self.layout()
        pos = self.pos
        if not self.at("graph"):
            self.error(f"expected 'graph(', found {self.found()}")
        self.pos += len("graph")
        self.expect("(")
        params = self.defs(")")
        self.expect(":")
        g = _Graph(params, [], [], pos, 0)
        self.graphs.append(g)
        g.nodes = self.nodes(None)
        self.layout()
        g.return_pos = self.pos
        self.pos += len("return")
        self.expect("(", "'(' after return")
        g.outputs = self.uses(")")
        self.hspace()
        if self.at(";"):  # the JIT Technical Overview's `return (%8);`
            self.pos += 1
        self.withs(g)
        self.graphs.pop()
        for nodes in g.pending.values():
            for n in nodes:
                if n.subgraph is None and _GROUP.sub(r"\1", n.kind) in _NEEDS_SUBGRAPH:
                    self.error(f"{n.kind} has no 'with {n.kind} = graph(...)' section giving its subgraph", n.kind_pos)
        return g

    def withs(self, g: _Graph) -> None:
        """The `with kind_N = graph(...)` sections of `g`'s nodes (nested graphs read their own first)."""
        while True:
            save = self.pos
            self.layout()
            m = _WITH.match(self.text, self.pos)
            if not m:
                self.pos = save
                return
            waiting = [n for n in g.pending.get(m.group(1), ()) if n.subgraph is None]
            if not waiting:
                self.pos = save  # it belongs to an enclosing graph
                return
            node = waiting[0]
            self.pos = m.end()
            node.subgraph = self.graph()
            node.kind = _GROUP.sub(r"\1", node.kind)

    def nodes(self, block: str | None) -> list[_Node]:
        """Nodes up to the block's `->` (`block` names it) or the graph's `return`."""
        out: list[_Node] = []
        text = self.text
        while True:
            self.layout()
            if self.pos >= len(text):
                self.error(f"{block} ends without '-> (...)'" if block else "graph ends without 'return (...)'")
            c = text[self.pos]
            if c == "%" or c == "=":
                out.append(self.node())
                continue
            if block is not None:
                if self.at("->"):
                    return out
                self.error(f"{block} ends without '-> (...)' (found {self.found()})")
            if self.at("return") and not _NAME.match(text, self.pos + 6):
                return out
            if self.at("->"):
                self.error("'-> (...)' outside a block; the graph ends with 'return (...)'")
            self.error(f"expected a node or 'return (...)', found {self.found()}")

    def node(self) -> _Node:
        pos = self.pos
        outs: list[_Def] = []
        if self.text[self.pos] == "%":
            while True:
                name, vpos = self.value_name()
                self.expect(":", "':' and a type")
                outs.append(_Def(name, self.type_(), vpos))
                if not self.accept(","):
                    break
        self.expect("=", "'=' after the node's outputs")
        self.layout()
        kind_pos = self.pos
        m = _KIND.match(self.text, self.pos)
        if not m:
            self.error(f"expected a node kind like aten::add, found {self.found()}")
        kind = m.group(1)
        self.pos = m.end()
        attrs = self.attrs() if self.at("[") else []
        self.hspace()
        if not self.at("("):
            self.error(f"expected '(' and the inputs of {kind}, found {self.found()}")
        self.pos += 1
        args = self.uses(")")
        scope = self.scope()
        loc = self.trailing_comment()
        node = _Node(outs, kind, attrs, args, loc, scope, [], pos, kind_pos)
        if _GROUP.match(kind):
            self.graphs[-1].pending.setdefault(kind, []).append(node)
        while True:
            save = self.pos
            self.layout()
            bm = _BLOCK.match(self.text, self.pos)
            if not bm:
                self.pos = save
                break
            bpos = self.pos
            index = int(bm.group(1))
            if index != len(node.blocks):
                self.pos = save  # a block of an enclosing node (one whose block lacks its `->`)
                break
            self.pos = bm.end()
            params = self.defs(")")
            self.expect(":", f"':' after block{index}(...)")
            name = f"block{index} of {kind}"
            body = self.nodes(name)
            end_pos = self.pos
            self.pos += 2
            self.expect("(", "'(' after '->'")
            node.blocks.append(_Block(index, params, body, self.uses(")"), bpos, end_pos))
        return node

    def scope(self) -> str | None:
        """`, scope: __module.bn`, which torch prints after the inputs of traced nodes."""
        m = _SCOPE.match(self.text, self.pos)
        if m is None:
            return None
        self.pos = m.end()
        return m.group(1)

    def trailing_comment(self) -> tuple[str, int, int] | None:
        """A `# file:line:col` comment ending the node's line, as torch prints source locations."""
        self.hspace()
        if not self.at("#"):
            return None
        end = self.text.find("\n", self.pos)
        end = len(self.text) if end < 0 else end
        m = _LOC.match(self.text[self.pos : end])
        self.pos = end
        if m is None:
            return None
        return m.group(1).strip(), int(m.group(2)), int(m.group(3))

    # -- attributes -------------------------------------------------------------

    def attrs(self) -> list[_Attr]:
        self.pos += 1  # [
        out: list[_Attr] = []
        if self.accept("]"):
            return out
        while True:
            self.layout()
            pos = self.pos
            m = _NAME.match(self.text, self.pos)
            if not m:
                self.error(f"expected an attribute name, found {self.found()}")
            name = m.group(0)
            self.pos = m.end()
            self.expect("=", f"'=' after attribute '{name}'")
            start = self.pos
            value = self.attr_value(name in _TYPE_ATTRS, name == "value")
            out.append(_Attr(name, value, self.text[start : self.pos].strip(), pos))
            if self.accept("]"):
                return out
            self.expect(",", "',' or ']' in the attribute list")

    def attr_value(self, types: bool, constant: bool) -> object:
        """One attribute value (`types`: read identifiers as types; `constant`: a Constant's value)."""
        text = self.text
        m = _TENSOR_PRINT.match(text, self.pos)
        if m is not None:
            self.pos = m.end()
            return self.tensor_print(m)
        self.hspace()
        pos = self.pos
        if pos >= len(text):
            self.error("unterminated attribute list")
        c = text[pos]
        if c == '"':
            return self.string()
        if c == "{":
            end = text.find("}", pos)
            if end < 0:
                self.error("unterminated tensor value '{...'")
            self.pos = end + 1
            return self.scalar_tensor(text[pos + 1 : end].strip(), pos)
        for lit in ("<Tensor>", "[<Tensors>]", "<Graph>", "[<Graphs>]"):
            if text.startswith(lit, pos):
                self.pos += len(lit)
                return _TensorText(None, None, None) if lit == "<Tensor>" else _Raw(lit)
        if c == "[":
            self.pos += 1
            items: list[object] = []
            if self.accept("]"):
                return items
            while True:
                items.append(self.attr_value(types, constant))
                if self.accept("]"):
                    return items
                self.expect(",", "',' or ']' in a list")
        if c == "(" and not types:
            self.pos += 1
            elems: list[object] = []
            if self.accept(")"):
                return tuple(elems)
            while True:
                elems.append(self.attr_value(types, constant))
                if self.accept(")"):
                    return tuple(elems)
                self.expect(",", "',' or ')' in a tuple")
                if self.accept(")"):  # `(1,)`
                    return tuple(elems)
        if not types:
            cm = _COMPLEX.match(text, pos)
            if cm is not None:
                self.pos = cm.end()
                return complex(_to_float(cm.group(1)), _to_float(cm.group(2)))
            nm = _NUMBER.match(text, pos)
            if nm is not None:
                self.pos = nm.end()
                tok = nm.group(0)
                if re.fullmatch(r"[-+]?\d+", tok):
                    return int(tok)
                return _to_float(tok)
        dm = _DOTTED.match(text, pos)
        if dm is None and c != "(":
            self.error(f"expected an attribute value, found {self.found()}")
        word = dm.group(0) if dm else ""
        if not types and dm is not None:
            if word in ("True", "False"):
                self.pos = dm.end()
                return word == "True"
            if word == "None":
                self.pos = dm.end()
                return None
            if word in ("annotate", "object") and text.startswith("(", dm.end()):
                return self.call_value(word)
            if constant or not _looks_like_type(word):
                self.pos = dm.end()
                return _Raw(word)
        return self.type_at(pos)

    def call_value(self, word: str) -> object:
        """`annotate(List[int], [])` (the value; the type comes from the node) or `object(0x...)` (kept raw)."""
        start = self.pos
        self.pos += len(word) + 1
        if word == "object":
            end = self.text.find(")", self.pos)
            if end < 0:
                self.error("unterminated object(...)")
            self.pos = end + 1
            return _Raw(self.text[start : self.pos])
        depth = 0
        text = self.text
        while self.pos < len(text):  # skip the annotation, up to its comma
            ch = text[self.pos]
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "," and depth == 0:
                break
            self.pos += 1
        self.expect(",", "',' in annotate(type, value)")
        value = self.attr_value(False, True)
        self.expect(")", "')' closing annotate(...)")
        return value

    def string(self) -> str:
        text = self.text
        i = self.pos + 1
        out = bytearray()
        n = len(text)
        while True:
            if i >= n or text[i] == "\n":
                self.error("unterminated string")
            ch = text[i]
            if ch == '"':
                break
            if ch == "\\" and i + 1 < n:
                nxt = text[i + 1]
                if nxt in "01234567":
                    j = i + 1
                    while j < min(i + 4, n) and text[j] in "01234567":
                        j += 1
                    out.append(int(text[i + 1 : j], 8) & 0xFF)
                    i = j
                    continue
                out.extend(_ESCAPES.get(nxt, nxt).encode())
                i += 2
                continue
            out.extend(ch.encode())
            i += 1
        self.pos = i + 1
        return out.decode("utf-8", errors="replace")

    def scalar_tensor(self, inner: str, pos: int) -> _TensorText:
        """`{2}` / `{1.5}`: a one-element tensor (torch prints these like scalars)."""
        if not _NUMBER.fullmatch(inner):
            self.error(f"malformed one-element tensor '{{{inner}}}'", pos)
        if re.fullmatch(r"[-+]?\d+", inner):
            return _TensorText(None, None, [int(inner)])
        return _TensorText(None, None, [_to_float(inner)])

    def tensor_print(self, m: re.Match[str]) -> _TensorText:
        """torch's print of a small tensor, `body [ CPUFloatType{2,3} ]`."""
        body, type_name, dims_text = m.group(1), m.group(2), m.group(3)
        scalar = type_name
        for b in _BACKENDS:
            if type_name.startswith(b):
                scalar = type_name[len(b) :]
                break
        if scalar not in SCALAR_TYPES:
            self.error(f"unknown tensor type '{type_name}Type' in a tensor constant", m.start(2))
        dims = [int(d) for d in dims_text.split(",") if d]
        try:
            values = _tensor_print_values(body, dims)
        except ValueError as e:
            self.error(f"malformed tensor constant: {e}", m.start())
        return _TensorText(scalar, dims, _keep_layout(values, dims, scalar, m.group(0), body))


def _to_float(tok: str) -> float:
    return float(tok)  # python reads inf, -inf, nan and the exponent forms alike


def _looks_like_type(word: str) -> bool:
    return word in SCALAR_TYPES or word in ("Tensor", "int", "float", "bool", "str", "NoneType", "Device") or (
        word.startswith("__torch__.")
    )


def _dynamic_to_tensor(t: Attribute) -> Attribute:
    """The JIT Technical Overview's `Dynamic` is an old spelling of an unrefined `Tensor`."""
    if isinstance(t, TSOpaqueType) and t.qualname.data == "Dynamic":
        return TSTensorType()
    if isinstance(t, TSListType | TSOptionalType | TSTupleType) and any(
        isinstance(e, TSOpaqueType | TSListType | TSOptionalType | TSTupleType) for e in t.element_types
    ):
        return type(t)(*(_dynamic_to_tensor(e) for e in t.element_types))
    return t


_NUDGEABLE = {"Half": "<f2", "Float": "<f4", "Double": "<f8", "BFloat16": "<f4"}


def _keep_layout(
    values: list[float | int], dims: list[int], scalar: str, printed: str, body: str
) -> list[float | int]:
    """
    The values read from a print, nudged (by one ulp) where that keeps the print.

    torch prints four decimals, so `100000 *  3.2122` reads back as the integer
    321220, which torch would print as an integer. Where a block printed with
    decimals reads back all integers, moving one element off the integer (far
    below the print's own precision) makes it print as torch printed it.
    """
    if scalar not in _NUDGEABLE or not values:
        return values
    if scalar == "BFloat16":  # float32 holding bfloat16 values; one bfloat16 ulp is 1 << 16 in the bits
        bits = np.frombuffer(tensor_bytes(values, scalar), dtype="<u2").astype(np.uint32) << 16
        arr = bits.view(np.float32).copy()
    else:
        arr = np.asarray(values, dtype=_NUDGEABLE[scalar])  # the values as stored
    if format_tensor_print([float(x) for x in arr.astype(np.float64)], dims, scalar) == printed:
        return values
    if len(dims) > 2:  # at::print formats each matrix alone
        size = dims[-2] * dims[-1]
        heads = list(_MATRIX_HEAD.finditer(body))
        texts = [body[h.end() : heads[i + 1].start() if i + 1 < len(heads) else len(body)] for i, h in enumerate(heads)]
        order = [_matrix_offset(h.group(0), dims) for h in heads]
    else:
        size, texts, order = len(values), [body], [0]
    def away_from_zero(i: int) -> None:
        if scalar == "BFloat16":
            arr[i : i + 1] = (arr[i : i + 1].view(np.uint32) + np.uint32(1 << 16)).view(np.float32)
        else:
            arr[i] = np.nextafter(arr[i], np.copysign(np.inf, arr[i]), dtype=arr.dtype)

    # an element printed as a power of ten but stored just below it changes at::print's exponents
    for i, x in enumerate(arr.astype(np.float64)):
        if math.isfinite(x) and x != 0:
            p = 10.0 ** round(math.log10(abs(x)))
            for _ in range(4):
                if not (abs(float(arr[i])) < p and math.isclose(abs(float(arr[i])), p, rel_tol=1e-6)):
                    break
                away_from_zero(i)
    for start, text in zip(order, texts):
        block = arr[start : start + size]
        finite = np.isfinite(block)
        if not finite.any() or (block[finite] != np.ceil(block[finite])).any():
            continue
        if "." not in text or ("e" in text and np.abs(block[finite]).max() >= 1e9):
            continue  # printed as integers (the scientific form too, past 1e9): nothing to keep
        k = int(np.argmax(np.where(finite, np.abs(block), -1)))
        if block[k] != 0:
            away_from_zero(start + k)
    nudged: list[float | int] = [float(x) for x in arr.astype(np.float64)]
    return nudged if format_tensor_print(nudged, dims, scalar) == printed else values


def _matrix_offset(head: str, dims: list[int]) -> int:
    """The offset of the first element of the matrix headed `(i,j,.,.) =`."""
    base = 0
    for d, i in zip(dims[:-2], head[1:].split(",")[:-2]):
        base = base * d + int(i) - 1
    return base * dims[-2] * dims[-1]


def _tensor_print_values(body: str, dims: list[int]) -> list[float | int]:
    """The elements of torch's small-tensor print, in row-major order."""
    numel = math.prod(dims)
    if numel == 0:
        if body.strip():
            raise ValueError("an empty tensor prints no elements")
        return []
    if len(dims) <= 2:
        rows, cols = (1, dims[0]) if len(dims) == 1 else (dims[0], dims[1])
        if len(dims) == 1:
            body = _COLUMNS.sub(" ", body)  # never printed for vectors; harmless
            scale, rest = _split_scale(body)
            vals = _numbers(rest)
            if len(vals) != numel:
                raise ValueError(f"{len(vals)} elements for sizes {dims}")
            return [v * scale for v in vals]
        return _matrix_values(body, rows, cols)
    # (i,j,.,.) = <matrix> ..., the first index varying fastest
    heads = list(_MATRIX_HEAD.finditer(body))
    lead = dims[:-2]
    count = math.prod(lead)
    if len(heads) != count:
        raise ValueError(f"{len(heads)} matrices for sizes {dims}")
    rows, cols = dims[-2], dims[-1]
    out: list[float | int] = [0] * numel
    for k, h in enumerate(heads):
        end = heads[k + 1].start() if k + 1 < len(heads) else len(body)
        index = [int(x) - 1 for x in h.group(0)[1:].split(",")[:-2]]
        base = 0
        for d, i in zip(lead, index):
            if not 0 <= i < d:
                raise ValueError(f"matrix index {index} out of sizes {dims}")
            base = base * d + i
        for j, v in enumerate(_matrix_values(body[h.end() : end], rows, cols)):
            out[base * rows * cols + j] = v
    return out


def _matrix_values(body: str, rows: int, cols: int) -> list[float | int]:
    """One printed matrix, maybe split into `Columns a to b` blocks, each maybe scaled."""
    parts = list(_COLUMNS.finditer(body))
    spans: list[tuple[int, int, str]] = []
    if not parts:
        spans.append((0, cols - 1, body))
    else:
        if body[: parts[0].start()].strip():
            raise ValueError("text before 'Columns'")
        for k, p in enumerate(parts):
            end = parts[k + 1].start() if k + 1 < len(parts) else len(body)
            spans.append((int(p.group(1)) - 1, int(p.group(2)) - 1, body[p.end() : end]))
    out: list[float | int] = [0] * (rows * cols)
    for first, last, text in spans:
        if not 0 <= first <= last < cols:
            raise ValueError(f"columns {first + 1} to {last + 1} of a matrix of {cols} columns")
        scale, rest = _split_scale(text)
        vals = _numbers(rest)
        width = last - first + 1
        if len(vals) != rows * width:
            raise ValueError(f"{len(vals)} elements in columns {first + 1} to {last + 1} of {rows} rows")
        for r in range(rows):
            for c in range(width):
                out[r * cols + first + c] = vals[r * width + c] * scale
    return out


def _split_scale(text: str) -> tuple[float, str]:
    m = _SCALE.match(text)
    if m is None:
        return 1, text
    return float(m.group(1)), text[m.end() :]


def _numbers(text: str) -> list[float | int]:
    out: list[float | int] = []
    for tok in text.split():
        if not _NUMBER.fullmatch(tok):
            raise ValueError(f"unexpected '{tok}'")
        out.append(int(tok) if re.fullmatch(r"[-+]?\d+", tok) else float(tok))
    return out


# ---------------------------------------------------------------------------
# Phase 2: building the IR
# ---------------------------------------------------------------------------


_PROPS: dict[type[Operation], frozenset[str]] = {}


def _props_of(cls: type[prim.PrimOp]) -> frozenset[str]:
    props = _PROPS.get(cls)
    if props is None:
        props = _PROPS[cls] = frozenset(cls.get_irdl_definition().properties)
    return props


class _Builder:
    def __init__(self, reader: _Reader, filename: str) -> None:
        self.reader = reader
        self.filename = StringAttr(filename)
        self.positions: dict[int, int] = {}  # id(op) -> offset of its node
        self.scope: dict[str, SSAValue] = {}
        self.file_attrs: dict[str, StringAttr] = {}

    def error(self, message: str, pos: int) -> NoReturn:
        self.reader.error(message, pos)

    # -- scopes ---------------------------------------------------------------

    def define(self, d: _Def, value: SSAValue, undo: list[str]) -> None:
        if d.name in self.scope:
            self.error(f"value %{d.name} is defined twice", d.pos)
        self.scope[d.name] = value
        undo.append(d.name)
        if not d.name[0].isdigit():
            try:
                value.name_hint = d.name
            except ValueError:
                pass

    def lookup(self, u: _Use) -> SSAValue:
        v = self.scope.get(u.name)
        if v is None:
            self.error(f"use of undefined value %{u.name}", u.pos)
        return v

    # -- graphs, blocks, nodes ------------------------------------------------

    def graph(self, g: _Graph) -> Region:
        """A graph as an isolated region: its own names."""
        outer = self.scope
        self.scope = {}
        try:
            return Region(self.block(g.params, g.nodes, g.outputs, g.return_pos))
        finally:
            self.scope = outer

    def block(self, params: list[_Def], nodes: list[_Node], outputs: list[_Use], end_pos: int) -> Block:
        block = Block(arg_types=[p.type for p in params])
        undo: list[str] = []
        for p, arg in zip(params, block.args):
            self.define(p, arg, undo)
        for n in nodes:
            try:
                block.add_op(self.node(n, undo))
            except RecursionError:
                self.error(f"blocks nested too deeply to import ({_RECURSION})", n.pos)
        ret = prim.ReturnOp.make([self.lookup(u) for u in outputs])
        self.positions[id(ret)] = end_pos
        block.add_op(ret)
        for name in undo:
            del self.scope[name]
        return block

    def node(self, n: _Node, undo: list[str]) -> Operation:
        operands = [self.lookup(u) for u in n.args]
        result_types = [d.type for d in n.outs]
        self.check_arity(n)
        regions = [Region(self.block(b.params, b.nodes, b.outputs, b.end_pos)) for b in n.blocks]
        if n.subgraph is not None:
            regions.append(self.graph(n.subgraph))
        try:
            op = self.make_op(n, operands, result_types, regions)
        except TorchScriptParseError:
            raise
        except VerifyException as e:
            self.error(str(e), n.pos)
        except (OverflowError, ValueError) as e:  # numbers numpy or xDSL cannot hold
            self.error(f"cannot represent this node: {e}", n.pos)
        if n.loc is not None:
            file, line, col = n.loc
            f = self.file_attrs.get(file)
            if f is None:
                f = self.file_attrs[file] = StringAttr(file)
            op.location = FileLineColLoc(f, IntAttr(line), IntAttr(col))
        if n.scope is not None:
            op.location = NameLoc(StringAttr(n.scope), op.location)
        self.positions[id(op)] = n.pos
        for d, r in zip(n.outs, op.results):
            self.define(d, r, undo)
        return op

    def check_arity(self, n: _Node) -> None:
        """The counts torch's own printer guarantees, reported where they break."""
        outs = len(n.outs)
        if n.kind == "prim::If":
            if len(n.blocks) != 2:
                self.error(f"prim::If needs two blocks, got {len(n.blocks)}", n.kind_pos)
            for b in n.blocks:
                if b.params:
                    self.error(f"block{b.index} of prim::If takes no arguments", b.params[0].pos)
                if len(b.outputs) != outs:
                    self.error(
                        f"block{b.index} of prim::If yields {len(b.outputs)} values but the node has {outs} outputs",
                        b.end_pos,
                    )
        elif n.kind == "prim::Loop":
            if len(n.blocks) == 2:  # the script frontend's form, before convert-to-ssa
                self.loop_counts(n, outs + 1, outs + 1, outs)
                cond = n.blocks[1]
                if cond.params or len(cond.outputs) != 1:
                    self.error("block1 of prim::Loop (its condition) takes no arguments and yields one bool", cond.pos)
            elif len(n.blocks) == 1:
                self.loop_counts(n, outs + 2, outs + 1, outs + 1)
            else:
                self.error(f"prim::Loop needs one block, got {len(n.blocks)}", n.kind_pos)
        if n.subgraph is not None:
            g = n.subgraph
            if len(g.params) != len(n.args):
                self.error(
                    f"the subgraph of {n.kind} takes {len(g.params)} inputs but the node passes {len(n.args)}", g.pos
                )
            fewer_ok = n.kind == "prim::DifferentiableGraph"  # it also returns what the backward pass saves
            if n.kind != "prim::BailOut" and (len(g.outputs) < outs if fewer_ok else len(g.outputs) != outs):
                self.error(
                    f"the subgraph of {n.kind} returns {len(g.outputs)} values but the node has {outs} outputs",
                    g.return_pos,
                )

    def loop_counts(self, n: _Node, inputs: int, params: int, yields: int) -> None:
        outs = len(n.outs)
        if len(n.args) != inputs:
            self.error(
                f"prim::Loop with {outs} outputs takes a trip count, "
                + ("" if inputs == outs + 1 else "a condition and ")
                + f"{outs} carried values, got {len(n.args)} inputs",
                n.kind_pos,
            )
        b = n.blocks[0]
        if len(b.params) != params:
            self.error(
                f"block0 of prim::Loop takes the iteration and {outs} carried values, got {len(b.params)} arguments",
                b.pos,
            )
        if len(b.outputs) != yields:
            what = "the condition and " if yields == outs + 1 else ""
            self.error(
                f"block0 of prim::Loop yields {len(b.outputs)} values but must yield {what}{outs} carried values",
                b.end_pos,
            )

    def make_op(
        self, n: _Node, operands: list[SSAValue], result_types: list[Attribute], regions: list[Region]
    ) -> Operation:
        kind = n.kind
        if kind == "prim::Constant":
            op = self.constant(n, result_types)
            if op is not None:
                return op
        else:
            cls = prim.OP_OF_KIND.get(kind)
            if cls is not None and cls is not prim.ReturnOp:
                if cls in prim.SUBGRAPH_OPS:
                    fits = n.subgraph is not None and not n.blocks
                elif cls is prim.BailOutOp:
                    fits = not n.blocks
                else:
                    fits = n.subgraph is None
                prim_props = self.properties(cls, n) if fits else None
                if prim_props is not None:
                    return cls.make(operands, result_types, prim_props, regions)
        attrs = {a.name: self.generic_attr(a) for a in n.attrs}
        if n.subgraph is not None:
            attrs[SUBGRAPH_ATTR] = UnitAttr()
        props: dict[str, Attribute] = {"kind": StringAttr(kind)}
        if attrs:
            props["attrs"] = DictionaryAttr(attrs)
        return NodeOp.create(operands=operands, result_types=result_types, properties=props, regions=regions)

    def properties(self, cls: type[prim.PrimOp], n: _Node) -> dict[str, Attribute | None] | None:
        """The node's attributes as `cls`'s properties (extras in `attrs`), or None if `cls` cannot hold them."""
        if not n.attrs:
            return {}
        names = _props_of(cls)
        props: dict[str, Attribute | None] = {}
        extra: dict[str, Attribute] = {}
        for a in n.attrs:
            value = self.generic_attr(a)
            if a.name in names and a.name != "attrs":
                props[a.name] = value
            elif "attrs" in names:
                extra[a.name] = value
            else:
                return None
        if extra:
            props["attrs"] = DictionaryAttr(extra)
        return props

    def constant(self, n: _Node, result_types: list[Attribute]) -> Operation | None:
        """`prim::Constant` as `prim.Constant`, or None when its value has no faithful attribute."""
        if len(result_types) != 1:
            self.error(f"prim::Constant has one output, got {len(result_types)}", n.kind_pos)
        t = result_types[0]
        props: dict[str, Attribute | None] = {}
        extra: dict[str, Attribute] = {}
        for a in n.attrs:
            if a.name == "value":
                value = _constant_value(a.value, t)
                if value is None:
                    if isinstance(a.value, _Raw) or not _encodable(t):
                        return None  # kept verbatim as a ts.node
                    self.error(f"prim::Constant value {a.raw} does not fit its type {ts_type_str(t)}", a.pos)
                props["value"] = value
            elif a.name == "name" and isinstance(a.value, str):
                props["name"] = StringAttr(a.value)
                if isinstance(t, TSFunctionType) and not t.qualname.data:
                    result_types[0] = t = TSFunctionType(a.value)
            else:
                extra[a.name] = self.generic_attr(a)
        if extra:
            props["attrs"] = DictionaryAttr(extra)
        return prim.ConstantOp.make([], result_types, props)

    def generic_attr(self, a: _Attr) -> Attribute:
        value = _generic_value(a.value)
        return value if value is not None else OpaqueAttr.from_strings(OPAQUE_DIALECT, a.raw)


def _generic_value(v: object) -> Attribute | None:
    """An attribute value as a builtin attribute, where one says it faithfully."""
    if isinstance(v, bool):
        return IntegerAttr(int(v), i1)
    if isinstance(v, int):
        return IntegerAttr(v, i64) if INT64_MIN <= v <= INT64_MAX else None
    if isinstance(v, float):
        return FloatAttr(v, f64)
    if isinstance(v, str):
        return StringAttr(v)
    if isinstance(v, Attribute):
        return v
    if isinstance(v, _TensorText):
        return _tensor_value(v, None)
    if isinstance(v, list):
        return _array_or_none([_generic_value(x) for x in v])
    return None  # tuples, None, complex, raw text


def _array_or_none(items: Sequence[Attribute | None]) -> ArrayAttr[Attribute] | None:
    """The items as an array attribute, or None if one of them has no encoding."""
    known = [x for x in items if x is not None]
    return ArrayAttr(known) if len(known) == len(items) else None


def _encodable(t: Attribute) -> bool:
    """Whether prim.Constant can hold a value of type `t` (else a constant of it stays verbatim)."""
    if isinstance(t, TSListType):
        return _encodable(t.element)
    if isinstance(t, TSTupleType):
        return all(_encodable(e) for e in t.element_types)
    return isinstance(t, TSTensorType | TSBoolType | TSIntType | TSFloatType | TSNumberType | TSStrType | TSDeviceType | TSComplexType)


def _constant_value(v: object, t: Attribute) -> Attribute | None:
    """A constant's value per the ConstantOp encoding for result type `t`, or None if there is none."""
    if isinstance(v, _TensorText):
        return _tensor_value(v, t) if isinstance(t, TSTensorType) else None
    if isinstance(t, TSBoolType):
        if isinstance(v, bool) or (isinstance(v, int) and v in (0, 1)):
            return IntegerAttr(int(v), i1)
        return None
    if isinstance(t, TSIntType):
        return IntegerAttr(v, i64) if isinstance(v, int) and not isinstance(v, bool) and INT64_MIN <= v <= INT64_MAX else None
    if isinstance(t, TSFloatType):
        return FloatAttr(float(v), f64) if isinstance(v, int | float) and not isinstance(v, bool) else None
    if isinstance(t, TSNumberType):
        if isinstance(v, bool):
            return None
        if isinstance(v, int):
            return IntegerAttr(v, i64) if INT64_MIN <= v <= INT64_MAX else None
        return FloatAttr(v, f64) if isinstance(v, float) else None
    if isinstance(t, TSStrType | TSDeviceType):
        return StringAttr(v) if isinstance(v, str) else None
    if isinstance(t, TSComplexType):
        if isinstance(v, complex):
            return ArrayAttr([FloatAttr(v.real, f64), FloatAttr(v.imag, f64)])
        return None
    if isinstance(t, TSListType) and isinstance(v, list):
        return _array_or_none([_constant_value(x, t.element) for x in v])
    if isinstance(t, TSTupleType) and isinstance(v, tuple) and len(v) == len(t.element_types):
        return _array_or_none([_constant_value(x, e) for x, e in zip(v, t.element_types)])
    return None


_STORABLE = frozenset(
    {"Byte", "Char", "Short", "Int", "Long", "UInt16", "UInt32", "UInt64", "Half", "Float", "Double", "Bool", "BFloat16"}
)
"""Scalar types whose printed values the reader stores."""


def _tensor_value(v: _TensorText, t: Attribute | None) -> TensorValueAttr:
    tt = t if isinstance(t, TSTensorType) else None
    scalar = v.scalar or (tt.scalar_type if tt else None)
    values = v.values
    if scalar is None:
        scalar = "Long" if values and all(isinstance(x, int) for x in values) else "Float"
    dims = v.dims
    if dims is None:
        shape = tt.shape if tt else None
        known = [d for d in shape if d is not None] if shape is not None else []
        if shape is not None and len(known) == len(shape) and (values is None or math.prod(known) == len(values)):
            dims = known
        else:
            dims = []
    if values is None or scalar not in _STORABLE:
        return TensorValueAttr(scalar, dims, None)
    return TensorValueAttr(scalar, dims, tensor_bytes(values, scalar))


def tensor_bytes(values: Sequence[float | int], scalar: str) -> bytes:
    """Little-endian contiguous bytes of `values` as a tensor of TorchScript scalar type `scalar`."""
    dtype = SCALAR_TYPES[scalar]
    if dtype is DType.bool:
        array = np.asarray([bool(x) for x in values], dtype=np.bool_)
    elif dtype.is_integral:  # clamped: a print like -9.2234e+18 rounds past the range
        info = np.iinfo(storage_dtype(dtype))
        ints = [min(max(int(x), int(info.min)), int(info.max)) if math.isfinite(x) else 0 for x in values]
        array = np.asarray(ints, dtype=object).astype(storage_dtype(dtype))
    else:
        array = np.asarray(values, dtype=np.float32 if dtype is DType.bfloat16 else np.float64)
    return bytes_from_array(array, dtype)


# ---------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------


_HEADER_COMMENT = re.compile(r"[ \t]*#[ \t]*([A-Za-z_][\w.]*)[ \t]*$")


def _read_graphs(reader: _Reader) -> list[tuple[str | None, _Graph]]:
    """The top-level graphs, each with the qualified name of the comment line before it (if any)."""
    text = reader.text
    out: list[tuple[str | None, _Graph]] = []
    while True:
        name: str | None = None
        while True:  # blank and comment lines; remember the last name-like comment
            reader.pos = _SPACE.match(text, reader.pos).end()  # pyright: ignore[reportOptionalMemberAccess] - the pattern matches the empty string: never None
            if reader.pos >= len(text):
                return out
            if text[reader.pos] in "\r\n":
                reader.pos += 1
                continue
            if text[reader.pos] == "#":
                end = text.find("\n", reader.pos)
                end = len(text) if end < 0 else end
                m = _HEADER_COMMENT.match(text, reader.pos, end)
                name = m.group(1) if m and m.end() == end else name
                reader.pos = end
                continue
            break
        if reader.at("with"):
            wm = _WITH.match(text, reader.pos)
            kind = wm.group(1) if wm else "..."
            reader.error(f"'with {kind} = graph(...)' names no node of the graph before it")
        if not reader.at("graph"):
            reader.error(f"expected 'graph(', found {reader.found()}")
        out.append((name, reader.graph()))


def _method_names(named: list[tuple[str | None, _Graph]]) -> list[str]:
    if len(named) == 1:
        return ["forward"]
    short = [q.rsplit(".", 1)[-1] if q else None for q, _ in named]
    names: list[str] = []
    for i, (q, _) in enumerate(named):
        s = short[i]
        if s is None:
            names.append("forward" if i == 0 else f"graph{i}")
        elif short.count(s) > 1:
            names.append(q or s)
        else:
            names.append(s)
    return names


def parse_torchscript(text: str, filename: str = "<torchscript>") -> ModuleOp:
    """
    A TorchScript graph dump as a module of `ts.method`s (`@forward` for a
    single graph). Raises `TorchScriptParseError` with the 1-based line and
    column of the problem.
    """
    reader = _Reader(text.replace("\r\n", "\n"))
    try:
        named = _read_graphs(reader)
    except TorchScriptParseError:
        raise
    except RecursionError:
        reader.error(f"blocks nested too deeply to read ({_RECURSION})")
    except (OverflowError, ValueError) as e:  # a number beyond int64, an index, the int-string limit
        reader.error(f"number out of range ({e})")
    if not named:
        reader.error("expected 'graph(', found end of input", 0)
    builder = _Builder(reader, filename)
    methods: list[Operation] = []
    seen: set[str] = set()
    for name, (_, g) in zip(_method_names(named), named):
        if name in seen:
            reader.error(f"two graphs are both named '{name}'", g.pos)
        seen.add(name)
        method = MethodOp(name, builder.graph(g))
        builder.positions[id(method)] = g.pos
        methods.append(method)
    module = ModuleOp(methods)
    try:
        module.verify()
    except VerifyException as e:
        _locate_verify_error(module, builder, e)
    return module


def _locate_verify_error(module: ModuleOp, builder: _Builder, error: VerifyException) -> NoReturn:
    """Name the node whose op the verifier rejected."""
    for op in module.walk():
        try:
            op.verify(verify_nested_ops=False)
        except VerifyException as e:
            pos = builder.positions.get(id(op))
            parent = op
            while pos is None and (outer := parent.parent_op()) is not None:
                parent = outer
                pos = builder.positions.get(id(parent))
            builder.error(str(e), pos or 0)
    builder.error(str(error), 0)
