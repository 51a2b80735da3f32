"""Result types of the long tail of training-IR operators: each decomposes (semantics/decompositions), and these types are those of its decomposition."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    NONE_REDUCTION,
    RULES,
    Bound,
    InferenceError,
    NoInference,
    add,
    broadcast_shapes,
    dim_order_of,
    dims_arg,
    factory_type,
    floordiv,
    list_type,
    make_tensor,
    mul,
    number_value,
    numel_of,
    pointwise_type,
    pool_out,
    promote_types,
    reduced_shape,
    result_type,
    rule,
    spatial_arg,
    sum_dtype,
    sym_min,
    unbacked_symbol,
    wrap_dim,
)
from xdsl_exir.utils.dtypes import DEFAULT_FLOAT, Category
from xdsl_exir.utils.op_registry import lookup
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# The long tail of training-IR operators (issue 12): the overloads the aten
# dialect gained so that TorchScript lowers them and `.pt2` imports them as ops;
# each decomposes (semantics/decompositions/), and these types are those of
# its decomposition.
# ---------------------------------------------------------------------------


@rule("aten.lift_fresh_copy.default")
def _lift_fresh_copy(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.channel_shuffle.default", "aten.native_channel_shuffle.default")
def _channel_shuffle(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten._index_put_impl.default")
def _index_put_impl(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.empty_like.default")
def _empty_like(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, b.dtype("dtype") or t.element_dtype, b.device("device") or t.device.data,
                       dim_order_of(b.get("memory_format"), t, t.rank))


@rule("aten.empty_permuted.default")
def _empty_permuted(b: Bound) -> Attribute:
    return factory_type(b, b.sizes("size"), DEFAULT_FLOAT)


@rule("aten.reshape_as.default", "aten.view_as.default")
def _reshape_as(b: Bound) -> Attribute:
    t, other = b.tensor("self"), b.tensor("other")
    return make_tensor(other.sizes, t.element_dtype, t.device.data)


@rule("aten.broadcast_to.default")
def _broadcast_to(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten.expand.default"](b)


def _swapped(t: TensorType, d0: int, d1: int) -> TensorType:
    sizes = list(t.sizes)
    if t.rank:
        d0, d1 = wrap_dim(d0, t.rank), wrap_dim(d1, t.rank)
        sizes[d0], sizes[d1] = sizes[d1], sizes[d0]
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.swapaxes.default")
def _swapaxes(b: Bound) -> Attribute:
    return _swapped(b.tensor("self"), b.int("axis0"), b.int("axis1"))


@rule("aten.swapdims.default")
def _swapdims(b: Bound) -> Attribute:
    return _swapped(b.tensor("self"), b.int("dim0"), b.int("dim1"))


@rule("aten.numpy_T.default")
def _numpy_t(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(list(reversed(t.sizes)), t.element_dtype, t.device.data)


@rule("aten.mT.default")
def _mt(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank < 2:
        raise InferenceError("mT needs at least 2 dimensions")
    return _swapped(t, -1, -2)


@rule("aten.exp2.default")
def _exp2(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_floating(), t.device.data)


@rule("aten.xlogy.Tensor", "aten.xlogy.Scalar_Self", "aten.xlogy.Scalar_Other")
def _xlogy(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype.to_floating(), device)


@rule("aten.fmax.default", "aten.fmin.default")
def _fmax_fmin(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule("aten.linalg_cross.default")
def _linalg_cross(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule("aten.trace.default")
def _trace(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor([], sum_dtype(t, None), t.device.data)


@rule("aten.diff.default")
def _diff(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        raise InferenceError("diff needs at least one dimension")
    d = wrap_dim(b.int("dim"), t.rank)
    length: SymSize = t.sizes[d]
    dtype = t.element_dtype
    for extra in ("prepend", "append"):
        if b.get(extra) is not None:
            other = b.tensor(extra)
            length = add(length, other.sizes[d] if other.rank else 1)
            dtype = promote_types(dtype, other.element_dtype)
    n = b.int("n")
    if isinstance(length, int):
        length = max(length - n, 0)
    else:
        length = add(length, -n)
    return make_tensor([*t.sizes[:d], length, *t.sizes[d + 1 :]], dtype, t.device.data)


@rule("aten.diag_embed.default")
def _diag_embed(b: Bound) -> Attribute:
    t = b.tensor("self")
    rank = t.rank + 1
    d1, d2 = wrap_dim(b.int("dim1"), rank), wrap_dim(b.int("dim2"), rank)
    n = add(t.sizes[-1], abs(b.int("offset")))
    rest = iter(t.sizes[:-1])
    sizes = [n if i in (d1, d2) else next(rest) for i in range(rank)]
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.pixel_shuffle.default", "aten.pixel_unshuffle.default")
def _pixel_shuffle(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank < 3:
        raise InferenceError("pixel (un)shuffle needs at least 3 dimensions")
    c, h, w = t.sizes[-3:]
    if b.schema.name == "pixel_shuffle":
        r = b.int("upscale_factor")
        out = [floordiv(c, r * r), mul(h, r), mul(w, r)]
    else:
        r = b.int("downscale_factor")
        out = [mul(c, r * r), floordiv(h, r), floordiv(w, r)]
    return make_tensor([*t.sizes[:-3], *out], t.element_dtype, t.device.data)


@rule("aten.eye.default", "aten.eye.m")
def _eye(b: Bound) -> Attribute:
    n = b.size("n")
    return factory_type(b, [n, b.size("m") if "m" in b else n], DEFAULT_FLOAT)


@rule("aten._convolution.default", "aten._convolution.deprecated")
def _convolution_full(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten.convolution.default"](b)


@rule("aten.unfold.default")
def _unfold(b: Bound) -> Attribute:
    t = b.tensor("self")
    size, step = b.int("size"), b.int("step")
    if t.rank == 0:
        return make_tensor([size], t.element_dtype, t.device.data)
    d = wrap_dim(b.int("dimension"), t.rank)
    windows = add(floordiv(add(t.sizes[d], -size), step), 1)
    return make_tensor([*t.sizes[:d], windows, *t.sizes[d + 1 :], size], t.element_dtype, t.device.data)


@rule("aten.adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten.adaptive_avg_pool2d.default"](b)


@rule("aten.linalg_vector_norm.default")
def _vector_norm(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = reduced_shape(t, dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, (b.dtype("dtype") or t.element_dtype).to_real(), t.device.data)


@rule("aten.kl_div.default")
def _kl_div(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "target"))
    return make_tensor(shape if b.int("reduction") == NONE_REDUCTION else [], dtype, device)


@rule("aten.threshold_backward.default")
def _threshold_backward(b: Bound) -> Attribute:
    """Eager's TensorIterator promotes the gradient with `self` (int64 grad, float32 self: float32)."""
    return make_tensor(*pointwise_type(b, ("grad_output", "self")))


