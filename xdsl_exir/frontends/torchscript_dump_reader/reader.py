"""
The text of a dump read into the tree of `syntax`: a hand-written scanner over the canonical
form of `str(graph)` (values, kinds, types, attributes, blocks, `with` subgraph sections, source
comments and scopes).
"""

from __future__ import annotations

import re
from typing import NoReturn

from xdsl.ir import Attribute
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects import prim
from xdsl_exir.dialects.ts import (
    SCALAR_TYPES,
    TSListType,
    TSOpaqueType,
    TSOptionalType,
    TSTensorType,
    TSTupleType,
    TSTypeError,
    parse_ts_type_prefix,
)
from xdsl_exir.frontends.torchscript_dump_reader.syntax import (
    Attr,
    Def,
    DumpBlock,
    DumpGraph,
    DumpNode,
    Raw,
    TensorText,
    TorchScriptParseError,
    Use,
)
from xdsl_exir.frontends.torchscript_dump_reader.tensor_text import NUMBER, keep_layout, tensor_print_values

# Node kinds that are nothing without their subgraph.
_NEEDS_SUBGRAPH = frozenset(c.KIND for c in prim.SUBGRAPH_OPS)


_VALUE = re.compile(r"%([A-Za-z0-9_.]+)")
_KIND = re.compile(r"([A-Za-z_]\w*::[A-Za-z_]\w*)", re.ASCII)
_GROUP = re.compile(r"(.*)_(\d+)$")
_NAME = re.compile(r"[A-Za-z_]\w*", re.ASCII)  # torch's symbols are ASCII (and xDSL prints others escaped)
_BLOCK = re.compile(r"block(\d+)[ \t]*\(")
WITH = re.compile(r"with[ \t]+([A-Za-z_]\w*::[A-Za-z_]\w*)[ \t]*=[ \t]*", re.ASCII)
SPACE = re.compile(r"[ \t]*")
_LAYOUT_START = frozenset(" \t\r\n#}")
_USES = re.compile(r"[ \t]*((?:%[A-Za-z0-9_.]+(?:[ \t]*,[ \t]*%[A-Za-z0-9_.]+)*)?)[ \t]*\)")
_LAYOUT = re.compile(r"(?:[ \t\r\n]+|#[^\n]*)*")
_STRAY_BRACE = re.compile(r"[ \t]*\}[ \t]*(?:\n|$)")
_SCOPE = re.compile(r"[ \t]*,[ \t]*scope:[ \t]*([^#\n]*?)[ \t]*(?=#|\n|$)")
_LOC = re.compile(r"#[ \t]*(.+):(\d+):(\d+)[ \t]*$")
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
_TYPE_ATTRS = frozenset({"types", "profiled_type"})
_ESCAPES = {"\\": "\\", "'": "'", '"': '"', "a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


class Reader:
    """A recursive-descent reader of the dump text into `DumpGraph` trees."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.graphs: list[DumpGraph] = []  # the graphs being read, innermost last

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
        self.pos = SPACE.match(self.text, self.pos).end()  # pyright: ignore[reportOptionalMemberAccess] - the pattern matches the empty string: never None

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

    def uses(self, close: str) -> list[Use]:
        """`%a, %b` up to `close` (consumed)."""
        if close == ")":
            m = _USES.match(self.text, self.pos)
            if m is not None:  # the one-line common case
                self.pos = m.end()
                return [Use(v.group(1), v.start()) for v in _VALUE.finditer(self.text, m.start(1), m.end(1))]
        out: list[Use] = []
        if self.accept(close):
            return out
        while True:
            name, pos = self.value_name()
            out.append(Use(name, pos))
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

    def defs(self, close: str) -> list[Def]:
        """`%a : T, %b : T` up to `close` (consumed)."""
        out: list[Def] = []
        if self.accept(close):
            return out
        while True:
            name, pos = self.value_name()
            self.expect(":", "':' and a type")
            out.append(Def(name, self.type_(), pos))
            if self.accept(close):
                return out
            self.expect(",", f"',' or '{close}'")

    # -- graphs -----------------------------------------------------------------

    def graph(self) -> DumpGraph:
        self.layout()
        pos = self.pos
        if not self.at("graph"):
            self.error(f"expected 'graph(', found {self.found()}")
        self.pos += len("graph")
        self.expect("(")
        params = self.defs(")")
        self.expect(":")
        g = DumpGraph(params, [], [], pos, 0)
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

    def withs(self, g: DumpGraph) -> None:
        """The `with kind_N = graph(...)` sections of `g`'s nodes (nested graphs read their own first)."""
        while True:
            save = self.pos
            self.layout()
            m = WITH.match(self.text, self.pos)
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

    def nodes(self, block: str | None) -> list[DumpNode]:
        """Nodes up to the block's `->` (`block` names it) or the graph's `return`."""
        out: list[DumpNode] = []
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

    def node(self) -> DumpNode:
        pos = self.pos
        outs: list[Def] = []
        if self.text[self.pos] == "%":
            while True:
                name, vpos = self.value_name()
                self.expect(":", "':' and a type")
                outs.append(Def(name, self.type_(), vpos))
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
        node = DumpNode(outs, kind, attrs, args, loc, scope, [], pos, kind_pos)
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
            node.blocks.append(DumpBlock(index, params, body, self.uses(")"), bpos, end_pos))
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

    def attrs(self) -> list[Attr]:
        self.pos += 1  # [
        out: list[Attr] = []
        if self.accept("]"):
            return out
        while True:
            self.layout()
            pos = self.pos
            # (`or`, not `if not m`: pyright's narrowing through the NoReturn call is lost when
            # the builder's use of the reader is checked first.)
            m = _NAME.match(self.text, self.pos) or self.error(f"expected an attribute name, found {self.found()}")
            name = m.group(0)
            self.pos = m.end()
            self.expect("=", f"'=' after attribute '{name}'")
            start = self.pos
            value = self.attr_value(name in _TYPE_ATTRS, name == "value")
            out.append(Attr(name, value, self.text[start : self.pos].strip(), pos))
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
                return TensorText(None, None, None) if lit == "<Tensor>" else Raw(lit)
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
            nm = NUMBER.match(text, pos)
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
                return Raw(word)
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
            return Raw(self.text[start : self.pos])
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

    def scalar_tensor(self, inner: str, pos: int) -> TensorText:
        """`{2}` / `{1.5}` / `{(1.5,-2)}`: a one-element tensor (torch prints these like scalars,
        a complex one as its (real,imaginary) pair)."""
        pair = re.fullmatch(r"\(\s*([^,()]+?)\s*,\s*([^,()]+?)\s*\)", inner)
        if pair and NUMBER.fullmatch(pair.group(1)) and NUMBER.fullmatch(pair.group(2)):
            return TensorText(None, None, [complex(_to_float(pair.group(1)), _to_float(pair.group(2)))])
        if not NUMBER.fullmatch(inner):
            self.error(f"malformed one-element tensor '{{{inner}}}'", pos)
        if re.fullmatch(r"[-+]?\d+", inner):
            return TensorText(None, None, [int(inner)])
        return TensorText(None, None, [_to_float(inner)])

    def tensor_print(self, m: re.Match[str]) -> TensorText:
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
            values = tensor_print_values(body, dims)
        except ValueError as e:
            self.error(f"malformed tensor constant: {e}", m.start())
        return TensorText(scalar, dims, keep_layout(values, dims, scalar, m.group(0), body))


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
