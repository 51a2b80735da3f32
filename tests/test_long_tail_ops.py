"""
Overloads that ran nowhere before (issue 21, item 4: "not yet" in `aten_coverage.txt`), as
torch 2.13's `torch.export.export` records them: each program runs in the interpreter as
exported, and after `to-core-aten` (checked to be core ATen), against torch eager, on
ordinary, edge (NaN, +-inf, -0.0, integer extremes), empty and non-contiguous inputs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pass_harness as ph
import pytest

from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

torch = pytest.importorskip("torch")


@dataclass(frozen=True)
class Prog:
    """A forward function, the overload export must record, and its input factories."""

    name: str
    op: str
    fn: Callable[..., Any]
    inputs: Callable[[], tuple[Any, ...]]
    rtol: float = 1e-5
    decomposed: bool = True  # to-core-aten rewrites it (False: core IR keeps it, as torch's does)


class _Module(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *xs: Any) -> Any:
        out = self.fn(*xs)
        return tuple(out) if isinstance(out, (list, tuple)) else (out,)


def _gen() -> Any:
    return torch.Generator().manual_seed(0)


def randn(*shape: int, dtype: Any = None) -> Any:
    return torch.randn(*shape, generator=_gen(), dtype=dtype or torch.float32)


def edge(*shape: int, dtype: Any = None) -> Any:
    """NaN, infinities, signed zeros, huge and tiny values, then ordinary ones."""
    dtype = dtype or torch.float32
    x = torch.randn(*shape, generator=_gen(), dtype=torch.float64) * 3
    flat = x.reshape(-1)
    if dtype.is_floating_point:
        special = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e30, -1e30, 1e-30, 0.25, -0.75, 3.5, -3.5]
    else:
        info = torch.iinfo(dtype)
        special = [info.min, info.max, 0, -1, 1, info.min + 1]
        flat = flat.round()
    n = min(len(special), flat.numel())
    flat[:n] = torch.tensor(special[:n], dtype=torch.float64)
    if not dtype.is_floating_point:
        return flat.reshape(shape).clamp(torch.iinfo(dtype).min, torch.iinfo(dtype).max).to(dtype)
    return flat.reshape(shape).to(dtype)


def noncontig(*shape: int) -> Any:
    """A transposed (non-contiguous) tensor of `shape`."""
    return randn(*reversed(shape)).permute(*reversed(range(len(shape))))


PROGRAMS: list[Prog] = [
    Prog("tensor_split_sections", "aten.tensor_split.sections", lambda x: torch.tensor_split(x, 4, 1),
         lambda: (randn(3, 6),)),
    Prog("tensor_split_indices", "aten.tensor_split.indices", lambda x: torch.tensor_split(x, [1, 4, 9], 1),
         lambda: (edge(3, 6),)),
    Prog("tensor_split_backwards", "aten.tensor_split.indices", lambda x: torch.tensor_split(x, [4, 1])[1:],
         lambda: (randn(6, 2),)),
    Prog("tensor_split_empty", "aten.tensor_split.sections", lambda x: torch.tensor_split(x, 3),
         lambda: (randn(0, 3),)),
    Prog("hsplit_int", "aten.hsplit.int", lambda x: torch.hsplit(x, 3), lambda: (noncontig(2, 6),)),
    Prog("hsplit_1d", "aten.hsplit.array", lambda x: torch.hsplit(x, [2, 3]), lambda: (randn(5),)),
    Prog("vsplit_array", "aten.vsplit.array", lambda x: torch.vsplit(x, [1, 3]), lambda: (edge(4, 3),)),
    Prog("dsplit_int", "aten.dsplit.int", lambda x: torch.dsplit(x, 2), lambda: (randn(2, 3, 4),)),
    Prog("unsafe_split", "aten.unsafe_split.Tensor", lambda x: x.unsafe_split(2, 1), lambda: (randn(3, 5),)),
    Prog("unsafe_split_with_sizes", "aten.unsafe_split_with_sizes.default",
         lambda x: x.unsafe_split_with_sizes([1, 4], 1), lambda: (randn(3, 5),)),
    Prog("unsafe_chunk", "aten.unsafe_chunk.default", lambda x: x.unsafe_chunk(3, 0), lambda: (randn(7, 2),)),
    Prog("poisson_nll_loss_int", "aten.poisson_nll_loss.default",
         lambda x, t: torch.nn.functional.poisson_nll_loss(x, t, reduction="none"),
         lambda: (torch.tensor([-8, 5, 0, 3]), torch.tensor([3, 2, 0, -1]))),
    Prog("margin_ranking_loss_int", "aten.margin_ranking_loss.default",
         lambda x, y, t: torch.nn.functional.margin_ranking_loss(x, y, t, reduction="none"),
         lambda: (torch.tensor([-8, 5, 0]), torch.tensor([3, 2, 0]), torch.tensor([1, -1, 1]))),
    Prog("unsafe_chunk_empty", "aten.unsafe_chunk.default", lambda x: x.unsafe_chunk(2, 0), lambda: (randn(0, 3),)),
    Prog("split_copy", "aten.split_copy.Tensor", lambda x: torch.split_copy(x, 2, 1), lambda: (edge(2, 5),)),
    Prog("split_with_sizes_copy", "aten.split_with_sizes_copy.default",
         lambda x: torch.split_with_sizes_copy(x, [3, 1]), lambda: (noncontig(4, 3),)),
    Prog("unbind_copy", "aten.unbind_copy.int", lambda x: torch.unbind_copy(x, 1), lambda: (randn(2, 3),)),
    Prog("broadcast_tensors", "aten.broadcast_tensors.default",
         lambda x, y: [t + 0 for t in torch.broadcast_tensors(x, y)], lambda: (randn(3, 1), edge(4))),
    Prog("atleast_3d_seq", "aten.atleast_3d.Sequence", lambda x, y, z: torch.atleast_3d((x, y, z)),
         lambda: (randn(3), randn(2, 3), torch.tensor(2.5))),
    Prog("atleast_2d_seq", "aten.atleast_2d.Sequence", lambda x, y: torch.atleast_2d((x, y)),
         lambda: (randn(3), torch.tensor(7))),
    Prog("atleast_1d_seq", "aten.atleast_1d.Sequence", lambda x, y: torch.atleast_1d((x, y)),
         lambda: (randn(3), torch.tensor(-0.0))),
]


# ---------------------------------------------------------------------------
# Special functions: the kernels against torch's on edge values and ordinary ones
# ---------------------------------------------------------------------------

EDGE_VALUES = [float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1e30, -1e30, 1e-30, 0.25, -0.75, 3.5, -3.5, 1.0,
               -1.0, 0.5, 2.0, -2.0, -2.5, 1e-5, 50.0, 700.0, -700.0, 10.0, 0.99999, -0.9999999, 0.1, 1.5, 2.5]


def _special_inputs(dtype: Any) -> Any:
    g = _gen()
    return torch.cat([torch.tensor(EDGE_VALUES, dtype=torch.float64), torch.randn(40, generator=g, dtype=torch.float64) * 5,
                      torch.rand(30, generator=g, dtype=torch.float64) * 2 - 1]).to(dtype)


UNARY_SPECIAL = {
    "aten.lgamma.default": torch.lgamma,
    "aten.digamma.default": torch.digamma,
    "aten.erfinv.default": torch.erfinv,
    "aten.special_ndtri.default": torch.special.ndtri,
    "aten.special_i0e.default": torch.special.i0e,
    "aten.special_i1.default": torch.special.i1,
    "aten.special_i1e.default": torch.special.i1e,
    "aten.special_erfcx.default": torch.special.erfcx,
    "aten.special_spherical_bessel_j0.default": torch.special.spherical_bessel_j0,
}


def _close(got: np.ndarray, want: np.ndarray, rtol: float, what: str, atol: float = 0.0) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype, got.shape, want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, err_msg=what)
    zero = (got == 0) & (want == 0)
    np.testing.assert_array_equal(np.signbit(got[zero]), np.signbit(want[zero]), err_msg=f"{what}: sign of zero")


RTOL = {torch.float32: 5e-6, torch.float64: 1e-12}


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("op", list(UNARY_SPECIAL))
def test_special_unary_kernels_match_torch(op: str, dtype: Any) -> None:
    from xdsl_exir.semantics import kernels as aten_kernels

    x = _special_inputs(dtype)
    got = np.asarray(aten_kernels.run_kernel(op, [x.numpy()], {}))
    # torch's float32 kernels compute in float32: near a zero of digamma their error is absolute
    _close(got, UNARY_SPECIAL[op](x).numpy(), RTOL[dtype], op, atol=1e-6 if dtype == torch.float32 else 0.0)


def test_special_unary_kernels_on_integers_and_empty() -> None:
    from xdsl_exir.semantics import kernels as aten_kernels

    ints = torch.tensor([[-3, 0, 1], [2, 7, 2**40]], dtype=torch.int64)
    for op, fn in UNARY_SPECIAL.items():
        got = np.asarray(aten_kernels.run_kernel(op, [ints.numpy()], {}))
        _close(got, fn(ints).numpy(), 2e-6, op)
        empty = torch.zeros(0, 3)
        assert np.asarray(aten_kernels.run_kernel(op, [empty.numpy()], {})).shape == (0, 3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_matches_torch(n: int, dtype: Any) -> None:
    from xdsl_exir.semantics import kernels as aten_kernels

    x = _special_inputs(dtype)
    got = np.asarray(aten_kernels.run_kernel("aten.polygamma.default", [n, x.numpy()], {}))
    want = torch.polygamma(n, x).numpy()
    # the poles' sizes are float rounding (torch's float32 kernel computes sin(pi x) in float32)
    finite = np.isfinite(want) & (np.abs(want) < 1e12)
    _close(got[finite], want[finite], RTOL[dtype] * 10, f"polygamma({n})", atol=1e-6 if dtype == torch.float32 else 0.0)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_zeta_mvlgamma_frexp_match_torch(dtype: Any) -> None:
    from xdsl_exir.semantics import kernels as aten_kernels

    x = _special_inputs(dtype)
    q = x.flip(0)
    for a, b in [(x.abs() + 1, q.abs()), (x, q), (x, 2.5), (3.0, q), (x, -x.abs())]:
        ours = [v.numpy() if isinstance(v, torch.Tensor) else v for v in (a, b)]
        name = "aten.special_zeta." + ("default" if all(isinstance(v, torch.Tensor) for v in (a, b))
                                       else "other_scalar" if isinstance(a, torch.Tensor) else "self_scalar")
        got = np.asarray(aten_kernels.run_kernel(name, ours, {}))
        _close(got, torch.special.zeta(a, b).numpy(), RTOL[dtype] * 10, name)
    for p in (1, 3):  # torch 2.13 takes any input (poles give inf, as lgamma's)
        got = np.asarray(aten_kernels.run_kernel("aten.mvlgamma.default", [x.numpy(), p], {}))
        _close(got, torch.mvlgamma(x, p).numpy(), RTOL[dtype] * 10, f"mvlgamma p={p}", atol=1e-6)
    mantissa, exponent = aten_kernels.run_kernel("aten.frexp.Tensor", [x.numpy()], {})
    want_m, want_e = torch.frexp(x)
    _close(np.asarray(mantissa), want_m.numpy(), 0.0, "frexp mantissa")
    np.testing.assert_array_equal(exponent, want_e.numpy())


POLYNOMIALS = [f"chebyshev_polynomial_{k}" for k in "tuvw"] + [f"shifted_chebyshev_polynomial_{k}" for k in "tuvw"] + [
    "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("poly", POLYNOMIALS)
def test_orthogonal_polynomials_match_torch(poly: str, dtype: Any) -> None:
    """Every degree form torch reads: integers, fractions (truncated), negative, NaN and infinite
    degrees (0), high degrees (closed forms; Hermite's NaN above its limit). A NaN x is left out
    but for degrees -1, 0 and 1: torch's loop returns an uninitialized value there."""
    from xdsl_exir.semantics import kernels as aten_kernels

    x = _special_inputs(dtype)
    # degree 200 in float64 only: torch's float32 cos of a large angle differs from numpy's by 1e-3
    degrees = [0, 1, 2, 3, 5, 7, 9, 12, 20, -1, 3.7, float("nan"), float("inf"), 1e30]
    n = torch.tensor(degrees + ([200] if dtype == torch.float64 else []), dtype=dtype)
    xx, nn = torch.meshgrid(x, n, indexing="ij")
    keep = ~(xx.isnan() & ~torch.isin(nn, torch.tensor([0.0, 1.0, -1.0], dtype=dtype)))
    fn = getattr(torch.special, poly)
    got = np.asarray(aten_kernels.run_kernel(f"aten.special_{poly}.default", [xx.numpy(), nn.numpy()], {}))
    want = fn(xx, nn).numpy()
    np.testing.assert_allclose(got[keep.numpy()], want[keep.numpy()], rtol=RTOL[dtype] * 100, atol=RTOL[dtype])
    # the Scalar forms, and integer inputs (promoted to float32)
    x = x[~x.isnan()]
    got = np.asarray(aten_kernels.run_kernel(f"aten.special_{poly}.n_scalar", [x.numpy(), 3], {}))
    np.testing.assert_allclose(got, fn(x, 3).numpy(), rtol=RTOL[dtype] * 100, atol=RTOL[dtype])
    ints = torch.tensor([0, 1, -2, 3])
    got = np.asarray(aten_kernels.run_kernel(f"aten.special_{poly}.x_scalar", [0.5, ints.numpy()], {}))
    want = fn(0.5, ints).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=2e-5)


