"""
The convolution, pooling, normalisation and reduction rules of
`convert-exir-to-linalg` on small programs built in-process: every program is
lowered, run in xDSL's Interpreter on numpy (`interpreters.upstream`, on every
machine) and, when the `iree` extra is installed, compiled by IREE and run
natively; both must equal our numpy interpreter (`ProgramRunner`) on the same
inputs. The cases cover strides, padding, dilation, groups (depthwise too),
ceil_mode, keepdim, negative dims, ties, a dynamic batch dim `s0`, int and
float16 inputs; ops are grouped several to a program to keep IREE compiles few.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
import sympy
from iree_compiles import ProgramBatch
from test_decompose import program
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import build
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import iree_available, lower_to_upstream, print_mlir
from xdsl_exir.utils.diagnostics import ExirDiagnostic

S0 = sympy.Symbol("s0")
F32, F16, I32, I64, BOOL = DType.float32, DType.float16, DType.int32, DType.int64, DType.bool

Add = Callable[[Operation], Operation]
Body = Callable[..., list[SSAValue]]
Step = Callable[[Add, SSAValue], SSAValue]


class _In:
    """Placeholder for the program's `index`-th input in an op's arguments."""

    def __init__(self, index: int) -> None:
        self.index = index


X, Y, Z, W, V = (_In(i) for i in range(5))


def op(name: str, *args: object, outs: Sequence[int] | None = None, **kwargs: object) -> Body:
    """A body making one op on the inputs; its results (or those at `outs`) are outputs."""

    def body(add: Add, *xs: SSAValue) -> list[SSAValue]:
        real = [xs[a.index] if isinstance(a, _In) else a for a in args]
        made = add(build(name, *real, **kwargs))
        results = list(made.results)
        return results if outs is None else [results[i] for i in outs]

    return body


def then(name: str, *args: object, **kwargs: object) -> Step:
    """A body applying `name` to the previous body's first output (`X` stands for it)."""

    def body(add: Add, prev: SSAValue) -> SSAValue:
        real = [prev if a is X else a for a in args]
        return add(build(name, *real, **kwargs)).results[0]

    return body


def chain(first: Body, *rest: Step) -> Body:
    def body(add: Add, *xs: SSAValue) -> list[SSAValue]:
        v = first(add, *xs)[0]
        for step in rest:
            v = step(add, v)
        return [v]

    return body


def together(*bodies: Body) -> Body:
    """Several bodies on the same inputs, their outputs concatenated (one compile for all)."""

    def body(add: Add, *xs: SSAValue) -> list[SSAValue]:
        return [v for b in bodies for v in b(add, *xs)]

    return body


@dataclass
class Case:
    id: str
    inputs: list[tuple[TensorType, tuple[int, ...]]]
    """Each input's type and the concrete shape it is run with."""
    body: Body
    ties: bool = False
    """Draw small integers, so that maxima tie and the first index must win."""
    rtol: float = 1e-5
    atol: float = 1e-6
    why: str = ""
    """The reason for a tolerance looser than the default."""

    def module(self) -> ModuleOp:
        m = program([t for t, _ in self.inputs], self.body)
        m.verify()
        return m

    def arrays(self, seed: int = 0) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        out: list[np.ndarray] = []
        for t, shape in self.inputs:
            dt = t.element_dtype
            if dt is BOOL:
                out.append(rng.random(shape) < 0.3)
            elif not dt.is_floating_point:
                out.append(rng.integers(-3, 4, shape).astype(np.int32 if dt is I32 else np.int64))
            elif self.ties:
                out.append(rng.integers(-2, 3, shape).astype(np.float32))
            else:
                out.append(rng.standard_normal(shape).astype(np.float16 if dt is F16 else np.float32))
        return out


def t(dtype: DType, *sizes: object) -> TensorType:
    return TensorType(list(sizes), dtype)


def f32(*sizes: object) -> TensorType:
    return t(F32, *sizes)


CONV_ACCUMULATION = "sums of 27 to 54 products reassociated by IREE's tiling: 1e-6 absolute is below their rounding noise near 0"

