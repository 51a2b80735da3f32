"""
`fuse-pointwise`: group adjacent pointwise ops into `exir.fusion_group`s.

The JIT Technical Overview's fuser (and torch.fx: Practical Program Capture and Transformation, §8) merges chains of elementwise ops so they
run as one kernel: one pass over memory, no full-size temporaries between
them. Here a group is a maximal set of functional pointwise aten ops (schema
tag `pointwise`) connected by producer-consumer edges whose results all have
the same sizes (operands may broadcast). The group is placed where its last
member was; its inputs are the values its members read from outside, its
results the member values used after it. On the LSTM cell this yields seed
004's two groups: the three gate adds, then the sigmoids, tanhs, muls and the
add after `chunk`.

Legality, walking each block in order: a group stays open while no op outside
it has used one of its values (moving the members down to the last one would
otherwise break that use) and no op with side effects has run since its
members did (a later write could change what they read). Ops inside nested
regions (cond branches, loop bodies) are grouped within their own block.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import is_side_effect_free
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import FusionGroupOp, OutputOp, TensorType
from xdsl_exir.utils.op_registry import lookup


def is_fusible_pointwise(op: Operation) -> bool:
    """A functional aten op tagged `pointwise` with one tensor result and tensor or scalar operands."""
    if not isinstance(op, AtenOp) or op.regions or len(op.results) != 1:
        return False
    if not isinstance(op.results[0].type, TensorType):
        return False
    entry = lookup(op.name)
    if entry is None or "pointwise" not in entry.tags or not op.SCHEMA.is_functional:
        return False
    return "nondeterministic_seeded" not in entry.tags


@dataclass(eq=False)
class _Group:
    members: list[Operation] = field(default_factory=list[Operation])
    sizes: tuple[object, ...] = ()
    open: bool = True


def _values_used(op: Operation) -> set[SSAValue]:
    """Every value `op` reads, nested regions included."""
    used = set(op.operands)
    for region in op.regions:
        for inner in region.walk():
            used.update(inner.operands)
    return used


def _find_groups(block: Block, min_size: int) -> list[_Group]:
    group_of: dict[Operation, _Group] = {}
    groups: list[_Group] = []
    for op in block.ops:
        producers = {
            group_of[v.owner]
            for v in _values_used(op)
            if isinstance(v.owner, Operation) and v.owner in group_of
        }
        if is_fusible_pointwise(op):
            sizes = tuple(op.results[0].type.sizes)  # pyright: ignore[reportAttributeAccessIssue] - a fusible pointwise op returns a tensor
            joined = [g for g in producers if g.open and g.sizes == sizes]
            for g in producers:
                if g not in joined:
                    g.open = False
            merged = _Group(sizes=sizes)
            for g in joined:
                merged.members.extend(g.members)
                g.members = []
            merged.members.append(op)
            for m in merged.members:
                group_of[m] = merged
            groups = [g for g in groups if g.members]
            groups.append(merged)
            continue
        for g in producers:
            g.open = False
        if not is_side_effect_free(op):
            for g in groups:
                g.open = False
    order = {op: i for i, op in enumerate(block.ops)}
    result = [g for g in groups if len(g.members) >= min_size]
    for g in result:
        g.members.sort(key=order.__getitem__)
    return result


def _outline(group: _Group, outputs: list[SSAValue]) -> FusionGroupOp:
    """A fusion group holding the members (moved out of their block) and returning `outputs`."""
    members = group.members
    member_set = set(members)
    inputs: list[SSAValue] = []
    for op in members:
        for v in op.operands:
            if (not isinstance(v.owner, Operation) or v.owner not in member_set) and v not in inputs:
                inputs.append(v)
    block = Block(arg_types=[v.type for v in inputs])
    for v, arg in zip(inputs, block.args):
        arg.name_hint = v.name_hint
        v.replace_uses_with_if(arg, lambda use: use.operation in member_set)
    for op in members:
        op.detach()
        block.add_op(op)
    block.add_op(OutputOp(outputs))
    return FusionGroupOp(inputs, Region(block))


def _fuse_block(block: Block, min_size: int) -> int:
    count = 0
    for group in _find_groups(block, min_size):
        last = group.members[-1]
        anchor = last.next_op
        assert anchor is not None  # a block ends with its terminator, never a pointwise op
        member_set = set(group.members)
        outputs: list[SSAValue] = [
            r for op in group.members for r in op.results if any(u.operation not in member_set for u in r.uses)
        ]
        fused = _outline(group, outputs)
        Rewriter.insert_op(fused, InsertPoint.before(anchor))
        for old, new in zip(outputs, fused.results):
            old.replace_uses_with_if(new, lambda use: use.operation.parent_op() is not fused)
            new.name_hint = old.name_hint
        count += 1
    return count


@dataclass(frozen=True)
class FusePointwisePass(ModulePass):
    """Group adjacent pointwise ops into `exir.fusion_group`s (option `min-size`: smallest group made)."""

    name = "fuse-pointwise"

    min_size: int = 2

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.min_size < 1:
            raise DiagnosticException(f"fuse-pointwise: min-size must be at least 1, got {self.min_size}")
        blocks: list[Block] = []
        for inner in op.walk():
            if isinstance(inner, FusionGroupOp):
                continue
            for region in inner.regions:
                if any(isinstance(p, FusionGroupOp) for p in _ancestors(inner)):
                    continue
                blocks.extend(region.blocks)
        for block in blocks:
            _fuse_block(block, self.min_size)


def _ancestors(op: Operation) -> list[Operation]:
    out: list[Operation] = []
    parent = op.parent_op()
    while parent is not None:
        out.append(parent)
        parent = parent.parent_op()
    return out