PROGRAMS += [
    Prog("special_psi", "aten.special_psi.default", lambda x: torch.special.psi(x), lambda: (edge(3, 4),)),
    Prog("special_digamma", "aten.special_digamma.default", lambda x: torch.special.digamma(x),
         lambda: (noncontig(2, 3),)),
    Prog("special_gammaln", "aten.special_gammaln.default", lambda x: torch.special.gammaln(x), lambda: (edge(3, 4),)),
    Prog("special_erfinv", "aten.special_erfinv.default", lambda x: torch.special.erfinv(x.tanh()),
         lambda: (edge(3, 4),)),
    Prog("special_erfc", "aten.special_erfc.default", lambda x: torch.special.erfc(x), lambda: (randn(3, 4),)),
    Prog("special_polygamma", "aten.special_polygamma.default", lambda x: torch.special.polygamma(2, x),
         lambda: (randn(3, 4).abs() + 0.5,), rtol=1e-4),
    Prog("special_polygamma_ints", "aten.special_polygamma.default", lambda x: torch.special.polygamma(1, x),
         lambda: (torch.tensor([1, 2, 7, -3]),)),
    Prog("special_psi_bools", "aten.special_psi.default", lambda x: torch.special.psi(x),
         lambda: (torch.tensor([True, False]),)),
    Prog("mvlgamma", "aten.mvlgamma.default", lambda x: torch.mvlgamma(x, 3), lambda: (randn(3, 4).abs() + 1.5,)),
    Prog("special_multigammaln", "aten.special_multigammaln.default", lambda x: torch.special.multigammaln(x, 2),
         lambda: (noncontig(3, 2).abs() + 1,)),
    Prog("special_xlog1py", "aten.special_xlog1py.default", lambda x, y: torch.special.xlog1py(x, y),
         lambda: (edge(3, 4), randn(4).abs())),
    Prog("special_xlog1py_ints", "aten.special_xlog1py.default", lambda x, y: torch.special.xlog1py(x, y),
         lambda: (torch.tensor([0, 2, -3]), torch.tensor([float("nan"), 0.5, 2.0]))),
    Prog("special_xlog1py_self_scalar", "aten.special_xlog1py.self_scalar", lambda y: torch.special.xlog1py(2.0, y),
         lambda: (edge(5),)),
    Prog("special_xlog1py_other_scalar", "aten.special_xlog1py.other_scalar", lambda x: torch.special.xlog1py(x, 3),
         lambda: (edge(5),)),
    Prog("lgamma_kept", "aten.lgamma.default", lambda x: torch.lgamma(x), lambda: (edge(3, 4),), decomposed=False),
    Prog("chebyshev_kept", "aten.special_chebyshev_polynomial_t.default",
         lambda x, n: torch.special.chebyshev_polynomial_t(x, n), lambda: (randn(3, 4), torch.tensor([0.0, 2, 5, 9])),
         decomposed=False),
]



