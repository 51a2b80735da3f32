"""
`lower-tuples`: part of TorchScript's `LowerAllTuples` (torch's
`_jit_pass_lower_all_tuples`) on `ts.method` graphs.

- `prim.TupleUnpack` / `prim.TupleIndex` (constant index) of a
  `prim.TupleConstruct` become the construct's elements;
- a tuple-typed output of a `prim.If` is flattened: each branch yields the
  elements (unpacking the tuple it yielded) and the `if` gets one result per
  element, repacked after it, so later unpacks fold by the first rule;
- tuples left without uses are erased.

Not yet done (torch does them): tuple-typed loop-carried values and method
inputs, which change a block's or the graph's signature.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.passes import ModulePass

from xdsl_exir.dialects.prim import IfOp, ReturnOp, TupleConstructOp, TupleIndexOp, TupleUnpackOp
from xdsl_exir.dialects.ts import TSTupleType, is_subtype
from xdsl_exir.transforms.unroll_loops import int_constant

__all__ = ["LowerTuplesPass"]


def _elements(value: SSAValue) -> list[SSAValue] | None:
    owner = value.owner
    return list(owner.operands) if isinstance(owner, TupleConstructOp) else None


def _replace(op: Operation, values: list[SSAValue]) -> bool:
    if len(values) != len(op.results) or not all(is_subtype(v.type, r.type) for v, r in zip(values, op.results)):
        return False
    for r, v in zip(op.results, values):
        r.replace_all_uses_with(v)
    op.detach()
    op.erase()
    return True


@dataclass(frozen=True)
class LowerTuplesPass(ModulePass):
    """Remove tuple construct/unpack pairs and tuple-typed `if` outputs."""

    name = "lower-tuples"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for o in list(op.walk()):
            if isinstance(o, IfOp) and any(isinstance(r.type, TSTupleType) for r in o.results):
                _flatten_if(o)
        changed = True
        while changed:
            changed = False
            for o in list(op.walk()):
                if o.parent is None:
                    continue
                if isinstance(o, TupleUnpackOp) and (elems := _elements(o.operands[0])) is not None:
                    changed |= _replace(o, elems)
                elif isinstance(o, TupleIndexOp) and (elems := _elements(o.operands[0])) is not None:
                    i = int_constant(o.operands[1])
                    if i is not None and -len(elems) <= i < len(elems):
                        changed |= _replace(o, [elems[i]])
        for o in reversed(list(op.walk())):
            if isinstance(o, TupleConstructOp) and not o.results[0].uses and o.parent is not None:
                o.detach()
                o.erase()


def _flatten_if(op: IfOp) -> None:
    """Give `op` one result per element of each tuple result (one level; the pass repeats per if)."""
    new_types: list[Attribute] = []
    for r in op.results:
        new_types.extend(r.type.element_types if isinstance(r.type, TSTupleType) else [r.type])
    for region in op.regions:
        ret = region.block.last_op
        assert isinstance(ret, ReturnOp)
        values: list[SSAValue] = []
        for v, r in zip(ret.operands, op.results):
            if isinstance(r.type, TSTupleType):
                unpack = TupleUnpackOp.make([v], list(r.type.element_types))
                region.block.insert_op_before(unpack, ret)
                values.extend(unpack.results)
            else:
                values.append(v)
        ret.operands = values
    block = op.parent_block()
    assert block is not None
    regions = [op.detach_region(r) for r in list(op.regions)]
    new = IfOp.make(list(op.operands), new_types, dict(op.properties), regions=regions)
    block.insert_op_before(new, op)
    results = iter(new.results)
    replacements: list[SSAValue] = []
    after: Operation = new
    for r in op.results:
        if isinstance(r.type, TSTupleType):
            elems = [next(results) for _ in r.type.element_types]
            pack = TupleConstructOp.make(elems, [r.type])
            block.insert_op_after(pack, after)
            after = pack
            replacements.append(pack.results[0])
        else:
            replacements.append(next(results))
    for r, v in zip(op.results, replacements):
        r.replace_all_uses_with(v)
    op.detach()
    op.erase()
