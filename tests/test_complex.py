"""
Complex tensors and the Fourier transforms against torch eager: each program is
exported by torch.export and run by the interpreter as exported and after
`to-core-aten` (the decompositions of `semantics/decompositions/spectral.py`),
on edge values (NaN and infinities in either part, -0.0, 1e30), empty and
non-contiguous inputs; a LLaMA-style rotary embedding through a saved `.pt2`
(a complex buffer); the TorchScript runner and the `--emit python` module on the
same calls; complex arrays through exir-run's `.npz` files.
"""

from __future__ import annotations

import io
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from pass_harness import apply, parse

from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics import kernels as K

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")
_G = torch.Generator().manual_seed(21)


def _randn(*shape: int, dtype: Any = None) -> Any:
    return torch.randn(*shape, generator=_G, dtype=dtype or torch.float32)


REAL_EDGE = torch.tensor([NAN, INF, -INF, -0.0, 0.0, 1.0, -2.0, 1e30])
CEDGE = torch.complex(REAL_EDGE, torch.tensor([0.0, -0.0, INF, NAN, 1.0, -INF, 3.0, -0.0]))
"""Every pair of a NaN, an infinity, a signed zero or a large value with another part."""
X = _randn(4, 8)
C = torch.complex(_randn(4, 8), _randn(4, 8))
C128 = torch.complex(_randn(3, 5, dtype=torch.float64), _randn(3, 5, dtype=torch.float64))
WINDOW = torch.hann_window(8)
SPEC = torch.stft(_randn(2, 40), 8, hop_length=2, window=WINDOW, return_complex=True)