# ---------------------------------------------------------------------------
# Order statistics, searching, counting and sets: the kernels against torch's
# ---------------------------------------------------------------------------

NAN, INF = float("nan"), float("inf")
STAT_ROWS = torch.tensor([[3.0, 1.0, NAN, 2.0, 1.0], [5.0, 1.0, 1.0, 7.0, -0.0], [0.0, -0.0, INF, -INF, 2.5],
                          [NAN, NAN, 1.0, 1.0, 1.0]])


def _run(op: str, *args: Any, **kwargs: Any) -> Any:
    from xdsl_exir.semantics import kernels as aten_kernels

    return aten_kernels.run_kernel(op, [a.numpy() if isinstance(a, torch.Tensor) else a for a in args], kwargs)


def _same_results(got: Any, want: Any, what: str, rtol: float = 1e-6) -> None:
    gots = list(got) if isinstance(got, (tuple, list)) else [got]
    wants = list(want) if isinstance(want, (tuple, list)) else [want]
    assert len(gots) == len(wants), what
    for g, w in zip(gots, wants):
        w = w.numpy() if isinstance(w, torch.Tensor) else np.asarray(w)
        g = np.asarray(g)
        assert g.shape == w.shape and g.dtype == w.dtype, (what, g.shape, w.shape, g.dtype, w.dtype)
        if w.dtype.kind == "f":
            _close(g, w, rtol, what)
        else:
            np.testing.assert_array_equal(g, w, err_msg=what)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.int64], ids=["float32", "float64", "int64"])
