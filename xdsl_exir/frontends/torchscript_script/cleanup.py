"""TorchScript's compile-time cleanups, what `torch.jit.script` runs after
conversion to SSA: modified loops canonicalized, tuples built and taken apart
forwarded, scalar constants folded, constants pooled (the stock
`constant-pooling`), unchanging outputs forwarded, dead code removed (the stock
`exir-dce`) and `if`/loop outputs in the order of their first use.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from xdsl.dialects.builtin import Float64Type, FloatAttr, IntegerAttr, IntegerType, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xdsl_exir.dialects.prim import INT64_MAX, ConstantOp, IfOp, LoopOp, TupleConstructOp, TupleIndexOp, TupleUnpackOp
from xdsl_exir.dialects.ts import MethodOp, NodeOp, TSBoolType, TSFloatType, TSIntType, TSNoneType, TSStrType
from xdsl_exir.frontends.torchscript_script.source import NOT_LITERAL
from xdsl_exir.transforms.constant_pooling import pool_constants
from xdsl_exir.transforms.convert_to_ssa import bool_constant, erase, rebuild, terminator
from xdsl_exir.transforms.dead_code_elimination import eliminate_dead_code


def cleanup_graph(graph: Block) -> None:
    """
    TorchScript's cleanups after SSA conversion: while-style loops for loops
    with a trip count and a condition, forwarding of tuples that are built
    and taken apart, scalar operations on constants folded, constants pooled
    at the top of the graph (the `constant-pooling` pass), `if` and loop
    outputs that do not change forwarded, dead code removed (the `exir-dce`
    pass: unused nodes without effects, writes no one observes, unused `if`
    outputs and loop-carried values), `if` and loop outputs in the order of
    their first use.
    """
    method = graph.parent_op()
    assert method is not None, "cleanup_graph works on the body of a ts.method"
    _canonicalize_modified_loops(graph)
    _lower_simple_tuples(graph)
    _fold_constants(graph)
    pool_constants(method)
    _forward_unchanged_outputs(graph)
    eliminate_dead_code(method)
    _canonicalize_outputs(graph)


def _int_constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        if owner.value.type == IntegerType(64):
            return owner.value.value.data
    return None


def _canonicalize_modified_loops(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            for b in region.blocks:
                _canonicalize_modified_loops(b)
        if isinstance(op, LoopOp) and op.cond_block is None:
            _canonicalize_modified_loop(op)


def _canonicalize_modified_loop(op: LoopOp) -> None:
    """A loop with a trip count and a condition becomes `while cond and i < n` (TorchScript's form)."""
    body = op.body.block
    term = terminator(body)
    trip = _int_constant(op.operands[0])
    start_cond = bool_constant(op.operands[1])
    next_cond = bool_constant(term.operands[0])
    if start_cond is True and next_cond is True:
        return  # a for loop
    if trip == INT64_MAX:
        return  # a while loop
    block = op.parent_block()
    assert block is not None

    def add(new: Operation) -> SSAValue:
        new.location = op.location
        block.insert_op_before(new, op)
        return new.results[0]

    def node_in_body(kind: str, inputs: list[SSAValue], t: Attribute) -> SSAValue:
        new = NodeOp(kind, inputs, [t])
        new.location = op.location
        body.insert_op_before(new, term)
        return new.results[0]

    zero = add(ConstantOp.make([], [TSIntType()], {"value": IntegerAttr(0, IntegerType(64))}))
    one = add(ConstantOp.make([], [TSIntType()], {"value": IntegerAttr(1, IntegerType(64))}))
    max_trip = op.operands[0]
    cond = add(NodeOp("aten::gt", [max_trip, zero], [TSBoolType()]))
    if start_cond is not True:
        cond = add(NodeOp("aten::__and__", [cond, op.operands[1]], [TSBoolType()]))
    int_max = add(ConstantOp.make([], [TSIntType()], {"value": IntegerAttr(INT64_MAX, IntegerType(64))}))
    counter = body.insert_arg(TSIntType(), len(body.args))
    body.args[0].replace_all_uses_with(counter)
    body.args[0].name_hint = None
    incremented = node_in_body("aten::add", [counter, one], TSIntType())
    below = node_in_body("aten::lt", [incremented, max_trip], TSBoolType())
    new_cond = node_in_body("aten::__and__", [below, term.operands[0]], TSBoolType())
    term.operands = (new_cond, *term.operands[1:], incremented)
    rebuild(op, [int_max, cond, *op.operands[2:], zero], [*op.result_types, TSIntType()])


def _lower_simple_tuples(block: Block) -> None:
    for op in list(block.ops):
        for region in op.regions:
            for b in region.blocks:
                _lower_simple_tuples(b)
        if isinstance(op, TupleUnpackOp) and isinstance(op.operands[0].owner, TupleConstructOp):
            parts = op.operands[0].owner.operands
            if len(parts) == len(op.results):
                for r, v in zip(op.results, parts, strict=True):
                    r.replace_all_uses_with(v)
                erase(op)
        elif isinstance(op, TupleIndexOp) and isinstance(op.operands[0].owner, TupleConstructOp):
            index = _int_constant(op.operands[1])
            parts = op.operands[0].owner.operands
            if index is not None and 0 <= index < len(parts):
                op.results[0].replace_all_uses_with(parts[index])
                erase(op)


def _constant_value(value: SSAValue) -> object:
    """The Python value of a scalar `prim.Constant` (int, float, bool, str, None), else `_NOT_LITERAL`."""
    owner = value.owner
    if not isinstance(owner, ConstantOp) or owner.fn_name is not None:
        return NOT_LITERAL
    v = owner.value
    t = value.type
    if v is None:
        return None if isinstance(t, TSNoneType) else NOT_LITERAL
    if isinstance(v, IntegerAttr):
        if v.type == IntegerType(1):
            return bool(v.value.data)
        return v.value.data
    if isinstance(v, FloatAttr):
        return v.value.data
    if isinstance(v, StringAttr) and isinstance(t, TSStrType):
        return v.data
    return NOT_LITERAL


def _numbers(*values: object) -> bool:
    return all(isinstance(v, int | float) for v in values)


_FOLD_BINARY: dict[str, Callable[[Any, Any], object]] = {
    "add": lambda a, b: a + b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else NOT_LITERAL,
    "sub": lambda a, b: a - b if _numbers(a, b) else NOT_LITERAL,
    "mul": lambda a, b: a * b if _numbers(a, b) else NOT_LITERAL,
    "div": lambda a, b: a / b if _numbers(a, b) and b != 0 else NOT_LITERAL,
    "floordiv": lambda a, b: a // b if _numbers(a, b) and b != 0 else NOT_LITERAL,
    "remainder": lambda a, b: a % b if _numbers(a, b) and b != 0 else NOT_LITERAL,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "lt": lambda a, b: a < b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else NOT_LITERAL,
    "gt": lambda a, b: a > b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else NOT_LITERAL,
    "le": lambda a, b: a <= b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else NOT_LITERAL,
    "ge": lambda a, b: a >= b if _numbers(a, b) or (isinstance(a, str) and isinstance(b, str)) else NOT_LITERAL,
    "__and__": lambda a, b: a and b if isinstance(a, bool) and isinstance(b, bool) else NOT_LITERAL,
    "__or__": lambda a, b: a or b if isinstance(a, bool) and isinstance(b, bool) else NOT_LITERAL,
    "min": lambda a, b: min(a, b) if _numbers(a, b) else NOT_LITERAL,
    "max": lambda a, b: max(a, b) if _numbers(a, b) else NOT_LITERAL,
}
_FOLD_UNARY: dict[str, Callable[[Any], object]] = {
    "neg": lambda a: -a if _numbers(a) and not isinstance(a, bool) else NOT_LITERAL,
    "__not__": lambda a: not a if isinstance(a, bool) else NOT_LITERAL,
    "Float": lambda a: float(a) if _numbers(a) else NOT_LITERAL,
    "Int": lambda a: int(a) if _numbers(a) and math.isfinite(a) else NOT_LITERAL,
    "Bool": lambda a: bool(a) if _numbers(a) else NOT_LITERAL,
    "abs": lambda a: abs(a) if _numbers(a) and not isinstance(a, bool) else NOT_LITERAL,
    "len": lambda a: len(a) if isinstance(a, str) else NOT_LITERAL,
}


def _fold(op: NodeOp) -> object:
    """The value of a scalar node whose inputs are all constants, else `_NOT_LITERAL`."""
    ns, _, name = op.kind.data.partition("::")
    if ns not in ("aten", "prim") or len(op.results) != 1:
        return NOT_LITERAL
    args = [_constant_value(v) for v in op.operands]
    if any(a is NOT_LITERAL for a in args):
        return NOT_LITERAL
    if ns == "prim" and name not in ("min", "max", "abs"):
        return NOT_LITERAL
    try:
        if len(args) == 2 and name in _FOLD_BINARY:
            result = _FOLD_BINARY[name](*args)
        elif len(args) == 1 and name in _FOLD_UNARY:
            result = _FOLD_UNARY[name](*args)
        else:
            return NOT_LITERAL
    except (ArithmeticError, ValueError, TypeError):
        return NOT_LITERAL
    t = op.results[0].type
    wanted = {TSIntType: int, TSFloatType: float, TSBoolType: bool, TSStrType: str}.get(type(t))
    if wanted is None or result is NOT_LITERAL or type(result) is not wanted:
        if wanted is float and isinstance(result, int) and not isinstance(result, bool):
            result = float(result)
        else:
            return NOT_LITERAL
    if isinstance(result, float) and not math.isfinite(result):
        return NOT_LITERAL
    if isinstance(result, int) and not isinstance(result, bool) and not -(2**63) <= result < 2**63:
        return NOT_LITERAL
    return result


def _fold_constants(graph: Block) -> None:
    """Scalar nodes on constants become constants (TorchScript's ConstantPropagationImmutableTypes)."""
    for op in list(graph.walk()):
        if not isinstance(op, NodeOp) or op.parent is None:
            continue
        value = _fold(op)
        if value is NOT_LITERAL:
            continue
        const = _constant_op(value, op.results[0].type)
        const.location = op.location
        block = op.parent_block()
        assert block is not None
        block.insert_op_before(const, op)
        op.results[0].replace_all_uses_with(const.results[0])
        if op.results[0].name_hint:
            const.results[0].name_hint = op.results[0].name_hint
        erase(op)


def _constant_op(value: object, t: Attribute) -> ConstantOp:
    if isinstance(value, bool):
        attr: Attribute = IntegerAttr(int(value), IntegerType(1))
    elif isinstance(value, int):
        attr = IntegerAttr(value, IntegerType(64))
    elif isinstance(value, float):
        attr = FloatAttr(value, Float64Type())
    else:
        assert isinstance(value, str)
        attr = StringAttr(value)
    return ConstantOp.make([], [t], {"value": attr})


def _forward_unchanged_outputs(graph: Block) -> None:
    """
    An `if` output both branches give as the same value is that value, and a
    loop-carried value the body passes through unchanged is its initial value
    (what torch's constant propagation does to control flow before the dead
    outputs go); innermost first, until nothing changes.
    """
    changed = True
    while changed:
        changed = False
        for op in reversed(list(graph.walk())):
            if isinstance(op, IfOp):
                then_outs = terminator(op.regions[0].block).operands
                else_outs = terminator(op.regions[1].block).operands
                for r, t, f in zip(op.results, then_outs, else_outs, strict=True):
                    if t is f and r.uses:
                        r.replace_all_uses_with(t)
                        changed = True
            elif isinstance(op, LoopOp) and op.cond_block is None:
                body = op.body.block
                outs = terminator(body).operands
                for i in range(len(op.results)):
                    arg = body.args[1 + i]
                    if outs[1 + i] is arg and (op.results[i].uses or arg.uses):
                        initial = op.operands[2 + i]
                        op.results[i].replace_all_uses_with(initial)
                        arg.replace_all_uses_with(initial)
                        changed = True


# -- outputs in the order of their first use (TorchScript's CanonicalizeOutputs)


def _depth(op: Operation) -> int:
    depth = 0
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, MethodOp):
        depth += 1
        parent = parent.parent_op()
    return depth


