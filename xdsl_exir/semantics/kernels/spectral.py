"""
Kernels of complex tensors and of the discrete Fourier transform.

numpy carries complex64 and complex128 natively, so a complex tensor is a numpy
complex array and every pointwise kernel computes on it as it is. What needs a
kernel of its own is what torch keeps in core ATen: the complex view of a real
tensor's pairs (`view_as_complex`, a view sharing the storage as torch's does, and
`view_as_real` back),
construction from parts (`complex`, `polar`), the phase (`angle`), the conjugate
(`_conj`, which torch records as a lazy conjugate bit and the interpreter applies
at once: a conjugated tensor is written only through its own value), the
complex-to-complex transform and the sample frequencies. The other transforms
(`fft_*`, `stft`, `istft`) decompose into these (`semantics/decompositions/spectral.py`),
as torch's own core IR writes them.

complex32 (torch's `chalf`) has no numpy dtype: its kernels refuse it by name.
Transform normalizations follow torch's `fft_norm_mode` codes (0: none, 1: 1/sqrt(n),
2: 1/n, applied to the forward or the inverse transform as `forward` says).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np

from xdsl_exir.semantics.kernels.dtypes import (
    F32,
    numpy_dtype_or_none,
)
from xdsl_exir.semantics.kernels.registry import register, wrap_dim

__all__ = ["COMPLEX_OF", "fft_norm"]

COMPLEX_OF: dict[np.dtype[Any], np.dtype[Any]] = {
    np.dtype(np.float32): np.dtype(np.complex64),
    np.dtype(np.float64): np.dtype(np.complex128),
}
"""The complex dtype a real dtype's pairs form (c10's `toComplexType`, float16 aside)."""


def _complex_of(dt: np.dtype[Any], op: str) -> np.dtype[Any]:
    out = COMPLEX_OF.get(np.dtype(dt))
    if out is None:
        raise TypeError(
            f"{op} of a {dt} tensor: only float32 and float64 parts make complex tensors here "
            "(complex32, torch's chalf, has no numpy dtype); cast the input to float32 first"
        )
    return out


def _from_parts(re: np.ndarray, im: np.ndarray, dt: np.dtype[Any]) -> np.ndarray:
    """A complex array with exactly these parts (`re + 1j * im` would turn inf * 0j into NaN)."""
    re, im = np.broadcast_arrays(re, im)
    out = np.empty(re.shape, dt)
    out.real = re
    out.imag = im
    return out


@register("aten.view_as_complex.default")
def _view_as_complex(self: np.ndarray) -> np.ndarray:
    """A view of the pairs along the last dim, sharing `self`'s memory as torch's view does.

    torch requires the pairs to be adjacent in memory; where numpy cannot view the array that way
    (a layout the interpreter chose where torch's was contiguous) the pairs are copied.
    """
    a = np.asarray(self)
    dt = _complex_of(a.dtype, "view_as_complex")
    if a.ndim == 0 or a.shape[-1] != 2:
        raise ValueError(f"view_as_complex needs a last dimension of size 2, not shape {list(a.shape)}")
    if a.strides[-1] == a.itemsize and all(s % dt.itemsize == 0 for s in a.strides[:-1]):
        try:
            return a.view(dt)[..., 0]
        except ValueError:
            pass
    return _from_parts(a[..., 0], a[..., 1], dt)


@register("aten.complex.default")
def _complex(real: np.ndarray, imag: np.ndarray) -> np.ndarray:
    re, im = np.asarray(real), np.asarray(imag)
    if re.dtype != im.dtype:
        raise TypeError(f"complex: real and imag must have the same dtype, not {re.dtype} and {im.dtype}")
    return _from_parts(re, im, _complex_of(re.dtype, "complex"))


@register("aten.polar.default")
def _polar(abs: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """`abs * cos(angle) + i abs * sin(angle)`, each part computed in the parts' dtype, as torch's CPU kernel."""
    r, t = np.asarray(abs), np.asarray(angle)
    if r.dtype != t.dtype:
        raise TypeError(f"polar: abs and angle must have the same dtype, not {r.dtype} and {t.dtype}")
    dt = _complex_of(r.dtype, "polar")
    return _from_parts(r * np.cos(t), r * np.sin(t), dt)


@register("aten.angle.default")
def _angle(self: np.ndarray) -> np.ndarray:
    """The phase: atan2(imag, real) for complex tensors; pi for negative reals, 0 otherwise (NaN stays), as torch."""
    a = np.asarray(self)
    if a.dtype.kind == "c":
        return np.angle(a)
    x = a if a.dtype.kind == "f" else a.astype(F32)
    out = np.where(x < 0, np.asarray(np.pi, x.dtype), np.asarray(0, x.dtype))
    return np.where(np.isnan(x), x, out).astype(x.dtype, copy=False)


@register("aten._conj.default", "aten._conj_physical.default")
def _conj(self: np.ndarray) -> np.ndarray:
    """The conjugate; a real tensor is its own (torch returns it as an alias)."""
    a = np.asarray(self)
    return np.conj(a) if a.dtype.kind == "c" else a


_FORWARD_NORM: tuple[Literal["backward", "ortho", "forward"], ...] = ("backward", "ortho", "forward")
_INVERSE_NORM: tuple[Literal["backward", "ortho", "forward"], ...] = ("forward", "ortho", "backward")


def fft_norm(normalization: int, forward: bool) -> Literal["backward", "ortho", "forward"]:
    """numpy's `norm` for torch's `fft_norm_mode` code of a forward or inverse transform."""
    return (_FORWARD_NORM if forward else _INVERSE_NORM)[normalization]


@register("aten._fft_c2c.default")
def _fft_c2c(self: np.ndarray, dim: Sequence[int], normalization: int, forward: bool) -> np.ndarray:
    a = np.asarray(self)
    if a.dtype.kind != "c":
        raise TypeError(f"_fft_c2c needs a complex tensor, not {a.dtype}")
    if not dim:
        return a.copy()
    axes = [wrap_dim(d, a.ndim) for d in dim]
    transform = np.fft.fftn if forward else np.fft.ifftn
    return transform(a, axes=axes, norm=fft_norm(int(normalization), bool(forward))).astype(a.dtype, copy=False)


def _frequencies(n: int, d: float, dtype: object, onesided: bool) -> np.ndarray:
    """torch's `arange` of the frequency indices (the negative half too unless `onesided`) times 1/(n d),
    in the result dtype."""
    dt = numpy_dtype_or_none(dtype) or F32
    if dt.kind not in "fc":
        raise TypeError(f"fftfreq: the result dtype must be floating or complex, not {dt}")
    k = np.arange(n // 2 + 1 if onesided else n, dtype=np.int64)
    if not onesided:  # the second half counts up from -(n // 2)
        k[(n + 1) // 2 :] -= n
    with np.errstate(all="ignore"):
        scale = np.asarray(1.0 / (n * float(d)), dt)
    return k.astype(dt) * scale


@register("aten.fft_fftfreq.default")
def _fftfreq(n: int, d: float = 1.0, dtype: object = None, **_: object) -> np.ndarray:
    if n < 0:
        raise ValueError(f"fftfreq: n must be non-negative, not {n}")
    return _frequencies(int(n), d, dtype, onesided=False)


@register("aten.fft_rfftfreq.default")
def _rfftfreq(n: int, d: float = 1.0, dtype: object = None, **_: object) -> np.ndarray:
    if n < 0:
        raise ValueError(f"rfftfreq: n must be non-negative, not {n}")
    return _frequencies(int(n), d, dtype, onesided=True)


@register("aten._fft_r2c.default")
def _fft_r2c(self: np.ndarray, dim: Sequence[int], normalization: int, onesided: bool) -> np.ndarray:
    a = np.asarray(self)
    norm = ("backward", "ortho", "forward")[normalization]
    axes = [wrap_dim(d, a.ndim) for d in dim]
    cdt = np.complex128 if a.dtype == np.float64 else np.complex64
    res = np.fft.rfftn(a, axes=axes, norm=norm) if onesided else np.fft.fftn(a, axes=axes, norm=norm)
    return res.astype(cdt)


@register("aten._fft_c2r.default")
def _fft_c2r(self: np.ndarray, dim: Sequence[int], normalization: int, last_dim_size: int) -> np.ndarray:
    a = np.asarray(self)
    # normalization counts the inverse's scaling: none, 1/sqrt(n), 1/n
    norm = ("forward", "ortho", "backward")[normalization]
    axes = [wrap_dim(d, a.ndim) for d in dim]
    sizes = [a.shape[ax] for ax in axes[:-1]] + [int(last_dim_size)]
    rdt = np.float64 if a.dtype == np.complex128 else np.float32
    return np.fft.irfftn(a, s=sizes, axes=axes, norm=norm).astype(rdt)


@register("aten.view_as_real.default")
def _view_as_real(self: np.ndarray) -> np.ndarray:
    """A view sharing `self`'s memory whatever its strides (numpy's `view` needs a contiguous last axis)."""
    a = np.asarray(self)
    if a.dtype.kind != "c":
        raise TypeError(f"view_as_real needs a complex tensor, not {a.dtype}")
    parts = np.real(a)
    return np.lib.stride_tricks.as_strided(parts, a.shape + (2,), a.strides + (parts.itemsize,))
