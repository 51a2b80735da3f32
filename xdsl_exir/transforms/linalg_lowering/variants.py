"""
`out=` overloads that torch 2.13 tags core (only `atan2.out`): on value
tensors the result is the functional op's value. The `out` tensor itself is
not written, so the rule refuses a program that reads `out` after the op
(which a functionalized program never does: it reads the op's result).
"""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers, rule_for
from xdsl_exir.transforms.linalg_lowering.state import LoweringState


def _read_after(value: SSAValue, op: Operation) -> bool:
    """Whether an op other than `op` uses `value` after it (or somewhere the order is unknown)."""
    block = op.parent_block()
    for use in value.uses:
        user = use.operation
        if user is op:
            continue
        if block is None or user.parent_block() is not block or block.get_operation_index(user) > block.get_operation_index(op):
            return True
    return False


@lowers("aten.atan2.out", note="refused when the out tensor is read after the op")
def _atan2_out(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = b.value("out")
    if _read_after(out, op):
        raise st.error(
            "atan2.out: the out tensor is read after the op, and value tensors cannot be written in place; "
            "run functionalize first, or use the op's result"
        )
    functional = rule_for("aten.atan2.default")
    if functional is None:
        raise st.error("atan2.out: no rule for atan2")
    return list(functional(st, op, b))