CASES = [
    Case(
        "conv_bias_relu_and_strided_dilated",
        [(f32(S0, 3, 9, 9), (2, 3, 9, 9)), (f32(4, 3, 3, 3), (4, 3, 3, 3)), (f32(4), (4,)), (f32(4, 3, 3, 2), (4, 3, 3, 2))],
        together(
            chain(op("aten.convolution.default", X, Y, Z, [1, 1], [1, 1], [1, 1], False, [0, 0], 1), then("aten.relu.default", X)),
            op("aten.convolution.default", X, W, None, [2, 1], [0, 1], [2, 1], False, [0, 0], 1),
        ),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "conv_groups_depthwise_multiplier",
        [(f32(2, 6, 8, 8), (2, 6, 8, 8)), (f32(4, 3, 3, 3), (4, 3, 3, 3)), (f32(4), (4,)), (f32(6, 1, 3, 3), (6, 1, 3, 3)), (f32(12, 1, 3, 3), (12, 1, 3, 3))],
        together(
            op("aten.convolution.default", X, Y, Z, [1, 1], [1, 1], [1, 1], False, [0, 0], 2),
            op("aten.convolution.default", X, W, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 6),
            op("aten.convolution.default", X, V, None, [1, 1], [2, 2], [2, 2], False, [0, 0], 6),
        ),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "conv1d_and_unbatched",
        [(f32(S0, 3, 11), (2, 3, 11)), (f32(4, 3, 3), (4, 3, 3)), (f32(4), (4,)), (f32(3, 7, 7), (3, 7, 7)), (f32(5, 3, 2, 3), (5, 3, 2, 3))],
        together(
            op("aten.convolution.default", X, Y, Z, [2], [1], [1], False, [0], 1),
            op("aten.convolution.default", W, V, None, [1, 2], [1, 0], [1, 1], False, [0, 0], 1),
        ),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "conv_transposed",
        [(f32(S0, 4, 5, 5), (2, 4, 5, 5)), (f32(4, 3, 3, 3), (4, 3, 3, 3)), (f32(3), (3,)), (f32(4, 2, 3, 2), (4, 2, 3, 2)), (f32(4, 1, 3, 3), (4, 1, 3, 3))],
        together(
            op("aten.convolution.default", X, Y, Z, [2, 2], [1, 1], [1, 1], True, [1, 0], 1),
            op("aten.convolution.default", X, Y, None, [1, 1], [0, 1], [2, 1], True, [0, 0], 1),
            op("aten.convolution.default", X, W, None, [2, 1], [1, 0], [1, 1], True, [0, 0], 2),
            op("aten.convolution.default", X, V, None, [2, 2], [0, 0], [1, 1], True, [1, 1], 4),
        ),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "conv_transposed_1d",
        [(f32(2, 4, 7), (2, 4, 7)), (f32(4, 3, 3), (4, 3, 3)), (f32(3), (3,))],
        op("aten.convolution.default", X, Y, Z, [3], [1], [2], True, [2], 1),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "conv3d_groups_depthwise_stride_padding_dilation",
        [(f32(S0, 4, 5, 6, 7), (2, 4, 5, 6, 7)), (f32(6, 2, 3, 3, 3), (6, 2, 3, 3, 3)), (f32(6), (6,)), (f32(4, 1, 2, 3, 2), (4, 1, 2, 3, 2)), (f32(3, 4, 1, 2, 3), (3, 4, 1, 2, 3))],
        together(
            op("aten.convolution.default", X, Y, Z, [1, 2, 1], [1, 0, 2], [1, 1, 2], False, [0, 0, 0], 2),
            op("aten.convolution.default", X, W, None, [2, 1, 2], [0, 1, 1], [2, 1, 1], False, [0, 0, 0], 4),
            op("aten.convolution.default", X, V, None, [1, 1, 1], [0, 0, 0], [1, 1, 1], False, [0, 0, 0], 1),
        ),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "conv3d_transposed_and_unbatched",
        [(f32(2, 4, 3, 4, 3), (2, 4, 3, 4, 3)), (f32(4, 3, 2, 3, 2), (4, 3, 2, 3, 2)), (f32(3), (3,)), (f32(4, 2, 3, 2, 2), (4, 2, 3, 2, 2)), (f32(4, 3, 4, 5), (4, 3, 4, 5))],
        together(
            op("aten.convolution.default", X, Y, Z, [2, 1, 2], [0, 1, 1], [1, 1, 1], True, [1, 0, 0], 1),
            op("aten.convolution.default", X, W, None, [1, 2, 1], [1, 0, 0], [1, 1, 2], True, [0, 1, 0], 2),
            op("aten.convolution.default", V, Y, Z, [1, 2, 1], [1, 1, 0], [1, 1, 1], True, [0, 1, 0], 1),
        ),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        # no torch conv4d: the interpreter's convolution is N-d, the lowering recurses to 2-D
        "conv4d_groups_stride_padding",
        [(f32(2, 4, 3, 4, 5, 4), (2, 4, 3, 4, 5, 4)), (f32(6, 2, 2, 3, 2, 3), (6, 2, 2, 3, 2, 3))],
        op("aten.convolution.default", X, Y, None, [1, 1, 2, 1], [1, 0, 1, 1], [1, 1, 1, 1], False, [0, 0, 0, 0], 2),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "conv3d_float16",
        [(t(F16, 1, 3, 4, 5, 5), (1, 3, 4, 5, 5)), (t(F16, 4, 3, 2, 3, 3), (4, 3, 2, 3, 3)), (t(F16, 4), (4,))],
        op("aten.convolution.default", X, Y, Z, [1, 2, 2], [1, 1, 1], [1, 1, 1], False, [0, 0, 0], 1),
        rtol=1e-3, atol=1e-3, why="float16 results: one rounding of a float16 ulp (2**-11) may differ",
    ),
    Case(
        "pool3d_max_indices_avg_padding_ceil",
        [(f32(S0, 2, 5, 6, 7), (2, 2, 5, 6, 7))],
        together(
            op("aten.max_pool3d_with_indices.default", X, [2, 3, 2], [2, 2, 1], [1, 1, 0], [1, 1, 2], True),
            op("aten.max_pool3d_with_indices.default", X, [2, 2, 2], [], outs=[0]),
            op("aten.avg_pool3d.default", X, [3, 2, 3], [2, 2, 2], [1, 0, 1], True, False),
            op("aten.avg_pool3d.default", X, [3, 3, 2], [1, 2, 2], [1, 1, 1], False, True),
            op("aten.avg_pool3d.default", X, [2, 2, 2], [2, 2, 2], [0, 0, 0], False, True, 3),
        ),
    ),
    Case(
        "adaptive_avg_pool_uneven_windows",
        [(f32(S0, 3, 5, 7, 6), (2, 3, 5, 7, 6)), (f32(2, 3, 5, 7), (2, 3, 5, 7)), (f32(2, 3, 7), (2, 3, 7))],
        together(
            op("aten._adaptive_avg_pool3d.default", X, [2, 3, 4]),
            op("aten._adaptive_avg_pool3d.default", X, [5, 1, 6]),
            op("aten._adaptive_avg_pool2d.default", Y, [3, 3]),
            op("aten.adaptive_avg_pool1d.default", Z, [3]),
        ),
    ),
    Case(
        # IREE folds a unit output dim into the window dim, which must then
        # match the input's size: the input is cropped to what the windows read
        "unit_outputs_read_an_exact_input",
        [(f32(1, 4, 2, 2), (1, 4, 2, 2)), (f32(6, 4, 3, 3), (6, 4, 3, 3)), (f32(4, 1, 3, 3), (4, 1, 3, 3)), (f32(1, 4, 3, 3), (1, 4, 3, 3))],
        together(
            op("aten.convolution.default", X, Y, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1),
            op("aten.convolution.default", X, Z, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 4),
            op("aten.max_pool2d_with_indices.default", W, [2, 2], [2, 2], outs=[0]),
            op("aten.max_pool2d_with_indices.default", W, [2, 2], [2, 2]),
            op("aten.avg_pool2d.default", W, [2, 2], [2, 2]),
        ),
        atol=1e-5, why=CONV_ACCUMULATION,
    ),
    Case(
        "max_pool_values_indices_ceil_unbatched",
        [(f32(S0, 3, 9, 9), (2, 3, 9, 9)), (f32(3, 7, 8), (3, 7, 8))],
        together(
            op("aten.max_pool2d_with_indices.default", X, [3, 3], [2, 2], [1, 1], outs=[0]),
            op("aten.max_pool2d_with_indices.default", X, [3, 3], [2, 2], [1, 1], [1, 1], True),
            op("aten.max_pool2d_with_indices.default", X, [2, 3], [2, 2], [0, 1], [2, 1], True),
            op("aten.max_pool2d_with_indices.default", Y, [2, 2], [], [0, 0], outs=[0]),
        ),
    ),
    Case(
        "max_pool_ties_take_the_first_index",
        [(f32(1, 2, 8, 8), (1, 2, 8, 8))],
        op("aten.max_pool2d_with_indices.default", X, [3, 3], [1, 1], [1, 1]),
        ties=True,
    ),
    Case(
        "avg_pool_counts_and_divisors",
        [(f32(S0, 3, 9, 9), (2, 3, 9, 9))],
        together(
            op("aten.avg_pool2d.default", X, [3, 3], [2, 2], [1, 1], True, False),
            op("aten.avg_pool2d.default", X, [3, 3], [2, 2], [1, 1], True, True),
            op("aten.avg_pool2d.default", X, [2, 2]),
            op("aten.avg_pool2d.default", X, [3, 2], [2, 2], [1, 0], False, True, 5),
        ),
    ),
    Case(
        "adaptive_avg_pool_uniform_and_global",
        [(f32(S0, 3, 8, 6), (2, 3, 8, 6))],
        together(
            op("aten._adaptive_avg_pool2d.default", X, [4, 3]),
            op("aten._adaptive_avg_pool2d.default", X, [1, 1]),
        ),
    ),
    Case(
        "batch_norm_inference",
        [(f32(S0, 3, 5, 5), (2, 3, 5, 5)), (f32(3), (3,)), (f32(3), (3,)), (f32(3), (3,)), (f32(3), (3,))],
        together(
            op("aten._native_batch_norm_legit_no_training.default", X, Y, Z, W, V, 0.1, 1e-5, outs=[0, 1, 2]),
            op("aten._native_batch_norm_legit_no_training.default", X, None, None, W, V, 0.1, 1e-3, outs=[0]),
        ),
    ),
    Case(
        "pool_1d",
        [(f32(S0, 3, 12), (2, 3, 12)), (f32(3, 7), (3, 7))],
        together(
            op("aten.avg_pool1d.default", X, [3], [2], [1], True, False),
            op("aten.avg_pool1d.default", Y, [2]),
            op("aten.adaptive_avg_pool1d.default", X, [4]),
            op("aten.adaptive_avg_pool1d.default", X, [1]),
        ),
    ),
    Case(
        "batch_norm_training_statistics",
        [(f32(4, 3, 5, 5), (4, 3, 5, 5)), (f32(3), (3,)), (f32(3), (3,)), (f32(3), (3,)), (f32(3), (3,))],
        together(
            op("aten._native_batch_norm_legit.no_stats", X, Y, Z, True, 0.1, 1e-5),
            op("aten._native_batch_norm_legit.default", X, None, None, W, V, False, 0.1, 1e-5, outs=[0]),
        ),
    ),
    Case(
        "sum_mean_prod",
        [(f32(S0, 5, 6), (3, 5, 6))],
        together(
            op("aten.sum.dim_IntList", X, [-1, 0], True),
            op("aten.sum.default", X),
            op("aten.mean.dim", X, [1]),
            op("aten.mean.dim", X, [0, 2], True),
            op("aten.mean.default", X),
            op("aten.prod.dim_int", X, -2),
        ),
    ),
    Case(
        "max_min_arg_with_ties",
        [(f32(S0, 5, 6), (3, 5, 6))],
        together(
            op("aten.amax.default", X, [1], True),
            op("aten.amin.default", X),
            op("aten.max.dim", X, -1),
            op("aten.min.dim", X, 0, True),
            op("aten.argmax.default", X),
            op("aten.argmin.default", X, 1, True),
            op("aten.argmax.default", X, None, True),
        ),
        ties=True,
    ),
    Case(
        "var_and_var_mean",
        [(f32(S0, 5, 6), (3, 5, 6))],
        together(
            op("aten.var.correction", X, [1], correction=0, keepdim=True),
            op("aten.var_mean.correction", X),
            op("aten.var.correction", X, [0, -1], correction=2),
            op("aten.var.dim", X, [2], False, True),
        ),
    ),
    Case(
        "softmax_and_norms",
        [(f32(S0, 6, 4, 2), (3, 6, 4, 2)), (f32(4, 2), (4, 2)), (f32(4, 2), (4, 2))],
        together(
            op("aten._softmax.default", X, -1, False),
            op("aten._log_softmax.default", X, 1, False),
            op("aten.native_layer_norm.default", X, [4, 2], Y, Z, 1e-5),
            op("aten.native_layer_norm.default", X, [2], None, None, 1e-5),
        ),
    ),
    Case(
        "group_norm_and_cumsum",
        [(f32(3, 6, 4, 2), (3, 6, 4, 2)), (f32(6), (6,)), (f32(6), (6,))],
        together(
            op("aten.native_group_norm.default", X, Y, Z, 3, 6, 8, 3, 1e-5),
            op("aten.native_group_norm.default", X, None, None, 3, 6, 8, 2, 1e-5),
            op("aten.cumsum.default", X, -1),
        ),
    ),
    Case(
        "integer_and_bool_reductions",
        [(t(I32, S0, 4, 5), (3, 4, 5)), (t(BOOL, 3, 4), (3, 4)), (t(I32, 1, 2, 5, 5), (1, 2, 5, 5))],
        together(
            op("aten.max_pool2d_with_indices.default", Z, [3, 3], [2, 2], [1, 1], outs=[0]),
            op("aten.sum.dim_IntList", X, [1]),
            op("aten.prod.dim_int", X, 2, True),
            op("aten.cumsum.default", X, 0),
            op("aten.amax.default", X, [0, 2]),
            op("aten.argmax.default", X, -1),
            op("aten.max.dim", X, 1),
            op("aten.any.dims", Y, [1]),
            op("aten.all.dim", Y, 0, True),
            op("aten.any.default", Y),
            op("aten.sum.dim_IntList", Y, None),
        ),
    ),
    Case(
        "float16_accumulates_in_float32",
        [(t(F16, 4, 16), (4, 16)), (t(F16, 16), (16,)), (t(F16, 16), (16,)), (t(F16, 1, 3, 6, 6), (1, 3, 6, 6)), (t(F16, 2, 3, 3, 3), (2, 3, 3, 3))],
        together(
            op("aten.convolution.default", W, V, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1),
            op("aten.avg_pool2d.default", W, [2, 2]),
            op("aten.max_pool2d_with_indices.default", W, [2, 2], [2, 2]),
            op("aten.sum.dim_IntList", X, [1]),
            op("aten._softmax.default", X, -1, True),
            op("aten._softmax.default", X, -1, False),
            op("aten.native_layer_norm.default", X, [16], Y, Z, 1e-5),
            op("aten.mean.dim", X, [0]),
        ),
        rtol=1e-3, atol=1e-3, why="float16 results: one rounding of a float16 ulp (2**-11) may differ",
    ),
]


