"""
Writing through a view, functionally: the one list of aten view ops whose
writes can be scattered back into their base, and how.

Functionalization (`functionalize`, and `torchscript-to-exir`, which
functionalizes TorchScript's in-place ops while lowering) replaces a write of
`src` into a view `v = view(base, ...)` by a new value of the whole base, the
way torch's functionalization does (its `*_scatter` / inverse-view ops): a
`select` becomes `select_scatter`, a `slice` `slice_scatter`, a permutation its
inverse permutation, a reshape a `view` back to the base's sizes, an alias the
value itself. Both passes call `scatter_into_base` once per step of the view
chain, innermost first, so they accept and refuse the same views.

Views are described by the FX arguments they were made with after the base
(`args`, `kwargs`): `select_scatter` and `slice_scatter` take the same
arguments as `select` and `slice` after their `src`, so those pass through
unchanged. Ops are created by the caller's `emit`, which inserts them where
its pass builds (and may add casts or locations of its own).

Some operators alias their input only sometimes: `contiguous` returns its
input when it is already contiguous and a copy otherwise, `reshape` (and
`reshape_as`, `flatten`) a view when torch's `computeStride` finds strides
for the new shape and a copy otherwise. Whether a write through the result
reaches the base depends on that, so both passes track each view's
`ViewLayout` (sizes and strides in its base, which is dense) and ask
`copies(...)`: `x.t().contiguous()` is a copy, `x[0].contiguous()` the row
itself, as in torch. Where the layout is unknown (symbolic sizes, a view the
model does not follow) the result stays a view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, cast

from xdsl.ir import SSAValue

from xdsl_exir.dialects.exir import TensorType

__all__ = [
    "MAY_COPY",
    "SCATTERABLE_VIEWS",
    "Emit",
    "ViewLayout",
    "ViewScatterError",
    "copies",
    "dense_layout",
    "layout_after",
    "scatter_into_base",
]


class Emit(Protocol):
    """Build the aten op `name` from FX-style arguments where the pass inserts ops; its first result."""

    def __call__(self, name: str, /, *args: object, **kwargs: object) -> SSAValue: ...


class ViewScatterError(Exception):
    """A write through a view with no scatter form; each pass reports it as its own located diagnostic."""


class _Refused(Exception):
    """Why one scatter rule does not apply (`scatter_into_base` names the view)."""


_Scatter = Callable[[Sequence[object], Mapping[str, object], SSAValue, SSAValue, Emit], SSAValue]


def _select(
    args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit
) -> SSAValue:
    return emit("aten.select_scatter.default", base, src, *args, **kwargs)


def _slice(args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit) -> SSAValue:
    return emit("aten.slice_scatter.default", base, src, *args, **kwargs)


def _transpose(
    args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit
) -> SSAValue:
    return emit("aten.transpose.int", src, *args, **kwargs)  # a swap is its own inverse


def _t(args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit) -> SSAValue:
    return emit("aten.t.default", src)


def _permute(
    args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit
) -> SSAValue:
    dims = cast(Sequence[int], args[0] if args else kwargs["dims"])
    rank = len(dims)
    inverse = [0] * rank
    for i, d in enumerate(dims):
        inverse[int(d) % rank] = i
    return emit("aten.permute.default", src, inverse)


def _identity(
    args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit
) -> SSAValue:
    return src


def _reshape(
    args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit
) -> SSAValue:
    bt = base.type
    if not isinstance(bt, TensorType) or not bt.is_static():
        raise _Refused("of a tensor with symbolic sizes")
    return emit("aten.view.default", src, list(bt.sizes))


def _same_type(
    args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit
) -> SSAValue:
    if src.type != base.type:
        raise _Refused("it converts, so it is a copy")
    return src


_SCATTERS: dict[str, _Scatter] = {
    "aten.select.int": _select,
    "aten.slice.Tensor": _slice,
    "aten.transpose.int": _transpose,
    "aten.t.default": _t,
    "aten.permute.default": _permute,
    # The base itself: aliases, and `contiguous` of the dense tensors Export IR types describe.
    "aten.alias.default": _identity,
    "aten.detach.default": _identity,
    "aten.lift_fresh.default": _identity,
    "aten.contiguous.default": _identity,
    # Same elements in another shape: view the written value back to the base's sizes.
    "aten.view.default": _reshape,
    "aten.reshape.default": _reshape,
    "aten.view_as.default": _reshape,
    "aten.reshape_as.default": _reshape,
    "aten.flatten.using_ints": _reshape,
    "aten.unflatten.int": _reshape,
    "aten.unsqueeze.default": _reshape,
    "aten.squeeze.default": _reshape,
    "aten.squeeze.dim": _reshape,
    "aten.squeeze.dims": _reshape,
    # `to` is a view only when it converts nothing.
    "aten.to.dtype": _same_type,
    "aten.to.device": _same_type,
    "aten.to.dtype_layout": _same_type,
    "aten.to.other": _same_type,
}

SCATTERABLE_VIEWS = frozenset(_SCATTERS)
"""The view ops a write can go through."""


def scatter_into_base(
    view: str,
    args: Sequence[object],
    kwargs: Mapping[str, object],
    base: SSAValue,
    src: SSAValue,
    emit: Emit,
) -> SSAValue:
    """
    The new value of `base` after `src` is written through the view
    `view(base, *args, **kwargs)` (IR name, FX arguments after the base).
    Raises `ViewScatterError` for a view with no scatter form.
    """
    scatter = _SCATTERS.get(view)
    if scatter is None:
        raise ViewScatterError(f"a write through the view {view} is not supported (no scatter form)")
    try:
        return scatter(args, kwargs, base, src, emit)
    except _Refused as e:
        raise ViewScatterError(f"a write through the view {view} is not supported ({e})") from None


# ---------------------------------------------------------------------------
# Layouts: when `contiguous` and `reshape` copy
# ---------------------------------------------------------------------------

ViewLayout = tuple[tuple[int, ...], tuple[int, ...]]
"""A view's sizes and strides, in elements of its base's storage."""

MAY_COPY = frozenset(
    {"aten.contiguous.default", "aten.reshape.default", "aten.reshape_as.default", "aten.flatten.using_ints"}
)
"""Operators whose result aliases their input only when the input's layout allows it."""


