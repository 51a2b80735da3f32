"""Decompositions of the long tail of operators torch.export's training IR emits (torch/_refs, torch/_decomp)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    Layout,
    MemoryFormat,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    as_float,
    as_tensor_like,
    cast_to_dtype,
    fill_value_for,
    full_value,
    movedim,
    number_arg,
    one_minus,
    op_name,
    reduce_loss,
    rule,
    scalar_tensor,
    simplify_size,
    size_product,
    sizes_equal,
    tensor_of,
    wrapped_dim,
    xlogy_of,
    zero_like,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.broadcast import broadcast_shapes
from xdsl_exir.utils.erfc_fit import ERFCX_HIGH, ERFCX_LOW, ERFCX_P, ERFCX_Q
from xdsl_exir.utils.op_registry import lookup

# -- the long tail: operators torch.export's training IR emits ---------------------
# Each follows the semantics of torch/_refs or torch/_decomp (read for semantics,
# written here in this table's terms); the interpreter runs them through the
# same rules (semantics/kernels/decomposed.py).


@rule("aten.detach.default", "aten.alias.default")
def _identity(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """No autograd here: `detach` and `alias` are their argument (torch drops them too)."""
    return [b.value("self")]


@rule("aten.all.default", "aten.all.dim", "aten.all.dims")
def _all(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`all(x) = not any(not x)`, over the same dims, as torch's core IR writes it."""
    inverted = e.v("aten.logical_not.default", b["self"])
    keep = bool(b.get("keepdim", False))
    name = op_name(op)
    if name == "aten.all.default":
        anyv = e.v("aten.any.dims", inverted)
    elif name == "aten.all.dim":
        anyv = e.v("aten.any.dim", inverted, b.int("dim"), keep)
    else:
        anyv = e.v("aten.any.dims", inverted, b.get("dim"), keep)
    return [e.v("aten.logical_not.default", anyv)]


