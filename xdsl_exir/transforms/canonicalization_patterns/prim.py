"""
Canonicalization patterns of the TorchScript dialects (`ts.node`, `prim.*`),
the list, tuple and shape idioms of TorchScript's peephole pass ("JIT Technical Overview").

`ts.node` and the prim ops below carry the ts dialect's `TSCanonicalization`
trait, which imports this module on first use (as xDSL's dialects import
their patterns), so the stock `canonicalize` pass applies the rules and
loading the dialects never loads them.

* `prim.If` on a constant condition becomes the taken block;
* `prim.TupleUnpack` / `prim.TupleIndex` (constant index) of a
  `prim.TupleConstruct` forward its elements (tuples are immutable);
* `prim.ListUnpack`, `aten::len` and `aten::__getitem__` (constant index) of a
  `prim.ListConstruct` forward the elements or the length, and `l1 + l2` of
  two literals is one literal, but only while the lists are not mutated:
  lists have reference semantics, so the graph's `AliasDb` must find no op
  that may write the list (`append`, `_set_item`, in-place `add_`, a call or
  an unknown node it is passed to, through loops and block outputs too), the
  question torch's `PeepholeOptimizeListIdioms` asks its AliasDb;
* `aten::size(x)`, `aten::size(x, dim)` and `aten::dim(x)` of a tensor whose
  refined type fixes the answer become constants;
* `aten::t(aten::t(x))` is `x` when the rank (at most 2) is known.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.pattern_rewriter import PatternRewriter, RewritePattern
from xdsl.rewriter import InsertPoint

from xdsl_exir.analysis.alias_db import AliasDb
from xdsl_exir.dialects.prim import ConstantOp, ListConstructOp
from xdsl_exir.dialects.ts import NodeOp, TSListType, TSTensorType


def constant_of(value: SSAValue) -> ConstantOp | None:
    """The `prim.Constant` defining `value` (not a function reference), if any."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and owner.fn_name is None:
        return owner
    return None


def constant_int(value: SSAValue) -> int | None:
    """The value of an int or bool `prim.Constant`."""
    const = constant_of(value)
    if const is not None and isinstance(const.value, IntegerAttr):
        return cast(int, const.value.value.data)
    return None


def _may_be_written(value: SSAValue) -> bool:
    """Whether the alias analysis of the graph holding `value` finds an op that may write it."""
    owner = value.owner
    db = AliasDb.of_graph(owner) if isinstance(owner, Operation) else None
    return db is None or db.has_writers(value)


def _list_construct(value: SSAValue) -> Operation | None:
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "prim.ListConstruct" and not _may_be_written(value):
        return owner
    return None


def _tuple_construct(value: SSAValue) -> Operation | None:
    owner = value.owner
    if isinstance(owner, Operation) and owner.name == "prim.TupleConstruct":
        return owner
    return None


def make_constant(value: int | list[int], result_type: Attribute) -> Operation:
    """A `prim.Constant` of an int or an int list."""
    attr = (
        ArrayAttr([IntegerAttr(v, i64) for v in value]) if isinstance(value, list) else IntegerAttr(value, i64)
    )
    return ConstantOp.make(result_types=[result_type], properties={"value": attr})


# ---------------------------------------------------------------------------
# Rules
# ---------------------------------------------------------------------------

Rule = Callable[[Operation, PatternRewriter], None]


def _if(op: Operation, rewriter: PatternRewriter) -> None:
    cond = constant_int(op.operands[0])
    if cond is None:
        return
    block = op.regions[0 if cond else 1].block
    rewriter.inline_block(block, InsertPoint.before(op))
    ret = op.prev_op
    assert ret is not None and ret.name == "prim.Return"
    values = list(ret.operands)
    rewriter.erase_op(ret)
    rewriter.replace(op, [], values)


def _tuple_unpack(op: Operation, rewriter: PatternRewriter) -> None:
    tup = _tuple_construct(op.operands[0])
    if tup is not None and len(tup.operands) == len(op.results):
        rewriter.replace(op, [], list(tup.operands))


def _tuple_index(op: Operation, rewriter: PatternRewriter) -> None:
    tup = _tuple_construct(op.operands[0])
    index = constant_int(op.operands[1])
    if tup is None or index is None or not -len(tup.operands) <= index < len(tup.operands):
        return
    rewriter.replace(op, [], [tup.operands[index]])