def test_medians_match_torch(dtype: Any) -> None:
    x = STAT_ROWS.to(dtype) if dtype.is_floating_point else torch.tensor([[3, 1, 4, 2, 5], [9, -1, 7, 0, 2]])
    for t in (x, x[:1], x.T, torch.ones(0, 3, dtype=dtype)):
        if t.numel():
            _same_results(_run("aten.median.default", t), torch.median(t), "median")
            _same_results(_run("aten.nanmedian.default", t), torch.nanmedian(t), "nanmedian")
    for dim, keepdim in ((1, False), (0, True), (-1, True)):
        for op, fn in (("aten.median.dim", torch.median), ("aten.nanmedian.dim", torch.nanmedian)):
            values, indices = _run(op, x, dim, keepdim)
            want = fn(x, dim, keepdim)
            _same_results(values, want.values, op)
            # torch's selection picks one of several equal values: ours indexes one holding the median
            picked = np.take_along_axis(x.numpy(), indices if keepdim else np.expand_dims(indices, dim), dim)
            _same_results(picked if keepdim else np.squeeze(picked, dim), want.values, f"{op} index")


def test_mode_matches_torch() -> None:
    x = torch.tensor([[1, 2, 2, 1, 3, 3], [3, 1, 2, 2, 2, 0], [5, 5, 5, -1, -1, -1]])
    for dim in (1, 0):
        _same_results(_run("aten.mode.default", x, dim), torch.mode(x, dim), "mode")
    f = torch.tensor([[0.5, -0.0, 0.0, 2.0], [INF, INF, -INF, 1.0]])
    _same_results(_run("aten.mode.default", f, 1, True), torch.mode(f, 1, True), "mode")


@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_quantiles_match_torch(interpolation: str, dtype: Any) -> None:
    x = torch.randn(4, 7, generator=_gen(), dtype=dtype)
    x[1, 2] = NAN
    x[2, :3] = NAN
    q = torch.tensor([0.0, 0.1, 0.5, 0.9, 1.0], dtype=dtype)
    for op, fn in (("aten.quantile", torch.quantile), ("aten.nanquantile", torch.nanquantile)):
        for dim, keepdim in ((1, False), (0, True), (None, False), (None, True)):
            got = _run(f"{op}.default", x, q, dim, keepdim, interpolation=interpolation)
            _same_results(got, fn(x, q, dim, keepdim, interpolation=interpolation), f"{op} dim={dim}")
            got = _run(f"{op}.scalar", x, 0.3, dim, keepdim, interpolation=interpolation)
            _same_results(got, fn(x, 0.3, dim, keepdim, interpolation=interpolation), f"{op}.scalar dim={dim}")
    with pytest.raises(ValueError, match="range"):
        _run("aten.quantile.scalar", x, 1.5)


