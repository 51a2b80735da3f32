"""Decompositions of complex tensors' composites and of the Fourier transforms.

Each is written as torch's core IR writes it (ATen's `SpectralOps.cpp` and `torch/_refs`,
read for semantics): `real`/`imag` are a select of `view_as_real`; `conj` is `_conj` of a
complex tensor and the tensor itself otherwise; the `fft_*` functions resize their input
(slice or zero-pad each transformed dim to the signal size) and call the three transforms
torch keeps, `_fft_r2c`, `_fft_c2c` and `_fft_c2r`, with torch's normalization codes;
`stft` frames its input with `unfold` and transforms the frames; `istft` inverts the frames
and adds them back with `col2im` (the overlap-add `unfold_backward` does in torch's
reference), dividing by the window's squared envelope. Arguments torch rejects (an invalid
norm, a signal size below 1, a half-precision transform, which torch's CPU kernels refuse)
are declined, so the operator is left for the interpreter's located refusal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import DeviceAttr, DType, Layout, MemoryFormat, TensorType
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    op_name,
    rule,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.dtypes import promote_types

# -- complex parts and conjugates ------------------------------------------------------


@rule("aten.real.default", "aten.imag.default")
def _part(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_complex:
        if op_name(op) == "aten.imag.default":
            raise Decline()  # torch refuses imag of a real tensor
        return [x]
    return [e.v("aten.select.int", e.v("aten.view_as_real.default", x), -1, 0 if op_name(op) == "aten.real.default" else 1)]


@rule("aten.conj.default", "aten.conj_physical.default")
def _conj(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`_conj` (`_conj_physical`) of a complex tensor; a real one is its own conjugate."""
    x = b.value("self")
    if not tensor_of(x).element_dtype.is_complex:
        return [x] if op_name(op) == "aten.conj.default" else [e.v("aten.clone.default", x)]
    return [e.v("aten._conj.default" if op_name(op) == "aten.conj.default" else "aten._conj_physical.default", x)]


@rule("aten.view_as_complex_copy.default", "aten.view_as_real_copy.default")
def _view_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The view, copied."""
    view = op_name(op).replace("_copy.default", ".default")
    return [e.v("aten.clone.default", e.v(view, b["self"]))]


@rule("aten.resolve_conj.default", "aten.resolve_neg.default")
def _resolve(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A clone: the interpreter applies conjugation and negation at once, so there is no bit to resolve."""
    return [e.v("aten.clone.default", b["self"])]


# -- the Fourier transforms --------------------------------------------------------------

_NONE, _BY_ROOT_N, _BY_N = 0, 1, 2


def _norm_code(norm: object, forward: bool) -> int:
    """torch's `norm_from_string`: the scaling the transform in this direction applies."""
    if norm is None or norm == "backward":
        return _NONE if forward else _BY_N
    if norm == "forward":
        return _BY_N if forward else _NONE
    if norm == "ortho":
        return _BY_ROOT_N
    raise Decline()  # torch: "Invalid normalization mode"


def _promote(e: Emitter, x: SSAValue, require_complex: bool) -> SSAValue:
    """torch's `promote_tensor_fft`: integers to the default float, and to complex where asked."""
    t = tensor_of(x)
    d = t.element_dtype
    if d in (DType.float16, DType.bfloat16, DType.complex32):
        raise Decline()  # torch's CPU transforms refuse half precision
    want = d if d.is_complex or d.is_floating_point else DType.float32
    if require_complex:
        want = want.to_complex()
    if want == d:
        return x
    return e.v("aten._to_copy.default", x, dtype=want)


def _resize(e: Emitter, x: SSAValue, dims: Sequence[int], sizes: Sequence[int | None]) -> SSAValue:
    """torch's `resize_fft_input`: each dim sliced or zero-padded at its end to its signal size."""
    for d, n in zip(dims, sizes):
        if n is None:
            continue
        t = tensor_of(x)
        cur = t.sizes[d]
        if not isinstance(cur, int):
            raise Decline()
        if cur > n:
            x = e.v("aten.slice.Tensor", x, d, 0, n, 1)
        elif cur < n:
            pad = [0] * (2 * (t.rank - d))
            pad[-1] = n - cur
            x = e.v("aten.constant_pad_nd.default", x, pad, 0.0)
    return x