CASES: dict[str, tuple[Callable[..., Any], tuple[Any, ...]]] = {
    # complex numbers
    "view_as_complex": (lambda x: torch.view_as_complex(x.reshape(4, 4, 2)) * 2, (X,)),
    "view_as_complex_noncontig": (lambda x: torch.view_as_complex(x[::2]), (_randn(6, 2),)),
    "view_as_complex_empty": (lambda x: torch.view_as_complex(x), (_randn(0, 2),)),
    "view_as_real": (lambda c: torch.view_as_real(c.T) + 1, (C,)),
    "complex": (lambda x, y: torch.complex(x, y), (REAL_EDGE, REAL_EDGE.flip(0))),
    "complex_broadcast": (lambda x, y: torch.complex(x, y), (_randn(3, 1, dtype=torch.float64), _randn(4, dtype=torch.float64))),
    "complex_empty": (lambda x: torch.complex(x, x), (_randn(0, 3),)),
    "polar": (lambda r, t: torch.polar(r, t), (REAL_EDGE.abs(), REAL_EDGE.flip(0))),
    "real_imag": (lambda c: (torch.real(c) * 2, torch.imag(c) + 1), (CEDGE,)),
    "real_of_real": (lambda x: torch.real(x) + 1, (X,)),
    "conj": (lambda c: torch.conj(c) * 2, (CEDGE,)),
    "conj_physical": (lambda c: torch.conj_physical(c), (CEDGE,)),
    "resolve": (lambda c: (torch.conj(c).resolve_conj(), torch.neg(c).resolve_neg()), (C,)),
    "angle": (lambda c: torch.angle(c), (CEDGE,)),
    "angle_real": (lambda x: torch.angle(x), (REAL_EDGE,)),
    "angle_int": (lambda x: torch.angle(x), (torch.tensor([-3, 0, 4]),)),
    "abs": (lambda c: torch.abs(c), (CEDGE,)),
    "sgn": (lambda c: torch.sgn(c), (CEDGE,)),
    "arithmetic": (lambda c: (c * c + c / (c + 1) - 2 * c).exp() + c.log() + c.sqrt() + c**2 + c.sin() + c.tanh(), (C,)),
    "arithmetic_edge": (lambda c: (c * c, c / (c + 1), c.exp(), c.log(), c.sqrt(), c.reciprocal()), (CEDGE,)),
    "reductions": (lambda c: (c.sum(0), c.mean(), c @ c.T, torch.where(c.real > 0, c, 0)), (C,)),
    "complex128": (lambda c: (torch.fft.fft(c) * c.conj()).angle(), (C128,)),
    "vector_norm": (lambda c: (torch.linalg.vector_norm(c), torch.linalg.vector_norm(c, 1, dim=1),
                              torch.linalg.vector_norm(c, INF, dim=0), torch.norm(c)), (C,)),
    "vector_norm_edge": (lambda c: (torch.linalg.vector_norm(c, dim=0), torch.linalg.vector_norm(c, 0),
                                   torch.linalg.vector_norm(c, 3.5)), (CEDGE,)),
    "vector_norm_dtype": (lambda c: torch.linalg.vector_norm(c, dtype=torch.complex128), (C,)),
    # the Fourier transforms
    "fft": (lambda x: (torch.fft.fft(x), torch.fft.fft(x, n=5, dim=0, norm="ortho"), torch.fft.fft(x, n=11, norm="forward")), (X,)),
    "fft_complex": (lambda c: (torch.fft.fft(c), torch.fft.ifft(c, norm="ortho")), (C,)),
    "fft_int": (lambda x: torch.fft.fft(x), (torch.arange(8),)),
    "fft_noncontig": (lambda x: torch.fft.fft(x.T), (_randn(8, 4),)),
    "fft_edge": (lambda x: torch.fft.rfft(x), (REAL_EDGE,)),
    "ifft_real": (lambda x: torch.fft.ifft(x), (X,)),
    "rfft": (lambda x: (torch.fft.rfft(x, norm="ortho"), torch.fft.rfft(x.double(), n=6)), (X,)),
    "irfft": (lambda c: (torch.fft.irfft(c, n=10), torch.fft.irfft(c, dim=0)), (C,)),
    "hfft": (lambda c: (torch.fft.hfft(c), torch.fft.hfft(c, n=7, norm="forward")), (C,)),
    "ihfft": (lambda x: torch.fft.ihfft(x), (X,)),
    "fft2": (lambda x: (torch.fft.fft2(x), torch.fft.rfft2(x), torch.fft.ihfft2(x)), (X,)),
    "fftn": (lambda c: (torch.fft.fftn(c, norm="ortho"), torch.fft.ifft2(c, s=(3, 10)), torch.fft.irfft2(c),
                        torch.fft.irfftn(c, s=(4, 9)), torch.fft.hfft2(c), torch.fft.hfftn(c, norm="ortho")), (C,)),
    "rfftn": (lambda x: (torch.fft.rfftn(x, s=(5, 6)), torch.fft.ihfftn(x, norm="forward")), (X,)),
    "fftshift": (lambda x: (torch.fft.fftshift(x), torch.fft.ifftshift(x, dim=1)), (_randn(5, 7),)),
    "fftfreq": (lambda x: (x + torch.fft.fftfreq(8, 0.3), x[:, :5] + torch.fft.rfftfreq(8)), (X,)),
    "stft": (lambda x: torch.stft(x, 8, hop_length=2, window=torch.hann_window(8), return_complex=True), (_randn(2, 40),)),
    "stft_uncentered": (lambda x: torch.stft(x, 8, hop_length=3, win_length=6, center=False, return_complex=True,
                                             normalized=True), (_randn(40),)),
    "stft_real_parts": (lambda x: torch.stft(x, 8, return_complex=False, pad_mode="constant", onesided=False), (_randn(40),)),
    "stft_complex": (lambda c: torch.stft(c, 8, hop_length=2, window=torch.hann_window(8), return_complex=True),
                     (_randn(40, dtype=torch.complex64),)),
    "stft_complex_window": (lambda x: torch.stft(x, 8, hop_length=2, window=torch.hann_window(8).to(torch.complex64),
                                                 return_complex=True), (_randn(40),)),
    "istft": (lambda c: torch.istft(c, 8, hop_length=2, window=torch.hann_window(8)), (SPEC,)),
    "istft_length": (lambda c: torch.istft(c, 8, hop_length=2, window=torch.hann_window(8), length=50), (SPEC[0],)),
    "istft_complex": (lambda c: torch.istft(c, 8, hop_length=2, window=torch.hann_window(8), return_complex=True,
                                            onesided=False), (_randn(8, 17, dtype=torch.complex64),)),
    "istft_twosided": (lambda c: torch.istft(c, 8, hop_length=4, onesided=False, center=False),
                       (torch.stft(_randn(40), 8, hop_length=4, onesided=False, return_complex=True, center=False),)),
    "istft_float64": (lambda c: torch.istft(c, 6, win_length=4, hop_length=2, normalized=True),
                      (_randn(3, 4, 9, dtype=torch.complex128),)),
}  # fmt: skip


