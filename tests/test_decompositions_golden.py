"""
Golden tests of the long tail of ATen operators (issue 12) against torch eager.

One table, one row per (operator, shapes, dtypes): each row runs the overload
twice on the same inputs and compares with `torch.ops.aten.<op>.<overload>`:
through the interpreter's kernel table (`aten_kernels.run_kernel`, which runs a
rule of the decompose table when the operator has no numpy kernel), and as a
one-op program rewritten by the `decompose` pass (only core ATen may remain)
and run by the program runner. Random operators are checked by shape, dtype
and distribution in `test_random_*`.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pass_harness as ph
import pytest
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Attribute, SSAValue

from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    GraphOp,
    InputKind,
    InputSpecAttr,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    TensorType,
)
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.decompositions import RULES, default_legal_ops
from xdsl_exir.semantics.kernels.decomposed import DECOMPOSED
from xdsl_exir.semantics.kernels.derived import HANDWRITTEN_MUTATING
from xdsl_exir.semantics.kernels.registry import schema_of
from xdsl_exir.utils.dtypes import dtype_of
from xdsl_exir.utils.op_registry import functional_variant, selected_operators

torch = pytest.importorskip("torch")


@dataclass(frozen=True)
class T:
    """A tensor input: its shape, numpy dtype and value domain."""

    shape: tuple[int, ...]
    dtype: str = "float32"
    domain: str = "normal"  # normal | positive | unit | wide | sign | counts | zeros | edge | huge | spd | index:N

    def make(self, rng: np.random.Generator) -> np.ndarray:
        return np.asarray(self._values(rng))

    def _values(self, rng: np.random.Generator) -> np.ndarray:
        if self.dtype == "bool":
            return rng.random(self.shape) < 0.5
        if self.domain.startswith("index:"):
            return rng.integers(0, int(self.domain[6:]), self.shape).astype(self.dtype)
        if self.dtype.startswith("int"):
            return rng.integers(-5, 6, self.shape).astype(self.dtype)
        if self.domain == "unit":  # inside (0, 1)
            return (rng.random(self.shape) * 0.98 + 0.01).astype(self.dtype)
        if self.domain == "positive":
            return (rng.random(self.shape) + 0.1).astype(self.dtype)
        if self.domain == "wide":  # across the breakpoints of piecewise activations (±3)
            return (rng.standard_normal(self.shape) * 3).astype(self.dtype)
        if self.domain == "sign":  # ±1 targets
            return np.where(rng.random(self.shape) < 0.5, -1.0, 1.0).astype(self.dtype)
        if self.domain == "counts":  # Poisson targets: 0, 1 and larger counts
            return rng.integers(0, 6, self.shape).astype(self.dtype)
        if self.domain == "edge":  # NaN, infinities, signed zeros, huge and tiny values, then ordinary ones
            if self.dtype.startswith("int"):
                info = np.iinfo(self.dtype)
                special = [info.min, info.max, 0, -1, 1, info.min + 1]
            else:
                special = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1e30, -1e30, 1e-30, 0.25, -0.75, 3.5, -3.5]
            x = (rng.standard_normal(self.shape) * 3).astype(self.dtype)
            flat = x.reshape(-1)
            with np.errstate(over="ignore"):
                flat[: len(special)] = np.asarray(special[: flat.size]).astype(self.dtype)
            return x
        if self.domain == "huge":  # close to 1e30: squares overflow float32
            return (1e30 * (1 + 1e-3 * rng.standard_normal(self.shape))).astype(self.dtype)
        if self.domain == "spd":  # symmetric positive definite matrices (the last two dims)
            a = rng.standard_normal(self.shape)
            n = self.shape[-1]
            return (a @ np.swapaxes(a, -1, -2) + n * np.eye(n)).astype(self.dtype)
        if self.domain == "zeros":  # zeros, a NaN and ordinary values
            x = rng.standard_normal(self.shape).astype(self.dtype)
            flat = x.reshape(-1)
            flat[:: 3] = 0
            if flat.size > 1:
                flat[1] = np.nan
            return x
        return rng.standard_normal(self.shape).astype(self.dtype)


@dataclass(frozen=True)
class Case:
    op: str
    args: tuple[Any, ...]
    kwargs: tuple[tuple[str, Any], ...] = ()
    rtol: float = 1e-5

    @property
    def id(self) -> str:
        parts = [
            "x".join(map(str, a.shape)) + ("" if a.dtype == "float32" else a.dtype) if isinstance(a, T) else repr(a)
            for a in self.args
        ]
        return f"{self.op.removeprefix('aten.')}({','.join(parts)}{''.join(f',{k}={v}' for k, v in self.kwargs)})"


def cases(op: str, *rows: Sequence[Any], rtol: float = 1e-5, **kwargs: Any) -> list[Case]:
    """Rows of positional arguments; a row ending in a dict gives that row's keyword arguments."""
    out: list[Case] = []
    for r in rows:
        row_kw = dict(kwargs)
        if r and isinstance(r[-1], dict):
            row_kw.update(r[-1])
            r = r[:-1]
        out.append(Case(op, tuple(r), tuple(row_kw.items()), rtol))
    return out


F16, F64, I64, I32, B = "float16", "float64", "int64", "int32", "bool"