def _desc(b: Bound, t: TensorType, default: Sequence[int] | None) -> tuple[list[int], list[int | None]]:
    """The transformed dims and their requested signal sizes (None: the input's), from `n`/`dim` or `s`/`dim`."""
    rank = t.rank
    if "n" in b:
        if rank == 0:
            raise Decline()
        n = b.get("n")
        if n is not None and not isinstance(n, int):
            raise Decline()
        dim = b.int("dim")
        if not -rank <= dim < rank:
            raise Decline()
        return [dim % rank], [cast(int | None, n)]
    s, dim = b.get("s"), b.get("dim")
    if s is not None and not (isinstance(s, list | tuple) and all(isinstance(v, int) for v in s)):
        raise Decline()
    sizes = None if s is None else [None if v == -1 else int(v) for v in cast(Sequence[int], s)]
    if dim is not None:
        raw = b.ints("dim")
    elif sizes is not None:
        raw = list(range(rank - len(sizes), rank))
    elif default is not None:
        raw = list(default)
    else:
        raw = list(range(rank))
    if any(not -rank <= d < rank for d in raw) or (rank == 0 and raw):
        raise Decline()
    dims = [d % rank for d in raw]
    if len(set(dims)) != len(dims):
        raise Decline()  # torch: "FFT dims must be unique"
    if sizes is None:
        return dims, [None for _ in dims]
    if len(sizes) != len(dims) or any(n is not None and n < 1 for n in sizes):
        raise Decline()
    return dims, sizes


def _kind(name: str) -> tuple[str, Sequence[int] | None]:
    """`aten.fft_rfft2.default` -> ("rfft", [-2, -1]); the 1-d forms have `n` and `dim` of their own."""
    base = name.split(".")[1].removeprefix("fft_")
    if base.endswith("2"):
        return base[:-1], [-2, -1]
    if base.endswith("n"):
        return base[:-1], None
    return base, None


def _signal_sizes_ok(t: TensorType, dims: Sequence[int], sizes: Sequence[int | None]) -> None:
    for d, n in zip(dims, sizes):
        size = t.sizes[d] if n is None else n
        if isinstance(size, int) and size < 1:
            raise Decline()  # torch: "Invalid number of data points"


@rule("aten.fft_fft.default", "aten.fft_ifft.default", "aten.fft_fft2.default", "aten.fft_ifft2.default",
      "aten.fft_fftn.default", "aten.fft_ifftn.default")  # fmt: skip
