"""AliasDb (seed 004's alias analysis) on hand-written Export IR and TorchScript IR."""

from __future__ import annotations

from pass_harness import parse
from xdsl.ir import Operation

from xdsl_exir.analysis.alias_db import AliasDb
from xdsl_exir.dialects.exir import GraphOp
from xdsl_exir.dialects.ts import MethodOp

T = "!exir.tensor<[4, 4], float32>"
R = "!exir.tensor<[4], float32>"

VIEWS = f"""
builtin.module {{
  exir.graph @g(%x: {T}, %y: {T}) -> ({T}) {{
    %c = aten.clone.default(%x) : ({T}) -> {T}
    %row = aten.select.int(%c, 0, 1) : ({T}) -> {R}
    %tr = aten.t.default(%c) : ({T}) -> {T}
    %w = aten.add_.Tensor(%row, 1.0) : ({R}) -> {R}
    %other = aten.mul.Tensor(%y, 2.0) : ({T}) -> {T}
    %s = aten.sum.default(%tr) : ({T}) -> !exir.tensor<[], float32>
    %n = aten.neg.default(%other) : ({T}) -> {T}
    exir.output %n : {T}
  }}
}}
"""


def _ops(text: str) -> tuple[AliasDb, dict[str, Operation]]:
    module = parse(text)
    graph = next(op for op in module.walk() if isinstance(op, GraphOp | MethodOp))
    ops = {op.results[0].name_hint or op.name: op for op in graph.body.block.ops if op.results}
    return AliasDb(graph), ops


def test_views_share_memory_with_their_base() -> None:
    db, ops = _ops(VIEWS)
    c, row, tr, other = (ops[k].results[0] for k in ("c", "row", "tr", "other"))
    assert db.may_alias(row, c) and db.may_alias(tr, c) and db.may_alias(row, tr)
    assert not db.may_alias(c, other)
    # the clone is fresh memory, not an alias of its input
    x = ops["c"].operands[0]
    assert not db.may_alias(c, x)


def test_writes_through_a_view_reach_the_base_and_its_other_views() -> None:
    db, ops = _ops(VIEWS)
    w = ops["w"]
    assert db.writers(ops["tr"].results[0]) == [w]
    assert db.writes_to(w, ops["c"].results[0])
    assert not db.writes_to(w, ops["other"].results[0])
    assert db.is_mutated_after(ops["c"].results[0], ops["row"])
    assert not db.is_mutated_after(ops["c"].results[0], w)
    assert not db.has_writers(ops["other"].results[0])
    # the in-place result aliases what it wrote
    assert db.may_alias(w.results[0], ops["c"].results[0])


def test_escapes() -> None:
    db, ops = _ops(VIEWS)
    assert not db.escapes(ops["c"].results[0])  # local clone
    assert db.escapes(ops["n"].results[0])  # returned
    assert db.escapes(ops["c"].operands[0])  # graph input


def test_move_refused_across_a_conflicting_write() -> None:
    db, ops = _ops(VIEWS)
    # sum reads the transposed view that add_ writes: it cannot move above the write
    assert not db.could_move_before(ops["s"], ops["w"])
    assert not db.move_before(ops["s"], ops["w"])
    # mul touches unrelated memory: it can move above the write and back below
    assert db.could_move_before(ops["other"], ops["w"])
    assert db.move_before(ops["other"], ops["w"])
    assert ops["other"].next_op is ops["w"]
    assert db.move_after(ops["other"], ops["w"])
    assert ops["w"].next_op is ops["other"]
    # data dependences: neg uses mul, so mul cannot move below neg
    assert not db.could_move_after(ops["other"], ops["n"])
    # add_ cannot move above select, which defines the view it writes
    assert not db.could_move_before(ops["w"], ops["row"])
    # and a read of the base cannot move below the write either
    assert not db.could_move_after(ops["tr"], ops["s"])


def test_program_inputs_are_distinct_but_free_graph_inputs_may_alias() -> None:
    db, ops = _ops(VIEWS)  # a free graph: inputs are in the wildcard set
    x, y = ops["c"].operands[0], ops["other"].operands[0]
    assert db.may_alias(x, y)
    graph = ops["c"].parent_op()
    assert isinstance(graph, GraphOp)
    assert not AliasDb(graph, distinct_inputs=True).may_alias(x, y)


TS = """graph(%x : Tensor, %y : Tensor):
  %none : NoneType = prim::Constant()
  %c : Tensor = aten::clone(%x, %none)
  %d : Tensor = aten::clone(%y, %none)
  %l : Tensor[] = prim::ListConstruct(%c, %d)
  %a : Tensor, %b : Tensor = prim::ListUnpack(%l)
  %e : Tensor = aten::clone(%y, %none)
   = prim::Print(%e)
  return (%a)
"""


def test_torchscript_containers_and_wildcards() -> None:
    from xdsl_exir.frontends.torchscript_text import parse_torchscript

    method = next(op for op in parse_torchscript(TS).walk() if isinstance(op, MethodOp))
    db = AliasDb(method)
    ops = {op.results[0].name_hint or op.name: op for op in method.body.block.ops if op.results}
    c, d, lst, e = (ops[k].results[0] for k in ("c", "d", "l", "e"))
    a = ops["a"].results
    # the list contains both clones; unpacking gives values aliasing them
    assert db.may_contain_alias(lst, c) and db.may_contain_alias(lst, d)
    assert not db.may_alias(c, d)
    assert db.may_alias(a[0], c) or db.may_alias(a[0], d)
    # graph inputs are in the wildcard set and may alias each other
    x, y = ops["c"].operands[0], ops["d"].operands[0]
    assert db.may_alias(x, y)
    # a value passed to an op without a schema (prim::Print) enters the wildcard set
    assert db.may_alias(e, x) and db.escapes(e)
    assert db.escapes(d)  # returned through the list (items are not told apart)
    print_op = next(op for op in method.body.block.ops if "Print" in str(op.properties.get("kind")))
    assert db.has_unknown_effects(print_op)
    assert db.writes_to(print_op, e)
