"""Result types of the linear-algebra (LAPACK) operators."""

from __future__ import annotations

from xdsl.ir import Attribute, SSAValue

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    broadcast_shapes,
    dims_arg,
    make_tensor,
    reduced_shape,
    rule,
)
from xdsl_exir.utils.symbolic import SymSize, sympy

# -- linear algebra (kernels in semantics/kernels/lapack.py) ------------------------


def _matrices(b: Bound, name: str, square: bool = False) -> TensorType:
    """A batch of floating matrices (torch's linalg functions take no integer tensors)."""
    t = b.tensor(name)
    if t.rank < 2:
        raise InferenceError(f"{b.schema.name}: {name} must have at least 2 dimensions")
    if not (t.element_dtype.is_floating_point or t.element_dtype.is_complex):
        raise InferenceError(f"{b.schema.name}: expected a floating point tensor, got {t.element_dtype.value}")
    m, n = t.sizes[-2], t.sizes[-1]
    if square and isinstance(m, int) and isinstance(n, int) and m != n:
        raise InferenceError(f"{b.schema.name}: {name} must be batches of square matrices")
    return t


def _smaller(m: SymSize, n: SymSize) -> SymSize:
    return min(m, n) if isinstance(m, int) and isinstance(n, int) else sympy.Min(m, n)


@rule(
    "aten.linalg_inv.default", "aten.inverse.default", "aten.linalg_matrix_exp.default", "aten.matrix_exp.default",
    "aten.linalg_matrix_power.default", "aten.matrix_power.default", "aten.linalg_cholesky.default",
    "aten.cholesky.default", "aten.cholesky_inverse.default",
)  # fmt: skip
def _linalg_same(b: Bound) -> Attribute:
    name = "A" if "A" in b else "self"
    square = b.schema.name not in ("cholesky_inverse",)
    if b.schema.name in ("matrix_power", "linalg_matrix_power"):
        t = b.tensor(name)
        if t.rank < 2:
            raise InferenceError(f"{b.schema.name}: the input must have at least 2 dimensions")
        return t
    return _matrices(b, name, square)


@rule("aten.linalg_inv_ex.default", "aten.linalg_cholesky_ex.default")
def _linalg_with_info(b: Bound) -> list[Attribute]:
    t = _matrices(b, "A" if "A" in b else "self", True)
    return [t, make_tensor(t.sizes[:-2], DType.int32, t.device.data)]


@rule("aten.linalg_det.default", "aten.det.default", "aten.logdet.default")
def _linalg_det(b: Bound) -> Attribute:
    t = _matrices(b, "A" if "A" in b else "self", True)
    return make_tensor(t.sizes[:-2], t.element_dtype, t.device.data)


@rule("aten.linalg_slogdet.default", "aten.slogdet.default")
def _linalg_slogdet(b: Bound) -> list[Attribute]:
    t = _matrices(b, "A" if "A" in b else "self", True)
    batch = make_tensor(t.sizes[:-2], t.element_dtype, t.device.data)
    return [batch, batch]


@rule("aten.linalg_svdvals.default")
def _linalg_svdvals(b: Bound) -> Attribute:
    t = _matrices(b, "A")
    return make_tensor([*t.sizes[:-2], _smaller(t.sizes[-2], t.sizes[-1])], t.element_dtype, t.device.data)


@rule("aten.linalg_eigvalsh.default")
def _linalg_eigvalsh(b: Bound) -> Attribute:
    t = _matrices(b, "self", True)
    return make_tensor(t.sizes[:-1], t.element_dtype, t.device.data)


@rule("aten.linalg_eigh.default")
def _linalg_eigh(b: Bound) -> list[Attribute]:
    t = _matrices(b, "self", True)
    return [make_tensor(t.sizes[:-1], t.element_dtype, t.device.data), t]


@rule("aten.linalg_qr.default")
def _linalg_qr(b: Bound) -> list[Attribute]:
    t = _matrices(b, "A")
    m, n = t.sizes[-2], t.sizes[-1]
    mode = b.get("mode", "reduced") or "reduced"
    k = m if mode == "complete" else _smaller(m, n)
    r = make_tensor([*t.sizes[:-2], k, n], t.element_dtype, t.device.data)
    if mode == "r":
        return [make_tensor([0], t.element_dtype, t.device.data), r]
    return [make_tensor([*t.sizes[:-2], m, k], t.element_dtype, t.device.data), r]


@rule("aten.linalg_pinv.default", "aten.linalg_pinv.atol_rtol_float", "aten.linalg_pinv.atol_rtol_tensor",
      "aten.linalg_pinv.rcond_tensor", "aten.pinverse.default")
def _linalg_pinv(b: Bound) -> Attribute:
    """(..., n, m); tolerance tensors broadcast with the batch dims."""
    t = _matrices(b, "self")
    tols = [b.tensor(n).sizes for n in ("rcond", "atol", "rtol") if isinstance(b.get(n), SSAValue)]
    batch = broadcast_shapes(t.sizes[:-2], *tols) if tols else list(t.sizes[:-2])
    return make_tensor([*batch, t.sizes[-1], t.sizes[-2]], t.element_dtype, t.device.data)


@rule("aten.linalg_matrix_norm.default", "aten.linalg_matrix_norm.str_ord")
def _linalg_matrix_norm(b: Bound) -> Attribute:
    t = _matrices(b, "self")
    dims = b.ints("dim") if b.get("dim") is not None else [-2, -1]
    dtype = b.dtype("dtype") or t.element_dtype
    return make_tensor(reduced_shape(t, dims, bool(b.get("keepdim", False))), dtype, t.device.data)


@rule("aten.linalg_norm.default", "aten.linalg_norm.ord_str")
def _linalg_norm(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not (t.element_dtype.is_floating_point or t.element_dtype.is_complex):
        raise InferenceError(f"linalg.norm: expected a floating point tensor, got {t.element_dtype.value}")
    dims = dims_arg(b)
    dtype = b.dtype("dtype") or t.element_dtype
    return make_tensor(reduced_shape(t, dims, bool(b.get("keepdim", False))), dtype, t.device.data)
