"""
The upstream-dialect form of a program (func, arith, math, tensor, linalg,
scf: what `convert-exir-to-linalg` emits for IREE) run on numpy, inside
xDSL's own `Interpreter`.

Without IREE, this is how the lowering is checked numerically: the lowered
module runs here and is compared with the exir interpreter. xDSL's stock
functions for these dialects hold tensors as `ShapedArray`s and run
`linalg.generic` one element at a time in Python; these hold tensors as numpy
arrays and evaluate a `linalg` body once over whole arrays (see
`upstream.linalg`). The value conventions are in `upstream.values`.

    interpreter = make_interpreter(module)   # for modules that mix dialects
    outputs = run_lowered(module, [x, w])    # or just run func.func @forward

Users mixing in other dialects register their functions on the interpreter
from `make_interpreter`; ours override xDSL's stock ones for the same ops.
xDSL's `func` and `scf` functions are kept: they already work on these values
(a numpy bool is a condition, a Python int a bound).

What xDSL 0.74 does not define, so a lowering must not emit it: `arith.remf`,
`arith.index_castui`; `math.erfc/isnan/isinf/isfinite`; `tensor.generate`,
`tensor.bitcast`; `linalg.map`, `batch_matmul`, `div`, `abs` and the other
named ops beyond generic, fill, copy, transpose, broadcast, reduce, matmul,
quantized_matmul, add/sub/mul/max/min/exp/log/sqrt/select, pooling_nchw_max
and the six conv_2d layouts. Its `arith.cmpf`/`cmpi` are typed `i1` even on
tensors and `arith.select` only takes an `i1` condition, so elementwise
comparisons and selects belong inside a `linalg.generic` body. (Its hidden
region of `linalg.pooling_nchw_max` ignores the accumulator; this interpreter
computes the op as MLIR defines it.)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter
from xdsl.interpreters.func import FuncFunctions
from xdsl.interpreters.scf import ScfFunctions
from xdsl.traits import SymbolTable

from xdsl_exir.interpreters.upstream.arith import ArithFunctions
from xdsl_exir.interpreters.upstream.linalg import LinalgFunctions, run_structured
from xdsl_exir.interpreters.upstream.math import MathFunctions
from xdsl_exir.interpreters.upstream.tensor import TensorFunctions
from xdsl_exir.interpreters.upstream.values import convert_argument, numpy_dtype

__all__ = [
    "ArithFunctions",
    "LinalgFunctions",
    "MathFunctions",
    "TensorFunctions",
    "make_interpreter",
    "run_lowered",
    "run_structured",
]


def make_interpreter(module: ModuleOp) -> Interpreter:
    """An `Interpreter` over `module` with func, scf, arith, math, tensor and linalg on numpy."""
    interpreter = Interpreter(module)
    interpreter.register_implementations(FuncFunctions())
    interpreter.register_implementations(ScfFunctions())
    for functions in (ArithFunctions(), MathFunctions(), TensorFunctions(), LinalgFunctions()):
        interpreter.register_implementations(functions, override=True)
    return interpreter


def run_lowered(
    module: ModuleOp, args: Sequence[np.ndarray | int | float | bool], entry: str = "forward"
) -> list[np.ndarray]:
    """
    Run func.func @entry of an upstream-dialect module on numpy values.

    Arguments are converted to the function's input types (a tensor's static
    sizes are checked); results come back as fresh arrays, scalars as 0-d
    arrays, bf16 as float32 arrays holding bf16 values.
    """
    target = SymbolTable.lookup_symbol(module, entry)
    if not isinstance(target, func.FuncOp):
        raise ValueError(f"the module has no func.func @{entry}")
    inputs = target.function_type.inputs.data
    if len(args) != len(inputs):
        raise ValueError(f"@{entry} takes {len(inputs)} arguments, {len(args)} were given")
    values = tuple(convert_argument(a, t) for a, t in zip(args, inputs))
    with np.errstate(all="ignore"):  # inf, nan and wrap-around are values here, not errors
        results = make_interpreter(module).call_op(target, values)
    outputs = target.function_type.outputs.data
    return [np.array(r, dtype=numpy_dtype(t), copy=True) for r, t in zip(results, outputs)]
