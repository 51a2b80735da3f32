"""
`unroll-loops`: TorchScript's loop unrolling (JIT Technical Overview, "Derivative
Preserving Optimization"; torch's `_jit_pass_loop_unrolling`).

Only for-loops are unrolled (the initial condition and the body's next
condition are the constant `True`), and only small ones (at most
`max-body-size` executed nodes, nested blocks counted, constants not).
Inner loops are handled before the loops around them.

- A constant trip count below `max-trip-count` unrolls the loop completely:
  the body is repeated that many times with the iteration number as a
  constant, and the loop disappears.
- Otherwise the body is repeated `factor` times inside the loop, which now
  runs `n // factor` times (rounded to zero), and a copy of the original
  loop, the epilogue, runs the remaining `n - (n // factor) * factor`
  iterations on its results. When the body reads the iteration number, a
  carried counter replaces it first, so both loops share one count.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, IntegerType, ModuleOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass

from xdsl_exir.dialects.prim import ConstantOp, LoopOp, ProfileOp, ReturnOp
from xdsl_exir.dialects.ts import MethodOp, NodeOp, TSIntType
from xdsl_exir.transforms.convert_to_ssa import bool_constant
from xdsl_exir.utils.diagnostics import ExirDiagnostic

__all__ = ["MAX_UNROLLED_NODES", "UnrollLoopsPass", "int_constant", "make_int_constant"]


def int_constant(value: SSAValue) -> int | None:
    """The value of a `prim.Constant` int, None if `value` is not one."""
    owner = value.owner
    if isinstance(owner, ConstantOp) and isinstance(owner.value, IntegerAttr):
        if isinstance(value.type, TSIntType):
            return owner.value.value.data
    return None


def make_int_constant(value: int) -> ConstantOp:
    return ConstantOp.make([], [TSIntType()], {"value": IntegerAttr(value, IntegerType(64))})


def _block_size(block: Block, limit: int) -> int:
    """Executed nodes in `block` and its nested blocks, counting stops past `limit`."""
    n = 0
    for op in block.ops:
        if n > limit:
            break
        for region in op.regions:
            for b in region.blocks:
                n += _block_size(b, limit - n)
        if not isinstance(op, ConstantOp | ReturnOp | ProfileOp):
            n += 1
    return n


def _is_for_loop(loop: LoopOp) -> bool:
    if loop.cond_block is not None or bool_constant(loop.operands[1]) is not True:
        return False
    ret = loop.body.block.last_op
    return isinstance(ret, ReturnOp) and bool_constant(ret.operands[0]) is True


def _repeat_body(body: Block, times: int, iteration: list[SSAValue] | None, dest: Block, carried: list[SSAValue]) -> list[SSAValue]:
    """Append `times` copies of `body` to `dest`; returns the final carried values.
    `iteration[k]` stands for the iteration argument in copy k (None: the argument is unused)."""
    current = list(carried)
    ret = body.last_op
    assert isinstance(ret, ReturnOp)
    for k in range(times):
        mapping: dict[SSAValue, SSAValue] = dict(zip(body.args[1:], current))
        if iteration is not None:
            mapping[body.args[0]] = iteration[k]
        for op in body.ops:
            if op is ret:
                break
            dest.add_op(op.clone(value_mapper=mapping))
        current = [mapping.get(v, v) for v in ret.operands[1:]]
    return current


MAX_UNROLLED_NODES = 100_000
"""Nodes one loop may unroll into (torch's defaults allow 64 * 32 = 2048): options beyond it are refused."""


@dataclass(frozen=True)
class UnrollLoopsPass(ModulePass):
    """Unroll small TorchScript for-loops, fully when the trip count is a small constant."""

    name = "unroll-loops"

    factor: int = 8
    """How many body copies a partially unrolled loop runs per iteration."""
    max_trip_count: int = 64
    """Constant trip counts below this are unrolled completely (torch: 64)."""
    max_body_size: int = 32
    """Loops whose body has more executed nodes are left alone (torch: 32)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.factor < 1 or self.max_trip_count < 0 or self.max_body_size < 0:
            raise ExirDiagnostic(
                op,
                f"unroll-loops: factor must be at least 1 (got {self.factor}) and max-trip-count and "
                f"max-body-size non-negative (got {self.max_trip_count}, {self.max_body_size})",
            )
        copies = max(self.factor, self.max_trip_count) * max(self.max_body_size, 1)
        if copies > MAX_UNROLLED_NODES:
            raise ExirDiagnostic(
                op,
                f"unroll-loops: factor {self.factor} or max-trip-count {self.max_trip_count} times "
                f"max-body-size {self.max_body_size} allows {copies} copied nodes per loop, more than "
                f"{MAX_UNROLLED_NODES}",
            )
        for method in [m for m in op.walk() if isinstance(m, MethodOp)]:
            self._block(method.body.block)

    def _block(self, block: Block) -> None:
        for op in list(block.ops):
            for region in op.regions:
                for b in region.blocks:
                    self._block(b)
            if isinstance(op, LoopOp) and _is_for_loop(op) and _block_size(op.body.block, self.max_body_size) <= self.max_body_size:
                n = int_constant(op.operands[0])
                if n is not None and n < self.max_trip_count:
                    self._unroll_fully(op, n)
                elif self.factor > 1:
                    self._unroll_partially(op)

    @staticmethod
    def _unroll_fully(loop: LoopOp, n: int) -> None:
        body = loop.body.block
        parent = loop.parent_block()
        assert parent is not None
        dest = Block()
        iteration: list[SSAValue] | None = None
        if body.args[0].uses:
            consts = [make_int_constant(k) for k in range(n)]
            for c in consts:
                dest.add_op(c)
            iteration = [c.results[0] for c in consts]
        final = _repeat_body(body, max(n, 0), iteration, dest, list(loop.operands[2:]))
        ops = list(dest.ops)
        for o in ops:
            o.detach()
        parent.insert_ops_before(ops, loop)
        for r, v in zip(loop.results, final):
            r.replace_all_uses_with(v)
        parent.erase_op(loop)

    def _unroll_partially(self, loop: LoopOp) -> None:
        parent = loop.parent_block()
        assert parent is not None
        if loop.body.block.args[0].uses:
            loop = _add_counter(loop)
        n = loop.operands[0]
        # The epilogue: the original loop on the unrolled loop's results.
        epilogue = loop.clone()
        parent.insert_op_after(epilogue, loop)
        for r, e in zip(loop.results, epilogue.results):
            r.replace_all_uses_with(e)
        epilogue.operands = [epilogue.operands[0], epilogue.operands[1], *loop.results]
        # The unrolled body.
        body = loop.body.block
        new_body = Block(arg_types=body.arg_types)
        final = _repeat_body(body, self.factor, None, new_body, list(new_body.args[1:]))
        new_body.add_op(ReturnOp.make([body.last_op.operands[0], *final]))  # pyright: ignore[reportOptionalMemberAccess] - a loop body always ends with its prim::Return
        # The body's condition is a constant defined outside or inside; keep it valid.
        cond = body.last_op.operands[0]  # pyright: ignore[reportOptionalMemberAccess] - a loop body always ends with its prim::Return
        if cond.owner.parent_block() is body:
            c = cond.owner.clone()  # pyright: ignore[reportAttributeAccessIssue] - defined in the body, so an op, not a block argument
            new_body.insert_op_before(c, new_body.last_op)  # pyright: ignore[reportArgumentType] - the new body ends with the Return added above
            new_body.last_op.operands = [c.results[0], *new_body.last_op.operands[1:]]  # pyright: ignore[reportOptionalMemberAccess] - the new body ends with the Return added above
        loop.body.detach_block(body)
        loop.body.add_block(new_body)
        body.erase()
        # Trip counts: n // factor (toward zero) and the rest.
        f = make_int_constant(self.factor)
        div = NodeOp("aten::__round_to_zero_floordiv", [n, f.results[0]], [TSIntType()])
        mul = NodeOp("aten::mul", [div.results[0], f.results[0]], [TSIntType()])
        rest = NodeOp("aten::sub", [n, mul.results[0]], [TSIntType()])
        parent.insert_ops_before([f, div, mul, rest], loop)
        loop.operands = [div.results[0], *loop.operands[1:]]
        epilogue.operands = [rest.results[0], *epilogue.operands[1:]]


def _add_counter(loop: LoopOp) -> LoopOp:
    """The loop with a carried int counter (0, 1, ...) in place of its iteration argument."""
    parent = loop.parent_block()
    assert parent is not None
    zero = make_int_constant(0)
    parent.insert_op_before(zero, loop)
    body = loop.body.block
    counter = body.insert_arg(TSIntType(), len(body.args))
    body.args[0].replace_all_uses_with(counter)
    ret = body.last_op
    assert isinstance(ret, ReturnOp)
    one = make_int_constant(1)
    inc = NodeOp("aten::add", [counter, one.results[0]], [TSIntType()])
    body.insert_ops_before([one, inc], ret)
    ret.operands = [*ret.operands, inc.results[0]]
    region = Region()
    loop.body.move_blocks(region)
    new = LoopOp.make([*loop.operands, zero.results[0]], [*loop.result_types, TSIntType()], regions=[region])
    new.attributes.update(loop.attributes)
    parent.insert_op_before(new, loop)
    for old, r in zip(loop.results, new.results):
        old.replace_all_uses_with(r)
    parent.erase_op(loop)
    return new