CASES: list[Case] = [
    *cases("aten.diff.default", [T((5,))], [T((3, 6)), 2, 1], [T((4, 5), I64), 1, 0], [T((2, 7), B)],
           [T((3, 4)), 1, -1, T((3, 2)), T((3, 1))]),
    *cases("aten.reshape_as.default", [T((2, 6)), T((3, 4))], [T((4, 3), I32), T((12,))]),
    *cases("aten.lift_fresh_copy.default", [T((3, 4))], [T((2,), I64)]),
    *cases("aten.swapaxes.default", [T((2, 3, 4)), 0, 2], [T((3, 4), I64), -1, 0]),
    *cases("aten.swapdims.default", [T((2, 3, 4)), 1, 2]),
    *cases("aten.numpy_T.default", [T((2, 3, 4))], [T((5,), I64)]),
    *cases("aten.mT.default", [T((2, 3, 4))], [T((3, 5), I64)]),
    *cases("aten.movedim.int", [T((2, 3, 4, 5)), 1, -1], [T((2, 3), I64), 0, 1]),
    *cases("aten.movedim.intlist", [T((2, 3, 4, 5)), [0, 1], [2, 3]], [T((2, 3, 4)), [2], [0]]),
    *cases("aten.broadcast_to.default", [T((3, 1)), [2, 3, 4]], [T((4,), I64), [3, 4]]),
    *cases("aten.expand_as.default", [T((3, 1)), T((2, 3, 4))]),
    *cases("aten.view_as.default", [T((3, 4)), T((2, 6))]),
    *cases("aten.exp2.default", [T((3, 4))], [T((5,), I64)], [T((2, 3), F16)], rtol=1e-3),
    *cases("aten.xlogy.Tensor", [T((3, 4), domain="zeros"), T((3, 4), domain="positive")],
           [T((2, 3), I64), T((3,), domain="positive")], [T((4,), domain="zeros"), T((2, 4), domain="zeros")]),
    *cases("aten.xlogy.Scalar_Other", [T((3, 4), domain="zeros"), 2.5], [T((5,), I64), 3]),
    *cases("aten.xlogy.Scalar_Self", [2.0, T((3, 4), domain="positive")]),
    *cases("aten.fmax.default", [T((3, 4), domain="zeros"), T((3, 4), domain="zeros")], [T((2, 3), I64), T((3,), I64)],
           [T((4,)), T((2, 4), domain="zeros")]),
    *cases("aten.fmin.default", [T((3, 4), domain="zeros"), T((4,), domain="zeros")], [T((5,), I32), T((5,), I32)]),
    *cases("aten.trace.default", [T((4, 4))], [T((3, 5), I64)], [T((5, 2))]),
    *cases("aten.diag_embed.default", [T((3,))], [T((2, 3)), 1], [T((2, 3), I64), -1, 0, 2], [T((2, 3)), 2, 0, 1]),
    *cases("aten.channel_shuffle.default", [T((2, 6, 3, 3)), 3], [T((1, 4, 5), I64), 2]),
    *cases("aten.pixel_shuffle.default", [T((1, 8, 2, 3)), 2], [T((2, 9, 2, 2), I64), 3]),
    *cases("aten.pixel_unshuffle.default", [T((1, 2, 4, 6)), 2], [T((2, 1, 6, 3), I64), 3]),
    *cases("aten.eye.default", [3], [4], dtype=torch.float32),
    *cases("aten.eye.m", [3, 5], [4, 2]),
    *cases("aten.empty_like.default", [T((3, 4))], [T((2,), I64)]),
    *cases("aten._convolution.default",
           [T((1, 2, 6, 6)), T((3, 2, 3, 3)), T((3,)), [1, 1], [1, 1], [1, 1], False, [0, 0], 1, False, False, True, True],
           [T((2, 4, 7)), T((4, 2, 3)), None, [2], [0], [1], False, [0], 2, False, False, True, True],
           rtol=1e-4),
    *cases("aten.unfold.default", [T((7,)), 0, 2, 1], [T((3, 8)), 1, 3, 2], [T((5, 2), I64), 0, 2, 3]),
    *cases("aten.adaptive_avg_pool3d.default", [T((1, 2, 4, 4, 4)), [1, 1, 1]], [T((2, 3, 4, 6, 2)), [2, 3, 1]]),
    *cases("aten.linalg_vector_norm.default", [T((3, 4))], [T((3, 4)), 1, [1], True], [T((2, 3, 4)), float("inf"), [0, 2]],
           [T((5,)), 3.0], [T((3, 4)), 0], [T((3, 4)), float("-inf")], [T((2, 3), F16)], rtol=1e-3),
    *cases("aten.kl_div.default", [T((3, 4)), T((3, 4), domain="positive")], [T((3, 4)), T((3, 4)), 2, {"log_target": True}],
           [T((5,)), T((5,), domain="positive"), 0], [T((2, 3)), T((2, 3), domain="positive"), 1, {"log_target": False}]),
    *cases("aten.threshold_backward.default", [T((3, 4)), T((3, 4)), 0.0], [T((2, 5)), T((2, 5)), 0.5]),
    *cases("aten.sigmoid_backward.default", [T((3, 4)), T((3, 4), domain="unit")], [T((2, 5), F64), T((2, 5), F64, "unit")]),
    *cases("aten.tanh_backward.default", [T((3, 4)), T((3, 4), domain="unit")], [T((2, 5), F64), T((2, 5), F64)]),
    *cases("aten.silu_backward.default", [T((3, 4)), T((3, 4))], [T((2, 3, 4), F64), T((2, 3, 4), F64)]),
    *cases("aten.gelu_backward.default", [T((3, 4)), T((3, 4))], [T((2, 5), F64), T((2, 5), F64)],
           [T((3, 4)), T((3, 4)), {"approximate": "tanh"}], [T((5,), F64), T((5,), F64), {"approximate": "tanh"}], rtol=1e-4),
    *cases("aten.hardswish_backward.default", [T((4, 5)), T((4, 5), domain="wide")], [T((3, 6), F64), T((3, 6), F64, "wide")]),
    *cases("aten.hardsigmoid_backward.default", [T((4, 5)), T((4, 5), domain="wide")], [T((3, 6), F64), T((3, 6), F64, "wide")]),
    *cases("aten.hardtanh_backward.default", [T((3, 4)), T((3, 4)), -1.0, 1.0], [T((2, 5), F64), T((2, 5), F64), 0.0, 6.0]),
    *cases("aten.leaky_relu_backward.default", [T((3, 4)), T((3, 4)), 0.01, False], [T((2, 5), F64), T((2, 5), F64), 0.2, True]),
    *cases("aten.softplus_backward.default", [T((3, 4)), T((3, 4)), 1.0, 20.0], [T((2, 5), F64), T((2, 5), F64), 2.0, 1.0]),
    *cases("aten.elu_backward.default", [T((3, 4)), 1.0, 1.0, 1.0, False, T((3, 4))],
           [T((2, 5), F64), 0.5, 1.0507, 1.5, False, T((2, 5), F64)], [T((3, 4)), 1.0, 1.0, 1.0, True, T((3, 4), domain="unit")]),
    *cases("aten.mish_backward.default", [T((3, 4)), T((3, 4))], [T((2, 5), F64), T((2, 5), F64)], rtol=1e-4),
    *cases("aten.hardshrink_backward.default", [T((3, 4)), T((3, 4)), 0.5], [T((2, 5), F64), T((2, 5), F64), 1.0]),
    *cases("aten.softshrink_backward.default", [T((3, 4)), T((3, 4)), 0.5], [T((2, 5), F64), T((2, 5), F64), 0.2]),
    *cases("aten.logit_backward.default", [T((3, 4)), T((3, 4), domain="unit")], [T((2, 5), F64), T((2, 5), F64), 0.1],
           [T((6,)), T((6,))]),
    *cases("aten.mse_loss_backward.default", [T(()), T((3, 4)), T((3, 4)), 1], [T(()), T((2, 5), F64), T((2, 5), F64), 2],
           [T((3, 4)), T((3, 4)), T((3, 4)), 0]),
    *cases("aten._softmax_backward_data.default", [T((3, 4)), T((3, 4), domain="unit"), 1, {"input_dtype": torch.float32}],
           [T((2, 3, 4), F64), T((2, 3, 4), F64, "unit"), 0, {"input_dtype": torch.float64}]),
    *cases("aten._log_softmax_backward_data.default", [T((3, 4)), T((3, 4)), -1, {"input_dtype": torch.float32}],
           [T((2, 3, 4), F64), T((2, 3, 4), F64), 1, {"input_dtype": torch.float64}]),
    *cases("aten.select_backward.default", [T((3, 5)), [4, 3, 5], 0, 2], [T((2, 3), F64), [2, 4, 3], 1, -1]),
    *cases("aten.slice_backward.default", [T((2, 5)), [4, 5], 0, 1, 3, 1], [T((3, 2), F64), [3, 7], 1, 1, 6, 3]),
    *cases("aten.index_select_backward.default", [T((4, 3)), [5, 3], 0, T((4,), I64, "index:5")],
           [T((2, 6), F64), [2, 3], 1, T((6,), I64, "index:3")]),
    *cases("aten.gather_backward.default", [T((3, 2)), T((3, 4)), 1, T((3, 2), I64, "index:4"), False],
           [T((2, 3), F64), T((4, 3), F64), 0, T((2, 3), I64, "index:4"), False]),
    *cases("aten.trace_backward.default", [T(()), [3, 3]], [T((), F64), [2, 4]]),
    *cases("aten.embedding_backward.default", [T((4, 3)), T((4,), I64, "index:6"), 6, -1, False, False],
           [T((2, 3, 5), F64), T((2, 3), I64, "index:4"), 4, 1, True, False]),
    *cases("aten.smooth_l1_loss_backward.default", [T(()), T((3, 4)), T((3, 4)), 1, 1.0],
           [T((2, 5), F64), T((2, 5), F64), T((2, 5), F64), 0, 0.5], [T(()), T((4,)), T((4,)), 2, 0.0]),
    *cases("aten.huber_loss_backward.default", [T(()), T((3, 4)), T((3, 4)), 1, 1.0],
           [T((2, 5), F64), T((2, 5), F64), T((2, 5), F64), 0, 0.5]),
    *cases("aten.binary_cross_entropy_backward.default", [T(()), T((3, 4), domain="unit"), T((3, 4), domain="unit")],
           [T((2, 5), F64), T((2, 5), F64, "unit"), T((2, 5), F64, "unit"), T((2, 5), F64, "positive"), 0],
           [T(()), T((6,), domain="unit"), T((6,), domain="unit"), None, 2], rtol=1e-4),
    *cases("aten.glu_backward.default", [T((3, 2)), T((3, 4)), 1], [T((2, 3), F64), T((4, 3), F64), 0]),
    *cases("aten.rrelu_with_noise_backward.default", [T((3, 4)), T((3, 4)), T((3, 4), domain="unit"), 0.1, 0.3, True, False],
           [T((2, 5), F64), T((2, 5), F64), T((2, 5), F64), 0.125, 0.333, False, False]),
    *cases("aten.max_pool3d.default", [T((1, 2, 4, 4, 4)), [2, 2, 2]], [T((2, 1, 5, 6, 4), F64), [3, 2, 2], [2, 2, 1], [1, 0, 1]]),
    *cases("aten.cdist.default", [T((4, 3)), T((5, 3))], [T((2, 3, 4), F64), T((2, 6, 4), F64), 1.0], rtol=1e-4),
    *cases("aten.logspace.default", [0.0, 2.0, 5], [-1.0, 1.0, 4, 2.0], [0, 3, 4, 2.0, {"dtype": torch.int64}],
           [1.0, 2.0, 3, {"dtype": torch.float64}], rtol=1e-5),
    *cases("aten.special_ndtr.default", [T((3, 4))], [T((5,), F64)], [T((4,), I64)]),
    *cases("aten.special_log_ndtr.default", [T((3, 4))], [T((5,), F64)], rtol=1e-4),
    # the lower tail (to x = -12, where 1 - erf is 0), the specials, integers
    *cases("aten.special_log_ndtr.default", [T((40,), domain="wide")], [T((40,), F64, "wide")], [T((3, 4), domain="edge")],
           [T((12,), F64, "edge")], [T((6,), I64, "edge")]),
    *cases("aten.special_entr.default", [T((3, 4), domain="zeros")], [T((5,), F64, "positive")], [T((6,))]),
    *cases("aten.erfc.default", [T((3, 4))], [T((2, 5), F64)], [T((4,), I64)]),
    *cases("aten.logaddexp2.default", [T((3, 4)), T((3, 4))], [T((2, 5), F64), T((5,), F64)]),
    *cases("aten.sgn.default", [T((3, 4), domain="zeros")], [T((5,), I64)]),
    *cases("aten.vdot.default", [T((5,)), T((5,))], [T((7,), F64), T((7,), F64)], [T((4,), I64), T((4,), I64)], rtol=1e-4),
    *cases("aten.isclose.default", [T((3, 4), domain="zeros"), T((3, 4), domain="zeros")],
           [T((3, 4)), T((4,)), 0.5, 0.5], [T((2, 5), F64, "zeros"), T((2, 5), F64, "zeros"), 1e-5, 1e-8, True],
           [T((4,), I64), T((4,), I64), 0.0, 0.0],
           # int64 extremes (a wrapping difference) and booleans are compared in float32, as ATen does
           [T((2, 3), I64, "edge"), T((2, 1), I64, "edge")], [T((3, 4), B), T((3, 4), B)]),
    *cases("aten.addbmm.default", [T((3, 4)), T((2, 3, 5)), T((2, 5, 4))],
           [T((4,), F64), T((3, 2, 2), F64), T((3, 2, 4), F64), {"beta": 0.5, "alpha": 2.0}],
           [T((3, 4)), T((2, 3, 5)), T((2, 5, 4)), {"beta": 0}], rtol=1e-4),
    *cases("aten.rot90.default", [T((3, 4))], [T((2, 3, 4)), 2, [1, 2]], [T((2, 3), I64), 3], [T((2, 3, 4)), -1, [2, 0]],
           [T((3, 4)), 4]),
    *cases("aten.diagflat.default", [T((3,))], [T((2, 2)), 1], [T((3,), I64), -2]),
    *cases("aten.kron.default", [T((2, 3)), T((3, 2))], [T((2,), F64), T((3, 2), F64)], [T((2, 1, 2), I64), T((2, 3), I64)]),
    *cases("aten.tensordot.default", [T((2, 3, 4)), T((4, 3, 5)), [1, 2], [1, 0]], [T((3, 4), F64), T((4, 5), F64), [1], [0]],
           [T((2, 3)), T((4,)), [], []], rtol=1e-4),
    *cases("aten.sum_to_size.default", [T((2, 3, 4)), [3, 1]], [T((3, 4), F64), [1, 4]], [T((2, 3), I64), [2, 3]]),
    *cases("aten.zero.default", [T((3, 4), domain="zeros")], [T((5,), I64)]),
    *cases("aten.frobenius_norm.dim", [T((3, 4)), [0, 1]], [T((2, 3, 4), F64), [-1], True]),
    *cases("aten.nanmean.default", [T((3, 4), domain="zeros")], [T((3, 4), domain="zeros"), [1], True],
           [T((2, 3, 4), F64, "zeros"), [0, 2]]),
    *cases("aten.margin_ranking_loss.default", [T((5,)), T((5,)), T((5,))], [T((3, 4), F64), T((3, 4), F64), T((3, 4), F64), 0.5, 2],
           [T((6,)), T((6,)), T((6,)), 0.1, 0]),
    *cases("aten.hinge_embedding_loss.default", [T((5,)), T((5,), domain="sign")], [T((3, 4), F64), T((3, 4), F64, "sign"), 0.5, 2],
           [T((6,)), T((6,), domain="sign"), 1.0, 0]),
    *cases("aten.soft_margin_loss.default", [T((5,)), T((5,), domain="sign")], [T((3, 4), F64), T((3, 4), F64, "sign"), 2],
           [T((6,)), T((6,), domain="sign"), 0]),
    *cases("aten.poisson_nll_loss.default", [T((5,)), T((5,), domain="positive"), True, False, 1e-8, 1],
           [T((3, 4), F64, "positive"), T((3, 4), F64, "counts"), False, True, 1e-8, 2],
           [T((6,), domain="positive"), T((6,), domain="counts"), True, True, 1e-8, 0], rtol=1e-4),
    *cases("aten.feature_alpha_dropout.default", [T((2, 3, 4)), 0.5, False], [T((3, 5), F64), 0.1, False]),
    *cases("aten.native_dropout_backward.default", [T((3, 4)), T((3, 4), B), 2.0], [T((2, 5), F64), T((2, 5), B), 1.25]),
    *cases("aten.linalg_cross.default", [T((4, 3)), T((4, 3))], [T((3, 2)), T((3, 2)), {"dim": 0}], [T((2, 1, 3)), T((2, 4, 3))],
           [T((3,), I64), T((3,), I64)]),
    *cases("aten.item.default", [T((1,))], [T((), I64)]),
    *cases("aten.all.default", [T((3, 4), B)], [T((5,), I64)], [T((2, 3))]),
    *cases("aten.all.dim", [T((3, 4), B), 1], [T((3, 4), I64), 0, True]),
    *cases("aten.all.dims", [T((2, 3, 4), B), [0, 2]], [T((2, 3)), [1], True]),
    *cases("aten.rsub.Scalar", [T((3, 4)), 2.0], [T((5,), I64), 3, {"alpha": 2}], [T((2, 3)), 1.5, {"alpha": 0.5}]),
    *cases("aten.rsub.Tensor", [T((3, 4)), T((4,))], [T((5,), I64), T((5,), I64), {"alpha": 2}]),
    *cases("aten.detach.default", [T((3, 4))], [T((2,), I64)]),
    *cases("aten.nll_loss_forward.default",
           [T((4, 5)), T((4,), I64, "index:5"), None, 1, -100], [T((4, 5)), T((4,), I64, "index:5"), T((5,), domain="positive"), 2, 2],
           [T((4, 5)), T((4,), I64, "index:5"), T((5,), domain="positive"), 0, 1], [T((5,)), T((), I64, "index:5"), None, 1, -100],
           [T((3, 5), F64), T((3,), I64, "index:5"), T((5,), F64, "positive"), 1, 0]),
    *cases("aten.nll_loss_backward.default",
           [T(()), T((4, 5)), T((4,), I64, "index:5"), None, 1, -100, T((), domain="positive")],
           [T(()), T((4, 5)), T((4,), I64, "index:5"), T((5,), domain="positive"), 2, 2, T((), domain="positive")],
           [T((4,)), T((4, 5)), T((4,), I64, "index:5"), T((5,), domain="positive"), 0, 1, T((), domain="positive")]),
    *cases("aten.nll_loss.default", [T((4, 5)), T((4,), I64, "index:5")], [T((4, 5)), T((4,), I64, "index:5"), None, 0]),
    *cases("aten.cross_entropy_loss.default", [T((4, 5)), T((4,), I64, "index:5")],
           [T((3, 6)), T((3,), I64, "index:6"), T((6,), domain="positive"), 2]),
    *cases("aten.linspace.default", [0.0, 1.0, 5], [-2.5, 7.0, 11], [3, 10, 4, {"dtype": torch.int64}], [1.0, 2.0, 1],
           [0.0, 1.0, 0], [-1.0, 1.0, 7, {"dtype": torch.float64}]),
    *cases("aten.triu_indices.default", [3, 4], [4, 3, 1], [5, 5, -2]),
    *cases("aten.tril_indices.default", [3, 4], [4, 3, -1], [2, 6, 3]),
    *cases("aten.absolute.default", [T((3, 4))], [T((5,), I64)]),
    *cases("aten.arctan2.default", [T((3, 4)), T((4,))], [T((2, 3), F64), T((2, 3), F64)]),
    *cases("aten.clip.default", [T((3, 4)), -0.5, 0.5], [T((5,), I64), -2, 3]),
    *cases("aten.concat.default", [[T((2, 3)), T((1, 3))]], [[T((2, 1), I64), T((2, 2), I64)], 1]),
    *cases("aten.divide.Tensor_mode", [T((3, 4)), T((3, 4), domain="positive"), {"rounding_mode": "floor"}],
           [T((5,), F64), T((5,), F64, "positive"), {"rounding_mode": "trunc"}]),
    *cases("aten.multiply.Tensor", [T((3, 4)), T((4,))], [T((5,), I64), T((5,), I64)]),
    *cases("aten.subtract.Tensor", [T((3, 4)), T((4,)), {"alpha": 2}], [T((5,), I64), T((5,), I64)]),
    *cases("aten.greater_equal.Scalar", [T((3, 4)), 0.0], [T((5,), I64), 1]),
    *cases("aten.not_equal.Tensor", [T((3, 4), I64), T((4,), I64)], [T((5,)), T((5,))]),
    *cases("aten.negative.default", [T((3, 4))], [T((5,), I64)]),
    *cases("aten.special_expit.default", [T((3, 4))], [T((5,), F64)]),
    *cases("aten.special_xlogy.default", [T((3, 4), domain="zeros"), T((3, 4), domain="positive")],
           [T((5,), I64), T((5,), domain="positive")]),
    *cases("aten.special_log_softmax.default", [T((3, 4)), 1], [T((2, 5), F64), 0]),
    *cases("aten._unsafe_index.Tensor", [T((5, 3)), [T((4,), I64, "index:5")]], [T((6,), I64), [T((2, 2), I64, "index:6")]]),
    *cases("aten.view_copy.default", [T((3, 4)), [2, 6]], [T((6,), I64), [3, 2]]),
    *cases("aten.permute_copy.default", [T((2, 3, 4)), [2, 0, 1]], [T((3, 5), I64), [1, 0]]),
    *cases("aten.transpose_copy.int", [T((2, 3, 4)), 0, 2], [T((3, 5), I64), 0, 1]),
    *cases("aten.slice_copy.Tensor", [T((5, 4)), 0, 1, 4], [T((6,), I64), 0, 0, 6, 2]),
    *cases("aten.unsqueeze_copy.default", [T((3, 4)), 1], [T((5,), I64), 0]),
    *cases("aten.square.default", [T((3, 4))], [T((5,), I64)]),
    *cases("aten.rad2deg.default", [T((3, 4))], [T((5,), F64)]),
    *cases("aten.deg2rad.default", [T((3, 4))], [T((5,), F64)]),
    *cases("aten.frac.default", [T((3, 4))], [T((5,), F64)]),
    *cases("aten.threshold.default", [T((3, 4)), 0.1, 20.0], [T((5,), I64), 1, -1]),
    *cases("aten.hardshrink.default", [T((3, 4))], [T((5,), F64), 0.3]),
    *cases("aten.softshrink.default", [T((3, 4))], [T((5,), F64), 0.3]),
    *cases("aten.logaddexp.default", [T((3, 4)), T((4,))], [T((5,), F64), T((5,), F64)]),
    *cases("aten.hypot.default", [T((3, 4)), T((4,))], [T((5,), F64), T((5,), F64)],
           [T((3, 4), domain="edge"), T((3, 1), domain="edge")], [T((4,), domain="huge"), T((4,), domain="huge")],
           [T((12,), F64, "edge"), T((12, 1), F64, "edge")]),
    *cases("aten.sinc.default", [T((3, 4), domain="zeros")], [T((5,), F64)]),
    *cases("aten.logit.default", [T((3, 4), domain="positive")], [T((5,), domain="positive"), 0.2],
           [T((6,), I64, "edge")], [T((3, 4), domain="edge")]),
    *cases("aten.log_sigmoid.default", [T((3, 4))], [T((5,), F64)]),
    *cases("aten.celu.default", [T((3, 4))], [T((5,), F64), 0.5]),
    *cases("aten.selu.default", [T((3, 4))], [T((5,), F64)]),
    *cases("aten.glu.default", [T((3, 4))], [T((4, 6), F64), 0]),
    *cases("aten.prelu.default", [T((2, 3, 4)), T((3,))], [T((5, 2), F64), T((1,), F64)]),
    *cases("aten.isposinf.default", [T((3, 4), domain="zeros")], [T((5,))]),
    *cases("aten.isfinite.default", [T((3, 4), domain="zeros")], [T((5,), I64)]),
    *cases("aten.heaviside.default", [T((3, 4), domain="zeros"), T((4,))], [T((5,), F64), T((5,), F64)]),
    *cases("aten.logsumexp.default", [T((3, 4)), [1]], [T((2, 3, 4), F64), [0, 2], True], [T((5,), I64), [0]]),
    *cases("aten.nansum.default", [T((3, 4), domain="zeros")], [T((3, 4), domain="zeros"), [1], True]),
    *cases("aten.count_nonzero.dim_IntList", [T((3, 4), domain="zeros"), [1]], [T((5, 2), I64), [0, 1]]),
    *cases("aten.aminmax.default", [T((3, 4))], [T((3, 4), I64), {"dim": 1, "keepdim": True}]),
    *cases("aten.dist.default", [T((3, 4)), T((4,))], [T((5,), F64), T((5,), F64), 1.0]),
    *cases("aten.mse_loss.default", [T((3, 4)), T((3, 4))], [T((5,), F64), T((5,), F64), 0]),
    *cases("aten.l1_loss.default", [T((3, 4)), T((3, 4))], [T((5,), F64), T((5,), F64), 2]),
    *cases("aten.smooth_l1_loss.default", [T((3, 4)), T((3, 4))], [T((5,), F64), T((5,), F64), 2, 0.5]),
    *cases("aten.huber_loss.default", [T((3, 4)), T((3, 4))], [T((5,), F64), T((5,), F64), 0, 0.5]),
    *cases("aten.binary_cross_entropy.default", [T((3, 4), domain="unit"), T((3, 4), domain="unit")],
           [T((5,), F64, "unit"), T((5,), F64, "unit"), T((5,), F64), 2]),
    *cases("aten.binary_cross_entropy_with_logits.default", [T((3, 4)), T((3, 4), domain="unit")],
           [T((2, 5), F64), T((2, 5), F64, "unit"), T((5,), F64), T((5,), F64, "positive"), 2]),
    *cases("aten.cosine_similarity.default", [T((3, 4)), T((3, 4))], [T((2, 5), F64), T((5,), F64), -1]),
    *cases("aten.pairwise_distance.default", [T((3, 4)), T((3, 4))], [T((2, 5), F64), T((5,), F64), 1.0]),
    *cases("aten.ravel.default", [T((3, 4))], [T((2, 3, 2), I64)]),
    *cases("aten.fliplr.default", [T((3, 4))], [T((2, 3, 2), I64)]),
    *cases("aten.flipud.default", [T((3, 4))], [T((2, 3), I64)]),
    *cases("aten.tile.default", [T((3, 4)), [2]], [T((2, 3), I64), [2, 1, 2]]),
    *cases("aten.repeat_interleave.self_int", [T((3, 4)), 2], [T((2, 3), I64), 3, 1]),
    *cases("aten.one_hot.default", [T((5,), I64, "index:4"), 4], [T((2, 3), I64, "index:6"), 6]),
    *cases("aten.rms_norm.default", [T((2, 3, 8)), [8]], [T((2, 3, 8)), [3, 8], T((3, 8)), 1e-5], [T((4, 6), F64), [6]]),
    *cases("aten.conv_transpose2d.input", [T((1, 3, 5, 5)), T((3, 2, 3, 3)), T((2,)), [2, 2], [1, 1], [1, 1]],
           [T((2, 4, 4, 4)), T((4, 1, 3, 3)), None, [1, 1], [0, 0], [0, 0], 2], rtol=1e-4),
    *cases("aten.conv_transpose1d.default", [T((1, 3, 7)), T((3, 2, 3)), None, [2]], [T((2, 2, 5)), T((2, 4, 2))], rtol=1e-4),
    *cases("quantized_decomposed.quantize_per_tensor.default", [T((3, 4)), 0.05, 3, -128, 127, torch.int8],
           [T((5, 2)), 0.2, 128, 0, 255, torch.uint8], [T((7,)), 0.01, 0, -127, 127, torch.int8]),
    *cases("quantized_decomposed.quantize_per_tensor.tensor",
           [T((3, 4)), T((), domain="positive"), T((), I64, "index:4"), -128, 127, torch.int8],
           [T((2, 5)), T((), domain="positive"), T((), I64, "index:200"), 0, 255, torch.uint8]),
    *cases("quantized_decomposed.dequantize_per_tensor.default", [T((3, 4), "int8"), 0.05, 3, -128, 127, torch.int8],
           [T((5, 2), "uint8", "index:255"), 0.2, 128, 0, 255, torch.uint8],
           [T((4,), "int8"), 0.5, -1, -128, 127, torch.int8, {"out_dtype": torch.float64}]),
    *cases("aten.argsort.default", [T((3, 5))], [T((4, 3), I64), 0, True]),
    *cases("aten.argsort.stable", [T((3, 5), I64, "index:3"), {"stable": True}], [T((6,), I64, "index:2"), {"stable": True, "descending": True}]),
    *cases("aten.msort.default", [T((4, 3))], [T((5,), I64)]),
    *cases("aten.std_mean.correction", [T((3, 5)), [1]], [T((2, 3, 4), F64), None, {"correction": 0, "keepdim": True}]),
    *cases("aten.std_mean.dim", [T((3, 5)), [0], False], [T((2, 3, 4), F64), [1, 2], True, True]),
    *cases("aten.std_mean.default", [T((3, 5))], [T((7,), F64), False]),
    *cases("aten.var_mean.correction", [T((3, 5)), [1]], [T((2, 3, 4), F64), None, {"correction": 0, "keepdim": True}]),
    *cases("aten.diag.default", [T((4,))], [T((3,), I64), 1], [T((3, 5)), -1], [T((4, 4), I64)]),
    *cases("aten.mv.default", [T((3, 4)), T((4,))], [T((2, 5), F64), T((5,), F64)]),
    *cases("aten.ger.default", [T((3,)), T((4,))], [T((2,), I64), T((5,), I64)]),
    *cases("aten.addmv.default", [T((3,)), T((3, 4)), T((4,)), {"beta": 0.5, "alpha": 2.0}], [T((2,), F64), T((2, 5), F64), T((5,), F64)]),
    *cases("aten.addr.default", [T((3, 4)), T((3,)), T((4,)), {"beta": 2.0, "alpha": 0.5}], [T((2, 5), F64), T((2,), F64), T((5,), F64)]),
    *cases("aten.inner.default", [T((4,)), T((4,))], [T((3, 4)), T((5, 4))], [T((4,), F64), T((2, 4), F64)]),
    *cases("aten._safe_softmax.default", [T((3, 4)), 1], [T((2, 5), F64), 0]),
    *cases("aten._add_relu.Tensor", [T((3, 4)), T((4,))], [T((2, 5), F64), T((2, 5), F64), {"alpha": 2.0}]),
    *cases("aten._addmm_activation.default", [T((4,)), T((3, 5)), T((5, 4))],
           [T((3, 4)), T((3, 5)), T((5, 4)), {"use_gelu": True, "beta": 0.5}], rtol=1e-4),
    *cases("aten.index_add.default", [T((5, 3)), 0, T((4,), I64, "index:5"), T((4, 3))],
           [T((3, 6), I64), 1, T((2,), I64, "index:6"), T((3, 2), I64), {"alpha": 2}],
           [T(()), 0, T((1,), I64, "index:1"), T(()), {"alpha": -1}]),
    *cases("aten.index_copy.default", [T((5, 3)), 0, T((2,), I64, "index:1"), T((2, 3))],
           [T((3, 6), I64), 1, T((1,), I64, "index:6"), T((3, 1), I64)]),
    *cases("aten.index_fill.int_Scalar", [T((5, 3)), 0, T((2,), I64, "index:5"), -1.5], [T((3, 6), I64), 1, T((3,), I64, "index:6"), 7],
           [T(()), 0, T((1,), I64, "index:1"), 2.5]),
    *cases("aten.take.default", [T((3, 4)), T((5,), I64, "index:12")], [T((2, 3), I64), T((2, 2), I64, "index:6")]),
    *cases("aten.take_along_dim.default", [T((3, 4)), T((3, 2), I64, "index:4"), 1], [T((3, 4)), T((5,), I64, "index:12")],
           [T((2, 1, 4), F64), T((2, 3, 1), I64, "index:4"), 2]),
    *cases("aten.max_pool1d.default", [T((2, 3, 9)), [3]], [T((1, 2, 10), F64), [2], [3], [1], [2], True]),
    *cases("aten.atleast_2d.default", [T((4,))], [T((), I64)], [T((2, 3))]),
    *cases("aten.atleast_3d.default", [T((4,))], [T((2, 3), I64)]),
    *cases("aten.vstack.default", [[T((4,)), T((2, 4))]], [[T((3,), I64), T((3,), I64)]]),
    *cases("aten.hstack.default", [[T((4,)), T((2,))]], [[T((3, 1), I64), T((3, 2), I64)]]),
    *cases("aten.dstack.default", [[T((4,)), T((4,))]], [[T((2, 3)), T((2, 3))]]),
    *cases("aten.column_stack.default", [[T((4,)), T((4, 2))]], [[T((3,), I64), T((3,), I64)]]),
    *cases("aten.instance_norm.default",
           [T((2, 3, 5, 4)), T((3,)), T((3,)), None, None, True, 0.1, 1e-5, False],
           [T((1, 2, 7), F64), None, None, None, None, True, 0.1, 1e-3, False], rtol=1e-4),
    *cases("aten.cumprod.default", [T((3, 4)), 1], [T((5,), I64), 0], [T((2, 3), B), 1], [T((2, 3)), 0, {"dtype": torch.float64}]),
    *cases("aten.copysign.Tensor", [T((3, 4)), T((4,), domain="zeros")], [T((5,), I64), T((5,))]),
    *cases("aten.copysign.Scalar", [T((3, 4)), -1.0], [T((5,), I64), 2]),
    *cases("aten.signbit.default", [T((3, 4), domain="zeros")], [T((5,), I64)]),
    *cases("aten.nextafter.default", [T((3, 4)), T((4,))], [T((5,), F64), T((5,), F64)]),
    *cases("aten.gcd.default", [T((3, 4), I64), T((4,), I64)], [T((5,), I32), T((5,), I32)],
           [T((6,), I64, "edge"), T((6, 1), I64, "edge")], [T((6,), I32, "edge"), T((6, 1), I32, "edge")]),
    *cases("aten.lcm.default", [T((3, 4), I64), T((4,), I64)], [T((5,), I32), T((5,), I32)]),
    *cases("aten.i0.default", [T((3, 4))], [T((5,), F64)], [T((4,), I64)]),
    *cases("aten.float_power.Tensor_Tensor", [T((3, 4), domain="positive"), T((4,))], [T((5,), I64), T((5,), I64, "index:3")]),
    *cases("aten.float_power.Tensor_Scalar", [T((3, 4), domain="positive"), 1.5], [T((5,), I64), 2]),
    *cases("aten.ldexp.Tensor", [T((3, 4)), T((4,), I64)], [T((5,), F64), T((5,), I64)]),
    *cases("aten.cummax.default", [T((3, 4)), 1], [T((5, 2), I64), 0], [T((6,), domain="zeros"), 0], [T((0, 3)), 1]),
    *cases("aten.cummin.default", [T((3, 4)), 0], [T((5, 2), I64), 1], [T((2, 0), I64), 0]),
    *cases("aten.logcumsumexp.default", [T((3, 4)), 1], [T((5, 2), F64), 0]),
    *cases("aten.upsample_nearest1d.vec", [T((1, 2, 5)), [9], None], [T((2, 3, 4), F64), None, [2.0]]),
    *cases("aten.upsample_nearest1d.default", [T((1, 2, 5)), [3]], [T((2, 1, 4)), [8], 2.0]),
    *cases("aten.upsample_nearest3d.vec", [T((1, 2, 3, 4, 5)), [4, 6, 3], None], [T((1, 1, 2, 3, 2), F64), None, [2.0, 1.5, 3.0]]),
    *cases("aten.upsample_nearest3d.default", [T((1, 2, 3, 4, 5)), [5, 5, 5]], [T((1, 1, 2, 2, 2)), [4, 4, 4], 2.0, 2.0, 2.0]),
    *cases("aten.hann_window.default", [8], [1]),
    *cases("aten.hann_window.periodic", [7, False], [10, True, {"dtype": torch.float64}]),
    *cases("aten.hamming_window.periodic", [7, False], [10, True]),
    *cases("aten.blackman_window.default", [8], [5, {"dtype": torch.float64}]),
    *cases("aten.bartlett_window.periodic", [9, False], [6, True]),
    *cases("aten.range.step", [0, 10, 3], [1.5, 4.0, 0.5], [5, -1, -2, {"dtype": torch.int64}]),
    *cases("aten.range.default", [0, 4], [-2.5, 2.5]),
    *cases("aten.adaptive_max_pool2d.default", [T((1, 2, 5, 7)), [2, 3]], [T((2, 6, 6)), [3, 3]], [T((1, 1, 4, 4), F64), [3, 2]]),
    # -- the training IR's non-core overloads (issue 20), edge values included --------------
    *cases("aten.arange.default", [5], [7.5], [4, {"dtype": torch.float64}], [0]),
    *cases("aten.arange.start", [2, 9], [-1.5, 3.0], [0, 5, {"dtype": torch.float32}]),
    *cases("aten.fill.Tensor", [T((3, 4)), T(())], [T((5,), I64), T(())], [T((2, 3), domain="edge"), T((), F64)]),
    *cases("aten.min.other", [T((3, 4), domain="edge"), T((3, 4), domain="edge")], [T((5,), I64, "edge"), T((5,), I64)]),
    *cases("aten.max.other", [T((3, 4), domain="edge"), T((4,))], [T((5,), I64, "edge"), T((5,), I64)]),
    *cases("aten.clamp_min.Tensor", [T((3, 4), domain="edge"), T((4,))], [T((5,), I64, "edge"), T((5,), I64)]),
    *cases("aten.clamp_max.Tensor", [T((3, 4), domain="edge"), T((3, 4))], [T((5,), I64), T((5,), I64)]),
    *cases("aten.clamp_min.default", [T((3, 4), domain="edge"), 0.5], [T((5,), I64, "edge"), 2]),
    *cases("aten.clamp_max.default", [T((3, 4), domain="edge"), -0.5], [T((5,), I64, "edge"), 2]),
    *cases("aten.where.ScalarOther", [T((3, 4), B), T((3, 4), domain="edge"), 0.5], [T((5,), B), T((5,), I64), 2],
           [T((2, 3), B), T((2, 3), I64), 0.5], [T((4,), B), T((4,), F64), -0.0]),
    *cases("aten.where.ScalarSelf", [T((3, 4), B), 1.5, T((3, 4))], [T((5,), B), 3, T((5,), I32)]),
    *cases("aten.where.Scalar", [T((3, 4), B), 1.0, 0.0], [T((5,), B), 1, 0], [T((2, 2), B), 1, 0.5]),
    *cases("aten.softplus.default", [T((3, 4), domain="edge")], [T((5,), F64, "wide"), 2.0, 1.0],
           [T((3, 4), domain="wide"), 0.5, 3.0]),
    *cases("aten.roll.default", [T((3, 4)), [1], [1]], [T((3, 4, 5), I64), [1, -2], [0, 2]], [T((3, 4)), [5]],
           [T((4,)), [-9], [0]], [T((0, 3)), [2], [0]]),
    *cases("aten.pad.default", [T((1, 2, 5)), [1, 2], "reflect"], [T((2, 3, 4, 5)), [1, 1, 2, 0], "replicate"],
           [T((3, 4), domain="edge"), [1, 2, 0, 1], "constant", 0.5], [T((1, 2, 5)), [2, 1], "circular"],
           [T((1, 2, 3, 4), I64), [1, 1, 1, 1], "circular"], [T((2, 5)), [2, 1], "replicate"],
           [T((1, 2, 3, 4, 5)), [1, 1, 1, 1, 1, 1], "reflect"], [T((2, 6)), [-1, 2]]),
    *cases("aten.replication_pad1d.default", [T((2, 5)), [2, 1]], [T((1, 3, 4), F64), [0, 3]]),
    *cases("aten.einsum.default", ["ij,jk->ik", [T((3, 4)), T((4, 5))]], ["bij,bjk", [T((2, 3, 4)), T((2, 4, 5))]],
           ["ii->i", [T((4, 4))]], ["ii", [T((3, 3))]], ["i,j->ij", [T((3,)), T((4,))]],
           ["...ij,...jk->...ik", [T((2, 3, 4)), T((2, 4, 2))]], ["bhqd,bhkd->bhqk", [T((2, 2, 3, 4)), T((2, 2, 5, 4))]],
           ["ijk->kji", [T((2, 3, 4), I64)]], ["ij,ij->", [T((3, 4)), T((3, 4))]],
           ["ab,bc,cd->ad", [T((2, 3)), T((3, 4)), T((4, 5))]], ["bn,anm,bm->ba", [T((2, 3)), T((4, 3, 5)), T((2, 5))]],
           ["iij->j", [T((3, 3, 2), F64)]], rtol=1e-4),
    *cases("aten.group_norm.default", [T((2, 6, 4, 4)), 3, T((6,)), T((6,)), 1e-5], [T((2, 4, 5)), 2],
           [T((3, 6), F64), 3], [T((1, 4, 2, 2, 2)), 4, None, T((4,))], rtol=1e-4),
    *cases("aten.stack.default", [[T((3, 4)), T((3, 4))]], [[T((2, 3), I64), T((2, 3), I64)], 2], [[T((4,)), T((4,))], -1],
           [[T((2, 3)), T((2, 3)), T((2, 3))], 1]),
    *cases("aten.squeeze.default", [T((1, 3, 1, 4))], [T((2, 3), I64)], [T(())]),
    *cases("aten.narrow.default", [T((5, 4)), 0, 1, 3], [T((3, 6), I64), 1, -4, 2]),
    *cases("aten.addcmul.default", [T((3, 4)), T((3, 4)), T((4,)), {"value": 0.5}], [T((5,), I64), T((5,), I64), T((5,), I64), {"value": 2}],
           [T((3,), domain="edge"), T((3,)), T((3,))]),
    *cases("aten.addcdiv.default", [T((3, 4)), T((3, 4)), T((4,), domain="positive"), {"value": 0.5}],
           [T((5,), F64), T((5,), F64), T((5,), F64, "zeros")]),
    *cases("aten.lerp.Scalar", [T((3, 4)), T((3, 4)), 0.3], [T((5,), F64), T((5,), F64), 0.75], [T((3,), domain="edge"), T((3,)), 1.0]),
    *cases("aten.lerp.Tensor", [T((3, 4)), T((3, 4)), T((3, 4), domain="unit")], [T((5,), F64), T((5,), F64), T((5,), F64, "wide")]),
    *cases("aten.mish.default", [T((3, 4), domain="edge")], [T((5,), F64, "wide")], rtol=1e-4),
    *cases("aten.nan_to_num.default", [T((3, 4), domain="edge")], [T((6,), F64, "edge"), 1.0, 2.0, -2.0], [T((5,), I64)],
           [T((4,), F16, "edge")]),
    *cases("aten.float_power.Scalar", [2.0, T((3, 4))], [3, T((5,), I64, "index:4")]),
    *cases("aten.floor_divide.Scalar", [T((3, 4), domain="wide"), 2.0], [T((5,), I64), 3], [T((5,), I64), -2]),
    *cases("aten.rrelu.default", [T((3, 4), domain="edge")], [T((5,), F64), 0.1, 0.3]),
    *cases("aten.std.default", [T((3, 5))], [T((7,), F64), False], [T((4,), domain="huge")]),
    *cases("aten.std.dim", [T((3, 5)), [1]], [T((2, 3, 4), F64), [0, 2], False, True], [T((2, 6), domain="huge"), [1]]),
    *cases("aten.std.correction", [T((3, 5)), [1], {"correction": 0}], [T((6,), domain="huge")]),
    *cases("aten.var.default", [T((3, 5))], [T((7,), F64), False]),
    *cases("aten.std_mean.correction", [T((6,), domain="huge")], [T((2, 5), domain="huge"), [1], {"correction": 0}]),
    *cases("aten.dot.default", [T((5,)), T((5,))], [T((4,), I64), T((4,), I64)], [T((0,)), T((0,))]),
    *cases("aten.linalg_vecdot.default", [T((3, 4)), T((3, 4))], [T((2, 3), F64), T((2, 3), F64), {"dim": 0}]),
    *cases("aten.linalg_matmul.default", [T((3, 4)), T((4, 2))], [T((2, 3, 4)), T((2, 4, 5))], rtol=1e-4),
    *cases("aten.chain_matmul.default", [[T((2, 3)), T((3, 4)), T((4, 2))]], [[T((3, 3), F64), T((3, 3), F64)]], rtol=1e-4),
    *cases("aten.linalg_multi_dot.default", [[T((2, 3)), T((3, 4)), T((4, 2))]], [[T((3, 3), F64), T((3, 2), F64)]], rtol=1e-4),
    *cases("aten.matrix_power.default", [T((3, 3)), 3], [T((2, 4, 4), F64), 5], [T((3, 3), I64), 2], [T((3, 3)), 1], rtol=1e-4),
    *cases("aten.linalg_matrix_power.default", [T((3, 3)), 2], [T((2, 3, 3), F64), 4], rtol=1e-4),
    *cases("aten.linalg_inv.default", [T((3, 3), F64, "spd")], [T((2, 4, 4), F64, "spd")], [T((3, 3), domain="spd")], rtol=1e-4),
    *cases("aten.inverse.default", [T((3, 3), F64, "spd")], [T((2, 4, 4), domain="spd")], rtol=1e-4),
    *cases("aten.linalg_cholesky.default", [T((3, 3), F64, "spd")], [T((2, 4, 4), domain="spd"), {"upper": True}], rtol=1e-4),
    *cases("aten.conv2d.padding", [T((1, 2, 6, 6)), T((3, 2, 3, 3)), T((3,)), [1, 1], "same"],
           [T((1, 2, 5, 5)), T((3, 2, 2, 2)), None, [1, 1], "same", [2, 1]], [T((1, 2, 6, 6)), T((3, 2, 3, 3)), None, [2, 2], "valid"],
           rtol=1e-4),
    *cases("aten.conv1d.padding", [T((2, 3, 7)), T((4, 3, 4)), None, [1], "same"], [T((2, 3, 7)), T((4, 3, 3)), None, [1], "valid"],
           rtol=1e-4),
    *cases("aten.conv3d.padding", [T((1, 2, 4, 4, 4)), T((2, 2, 2, 3, 2)), None, [1, 1, 1], "same"],
           [T((1, 2, 4, 4, 4)), T((2, 2, 2, 2, 2)), T((2,)), [1, 1, 1], "valid"], rtol=1e-4),
    *cases("aten.embedding_bag.default", [T((6, 3)), T((5,), I64, "index:6"), T((2,), I64, "index:1")],
           [T((6, 3), F64), T((4,), I64, "index:6"), T((2,), I64, "index:1"), False, 1]),
    *cases("aten.embedding_bag.padding_idx", [T((6, 3)), T((5,), I64, "index:6"), T((2,), I64, "index:1"), False, 2, False,
                                               None, False, 1], [T((6, 3)), T((4,), I64, "index:6"), T((1,), I64, "index:1"),
                                                                 False, 0, False, None, False, None]),
    *cases("aten.linalg_vander.default", [T((4,))], [T((2, 3), I32), {"N": 4}], [T((3,), domain="edge"), {"N": 3}],
           [T((2, 2), F64), {"N": 2}]),
    *cases("aten.vander.default", [T((4,))], [T((3,), I64), 2], [T((3,), F64), 4, True], [T((3,), B)]),
    *cases("aten.renorm.default", [T((3, 4)), 2, 0, 1.0], [T((2, 3, 4), F64, "wide"), 1, 1, 2.5], [T((4, 3)), float("inf"), 1, 0.5]),
    *cases("aten.upsample_nearest2d.default", [T((1, 2, 3, 4)), [6, 8]], [T((2, 1, 4, 4), F64), [3, 5]]),
    # -- edge values where decompositions and torch's kernels part ways (issue 21) -----------
    *cases("aten.threshold_backward.default", [T((3, 4), I64), T((3, 4), domain="edge"), 0.0],
           [T((3, 4), domain="edge"), T((3, 4), domain="edge"), 0.5]),
    *cases("aten.softshrink.default", [T((3, 4), domain="edge"), 0.5], [T((6,), F64, "edge"), 0.0]),
    *cases("aten.hardshrink.default", [T((3, 4), domain="edge"), 0.5]),
    *cases("aten.smooth_l1_loss_backward.default", [T((3, 4)), T((3, 4), domain="edge"), T((3, 4)), 0, 1.0],
           [T(()), T((4,), domain="edge"), T((4,)), 1, 0.0], [T(()), T((5,), F64, "edge"), T((5,), F64), 2, 0.5]),
    *cases("aten.relu6.default", [T((3, 4), domain="edge")], [T((5,), I64, "edge")]),
    *cases("aten._add_relu.Tensor", [T((3, 4), domain="edge"), T((3, 4), domain="zeros")]),
    *cases("aten.gelu_backward.default", [T((3, 4)), T((3, 4), domain="edge")],
           [T((3, 4)), T((3, 4), domain="edge"), {"approximate": "tanh"}], rtol=1e-4),
    *cases("aten.silu.default", [T((3, 4), domain="edge")], [T((5,), F64, "edge")]),
    *cases("aten.hardswish.default", [T((3, 4), domain="edge")], [T((5,), F64, "edge")]),
    *cases("aten._index_put_impl.default",
           [T((5, 3)), [T((4,), I64, "index:5")], T((4, 3)), False, False],
           [T((6,)), [T((3,), I64, "index:6")], T((3,)), True, False]),
]