def _op_before(a: Operation, b: Operation) -> bool:
    """The order in which a dump shows the two ops (a container comes before what it contains)."""
    da, db = _depth(a), _depth(b)
    while da > db:
        parent = a.parent_op()
        assert parent is not None
        a, da = parent, da - 1
        if a is b:
            return False
    while db > da:
        parent = b.parent_op()
        assert parent is not None
        b, db = parent, db - 1
        if a is b:
            return True
    while a.parent_block() is not b.parent_block():
        pa, pb = a.parent_op(), b.parent_op()
        assert pa is not None and pb is not None
        if pa is pb:
            ra, rb = a.parent_region(), b.parent_region()
            return pa.regions.index(ra) < pa.regions.index(rb)
        a, b = pa, pb
    return a.is_before_in_block(b)


def _first_use(value: SSAValue) -> tuple[Operation, int] | None:
    best: tuple[Operation, int] | None = None
    for use in value.uses:
        cand = (use.operation, use.index)
        if best is None or (
            cand[1] < best[1] if cand[0] is best[0] else _op_before(cand[0], best[0])
        ):
            best = cand
    return best


def _first_use_order(values: Sequence[SSAValue]) -> list[int]:
    firsts = [_first_use(v) for v in values]

    def compare(i: int, j: int) -> int:
        a, b = firsts[i], firsts[j]
        if a is None and b is None:
            return i - j
        if a is None:
            return 1
        if b is None:
            return -1
        if a[0] is b[0]:
            return a[1] - b[1]
        return -1 if _op_before(a[0], b[0]) else 1

    return sorted(range(len(values)), key=functools.cmp_to_key(compare))


