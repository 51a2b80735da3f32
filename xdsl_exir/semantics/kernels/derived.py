"""In-place and ``out=`` kernels, derived from the functional ones.

An in-place or ``out=`` overload needs no kernel of its own: its schema's alias
annotations say which argument is written, :func:`functional_variant` names the
functional overload (torch's grouping of variants), and the derived kernel
copies that kernel's result into the written argument with ``np.copyto``, so
the caller's array really changes. The few that cannot be derived (in-place
view ops, ``copy_``, ``detach_``, ``resize_``, arange's ``out=`` forms) are
written by hand here.
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import numpy as np

from xdsl_exir.semantics.kernels.creation import arange_out_kernel
from xdsl_exir.semantics.kernels.decomposed import decomposition_kernels, use_kernels
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL, Kernel, schema_of
from xdsl_exir.semantics.kernels.views import (
    as_strided_kernel,
    squeeze_kernel,
    t_kernel,
    transpose_kernel,
    unsqueeze_kernel,
)
from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.op_registry import functional_variant, lookup, selected_operators


def _inplace_view(fn: Kernel) -> Kernel:
    """In-place metadata ops: mutate ``self``'s shape when numpy can, else return the view.

    numpy can re-shape an array in place only when no strides change
    (squeeze_/unsqueeze_/contiguous resizes); transposing in place would need
    setting ``strides``, which NumPy 2.4 deprecates, so ``t_``/``transpose_``/
    ``as_strided_`` return the new view and the caller must rebind it.
    """

    def kernel(self: np.ndarray, **kw: object) -> np.ndarray:
        view = fn(self, **kw)
        try:
            if view.size == self.size and np.shares_memory(view, self) and view.flags.c_contiguous and self.flags.c_contiguous:
                self.shape = view.shape
                return self
        except (AttributeError, ValueError):
            pass
        return view

    return kernel


HANDWRITTEN_MUTATING: dict[str, Kernel] = {
    "aten.squeeze_.default": _inplace_view(squeeze_kernel),
    "aten.squeeze_.dim": _inplace_view(squeeze_kernel),
    "aten.squeeze_.dims": _inplace_view(squeeze_kernel),
    "aten.unsqueeze_.default": _inplace_view(unsqueeze_kernel),
    "aten.t_.default": _inplace_view(t_kernel),
    "aten.transpose_.default": _inplace_view(transpose_kernel),
    "aten.as_strided_.default": _inplace_view(as_strided_kernel),
    "aten.swapaxes_.default": _inplace_view(lambda self, axis0, axis1: transpose_kernel(self, axis0, axis1)),
    "aten.swapdims_.default": _inplace_view(transpose_kernel),
}


def _detach_inplace(self: np.ndarray) -> np.ndarray:
    """No autograd here: detaching in place changes nothing."""
    return self


HANDWRITTEN_MUTATING["aten.detach_.default"] = _detach_inplace


def _copy_inplace(self: np.ndarray, src: object = None, other: object = None, non_blocking: bool = False) -> np.ndarray:
    value = src if src is not None else other
    np.copyto(self, np.asarray(value), casting="unsafe")
    return self


for _n in ("aten.copy_.default", "aten.copy_.Tensor", "aten.copy_.float", "aten.copy_.int"):
    HANDWRITTEN_MUTATING[_n] = _copy_inplace


def _resize_inplace(self: np.ndarray, size: Sequence[int], memory_format: object = None) -> np.ndarray:
    """ndarray.resize: works when ``self`` owns its buffer; new elements are zero."""
    self.resize(tuple(int(s) for s in size), refcheck=False)
    return self


HANDWRITTEN_MUTATING["aten.resize_.default"] = _resize_inplace

# arange resizes `out` only when its number of elements differs (torch's arange_out)
HANDWRITTEN_MUTATING["aten.arange.out"] = arange_out_kernel
HANDWRITTEN_MUTATING["aten.arange.start_out"] = arange_out_kernel


# ---------------------------------------------------------------------------
# deriving in-place and out= variants from the schema
# ---------------------------------------------------------------------------


def _write_into(dst: np.ndarray, value: object) -> np.ndarray:
    """Copy a result into a caller-provided tensor, resizing it like torch's out=."""
    v = np.asarray(value)
    if dst.shape != v.shape:
        dst.resize(v.shape, refcheck=False)
    np.copyto(dst, v, casting="unsafe")
    return dst


def _derive_inplace(functional: Kernel, self_name: str) -> Kernel:
    def kernel(self: np.ndarray, **kw: object) -> np.ndarray:
        res = functional(**{self_name: self}, **kw)
        np.copyto(self, np.asarray(res), casting="unsafe")
        return self

    return kernel


def _derive_out(functional: Kernel, out_names: Sequence[str], bind_names: set[str]) -> Kernel:
    def kernel(**kw: object) -> object:
        outs = [kw.pop(n) for n in out_names]
        res = functional(**{k: v for k, v in kw.items() if k in bind_names})
        results = list(res) if isinstance(res, (tuple, list)) else [res]
        written = [r if o is None else _write_into(o, r) for o, r in zip(outs, results)]  # pyright: ignore[reportArgumentType] - an out= argument is an ndarray once bound; kw values are typed object
        return tuple(written) if len(written) > 1 else written[0]

    return kernel


def _bind_names(name: str) -> set[str]:
    return {a.name for a in schema_of(name).arguments}


SKIPPED: dict[str, str] = {}
"""Listed operators without a kernel, with the reason."""


def accepts(fn: Kernel, schema: FunctionSchema) -> bool:
    """Whether a kernel's parameters cover the schema's argument names."""
    params = inspect.signature(fn).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in params.values()):
        return True
    return all(a.name in params for a in schema.arguments)


def build_kernels() -> dict[str, Kernel]:
    """The kernel of every listed operator, keyed by IR name (``aten.add.Tensor``).

    Called once, by the package, after every family module has registered its
    functional kernels: an in-place or ``out=`` variant can only be derived once
    its functional overload is in :data:`FUNCTIONAL`. Overloads with a rule in the
    decompose table but no kernel run through that rule (``decomposed``).
    """
    functional = {**decomposition_kernels(), **FUNCTIONAL}
    kernels: dict[str, Kernel] = {}
    for name in selected_operators():
        if name in functional:
            kernels[name] = functional[name]
            continue
        if name in HANDWRITTEN_MUTATING:
            kernels[name] = HANDWRITTEN_MUTATING[name]
            continue
        schema = schema_of(name)
        out_names = [a.name for a in schema.out_arguments]
        if schema.is_inplace:
            f = functional_variant(name)
            if f in functional:
                fnames = [a.name for a in schema_of(f).arguments]
                kernels[name] = _derive_inplace(functional[f], "self" if "self" in fnames else fnames[0])
                continue
        elif out_names:
            # the out= form of a mutating op (batch norm updating its running statistics) runs that op
            f = functional_variant(name, mutable=True)
            if f in functional:
                kernels[name] = _derive_out(functional[f], out_names, _bind_names(f))
                continue
        SKIPPED[name] = "no functional kernel to derive from"
    # functional kernels of overloads outside the list (e.g. bitwise_xor.Scalar_Tensor) are usable
    # too, unless the name belongs to an unrelated overload (aten::eq(Scalar a, Scalar b) -> bool)
    for name, fn in functional.items():
        entry = lookup(name)
        if name not in kernels and entry is not None and accepts(fn, entry.schema):
            kernels[name] = fn
    use_kernels(kernels)
    return kernels
