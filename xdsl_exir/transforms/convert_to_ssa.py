"""
`convert-to-ssa`: the script frontend's variables become SSA values.

The frontend (JIT Technical Overview, "IR Emitter" and "Environment") writes every
assignment as `prim.Store {name = "x"}` and every read as `prim.Load`,
`break`/`continue` as `prim.BreakStmt`/`prim.ContinueStmt`, and a loop as
`prim.Loop(%max_trip_count)` whose second block computes the loop condition.
This pass does what the JIT Technical Overview's "Conversion To SSA" lists, in its order:

1. Loads and stores around control flow: an `if` gets an output for each
   variable both branches define (or one defines and the enclosing scope
   already has), with a `prim.Load` feeding each block's new output and a
   `prim.Store` of the new result after the `if`; a loop carries each
   variable its body assigns that exists before it (a load before the loop
   feeds the new operand, the new body argument is stored at the top of the
   body, a load at the end of the body feeds the new output, the result is
   stored after the loop). Outputs come in name order; a variable whose
   branch types do not unify gets no output (the frontend reports any use).
2. `break` becomes `prim.LoopContinuation(false, carried...)` and
   `continue` becomes `prim.LoopContinuation(cond, carried...)` with the
   loop's condition block cloned in front of it; the carried values are
   loads of the innermost loop's carried variables.
3. The condition block is inlined: cloned before the loop for the initial
   condition, moved to the end of the body for the next one.
4. Stores are erased and every load is replaced by the value in scope.

The result still holds `prim.LoopContinuation` and `prim.ReturnStmt`;
`exit-transform` removes them. The IR surgery helpers at the bottom of this
module (rebuilding an op with more operands or results) are shared with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp, StringAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass

from xdsl_exir.dialects.prim import (
    BreakStmtOp,
    ConstantOp,
    ContinueStmtOp,
    IfOp,
    LoadOp,
    LoopContinuationOp,
    LoopOp,
    PrimOp,
    ReturnOp,
    StoreOp,
)
from xdsl_exir.dialects.ts import MethodOp, TSBoolType, TSUnionType, join_types, ts_type_str
from xdsl_exir.utils.diagnostics import ExirDiagnostic

__all__ = [
    "ConvertToSSAPass",
    "bool_constant",
    "convert_to_ssa",
    "erase",
    "graph_blocks",
    "make_constant_bool",
    "rebuild",
    "set_name",
    "terminator",
    "unify",
]


@dataclass(frozen=True)
class ConvertToSSAPass(ModulePass):
    """Turn `prim.Store`/`prim.Load` variables into SSA values (JIT Technical Overview)."""

    name = "convert-to-ssa"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for block in graph_blocks(op):
            convert_to_ssa(block)


def graph_blocks(module: Operation) -> list[Block]:
    """The graph block of every `ts.method` under `module` (collected before any rewrite)."""
    return [m.body.block for m in module.walk() if isinstance(m, MethodOp)]


def convert_to_ssa(graph: Block) -> None:
    """Run the four steps on one graph block (a `ts.method`'s body)."""
    _ControlFlowLoadStores().block(graph, None)
    _LoopContinuations(graph).block(graph, None)
    _inline_loop_conditions(graph)
    _erase_loads_stores(graph, None)


# ---------------------------------------------------------------------------
# 1. Loads and stores around control flow
# ---------------------------------------------------------------------------


class _Env:
    """One scope's variables (types in step 1, values in step 4), chained to the enclosing scope."""

    def __init__(self, parent: _Env | None) -> None:
        self.parent = parent
        self.vars: dict[str, object] = {}

    def find(self, name: str) -> object | None:
        env: _Env | None = self
        while env is not None:
            if name in env.vars:
                return env.vars[name]
            env = env.parent
        return None


class _ControlFlowLoadStores:
    def block(self, block: Block, parent: _Env | None) -> _Env:
        env = _Env(parent)
        for op in list(block.ops):
            if isinstance(op, IfOp):
                self._if(op, env)
            elif isinstance(op, LoopOp):
                self._loop(op, env)
            elif isinstance(op, StoreOp):
                env.vars[op.var.data] = op.operands[0].type
            else:
                for region in op.regions:
                    for b in region.blocks:
                        self.block(b, env)
        return env

    def _if(self, op: IfOp, env: _Env) -> None:
        then_block, else_block = op.regions[0].block, op.regions[1].block
        then_env = self.block(then_block, env)
        else_env = self.block(else_block, env)
        mutated = {v for v in then_env.vars if else_env.find(v) is not None}
        mutated |= {v for v in else_env.vars if then_env.find(v) is not None}
        names: list[str] = []
        types: list[Attribute] = []
        for name in sorted(mutated):
            then_type = then_env.find(name)
            else_type = else_env.find(name)
            assert isinstance(then_type, Attribute) and isinstance(else_type, Attribute)
            unified = join_types(then_type, else_type)
            if unified is None:
                continue
            _append_output(then_block, _load(name, then_type, op))
            _append_output(else_block, _load(name, else_type, op))
            names.append(name)
            types.append(unified)
        if not names:
            return
        n = len(op.results)
        new = rebuild(op, op.operands, [*op.result_types, *types])
        after: Operation = new
        for i, name in enumerate(names):
            result = new.results[n + i]
            set_name(result, name)
            store = _store(name, result, new)
            _insert_after(store, after)
            after = store
            env.vars[name] = types[i]

    def _loop(self, op: LoopOp, env: _Env) -> None:
        body = op.body.block
        body_env = self.block(body, env)
        loads: list[SSAValue] = []
        types: list[Attribute] = []
        names: list[str] = []
        for name in sorted(body_env.vars):
            parent_type = env.find(name)
            if parent_type is None:
                continue  # local to the body
            body_type = body_env.vars[name]
            assert isinstance(parent_type, Attribute) and isinstance(body_type, Attribute)
            unified = join_types(parent_type, body_type)
            if unified is None:
                raise ExirDiagnostic(
                    op,
                    f"variable '{name}' is {ts_type_str(parent_type)} before the loop but "
                    f"{ts_type_str(body_type)} in its body",
                )
            load = _load(name, parent_type, op)
            _insert_before(load, op)
            loads.append(load.results[0])
            arg = body.insert_arg(unified, len(body.args))
            set_name(arg, name)
            store = _store(name, arg, op)
            first = body.first_op
            if first is None:
                body.add_op(store)
            else:
                body.insert_op_before(store, first)
            _append_output(body, _load(name, body_type, op))
            types.append(unified)
            names.append(name)
        if not names:
            return
        n = len(op.results)
        new = rebuild(op, [*op.operands, *loads], [*op.result_types, *types])
        after: Operation = new
        for i, name in enumerate(names):
            result = new.results[n + i]
            set_name(result, name)
            store = _store(name, result, new)
            _insert_after(store, after)
            after = store
            env.vars[name] = types[i]


# ---------------------------------------------------------------------------
# 2. break / continue -> LoopContinuation
# ---------------------------------------------------------------------------


class _LoopContinuations:
    def __init__(self, graph: Block) -> None:
        self.graph = graph
        self.false_val: SSAValue | None = None

    def _false(self, near: Operation) -> SSAValue:
        if self.false_val is None:
            const = make_constant_bool(False, near)
            first = self.graph.first_op
            assert first is not None
            self.graph.insert_op_before(const, first)
            self.false_val = const.results[0]
        return self.false_val

    def block(self, block: Block, loop: LoopOp | None) -> None:
        for op in list(block.ops):
            if isinstance(op, IfOp):
                for region in op.regions:
                    self.block(region.block, loop)
            elif isinstance(op, LoopOp):
                self.block(op.body.block, op)
            elif isinstance(op, ContinueStmtOp | BreakStmtOp):
                self._exit(op, loop)
            else:
                # Other blocks (subgraphs) are their own scope: no loop around them.
                for region in op.regions:
                    for b in region.blocks:
                        self.block(b, None)

    def _exit(self, op: ContinueStmtOp | BreakStmtOp, loop: LoopOp | None) -> None:
        what = "continue" if isinstance(op, ContinueStmtOp) else "break"
        if loop is None:
            raise ExirDiagnostic(op, f"'{what}' outside a loop")
        if loop.cond_block is None:
            raise ExirDiagnostic(
                op, f"'{what}' in a loop whose condition is already inlined (convert-to-ssa needs the frontend's form)"
            )
        block = op.parent_block()
        assert block is not None
        if isinstance(op, ContinueStmtOp):
            cond_block = loop.cond_block.block
            mapping: dict[SSAValue, SSAValue] = {}
            for inner in _body_ops(cond_block):
                block.insert_op_before(inner.clone(mapping), op)
            cond_out = terminator(cond_block).operands[0]
            cond = mapping.get(cond_out, cond_out)
        else:
            cond = self._false(op)
        carried: list[SSAValue] = []
        for value in terminator(loop.body.block).operands:
            owner = value.owner
            if not isinstance(owner, LoadOp):
                raise ExirDiagnostic(op, f"'{what}': the loop's body outputs must be prim.Load values")
            load = owner.clone()
            block.insert_op_before(load, op)
            carried.append(load.results[0])
        cont = LoopContinuationOp.make([cond, *carried])
        cont.location = op.location
        block.insert_op_before(cont, op)
        erase(op)


# ---------------------------------------------------------------------------
# 3. Inline the loop condition
# ---------------------------------------------------------------------------


def _inline_loop_conditions(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            for b in region.blocks:
                _inline_loop_conditions(b)
        if isinstance(op, LoopOp) and op.cond_block is not None:
            _inline_loop_condition(op)


def _inline_loop_condition(op: LoopOp) -> None:
    assert op.cond_block is not None
    cond_block = op.cond_block.block
    cond_out = terminator(cond_block).operands[0]
    # The initial condition: a copy of the block before the loop.
    mapping: dict[SSAValue, SSAValue] = {}
    parent = op.parent_block()
    assert parent is not None
    for inner in _body_ops(cond_block):
        parent.insert_op_before(inner.clone(mapping), op)
    start = mapping.get(cond_out, cond_out)
    # The next condition: the block itself, at the end of the body.
    body = op.body.block
    body_term = terminator(body)
    for inner in _body_ops(cond_block):
        inner.detach()
        body.insert_op_before(inner, body_term)
    body_term.operands = (cond_out, *body_term.operands)
    body_region = op.detach_region(op.body)
    rebuild(op, [op.operands[0], start, *op.operands[1:]], op.result_types, regions=[body_region])


# ---------------------------------------------------------------------------
# 4. Erase loads and stores
# ---------------------------------------------------------------------------


def _erase_loads_stores(block: Block, parent: _Env | None) -> None:
    env = _Env(parent)
    for op in list(block.ops):
        if isinstance(op, StoreOp):
            env.vars[op.var.data] = op.operands[0]
            erase(op)
        elif isinstance(op, LoadOp):
            value = env.find(op.var.data)
            if value is None:
                raise ExirDiagnostic(op, f"variable '{op.var.data}' is read before it is assigned")
            assert isinstance(value, SSAValue)
            op.results[0].replace_all_uses_with(value)
            erase(op)
        else:
            for region in op.regions:
                for b in region.blocks:
                    _erase_loads_stores(b, env)


# ---------------------------------------------------------------------------
# IR surgery shared with exit-transform and the script frontend
# ---------------------------------------------------------------------------


def terminator(block: Block) -> ReturnOp:
    """The `prim.Return` ending `block`."""
    last = block.last_op
    if not isinstance(last, ReturnOp):
        anchor = last or block.parent_op()
        if anchor is None:
            raise ValueError("a block must end with prim.Return")
        raise ExirDiagnostic(anchor, "a block must end with prim.Return")
    return last


def _body_ops(block: Block) -> list[Operation]:
    """The ops of `block` before its terminator."""
    ops = list(block.ops)
    return ops[:-1] if ops and isinstance(ops[-1], ReturnOp) else ops


def rebuild(
    op: PrimOp,
    operands: Sequence[SSAValue],
    result_types: Sequence[Attribute],
    result_map: Sequence[int | None] | None = None,
    regions: Sequence[Region] | None = None,
) -> PrimOp:
    """
    Replace `op` by an op of its class with other operands and results,
    taking over its regions (or `regions`), properties, attributes and
    location. Old result `i` is replaced by new result `result_map[i]`
    (default `i`; None: it must be unused).
    """
    if regions is None:
        regions = [op.detach_region(r) for r in list(op.regions)]
    new = type(op).create(
        operands=list(operands),
        result_types=list(result_types),
        properties=dict(op.properties),
        attributes=dict(op.attributes),
        regions=list(regions),
    )
    new.location = op.location
    for i, old in enumerate(op.results):
        j = i if result_map is None else result_map[i]
        if j is None:
            continue
        if old.name_hint and not new.results[j].name_hint:
            new.results[j].name_hint = old.name_hint
        old.replace_all_uses_with(new.results[j])
    block = op.parent_block()
    assert block is not None
    block.insert_op_before(new, op)
    erase(op)
    return new


def erase(op: Operation) -> None:
    """Detach `op` from its block and erase it (its results must be unused)."""
    if op.parent is not None:
        op.detach()
    op.erase()


def unify(a: Attribute, b: Attribute) -> Attribute:
    """TorchScript's `unifyTypes(a, b, default_to_union=True)`."""
    joined = join_types(a, b)
    return joined if joined is not None else TSUnionType(a, b)


def set_name(value: SSAValue, name: str) -> None:
    """Give `value` the name hint `name` when it has none and the name is a valid one."""
    if not value.name_hint and SSAValue.is_valid_name(name):
        value.name_hint = name


def make_constant_bool(value: bool, near: Operation | None = None) -> ConstantOp:
    const = ConstantOp.make([], [TSBoolType()], {"value": IntegerAttr(int(value), IntegerType(1))})
    if near is not None:
        const.location = near.location
    return const


def bool_constant(value: SSAValue) -> bool | None:
    """The value of a `prim.Constant` bool, None if `value` is not one."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        if owner.value.type == IntegerType(1):
            return bool(owner.value.value.data)
    return None


def _load(name: str, type_: Attribute, near: Operation) -> LoadOp:
    load = LoadOp.make([], [type_], {"name": StringAttr(name)})
    load.location = near.location
    return load


def _store(name: str, value: SSAValue, near: Operation) -> StoreOp:
    store = StoreOp.make([value], [], {"name": StringAttr(name)})
    store.location = near.location
    return store


def _append_output(block: Block, load: LoadOp) -> None:
    term = terminator(block)
    block.insert_op_before(load, term)
    term.operands = (*term.operands, load.results[0])


def _insert_before(op: Operation, before: Operation) -> None:
    block = before.parent_block()
    assert block is not None
    block.insert_op_before(op, before)


def _insert_after(op: Operation, after: Operation) -> None:
    block = after.parent_block()
    assert block is not None
    block.insert_op_after(op, after)