def _torch_op(name: str) -> Any:
    namespace, base, overload = name.split(".")
    if namespace == "quantized_decomposed":
        importlib.import_module("torch.ao.quantization.fx._decomposed")  # registers the namespace
    return getattr(getattr(getattr(torch.ops, namespace), base), overload)


def _inputs(case: Case, rng: np.random.Generator) -> tuple[list[Any], list[np.ndarray]]:
    """The numpy arguments (tensors made from their specs) and the tensors, in order."""
    tensors: list[np.ndarray] = []

    def make(a: Any) -> Any:
        if isinstance(a, T):
            tensors.append(a.make(rng))
            return tensors[-1]
        if isinstance(a, list):
            return [make(x) for x in a]
        return a

    return [make(a) for a in case.args], tensors


def _to_torch(a: Any) -> Any:
    if isinstance(a, np.ndarray):
        return torch.from_numpy(a.copy())
    if isinstance(a, list):
        return [_to_torch(x) for x in a]
    return a


def _torch_kwargs(case: Case) -> dict[str, Any]:
    return dict(case.kwargs)


def _ours(v: Any) -> Any:
    if isinstance(v, torch.dtype):
        return dtype_of(torch.empty(0, dtype=v).numpy())
    return v


def _our_kwargs(case: Case) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in case.kwargs:
        if isinstance(v, torch.dtype):
            v = dtype_of(torch.empty(0, dtype=v).numpy())
        out[k] = v
    return out


