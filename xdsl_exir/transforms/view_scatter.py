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
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol, cast

from xdsl.ir import SSAValue

from xdsl_exir.dialects.exir import TensorType

__all__ = ["SCATTERABLE_VIEWS", "Emit", "ViewScatterError", "scatter_into_base"]


class Emit(Protocol):
    """Build the aten op `name` from FX-style arguments where the pass inserts ops; its first result."""

    def __call__(self, name: str, /, *args: object, **kwargs: object) -> SSAValue: ...


class ViewScatterError(Exception):
    """A write through a view with no scatter form; each pass reports it as its own located diagnostic."""


class _Refused(Exception):
    """Why one scatter rule does not apply (`scatter_into_base` names the view)."""


_Scatter = Callable[[Sequence[object], Mapping[str, object], SSAValue, SSAValue, Emit], SSAValue]


def _select(args: Sequence[object], kwargs: Mapping[str, object], base: SSAValue, src: SSAValue, emit: Emit) -> SSAValue:
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
    "aten._unsafe_view.default": _reshape,
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