def _canonicalize_outputs(block: Block) -> None:
    for op in reversed(list(block.ops)):
        if isinstance(op, IfOp):
            op = _permute_if(op, _first_use_order(op.results))
        elif isinstance(op, LoopOp) and op.cond_block is None:
            op = _permute_loop(op, _first_use_order(op.results))
        for region in op.regions:
            for b in region.blocks:
                _canonicalize_outputs(b)


def _inverse(order: list[int]) -> list[int | None]:
    mapping: list[int | None] = [None] * len(order)
    for new_i, old_i in enumerate(order):
        mapping[old_i] = new_i
    return mapping


def _permute_if(op: IfOp, order: list[int]) -> Operation:
    if order == sorted(order):
        return op
    for region in op.regions:
        term = terminator(region.block)
        outs = term.operands
        term.operands = tuple(outs[i] for i in order)
    return rebuild(op, op.operands, [op.result_types[i] for i in order], _inverse(order))


def _permute_loop(op: LoopOp, order: list[int]) -> Operation:
    if order == sorted(order):
        return op
    body = op.body.block
    term = terminator(body)
    outs = term.operands
    term.operands = (outs[0], *(outs[1 + i] for i in order))
    old_args = list(body.args[1:])
    for i in order:
        new_arg = body.insert_arg(old_args[i].type, len(body.args))
        new_arg.name_hint = old_args[i].name_hint
        old_args[i].replace_all_uses_with(new_arg)
    for arg in old_args:
        body.erase_arg(arg)
    operands = [op.operands[0], op.operands[1], *(op.operands[2 + i] for i in order)]
    return rebuild(op, operands, [op.result_types[i] for i in order], _inverse(order))