def _flat(x: Any) -> list[np.ndarray]:
    if isinstance(x, (tuple, list)):
        return [a for item in x for a in _flat(item)]
    if isinstance(x, torch.Tensor):
        return [x.numpy()]
    return [np.asarray(x)]


UNINITIALIZED = frozenset({"aten.empty_like.default", "aten.empty_permuted.default"})
"""Operators whose values torch leaves unspecified: only shape and dtype are compared."""


def _compare(got: Sequence[np.ndarray], want: Sequence[np.ndarray], rtol: float, what: str, op: str = "") -> None:
    assert len(got) == len(want), f"{what}: {len(got)} results, torch gives {len(want)}"
    for g, w in zip(got, want):
        assert g.shape == w.shape, f"{what}: shape {g.shape}, torch {w.shape}"
        assert g.dtype == w.dtype, f"{what}: dtype {g.dtype}, torch {w.dtype}"
        if op in UNINITIALIZED:
            continue
        if w.dtype.kind in "fc":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, err_msg=what)
            if w.dtype.kind == "f":  # the sign of a zero, where both are zero
                zero = (w == 0) & (g == 0)
                np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{what}: sign of zero")
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


def _want(case: Case, args: list[Any]) -> list[np.ndarray]:
    with torch.no_grad():
        res = _torch_op(case.op)(*[_to_torch(a) for a in args], **_torch_kwargs(case))
    return _flat(res)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_interpreter_matches_torch(case: Case) -> None:
    args, _ = _inputs(case, np.random.default_rng(0))
    want = _want(case, args)
    got = aten_kernels.run_kernel(case.op, [_ours(a) for a in args], _our_kwargs(case))
    _compare(_flat(got), want, case.rtol, "interpreter", case.op)


