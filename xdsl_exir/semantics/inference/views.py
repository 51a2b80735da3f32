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
    RULES,
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
    same_as_self,
    size_is,
    sym_max,
    sym_min,
    unbacked_symbol,
    wrap_dim,
)
from xdsl_exir.utils.broadcast import same_size
from xdsl_exir.utils.op_registry import lookup
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


@rule("aten.diag_embed.default")
def _diag_embed(b: Bound) -> Attribute:
    t = b.tensor("self")
    rank = t.rank + 1
    d1, d2 = wrap_dim(b.int("dim1"), rank), wrap_dim(b.int("dim2"), rank)
    n = add(t.sizes[-1], abs(b.int("offset")))
    rest = iter(t.sizes[:-1])
    sizes = [n if i in (d1, d2) else next(rest) for i in range(rank)]
    return make_tensor(sizes, t.element_dtype, t.device.data)


@rule("aten.unfold.default")
def _unfold(b: Bound) -> Attribute:
    t = b.tensor("self")
    size, step = b.int("size"), b.int("step")
    if t.rank == 0:
        return make_tensor([size], t.element_dtype, t.device.data)
    d = wrap_dim(b.int("dimension"), t.rank)
    windows = add(floordiv(add(t.sizes[d], -size), step), 1)
    return make_tensor([*t.sizes[:d], windows, *t.sizes[d + 1 :], size], t.element_dtype, t.device.data)


@rule("aten.fliplr.default", "aten.flipud.default")
def _flip_lr_ud(b: Bound) -> Attribute:
    return b.tensor("self")


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


rule("aten.flip.default", "aten.roll.default")(same_as_self)