def test_searchsorted_histc_equal_allclose_match_torch() -> None:
    seq = torch.tensor([1.0, 2.0, 2.0, NAN])
    values = torch.tensor([[NAN, 2.0, -INF, INF, 1.5, 2.0]])
    for kw in ({}, {"right": True}, {"side": "right"}, {"out_int32": True}):
        _same_results(_run("aten.searchsorted.Tensor", seq, values, **kw), torch.searchsorted(seq, values, **kw), "ss")
    _same_results(_run("aten.searchsorted.Scalar", seq, 2, side="right"), torch.searchsorted(seq, 2, side="right"), "s")
    rows = torch.tensor([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    v = torch.tensor([[3.0, 0.0], [7.0, 4.0]])
    _same_results(_run("aten.searchsorted.Tensor", rows, v), torch.searchsorted(rows, v), "rows")
    unsorted = torch.tensor([5.0, 1.0, 3.0])
    sorter = torch.argsort(unsorted)
    _same_results(_run("aten.searchsorted.Tensor", unsorted, torch.tensor([2.0, 4.0]), sorter=sorter),
                  torch.searchsorted(unsorted, torch.tensor([2.0, 4.0]), sorter=sorter), "sorter")
    data = torch.cat([torch.randn(200, generator=_gen()), torch.tensor([5.0, -5.0, INF])])
    for args in ((4, 0.0, 5.0), (10, -1.0, 1.0)):  # NaN and infinities outside the range are left out
        _same_results(_run("aten.histc.default", data, *args), torch.histc(data, *args), f"histc{args}")
    finite = data[:-1]
    _same_results(_run("aten.histc.default", finite, 7), torch.histc(finite, 7), "histc over the data's range")
    with pytest.raises(ValueError, match="not finite"):  # as torch: a NaN in the data's own range
        _run("aten.histc.default", torch.tensor([1.0, NAN]), 3)
    _same_results(_run("aten.histc.default", torch.tensor([2.0, 2.0]), 3), torch.histc(torch.tensor([2.0, 2.0]), 3), "h")
    a = torch.tensor([1.0, NAN, INF])
    for x, y in ((a, a), (a, a.clone()), (torch.tensor([1, 2]), torch.tensor([1.0, 2.0])), (a, a[:2])):
        assert _run("aten.equal.default", x, y) == torch.equal(x, y)
    for kw in ({}, {"equal_nan": True}, {"rtol": 0.0, "atol": 0.0}):
        for y in (a, a + 1e-6, torch.tensor([1.0, NAN, -INF])):
            assert _run("aten.allclose.default", a, y, **kw) == torch.allclose(a, y, **kw), (y, kw)


def test_unique_family_and_nonzero_static_match_torch() -> None:
    f = torch.tensor([3.0, 1.0, NAN, 1.0, NAN, -0.0, 0.0, INF])
    i = torch.tensor([[1, 2], [0, 5], [1, 2], [1, 2]])
    for t in (f, i, torch.tensor([], dtype=torch.int64), torch.tensor(True)):
        for flags in ((True, False, False), (True, True, True), (False, True, False)):
            _same_results(_run("aten._unique2.default", t, *flags), torch.ops.aten._unique2.default(t, *flags), "u2")
        _same_results(_run("aten._unique.default", t, True, True), torch.ops.aten._unique.default(t, True, True), "u")
        _same_results(_run("aten.unique_consecutive.default", t, True, True),
                      torch.ops.aten.unique_consecutive.default(t, True, True), "uc")
    for dim in (0, 1):
        _same_results(_run("aten.unique_dim.default", i, dim, True, True, True),
                      torch.ops.aten.unique_dim.default(i, dim, True, True, True), "ud")
        _same_results(_run("aten.unique_dim_consecutive.default", i, dim, True, True),
                      torch.ops.aten.unique_dim_consecutive.default(i, dim, True, True), "udc")
        _same_results(_run("aten.unique_consecutive.default", i, True, True, dim),
                      torch.ops.aten.unique_consecutive.default(i, True, True, dim), "uc dim")
    for size, fill in ((3, -1), (9, 7), (0, -1)):
        _same_results(_run("aten.nonzero_static.default", i - 1, size=size, fill_value=fill),
                      torch.nonzero_static(i - 1, size=size, fill_value=fill), "nonzero_static")
    _same_results(_run("aten._logcumsumexp.default", STAT_ROWS, 1), torch.ops.aten._logcumsumexp(STAT_ROWS, 1), "lcse")


PROGRAMS += [
    Prog("isin", "aten.isin.Tensor_Tensor", lambda x, y: torch.isin(x, y), lambda: (edge(3, 4), edge(5))),
    Prog("isin_invert_ints", "aten.isin.Tensor_Tensor", lambda x, y: torch.isin(x, y, invert=True),
         lambda: (torch.tensor([[1, 2], [3, 4]]), torch.tensor([2.0, 4.5]))),
    Prog("isin_empty", "aten.isin.Tensor_Tensor", lambda x, y: torch.isin(x, y), lambda: (randn(3), randn(0))),
    Prog("isin_scalar", "aten.isin.Tensor_Scalar", lambda x: torch.isin(x, 2), lambda: (torch.tensor([1, 2, 3]),)),
    Prog("isin_scalar_tensor", "aten.isin.Scalar_Tensor", lambda y: torch.isin(2.5, y),
         lambda: (torch.tensor([1.0, 2.5]),)),
    Prog("argwhere", "aten.argwhere.default", lambda x: torch.argwhere(x), lambda: (edge(3, 4),)),
    Prog("trapezoid_dx", "aten.trapezoid.dx", lambda y: torch.trapezoid(y, dx=0.5), lambda: (randn(3, 5),)),
    Prog("trapezoid_x", "aten.trapezoid.x", lambda y, x: torch.trapezoid(y, x, dim=0),
         lambda: (randn(4, 3), torch.tensor([0.0, 0.5, 2.0, 2.5]))),
    Prog("trapezoid_x_nd", "aten.trapezoid.x", lambda y, x: torch.trapezoid(y, x), lambda: (randn(2, 4), randn(2, 4))),
    Prog("trapezoid_ints", "aten.trapezoid.dx", lambda y: torch.trapezoid(y), lambda: (torch.tensor([[1, 4, 9]]),)),
    Prog("trapezoid_empty", "aten.trapezoid.dx", lambda y: torch.trapezoid(y), lambda: (randn(3, 0),)),
    Prog("trapz_x", "aten.trapz.x", lambda y, x: torch.trapz(y, x), lambda: (edge(2, 3), torch.tensor([1.0, 2, 4]))),
    Prog("trapz_dx", "aten.trapz.dx", lambda y: torch.trapz(y, dx=2.0), lambda: (randn(3, 4),)),
    Prog("cumulative_trapezoid_x", "aten.cumulative_trapezoid.x",
         lambda y, x: torch.cumulative_trapezoid(y, x), lambda: (randn(2, 4), torch.tensor([0.0, 1, 3, 4]))),
    Prog("cumulative_trapezoid_dx", "aten.cumulative_trapezoid.dx",
         lambda y: torch.cumulative_trapezoid(y, dx=0.3, dim=0), lambda: (randn(4, 2),)),
    Prog("cartesian_prod", "aten.cartesian_prod.default", lambda a, b, c: torch.cartesian_prod(a, b, c),
         lambda: (randn(2), edge(3), randn(2))),
    Prog("block_diag", "aten.block_diag.default", lambda a, b, c: torch.block_diag(a, b, c),
         lambda: (randn(2, 3), torch.tensor([1, 2]), torch.tensor(7.5))),
]



class _Bilinear(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.m = torch.nn.Bilinear(3, 4, 5)

    def forward(self, a: Any, b: Any) -> Any:
        return self.m(a, b)


PROGRAMS += [
    Prog("add_relu_scalar", "aten._add_relu.Scalar", lambda x: torch.ops.aten._add_relu.Scalar(x, 0.5),
         lambda: (edge(3, 4),)),
    Prog("bilinear", "aten.bilinear.default", lambda a, b, w, c: torch.nn.functional.bilinear(a, b, w, c),
         lambda: (randn(2, 6, 3), randn(2, 6, 4), randn(5, 3, 4), randn(5)), rtol=1e-4),
    Prog("bilinear_no_bias", "aten.bilinear.default", lambda a, b, w: torch.nn.functional.bilinear(a, b, w),
         lambda: (randn(6, 3), noncontig(6, 4), randn(2, 3, 4)), rtol=1e-4),
    Prog("weight_norm", "aten._weight_norm.default", lambda v, g: torch._weight_norm(v, g, 0),
         lambda: (randn(4, 3, 2), randn(4, 1, 1).abs()), rtol=1e-5),
    Prog("weight_norm_dim1", "aten._weight_norm.default", lambda v, g: torch._weight_norm(v, g, 1),
         lambda: (randn(4, 3), randn(1, 3)), rtol=1e-5),
    Prog("weight_norm_interface", "aten._weight_norm_interface.default",
         lambda v, g: torch.ops.aten._weight_norm_interface(v, g, 0), lambda: (randn(4, 3), randn(4, 1)), rtol=1e-5),
    Prog("norm_except_dim", "aten.norm_except_dim.default", lambda v: torch.norm_except_dim(v, 2, 1),
         lambda: (edge(3, 4, 2),)),
    Prog("norm_except_dim_all", "aten.norm_except_dim.default", lambda v: torch.norm_except_dim(v, 3, -1),
         lambda: (randn(3, 4),)),
    Prog("log_sigmoid_forward", "aten.log_sigmoid_forward.default",
         lambda x: torch.ops.aten.log_sigmoid_forward(x), lambda: (edge(3, 4),)),
    Prog("euclidean_dist", "aten._euclidean_dist.default", lambda a, b: torch.ops.aten._euclidean_dist(a, b),
         lambda: (randn(4, 3), randn(5, 3)), rtol=1e-3),  # |x|^2 - 2xy + |y|^2 cancels: torch's own rounding
    Prog("pdist", "aten.pdist.default", lambda x: torch.pdist(x), lambda: (randn(5, 3),), rtol=1e-5),
    Prog("pdist_p1", "aten.pdist.default", lambda x: torch.pdist(x, 1.0), lambda: (noncontig(4, 3),), rtol=1e-5),
    Prog("pdist_inf", "aten.pdist.default", lambda x: torch.pdist(x, float("inf")), lambda: (randn(4, 2),)),
    Prog("conv_tbc", "aten.conv_tbc.default", lambda x, w, b: torch.conv_tbc(x, w, b, 1),
         lambda: (randn(7, 2, 3), randn(3, 3, 4), randn(4)), rtol=1e-4),
    Prog("convolution_mode", "aten._convolution_mode.default",
         lambda x, w: torch.ops.aten._convolution_mode(x, w, None, [1, 1], "same", [1, 1], 1),
         lambda: (randn(1, 2, 5, 5), randn(3, 2, 3, 3)), rtol=1e-4),
    Prog("thnn_conv2d", "aten.thnn_conv2d.default", lambda x, w, b: torch.ops.aten.thnn_conv2d(x, w, [3, 3], b, [2, 1], [1, 0]),
         lambda: (randn(1, 2, 6, 5), randn(3, 2, 3, 3), randn(3)), rtol=1e-4),
    Prog("slow_conv3d", "aten.slow_conv3d.default", lambda x, w: torch.ops.aten.slow_conv3d(x, w, [2, 2, 2]),
         lambda: (randn(1, 2, 3, 4, 4), randn(2, 2, 2, 2, 2)), rtol=1e-4),
    Prog("slow_conv_dilated2d", "aten.slow_conv_dilated2d.default",
         lambda x, w: torch.ops.aten.slow_conv_dilated2d(x, w, [2, 2], None, [1, 1], [1, 1], [2, 2]),
         lambda: (randn(1, 2, 6, 6), randn(3, 2, 2, 2)), rtol=1e-4),
    Prog("slow_conv_transpose2d", "aten.slow_conv_transpose2d.default",
         lambda x, w: torch.ops.aten.slow_conv_transpose2d(x, w, [3, 3], None, [2, 2], [1, 1], [1, 1]),
         lambda: (randn(1, 2, 4, 4), randn(2, 3, 3, 3)), rtol=1e-4),
    Prog("dim_arange", "aten._dim_arange.default", lambda x: torch._dim_arange(x, 1), lambda: (randn(2, 5),)),
    Prog("pad_sequence", "aten.pad_sequence.default",
         lambda a, b, c: torch.nn.utils.rnn.pad_sequence([a, b, c], padding_value=-1.5),
         lambda: (randn(3, 2), randn(5, 2), randn(1, 2))),
    Prog("pad_sequence_left_batch_first", "aten.pad_sequence.default",
         lambda a, b: torch.nn.utils.rnn.pad_sequence([a, b], batch_first=True, padding_side="left"),
         lambda: (torch.tensor([1, 2, 3]), torch.tensor([4]))),
    Prog("pad_enum_replicate", "aten._pad_enum.default", lambda x: torch.ops.aten._pad_enum(x, [1, 2, 1, 1], 1),
         lambda: (randn(1, 2, 3, 5),)),
    Prog("pad_enum_reflect", "aten._pad_enum.default", lambda x: torch.ops.aten._pad_enum(x, [1, 2, 2, 0], 0),
         lambda: (randn(1, 3, 5),)),
    Prog("pad_enum_constant", "aten._pad_enum.default", lambda x: torch.ops.aten._pad_enum(x, [1, 2, 0, 1], 3, 2.5),
         lambda: (randn(2, 3),)),
    Prog("isreal", "aten.isreal.default", lambda x: torch.isreal(x), lambda: (edge(3, 4),)),
    Prog("mH", "aten.mH.default", lambda x: x.mH, lambda: (randn(2, 3, 4),)),
    Prog("matrix_H", "aten.matrix_H.default", lambda x: x.H, lambda: (randn(3, 4),)),
]


def _record(p: Prog) -> tuple[Any, Any]:
    args = p.inputs()
    model = _Module(p.fn)
    ep = torch.export.export(model, args)
    targets = {str(n.target) for n in ep.graph.nodes}
    assert p.op in targets, f"export did not record {p.op}: {sorted(targets)}"
    return model, args


@pytest.mark.parametrize("p", PROGRAMS, ids=lambda p: p.name)
def test_program_runs_before_and_after_to_core_aten(p: Prog) -> None:
    from xdsl_exir.frontends.torch_live import import_exported_program

    model, args = _record(p)
    module = import_exported_program(torch.export.export(model, args))
    xs = [a.numpy() for a in args]
    with torch.no_grad():
        want = [w.numpy() for w in model(*args)]
    _same(ph.run(module, xs), want, p.rtol, "interpreter")
    after = ph.apply(module, "to-core-aten")
    VerifyExportIRPass(dialect="core").apply(ph.context(), after)
    if p.decomposed:
        assert f'"{p.op}"' not in str(after) and f" {p.op}" not in str(after), f"{p.op} is left after to-core-aten"
    _same(ph.run(after, xs), want, p.rtol, "after to-core-aten")


def _same(got: list[np.ndarray], want: list[np.ndarray], rtol: float, what: str) -> None:
    assert len(got) == len(want), f"{what}: {len(got)} outputs, torch {len(want)}"
    for i, (g, w) in enumerate(zip(got, want)):
        assert g.shape == w.shape, f"{what}: out{i} shape {g.shape}, torch {w.shape}"
        assert g.dtype == w.dtype, f"{what}: out{i} dtype {g.dtype}, torch {w.dtype}"
        if w.dtype.kind == "f":
            np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol, err_msg=f"{what}: out{i}")
            zero = (w == 0) & (g == 0)
            np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{what}: out{i} zero sign")
        else:
            np.testing.assert_array_equal(g, w, err_msg=f"{what}: out{i}")


# torch.export cannot trace `cov` (its kernel asks `equal` of the weights' values): the rule is
# checked on a one-op program, as the decompositions' golden table does
COV_CASES = [
    ("aten.cov.default", (randn(3, 6),), {}),
    ("aten.cov.default", (randn(5),), {"correction": 0}),
    ("aten.cov.default", (randn(2, 5),), {"fweights": torch.tensor([1, 2, 1, 3, 1]), "aweights": torch.rand(5, generator=_gen())}),
    ("aten.cov.default", (randn(2, 5, dtype=torch.float64),), {"aweights": torch.rand(5, generator=_gen(), dtype=torch.float64), "correction": 2}),
    ("aten.cov.default", (randn(3, 1),), {}),
    ("aten.cov.default", (edge(2, 6),), {}),
    ("aten.corrcoef.default", (noncontig(3, 6),), {}),
    ("aten.corrcoef.default", (randn(6),), {}),
    ("aten.corrcoef.default", (edge(3, 4),), {}),
]


@pytest.mark.parametrize("op,args,kwargs", COV_CASES, ids=[f"{c[0].split('.')[1]}{i}" for i, c in enumerate(COV_CASES)])
def test_cov_and_corrcoef_decompose_and_match_torch(op: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    from xdsl.dialects.builtin import ModuleOp

    from xdsl_exir.dialects.exir import (
        CallFunctionOp,
        GraphOp,
        InputKind,
        InputSpecAttr,
        OutputKind,
        OutputOp,
        OutputSpecAttr,
        ProgramOp,
        TensorType,
    )
    from xdsl_exir.semantics import kernels as aten_kernels
    from xdsl_exir.utils.dtypes import dtype_of

    fn = getattr(torch.ops.aten, op.split(".")[1]).default
    want = fn(*args, **kwargs).numpy()
    tensors = [a.numpy() for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
    got = np.asarray(aten_kernels.run_kernel(op, [args[0].numpy()], {k: v.numpy() if isinstance(v, torch.Tensor) else v
                                                                      for k, v in kwargs.items()}))
    _same([got], [want], 1e-4, "interpreter")
    types = [TensorType(list(t.shape), dtype_of(t)) for t in tensors]
    graph = GraphOp("forward", types, [TensorType(list(want.shape), dtype_of(want))])
    block = graph.body.block
    ins = list(block.args)
    rest = iter(ins[1:])
    kw = {k: (next(rest) if isinstance(v, torch.Tensor) else v) for k, v in kwargs.items()}
    call = CallFunctionOp(op, [ins[0]], kw, [TensorType(list(want.shape), dtype_of(want))])
    block.add_op(call)
    block.add_op(OutputOp([call.results[0]]))
    module = ModuleOp([ProgramOp([InputSpecAttr(InputKind.user_input, f"x{i}") for i in range(len(types))],
                                 [OutputSpecAttr(OutputKind.user_output, "o")], [graph])])
    after = ph.apply(module, "to-core-aten")
    assert op not in str(after)
    _same(ph.run(after, tensors), [want], 1e-4, "after to-core-aten")


@pytest.mark.parametrize("with_replacement", [False, True])
def test_combinations_decomposes_and_matches_torch(with_replacement: bool) -> None:
    """torch.export cannot trace `combinations` (its meta kernel's size is data-dependent): the
    interpreter runs the rule on its own."""
    for x in (edge(5), torch.tensor([3, 1, 2]), torch.zeros(1)):
        for r in (2, 3):
            got = _run("aten.combinations.default", x, r, with_replacement)
            _same([np.asarray(got)], [torch.combinations(x, r, with_replacement).numpy()], 0.0, "combinations")



def test_dtype_queries_match_torch() -> None:
    from xdsl_exir.semantics.kernels.dtypes import dtype_of

    dtypes = [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16, torch.float32,
              torch.float64, torch.complex64]

    def ours(d: Any) -> Any:
        return dtype_of(torch.empty(0, dtype=d).numpy())

    for a in dtypes:
        for b in dtypes:
            assert _run("aten.can_cast.default", ours(a), ours(b)) == torch.can_cast(a, b), (a, b)
            assert _run("aten.promote_types.default", ours(a), ours(b)) == ours(torch.promote_types(a, b)), (a, b)
    tensors = [torch.zeros(3, dtype=torch.int32), torch.tensor(2.5, dtype=torch.float64), torch.zeros(2, dtype=torch.float16),
               torch.tensor(True)]
    for x in tensors:
        for y in tensors:
            assert _run("aten.result_type.Tensor", x, y) == ours(torch.result_type(x, y)), (x, y)
        for s in (2, 2.5, True):
            assert _run("aten.result_type.Scalar", x, s) == ours(torch.result_type(x, s)), (x, s)
            assert _run("aten.result_type.Scalar_Tensor", s, x) == ours(torch.result_type(s, x)), (s, x)
        assert _run("aten.dim.default", x) == x.dim()
    for s1 in (2, 2.5, True):
        for s2 in (3, -1.5, False):
            assert _run("aten.result_type.Scalar_Scalar", s1, s2) == ours(torch.result_type(s1, s2)), (s1, s2)


def test_size_and_numel_queries() -> None:
    x = torch.zeros(2, 3, 0)
    assert _run("aten.size.int", x, 1) == 3 and _run("aten.size.int", x, -1) == 0
    assert _run("aten.numel.default", x) == 0 and _run("aten.numel.default", torch.zeros(4, 5)) == 20


def test_functional_scatters_match_torch() -> None:
    x = randn(3, 4, 5)
    for offset, d1, d2 in ((0, 0, 1), (1, 1, 2), (-2, 2, 0), (7, 0, 1)):
        src = torch.diagonal(x, offset, d1, d2).clone().normal_(generator=_gen())
        _same_results(_run("aten.diagonal_scatter.default", x, src, offset, d1, d2),
                      torch.diagonal_scatter(x, src, offset, d1, d2), "diagonal_scatter")
    base = edge(4, 5)
    src = randn(2, 3)
    for size, stride, off in (([2, 3], [5, 1], 0), ([2, 3], [1, 2], 3), ([2, 3], [6, 2], 1)):
        _same_results(_run("aten.as_strided_scatter.default", base, src, size, stride, off),
                      torch.as_strided_scatter(base, src, size, stride, off), "as_strided_scatter")
    with pytest.raises(ValueError, match="share one storage location"):  # torch refuses the overlap too
        _run("aten.as_strided_scatter.default", base, src, [2, 3], [0, 1], 4)
    idx = torch.tensor([0, -1, 5, 5])
    vals = torch.tensor([1.0, 2.0, 3.0, 4.0])
    for acc in (False, True):
        _same_results(_run("aten.put.default", torch.zeros(2, 4), idx[:3] if not acc else idx, vals[:3] if not acc else vals,
                           acc), torch.put(torch.zeros(2, 4), idx[:3] if not acc else idx, vals[:3] if not acc else vals, acc),
                      "put")
    w = randn(6, 3) * 3
    for norm_type in (2.0, 1.0, float("inf")):
        want = w.clone()
        torch.embedding_renorm_(want, torch.tensor([0, 2, 2, 5]), 1.5, norm_type)
        _same_results(_run("aten.embedding_renorm.default", w, torch.tensor([0, 2, 2, 5]), 1.5, norm_type), want,
                      f"embedding_renorm p={norm_type}")


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=["float32", "float64"])
def test_modified_bessel_i0_i1_match_torch(dtype: Any) -> None:
    x = _special_inputs(dtype)
    for op, fn in (("aten.special_modified_bessel_i0.default", torch.special.modified_bessel_i0),
                   ("aten.special_modified_bessel_i1.default", torch.special.modified_bessel_i1)):
        _close(np.asarray(_run(op, x)), fn(x).numpy(), RTOL[dtype] * 10, op)
