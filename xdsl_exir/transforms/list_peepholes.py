"""
`list-peepholes`: TorchScript's `PeepholeOptimizeListIdioms` (torch's
`_jit_pass_peephole_list_idioms`) on `ts.method` graphs.

For a list built by `prim.ListConstruct` that is never mutated:

- `aten::len(l)` becomes a constant;
- `aten::__getitem__(l, c)` with a constant index in range becomes the element;
- `prim.ListUnpack(l)` becomes the elements;
- `aten::add(l1, l2)` of two such lists becomes one `prim.ListConstruct`.

A list counts as unmutated when every use is one of the read-only kinds
below; any other use (`aten::append`, `aten::_set_item`, a method call, a
loop carrying it, ...) may write it, so the list is left alone. Lists that
end up unused are erased.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.passes import ModulePass

from xdsl_exir.dialects.prim import ListConstructOp, ListUnpackOp, ReturnOp
from xdsl_exir.dialects.ts import ListType, NodeOp, is_subtype
from xdsl_exir.transforms.unroll_loops import int_constant, make_int_constant

__all__ = ["ListPeepholesPass", "READ_ONLY_USES"]

READ_ONLY_USES = frozenset(
    {
        "aten::len",
        "aten::__getitem__",
        "aten::add",
        "aten::cat",
        "aten::stack",
        "aten::__contains__",
        "aten::list",
        "aten::eq",
        "aten::ne",
        "aten::format",
        "aten::sum",
        "prim::ListUnpack",
    }
)
"""Node kinds that read a list argument without writing it or letting it escape."""


def _unmutated_elements(value: SSAValue) -> list[SSAValue] | None:
    """The elements of a `prim.ListConstruct` list no use may write, else None."""
    owner = value.owner
    if not isinstance(owner, ListConstructOp):
        return None
    for use in value.uses:
        user = use.operation
        if isinstance(user, ListUnpackOp | ReturnOp) and user.parent_block() is owner.parent_block():
            continue  # a return ends the graph or block; nothing after it reads the list here
        if isinstance(user, NodeOp) and user.kind.data in READ_ONLY_USES:
            continue
        return None
    return list(owner.operands)


@dataclass(frozen=True)
class ListPeepholesPass(ModulePass):
    """Fold len / constant indexing / unpacking / concatenation of unmutated list literals."""

    name = "list-peepholes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        changed = True
        while changed:
            changed = False
            for o in list(op.walk()):
                if o.parent is None:
                    continue
                changed |= _rewrite(o)
        for o in reversed(list(op.walk())):
            if isinstance(o, ListConstructOp) and not o.results[0].uses and o.parent is not None:
                o.detach()
                o.erase()


def _replace(op: Operation, values: list[SSAValue]) -> bool:
    for r, v in zip(op.results, values):
        if not is_subtype(v.type, r.type):
            return False
    for r, v in zip(op.results, values):
        r.replace_all_uses_with(v)
    op.detach()
    op.erase()
    return True


def _rewrite(op: Operation) -> bool:
    if isinstance(op, ListUnpackOp):
        elems = _unmutated_elements(op.operands[0])
        return elems is not None and len(elems) == len(op.results) and _replace(op, elems)
    if not isinstance(op, NodeOp) or not op.operands:
        return False
    kind = op.kind.data
    elems = _unmutated_elements(op.operands[0])
    if elems is None:
        return False
    if kind == "aten::len" and len(op.operands) == 1:
        const = make_int_constant(len(elems))
        assert op.parent is not None
        op.parent.insert_op_before(const, op)
        return _replace(op, [const.results[0]])
    if kind == "aten::__getitem__" and len(op.operands) == 2:
        index = int_constant(op.operands[1])
        if index is None or not -len(elems) <= index < len(elems):
            return False
        return _replace(op, [elems[index]])
    if kind == "aten::add" and len(op.operands) == 2 and isinstance(op.results[0].type, ListType):
        other = _unmutated_elements(op.operands[1])
        if other is None:
            return False
        new = ListConstructOp.make([*elems, *other], [op.results[0].type])
        assert op.parent is not None
        op.parent.insert_op_before(new, op)
        return _replace(op, [new.results[0]])
    return False


