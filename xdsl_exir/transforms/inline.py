"""
`inline`: TorchScript's `_jit_pass_inline` and the undoing of the graph
executor's groups.

* `calls`: a `prim.CallMethod` whose object type names a `ts.module` of the
  input is replaced by a copy of that method's graph (the object is its
  `self`), and a `prim.CallFunction` of a `prim.Constant[name=...]` by the
  top-level `ts.method` of that name; inlined bodies are inlined again, so the
  result has no calls left that the input can resolve (`m.inlined_graph`).
* `FusionGroup`, `TensorExprGroup`, `DifferentiableGraph`: the node's
  subgraph replaces the node.

Option `kinds` (comma-separated, default all of the above) selects what is
inlined. Calls to methods or functions the input does not contain stay.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.utils.exceptions import PassFailedException

from xdsl_exir.dialects import prim
from xdsl_exir.dialects.ts import MethodOp, ScriptModuleOp, TSClassType

_ALL_KINDS = ("calls", "FusionGroup", "TensorExprGroup", "DifferentiableGraph")
_MAX_ROUNDS = 64


def _inline_block(op: Operation, block: Block, args: list[SSAValue]) -> None:
    """Replace `op` by a copy of `block` applied to `args` (its `prim.Return` gives the results)."""
    region = block.parent
    assert region is not None
    body = region.clone().detach_block(0)
    Rewriter.inline_block(body, InsertPoint.before(op), args)
    ret = op.prev_op
    assert ret is not None and ret.name == "prim.Return"
    values = list(ret.operands)
    Rewriter.erase_op(ret)
    Rewriter.replace_op(op, [], values[: len(op.results)])


def _callee(op: Operation, classes: dict[str, ScriptModuleOp], functions: dict[str, MethodOp]) -> Block | None:
    if isinstance(op, prim.CallMethodOp):
        t = op.operands[0].type
        if not isinstance(t, TSClassType):
            return None
        module = classes.get(t.qualname.data if hasattr(t.qualname, "data") else str(t.qualname))
        method = module.method(op.method.data) if module is not None else None
        return method.body.block if method is not None else None
    if isinstance(op, prim.CallFunctionOp):
        fn = op.operands[0].owner
        if not isinstance(fn, prim.ConstantOp) or fn.fn_name is None:
            return None
        name = fn.fn_name.data
        method = functions.get(name) or functions.get(name.rsplit(".", 1)[-1])
        return method.body.block if method is not None else None
    return None


@dataclass(frozen=True)
class InlinePass(ModulePass):
    """Inline calls and subgraph groups (see the module docstring)."""

    name = "inline"

    kinds: str = ",".join(_ALL_KINDS)
    """Comma-separated subset of: calls, FusionGroup, TensorExprGroup, DifferentiableGraph."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        kinds = {k.strip() for k in self.kinds.split(",") if k.strip()}
        unknown = kinds - set(_ALL_KINDS)
        if unknown:
            raise PassFailedException(
                f"inline: unknown kind(s) {', '.join(sorted(unknown))} in kinds=; "
                f"expected a comma-separated subset of {', '.join(_ALL_KINDS)}"
            )
        groups = tuple(
            cls
            for name, cls in (
                ("FusionGroup", prim.FusionGroupOp),
                ("TensorExprGroup", prim.TensorExprGroupOp),
                ("DifferentiableGraph", prim.DifferentiableGraphOp),
            )
            if name in kinds
        )
        classes = {m.class_name.data: m for m in op.walk() if isinstance(m, ScriptModuleOp)}
        functions = {
            m.sym_name.data: m for m in op.body.block.ops if isinstance(m, MethodOp)
        }
        for _ in range(_MAX_ROUNDS):
            changed = False
            for o in list(op.walk()):
                if o.parent is None:
                    continue
                if groups and isinstance(o, groups):
                    _inline_block(o, o.regions[0].block, list(o.operands))
                    changed = True
                elif "calls" in kinds and isinstance(o, prim.CallMethodOp | prim.CallFunctionOp):
                    body = _callee(o, classes, functions)
                    if body is None or o.parent_op() is body.parent_op():
                        continue
                    args = list(o.operands) if isinstance(o, prim.CallMethodOp) else list(o.operands[1:])
                    if len(args) != len(body.args):
                        continue
                    _inline_block(o, body, args)
                    changed = True
            if not changed:
                return
        raise PassFailedException(
            f"inline: calls still left after {_MAX_ROUNDS} rounds; the program is recursive"
        )