def _nll_output(b: Bound) -> TensorType:
    t, target = b.tensor("self"), b.tensor("target")
    shape = list(target.sizes) if b.int("reduction") == NONE_REDUCTION and t.rank > 1 else []
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.nll_loss_forward.default", "aten.nll_loss2d_forward.default")
def _nll_loss_forward(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    return [_nll_output(b), make_tensor([], t.element_dtype, t.device.data)]


@rule("aten.nll_loss.default", "aten.nll_loss_nd.default", "aten.nll_loss2d.default", "aten.cross_entropy_loss.default")
def _nll_loss(b: Bound) -> Attribute:
    return _nll_output(b)


@rule("aten.nll_loss_backward.default", "aten.nll_loss2d_backward.default")
def _nll_loss_backward(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.linspace.default")
def _linspace(b: Bound) -> Attribute:
    return factory_type(b, [b.size("steps")], DEFAULT_FLOAT)


@rule("aten.item.default")
def _item(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten._local_scalar_dense.default"](b)


@rule(
    "quantized_decomposed.quantize_per_tensor.default", "quantized_decomposed.quantize_per_tensor.tensor",
    "quantized_decomposed.quantize_per_tensor.tensor2",
)  # fmt: skip
def _quantize_per_tensor(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("dtype") or DType.int8, t.device.data)


@rule(
    "quantized_decomposed.dequantize_per_tensor.default", "quantized_decomposed.dequantize_per_tensor.tensor",
    "quantized_decomposed.dequantize_per_tensor.tensor2",
)  # fmt: skip
def _dequantize_per_tensor(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("out_dtype") or DType.float32, t.device.data)


@rule(
    "aten.square.default", "aten.threshold.default", "aten.glu.default", "aten.celu.default",
    "aten.selu.default", "aten.prelu.default", "aten.hardshrink.default", "aten.softshrink.default",
    "aten.frac.default", "aten.positive.default", "aten.lift_fresh.default", "aten.log_sigmoid.default",
)  # fmt: skip
def _unary_like_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "glu":
        d = wrap_dim(b.int("dim"), t.rank)
        sizes = list(t.sizes)
        sizes[d] = floordiv(sizes[d], 2)
        return make_tensor(sizes, t.element_dtype, t.device.data)
    if b.schema.name == "square" and t.element_dtype == DType.bool:
        return make_tensor(t.sizes, DType.int64, t.device.data)
    return t


@rule("aten.fliplr.default", "aten.flipud.default")
def _flip_lr_ud(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.rms_norm.default")
def _rms_norm(b: Bound) -> Attribute:
    return b.tensor("input")


@rule("aten.sinc.default", "aten.logit.default", "aten.rad2deg.default", "aten.deg2rad.default")
def _float_unary(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_floating(), t.device.data)


@rule("aten.isfinite.default", "aten.isposinf.default", "aten.isneginf.default")
def _bool_unary(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.bool, t.device.data)


@rule("aten.logaddexp.default", "aten.hypot.default", "aten.heaviside.default")
def _promoted_binary(b: Bound) -> Attribute:
    names = ("self", "values") if b.schema.name == "heaviside" else ("self", "other")
    shape, dtype, device = pointwise_type(b, names)
    return make_tensor(shape, dtype, device)


@rule("aten.logsumexp.default")
def _logsumexp(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = reduced_shape(t, dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, t.element_dtype.to_floating(), t.device.data)


@rule("aten.nansum.default")
def _nansum(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = reduced_shape(t, dims_arg(b), bool(b.get("keepdim", False)))
    return make_tensor(shape, sum_dtype(t, b.dtype("dtype")), t.device.data)


@rule("aten.count_nonzero.dim_IntList", "aten.count_nonzero.default")
def _count_nonzero(b: Bound) -> Attribute:
    t = b.tensor("self")
    dim = b.get("dim")
    dims = None if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    return make_tensor(reduced_shape(t, dims, False), DType.int64, t.device.data)


@rule("aten.aminmax.default")
def _aminmax(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    dims = None if b.get("dim") is None else [b.int("dim")]
    shape = reduced_shape(t, dims, bool(b.get("keepdim", False)))
    return [make_tensor(shape, t.element_dtype, t.device.data)] * 2


@rule("aten.dist.default")
def _dist(b: Bound) -> Attribute:
    _, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor([], dtype, device)


@rule("aten.mse_loss.default", "aten.l1_loss.default", "aten.smooth_l1_loss.default", "aten.huber_loss.default",
      "aten.binary_cross_entropy.default", "aten.binary_cross_entropy_with_logits.default")  # fmt: skip
def _pointwise_loss(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "target"))
    return make_tensor(shape if b.int("reduction") == NONE_REDUCTION else [], dtype, device)


@rule("aten.cosine_similarity.default")
def _cosine_similarity(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("x1", "x2"))
    d = wrap_dim(b.int("dim"), len(shape))
    return make_tensor([s for i, s in enumerate(shape) if i != d], dtype, device)


@rule("aten.pairwise_distance.default")
def _pairwise_distance(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("x1", "x2"))
    dtype = dtype.to_floating()  # x1 - x2 + eps
    if not shape:
        return make_tensor([], dtype, device)
    return make_tensor([*shape[:-1], 1] if b.get("keepdim") else shape[:-1], dtype, device)


@rule("aten.tile.default")
def _tile(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = b.ints("dims")
    lead = max(len(dims) - t.rank, 0)
    sizes = [1] * lead + list(t.sizes)
    dims = [1] * (len(sizes) - len(dims)) + dims
    return make_tensor([mul(s, r) for s, r in zip(sizes, dims)], t.element_dtype, t.device.data)


@rule("aten.ravel.default")
def _ravel(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor([numel_of(t.sizes)], t.element_dtype, t.device.data)


@rule("aten.repeat_interleave.self_int")
def _repeat_interleave(b: Bound) -> Attribute:
    t = b.tensor("self")
    r = b.size("repeats")
    if b.get("dim") is None:
        return make_tensor([mul(numel_of(t.sizes), r)], t.element_dtype, t.device.data)
    d = wrap_dim(b.int("dim"), t.rank)
    sizes = list(t.sizes)
    sizes[d] = mul(sizes[d], r)
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.one_hot.default")
def _one_hot(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = b.int("num_classes")
    if n < 0:
        raise NoInference("one_hot without num_classes has a data-dependent size")
    return make_tensor([*t.sizes, n], DType.int64, t.device.data)


@rule("aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input")
def _conv_transpose(b: Bound) -> Attribute:
    x, w = b.tensor("input"), b.tensor("weight")
    n = w.rank - 2
    batched = x.rank == n + 2
    stride, padding = spatial_arg(b, "stride", n), spatial_arg(b, "padding", n)
    output_padding, dilation = spatial_arg(b, "output_padding", n), spatial_arg(b, "dilation", n)
    spatial = [
        add(mul(add(x.sizes[-n + i], -1), stride[i]), -2 * padding[i], dilation[i] * (w.sizes[2 + i] - 1) if isinstance(w.sizes[2 + i], int) else mul(dilation[i], add(w.sizes[2 + i], -1)), output_padding[i], 1)
        for i in range(n)
    ]
    channels = mul(w.sizes[1], b.int("groups"))
    lead = [x.sizes[0], channels] if batched else [channels]
    return make_tensor([*lead, *spatial], x.element_dtype, x.device.data)


@rule(
    "aten.view_copy.default", "aten.permute_copy.default", "aten.transpose_copy.int", "aten.slice_copy.Tensor",
    "aten.unsqueeze_copy.default",
)  # fmt: skip
def _view_copy(b: Bound) -> Attribute | Sequence[Attribute]:
    """A view's `_copy` form has the view's type, contiguous."""
    view = lookup(b.schema.op_name.replace("_copy.", "."))
    assert view is not None
    rule_fn = RULES[view.op_name]
    return rule_fn(Bound(view.schema, dict(b)))


@rule("aten.argsort.default", "aten.argsort.stable")
def _argsort(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, DType.int64, t.device.data)


@rule("aten.msort.default", "aten._safe_softmax.default")
def _like_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "_safe_softmax" and b.dtype("dtype") is not None:
        return make_tensor(t.sizes, cast(DType, b.dtype("dtype")), t.device.data)
    return t


@rule("aten.take_along_dim.default", "aten.index_add.default", "aten.index_copy.default",
      "aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor")  # fmt: skip
def _indexed_like_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    if b.schema.name == "take_along_dim":
        i = b.tensor("indices")
        if b.get("dim") is None:
            return make_tensor([numel_of(i.sizes)], t.element_dtype, t.device.data)
        d = wrap_dim(b.int("dim"), t.rank)
        shape = broadcast_shapes([1 if k == d else s for k, s in enumerate(t.sizes)],
                                 [1 if k == d else s for k, s in enumerate(i.sizes)])
        shape[d] = i.sizes[d]
        return make_tensor(shape, t.element_dtype, t.device.data)
    return t


@rule("aten.std_mean.correction", "aten.std_mean.dim", "aten.std_mean.default")
def _std_mean(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten.var_mean.correction"](b)


@rule("aten.diag.default")
def _diag(b: Bound) -> Attribute:
    t = b.tensor("self")
    k = b.int("diagonal")
    if t.rank == 1:
        n = add(t.sizes[0], abs(k))
        return make_tensor([n, n], t.element_dtype, t.device.data)
    h, w = t.sizes
    if isinstance(h, int) and isinstance(w, int):
        length: SymSize = max(0, min(h + min(k, 0), w - max(k, 0)))
    else:
        length = sym_min(add(h, min(k, 0)), add(w, -max(k, 0)))
    return make_tensor([length], t.element_dtype, t.device.data)


@rule("aten.mv.default", "aten.addmv.default")
def _mv(b: Bound) -> Attribute:
    m = b.tensor("self" if b.schema.name == "mv" else "mat")
    dtype = result_type([b[n] for n in (("self", "vec") if b.schema.name == "mv" else ("self", "mat", "vec"))])
    return make_tensor([m.sizes[0]], dtype, m.device.data)


@rule("aten.ger.default", "aten.addr.default")
def _outer_product(b: Bound) -> Attribute:
    v1, v2 = (b.tensor("self"), b.tensor("vec2")) if b.schema.name == "ger" else (b.tensor("vec1"), b.tensor("vec2"))
    names = ("self", "vec2") if b.schema.name == "ger" else ("self", "vec1", "vec2")
    return make_tensor([v1.sizes[0], v2.sizes[0]], result_type([b[n] for n in names]), v1.device.data)


@rule("aten.inner.default")
def _inner(b: Bound) -> Attribute:
    x, y = b.tensor("self"), b.tensor("other")
    dtype, device = result_type([b["self"], b["other"]]), x.device.data
    if x.rank == 0 or y.rank == 0:
        return make_tensor(broadcast_shapes(x.sizes, y.sizes), dtype, device)
    return make_tensor([*x.sizes[:-1], *y.sizes[:-1]], dtype, device)


@rule("aten._add_relu.Tensor")
def _add_relu(b: Bound) -> Attribute:
    shape, dtype, device = pointwise_type(b, ("self", "other"))
    return make_tensor(shape, dtype, device)


@rule("aten._addmm_activation.default")
def _addmm_activation(b: Bound) -> Attribute:
    m1, m2 = b.tensor("mat1"), b.tensor("mat2")
    dtype = result_type([b[n] for n in ("self", "mat1", "mat2")])
    return make_tensor([m1.sizes[0], m2.sizes[1]], dtype, m1.device.data)


@rule("aten.take.default")
def _take(b: Bound) -> Attribute:
    t, i = b.tensor("self"), b.tensor("index")
    return make_tensor(i.sizes, t.element_dtype, t.device.data)


@rule("aten.max_pool1d.default")
def _max_pool1d(b: Bound) -> Attribute:
    t = b.tensor("self")
    k = b.ints("kernel_size", 1)[0]
    stride = b.ints("stride", 1)[0] if b.get("stride") else k
    out = pool_out(t.sizes[-1], k, stride, b.ints("padding", 1)[0], b.ints("dilation", 1)[0], bool(b["ceil_mode"]))
    return make_tensor([*t.sizes[:-1], out], t.element_dtype, t.device.data)


@rule("aten.atleast_2d.default", "aten.atleast_3d.default")
def _atleast(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = int(b.schema.name[-2])
    sizes = list(t.sizes)
    if len(sizes) >= n:
        return t
    if not sizes:
        sizes = [1] * n
    elif n == 2:
        sizes = [1, *sizes]
    else:
        sizes = [1, *sizes, 1] if len(sizes) == 1 else [*sizes, 1]
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.instance_norm.default")
def _instance_norm(b: Bound) -> Attribute:
    return b.tensor("input")


@rule("aten.upsample_nearest1d.vec", "aten.upsample_nearest1d.default", "aten.upsample_nearest3d.vec",
      "aten.upsample_nearest3d.default")  # fmt: skip
def _upsample_nearest_nd(b: Bound) -> Attribute:
    t = b.tensor("input" if "input" in b else "self")
    n = t.rank - 2
    out_arg = b.get("output_size")
    if out_arg is not None:
        out = b.sizes("output_size", n)
    else:
        factors = cast(list[float] | None, b.get("scale_factors"))
        if factors is None:
            raise InferenceError("either output_size or scale_factors is required")
        out = []
        for s, f in zip(t.sizes[2:], factors):
            if not isinstance(s, int):
                raise NoInference("a symbolic size scaled by a float")
            out.append(int(math.floor(s * float(f))))
    return make_tensor([*t.sizes[:2], *out], t.element_dtype, t.device.data)


@rule(*(f"aten.{w}.{ov}" for w in ("hann_window", "hamming_window", "blackman_window", "bartlett_window")
        for ov in ("default", "periodic")))  # fmt: skip
def _window(b: Bound) -> Attribute:
    return factory_type(b, [b.int("window_length")], DEFAULT_FLOAT)


@rule("aten.range.step", "aten.range.default")
def _range(b: Bound) -> Attribute:
    s, e, st = (float(cast(float, number_value(b.get(k, 1)))) for k in ("start", "end", "step"))
    if st == 0:
        raise InferenceError("range step must be nonzero")
    return factory_type(b, [max(int(math.floor((e - s) / st)) + 1, 0)], DEFAULT_FLOAT)


@rule(
    "aten.sigmoid_backward.default", "aten.tanh_backward.default", "aten.silu_backward.default",
    "aten.gelu_backward.default", "aten.hardswish_backward.default", "aten.hardsigmoid_backward.default",
    "aten.hardtanh_backward.default", "aten.leaky_relu_backward.default", "aten.softplus_backward.default",
    "aten.elu_backward.default", "aten.mish_backward.default", "aten.hardshrink_backward.default",
    "aten.softshrink_backward.default", "aten.log_sigmoid_backward.default", "aten.logit_backward.default",
    "aten.mse_loss_backward.default", "aten.native_dropout_backward.default",
)  # fmt: skip
def _pointwise_backward(b: Bound) -> Attribute:
    """The gradient of a pointwise activation or loss: the broadcast of the gradient and the saved tensor."""
    names = [a.name for a in b.schema.arguments if a.name in _BACKWARD_TENSORS]
    shape, dtype, device = pointwise_type(b, names)
    return make_tensor(shape, dtype, device)


_BACKWARD_TENSORS = frozenset({"grad_output", "grad_out", "self", "output", "self_or_result", "target", "buffer"})


@rule("aten._softmax_backward_data.default", "aten._log_softmax_backward_data.default")
def _softmax_backward_data(b: Bound) -> Attribute:
    t = b.tensor("grad_output")
    return make_tensor(t.sizes, b.dtype("input_dtype") or t.element_dtype, t.device.data)


_ALIAS_RULES: dict[str, str] = {
    **{f"aten.{a}.default": f"aten.{c}.default" for a, c in (
        ("absolute", "abs"), ("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan"), ("arccosh", "acosh"),
        ("arcsinh", "asinh"), ("arctanh", "atanh"), ("fix", "trunc"), ("negative", "neg"),
        ("special_erf", "erf"), ("special_expm1", "expm1"), ("special_log1p", "log1p"), ("special_exp2", "exp2"),
        ("special_expit", "sigmoid"), ("special_logit", "logit"), ("special_sinc", "sinc"), ("erfc", "erf"),
        ("logaddexp2", "logaddexp"), ("sgn", "sign"), ("zero", "clone"), ("concat", "cat"), ("concatenate", "cat"),
        ("special_logsumexp", "logsumexp"), ("feature_dropout", "dropout"), ("alpha_dropout", "dropout"),
        ("feature_alpha_dropout", "dropout"), ("clip", "clamp"),
        ("alias_copy", "alias"), ("detach_copy", "detach"), ("expand_copy", "expand"), ("t_copy", "t"),
        ("squeeze_copy", "squeeze"), ("diagonal_copy", "diagonal"), ("unfold_copy", "unfold"),
        ("as_strided_copy", "as_strided"), ("narrow_copy", "narrow"),
    )},
    **{f"aten.{a}.{o}": f"aten.{c}.{o}" for a, c, overloads in (
        ("multiply", "mul", ("Tensor", "Scalar")), ("subtract", "sub", ("Tensor", "Scalar")),
        ("greater", "gt", ("Tensor", "Scalar")), ("greater_equal", "ge", ("Tensor", "Scalar")),
        ("less", "lt", ("Tensor", "Scalar")), ("less_equal", "le", ("Tensor", "Scalar")),
        ("not_equal", "ne", ("Tensor", "Scalar")), ("clip", "clamp", ("Tensor",)),
        ("moveaxis", "movedim", ("int", "intlist")),
        ("squeeze_copy", "squeeze", ("dim", "dims")), ("select_copy", "select", ("int",)),
    ) for o in overloads},
    "aten.special_xlogy.default": "aten.xlogy.Tensor",
    "aten.special_xlogy.other_scalar": "aten.xlogy.Scalar_Other",
    "aten.special_xlogy.self_scalar": "aten.xlogy.Scalar_Self",
    "aten.special_softmax.default": "aten.softmax.int",
    "aten.special_log_softmax.default": "aten.log_softmax.int",
    "aten.special_round.default": "aten.round.decimals",
}  # fmt: skip
"""Aliases (torch's other spellings, `_copy` forms of views) whose result type is their operator's."""

for _alias, _canonical in _ALIAS_RULES.items():
    rule(_alias)(RULES[_canonical])


# -- kernels of issue 21's missing list (semantics/kernels/long_tail.py) --------------


@rule("aten.kthvalue.default")
def _kthvalue(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    keepdim = bool(b.get("keepdim", False))
    if t.rank == 0:
        shape: list[SymSize] = []
    else:
        d = wrap_dim(b.int("dim"), t.rank)
        shape = [1 if i == d else s for i, s in enumerate(t.sizes) if keepdim or i != d]
    return [make_tensor(shape, t.element_dtype, t.device.data), make_tensor(shape, DType.int64, t.device.data)]


@rule("aten.bincount.default")
def _bincount(b: Bound) -> Attribute:
    """The length is one past the largest value (data-dependent): an unbacked size, as torch's."""
    t, w = b.tensor("self"), b.opt_tensor("weights")
    if t.rank != 1 or t.element_dtype.category is not Category.INTEGRAL:
        raise InferenceError("bincount only supports 1-d non-negative integral inputs")
    dtype = DType.int64 if w is None else w.element_dtype if w.element_dtype in (DType.float32, DType.float64) else DType.float64
    return make_tensor([unbacked_symbol()], dtype, t.device.data)


@rule("aten.bucketize.Tensor", "aten.bucketize.Scalar")
def _bucketize(b: Bound) -> Attribute:
    bounds = b.tensor("boundaries")
    shape = list(b.tensor("self").sizes) if b.schema.overload_name == "Tensor" else []
    return make_tensor(shape, DType.int32 if b.get("out_int32") else DType.int64, bounds.device.data)


@rule("aten.repeat_interleave.Tensor")
def _repeat_interleave_tensor(b: Bound) -> Attribute:
    r = b.tensor("repeats")
    n = b.get("output_size")
    return make_tensor([b.size("output_size") if n is not None else unbacked_symbol()], DType.int64, r.device.data)


@rule("aten.repeat_interleave.self_Tensor")
def _repeat_interleave_self(b: Bound) -> Attribute:
    t = b.tensor("self")
    total = b.size("output_size") if b.get("output_size") is not None else unbacked_symbol()
    if b.get("dim") is None:
        return make_tensor([total], t.element_dtype, t.device.data)
    d = wrap_dim(b.int("dim"), t.rank)
    return make_tensor([total if i == d else s for i, s in enumerate(t.sizes)], t.element_dtype, t.device.data)


@rule("aten.meshgrid.default", "aten.meshgrid.indexing")
def _meshgrid(b: Bound) -> Attribute:
    tensors = b.tensors("tensors")
    sizes: list[SymSize] = [t.sizes[0] if t.rank else 1 for t in tensors]
    if any(t.rank > 1 for t in tensors):
        raise InferenceError("meshgrid expects 0-d or 1-d tensors")
    if b.get("indexing", "ij") == "xy" and len(sizes) >= 2:
        sizes[0], sizes[1] = sizes[1], sizes[0]
    return list_type([make_tensor(sizes, t.element_dtype, t.device.data) for t in tensors])


@rule("aten.renorm.default")
def _renorm(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.element_dtype.category < Category.FLOATING:
        raise InferenceError("renorm expects a floating point tensor")
    return t


@rule("aten.new_empty_strided.default")
def _new_empty_strided(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(b.sizes("size"), b.dtype("dtype") or t.element_dtype, b.device("device") or t.device.data)


@rule("aten._int_mm.default")
def _int_mm(b: Bound) -> Attribute:
    x, y = b.tensor("self"), b.tensor("mat2")
    if x.rank != 2 or y.rank != 2 or x.element_dtype is not DType.int8 or y.element_dtype is not DType.int8:
        raise InferenceError("_int_mm expects two 2-d int8 matrices")
    return make_tensor([x.sizes[0], y.sizes[1]], DType.int32, x.device.data)


@rule("aten.adaptive_max_pool1d.default")
def _adaptive_max_pool1d(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    if t.rank not in (2, 3):
        raise InferenceError("adaptive_max_pool1d expects a 2-d or 3-d input")
    shape = [*t.sizes[:-1], b.sizes("output_size", 1)[0]]
    return [make_tensor(shape, t.element_dtype, t.device.data), make_tensor(shape, DType.int64, t.device.data)]


@rule("quantized_decomposed.quantize_per_channel.default")
def _quantize_per_channel(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("dtype") or DType.int8, t.device.data)


@rule("quantized_decomposed.dequantize_per_channel.default")
def _dequantize_per_channel(b: Bound) -> Attribute:
    t = b.tensor("input")
    return make_tensor(t.sizes, b.dtype("out_dtype") or DType.float32, t.device.data)