@rule("aten.rsub.Scalar", "aten.rsub.Tensor")
def _rsub(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`other - alpha * self` (`sub.Tensor` with the Scalar first, as torch writes it)."""
    alpha = b.get("alpha", 1)
    if alpha != 1:
        return [e.v("aten.sub.Tensor", b["other"], b["self"], alpha=alpha)]
    return [e.v("aten.sub.Tensor", b["other"], b["self"])]


@rule("aten.lift_fresh_copy.default")
def _lift_fresh_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.clone.default", b["self"])]


@rule("aten.reshape_as.default")
def _reshape_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.reshape(b.value("self"), list(tensor_of(b["other"]).sizes))]


@rule("aten.view_as.default")
def _view_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.view.default", b["self"], e.sizes(tensor_of(b["other"]).sizes))]


@rule("aten.expand_as.default")
def _expand_as(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.expand.default", b["self"], e.sizes(tensor_of(b["other"]).sizes))]


@rule("aten.broadcast_to.default")
def _broadcast_to(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.expand.default", b["self"], b["size"])]


@rule("aten.swapaxes.default", "aten.swapdims.default")
def _swapaxes(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    rank = tensor_of(x).rank
    d0, d1 = (b.int("axis0"), b.int("axis1")) if "axis0" in b else (b.int("dim0"), b.int("dim1"))
    perm = list(range(rank))
    if rank:
        d0, d1 = d0 % rank, d1 % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return [e.v("aten.permute.default", x, perm)]


@rule("aten.numpy_T.default")
def _numpy_t(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    return [e.v("aten.permute.default", x, list(reversed(range(tensor_of(x).rank))))]


@rule("aten.mT.default", "aten.adjoint.default")
def _mt(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if tensor_of(x).rank < 2 or tensor_of(x).element_dtype.is_complex:
        raise Decline()
    return [movedim(e, x, -1, -2)]


@rule("aten.movedim.int", "aten.moveaxis.int")
def _movedim_int(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [movedim(e, b.value("self"), b.int("source"), b.int("destination"))]


@rule("aten.movedim.intlist", "aten.moveaxis.intlist")
def _movedim_list(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    rank = tensor_of(x).rank
    src = [wrapped_dim(rank, d) for d in b.ints("source")]
    dst = [wrapped_dim(rank, d) for d in b.ints("destination")]
    order: list[int | None] = [None] * rank
    for s_, d_ in zip(src, dst):
        order[d_] = s_
    rest = iter(d for d in range(rank) if d not in src)
    return [e.v("aten.permute.default", x, [o if o is not None else next(rest) for o in order])]


@rule("aten.empty_like.default", "aten.empty_permuted.default")
def _empty_like(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Uninitialized memory in torch; zeros here, so that results are reproducible."""
    if "self" in b:
        like = tensor_of(b["self"])
        return [full_value(e, b, like.sizes, 0, like)]
    return [full_value(e, b, b["size"], 0, None)]


@rule("aten.exp2.default")
def _exp2(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.pow.Scalar", 2.0, b["self"])]


@rule("aten.xlogy.Tensor", "aten.xlogy.Scalar_Self", "aten.xlogy.Scalar_Other")
def _xlogy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.xlogy: 0 where self is 0, NaN where other is NaN, else self * log(other)."""
    x, y = b["self"], b["other"]
    like = tensor_of(x) if isinstance(x, SSAValue) else tensor_of(y)
    return [xlogy_of(e, as_tensor_like(e, x, like), as_tensor_like(e, y, like))]




@rule("aten.fmax.default", "aten.fmin.default")
def _fmax(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The larger (smaller) of two values, the other where one is NaN."""
    x, y = b.value("self"), b.value("other")
    cmp = "aten.ge.Tensor" if op_name(op) == "aten.fmax.default" else "aten.le.Tensor"
    pick = e.v(cmp, x, y)
    if tensor_of(y).element_dtype.is_floating_point:
        pick = e.v("aten.logical_or.default", pick, e.v("aten.isnan.default", y))
    return [e.v("aten.where.self", pick, x, y)]


@rule("aten.trace.default")
def _trace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if tensor_of(x).rank != 2:
        raise Decline()
    return [e.v("aten.sum.dim_IntList", e.v("aten.diagonal.default", x), [])]


@rule("aten.diff.default")
def _diff(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.diff: `n` times `x[1:] - x[:-1]` (`!=` for bool) along `dim`, after
    concatenating `prepend` and `append`."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0:
        raise Decline()
    dim = b.int("dim") % t.rank
    parts = [p for p in (b.get("prepend"), x, b.get("append")) if p is not None]
    if len(parts) > 1:
        x = e.v("aten.cat.default", parts, dim)
    for _ in range(b.int("n")):
        length = tensor_of(x).sizes[dim]
        if isinstance(length, int) and length == 0:
            break
        hi = e.v("aten.slice.Tensor", x, dim, 1, e.size(length))
        lo = e.v("aten.slice.Tensor", x, dim, 0, e.size(simplify_size(length - 1)))
        x = e.v("aten.ne.Tensor" if t.element_dtype == DType.bool else "aten.sub.Tensor", hi, lo)
    return [x]


@rule("aten.diag_embed.default")
def _diag_embed(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.diag_embed: put the last dim on a diagonal of two new dims, by a mask."""
    x = b.value("self")
    t = tensor_of(x)
    rank = t.rank + 1
    d1, d2, offset = b.int("dim1") % rank, b.int("dim2") % rank, b.int("offset")
    if d1 == d2:
        raise Decline()
    if d1 > d2:
        d1, d2, offset = d2, d1, -offset
    last = t.sizes[-1]
    if not isinstance(last, int):
        raise Decline()
    if offset:
        zeros = e.v(
            "aten.full.default", e.sizes([*t.sizes[:-1], abs(offset)]), fill_value_for(t.element_dtype, 0),
            dtype=t.element_dtype, layout=Layout.strided, device=DeviceAttr(t.device.data), pin_memory=False,
        )
        x = e.v("aten.cat.default", [zeros, x] if offset > 0 else [x, zeros], -1)
        last += abs(offset)
    x = movedim(e, e.v("aten.unsqueeze.default", x, d1), -1, d2)
    device = DeviceAttr(t.device.data)
    cols = e.v("aten.arange.start_step", 0, last, layout=Layout.strided, device=device, pin_memory=False)
    rows = e.v("aten.arange.start_step", offset, last + offset, layout=Layout.strided, device=device, pin_memory=False)
    cond = e.v("aten.eq.Tensor", cols, e.v("aten.unsqueeze.default", rows, -1))
    cond = e.v("aten.view.default", cond, [last if i in (d1, d2) else 1 for i in range(rank)])
    return [e.v("aten.where.self", cond, x, zero_like(e, t))]


@rule("aten.channel_shuffle.default", "aten.native_channel_shuffle.default")
def _channel_shuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    g = b.int("groups")
    c = t.sizes[1]
    if t.rank < 3 or not isinstance(c, int) or c % g:
        raise Decline()
    n, rest = t.sizes[0], list(t.sizes[2:])
    y = e.v("aten.view.default", x, e.sizes([n, g, c // g, *rest]))
    y = e.v("aten.permute.default", y, [0, 2, 1, *range(3, t.rank + 1)])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes(t.sizes))]


@rule("aten.pixel_shuffle.default")
def _pixel_shuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    r = b.int("upscale_factor")
    if t.rank < 3:
        raise Decline()
    lead = list(t.sizes[:-3])
    c, h, w = t.sizes[-3:]
    if not isinstance(c, int):
        raise Decline()
    oc = c // (r * r)
    k = len(lead)
    y = e.v("aten.view.default", x, e.sizes([*lead, oc, r, r, h, w]))
    y = e.v("aten.permute.default", y, [*range(k), k, k + 3, k + 1, k + 4, k + 2])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*lead, oc, simplify_size(h * r), simplify_size(w * r)]))]


@rule("aten.pixel_unshuffle.default")
def _pixel_unshuffle(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    t = tensor_of(x)
    r = b.int("downscale_factor")
    if t.rank < 3 or not all(isinstance(s, int) for s in t.sizes[-2:]):
        raise Decline()
    lead = list(t.sizes[:-3])
    c, h, w = t.sizes[-3], cast(int, t.sizes[-2]), cast(int, t.sizes[-1])
    k = len(lead)
    y = e.v("aten.view.default", x, e.sizes([*lead, c, h // r, r, w // r, r]))
    y = e.v("aten.permute.default", y, [*range(k), k, k + 2, k + 4, k + 1, k + 3])
    y = e.v("aten.clone.default", y, memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.view.default", y, e.sizes([*lead, simplify_size(c * r * r), h // r, w // r]))]


@rule("aten.eye.default", "aten.eye.m")
def _eye(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = b["n"]
    m = b.get("m", n) if "m" in b else n
    device = b.get("device") or DeviceAttr("cpu")
    rows = e.v("aten.arange.start_step", 0, n, layout=Layout.strided, device=device, pin_memory=False)
    cols = e.v("aten.arange.start_step", 0, m, layout=Layout.strided, device=device, pin_memory=False)
    mask = e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", rows, -1), cols)
    return [e.v("aten._to_copy.default", mask, dtype=b.dtype("dtype") or DType.float32)]


@rule("aten._convolution.default", "aten._convolution.deprecated")
def _convolution_full(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [
        e.v(
            "aten.convolution.default", b["input"], b["weight"], b.get("bias"), b["stride"], b["padding"],
            b["dilation"], b["transposed"], b["output_padding"], b["groups"],
        )
    ]


def _storage_read(value: SSAValue) -> bool:
    """Whether an `as_strided` reads `value`'s storage: it uses `value` or a view of it."""
    pending, seen = [value], set[SSAValue]()
    while pending:
        v = pending.pop()
        if v in seen:
            continue
        seen.add(v)
        for use in v.uses:
            name = op_name(use.operation)
            if name.startswith("aten.as_strided"):
                return True
            entry = lookup(name)
            if entry is not None and use.index == 0 and use.operation.results:
                if 0 in entry.schema.return_alias_map().get(0, ()):  # a view of its first argument
                    pending.append(use.operation.results[0])
    return False


@rule("aten.unfold.default")
def _unfold(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`Tensor.unfold`: windows of `size` every `step` along `dimension`, as a new last dim,
    gathered with `index_select` of `arange(n) * step + arange(size)`. That is a copy,
    not torch's view: where an `as_strided` reads the windows' storage (torch's
    is `self`'s), the rule declines, and to-core-aten refuses rather than give
    the copy's elements."""
    x = b.value("self")
    t = tensor_of(x)
    if t.rank == 0 or _storage_read(op.results[0]):
        raise Decline()
    dim, size, step = b.int("dimension") % t.rank, b.int("size"), b.int("step")
    length = t.sizes[dim]
    if not isinstance(length, int) or size > length:
        raise Decline()
    windows = (length - size) // step + 1
    device = DeviceAttr(t.device.data)
    starts = e.v("aten.arange.start_step", 0, windows * step, step, layout=Layout.strided, device=device, pin_memory=False)
    offsets = e.v("aten.arange.start_step", 0, size, layout=Layout.strided, device=device, pin_memory=False)
    index = e.v("aten.add.Tensor", e.v("aten.unsqueeze.default", starts, -1), offsets)
    index = e.v("aten.view.default", index, [windows * size])
    y = e.v("aten.index_select.default", x, dim, index)
    y = e.v("aten.view.default", y, e.sizes([*t.sizes[:dim], windows, size, *t.sizes[dim + 1 :]]))
    return [movedim(e, y, dim + 1, -1)]


@rule("aten.adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    out = b.ints("output_size", 3)
    if out == [1, 1, 1]:
        return [e.v("aten.mean.dim", x, [-1, -2, -3], True)]
    return [e.v("aten._adaptive_avg_pool3d.default", x, out)]


@rule("aten.linalg_vector_norm.default", "aten.norm.ScalarOpt_dim", "aten.norm.Scalar", "aten.norm.ScalarOpt_dtype",
      "aten.norm.ScalarOpt_dim_dtype")
def _vector_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch._refs.linalg.vector_norm: by `ord`, max/min of |x|, count of non-zeros,
    sum of |x|, sqrt of the sum of squares, or the p-th root of the sum of |x|^p."""
    x = b.value("self")
    t = tensor_of(x)
    dtype = b.dtype("dtype")
    if t.element_dtype.is_complex and (dtype is None or dtype.is_complex):
        # a complex tensor's norms are those of its magnitudes, which are real (torch._refs)
        if dtype is not None and dtype != t.element_dtype:
            x = e.v("aten._to_copy.default", x, dtype=dtype)
        x, dtype = e.v("aten.abs.default", x), None
        t = tensor_of(x)
    if not (t.element_dtype.is_floating_point):
        raise Decline()
    ord_ = b.get("ord", b.get("p", 2.0))
    ord_ = 2.0 if ord_ is None else float(cast(float, ord_))
    dim = b.get("dim")
    dims = [] if dim is None else (b.ints("dim") if isinstance(dim, list) else [b.int("dim")])
    keep = bool(b.get("keepdim", False))
    if dtype is not None and dtype != t.element_dtype:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    all_dims = dims or list(range(t.rank))
    a = e.v("aten.abs.default", x)
    if ord_ == math.inf:
        return [e.v("aten.amax.default", a, all_dims, keep)]
    if ord_ == -math.inf:
        return [e.v("aten.amin.default", a, all_dims, keep)]
    if ord_ == 0:
        nz = e.v("aten._to_copy.default", e.v("aten.ne.Scalar", x, 0), dtype=tensor_of(x).element_dtype)
        return [e.v("aten.sum.dim_IntList", nz, dims, keep)]
    if ord_ == 1:
        return [e.v("aten.sum.dim_IntList", a, dims, keep)]
    if ord_ == 2:
        return [e.v("aten.sqrt.default", e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x, x), dims, keep))]
    s = e.v("aten.sum.dim_IntList", e.v("aten.pow.Tensor_Scalar", a, ord_), dims, keep)
    return [e.v("aten.pow.Tensor_Scalar", s, 1.0 / ord_)]


@rule("aten.kl_div.default")
def _kl_div(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's kl_div: `xlogy(t, t) - t * x`, or `exp(t) * (t - x)` for a log target."""
    x, target = b.value("self"), b.value("target")
    if b.get("log_target"):
        loss = e.v("aten.mul.Tensor", e.v("aten.exp.default", target), e.v("aten.sub.Tensor", target, x))
    else:
        loss = e.v("aten.sub.Tensor", xlogy_of(e, target, target), e.v("aten.mul.Tensor", target, x))
    return [reduce_loss(e, loss, b.int("reduction"))]


@rule("aten.threshold_backward.default")
def _threshold_backward(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`self <= threshold ? 0 : grad`, in the dtype eager gives: grad and self promoted together
    (an integer grad of a float input gives a float gradient; torch's own decomposition keeps
    the grad's dtype)."""
    grad = b.value("grad_output")
    out = tensor_of(op.results[0]).element_dtype
    if tensor_of(grad).element_dtype != out:
        grad = e.v("aten._to_copy.default", grad, dtype=out)
    mask = e.v("aten.le.Scalar", b["self"], b["threshold"])
    return [e.v("aten.where.self", mask, zero_like(e, tensor_of(grad)), grad)]


# -- pooling, spacing and special functions of the long tail ---------------------------------


@rule("aten.max_pool3d.default")
def _max_pool3d(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    new = e.call("aten.max_pool3d_with_indices.default", b["self"], b["kernel_size"], b.get("stride", []),
                 b.get("padding", 0), b.get("dilation", 1), bool(b.get("ceil_mode")))
    return [e.item(new, 0)]




@rule("aten.logspace.default")
def _logspace(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """base ** linspace(start, end, steps), computed in float and cast to the requested dtype."""
    dtype = b.dtype("dtype") or DType.float32
    wide = dtype if dtype.is_floating_point else DType.float64
    exps = e.v("aten.linspace.default", b["start"], b["end"], b["steps"], dtype=wide,
               layout=Layout.strided, device=b.get("device") or DeviceAttr("cpu"), pin_memory=False)
    out = e.v("aten.pow.Scalar", number_arg(b, "base", 10.0), exps)
    return [cast_to_dtype(e, out, dtype)]


@rule("aten.special_ndtr.default")
def _special_ndtr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Φ(x) = (1 + erf(x / √2)) / 2."""
    z = e.v("aten.erf.default", e.v("aten.mul.Tensor", b["self"], math.sqrt(0.5)))
    return [e.v("aten.mul.Tensor", e.v("aten.add.Tensor", z, 1), 0.5)]


def _horner(e: Emitter, coeffs: Sequence[float], t: SSAValue) -> SSAValue:
    """The polynomial of `coeffs` (increasing powers) at `t`."""
    acc = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", t, coeffs[-1]), coeffs[-2])
    for c in coeffs[-3::-1]:
        acc = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", acc, t), c)
    return acc




@rule("aten.special_log_ndtr.default")
def _special_log_ndtr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    log Φ(x) in three pieces, as torch's kernel (which calls erfcx below x = -1): with
    z = -x/√2, `log1p(-erfc(-z)/2)` for z <= 1 (-0.0 for large x, as torch);
    `log(erfcx(z)/2) - z^2` for 1 <= z <= 6, erfcx a rational fit; beyond 6, the same
    with erfcx from its asymptotic series (five terms: error under 1e-7 at z = 6, where
    log Φ is -36). `1 - erf` would give erfc = 0 and log Φ = -inf from x = -8 on.
    """
    x = as_float(e, b.value("self"))
    z = e.v("aten.mul.Tensor", x, -math.sqrt(0.5))
    erfc_neg = one_minus(e, e.v("aten.erf.default", e.v("aten.neg.default", z)))
    upper = e.v("aten.log1p.default", e.v("aten.mul.Tensor", erfc_neg, -0.5))
    zc = e.v("aten.clamp.default", z, ERFCX_LOW, ERFCX_HIGH)
    fit = e.v("aten.div.Tensor", _horner(e, ERFCX_P, zc), _horner(e, ERFCX_Q, zc))
    # erfcx(z) √π z = 1 - 1/(2z²) + 3/(2z²)² - ...: Horner in u = 1/(2z²)
    u = e.v("aten.reciprocal.default", e.v("aten.mul.Tensor", e.v("aten.mul.Tensor", z, z), 2))
    series = _horner(e, (1.0, -1.0, 3.0, -15.0, 105.0, -945.0), u)
    tail = e.v("aten.div.Tensor", series, e.v("aten.mul.Tensor", z, math.sqrt(math.pi)))
    erfcx = e.v("aten.where.self", e.v("aten.gt.Scalar", z, ERFCX_HIGH), tail, fit)
    z2 = e.v("aten.mul.Tensor", z, z)
    lower = e.v("aten.sub.Tensor", e.v("aten.log.default", e.v("aten.mul.Tensor", erfcx, 0.5)), z2)
    return [e.v("aten.where.self", e.v("aten.le.Scalar", z, ERFCX_LOW), upper, lower)]


@rule("aten.special_entr.default")
def _special_entr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """-x log x for x > 0, 0 at 0, -inf below (NaN stays NaN)."""
    x = as_float(e, b.value("self"))
    t = tensor_of(x)
    body = e.v("aten.neg.default", e.v("aten.mul.Tensor", x, e.v("aten.log.default", x)))
    at_zero = e.v("aten.where.self", e.v("aten.eq.Scalar", x, 0), scalar_tensor(e, 0.0, t), body)
    return [e.v("aten.where.self", e.v("aten.lt.Scalar", x, 0), scalar_tensor(e, -math.inf, t), at_zero)]


# -- more of the long tail: pointwise formulas, losses, products (torch/_refs, torch/_decomp) ---


@rule("aten.erfc.default")
def _erfc(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [one_minus(e, e.v("aten.erf.default", b["self"]))]


@rule("aten.logaddexp2.default")
def _logaddexp2(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """log2(2^a + 2^b) = logaddexp(a ln 2, b ln 2) / ln 2."""
    ln2 = math.log(2)
    a = e.v("aten.mul.Tensor", b["self"], ln2)
    c = e.v("aten.mul.Tensor", b["other"], ln2)
    return [e.v("aten.div.Tensor", e.v("aten.logaddexp.default", a, c), ln2)]


@rule("aten.sgn.default")
def _sgn(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """sign(x) for real tensors, but 0 at NaN as torch's `sgn` gives (where `sign` keeps the NaN);
    x / |x| for complex ones."""
    x = b.value("self")
    if tensor_of(x).element_dtype.is_complex:  # x / |x|, 0 where |x| is 0 (torch._refs.sgn)
        a = e.v("aten.abs.default", x)
        return [e.v("aten.where.self", e.v("aten.eq.Scalar", a, 0), zero_like(e, tensor_of(x)), e.v("aten.div.Tensor", x, e.v("aten._to_copy.default", a, dtype=tensor_of(x).element_dtype)))]
    sign = e.v("aten.sign.default", x)
    if not tensor_of(x).element_dtype.is_floating_point:
        return [sign]
    return [e.v("aten.where.self", e.v("aten.isnan.default", x), zero_like(e, tensor_of(x)), sign)]


@rule("aten.vdot.default")
def _vdot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", b["self"], b["other"]), [])]


@rule("aten.isclose.default")
def _isclose(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """a == b, or |a - b| <= atol + rtol |b| where that bound is finite; NaNs equal with `equal_nan`."""
    x, y = b.value("self"), b.value("other")
    rtol, atol = number_arg(b, "rtol", 1e-5), number_arg(b, "atol", 1e-8)
    close = e.v("aten.eq.Tensor", x, y)
    if b.get("equal_nan"):
        both = e.v("aten.logical_and.default", e.v("aten.isnan.default", x), e.v("aten.isnan.default", y))
        close = e.v("aten.logical_or.default", close, both)
    if rtol == 0 and atol == 0:
        return [close]
    if not tensor_of(x).element_dtype.is_floating_point:
        # ATen's isclose computes the error of integers and booleans in the default float
        # type (an int64 difference wraps at its extremes; booleans do not subtract)
        x = e.v("aten._to_copy.default", x, dtype=DType.float32)
        y = e.v("aten._to_copy.default", y, dtype=DType.float32)
    diff = e.v("aten.abs.default", e.v("aten.sub.Tensor", x, y))
    allowed = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.abs.default", y), rtol), atol)
    within = e.v("aten.logical_and.default", e.v("aten.isfinite.default", allowed), e.v("aten.le.Tensor", diff, allowed))
    return [e.v("aten.logical_or.default", close, within)]


@rule("aten.addbmm.default")
def _addbmm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """beta self + alpha Σ_i batch1[i] @ batch2[i]."""
    prod = e.v("aten.sum.dim_IntList", e.v("aten.bmm.default", b["batch1"], b["batch2"]), [0])
    beta, alpha = number_arg(b, "beta", 1.0), number_arg(b, "alpha", 1.0)
    if alpha != 1:
        prod = e.v("aten.mul.Tensor", prod, alpha)
    if beta == 0:  # self is ignored, NaNs included (torch's rule)
        return [prod]
    base = b.value("self")
    if beta != 1:
        base = e.v("aten.mul.Tensor", base, beta)
    return [e.v("aten.add.Tensor", base, prod)]


def _swap(e: Emitter, x: SSAValue, d0: int, d1: int) -> SSAValue:
    order = list(range(tensor_of(x).rank))
    order[d0], order[d1] = order[d1], order[d0]
    return e.v("aten.permute.default", x, order)


@rule("aten.rot90.default")
def _rot90(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Quarter turns from the first towards the second of `dims`, by flips and a transpose."""
    x = b.value("self")
    rank = tensor_of(x).rank
    dims = b.ints("dims") if b.get("dims") is not None else [0, 1]
    if len(dims) != 2 or rank < 2:
        raise Decline()
    d0, d1 = dims[0] % rank, dims[1] % rank
    if d0 == d1:
        raise Decline()
    k = b.int("k") % 4 if b.get("k") is not None else 1
    if k == 1:
        return [_swap(e, e.v("aten.flip.default", x, [d1]), d0, d1)]
    if k == 2:
        return [e.v("aten.flip.default", x, [d0, d1])]
    if k == 3:
        return [_swap(e, e.v("aten.flip.default", x, [d0]), d0, d1)]
    return [e.v("aten.clone.default", x)]


@rule("aten.diagflat.default")
def _diagflat(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    flat = e.reshape(x, [tensor_of(x).numel()])
    return [e.v("aten.diag_embed.default", flat, b.get("offset", 0) or 0)]


@rule("aten.kron.default")
def _kron(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Interleave the dims of a (a0, 1, a1, 1, ...) and b (1, b0, 1, b1, ...), multiply, merge pairs."""
    x, y = b.value("self"), b.value("other")
    tx, ty = tensor_of(x), tensor_of(y)
    n = max(tx.rank, ty.rank)
    xs = [1] * (n - tx.rank) + list(tx.sizes)
    ys = [1] * (n - ty.rank) + list(ty.sizes)
    xi = e.reshape(x, [s for d in xs for s in (d, 1)])
    yi = e.reshape(y, [s for d in ys for s in (1, d)])
    return [e.reshape(e.v("aten.mul.Tensor", xi, yi), [simplify_size(p * q) for p, q in zip(xs, ys)])]


@rule("aten.tensordot.default")
def _tensordot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Contract `dims_self` with `dims_other`: permute both, flatten to matrices, one mm."""
    x, y = b.value("self"), b.value("other")
    tx, ty = tensor_of(x), tensor_of(y)
    ds = [d % max(tx.rank, 1) for d in b.ints("dims_self")]
    do = [d % max(ty.rank, 1) for d in b.ints("dims_other")]
    free_x = [d for d in range(tx.rank) if d not in ds]
    free_y = [d for d in range(ty.rank) if d not in do]
    k = size_product([tx.sizes[d] for d in ds])
    xm = e.reshape(_permuted(e, x, free_x + ds), [size_product([tx.sizes[d] for d in free_x]), k])
    ym = e.reshape(_permuted(e, y, do + free_y), [k, size_product([ty.sizes[d] for d in free_y])])
    out = e.v("aten.mm.default", xm, ym)
    shape = [tx.sizes[d] for d in free_x] + [ty.sizes[d] for d in free_y]
    return [out if len(shape) == 2 and all(sizes_equal(a, c) for a, c in zip(shape, tensor_of(out).sizes)) else e.reshape(out, shape)]


def _permuted(e: Emitter, x: SSAValue, order: list[int]) -> SSAValue:
    return x if order == list(range(len(order))) else e.v("aten.permute.default", x, order)


@rule("aten.sum_to_size.default")
def _sum_to_size(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Sum over the leading dims and the dims `size` has as 1, back to `size`."""
    x = b.value("self")
    t = tensor_of(x)
    size = b.ints("size")
    lead = t.rank - len(size)
    dims = list(range(lead)) + [lead + i for i, s in enumerate(size) if s == 1 and not sizes_equal(t.sizes[lead + i], 1)]
    if not size:  # torch's sum_to: `tensor.sum()`, which promotes bool and integers to int64
        return [e.v("aten.sum.default", x)]
    if not dims:
        return [x]
    summed = e.v("aten.sum.dim_IntList", x, dims, True)
    return [e.reshape(summed, list(size))] if lead else [summed]


@rule("aten.zero.default")
def _zero(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    return [e.v("aten.full_like.default", x, fill_value_for(tensor_of(x).element_dtype, 0))]


@rule("aten.frobenius_norm.dim")
def _frobenius_norm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    sq = e.v("aten.mul.Tensor", x, x)
    return [e.v("aten.sqrt.default", e.v("aten.sum.dim_IntList", sq, b.ints("dim"), bool(b.get("keepdim"))))]


@rule("aten.nanmean.default")
def _nanmean(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """nansum / the count of non-NaN elements."""
    x = b.value("self")
    dim = b.get("dim")
    dims = [] if dim is None else b.ints("dim")
    keep = bool(b.get("keepdim"))
    total = e.v("aten.nansum.default", x, dims, keep, dtype=b.dtype("dtype"))
    # counted in the sum's dtype: core IR divides without implicit promotion (torch divides by an
    # int64 count, which promotes to that dtype the same way)
    count = e.v("aten.sum.dim_IntList", e.v("aten.logical_not.default", e.v("aten.isnan.default", x)), dims, keep,
                dtype=tensor_of(total).element_dtype)
    return [e.v("aten.div.Tensor", total, count)]


@rule("aten.margin_ranking_loss.default")
def _margin_ranking_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """max(0, -target (input1 - input2) + margin); integer inputs in float32, as torch's float margin makes them."""
    x1, x2, target = (as_float(e, cast(SSAValue, b[n])) for n in ("input1", "input2", "target"))
    diff = e.v("aten.sub.Tensor", x1, x2)
    z = e.v("aten.add.Tensor", e.v("aten.mul.Tensor", e.v("aten.neg.default", target), diff), number_arg(b, "margin", 0.0))
    return [reduce_loss(e, e.v("aten.clamp_min.default", z, 0), b.int("reduction"))]


@rule("aten.hinge_embedding_loss.default")
def _hinge_embedding_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """x where target is 1, max(0, margin - x) where target is -1 (both terms where it is neither)."""
    x, target = b.value("self"), b.value("target")
    zero = zero_like(e, tensor_of(x))
    margin = e.v("aten.clamp_min.default", e.v("aten.add.Tensor", e.v("aten.neg.default", x), number_arg(b, "margin", 1.0)), 0)
    out_margin = e.v("aten.where.self", e.v("aten.ne.Scalar", target, 1), margin, zero)
    out_self = e.v("aten.where.self", e.v("aten.ne.Scalar", target, -1), x, zero)
    return [reduce_loss(e, e.v("aten.add.Tensor", out_margin, out_self), b.int("reduction"))]


@rule("aten.soft_margin_loss.default")
def _soft_margin_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """log(1 + e^(-target x))."""
    z = e.v("aten.mul.Tensor", e.v("aten.neg.default", b["target"]), b["self"])
    return [reduce_loss(e, e.v("aten.log1p.default", e.v("aten.exp.default", z)), b.int("reduction"))]


@rule("aten.poisson_nll_loss.default")
def _poisson_nll_loss(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """e^x - t x (log input), or x - t log(x + eps); `full` adds Stirling's t log t - t + ½ log(2π t) where t > 1."""
    x0, t0 = b.value("input"), b.value("target")
    x, t = as_float(e, x0), as_float(e, t0)  # torch: exp/log of an integer is float32
    if b.get("log_input"):  # t x in the inputs' own dtype, as torch (an int64 product wraps)
        loss = e.v("aten.sub.Tensor", e.v("aten.exp.default", x), as_float(e, e.v("aten.mul.Tensor", t0, x0)))
    else:
        logx = e.v("aten.log.default", e.v("aten.add.Tensor", x, number_arg(b, "eps", 1e-8)))
        loss = e.v("aten.sub.Tensor", x, e.v("aten.mul.Tensor", t, logx))
    if b.get("full"):
        logt = e.v("aten.log.default", t)
        stirling = e.v("aten.add.Tensor", e.v("aten.sub.Tensor", e.v("aten.mul.Tensor", t, logt), t),
                       e.v("aten.mul.Tensor", e.v("aten.log.default", e.v("aten.mul.Tensor", t, 2 * math.pi)), 0.5))
        stirling = e.v("aten.where.self", e.v("aten.gt.Scalar", t, 1), stirling, zero_like(e, tensor_of(stirling)))
        loss = e.v("aten.add.Tensor", loss, stirling)
    return [reduce_loss(e, loss, b.int("reduction"))]


@rule("aten.linalg_cross.default", "aten.cross.default")
def _linalg_cross(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`a[i+1]*b[i+2] - a[i+2]*b[i+1]` along a dim of size 3, by index_select with rotations."""
    x, y = b.value("self"), b.value("other")
    tx, ty = tensor_of(x), tensor_of(y)
    shape = broadcast_shapes(list(tx.sizes), list(ty.sizes))
    dim = b.get("dim")
    if dim is None:
        dim = next((i for i, s in enumerate(shape) if sizes_equal(s, 3)), None)
        if dim is None:
            raise Decline()
    d = cast(int, dim) % len(shape)
    if not sizes_equal(shape[d], 3):
        raise Decline()
    if tx.sizes != shape:
        x = e.v("aten.expand.default", x, e.sizes(shape))
    if ty.sizes != shape:
        y = e.v("aten.expand.default", y, e.sizes(shape))
    device = DeviceAttr(tx.device.data)
    base = e.v("aten.arange.start_step", 0, 3, layout=Layout.strided, device=device, pin_memory=False)
    i1 = e.v("aten.remainder.Scalar", e.v("aten.add.Tensor", base, 1), 3)
    i2 = e.v("aten.remainder.Scalar", e.v("aten.add.Tensor", base, 2), 3)
    def pick(v: SSAValue, i: SSAValue) -> SSAValue:
        return e.v("aten.index_select.default", v, d, i)
    left = e.v("aten.mul.Tensor", pick(x, i1), pick(y, i2))
    right = e.v("aten.mul.Tensor", pick(x, i2), pick(y, i1))
    return [e.v("aten.sub.Tensor", left, right)]


@rule("aten.item.default")
def _item(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten._local_scalar_dense.default", b["self"])]


@rule("aten._index_put_impl.default")
def _index_put_impl(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.index_put.default", b["self"], b["indices"], b["values"], b["accumulate"])]
