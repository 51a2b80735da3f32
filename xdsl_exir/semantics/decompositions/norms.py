"""Decompositions of the normalization layers (`batch_norm`, `_native_batch_norm_legit_functional`, `group_norm`, `instance_norm`, `rms_norm`), of weight normalization (`_weight_norm`, `_weight_norm_interface`, `norm_except_dim`) and of `renorm`."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    Layout,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    computed_in_float32,
    number_arg,
    op_name,
    rule,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.symbolic import SymSize


def _norm_except_dim(e: Emitter, v: SSAValue, p: float, dim: int) -> SSAValue:
    """The p-norm over every dim but `dim`, kept as size-1 dims (`dim == -1`: the whole tensor)."""
    rank = tensor_of(v).rank
    if dim == -1:
        return e.v("aten.linalg_vector_norm.default", v, p)
    dims = [d for d in range(rank) if d != dim % max(rank, 1)]
    return e.v("aten.linalg_vector_norm.default", v, p, dims, True)


@rule("aten.norm_except_dim.default")
def _norm_except_dim_rule(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [_norm_except_dim(e, b.value("v"), float(b.int("pow")), b.int("dim"))]


@rule("aten._weight_norm.default", "aten._weight_norm_interface.default")
def _weight_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """w = v * (g / ||v||) with the norm over every dim but `dim`; `_weight_norm_interface` also
    returns the norm."""
    v, g = b.value("v"), b.value("g")
    norm = _norm_except_dim(e, v, 2.0, b.int("dim"))
    w = e.v("aten.mul.Tensor", v, e.v("aten.div.Tensor", g, norm))
    if op_name(op) == "aten._weight_norm_interface.default":
        return [w, norm]
    return [w]


@rule("aten.renorm.default")
def _renorm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `renorm`: each slice along `dim` whose p-norm exceeds `maxnorm` scaled by
    `maxnorm / (norm + 1e-7)`."""
    x = b.value("self")
    t = tensor_of(x)
    p, maxnorm = b["p"], b["maxnorm"]
    if isinstance(p, SSAValue) or isinstance(maxnorm, SSAValue) or t.rank == 0 or not t.element_dtype.is_floating_point:
        raise Decline()
    dim = b.int("dim") % t.rank
    dims = [d for d in range(t.rank) if d != dim]
    norm = e.v("aten.linalg_vector_norm.default", x, p, dims, True)
    factor = e.v("aten.mul.Tensor", e.v("aten.reciprocal.default", e.v("aten.add.Tensor", norm, 1e-7)), maxnorm)
    one = e.v("aten.full_like.default", norm, 1.0)
    scale = e.v("aten.where.self", e.v("aten.gt.Scalar", norm, maxnorm), factor, one)
    return [e.v("aten.mul.Tensor", x, scale)]


@rule("aten.rms_norm.default")
def _rms_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x * rsqrt(mean(x^2 over the normalized dims) + eps) * weight; eps defaults to the
    dtype's machine epsilon, as torch's rms_norm. float16 and bfloat16 are computed
    in float32, weight included, and rounded once, as torch's kernel and its own
    decomposition do (rounding each step differs by an ulp in a quarter of the values)."""
    x = b.value("input")
    t = tensor_of(x)
    n = len(b.ints("normalized_shape"))
    dims = list(range(t.rank - n, t.rank))
    eps = b.get("eps")
    if eps is None:
        eps = {DType.float64: 2.220446049250313e-16, DType.float16: 0.0009765625,
               DType.bfloat16: 0.0078125}.get(t.element_dtype, 1.1920928955078125e-07)
    wide = t.element_dtype.opmath()
    if wide != t.element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=wide)
    ms = e.v("aten.mean.dim", e.v("aten.mul.Tensor", x, x), dims, True)
    out = e.v("aten.mul.Tensor", x, e.v("aten.rsqrt.default", e.v("aten.add.Tensor", ms, eps)))
    weight = b.get("weight")
    if isinstance(weight, SSAValue):
        if tensor_of(weight).element_dtype != tensor_of(out).element_dtype:
            weight = e.v("aten._to_copy.default", weight, dtype=tensor_of(out).element_dtype)
        out = e.v("aten.mul.Tensor", out, weight)
    if wide != t.element_dtype:
        out = e.v("aten._to_copy.default", out, dtype=t.element_dtype)
    return [out]


@rule("aten.batch_norm.default")
def _batch_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Inference batch norm -> `_native_batch_norm_legit_no_training` + getitem 0."""
    if b["training"] or b.get("running_mean") is None or b.get("running_var") is None:
        raise Decline()  # training mode updates buffers: functionalization's business
    new = e.call(
        "aten._native_batch_norm_legit_no_training.default",
        b["input"], b.get("weight"), b.get("bias"), b["running_mean"], b["running_var"],
        b["momentum"], b["eps"],
    )
    return [e.item(new, 0)]