def _reference(case: Case, module: ModuleOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    return [np.asarray(o) for o in ProgramRunner(module).run([x.copy() for x in inputs])]


def _compare(got: Sequence[Any], want: Sequence[np.ndarray], case: Case, what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, expected {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, f"{what} out{i}: {g.dtype}{list(g.shape)} vs {w.dtype}{list(w.shape)}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=case.rtol, atol=case.atol, err_msg=f"{what} out{i}")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what} out{i}")


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_lowered_without_iree_equals_interpreter(case: Case) -> None:
    module = case.module()
    lowered = lower_to_upstream(module)
    inputs = case.arrays()
    _compare(run_lowered(lowered, inputs), _reference(case, module, inputs), case, f"{case.id} (upstream interpreter)")


NAN_CASE = Case(
    "nan",
    [(f32(3, 6), (3, 6))],
    together(
        op("aten.max.dim", X, 1), op("aten.amax.default", X, [1]), op("aten.argmin.default", X, 1),
        op("aten._softmax.default", X, 1, False),
    ),
)  # fmt: skip

IREE = ProgramBatch()
"""Every case's program lowered as it is (no `to-core-aten` first: the rules alone are under test),
compiled by IREE together (`tests/iree_compiles.py`), each run as its own function."""
for _case in [*CASES, NAN_CASE]:
    IREE.add(_case.id, _case.module)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_iree_equals_interpreter(case: Case) -> None:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    module = case.module()
    compiled = IREE.executor(case.id)
    for seed in (0, 1):
        inputs = case.arrays(seed)
        _compare(compiled(*[x.copy() for x in inputs]), _reference(case, module, inputs), case, f"{case.id} (IREE, seed {seed})")


def test_dynamic_batch_runs_at_other_sizes() -> None:
    """One lowering serves every batch size: the `s0` dim is a `?` read with tensor.dim."""
    case = CASES[0]
    module = case.module()
    lowered = lower_to_upstream(module)
    assert "tensor<?x3x9x9xf32>" in print_mlir(lowered)
    for n in (1, 4):
        rng = np.random.default_rng(n)
        inputs = [rng.standard_normal((n, *shape[1:]) if i == 0 else shape).astype(np.float32) for i, (_, shape) in enumerate(case.inputs)]
        _compare(run_lowered(lowered, inputs), _reference(case, module, inputs), case, f"batch {n}")


def test_unused_pool_indices_use_the_named_op() -> None:
    lowered = print_mlir(lower_to_upstream(next(c for c in CASES if c.id.startswith("max_pool_values")).module()))
    assert "linalg.pooling_nchw_max" in lowered


@pytest.mark.parametrize(
    ("inputs", "body", "message"),
    [
        ([f32(1, 2, 5, 5), f32(2, 3, 3, 3)], op("aten.convolution.default", X, Y, None, [1, 1], [3, 3], [1, 1], True, [0, 0], 1), "padding exceeds"),
        ([f32(1, 2, S0, 5, 5)], op("aten._adaptive_avg_pool3d.default", X, [2, 2, 2]), "only static windows"),
        ([f32(1, 2, S0, 5)], op("aten._adaptive_avg_pool2d.default", X, [3, 3]), "only static windows"),
        (
            [f32(2, 3, 4, 4), f32(3), f32(3)],
            op("aten._native_batch_norm_legit.default", X, None, None, Y, Z, True, 0.1, 1e-5),
            "updates running_mean and running_var in place",
        ),
    ],
    ids=["transposed", "adaptive3d_symbolic", "adaptive_non_uniform_symbolic", "batch_norm_in_place_update"],
)
def test_refusals_are_located_diagnostics(inputs: list[TensorType], body: Body, message: str) -> None:
    with pytest.raises(ExirDiagnostic, match=message):
        lower_to_upstream(program(inputs, body))


def test_nan_and_infinity_follow_torch() -> None:
    """A NaN wins a max (its first position is the index), an all -inf row softmaxes to NaN."""
    case = NAN_CASE
    module = case.module()
    x = np.array([[1, np.nan, 3, np.nan, 0, 0], [1, 2, 3, 3, 0, 0], [-np.inf] * 6], np.float32)
    want = _reference(case, module, [x])
    assert np.asarray(want[1]).tolist() == [1, 2, 0]
    _compare(run_lowered(lower_to_upstream(module), [x]), want, case, "nan (upstream interpreter)")
    if iree_available():
        _compare(IREE.executor(case.id)(x), want, case, "nan (IREE)")