def _one_op_program(case: Case, args: list[Any], tensors: list[np.ndarray], want: Sequence[np.ndarray]) -> ModuleOp:
    """`case.op` applied to graph inputs, as an `exir.call_function` (the spelling every overload has)."""
    types: list[Attribute] = [TensorType(list(t.shape), dtype_of(t)) for t in tensors]
    graph = GraphOp("forward", types, [])
    block = graph.body.block
    inputs = iter(block.args)
    ident = {id(t): next(inputs) for t in tensors}

    def ir(a: Any) -> Any:
        if isinstance(a, np.ndarray):
            return ident[id(a)]
        if isinstance(a, list):
            return [ir(x) for x in a]
        return a

    out_types = [TensorType(list(w.shape), dtype_of(w)) for w in want]
    call = CallFunctionOp(case.op, [ir(a) for a in args], _our_kwargs(case), out_types)
    block.add_op(call)
    outs: list[SSAValue] = list(call.results)
    block.add_op(OutputOp(outs))
    graph = GraphOp("forward", types, out_types, graph.body.clone())
    return ModuleOp(
        [
            ProgramOp(
                [InputSpecAttr(InputKind.user_input, f"x{i}") for i in range(len(types))],
                [OutputSpecAttr(OutputKind.user_output, f"o{i}") for i in range(len(out_types))],
                [graph],
            )
        ]
    )


