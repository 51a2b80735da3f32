"""
The structure of TorchScript ops as the printer walks it: a node's kind, its blocks (subgraphs
scanned as torch scans them), a block's nodes and return, and a `prim::Loop` seen as a `for`
or a `while` loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue

from xdsl_exir.dialects.prim import (
    INT64_MAX,
    BailOutOp,
    DifferentiableGraphOp,
    ForkOp,
    FusionGroupOp,
    LoopOp,
    PrimOp,
    ReturnOp,
    TensorExprGroupOp,
)
from xdsl_exir.dialects.ts import NodeOp
from xdsl_exir.targets.torchscript_python.spelling import MISSING, constant_value
from xdsl_exir.utils.diagnostics import ExirDiagnostic


def node_kind(op: Operation) -> str:
    """The TorchScript node kind of an op: `aten::add`, `prim::If`."""
    if isinstance(op, NodeOp):
        return op.kind.data
    if isinstance(op, PrimOp):
        return op.KIND
    return op.name


SUBGRAPH_DEF_OPS = (FusionGroupOp, DifferentiableGraphOp, TensorExprGroupOp)


def scanned_blocks(op: Operation) -> list[Block]:
    """The blocks printed inline with their node (subgraphs are separate functions)."""
    if isinstance(op, ForkOp | BailOutOp | FusionGroupOp | DifferentiableGraphOp | TensorExprGroupOp):
        return []
    if isinstance(op, NodeOp) and is_subgraph_node(op):
        return []
    return [r.block for r in op.regions if r.blocks]


def is_subgraph_node(op: NodeOp) -> bool:
    """A node of an unmodelled kind carrying a subgraph over its inputs (`prim::FallbackGraph`)."""
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        return False
    return len(op.regions[0].block.args) == len(op.operands)


def block_nodes(block: Block) -> list[Operation]:
    """A block's nodes, without its `prim.Return`."""
    return [op for op in block.ops if not isinstance(op, ReturnOp)]


def block_return(block: Block, where: Operation) -> ReturnOp:
    last = block.last_op
    if not isinstance(last, ReturnOp):
        raise ExirDiagnostic(where, "a block must end with prim.Return to print it as Python")
    return last


def node_of(v: SSAValue) -> Operation | None:
    return v.op if isinstance(v, OpResult) else None


@dataclass
class LoopView:
    """The parts of a `prim.Loop`, named as torch's LoopView names them."""

    op: LoopOp

    @property
    def max_trip_count(self) -> SSAValue:
        return self.op.operands[0]

    @property
    def input_cond(self) -> SSAValue:
        return self.op.operands[1]

    @property
    def body(self) -> Block:
        return self.op.body.block

    @property
    def trip_count(self) -> BlockArgument:
        return self.body.args[0]

    @property
    def next_cond(self) -> SSAValue:
        return block_return(self.body, self.op).operands[0]

    def kind(self) -> str:
        """`for`, `while`, or `modified` (a loop with both a trip count and a condition)."""
        trip = constant_value(self.max_trip_count)
        cond_in = constant_value(self.input_cond)
        cond_next = constant_value(self.next_cond)
        always_true = cond_in is True and cond_next is True
        trip_specified = trip is MISSING or trip != INT64_MAX or bool(self.trip_count.uses)
        if always_true:
            return "for" if trip_specified else "while"
        return "modified" if trip_specified else "while"
