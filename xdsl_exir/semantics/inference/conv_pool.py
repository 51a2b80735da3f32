"""Result types of convolution and pooling."""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
)
from xdsl_exir.semantics.inference.core import (
    RULES,
    Bound,
    InferenceError,
    add,
    floordiv,
    make_tensor,
    mul,
    pool_out,
    rule,
    spatial_arg,
)
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# Convolution and pooling
# ---------------------------------------------------------------------------


def conv_out(
    size: SymSize, kernel: SymSize, stride: SymSize, pad: SymSize, dilation: SymSize
) -> SymSize:
    """floor((in + 2p - d(k-1) - 1) / s) + 1"""
    reach = mul(dilation, add(kernel, -1))
    span = add(size, mul(2, pad), mul(-1, reach), -1)
    return add(floordiv(span, stride), 1)


@rule(
    "aten.convolution.default", "aten.conv1d.default", "aten.conv1d.padding", "aten.conv2d.default",
    "aten.conv2d.padding", "aten.conv3d.default", "aten.conv3d.padding",
)  # fmt: skip
def conv_rule(b: Bound) -> Attribute:
    x, w = b.tensor("input"), b.tensor("weight")
    n = w.rank - 2
    if n < 1:
        raise InferenceError("convolution weight must have at least 3 dims")
    batched = x.rank == n + 2
    if not batched and x.rank != n + 1:
        raise InferenceError(f"expected a {n + 1}-d or {n + 2}-d input, got {x.rank}-d")
    xs = list(x.sizes) if batched else [1, *x.sizes]
    stride = b.sizes("stride", n)
    dilation = b.sizes("dilation", n)
    groups = b.size("groups")
    transposed = bool(b.get("transposed", False))
    padding_arg = b["padding"]
    same = padding_arg == "same"
    pad: list[SymSize] = [0] * n if isinstance(padding_arg, str) else b.sizes("padding", n)
    out: list[SymSize] = [xs[0]]
    if transposed:
        out_pad = b.sizes("output_padding", n)
        out.append(mul(w.sizes[1], groups))
        for i in range(n):
            k = add(mul(dilation[i], add(w.sizes[i + 2], -1)), 1)
            out.append(add(mul(add(xs[i + 2], -1), stride[i]), mul(-2, pad[i]), k, out_pad[i]))
    else:
        cin, wc = xs[1], w.sizes[1]
        if isinstance(cin, int) and isinstance(wc, int) and isinstance(groups, int):
            if cin != wc * groups:
                raise InferenceError(
                    f"input has {cin} channels, weight expects {wc} x {groups} groups"
                )
        out.append(w.sizes[0])
        for i in range(n):
            if same:
                out.append(xs[i + 2])
            else:
                out.append(conv_out(xs[i + 2], w.sizes[i + 2], stride[i], pad[i], dilation[i]))
    bias = b.opt_tensor("bias")
    if bias is not None and (bias.rank != 1 or (isinstance(bias.sizes[0], int) and isinstance(out[1], int) and bias.sizes[0] != out[1])):
        # the kernels would broadcast a bias of one element over every channel
        raise InferenceError(
            f"convolution: a bias of sizes {list(bias.sizes)} for {out[1]} output channels (a 1-d bias of {out[1]} elements)"
        )
    if not batched:
        out = out[1:]
    dtype = x.element_dtype
    return make_tensor(out, dtype, x.device.data)


def _pool(b: Bound, n: int, with_dilation: bool) -> list[SymSize]:
    t = b.tensor("self")
    if t.rank not in (n + 1, n + 2):
        raise InferenceError(f"expected a {n + 1}-d or {n + 2}-d input, got {t.rank}-d")
    kernel = spatial_arg(b, "kernel_size", n)
    stride = spatial_arg(b, "stride", n, kernel)
    pad = spatial_arg(b, "padding", n, [0] * n)
    dilation = spatial_arg(b, "dilation", n, [1] * n) if with_dilation else [1] * n
    ceil_mode = bool(b["ceil_mode"])
    lead = list(t.sizes[: t.rank - n])
    for i in range(n):
        if pad[i] * 2 > kernel[i]:
            raise InferenceError("pad should be at most half of the kernel size")
        lead.append(pool_out(t.sizes[t.rank - n + i], kernel[i], stride[i], pad[i], dilation[i], ceil_mode))
    return lead


@rule("aten.avg_pool1d.default", "aten.avg_pool2d.default", "aten.avg_pool3d.default")
def _avg_pool(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = int(b.schema.name[-2])
    return make_tensor(_pool(b, n, False), t.element_dtype, t.device.data)


@rule(
    "aten.max_pool2d.default", "aten.max_pool2d_with_indices.default",
    "aten.max_pool3d_with_indices.default",
)  # fmt: skip
def _max_pool(b: Bound) -> Attribute | list[Attribute]:
    t = b.tensor("self")
    n = 3 if "3d" in b.schema.name else 2
    shape = _pool(b, n, True)
    values = make_tensor(shape, t.element_dtype, t.device.data)
    if b.schema.name.endswith("indices"):
        return [values, make_tensor(shape, DType.int64, t.device.data)]
    return values


@rule(
    "aten._adaptive_avg_pool2d.default", "aten._adaptive_avg_pool3d.default",
    "aten.adaptive_avg_pool1d.default", "aten.adaptive_avg_pool2d.default",
)  # fmt: skip
def adaptive_pool_rule(b: Bound) -> Attribute:
    t = b.tensor("self")
    n = int(b.schema.name[-2])
    out = b.sizes("output_size", n)
    if t.rank not in (n + 1, n + 2):
        raise InferenceError(f"expected a {n + 1}-d or {n + 2}-d input")
    return make_tensor([*t.sizes[: t.rank - n], *out], t.element_dtype, t.device.data)


@rule("aten.col2im.default")
def _col2im(b: Bound) -> Attribute:
    t = b.tensor("self")
    out = b.sizes("output_size", 2)
    k = b.ints("kernel_size", 2)
    batched = t.rank == 3
    c = floordiv(t.sizes[-2], k[0] * k[1])
    shape = ([t.sizes[0]] if batched else []) + [c, *out]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten._convolution.default", "aten._convolution.deprecated")
def _convolution_full(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten.convolution.default"](b)


@rule("aten.adaptive_avg_pool3d.default")
def _adaptive_avg_pool3d(b: Bound) -> Attribute | Sequence[Attribute]:
    return RULES["aten.adaptive_avg_pool2d.default"](b)


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


@rule("aten.max_pool1d.default")
def _max_pool1d(b: Bound) -> Attribute:
    t = b.tensor("self")
    k = b.ints("kernel_size", 1)[0]
    stride = b.ints("stride", 1)[0] if b.get("stride") else k
    out = pool_out(t.sizes[-1], k, stride, b.ints("padding", 1)[0], b.ints("dilation", 1)[0], bool(b["ceil_mode"]))
    return make_tensor([*t.sizes[:-1], out], t.element_dtype, t.device.data)


@rule("aten.adaptive_max_pool1d.default")
def _adaptive_max_pool1d(b: Bound) -> list[Attribute]:
    t = b.tensor("self")
    if t.rank not in (2, 3):
        raise InferenceError("adaptive_max_pool1d expects a 2-d or 3-d input")
    shape = [*t.sizes[:-1], b.sizes("output_size", 1)[0]]
    return [make_tensor(shape, t.element_dtype, t.device.data), make_tensor(shape, DType.int64, t.device.data)]