class _Call(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _flat(value: Any) -> list[Any]:
    return [w for v in value for w in _flat(v)] if isinstance(value, tuple | list) else [value]


def _check(got: Any, want: Any) -> None:
    """dtype and shape exactly; values (NaN positions included) within the dtype's tolerance."""
    got, want = _flat(got), [w.resolve_conj().resolve_neg().numpy() for w in _flat(want)]
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        g = np.asarray(g)
        assert (g.dtype, g.shape) == (w.dtype, w.shape)
        tol = 1e-5 if w.dtype in (np.float32, np.complex64) else 1e-10
        np.testing.assert_allclose(g, w, rtol=tol, atol=tol, equal_nan=True)
        if w.dtype.kind == "c":  # NaN in the same part, not just somewhere in the number
            np.testing.assert_array_equal(np.isnan(g.real), np.isnan(w.real))
            np.testing.assert_array_equal(np.isnan(g.imag), np.isnan(w.imag))


def _export(fn: Callable[..., Any], args: tuple[Any, ...]) -> Any:
    from xdsl_exir.frontends.torch_live import import_exported_program

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return import_exported_program(torch.export.export(_Call(fn), args))


@pytest.mark.parametrize("name", sorted(CASES))
def test_program_before_and_after_to_core_aten(name: str) -> None:
    fn, args = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(*args)
    module = _export(fn, args)
    inputs = [a.numpy() for a in args]
    _check(ProgramRunner(module).run(inputs), want)
    _check(ProgramRunner(apply(module, "to-core-aten")).run(inputs), want)


def _rope_frequencies(dim: int, end: int, theta: float = 10000.0) -> Any:
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    return torch.polar(torch.ones(end, dim // 2), torch.outer(torch.arange(end).float(), freqs))


class _Rotary(torch.nn.Module):
    """LLaMA's rotary embedding: the query and key pairs as complex numbers, rotated by a complex buffer."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("freqs_cis", _rope_frequencies(8, 16))

    def forward(self, xq: Any, xk: Any) -> Any:
        q = torch.view_as_complex(xq.float().reshape(*xq.shape[:-1], -1, 2))
        k = torch.view_as_complex(xk.float().reshape(*xk.shape[:-1], -1, 2))
        f = self.freqs_cis[: xq.shape[1]].view(1, xq.shape[1], 1, -1)
        return torch.view_as_real(q * f).flatten(3).type_as(xq), torch.view_as_real(k * f).flatten(3).type_as(xk)


def test_rotary_embedding_through_a_saved_archive() -> None:
    """The complex buffer travels in the .pt2's storage; the result is eager's, bit for bit."""
    from xdsl_exir.frontends.pt2 import load_pt2

    args = (_randn(2, 16, 4, 8), _randn(2, 16, 4, 8))
    model = _Rotary()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, args)
    f = io.BytesIO()
    torch.export.save(ep, f)
    module = load_pt2(f.getvalue())
    want = model(*args)
    for m in (module, apply(module, "to-core-aten")):
        got = ProgramRunner(m).run([a.numpy() for a in args])
        for g, w in zip(got, want, strict=True):
            np.testing.assert_array_equal(g, w.numpy())


@pytest.mark.parametrize("name", ["rfft", "fftn", "stft", "istft", "complex", "angle", "vector_norm", "view_as_complex"])
def test_torchscript_runner_and_python_module(name: str) -> None:
    """The TorchScript runner (torch.jit.trace of the same call) and the `--emit python` module call the same kernels."""
    from xdsl_exir.frontends.torchscript_live import import_script_module
    from xdsl_exir.interpreters.ts_runner import TorchScriptRunner
    from xdsl_exir.targets.python_source import python_source

    fn, args = CASES[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = fn(*args)
        traced = torch.jit.trace(_Call(fn), args, check_trace=False)
    inputs = [a.numpy() for a in args]
    _check(TorchScriptRunner(import_script_module(traced)).run(inputs), want)
    namespace: dict[str, Any] = {"__name__": "generated"}
    exec(compile(python_source(_export(fn, args)), "<generated>", "exec"), namespace)
    _check(namespace["forward"](*inputs), want)


def test_complex_arrays_through_exir_run(tmp_path: Any) -> None:
    """exir-run reads complex inputs from an .npz and writes complex outputs."""
    from xdsl.printer import Printer

    from xdsl_exir.tools.exir_run import run

    fn, args = CASES["fft_complex"]
    mlir = tmp_path / "m.mlir"
    with mlir.open("w") as f:
        Printer(stream=f).print_op(_export(fn, args))
    np.savez(tmp_path / "in.npz", arg0=args[0].numpy())
    assert run([str(mlir), "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / "out.npz")]) == 0
    out = np.load(tmp_path / "out.npz")
    _check([out["out0"], out["out1"]], fn(*args))


def test_view_as_complex_shares_memory_and_refuses_half() -> None:
    a = np.arange(8, dtype=np.float32).reshape(4, 2)
    c = K.run_kernel("aten.view_as_complex.default", [a], {})
    assert isinstance(c, np.ndarray) and np.shares_memory(c, a) and c.dtype == np.complex64
    r = K.run_kernel("aten.view_as_real.default", [np.asarray(c).T], {})
    assert isinstance(r, np.ndarray) and np.shares_memory(r, a)
    with pytest.raises(TypeError, match="complex32"):
        K.run_kernel("aten.view_as_complex.default", [a.astype(np.float16)], {})


def test_declined_transforms_are_located_refusals() -> None:
    """An argument torch rejects (an invalid norm) leaves the operator undecomposed: a refusal naming it."""
    from xdsl_exir.utils.diagnostics import InterpreterError

    module = _export(lambda x: torch.fft.fft(x, norm="ortho"), (X,))
    text = str(module).replace('"ortho"', '"sideways"')


    with pytest.raises(InterpreterError, match="fft_fft"):
        ProgramRunner(parse(text)).run([X.numpy()])


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_kernel_dtypes_are_torchs(dtype: Any) -> None:
    """abs and angle of complex64 are float32 (complex128: float64) from the kernel itself, as torch's."""
    c = CEDGE.numpy().astype(dtype)
    tc = torch.from_numpy(c)
    for name, fn in (("aten.abs.default", torch.abs), ("aten.angle.default", torch.angle)):
        _check(K.run_kernel(name, [c], {}), fn(tc))


class _ComplexConstants(torch.nn.Module):
    def forward(self, x: Any) -> Any:
        return x.to(torch.complex64) * (1 + 2j) + torch.exp(-0.5j * x)


def test_complex_constants_through_archive_text_fx_and_python() -> None:
    """A Python complex constant (`x * 1j`) reads from a .pt2, prints as `complex(re, im)` and reads back,
    prints in FX as torch does, and is a `complex(...)` in the Python module."""
    from xdsl_exir.api import Program
    from xdsl_exir.frontends.pt2 import load_pt2
    from xdsl_exir.targets.python_source import python_source

    x = _randn(3, 4)
    model = _ComplexConstants()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, (x,))
    f = io.BytesIO()
    torch.export.save(ep, f)
    module = load_pt2(f.getvalue())
    text = Program(module).to_mlir()
    assert "complex(1.0, 2.0)" in text and "complex(-0.0, -0.5)" in text
    assert "(1+2j)" in Program(module).to_fx()
    want = model(x)
    for m in (module, parse(text), apply(parse(text), "to-core-aten")):
        _check(ProgramRunner(m).run([x.numpy()]), want)
    namespace: dict[str, Any] = {"__name__": "generated"}
    exec(compile(python_source(module), "<generated>", "exec"), namespace)
    _check(namespace["forward"](x.numpy()), want)