FIRST_OF_EACH = list({c.op: c for c in reversed(CASES) if c.op in RULES and c.op != "aten.item.default"}.values())
"""One row per operator with a rule (the others are numpy kernels, which `decompose` keeps)."""


KERNEL_GAPS: dict[str, str] = {}
"""Rows whose decomposition is right but runs into a kernel that differs from torch, and how; strict,
so a fixed kernel fails the test until the entry goes."""


@pytest.mark.parametrize("case", FIRST_OF_EACH, ids=[c.id for c in FIRST_OF_EACH])
def test_decompose_pass_leaves_core_aten_and_matches_torch(case: Case, request: pytest.FixtureRequest) -> None:
    if case.op in KERNEL_GAPS:
        request.applymarker(pytest.mark.xfail(strict=True, reason=KERNEL_GAPS[case.op]))
    args, tensors = _inputs(case, np.random.default_rng(1))
    want = _want(case, args)
    module = _one_op_program(case, args, tensors, want)
    after = ph.apply(module, "decompose")
    legal = default_legal_ops()
    left = {
        op.target.data if isinstance(op, CallFunctionOp) else op.name
        for op in after.walk()
        if (isinstance(op, CallFunctionOp) and op.target.data.startswith("aten.")) or op.name.startswith("aten.")
    }
    # an operator without a rule stays, as torch keeps it (sort.stable)
    assert not left - legal - (left - set(RULES)), f"not decomposed to core ATen: {left - legal}"
    _compare(ph.run(after, tensors), want, case.rtol, "after decompose", case.op)


