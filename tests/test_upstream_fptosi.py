"""
`arith.fptosi` on NaN, infinities and out-of-range values: MLIR calls these
poison; the upstream interpreter gives what torch's CPU cast gives, so a
lowered `aten._to_copy` to an integer dtype agrees with eager.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from xdsl.builder import ImplicitBuilder
from xdsl.dialects import arith, func
from xdsl.dialects.builtin import Float32Type, Float64Type, FunctionType, IntegerType, ModuleOp
from xdsl.ir import Block, Region

from xdsl_exir.interpreters.upstream import run_lowered

EDGES = [float("nan"), float("inf"), -float("inf"), 1e30, -1e30, 3e9, -3e9, 2.0**31, -(2.0**31), 2.0**63,
         -(2.0**63), 40000.0, -40000.0, 200.5, 2.7, -2.7, -0.0, 0.0]  # fmt: skip


@pytest.mark.parametrize("bits", [8, 16, 32, 64])
@pytest.mark.parametrize("fbits", [32, 64])
def test_fptosi_matches_torch_cast(bits: int, fbits: int) -> None:
    ftype = Float32Type() if fbits == 32 else Float64Type()
    block = Block(arg_types=[ftype])
    with ImplicitBuilder(block) as (x,):
        func.ReturnOp(arith.FPToSIOp(x, IntegerType(bits)).result)
    fn = func.FuncOp("forward", FunctionType.from_lists([ftype], [IntegerType(bits)]), Region(block))
    module = ModuleOp([fn])
    module.verify()
    fdtype = torch.float32 if fbits == 32 else torch.float64
    idtype = {8: torch.int8, 16: torch.int16, 32: torch.int32, 64: torch.int64}[bits]
    npf = np.float32 if fbits == 32 else np.float64
    for v in EDGES:
        expected = int(torch.tensor([v], dtype=fdtype).to(idtype)[0])
        (got,) = run_lowered(module, [npf(v)])
        assert int(got) == expected, (v, bits, fbits)
