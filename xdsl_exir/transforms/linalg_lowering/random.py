"""
The random operators the lowering accepts: `native_dropout` in evaluation, where it draws
nothing; a dropout that draws is refused, as every other sampler is.
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.state import (
    LoweringState,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)


@lowers("aten.native_dropout.default", note="train=True refused: its mask comes from torch's random generator")
def _native_dropout(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    """In evaluation (`train` False or None) dropout is the identity and its mask all true, as torch's kernel gives."""
    if b.get("train"):
        raise st.error(
            "native_dropout with train=True draws its mask from torch's random generator, which native code "
            "cannot reproduce; export the model in eval() mode"
        )
    return [st.tensor(b["input"]), st.filled(_result(op, 1), True)]