@rule("aten._native_batch_norm_legit_functional.default")
@computed_in_float32
def _batch_norm_functional(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    The batch norm of training graphs, with the running statistics returned
    instead of written (torch's `_native_batch_norm_legit_functional`), as the
    interpreter's kernel and torch's CPU kernel compute it. Training: the
    biased variance and mean per channel, `(x - mean) * rsqrt(var + eps)`
    scaled and shifted, and the running statistics moved by `momentum`
    towards the mean and the unbiased variance (`var * n / (n - 1)`, n the
    elements per channel). Evaluation: one scale and shift per channel from
    the running statistics, which come back unchanged, and empty saved
    statistics. Float16 and bfloat16 on float32 copies (`computed_in_float32`).
    """
    x = b.value("input")
    t = tensor_of(x)
    if t.rank < 2 or t.element_dtype not in (DType.float32, DType.float64):
        raise Decline()
    running_mean, running_var = b.value("running_mean"), b.value("running_var")
    channels = t.sizes[1]
    numel = t.numel()
    if not isinstance(channels, int) or not isinstance(numel, int):
        raise Decline()
    momentum, eps = number_arg(b, "momentum"), number_arg(b, "eps")
    shape: list[SymSize] = [1] * t.rank
    shape[1] = channels
    weight, bias = b.get("weight"), b.get("bias")
    if not b.get("training"):
        scale = e.v("aten.rsqrt.default", e.v("aten.add.Tensor", running_var, eps))
        empty = e.v("aten.full.default", [0], 0.0, dtype=t.element_dtype, layout=Layout.strided,
                    device=DeviceAttr(t.device.data), pin_memory=False)
        if isinstance(weight, SSAValue):
            scale = e.v("aten.mul.Tensor", scale, weight)
        shift = e.v("aten.mul.Tensor", running_mean, scale)
        shift = e.v("aten.sub.Tensor", bias, shift) if isinstance(bias, SSAValue) else e.v("aten.neg.default", shift)
        out = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x, e.v("aten.view.default", scale, shape)),
                  e.v("aten.view.default", shift, shape))
        return [out, empty, empty, running_mean, running_var]
    dims = [d for d in range(t.rank) if d != 1]
    stats = e.call("aten.var_mean.correction", x, dims, correction=0, keepdim=True)
    var, mean = e.item(stats, 0), e.item(stats, 1)
    rstd = e.v("aten.rsqrt.default", e.v("aten.add.Tensor", var, eps))
    out = e.v("aten.mul.Tensor", e.v("aten.sub.Tensor", x, mean), rstd)
    if isinstance(weight, SSAValue):
        out = e.v("aten.mul.Tensor", out, e.v("aten.view.default", weight, shape))
    if isinstance(bias, SSAValue):
        out = e.v("aten.add.Tensor", out, e.v("aten.view.default", bias, shape))
    save_mean, save_rstd = e.v("aten.squeeze.dims", mean, dims), e.v("aten.squeeze.dims", rstd, dims)
    count = numel // channels if channels else 0
    unbiased = e.v("aten.mul.Tensor", e.v("aten.squeeze.dims", var, dims), count / max(count - 1, 1))

    def moved(running: SSAValue, batch: SSAValue) -> SSAValue:
        stay = e.v("aten.mul.Tensor", running, 1 - momentum)
        return e.v("aten.add.Tensor", stay, e.v("aten.mul.Tensor", batch, momentum))

    return [out, save_mean, save_rstd, moved(running_mean, save_mean), moved(running_var, unbiased)]


@rule("aten.instance_norm.default")
def _instance_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Input statistics per sample and channel over the spatial dims (biased variance);
    running statistics are not updated. The result is `x * alpha + beta` with
    `alpha = rstd * weight` and `beta = bias - mean * alpha`, the one scale and
    shift per (sample, channel) of torch's CPU batch norm, which instance norm
    runs on: with an infinite weight a zero `x` is then NaN, as in torch, where
    `(x - mean) * rstd * weight + bias` would give an infinity. Without
    `use_input_stats` torch runs an inference batch norm of the running statistics,
    repeated per sample: the same per channel, so one of the input as it is."""
    x = b.value("input")
    if not b.get("use_input_stats"):
        if b.get("running_mean") is None or b.get("running_var") is None:
            raise Decline()
        new = e.call(
            "aten._native_batch_norm_legit_no_training.default",
            x, b.get("weight"), b.get("bias"), b["running_mean"], b["running_var"], b["momentum"], b["eps"],
        )
        return [e.item(new, 0)]
    t = tensor_of(x)
    if t.rank < 3 or not t.element_dtype.is_floating_point:
        raise Decline()
    dims = list(range(2, t.rank))
    stats = e.call("aten.var_mean.correction", x, dims, correction=0, keepdim=True)
    var, mean = e.item(stats, 0), e.item(stats, 1)
    alpha = e.v("aten.rsqrt.default", e.v("aten.add.Tensor", var, b["eps"]))
    shape: list[SymSize] = [1] * t.rank
    shape[1] = t.sizes[1]
    if isinstance(b.get("weight"), SSAValue):
        alpha = e.v("aten.mul.Tensor", alpha, e.v("aten.view.default", b["weight"], e.sizes(shape)))
    shift = e.v("aten.mul.Tensor", mean, alpha)
    if isinstance(b.get("bias"), SSAValue):
        beta = e.v("aten.sub.Tensor", e.v("aten.view.default", b["bias"], e.sizes(shape)), shift)
    else:
        beta = e.v("aten.rsub.Scalar", shift, 0)  # 0 - shift, as torch's absent bias: +0.0, never -0.0
    return [e.v("aten.add.Tensor", e.v("aten.mul.Tensor", x, alpha), beta)]


@rule("aten.group_norm.default")
def _group_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's `group_norm`: `native_group_norm` with N, C and the product of the spatial
    sizes, its first result."""
    x = b.value("input")
    t = tensor_of(x)
    if t.rank < 2:
        raise Decline()
    spatial: SymSize = 1
    for s in t.sizes[2:]:
        spatial = spatial * s
    n, c, hw = e.sizes([t.sizes[0], t.sizes[1], spatial])
    stats = e.call("aten.native_group_norm.default", x, b.get("weight"), b.get("bias"), n, c, hw,
                   b.int("num_groups"), b["eps"])
    return [e.item(stats, 0)]