def _fft_c2c(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Real input of the 1-d form goes through `_fft_r2c` (conjugated for the inverse), as torch's `fft_r2c`;
    the 2-d and n-d forms make it complex first, as torch's `fftn` does."""
    kind, default = _kind(op_name(op))
    forward = kind == "fft"
    x = b.value("self")
    t = tensor_of(x)
    dims, sizes = _desc(b, t, default)
    _signal_sizes_ok(t, dims, sizes)
    code = _norm_code(b.get("norm"), forward)
    if "n" in b and not t.element_dtype.is_complex:
        x = _resize(e, _promote(e, x, False), dims, sizes)
        y = e.v("aten._fft_r2c.default", x, dims, code, False)
        return [y if forward else e.v("aten._conj.default", y)]
    x = _resize(e, _promote(e, x, True), dims, sizes)
    return [e.v("aten._fft_c2c.default", x, dims, code, forward)]


@rule("aten.fft_rfft.default", "aten.fft_rfft2.default", "aten.fft_rfftn.default",
      "aten.fft_ihfft.default", "aten.fft_ihfft2.default", "aten.fft_ihfftn.default")  # fmt: skip
def _fft_r2c(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """The one-sided transform of a real signal; `ihfft` is its inverse-normalized conjugate, the dims
    before the last then transformed back complex-to-complex, as torch's `fft_ihfftn`."""
    kind, default = _kind(op_name(op))
    forward = kind == "rfft"
    x = b.value("self")
    t = tensor_of(x)
    if t.element_dtype.is_complex:
        raise Decline()  # torch: rfft expects a real input tensor
    dims, sizes = _desc(b, t, default)
    if not dims:
        raise Decline()
    _signal_sizes_ok(t, dims, sizes)
    code = _norm_code(b.get("norm"), forward)
    x = _resize(e, _promote(e, x, False), dims, sizes)
    if forward:
        return [e.v("aten._fft_r2c.default", x, dims, code, True)]
    y = e.v("aten._fft_r2c.default", x, [dims[-1]], code, True)
    if len(dims) == 1:
        return [e.v("aten._conj.default", y)]
    y = e.v("aten._conj_physical.default", y)
    return [e.v("aten._fft_c2c.default", y, dims[:-1], code, False)]


@rule("aten.fft_irfft.default", "aten.fft_irfft2.default", "aten.fft_irfftn.default",
      "aten.fft_hfft.default", "aten.fft_hfft2.default", "aten.fft_hfftn.default")  # fmt: skip
def _fft_c2r(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A real signal from its one-sided spectrum: the last dim's output size is given or 2 (m - 1) and
    the input keeps size // 2 + 1 of it; `hfft` transforms the conjugate forward, the dims before the
    last complex-to-complex first, as torch's `fft_hfftn`."""
    kind, default = _kind(op_name(op))
    forward = kind == "hfft"
    x = b.value("self")
    t = tensor_of(x)
    dims, sizes = _desc(b, t, default)
    if not dims:
        raise Decline()
    last = sizes[-1]
    if last is None:
        m = t.sizes[dims[-1]]
        if not isinstance(m, int):
            raise Decline()
        last = 2 * (m - 1)
    if last < 1:
        raise Decline()  # torch: "Invalid number of data points"
    _signal_sizes_ok(t, dims[:-1], sizes[:-1])
    code = _norm_code(b.get("norm"), forward)
    x = _resize(e, _promote(e, x, True), dims, [*sizes[:-1], last // 2 + 1])
    if forward:
        if len(dims) > 1:
            x = e.v("aten._fft_c2c.default", x, dims[:-1], code, True)
        x = e.v("aten._conj.default", x)
        return [e.v("aten._fft_c2r.default", x, [dims[-1]], code, last)]
    return [e.v("aten._fft_c2r.default", x, dims, code, last)]


@rule("aten.fft_fftshift.default", "aten.fft_ifftshift.default")
def _fftshift(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A roll by half of each dim (rounded down for fftshift, up for ifftshift)."""
    x = b.value("self")
    t = tensor_of(x)
    dim = b.get("dim")
    dims = list(range(t.rank)) if dim is None else [d % max(t.rank, 1) for d in b.ints("dim")]
    if not dims or t.rank == 0:
        return [e.v("aten.clone.default", x)]
    sizes = [t.sizes[d] for d in dims]
    if not all(isinstance(n, int) for n in sizes):
        raise Decline()
    up = op_name(op) == "aten.fft_ifftshift.default"
    shifts = [(cast(int, n) + 1) // 2 if up else cast(int, n) // 2 for n in sizes]
    return [e.v("aten.roll.default", x, shifts, dims)]


# -- short-time transforms ------------------------------------------------------------------


def _promoted(e: Emitter, name: str, x: SSAValue, y: SSAValue) -> SSAValue:
    """`name(x, y)` with both operands cast to their promoted dtype first (a real window applied to
    complex frames), since core IR promotes nothing implicitly."""
    want = promote_types(tensor_of(x).element_dtype, tensor_of(y).element_dtype)
    x, y = (v if tensor_of(v).element_dtype == want else e.v("aten._to_copy.default", v, dtype=want) for v in (x, y))
    return e.v(name, x, y)


def _ones(e: Emitter, n: int, dtype: DType, like: TensorType) -> SSAValue:
    return e.v("aten.full.default", [n], 1.0, dtype=dtype, layout=Layout.strided,
               device=DeviceAttr(like.device.data), pin_memory=False)  # fmt: skip


def _centered_window(e: Emitter, window: SSAValue, win_length: int, n_fft: int) -> SSAValue:
    if win_length == n_fft:
        return window
    left = (n_fft - win_length) // 2
    return e.v("aten.constant_pad_nd.default", window, [left, n_fft - win_length - left], 0.0)


def _stft_lengths(b: Bound) -> tuple[int, int, int]:
    n_fft = b.int("n_fft")
    hop = n_fft // 4 if b.get("hop_length") is None else b.int("hop_length")
    win = n_fft if b.get("win_length") is None else b.int("win_length")
    return n_fft, hop, win


@rule("aten.stft.default", "aten.stft.center")
def _stft(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's reference stft: center padding (`stft.center`), frames by `unfold`, times the window
    (centered in n_fft), transformed along the last dim and transposed to (freq, frame)."""
    x = b.value("self")
    t = tensor_of(x)
    window = cast(SSAValue | None, b.get("window"))
    complex_window = window is not None and tensor_of(window).element_dtype.is_complex
    d = t.element_dtype
    if d not in (DType.float32, DType.float64, DType.complex64, DType.complex128) or t.rank not in (1, 2):
        raise Decline()
    return_complex = b.get("return_complex")
    if return_complex is None:
        if not (d.is_complex or complex_window):
            raise Decline()  # torch requires return_complex for real inputs
        return_complex = True
    n_fft, hop, win = _stft_lengths(b)
    center = bool(b.get("center", False))
    align = b.get("align_to_window")
    if align and (center or op_name(op) == "aten.stft.default"):
        raise Decline()
    original_rank = t.rank
    if original_rank == 1:
        x = e.v("aten.unsqueeze.default", x, 0)
    if center:
        pad = n_fft // 2
        x3 = e.v("aten.unsqueeze.default", x, 0)
        x = e.v("aten.squeeze.dim", e.v("aten.pad.default", x3, [pad, pad], str(b.get("pad_mode", "reflect"))), 0)
    length = tensor_of(x).sizes[1]
    if not isinstance(length, int) or not 0 < n_fft <= length or hop <= 0 or not 0 < win <= n_fft:
        raise Decline()
    if window is not None and list(tensor_of(window).sizes) != [win]:
        raise Decline()
    if win < n_fft:
        if window is None:
            window = _ones(e, win, tensor_of(x).element_dtype, t)
        window = _centered_window(e, window, win, n_fft)
    if not center and align:
        p = (n_fft - win) // 2
        x = e.v("aten.pad.default", x, [p, p], str(b.get("pad_mode", "reflect")))
    frames = e.v("aten.unfold.default", x, -1, n_fft, hop)
    if window is not None:
        frames = _promoted(e, "aten.mul.Tensor", frames, window)
    complex_fft = tensor_of(frames).element_dtype.is_complex
    onesided = b.get("onesided")
    onesided = not complex_fft if onesided is None else bool(onesided)
    code = _BY_ROOT_N if b.get("normalized", False) else _NONE
    if onesided and complex_fft:
        raise Decline()  # torch: no onesided output of a complex input or window
    if complex_fft:
        out = e.v("aten._fft_c2c.default", frames, [2], code, True)
    else:
        out = e.v("aten._fft_r2c.default", frames, [2], code, onesided)
    out = e.v("aten.permute.default", out, [0, 2, 1])
    if original_rank == 1:
        out = e.v("aten.squeeze.dim", out, 0)
    return [out if return_complex else e.v("aten.view_as_real.default", out)]


def _overlap_add(e: Emitter, frames: SSAValue, total: int, n_fft: int, hop: int) -> SSAValue:
    """Frames [B, n_frames, n_fft] added into a signal [B, total], frame k starting at k * hop."""
    batch = tensor_of(frames).sizes[0]
    cols = e.v("aten.permute.default", frames, [0, 2, 1])
    image = e.v("aten.col2im.default", cols, [1, total], [1, n_fft], [1, 1], [0, 0], [1, hop])
    return e.v("aten.view.default", image, e.sizes([batch, total]))


@rule("aten.istft.default")
def _istft(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's reference istft: each frame inverted, windowed and added back, divided by the overlap-added
    squared window (no check that the envelope is nonzero: torch's reference makes none either)."""
    x = b.value("self")
    t = tensor_of(x)
    if t.element_dtype not in (DType.complex64, DType.complex128) or t.rank not in (2, 3):
        raise Decline()
    n_fft, hop, win = _stft_lengths(b)
    fft_size, n_frames = t.sizes[-2], t.sizes[-1]
    if not isinstance(fft_size, int) or not isinstance(n_frames, int) or t.sizes[0] == 0 or n_frames == 0:
        raise Decline()
    total = n_fft + hop * (n_frames - 1)
    onesided = b.get("onesided")
    onesided = fft_size != n_fft if onesided is None else bool(onesided)
    if fft_size != (n_fft // 2 + 1 if onesided else n_fft) or not 0 < hop <= win or not 0 < win <= n_fft:
        raise Decline()
    window = cast(SSAValue | None, b.get("window"))
    real = t.element_dtype.to_real()
    if window is None:
        window = _ones(e, win, real, t)
    elif list(tensor_of(window).sizes) != [win]:
        raise Decline()
    window = _centered_window(e, window, win, n_fft)
    original_rank = t.rank
    if original_rank == 2:
        x = e.v("aten.unsqueeze.default", x, 0)
    x = e.v("aten.permute.default", x, [0, 2, 1])
    code = _BY_ROOT_N if b.get("normalized", False) else _BY_N
    if b.get("return_complex", False):
        if onesided:
            raise Decline()
        x = e.v("aten._fft_c2c.default", x, [2], code, False)
    else:
        if tensor_of(window).element_dtype.is_complex:
            raise Decline()
        if not onesided:
            x = e.v("aten.slice.Tensor", x, 2, 0, n_fft // 2 + 1, 1)
        if 2 * (n_fft // 2) != n_fft:
            raise Decline()  # torch's irfft of the one-sided frames gives n_fft - 1 samples, and it asserts
        x = e.v("aten._fft_c2r.default", x, [2], code, n_fft)
    frames = _promoted(e, "aten.mul.Tensor", x, e.v("aten.view.default", window, [1, 1, n_fft]))
    y = _overlap_add(e, frames, total, n_fft, hop)
    squared = e.v("aten.mul.Tensor", window, window)
    envelope_frames = e.v("aten.expand.default", e.v("aten.view.default", squared, [1, 1, n_fft]), [1, n_frames, n_fft])
    envelope = _overlap_add(e, envelope_frames, total, n_fft, hop)
    start = n_fft // 2 if b.get("center", True) else 0
    length = b.get("length")
    if length is not None:
        if not isinstance(length, int):
            raise Decline()
        end = start + length
    else:
        end = total - n_fft // 2 if b.get("center", True) else total
    y = e.v("aten.slice.Tensor", y, 1, start, end, 1)
    envelope = e.v("aten.slice.Tensor", envelope, 1, start, end, 1)
    y = _promoted(e, "aten.div.Tensor", y, envelope)
    if original_rank == 2:
        y = e.v("aten.squeeze.dim", y, 0)
    if end > total:
        y = e.v("aten.constant_pad_nd.default", y, [0, end - total], 0.0)
    return [y]


@rule("aten.isreal.default")
def _isreal(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Every element of a real tensor is real (NaN included)."""
    x = b.value("self")
    if tensor_of(x).element_dtype.is_complex:
        raise Decline()
    return [e.v("aten.full_like.default", x, True, dtype=DType.bool, pin_memory=False,
                memory_format=MemoryFormat.preserve_format)]
