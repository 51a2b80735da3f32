"""Result types of complex tensors' operators and of the discrete Fourier transforms.

The complex dtype of a real one is c10's `toComplexType` (`DType.to_complex`: float32 ->
complex64, float64 -> complex128, float16 -> complex32), the real dtype of a complex one its
parts' (`DType.to_real`), as torch's meta functions give them (`torch/_meta_registrations.py`,
`torch/_refs/fft.py`). Integer and bool inputs of the transforms are first taken to the
default float, as `torch.fft` does.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.ir import Attribute

from xdsl_exir.dialects.exir import (
    DType,
    TensorType,
)
from xdsl_exir.semantics.inference.core import (
    Bound,
    InferenceError,
    add,
    broadcast_shapes,
    factory_type,
    floordiv,
    make_tensor,
    mul,
    promote_types,
    result_type,
    rule,
    wrap_dim,
)
from xdsl_exir.utils.dtypes import DEFAULT_FLOAT
from xdsl_exir.utils.symbolic import SymSize

# ---------------------------------------------------------------------------
# Complex numbers: views, parts, construction
# ---------------------------------------------------------------------------


@rule("aten.view_as_complex.default", "aten.view_as_complex_copy.default")
def _view_as_complex(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.element_dtype not in (DType.float16, DType.float32, DType.float64):
        raise InferenceError(f"view_as_complex needs a float16, float32 or float64 tensor, not {t.element_dtype}")
    if not t.sizes or t.sizes[-1] != 2:
        raise InferenceError("view_as_complex needs a last dimension of size 2")
    return make_tensor(t.sizes[:-1], t.element_dtype.to_complex(), t.device.data)




@rule("aten.complex.default", "aten.polar.default")
def _from_parts(b: Bound) -> Attribute:
    first, second = ("real", "imag") if "real" in b else ("abs", "angle")
    x, y = b.tensor(first), b.tensor(second)
    dtype = result_type([b[first], b[second]])  # torch's meta function promotes; its CPU kernel wants one dtype
    if dtype not in (DType.float16, DType.float32, DType.float64):
        raise InferenceError(f"{first} and {second} must be float16, float32 or float64 tensors, not {dtype}")
    return make_tensor(broadcast_shapes(x.sizes, y.sizes), dtype.to_complex(), x.device.data)


@rule("aten.real.default")
def _real(b: Bound) -> Attribute:
    t = b.tensor("self")
    return make_tensor(t.sizes, t.element_dtype.to_real(), t.device.data) if t.element_dtype.is_complex else t


@rule("aten.imag.default")
def _imag(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not t.element_dtype.is_complex:
        raise InferenceError("imag is not implemented for tensors with non-complex dtypes (as torch)")
    return make_tensor(t.sizes, t.element_dtype.to_real(), t.device.data)


@rule("aten.angle.default")
def _angle(b: Bound) -> Attribute:
    t = b.tensor("self")
    dtype = t.element_dtype.to_real() if t.element_dtype.is_complex else t.element_dtype.to_floating()
    return make_tensor(t.sizes, dtype, t.device.data)


@rule(
    "aten.conj.default", "aten._conj.default", "aten.conj_physical.default", "aten._conj_physical.default",
    "aten.resolve_conj.default", "aten.resolve_neg.default",
)  # fmt: skip
def _conj(b: Bound) -> Attribute:
    return b.tensor("self")


# ---------------------------------------------------------------------------
# Discrete Fourier transforms
# ---------------------------------------------------------------------------


def _complex_of(t: TensorType) -> DType:
    """The complex dtype a transform of `t` gives (integers and bools as the default float first)."""
    return t.element_dtype.to_floating().to_complex()


def _real_of(t: TensorType) -> DType:
    d = t.element_dtype
    return d.to_real() if d.is_complex else d.to_floating()


@rule("aten._fft_c2c.default")
def _fft_c2c(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not t.element_dtype.is_complex:
        raise InferenceError(f"_fft_c2c needs a complex tensor, not {t.element_dtype}")
    return t


def _fft_dims(b: Bound, t: TensorType, default: Sequence[int] | None) -> tuple[list[int], list[SymSize | None]]:
    """The transformed dims and their signal sizes (None: the input's), from `dim`/`s` or `dim`/`n`."""
    if "n" in b:
        n = b.get("n")
        return [wrap_dim(b.int("dim"), t.rank)], [None if n is None else b.size("n")]
    s = b.get("s")
    sizes: list[SymSize | None] | None = None if s is None else [None if v == -1 else v for v in b.sizes("s")]
    dim = b.get("dim")
    if dim is not None:
        dims = [wrap_dim(d, t.rank) for d in b.ints("dim")]
    elif sizes is not None:
        dims = list(range(t.rank - len(sizes), t.rank))
    elif default is not None:
        dims = [wrap_dim(d, t.rank) for d in default]
    else:
        dims = list(range(t.rank))
    if sizes is None:
        return dims, [None for _ in dims]
    if len(sizes) != len(dims):
        raise InferenceError(f"the signal sizes {s} and the dims {dims} differ in length")
    return dims, sizes


_DEFAULT_DIMS = {"2": [-2, -1], "n": None, "": [-1]}


def _kind(name: str) -> tuple[str, str]:
    """`aten.fft_rfft2.default` -> ("rfft", "2")."""
    base = name.split(".")[1].removeprefix("fft_")
    if base.endswith(("2", "n")):
        return base[:-1], base[-1]
    return base, ""


@rule(
    "aten.fft_fft.default", "aten.fft_ifft.default", "aten.fft_fft2.default", "aten.fft_ifft2.default",
    "aten.fft_fftn.default", "aten.fft_ifftn.default", "aten.fft_rfft.default", "aten.fft_rfft2.default",
    "aten.fft_rfftn.default", "aten.fft_ihfft.default", "aten.fft_ihfft2.default", "aten.fft_ihfftn.default",
    "aten.fft_irfft.default", "aten.fft_irfft2.default", "aten.fft_irfftn.default", "aten.fft_hfft.default",
    "aten.fft_hfft2.default", "aten.fft_hfftn.default",
)  # fmt: skip
def _fft(b: Bound) -> Attribute:
    t = b.tensor("self")
    kind, arity = _kind(b.schema.op_name)
    dims, sizes = _fft_dims(b, t, _DEFAULT_DIMS[arity])
    shape = list(t.sizes)
    for d, n in zip(dims, sizes):
        if n is not None:
            shape[d] = n
    if kind in ("rfft", "ihfft"):  # real to complex: the last dim keeps its non-negative frequencies
        if t.element_dtype.is_complex:
            raise InferenceError(f"{kind} expects a real input tensor, but got {t.element_dtype}")
        if dims:
            shape[dims[-1]] = add(floordiv(shape[dims[-1]], 2), 1)
        return make_tensor(shape, _complex_of(t), t.device.data)
    if kind in ("irfft", "hfft"):  # complex (one-sided) to real: the last dim is 2 (m - 1) unless given
        if dims and sizes[-1] is None:
            shape[dims[-1]] = mul(2, add(t.sizes[dims[-1]], -1))
        return make_tensor(shape, _real_of(t), t.device.data)
    return make_tensor(shape, _complex_of(t), t.device.data)


@rule("aten.fft_fftshift.default", "aten.fft_ifftshift.default")
def _fftshift(b: Bound) -> Attribute:
    return b.tensor("self")


@rule("aten.fft_fftfreq.default")
def _fftfreq(b: Bound) -> Attribute:
    return factory_type(b, [b.size("n")], DEFAULT_FLOAT)


@rule("aten.fft_rfftfreq.default")
def _rfftfreq(b: Bound) -> Attribute:
    return factory_type(b, [add(floordiv(b.size("n"), 2), 1)], DEFAULT_FLOAT)


# ---------------------------------------------------------------------------
# Short-time Fourier transforms
# ---------------------------------------------------------------------------


def _window_complex(b: Bound) -> bool:
    w = b.opt_tensor("window")
    return w is not None and w.element_dtype.is_complex


@rule("aten.stft.default", "aten.stft.center")
def _stft(b: Bound) -> Attribute:
    t = b.tensor("self")
    if t.rank not in (1, 2):
        raise InferenceError(f"stft expects a 1-d or 2-d (batched) input, not {t.rank}-d")
    n_fft = b.int("n_fft")
    hop = n_fft // 4 if b.get("hop_length") is None else b.int("hop_length")
    complex_in = t.element_dtype.is_complex or _window_complex(b)
    return_complex = b.get("return_complex")
    if return_complex is None and not complex_in:
        raise InferenceError("stft requires the return_complex parameter be given for real inputs")
    length = t.sizes[-1]
    if b.get("center", False):
        length = add(length, mul(2, n_fft // 2))
    frames = add(floordiv(add(length, -n_fft), hop), 1)
    onesided = b.get("onesided")
    onesided = not complex_in if onesided is None else bool(onesided)
    freqs = n_fft // 2 + 1 if onesided else n_fft
    w = b.opt_tensor("window")
    dtype = (t.element_dtype if w is None else promote_types(t.element_dtype, w.element_dtype)).to_floating().to_complex()
    shape: list[SymSize] = [*t.sizes[:-1], freqs, frames]
    if return_complex or (return_complex is None and complex_in):
        return make_tensor(shape, dtype, t.device.data)
    return make_tensor([*shape, 2], dtype.to_real(), t.device.data)


@rule("aten.istft.default")
def _istft(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not t.element_dtype.is_complex:
        raise InferenceError("istft requires a complex-valued input tensor")
    if t.rank not in (2, 3):
        raise InferenceError(f"istft expects a 2-d or 3-d (batched) input, not {t.rank}-d")
    n_fft = b.int("n_fft")
    hop = n_fft // 4 if b.get("hop_length") is None else b.int("hop_length")
    if b.get("length") is not None:
        length: SymSize = b.size("length")
    else:
        length = add(n_fft, mul(hop, add(t.sizes[-1], -1)))
        if b.get("center", True):
            length = add(length, -2 * (n_fft // 2))
    dtype = t.element_dtype if b.get("return_complex", False) else t.element_dtype.to_real()
    return make_tensor([*t.sizes[:-2], length], dtype, t.device.data)


@rule("aten._fft_r2c.default")
def _fft_r2c(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = list(t.sizes)
    dims = [wrap_dim(d, t.rank) for d in b.ints("dim")]
    if b["onesided"] and dims:
        shape[dims[-1]] = add(floordiv(shape[dims[-1]], 2), 1)
    return make_tensor(shape, t.element_dtype.to_floating().to_complex(), t.device.data)


@rule("aten._fft_c2r.default")
def _fft_c2r(b: Bound) -> Attribute:
    t = b.tensor("self")
    shape = list(t.sizes)
    dims = [wrap_dim(d, t.rank) for d in b.ints("dim")]
    shape[dims[-1]] = b.size("last_dim_size")
    return make_tensor(shape, t.element_dtype.to_real(), t.device.data)


@rule("aten.view_as_real.default")
def view_as_real_rule(b: Bound) -> Attribute:
    t = b.tensor("self")
    if not t.element_dtype.is_complex:
        raise InferenceError("view_as_real needs a complex tensor")
    return make_tensor([*t.sizes, 2], t.element_dtype.to_real(), t.device.data)