def _list_unpack(op: Operation, rewriter: PatternRewriter) -> None:
    lst = _list_construct(op.operands[0])
    if lst is not None and len(lst.operands) == len(op.results):
        rewriter.replace(op, [], list(lst.operands))


def _len(op: Operation, rewriter: PatternRewriter) -> None:
    if len(op.operands) != 1 or (lst := _list_construct(op.operands[0])) is None:
        return
    rewriter.replace(op, make_constant(len(lst.operands), op.result_types[0]))


def _getitem(op: Operation, rewriter: PatternRewriter) -> None:
    if len(op.operands) != 2 or (lst := _list_construct(op.operands[0])) is None:
        return
    index = constant_int(op.operands[1])
    if index is None or not -len(lst.operands) <= index < len(lst.operands):
        return  # out of range raises at run time: keep it
    rewriter.replace(op, [], [lst.operands[index]])


def _list_add(op: Operation, rewriter: PatternRewriter) -> None:
    """`l1 + l2` of two unmutated list literals is one literal."""
    if len(op.operands) != 2 or not isinstance(op.result_types[0], TSListType):
        return
    a, b = _list_construct(op.operands[0]), _list_construct(op.operands[1])
    if a is None or b is None:
        return
    rewriter.replace(op, ListConstructOp.make([*a.operands, *b.operands], [op.result_types[0]]))


def _static_shape(value: SSAValue) -> tuple[int, ...] | None:
    t = value.type
    if not isinstance(t, TSTensorType):
        return None
    shape = t.shape
    if shape is None or any(s is None for s in shape):
        return None
    return cast(tuple[int, ...], shape)


def _rank_of(value: SSAValue) -> int | None:
    t = value.type
    if not isinstance(t, TSTensorType) or t.shape is None:
        return None
    return t.rank


def _size(op: Operation, rewriter: PatternRewriter) -> None:
    shape = _static_shape(op.operands[0])
    if shape is None:
        return
    if len(op.operands) == 1:
        rewriter.replace(op, make_constant(list(shape), op.result_types[0]))
        return
    dim = constant_int(op.operands[1])
    if len(op.operands) == 2 and dim is not None and -len(shape) <= dim < len(shape):
        rewriter.replace(op, make_constant(shape[dim], op.result_types[0]))


def _dim(op: Operation, rewriter: PatternRewriter) -> None:
    rank = _rank_of(op.operands[0])
    if rank is not None and len(op.operands) == 1:
        rewriter.replace(op, make_constant(rank, op.result_types[0]))


def _t(op: Operation, rewriter: PatternRewriter) -> None:
    inner = op.operands[0].owner
    if not (isinstance(inner, Operation) and inner.name == "ts.node"):
        return
    if cast(NodeOp, inner).kind.data != "aten::t":
        return
    x = inner.operands[0]
    rank = _rank_of(x)
    if rank is not None and rank <= 2:
        rewriter.replace(op, [], [x])


_PRIM_RULES: dict[str, Rule] = {
    "prim.If": _if,
    "prim.TupleUnpack": _tuple_unpack,
    "prim.TupleIndex": _tuple_index,
    "prim.ListUnpack": _list_unpack,
}

LIST_RULES: dict[str, Rule] = {
    "prim.ListUnpack": _list_unpack,
    "aten::len": _len,
    "aten::__getitem__": _getitem,
    "aten::add": _list_add,
}
"""TorchScript's list idioms (`PeepholeOptimizeListIdioms`), by op name or node kind; `list-peepholes` runs these alone."""

_NODE_RULES: dict[str, Rule] = {
    "aten::len": _len,
    "aten::__getitem__": _getitem,
    "aten::add": _list_add,
    "aten::size": _size,
    "aten::dim": _dim,
    "aten::t": _t,
}


class TSPeephole(RewritePattern):
    """Dispatch a prim op by name, a `ts.node` by kind."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /) -> None:
        if op.name == "ts.node":
            rule = _NODE_RULES.get(cast(NodeOp, op).kind.data)
        else:
            rule = _PRIM_RULES.get(op.name)
        if rule is not None:
            rule(op, rewriter)


PATTERNS: tuple[RewritePattern, ...] = (TSPeephole(),)
"""The TorchScript dialects' canonicalization patterns (one dispatcher over the rules above)."""
