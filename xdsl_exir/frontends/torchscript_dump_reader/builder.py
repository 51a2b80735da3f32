"""
The tree of a dump as IR: each node becomes its prim op or a `ts.node`, with properties or an
`attrs` dictionary, blocks become regions, subgraphs isolated regions, and attribute values the
attributes that print back as the dump wrote them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NoReturn

from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FileLineColLoc,
    FloatAttr,
    IntAttr,
    IntegerAttr,
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
    TSStrType,
    TSTensorType,
    TSTupleType,
    ts_type_str,
)
from xdsl_exir.frontends.torchscript_dump_reader.reader import Reader
from xdsl_exir.frontends.torchscript_dump_reader.syntax import (
    RECURSION,
    Attr,
    Def,
    DumpGraph,
    DumpNode,
    Raw,
    TensorText,
    TorchScriptParseError,
    Use,
)
from xdsl_exir.frontends.torchscript_dump_reader.tensor_text import SCALAR_TYPES, tensor_bytes

OPAQUE_DIALECT = "torchscript"
"""The dialect name of `opaque<...>` attributes holding attribute text verbatim."""

SUBGRAPH_ATTR = "Subgraph"
"""The `attrs` key marking a `ts.node`'s last region as its subgraph (torch's `attr::Subgraph`)."""

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


_PROPS: dict[type[Operation], frozenset[str]] = {}


def _props_of(cls: type[prim.PrimOp]) -> frozenset[str]:
    props = _PROPS.get(cls)
    if props is None:
        props = _PROPS[cls] = frozenset(cls.get_irdl_definition().properties)
    return props


class Builder:
    def __init__(self, reader: Reader, filename: str) -> None:
        self.reader = reader
        self.filename = StringAttr(filename)
        self.positions: dict[int, int] = {}  # id(op) -> offset of its node
        self.scope: dict[str, SSAValue] = {}
        self.file_attrs: dict[str, StringAttr] = {}

    def error(self, message: str, pos: int) -> NoReturn:
        self.reader.error(message, pos)

    # -- scopes ---------------------------------------------------------------

    def define(self, d: Def, value: SSAValue, undo: list[str]) -> None:
        if d.name in self.scope:
            self.error(f"value %{d.name} is defined twice", d.pos)
        self.scope[d.name] = value
        undo.append(d.name)
        if not d.name[0].isdigit():
            try:
                value.name_hint = d.name
            except ValueError:
                pass

    def lookup(self, u: Use) -> SSAValue:
        v = self.scope.get(u.name)
        if v is None:
            self.error(f"use of undefined value %{u.name}", u.pos)
        return v

    # -- graphs, blocks, nodes ------------------------------------------------

    def graph(self, g: DumpGraph) -> Region:
        """A graph as an isolated region: its own names."""
        outer = self.scope
        self.scope = {}
        try:
            return Region(self.block(g.params, g.nodes, g.outputs, g.return_pos))
        finally:
            self.scope = outer

    def block(self, params: list[Def], nodes: list[DumpNode], outputs: list[Use], end_pos: int) -> Block:
        block = Block(arg_types=[p.type for p in params])
        undo: list[str] = []
        for p, arg in zip(params, block.args):
            self.define(p, arg, undo)
        for n in nodes:
            try:
                block.add_op(self.node(n, undo))
            except RecursionError:
                self.error(f"blocks nested too deeply to import ({RECURSION})", n.pos)
        ret = prim.ReturnOp.make([self.lookup(u) for u in outputs])
        self.positions[id(ret)] = end_pos
        block.add_op(ret)
        for name in undo:
            del self.scope[name]
        return block

    def node(self, n: DumpNode, undo: list[str]) -> Operation:
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

    def check_arity(self, n: DumpNode) -> None:
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

    def loop_counts(self, n: DumpNode, inputs: int, params: int, yields: int) -> None:
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
        self, n: DumpNode, operands: list[SSAValue], result_types: list[Attribute], regions: list[Region]
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

    def properties(self, cls: type[prim.PrimOp], n: DumpNode) -> dict[str, Attribute | None] | None:
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

    def constant(self, n: DumpNode, result_types: list[Attribute]) -> Operation | None:
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
                    if isinstance(a.value, Raw) or not _encodable(t):
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

    def generic_attr(self, a: Attr) -> Attribute:
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
    if isinstance(v, TensorText):
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
    if isinstance(v, TensorText):
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
    {"Byte", "Char", "Short", "Int", "Long", "UInt16", "UInt32", "UInt64", "Half", "Float", "Double", "Bool", "BFloat16",
     "ComplexFloat", "ComplexDouble"}
)  # fmt: skip
"""Scalar types whose printed values the reader stores."""


def _tensor_value(v: TensorText, t: Attribute | None) -> TensorValueAttr:
    tt = t if isinstance(t, TSTensorType) else None
    scalar = v.scalar or (tt.scalar_type if tt else None)
    values = v.values
    if scalar is None:
        scalar = "Long" if values and all(isinstance(x, int) for x in values) else "Float"
        scalar = "ComplexFloat" if values and any(isinstance(x, complex) for x in values) else scalar
    dims = v.dims
    if dims is None:
        shape = tt.shape if tt else None
        known = [d for d in shape if d is not None] if shape is not None else []
        if shape is not None and len(known) == len(shape) and (values is None or math.prod(known) == len(values)):
            dims = known
        else:
            dims = []
    # torch prints a complex tensor of several elements by its real parts alone: its data is the
    # (real,imaginary) pairs of a one-element print, or unknown.
    if values is None or scalar not in _STORABLE:
        return TensorValueAttr(scalar, dims, None)
    pairs = [isinstance(x, complex) for x in values]
    if not all(pairs) if SCALAR_TYPES[scalar].is_complex else any(pairs):
        return TensorValueAttr(scalar, dims, None)
    return TensorValueAttr(scalar, dims, tensor_bytes(values, scalar))
