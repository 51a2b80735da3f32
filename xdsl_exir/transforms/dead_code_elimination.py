"""
`exir-dce`: dead code elimination that respects mutation and aliasing
(TorchScript's `EliminateDeadCode` with an AliasDb, JIT Technical Overview).

An op stays when its results are used by a live op, when it has effects the
analysis cannot see (no schema, unknown target, random ops), or when it writes
memory that is observable: memory that escapes the graph (inputs, state,
outputs, the wildcard) or that a live op reads. Everything else is removed,
in Export IR (`exir.graph`, nested `cond` / `while_loop` / `map` bodies) and in
TorchScript IR (`ts.method`, `prim.If` / `prim.Loop` bodies).

It is one mark phase from the roots (terminators, effectful ops, writers of
escaping memory) over operands and, when the graph writes at all, over the
writers of the locations live ops read; then one sweep. The alias analysis is
only built for graphs that contain a writing or effectful op.

In TorchScript IR it also removes what TorchScript's `EliminateDeadCode`
removes from control flow (its `removeDeadIfOutputs` and
`removeDeadLoopOutputs`): `prim.If` results no one uses, and `prim.Loop`
carried values used neither after the loop nor in its body, after which what
computed them is dead too; mark and sweep repeat until nothing changes. The
script frontend runs this pass as its dead code elimination.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass

from xdsl_exir.analysis.alias_db import AliasDb, OpKind, classify
from xdsl_exir.dialects import exir, prim, ts
from xdsl_exir.transforms.convert_to_ssa import rebuild, terminator


def graph_roots(module: Operation) -> list[Operation]:
    """The graphs a whole-graph pass works on: every `exir.graph` and `ts.method`."""
    return [op for op in module.walk() if isinstance(op, exir.GraphOp | ts.MethodOp)]


def needs_alias_db(root: Operation) -> bool:
    """Whether some op of the graph writes, is random, acts outside memory or has unknown effects."""
    for op in root.walk():
        if op is root:
            continue
        c = classify(op)
        if c.kind is OpKind.UNKNOWN:
            return True
        if c.kind is OpKind.SCHEMA:
            info = c.info
            assert info is not None
            if info.written or info.random or info.wildcard_args or info.effect:
                return True
    return False


def eliminate_dead_code(root: Operation) -> int:
    """Remove the dead ops of one graph; returns how many top-level dead ops were erased."""
    erased = _mark_and_sweep(root)
    if any(isinstance(op, prim.IfOp | prim.LoopOp) for op in root.walk()):
        while _remove_dead_block_outputs(root):
            erased += _mark_and_sweep(root)
    return erased


def _remove_dead_block_outputs(root: Operation) -> bool:
    """Drop unused `prim.If` results and unused `prim.Loop` carried values; whether any went."""
    changed = False
    for op in list(root.walk()):
        if op.parent is None:
            continue
        if isinstance(op, prim.IfOp):
            changed |= _dead_if_outputs(op)
        elif isinstance(op, prim.LoopOp) and op.cond_block is None:
            changed |= _dead_loop_carried(op)
    return changed


def _dead_if_outputs(op: prim.IfOp) -> bool:
    dead = [i for i, r in enumerate(op.results) if not r.uses]
    if not dead:
        return False
    keep = [i for i in range(len(op.results)) if i not in dead]
    for region in op.regions:
        term = terminator(region.block)
        outs = term.operands
        term.operands = tuple(outs[i] for i in keep)
    mapping: list[int | None] = [None] * len(op.results)
    for new_i, old_i in enumerate(keep):
        mapping[old_i] = new_i
    rebuild(op, op.operands, [op.result_types[i] for i in keep], mapping)
    return True


def _dead_loop_carried(op: prim.LoopOp) -> bool:
    body = op.body.block
    n = len(op.results)
    dead = [i for i in range(n) if not op.results[i].uses and not body.args[1 + i].uses]
    if not dead:
        return False
    keep = [i for i in range(n) if i not in dead]
    term = terminator(body)
    outs = term.operands
    term.operands = (outs[0], *(outs[1 + i] for i in keep))
    for i in reversed(dead):
        body.erase_arg(body.args[1 + i])
    mapping: list[int | None] = [None] * n
    for new_i, old_i in enumerate(keep):
        mapping[old_i] = new_i
    operands = [op.operands[0], op.operands[1], *(op.operands[2 + i] for i in keep)]
    rebuild(op, operands, [op.result_types[i] for i in keep], mapping)
    return True


def _mark_and_sweep(root: Operation) -> int:
    db = AliasDb(root) if needs_alias_db(root) else None
    live: set[Operation] = set()
    work: list[Operation] = []
    top = root.regions[0].blocks[0]

    def mark(op: Operation) -> None:
        if op not in live:
            live.add(op)
            work.append(op)

    last = top.last_op
    if last is not None:
        mark(last)
    if db is not None:
        escaping = db.escaping_locations()
        for op in db.effectful_ops():
            mark(op)
        for op in db.writing_ops():
            if not db.own_writes(op).isdisjoint(escaping):
                mark(op)
    live_locations: set[int] = set()
    while work:
        op = work.pop()
        parent = op.parent_op()
        if classify(op).kind is not OpKind.TERMINATOR:
            if parent is not None and parent is not root:
                mark(parent)
        for region in op.regions:
            for block in region.blocks:
                t = block.last_op
                if t is not None and classify(t).kind is OpKind.TERMINATOR:
                    mark(t)
        for v in op.operands:
            owner = v.owner
            if isinstance(owner, Operation):
                mark(owner)
        if db is not None:
            for v in op.operands:
                for loc in db.locations(v, True):
                    if loc not in live_locations:
                        live_locations.add(loc)
                        for w in db.writers_at(loc):
                            mark(w)
    dead = [op for op in root.walk() if op is not root and op not in live]
    erased = 0
    for op in reversed(dead):
        parent = op.parent_op()
        if parent is not root and parent not in live:
            continue  # goes with its dead parent
        block = op.parent_block()
        assert block is not None
        block.erase_op(op, safe_erase=False)
        erased += 1
    return erased


@dataclass(frozen=True)
class ExirDCEPass(ModulePass):
    """Dead code elimination aware of in-place ops and views (see the module docstring)."""

    name = "exir-dce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for root in graph_roots(op):
            eliminate_dead_code(root)