def dense_layout(sizes: Sequence[object]) -> ViewLayout | None:
    """The layout of a dense (contiguous) tensor of `sizes`; None for symbolic sizes."""
    if not all(isinstance(s, int) for s in sizes):
        return None
    ints = [cast(int, s) for s in sizes]
    strides = [1] * len(ints)
    for d in range(len(ints) - 2, -1, -1):
        strides[d] = strides[d + 1] * max(ints[d + 1], 1)
    return tuple(ints), tuple(strides)


def _is_contiguous(layout: ViewLayout) -> bool:
    """torch's `is_contiguous`: strides of dims of size 1 do not matter, nor anything of an empty tensor."""
    sizes, strides = layout
    if 0 in sizes:
        return True
    expected = 1
    for size, stride in zip(reversed(sizes), reversed(strides)):
        if size != 1:
            if stride != expected:
                return False
            expected *= size
    return True


def _view_strides(layout: ViewLayout, new: Sequence[int]) -> tuple[int, ...] | None:
    """torch's `computeStride`: strides that view `layout` as sizes `new`, or None when only a copy can."""
    old, old_strides = layout
    if not old:
        return (1,) * len(new)
    if 0 in old:
        if tuple(old) == tuple(new):
            return old_strides
        return cast(ViewLayout, dense_layout(new))[1]
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk_base = old_strides[-1]
    tensor_numel = view_numel = 1
    for tensor_d in range(len(old) - 1, -1, -1):
        tensor_numel *= old[tensor_d]
        if tensor_d == 0 or (old[tensor_d - 1] != 1 and old_strides[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk_base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = old_strides[tensor_d - 1]
                tensor_numel = view_numel = 1
    return tuple(out) if view_d == -1 else None


def copies(view: str, layout: ViewLayout | None, result_sizes: Sequence[object]) -> bool | None:
    """
    Whether `view` (an operator of `MAY_COPY`) applied to a tensor of
    `layout` returns a copy rather than its input's memory: None when the
    layout is unknown (symbolic sizes, or a view the model does not follow).
    """
    if layout is None or not all(isinstance(s, int) for s in result_sizes):
        return None
    if view == "aten.contiguous.default":
        return not _is_contiguous(layout)
    return _view_strides(layout, cast(Sequence[int], result_sizes)) is None


def _dim(value: object, rank: int) -> int:
    return cast(int, value) % max(rank, 1)


def layout_after(
    view: str,
    args: Sequence[object],
    kwargs: Mapping[str, object],
    layout: ViewLayout | None,
    result_sizes: Sequence[object],
) -> ViewLayout | None:
    """
    The layout of `view(base, *args, **kwargs)`, whose sizes are
    `result_sizes`, given the base's `layout` (for a `MAY_COPY` operator that
    does not copy). None when unknown: symbolic sizes, or a view this model
    does not follow (then `copies` answers None downstream).
    """
    if layout is None or not all(isinstance(s, int) for s in result_sizes):
        return None
    sizes, strides = layout
    new = tuple(cast(int, s) for s in result_sizes)
    rank = len(sizes)

    def arg(i: int, name: str, default: object = None) -> object:
        return args[i] if i < len(args) else kwargs.get(name, default)

    if view == "aten.contiguous.default":
        return new, strides  # not a copy: the input, which is contiguous already
    if view in _RESHAPES or view in MAY_COPY:
        found = _view_strides(layout, new)
        return None if found is None else (new, found)
    if view == "aten.select.int":
        d = _dim(arg(0, "dim"), rank)
        return new, strides[:d] + strides[d + 1 :]
    if view == "aten.slice.Tensor":
        d = _dim(arg(0, "dim", 0), rank)
        step = cast(int, arg(3, "step", 1))
        return new, strides[:d] + (strides[d] * step,) + strides[d + 1 :]
    if view in ("aten.transpose.int", "aten.t.default"):
        if rank < 2:
            return new, strides
        d0, d1 = (0, 1) if view == "aten.t.default" else (_dim(arg(0, "dim0"), rank), _dim(arg(1, "dim1"), rank))
        swapped = list(strides)
        swapped[d0], swapped[d1] = swapped[d1], swapped[d0]
        return new, tuple(swapped)
    if view == "aten.permute.default":
        dims = [_dim(d, rank) for d in cast(Sequence[object], arg(0, "dims"))]
        return new, tuple(strides[d] for d in dims)
    if view == "aten.unsqueeze.default":
        d = _dim(arg(0, "dim"), rank + 1)
        inner = sizes[d] * strides[d] if d < rank else 1
        return new, strides[:d] + (inner,) + strides[d:]
    if view in _IDENTITIES or view.startswith("aten.to."):
        return new, strides
    if view.startswith("aten.squeeze."):
        kept = list(range(rank))
        if view == "aten.squeeze.default":
            kept = [d for d in kept if sizes[d] != 1]
        else:
            raw = arg(0, "dim")
            gone = {_dim(d, rank) for d in (cast(Sequence[object], raw) if isinstance(raw, list | tuple) else [raw])}
            kept = [d for d in kept if d not in gone or sizes[d] != 1]
        return new, tuple(strides[d] for d in kept)
    return None


_RESHAPES = frozenset({"aten.view.default", "aten.view_as.default", "aten.unflatten.int"})
_IDENTITIES = frozenset({"aten.alias.default", "aten.detach.default", "aten.lift_fresh.default"})
