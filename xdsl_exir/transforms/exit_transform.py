"""
`exit-transform`: early exits become structured control flow (JIT Technical Overview).

After `convert-to-ssa`, `break`/`continue` are `prim.LoopContinuation(%cond,
%carried...)` (they target the innermost loop's body) and `return` is
`prim.ReturnStmt(%values...)` (it targets the graph). This pass erases both
and sets block outputs instead, as TorchScript's `exit_transforms.cpp` does:

- Each node is classified by whether it WILL, MIGHT or WONT reach an exit,
  or always THROWS (`prim.RaiseException`). After a node that will exit or
  throws, the rest of its block is dead and deleted (values it defined and
  the block outputs still use become `prim.Uninitialized`). After a node that
  might exit, the rest of the block moves into the false branch of a new
  `prim.If` on the did-exit flag, whose true branch re-issues the exit.
- An `if` whose branches exit differently gets two new kinds of outputs: the
  did-exit flag and the exit values (uninitialized on the side that does not
  exit). A branch that throws takes the other branch's status, so an `if`
  that raises on one side and returns on the other simply returns.
- A loop whose body might exit (a `return` inside it) carries the did-exit
  flag and the exit values, and its next condition becomes false once the
  flag is set.
- At the target block (a loop body for LoopContinuation, the graph for
  ReturnStmt) the block outputs become the exit values.

LoopContinuations are transformed first, then ReturnStmts. Afterwards two
consecutive `if`s where the second tests a constant flag of the first are
merged (so `if c: return a` followed by `return b` becomes one `if`), and
`prim.Enter`/`prim.Exit` pairs, which are wrapped into `prim.With` blocks
for the duration of the pass so that their bodies are scopes of their own,
are unwrapped again. Unused constants, flags and `prim.Uninitialized`
values are left for dead-code elimination.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Block, Operation, OpResult, Region, SSAValue
from xdsl.passes import ModulePass

from xdsl_exir.dialects.prim import (
    BreakStmtOp,
    ContinueStmtOp,
    EnterOp,
    ExitOp,
    IfOp,
    LoadOp,
    LoopContinuationOp,
    LoopOp,
    RaiseExceptionOp,
    ReturnOp,
    ReturnStmtOp,
    StoreOp,
    UninitializedOp,
    WithOp,
)
from xdsl_exir.dialects.ts import MethodOp, TSBoolType
from xdsl_exir.transforms.convert_to_ssa import (
    bool_constant,
    erase,
    graph_blocks,
    make_constant_bool,
    rebuild,
    terminator,
    unify,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic, op_title

__all__ = ["ExitTransformPass", "exit_transform"]


@dataclass(frozen=True)
class ExitTransformPass(ModulePass):
    """Erase `prim.LoopContinuation` and `prim.ReturnStmt` by setting block outputs (JIT Technical Overview)."""

    name = "exit-transform"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for block in graph_blocks(op):
            exit_transform(block)


def exit_transform(graph: Block) -> None:
    """Run the transform on one graph block (a `ts.method`'s body)."""
    if not any(isinstance(op, ReturnStmtOp | LoopContinuationOp) for op in graph.walk()):
        return  # nothing exits early: the pass would only add unused flags
    _check_targets(graph)
    _wrap_with_blocks(graph)
    _ExitTransformer(graph, LoopContinuationOp).transform_exits(graph)
    _ExitTransformer(graph, ReturnStmtOp).transform_exits(graph)
    _inline_consecutive_ifs(graph)
    _unwrap_with_blocks(graph)


def _check_targets(graph: Block) -> None:
    for op in graph.walk():
        if isinstance(op, BreakStmtOp | ContinueStmtOp | StoreOp | LoadOp) or (
            isinstance(op, LoopOp) and op.cond_block is not None
        ):
            raise ExirDiagnostic(op, f"'{op_title(op)}' is the frontend's form: run convert-to-ssa before exit-transform")
        if isinstance(op, LoopContinuationOp):
            parent = op.parent_op()
            while parent is not None and not isinstance(parent, LoopOp | MethodOp):
                parent = parent.parent_op()
            if not isinstance(parent, LoopOp):
                raise ExirDiagnostic(op, "prim::LoopContinuation outside a loop")
            n = len(terminator(parent.body.block).operands)
            if len(op.operands) != n:
                raise ExirDiagnostic(
                    op, f"prim.LoopContinuation has {len(op.operands)} values but its loop body yields {n}"
                )
        elif isinstance(op, ReturnStmtOp):
            n = len(terminator(graph).operands)
            if len(op.operands) != n:
                raise ExirDiagnostic(op, f"prim.ReturnStmt has {len(op.operands)} values but the graph returns {n}")


class _Status(Enum):
    WILL = "will"
    MIGHT = "might"
    WONT = "wont"
    THROWS = "throws"


@dataclass
class _ExitPair:
    """Whether the exit was hit (a flag value or one of the sentinels) and the values it carries."""

    has_exited: SSAValue
    values: list[SSAValue] = field(default_factory=list[SSAValue])


class _ExitTransformer:
    def __init__(self, graph: Block, kind: type[LoopContinuationOp] | type[ReturnStmtOp]) -> None:
        self.graph = graph
        self.kind = kind
        self.units: dict[Attribute, SSAValue] = {}
        true_op = make_constant_bool(True)
        false_op = make_constant_bool(False)
        self._at_top(true_op)
        self._at_top(false_op)
        self.true_val: SSAValue = true_op.results[0]
        self.false_val: SSAValue = false_op.results[0]
        # Never read: a block that throws leaves no flag behind.
        self.throws_val = self.unit(TSBoolType())
        self.target: Block | None = None

    def _at_top(self, op: Operation) -> None:
        first = self.graph.first_op
        assert first is not None
        self.graph.insert_op_before(op, first)

    def unit(self, type_: Attribute) -> SSAValue:
        """The one `prim.Uninitialized` of `type_`, at the top of the graph."""
        value = self.units.get(type_)
        if value is None:
            op = UninitializedOp.make([], [type_])
            self._at_top(op)
            value = self.units[type_] = op.results[0]
        return value

    def status(self, pair: _ExitPair) -> _Status:
        if pair.has_exited is self.true_val:
            return _Status.WILL
        if pair.has_exited is self.false_val:
            return _Status.WONT
        if pair.has_exited is self.throws_val:
            return _Status.THROWS
        return _Status.MIGHT

    def wont(self) -> _ExitPair:
        return _ExitPair(self.false_val)

    # -- blocks -----------------------------------------------------------

    def _update_target(self, block: Block) -> None:
        parent = block.parent_op()
        if self.kind is LoopContinuationOp and isinstance(parent, LoopOp):
            self.target = block
        elif self.kind is ReturnStmtOp and (parent is None or isinstance(parent, MethodOp)):
            self.target = block

    def transform_exits(self, block: Block) -> _ExitPair:
        previous_target = self.target
        self._update_target(block)
        pair = self.wont()
        term = terminator(block)
        op = block.first_op
        while op is not None and op is not term:
            following = op.next_op
            if isinstance(op, RaiseExceptionOp):
                pair = _ExitPair(self.throws_val)
            elif isinstance(op, self.kind):
                pair = _ExitPair(self.true_val, list(op.operands))
                erase(op)
            elif isinstance(op, IfOp):
                pair = self._transform_if(op)
            elif isinstance(op, WithOp):
                pair = self.transform_exits(op.regions[0].block)
            elif isinstance(op, LoopOp):
                pair = self._transform_loop(op)
            status = self.status(pair)
            if status in (_Status.WILL, _Status.THROWS):
                self._delete_after_exit(block, following)
                break
            if status is _Status.MIGHT:
                if following is not None and following is not term:
                    pair = self._guard_block_nodes(block, pair, following)
                break
            op = following

        if self.target is block:
            status = self.status(pair)
            if status is _Status.MIGHT:
                # Exited: the exit values; otherwise what the block computed.
                outs = list(term.operands)
                new_if = _new_if(pair.has_exited, term)
                block.insert_op_before(new_if, term)
                new_if = self._add_if_outputs(new_if, pair.values, outs)
                term.operands = tuple(new_if.results)
            elif status is _Status.WILL:
                term.operands = tuple(pair.values)
            # An exit only reaches its target block.
            pair = self.wont()
        self.target = previous_target
        return pair

    def _delete_after_exit(self, block: Block, start: Operation | None) -> None:
        term = terminator(block)
        doomed: list[Operation] = []
        op = start
        while op is not None and op is not term:
            doomed.append(op)
            op = op.next_op
        for dead in reversed(doomed):
            for result in dead.results:
                if result.uses:
                    result.replace_all_uses_with(self.unit(result.type))
            erase(dead)

    def _guard_block_nodes(self, block: Block, pair: _ExitPair, start: Operation) -> _ExitPair:
        """Move the rest of `block` into the false branch of `if has_exited`."""
        term = terminator(block)
        new_if = _new_if(pair.has_exited, start, with_terminators=False)
        exit_block, guard_block = new_if.regions[0].block, new_if.regions[1].block
        block.insert_op_before(new_if, start)
        op: Operation | None = start
        while op is not None and op is not term:
            following = op.next_op
            op.detach()
            guard_block.add_op(op)
            op = following
        outs = list(term.operands)
        reissue = self.kind.make(pair.values)
        reissue.location = new_if.location
        exit_block.add_op(reissue)
        exit_block.add_op(ReturnOp.make([self.unit(v.type) for v in outs]))
        guard_block.add_op(ReturnOp.make(outs))
        new_if = rebuild(new_if, new_if.operands, [v.type for v in outs])
        assert isinstance(new_if, IfOp)
        term.operands = tuple(new_if.results)
        return self._transform_if(new_if)

    # -- control flow nodes -------------------------------------------------

    def _add_if_outputs(self, op: IfOp, then_outs: list[SSAValue], else_outs: list[SSAValue]) -> IfOp:
        then_term = terminator(op.regions[0].block)
        else_term = terminator(op.regions[1].block)
        then_term.operands = (*then_term.operands, *then_outs)
        else_term.operands = (*else_term.operands, *else_outs)
        types = [unify(t.type, f.type) for t, f in zip(then_outs, else_outs, strict=True)]
        new = rebuild(op, op.operands, [*op.result_types, *types])
        assert isinstance(new, IfOp)
        return new

    def _transform_if(self, op: IfOp) -> _ExitPair:
        then_pair = self.transform_exits(op.regions[0].block)
        else_pair = self.transform_exits(op.regions[1].block)
        then_status, else_status = self.status(then_pair), self.status(else_pair)
        status = _if_status(then_status, else_status)
        if status is _Status.THROWS:
            return _ExitPair(self.throws_val)
        if status is _Status.WONT:
            return self.wont()
        # The side that does not exit never has its exit values read.
        if then_status in (_Status.WONT, _Status.THROWS):
            then_pair = _ExitPair(then_pair.has_exited, [self.unit(v.type) for v in else_pair.values])
        elif else_status in (_Status.WONT, _Status.THROWS):
            else_pair = _ExitPair(else_pair.has_exited, [self.unit(v.type) for v in then_pair.values])
        flag_index: int | None = None
        if status is not _Status.WILL:
            op = self._add_if_outputs(op, [then_pair.has_exited], [else_pair.has_exited])
            flag_index = len(op.results) - 1
        n = len(then_pair.values)
        op = self._add_if_outputs(op, then_pair.values, else_pair.values)
        has_exited = self.true_val if flag_index is None else op.results[flag_index]
        values: list[SSAValue] = list(op.results[len(op.results) - n :]) if n else []
        return _ExitPair(has_exited, values)

    def _transform_loop(self, op: LoopOp) -> _ExitPair:
        body = op.body.block
        pair = self.transform_exits(body)
        if self.status(pair) in (_Status.WONT, _Status.THROWS):
            # The loop may not run at all, so its body throwing says nothing.
            return self.wont()
        # Stop iterating once the exit is hit; carry the flag and the values out.
        term = terminator(body)
        cond_if = IfOp.make(
            [pair.has_exited],
            [TSBoolType()],
            {},
            [Region(Block([ReturnOp.make([self.false_val])])), Region(Block([ReturnOp.make([term.operands[0]])]))],
        )
        cond_if.location = op.location
        body.insert_op_before(cond_if, term)
        term.operands = (cond_if.results[0], *term.operands[1:], pair.has_exited, *pair.values)
        body.insert_arg(TSBoolType(), len(body.args))
        for v in pair.values:
            body.insert_arg(v.type, len(body.args))
        new = rebuild(
            op,
            [*op.operands, self.false_val, *[self.unit(v.type) for v in pair.values]],
            [*op.result_types, TSBoolType(), *[v.type for v in pair.values]],
        )
        n = len(pair.values)
        results: list[SSAValue] = list(new.results)
        return _ExitPair(results[len(results) - n - 1], results[len(results) - n :] if n else [])


def _if_status(then_status: _Status, else_status: _Status) -> _Status:
    if then_status is _Status.THROWS:
        return else_status
    if else_status is _Status.THROWS:
        return then_status
    if then_status is _Status.WONT and else_status is _Status.WONT:
        return _Status.WONT
    if then_status is _Status.WILL and else_status is _Status.WILL:
        return _Status.WILL
    return _Status.MIGHT


def _new_if(cond: SSAValue, near: Operation, with_terminators: bool = True) -> IfOp:
    blocks = [Block(), Block()]
    if with_terminators:
        for b in blocks:
            b.add_op(ReturnOp.make([]))
    op = IfOp.make([cond], [], {}, [Region(b) for b in blocks])
    op.location = near.location
    return op


# ---------------------------------------------------------------------------
# Consecutive ifs
# ---------------------------------------------------------------------------


def _inline_consecutive_ifs(block: Block) -> None:
    op = block.first_op
    while op is not None:
        for region in op.regions:
            for b in region.blocks:
                _inline_consecutive_ifs(b)
        merged = _inline_next_if(op)
        if merged is None:
            op = op.next_op
        else:
            op = merged  # look again: the next op may merge too


def _inline_next_if(first: Operation) -> IfOp | None:
    """
    `if a: ... -> (true, x) else: ... -> (false, y)` followed by an `if` on
    that flag: the second `if`'s branches move into the first's.
    """
    if not isinstance(first, IfOp):
        return None
    second = first.next_op
    if not isinstance(second, IfOp):
        return None
    cond = second.operands[0]
    if not isinstance(cond, OpResult) or cond.op is not first:
        return None
    index = cond.index
    then_outs = terminator(first.regions[0].block).operands
    else_outs = terminator(first.regions[1].block).operands
    then_value = bool_constant(then_outs[index])
    else_value = bool_constant(else_outs[index])
    if then_value is None or else_value is None or then_value == else_value:
        return None
    pairs = (
        (first.regions[0].block, second.regions[0 if then_value else 1].block),
        (first.regions[1].block, second.regions[0 if else_value else 1].block),
    )
    for into, source in pairs:
        into_term = terminator(into)
        mapping: dict[SSAValue, SSAValue] = {
            r: v for r, v in zip(first.results, into_term.operands, strict=True)
        }
        source_ops = list(source.ops)
        for op in source_ops[:-1]:
            into.insert_op_before(op.clone(mapping), into_term)
        outs = [mapping.get(v, v) for v in terminator(source).operands]
        into_term.operands = (*into_term.operands, *outs)
    n = len(first.results)
    new = rebuild(first, first.operands, [*first.result_types, *second.result_types])
    for i, result in enumerate(second.results):
        result.replace_all_uses_with(new.results[n + i])
    erase(second)
    assert isinstance(new, IfOp)
    return new


# ---------------------------------------------------------------------------
# With blocks around Enter/Exit pairs
# ---------------------------------------------------------------------------


def _wrap_with_blocks(graph: Block) -> None:
    pairs: list[tuple[EnterOp, ExitOp]] = []
    stack: list[EnterOp] = []
    for op in graph.walk():
        if isinstance(op, EnterOp):
            stack.append(op)
        elif isinstance(op, ExitOp):
            if not stack:
                raise ExirDiagnostic(op, "prim.Exit without a prim.Enter before it")
            enter = stack.pop()
            if (
                not op.operands
                or not enter.operands
                or op.operands[0] is not enter.operands[0]
                or op.parent_block() is not enter.parent_block()
            ):
                raise ExirDiagnostic(op, "prim.Exit does not match the prim.Enter before it")
            pairs.append((enter, op))
    if stack:
        raise ExirDiagnostic(stack[-1], "prim.Enter without a matching prim.Exit")
    # Innermost pairs come first, so outer bodies take inner With nodes along.
    for enter, exit_op in pairs:
        block = enter.parent_block()
        assert block is not None
        body, exit_block = Block(), Block()
        op = enter.next_op
        while op is not None and op is not exit_op:
            following = op.next_op
            op.detach()
            body.add_op(op)
            op = following
        exit_op.detach()
        exit_block.add_op(exit_op)
        body.add_op(ReturnOp.make([]))
        exit_block.add_op(ReturnOp.make([]))
        with_op = WithOp.make([], [], {}, [Region(body), Region(exit_block)])
        with_op.location = enter.location
        block.insert_op_after(with_op, enter)


def _unwrap_with_blocks(graph: Block) -> None:
    for with_op in [op for op in graph.walk() if isinstance(op, WithOp)]:
        block = with_op.parent_block()
        assert block is not None
        for region in with_op.regions:
            for op in list(region.block.ops)[:-1]:
                op.detach()
                block.insert_op_before(op, with_op)
        erase(with_op)
