"""AliasDb (the JIT Technical Overview's alias analysis) on hand-written Export IR and TorchScript IR."""

from __future__ import annotations

import pytest
from pass_harness import parse
from xdsl.context import Context
from xdsl.ir import Operation

from xdsl_exir.analysis.alias_db import AliasDb
from xdsl_exir.dialects.exir import GraphOp
from xdsl_exir.dialects.ts import MethodOp, NodeOp
from xdsl_exir.transforms.list_peepholes import ListPeepholesPass

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
    from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

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
    assert db.escapes(d)  # returned through the list (items are not told apart)
    # prim::Print acts on the world, not on memory: it only reads `e` (torch's AliasDb agrees, below),
    # yet it is never removable
    print_op = next(op for op in method.body.block.ops if "Print" in str(op.properties.get("kind")))
    assert not db.may_alias(e, x) and not db.escapes(e)
    assert not db.writes_to(print_op, e) and not db.has_writers(e)
    assert print_op in db.effectful_ops() and not db.is_pure(print_op)


def test_printing_is_not_writing_as_in_torch() -> None:
    """
    torch's AliasDb gives `prim::Print` and `aten::format` no writes: the
    list `len` of a printed or formatted list literal still folds
    (`_jit_pass_peephole_list_idioms`), and `list-peepholes` folds it too.
    """
    torch = pytest.importorskip("torch")
    from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

    text = """graph(%x : int):
  %two : int = prim::Constant[value=2]()
  %l : int[] = prim::ListConstruct(%x, %two)
   = prim::Print(%l)
  %fmt : str = prim::Constant[value="{}"]()
  %s : str = aten::format(%fmt, %l)
  %n : int = aten::len(%l)
  %m : int = aten::len(%s)
  %r : int = aten::add(%n, %m)
  return (%r)
"""
    theirs = torch._C.parse_ir(text.replace("   = prim::Print", "  prim::Print"))
    their_list = next(n for n in theirs.nodes() if n.kind() == "prim::ListConstruct").output()
    assert not theirs.alias_db().has_writers(their_list)
    torch._C._jit_pass_peephole_list_idioms(theirs, True)
    module = parse_torchscript(text)
    method = next(op for op in module.walk() if isinstance(op, MethodOp))
    lst = next(op for op in method.body.block.ops if op.name == "prim.ListConstruct").results[0]
    assert not AliasDb(method).has_writers(lst)
    ListPeepholesPass().apply(Context(), module)
    ours = [op for op in method.walk() if isinstance(op, NodeOp) and op.kind.data == "aten::len"]
    their_lens = [n for n in theirs.nodes() if n.kind() == "aten::len" and n.output().uses()]
    assert len(ours) == len(their_lens) == 1  # only len(%s) is left