def test_table_covers_several_shapes_per_operator() -> None:
    per_op: dict[str, int] = {}
    for c in CASES:
        per_op[c.op] = per_op.get(c.op, 0) + 1
    few = sorted(op for op, n in per_op.items() if n < 2 and op not in {"aten.swapdims.default", "aten.expand_as.default",
                                                                         "aten.view_as.default", "aten.xlogy.Scalar_Self"})
    assert not few, f"operators tested on one shape only: {few}"




# ---------------------------------------------------------------------------
# Random operators: shape, dtype and distribution
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_log_sigmoid_backward_matches_torch(dtype: str) -> None:
    """The rule recomputes the forward's buffer (e^-|x|); torch's CPU kernel reads it, so it gets the real one."""
    rng = np.random.default_rng(3)
    for shape in [(3, 4), (2, 5, 2)]:
        x, g = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
        _, buffer = torch.ops.aten.log_sigmoid_forward.default(torch.from_numpy(x))
        want = torch.ops.aten.log_sigmoid_backward.default(torch.from_numpy(g), torch.from_numpy(x), buffer).numpy()
        got = aten_kernels.run_kernel("aten.log_sigmoid_backward.default", [g, x, buffer.numpy()], {})
        np.testing.assert_allclose(np.asarray(got), want, rtol=1e-6 if dtype == "float32" else 1e-12, atol=1e-7)


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16"])
def test_random_bernoulli_distribution(dtype: str) -> None:
    aten_kernels.manual_seed(0)
    n = 40_000
    x = np.zeros((200, n // 200), dtype=dtype)
    draws = aten_kernels.run_kernel("aten.bernoulli.p", [x, 0.3], {})
    assert draws.shape == x.shape and draws.dtype == x.dtype
    assert set(np.unique(draws)) <= {0.0, 1.0}
    sigma = np.sqrt(0.3 * 0.7 / n)
    assert abs(float(draws.mean()) - 0.3) < 5 * sigma
    # per-element probabilities: a column of zeros and one of ones are exact
    p = np.tile(np.array([0.0, 0.25, 0.75, 1.0], dtype=dtype), (n // 4, 1))
    draws = aten_kernels.run_kernel("aten.bernoulli.default", [p], {})
    assert draws.dtype == p.dtype
    means = draws.mean(axis=0)
    assert means[0] == 0.0 and means[3] == 1.0
    assert np.all(np.abs(means[1:3] - [0.25, 0.75]) < 5 * np.sqrt(0.25 * 0.75 / (n // 4)))


def test_random_rrelu_training_slopes_are_uniform() -> None:
    aten_kernels.manual_seed(1)
    x = -np.ones((100, 100), dtype=np.float32)
    x[0] = 2.0  # positive inputs pass unchanged
    out, noise = aten_kernels.run_kernel(
        "aten.rrelu_with_noise_functional.default", [x, np.zeros_like(x), 0.1, 0.3, True], {}
    )
    assert out.shape == x.shape and out.dtype == np.float32 and noise.dtype == np.float32
    np.testing.assert_array_equal(out[0], 2.0)
    np.testing.assert_array_equal(noise[0], 1.0)
    slopes = -out[1:]
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    np.testing.assert_array_equal(slopes, noise[1:])
    # uniform on [0.1, 0.3]: mean 0.2, standard deviation 0.2 / sqrt(12)
    assert abs(float(slopes.mean()) - 0.2) < 5 * (0.2 / np.sqrt(12)) / np.sqrt(slopes.size)
    assert abs(float(slopes.std()) - 0.2 / np.sqrt(12)) < 0.005


@pytest.mark.parametrize("op", ["aten.rrelu.default", "aten.rrelu_with_noise_functional.default"])
def test_rrelu_evaluation_matches_torch(op: str) -> None:
    x = np.random.default_rng(3).standard_normal((4, 6)).astype(np.float32)
    args: list[Any] = [x, np.zeros_like(x)] if "noise" in op else [x]
    got = aten_kernels.run_kernel(op, [*args, 0.1, 0.4, False], {})
    want = _torch_op(op)(*[_to_torch(a) for a in args], 0.1, 0.4, False)
    _compare(_flat(got), _flat(want), 1e-6, "rrelu evaluation")


# ---------------------------------------------------------------------------
# In-place and out= variants of decomposed operators (derived from them)
# ---------------------------------------------------------------------------


def _variants() -> list[tuple[str, Case]]:
    """(variant, a row of its functional overload) for every listed in-place/out= variant
    whose functional overload runs through a decomposition."""
    first = {c.op: c for c in reversed(CASES)}
    out: list[tuple[str, Case]] = []
    for name in selected_operators():
        f = functional_variant(name, mutable=True)
        if f in DECOMPOSED and f in first and name != f:
            out.append((name, first[f]))
    return out


VARIANTS = _variants()


@pytest.mark.parametrize("variant,case", VARIANTS, ids=[v for v, _ in VARIANTS])
def test_decomposed_variants_match_torch(variant: str, case: Case) -> None:
    args, _ = _inputs(case, np.random.default_rng(4))
    kwargs = dict(case.kwargs)
    want = _want(case, args)
    schema = schema_of(variant)
    accepted = {a.name for a in schema.arguments}
    kwargs = {k: v for k, v in kwargs.items() if k in accepted}
    ours_kw = {k: v for k, v in _our_kwargs(case).items() if k in accepted}
    if schema.is_out:
        names = [a.name for a in schema.out_arguments]
        outs = [np.zeros_like(w) for w in want]
        got = aten_kernels.run_kernel(variant, args, {**ours_kw, **dict(zip(names, outs))})
        _compare(outs, want, case.rtol, variant, case.op)
        assert all(g is o for g, o in zip(got if isinstance(got, tuple) else (got,), outs))
        return
    # in-place: `self` (the first argument) is written and returned
    mine = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    theirs = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in args]
    base = variant.split(".")[1]
    try:
        returned = getattr(getattr(torch.ops.aten, base), variant.split(".")[2])(*theirs, **kwargs)
    except RuntimeError as e:  # torch refuses the in-place form for these dtypes (result type)
        pytest.skip(f"torch refuses {variant} on this row: {e}")
    got = aten_kernels.run_kernel(variant, mine, ours_kw)
    if variant in HANDWRITTEN_MUTATING:  # in-place view ops: the new view is returned
        _compare([got], [returned.numpy()], case.rtol, variant, case.op)
        return
    assert got is mine[0]
    _compare([mine[0]], [theirs[0].numpy()], case.rtol, variant, case.op)


def test_a_decomposed_creation_op_with_a_device_argument_runs() -> None:
    """torch.export records `device=cpu` on `eye`; the decomposed kernel takes the device attribute as is."""
    from xdsl_exir import api

    class M(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return x + torch.eye(4), torch.linalg.inv(x @ x.mT + 4 * torch.eye(4))

    x = torch.randn(2, 4, 4)
    program = api.load(torch.export.export(M(), (x,)))
    for got, want in zip(program(x), M()(x)):
        np.testing.assert_allclose(np.asarray(got), want.numpy(), rtol=1e-5, atol=1e-5)
