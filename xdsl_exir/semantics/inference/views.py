"""Result types of views and shape ops: reshapes, permutations, slicing, concatenation, splitting, padding."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    NoInference,
    add,
    as_sympy,
    broadcast_shapes,
    dims_arg,
    floordiv,
    infer_minus_one,
    list_type,
    make_tensor,
    mul,
    numel_of,
    promote_types,
    rule,
    size_is,
    sym_max,
    sym_min,
    wrap_dim,
)
from xdsl_exir.utils.broadcast import same_size
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# Views and shape manipulation
# ---------------------------------------------------------------------------


@rule("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default")
def _view(b: Bound) -> Attribute:
    t = b.tensor("self")
    sizes = b.sizes("size" if "size" in b else "shape")
    return make_tensor(infer_minus_one(sizes, t.numel()), t.element_dtype, t.device.data)


@rule("aten.view.dtype")
def _view_dtype(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = cast(DType, b.dtype("dtype"))
    old, new = t.element_dtype.itemsize, dtype.itemsize
    shape = list(t.sizes)
    if old != new:
        if not shape:
            raise InferenceError("view.dtype of a 0-d tensor needs equal item sizes")
        shape[-1] = floordiv(mul(shape[-1], old), new)
    return make_tensor(shape, dtype, t.device.data)


@rule("aten.view_as_real.default")
def view_as_real_rule(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not t.element_dtype.is_complex:
        raise InferenceError("view_as_real needs a complex tensor")
    return make_tensor([*t.sizes, 2], t.element_dtype.to_real(), t.device.data)


@rule("aten.resize.default", "aten.as_strided.default")
def _resize(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(b.sizes("size"), t.element_dtype, t.device.data)


@rule("aten.expand.default")
def expand_rule(b: Bound) -> Attribute:
    t = b.tensor("self")
    sizes = b.sizes("size")
    if len(sizes) < t.rank:
        raise InferenceError(f"expand to {sizes} has fewer dims than the tensor")
    offset = len(sizes) - t.rank
    out: list[SymSize] = []
    for i, s in enumerate(sizes):
        if i < offset:
            out.append(s)
            continue
        cur = t.sizes[i - offset]
        if size_is(s, -1):
            out.append(cur)
        elif size_is(cur, 1) or same_size(cur, s):
            out.append(s)
        elif isinstance(cur, int) and isinstance(s, int):
            raise InferenceError(f"cannot expand size {cur} to {s}")
        else:
            out.append(s)
    return make_tensor(out, t.element_dtype, t.device.data)


@rule("aten.expand_as.default")
def _expand_as(b: Bound) -> Attribute:
    t, o = b.tensor("self"), b.tensor("other")
    broadcast_shapes(t.sizes, o.sizes)
    return make_tensor(o.sizes, t.element_dtype, t.device.data)


@rule("aten.permute.default")
def _permute(b: Bound) -> Attribute:
    t = b.tensor("self")
    dims = [wrap_dim(d, t.rank) for d in b.ints("dims")]
    if sorted(dims) != list(range(t.rank)):
        raise InferenceError(f"permute dims {dims} are not a permutation")
    return make_tensor([t.sizes[d] for d in dims], t.element_dtype, t.device.data)


@rule("aten.transpose.int")
def _transpose(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        for name in ("dim0", "dim1"):  # a 0-d tensor takes dims -1 and 0 only: checked, then nothing moves
            wrap_dim(b.int(name), 0)
        return t
    d0, d1 = wrap_dim(b.int("dim0"), t.rank), wrap_dim(b.int("dim1"), t.rank)
    shape = list(t.sizes)
    shape[d0], shape[d1] = shape[d1], shape[d0]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.t.default")
def _t(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank > 2:
        raise InferenceError("t() expects a tensor with <= 2 dimensions")
    return make_tensor(list(reversed(t.sizes)), t.element_dtype, t.device.data)


@rule("aten.squeeze.default", "aten.squeeze.dim", "aten.squeeze.dims")
def _squeeze(b: Bound) -> Attribute:
    t = b.tensor("self")
    if "dim" not in b:
        dims = set(range(t.rank))
    else:
        dims = {wrap_dim(d, t.rank) for d in (dims_arg(b) or [])}
    shape = [s for i, s in enumerate(t.sizes) if not (i in dims and size_is(s, 1))]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.unsqueeze.default")
def _unsqueeze(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank + 1)
    shape = list(t.sizes)
    shape.insert(d, 1)
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.flatten.using_ints")
def _flatten(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        return make_tensor([1], t.element_dtype, t.device.data)
    start, end = wrap_dim(b.int("start_dim"), t.rank), wrap_dim(b.int("end_dim"), t.rank)
    if start > end:
        raise InferenceError("flatten() has start_dim after end_dim")
    shape = [*t.sizes[:start], numel_of(t.sizes[start : end + 1]), *t.sizes[end + 1 :]]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.unflatten.int")
def _unflatten(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    sizes = infer_minus_one(b.sizes("sizes"), t.sizes[d])
    shape = [*t.sizes[:d], *sizes, *t.sizes[d + 1 :]]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.movedim.int", "aten.movedim.intlist")
def _movedim(b: Bound) -> Attribute:
    t = b.tensor("self")
    src = [wrap_dim(d, t.rank) for d in (dims_arg(b, "source") or [])]
    dst = [wrap_dim(d, t.rank) for d in (dims_arg(b, "destination") or [])]
    order: list[int | None] = [None] * t.rank
    for s, d in zip(src, dst, strict=True):
        order[d] = s
    rest = iter(i for i in range(t.rank) if i not in src)
    perm = [o if o is not None else next(rest) for o in order]
    return make_tensor([t.sizes[p] for p in perm], t.element_dtype, t.device.data)


@rule("aten.select.int")
def _select(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank == 0:
        raise InferenceError("select() on a 0-d tensor")
    d = wrap_dim(b.int("dim"), t.rank)
    index, size = b.size("index"), t.sizes[d]
    if isinstance(index, int) and isinstance(size, int) and not -size <= index < size:
        raise InferenceError(f"select index {index} out of range for size {size}")
    return make_tensor(
        [s for i, s in enumerate(t.sizes) if i != d], t.element_dtype, t.device.data
    )


_BIG = 2**62


def _clamp_index(value: SymSize | None, size: SymSize, default: SymSize) -> SymSize:
    """Python slice semantics; symbolic sizes are assumed large enough, as torch guards."""
    if value is None:
        return default
    if isinstance(value, int):
        if value >= _BIG:
            return size
        if value < 0:
            value = add(size, value)
            return max(value, 0) if isinstance(value, int) else value
        return min(value, size) if isinstance(size, int) else value
    return value


def slice_length(
    size: SymSize, start: SymSize | None, end: SymSize | None, step: SymSize
) -> SymSize:
    s = _clamp_index(start, size, 0)
    e = _clamp_index(end, size, size)
    if isinstance(s, int) and isinstance(e, int) and e < s:
        return 0
    length = add(e, -as_sympy(s) if not isinstance(s, int) else -s)
    if size_is(step, 1):
        return length
    return floordiv(add(length, step, -1), step)


@rule("aten.slice.Tensor")
def _slice(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    step = b.size("step")
    if isinstance(step, int) and step <= 0:
        raise InferenceError("slice step must be positive")
    shape = list(t.sizes)
    shape[d] = slice_length(shape[d], b.opt_size("start"), b.opt_size("end"), step)
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.narrow.default", "aten.narrow.Tensor")
def _narrow(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    shape = list(t.sizes)
    shape[d] = b.size("length")
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.diagonal.default")
def _diagonal(b: Bound) -> Attribute:
    t = b.tensor("self")
    d1, d2 = wrap_dim(b.int("dim1"), t.rank), wrap_dim(b.int("dim2"), t.rank)
    if d1 == d2:
        raise InferenceError("diagonal dimensions cannot be identical")
    off = b.int("offset")
    s1, s2 = t.sizes[d1], t.sizes[d2]
    if off >= 0:
        n = sym_max(sym_min(s1, add(s2, -off)), 0)
    else:
        n = sym_max(sym_min(add(s1, off), s2), 0)
    shape = [s for i, s in enumerate(t.sizes) if i not in (d1, d2)] + [n]
    return make_tensor(shape, t.element_dtype, t.device.data)


@rule("aten.cat.default")
def _cat(b: Bound) -> Attribute:
    tensors = [t for t in b.tensors("tensors") if not (t.rank == 1 and t.sizes[0] == 0)]
    if not tensors:
        ts = b.tensors("tensors")
        if not ts:
            raise InferenceError("cat of an empty list")
        return ts[0]
    ref = tensors[0]
    d = wrap_dim(b.int("dim"), ref.rank)
    shape = list(ref.sizes)
    total: list[SymSize] = []
    for t in tensors:
        if t.rank != ref.rank:
            raise InferenceError("cat of tensors of different ranks")
        for i in range(ref.rank):
            if i != d and isinstance(t.sizes[i], int) and isinstance(shape[i], int):
                if t.sizes[i] != shape[i]:
                    raise InferenceError(f"cat sizes differ in dim {i}")
        total.append(t.sizes[d])
    shape[d] = add(*total)
    dtype = functools.reduce(promote_types, [t.element_dtype for t in b.tensors("tensors")])
    return make_tensor(shape, dtype, ref.device.data)


@rule("aten.stack.default")
def _stack(b: Bound) -> Attribute:
    tensors = b.tensors("tensors")
    if not tensors:
        raise InferenceError("stack of an empty list")
    ref = tensors[0]
    d = wrap_dim(b.int("dim"), ref.rank + 1)
    shape = list(broadcast_shapes(*(t.sizes for t in tensors)))
    for t in tensors:
        if t.rank != ref.rank:
            raise InferenceError("stack expects tensors of equal shape")
    shape.insert(d, len(tensors))
    dtype = functools.reduce(promote_types, [t.element_dtype for t in tensors])
    return make_tensor(shape, dtype, ref.device.data)


def _pieces(t: TensorType, d: int, lengths: Sequence[SymSize]) -> Attribute:
    types: list[Attribute] = []
    for n in lengths:
        shape = list(t.sizes)
        shape[d] = n
        types.append(make_tensor(shape, t.element_dtype, t.device.data))
    return list_type(types)


@rule("aten.split.Tensor")
def _split(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    size, step = t.sizes[d], b.size("split_size")
    if not isinstance(size, int) or not isinstance(step, int):
        raise NoInference("split of a symbolic size into a data-dependent count")
    if step == 0:
        return _pieces(t, d, [size])
    return _pieces(t, d, [min(step, size - i) for i in range(0, max(size, 1), step)])


@rule("aten.split.default", "aten.split.sizes", "aten.split_with_sizes.default")
def _split_sizes(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    names = [a.name for a in b.schema.arguments]
    lengths = b.sizes(names[1])
    total = add(*lengths) if lengths else 0
    if isinstance(total, int) and isinstance(t.sizes[d], int) and total != t.sizes[d]:
        raise InferenceError(f"split sizes {lengths} do not sum to {t.sizes[d]}")
    return _pieces(t, d, lengths)


@rule("aten.chunk.default")
def _chunk(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    size, chunks = t.sizes[d], b.int("chunks")
    if chunks <= 0:
        raise InferenceError("chunk expects a positive number of chunks")
    if not isinstance(size, int):
        raise NoInference("chunk of a symbolic size")
    step = -(-size // chunks)
    if step == 0:
        return _pieces(t, d, [0] * chunks)
    return _pieces(t, d, [min(step, size - i) for i in range(0, size, step)])


@rule("aten.unbind.int")
def _unbind(b: Bound) -> Attribute:
    t = b.tensor("self")
    d = wrap_dim(b.int("dim"), t.rank)
    n = t.sizes[d]
    if not isinstance(n, int):
        raise NoInference("unbind of a symbolic size")
    shape = [s for i, s in enumerate(t.sizes) if i != d]
    return list_type([make_tensor(shape, t.element_dtype, t.device.data)] * n)


@rule("aten.repeat.default")
def _repeat(b: Bound) -> Attribute:
    t = b.tensor("self")
    reps = b.sizes("repeats")
    if len(reps) < t.rank:
        raise InferenceError("repeat needs at least as many repeats as dims")
    padded = [1] * (len(reps) - t.rank) + list(t.sizes)
    return make_tensor([mul(s, r) for s, r in zip(padded, reps)], t.element_dtype, t.device.data)


def _padded(t: TensorType, pads: Sequence[SymSize]) -> list[SymSize]:
    if len(pads) % 2 or len(pads) // 2 > t.rank:
        raise InferenceError(f"padding {list(pads)} does not fit a {t.rank}-d tensor")
    shape = list(t.sizes)
    for i in range(len(pads) // 2):
        d = t.rank - 1 - i
        shape[d] = add(shape[d], pads[2 * i], pads[2 * i + 1])
    return shape


@rule(
    "aten.constant_pad_nd.default", "aten.pad.default", "aten.reflection_pad1d.default",
    "aten.reflection_pad2d.default", "aten.reflection_pad3d.default", "aten.replication_pad1d.default",
    "aten.replication_pad2d.default", "aten.replication_pad3d.default",
)  # fmt: skip
def _pad(b: Bound) -> Attribute:
    t = b.tensor("self")
    pads = b.sizes("pad" if "pad" in b else "padding")
    return make_tensor(_padded(t, pads), t.element_dtype, t.device.data)
