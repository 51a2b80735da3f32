"""
`batch-mm`: TorchScript's `BatchMM` "TreeReduce" case (torch's
`_jit_pass_batch_mm`, the JIT Technical Overview's batching of the matrix multiplications that
unrolling produces).

A tree of `aten::add` nodes (alpha the constant 1) whose leaves are at least
`min-leaves` `aten::mm` results, each used only inside the tree, computes
`sum_i A_i @ B_i`, which is `cat(A_i, dim=1) @ cat(B_i, dim=0)`: one larger
matrix multiplication instead of several small ones and the adds. The mm
results are 2-D, so the adds cannot broadcast unless some sizes are 1; when
the result types give sizes, they must all be equal, as torch requires.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass

from xdsl_exir.dialects.prim import ListConstructOp
from xdsl_exir.dialects.ts import MethodOp, NodeOp, TSListType, TSTensorType
from xdsl_exir.transforms.unroll_loops import int_constant, make_int_constant
from xdsl_exir.utils.diagnostics import ExirDiagnostic

__all__ = ["BatchMMPass"]


def _is_node(value: SSAValue, kind: str) -> NodeOp | None:
    owner = value.owner
    return owner if isinstance(owner, NodeOp) and owner.kind.data == kind else None


def _tree_add(op: Operation) -> bool:
    return (
        isinstance(op, NodeOp)
        and op.kind.data == "aten::add"
        and len(op.operands) == 3
        and int_constant(op.operands[2]) == 1
        and all(isinstance(v.type, TSTensorType) for v in op.operands[:2])
    )


@dataclass(frozen=True)
class BatchMMPass(ModulePass):
    """Replace add-trees of matrix products by one `aten::mm` of concatenated operands."""

    name = "batch-mm"

    min_leaves: int = 2
    """The fewest `aten::mm` leaves worth batching."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.min_leaves < 2:
            raise ExirDiagnostic(op, f"batch-mm: min-leaves must be at least 2, got {self.min_leaves}")
        for method in [m for m in op.walk() if isinstance(m, MethodOp)]:
            for block in [b for o in method.walk() for r in o.regions for b in r.blocks]:
                self._block(block)

    def _block(self, block: Block) -> None:
        for op in reversed(list(block.ops)):
            if op.parent is None or not _tree_add(op):
                continue
            # Roots only: an add whose single user is another tree add is an inner node.
            r = op.results[0]
            if r.has_one_use() and _tree_add(next(iter(r.uses)).operation):
                continue
            leaves: list[NodeOp] = []
            inner: list[Operation] = []
            if self._collect(op, block, leaves, inner, root=True) and len(leaves) >= self.min_leaves:
                self._rewrite(op, leaves, inner)

    def _collect(self, op: Operation, block: Block, leaves: list[NodeOp], inner: list[Operation], root: bool) -> bool:
        if op.parent_block() is not block or (not root and not op.results[0].has_one_use()):
            return False
        if _tree_add(op):
            inner.append(op)
            return all(self._collect(v.owner, block, leaves, inner, False) for v in op.operands[:2] if isinstance(v.owner, Operation)) and all(
                isinstance(v.owner, Operation) for v in op.operands[:2]
            )
        if isinstance(op, NodeOp) and op.kind.data == "aten::mm" and len(op.operands) == 2:
            leaves.append(op)
            return True
        return False

    @staticmethod
    def _rewrite(root: Operation, leaves: list[NodeOp], inner: list[Operation]) -> None:
        sizes = {
            tuple(d.data for d in t.sizes.data)
            for t in (leaf.results[0].type for leaf in leaves)
            if isinstance(t, TSTensorType) and isinstance(t.sizes, ArrayAttr)
        }
        if len(sizes) > 1:
            return
        block = root.parent_block()
        assert block is not None
        tensor_list = TSListType(TSTensorType())
        lhs = ListConstructOp.make([leaf.operands[0] for leaf in leaves], [tensor_list])
        rhs = ListConstructOp.make([leaf.operands[1] for leaf in leaves], [tensor_list])
        one, zero = make_int_constant(1), make_int_constant(0)
        cat_l = NodeOp("aten::cat", [lhs.results[0], one.results[0]], [TSTensorType()])
        cat_r = NodeOp("aten::cat", [rhs.results[0], zero.results[0]], [TSTensorType()])
        mm = NodeOp("aten::mm", [cat_l.results[0], cat_r.results[0]], [root.results[0].type])
        block.insert_ops_before([lhs, rhs, one, zero, cat_l, cat_r, mm], root)
        root.results[0].replace_all_uses_with(mm.results[0])
        for o in [*inner, *leaves]:
            o.detach()
        for o in [*inner, *leaves]:
            o.erase(safe_erase=False)
