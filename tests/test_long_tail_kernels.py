"""
Kernels and result types of issue 21's missing operators (kthvalue, bincount,
bucketize, repeat_interleave, meshgrid, renorm, new_empty_strided, _int_mm,
adaptive_max_pool1d) against torch eager, edge values included, and one
exported program that uses them all through the interpreter.
"""

from __future__ import annotations

import io
import warnings
from typing import Any, cast

import numpy as np
import pytest

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics import kernels as K

torch = pytest.importorskip("torch")
NAN, INF = float("nan"), float("inf")


def _same(ours: Any, theirs: Any, rtol: float = 1e-6) -> None:
    if isinstance(theirs, tuple | list):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs, strict=True):
            _same(o, t, rtol)
        return
    want, got = theirs.numpy(), np.asarray(ours)
    assert got.dtype == want.dtype and got.shape == want.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=1e-6, equal_nan=True)  # sums in another order


X = torch.tensor([[3.0, NAN, 1.0, 2.0], [0.5, -0.0, 0.0, -1.0], [INF, -INF, 7.0, 7.0]])


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("dim", [1, -1])
@pytest.mark.parametrize("keepdim", [False, True])
def test_kthvalue(k: int, dim: int, keepdim: bool) -> None:
    x = X[:2]  # distinct values per row: the index is defined
    _same(K.run_kernel("aten.kthvalue.default", [x.numpy(), k, dim, keepdim], {}), tuple(torch.kthvalue(x, k, dim, keepdim)))
    _same(K.run_kernel("aten.kthvalue.default", [x.numpy(), 1, 0], {}), tuple(torch.kthvalue(x, 1, 0)))


def test_kthvalue_ties_pick_an_equal_value() -> None:
    got_v, got_i = cast(tuple[np.ndarray, np.ndarray], K.run_kernel("aten.kthvalue.default", [X[2:].numpy(), 4, 1], {}))
    want_v, _ = torch.kthvalue(X[2:], 4, 1)
    _same(got_v, want_v)
    assert X[2, int(got_i[0])] == want_v[0]


@pytest.mark.parametrize("weights", [None, torch.float32, torch.float64, torch.int64, torch.float16])
@pytest.mark.parametrize("minlength", [0, 10])
def test_bincount(weights: Any, minlength: int) -> None:
    i = torch.tensor([0, 3, 1, 1, 7], dtype=torch.int64)
    w = None if weights is None else torch.tensor([0.5, 1, 2, -1, 3]).to(weights)
    got = K.run_kernel("aten.bincount.default", [i.numpy(), None if w is None else w.numpy(), minlength], {})
    _same(got, torch.bincount(i, w, minlength))
    _same(K.run_kernel("aten.bincount.default", [np.zeros(0, np.int64)], {}), torch.bincount(torch.zeros(0, dtype=torch.int64)))
    with pytest.raises(ValueError, match="non-negative"):
        K.run_kernel("aten.bincount.default", [np.array([-1, 2])], {})


@pytest.mark.parametrize("right", [False, True])
@pytest.mark.parametrize("out_int32", [False, True])
def test_bucketize(right: bool, out_int32: bool) -> None:
    v = torch.tensor([1.0, 2, NAN, -INF, 2.5, INF, -0.0])
    bounds = torch.tensor([0.0, 1, 2, 3])
    kw = {"out_int32": out_int32, "right": right}
    _same(K.run_kernel("aten.bucketize.Tensor", [v.numpy(), bounds.numpy()], kw), torch.bucketize(v, bounds, **kw))
    _same(K.run_kernel("aten.bucketize.Scalar", [2, bounds.numpy()], kw), torch.bucketize(2, bounds, **kw))
    vi = torch.tensor([0, 1, 5, -3])
    _same(K.run_kernel("aten.bucketize.Tensor", [vi.numpy(), bounds.numpy()], kw), torch.bucketize(vi, bounds, **kw))


def test_repeat_interleave() -> None:
    r = torch.tensor([2, 0, 3, 1])
    _same(K.run_kernel("aten.repeat_interleave.Tensor", [r.numpy()], {}), torch.repeat_interleave(r))
    _same(K.run_kernel("aten.repeat_interleave.Tensor", [np.zeros(0, np.int64)], {}), torch.repeat_interleave(torch.zeros(0, dtype=torch.int64)))
    x = X.numpy()
    _same(K.run_kernel("aten.repeat_interleave.self_Tensor", [x, np.array([1, 0, 2]), 0], {}),
          torch.repeat_interleave(X, torch.tensor([1, 0, 2]), 0))
    _same(K.run_kernel("aten.repeat_interleave.self_Tensor", [x, np.array([2])], {}), torch.repeat_interleave(X, torch.tensor([2])))
    with pytest.raises(ValueError, match="negative"):
        K.run_kernel("aten.repeat_interleave.Tensor", [np.array([1, -1])], {})


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid(indexing: str) -> None:
    a, b, c = torch.arange(3.0), torch.tensor([NAN, -0.0]), torch.tensor(5.0)
    got = K.run_kernel("aten.meshgrid.indexing", [[a.numpy(), b.numpy(), c.numpy()]], {"indexing": indexing})
    _same(got, torch.meshgrid(a, b, c, indexing=indexing))


@pytest.mark.parametrize("p", [1.0, 2.0, 3.5, INF])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16])
def test_renorm(p: float, dim: int, dtype: Any) -> None:
    y = torch.tensor([[3.0, 4, 0], [0.3, 0.4, 0], [INF, 1, 1], [-0.0, 0, 0]], dtype=dtype)
    rtol = 1e-3 if dtype == torch.float16 else 1e-6  # half: one unit in the last place (pow's rounding)
    _same(K.run_kernel("aten.renorm.default", [y.numpy(), p, dim, 1.0], {}), torch.renorm(y, p, dim, 1.0), rtol)


def test_int_mm_wraps_as_torch() -> None:
    g = torch.Generator().manual_seed(0)
    m = torch.randint(-128, 128, (17, 64), dtype=torch.int8, generator=g)
    n = torch.randint(-128, 128, (64, 8), dtype=torch.int8, generator=g)
    m[0] = -128
    n[:, 0] = -128
    _same(K.run_kernel("aten._int_mm.default", [m.numpy(), n.numpy()], {}), torch._int_mm(m, n))


@pytest.mark.parametrize("size", [1, 3, 4, 10])
def test_adaptive_max_pool1d(size: int) -> None:
    z = torch.randn(2, 3, 10, generator=torch.Generator().manual_seed(1))
    z[0, 0, 3] = NAN
    z[1, 2, 5] = INF
    _same(K.run_kernel("aten.adaptive_max_pool1d.default", [z.numpy(), [size]], {}),
          tuple(torch.ops.aten.adaptive_max_pool1d(z, [size])))
    _same(K.run_kernel("aten.adaptive_max_pool1d.default", [z[0].numpy(), [size]], {}),
          tuple(torch.ops.aten.adaptive_max_pool1d(z[0], [size])))


def test_new_empty_strided_shape_and_dtype() -> None:
    """Uninitialized in torch: only the shape and dtype are defined."""
    got = np.asarray(K.run_kernel("aten.new_empty_strided.default", [X.numpy(), [2, 3], [3, 1]], {}))
    want = torch.ops.aten.new_empty_strided(X, [2, 3], [3, 1])
    assert got.shape == tuple(want.shape) and got.dtype == want.numpy().dtype
    got = np.asarray(K.run_kernel("aten.new_empty_strided.default", [X.numpy(), [4], [1]], {"dtype": 4}))
    assert got.dtype == np.int64


class _All(torch.nn.Module):
    def forward(self, x: Any, i: Any, a: Any, m: Any, n: Any) -> Any:
        v, ix = torch.kthvalue(x, 2, 1, True)
        g = torch.meshgrid(a, a[:3], indexing="xy")
        p = torch.ops.aten.adaptive_max_pool1d(x.unsqueeze(0), [2])
        return (v, ix, g[0], g[1], torch.bucketize(x, a), torch.renorm(x, 2, 0, 1.0), p[0], p[1],
                torch._int_mm(m, n), torch.bincount(i), torch.repeat_interleave(i))


def test_exported_program_runs_them_as_eager() -> None:
    args = (torch.randn(4, 5), torch.tensor([0, 2, 2, 1]), torch.tensor([-1.0, 0, 0.5, 2]),
            torch.randint(-128, 127, (17, 32), dtype=torch.int8), torch.randint(-128, 127, (32, 8), dtype=torch.int8))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(_All(), args)
    f = io.BytesIO()
    torch.export.save(ep, f)
    got = ProgramRunner(load_pt2(f.getvalue())).run([a.numpy() for a in args])
    _same(list(got), list(_All()(*args)))


@pytest.mark.parametrize("name", ["embedding_bag.padding_idx", "_embedding_bag_forward_only.default", "_embedding_bag.default"])
@pytest.mark.parametrize("mode", [0, 1, 2])
def test_embedding_bag_overloads(name: str, mode: int) -> None:
    """Every result (the backward's bookkeeping included) as torch's CPU kernel, padding indices counted from either end."""
    g = torch.Generator().manual_seed(2)
    w, i = torch.randn(10, 3, generator=g), torch.tensor([0, 2, 4, 5, 4, 9])
    op_name, overload = name.split(".")
    op = getattr(getattr(torch.ops.aten, op_name), overload)
    pads: tuple[int | None, ...] = (None, 4, -1, 9, -10) if op_name == "embedding_bag" else (-1, 4, 9)
    for pad, last in ((p, last) for p in pads for last in (False, True)):
        offsets = torch.tensor([0, 2, 2, 6] if last else [0, 2, 2, 4])
        for psw in (None, torch.rand(6, generator=g)) if mode == 0 else (None,):
            args = [w, i, offsets, False, mode, False, psw, last, pad]
            got = K.run_kernel(f"aten.{name}", [a.numpy() if isinstance(a, torch.Tensor) else a for a in args], {})
            _same(got, tuple(op(*args)))


def test_embedding_bag_refuses_a_last_offset_short_of_the_indices() -> None:
    """torch's CPU paths disagree with each other there (the sum stops at the offset, the others do not)."""
    w, i = np.ones((10, 3), np.float32), np.array([0, 2, 4, 5])
    with pytest.raises(ValueError, match="last offset"):
        K.run_kernel("aten._embedding_bag.default", [w, i, np.array([0, 2, 3]), False, 0, False, None, True], {})


class _Bags(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.bag = torch.nn.EmbeddingBag(10, 3, mode="mean", padding_idx=2)

    def forward(self, i: Any, o: Any) -> Any:
        return self.bag(i, o)


def test_exported_embedding_bag_with_padding_runs_as_eager() -> None:
    args = (torch.tensor([0, 2, 4, 5, 2, 9]), torch.tensor([0, 2, 2, 4]))
    module = _Bags()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(module, args)
    f = io.BytesIO()
    torch.export.save(ep, f)
    got = ProgramRunner(load_pt2(f.getvalue())).run([a.numpy() for a in args])
    _same(got[0], module(*args).detach())


@pytest.mark.parametrize("scale_dtype", ["float32", "float64"])
@pytest.mark.parametrize("zero_dtype", ["int64", "int32"])
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_per_channel_quantization_is_bit_exact(scale_dtype: str, zero_dtype: str, axis: int) -> None:
    """PT2E's per-channel (de)quantization against torch's reference ops, infinities and -0.0 included."""
    import torch.ao.quantization.fx._decomposed  # registers the quantized_decomposed operators

    qd = torch.ops.quantized_decomposed
    g = torch.Generator().manual_seed(3)
    x = torch.randn(3, 4, 5, generator=g) * 3
    x[0, 0, 0], x[1, 1, 1], x[2, 2, 2] = INF, -INF, -0.0
    n = x.shape[axis]
    s = (torch.rand(n, generator=g) * 0.1 + 0.01).to(getattr(torch, scale_dtype))
    z = torch.randint(-10, 10, (n,), generator=g).to(getattr(torch, zero_dtype))
    int8 = 1  # torch.int8's ScalarType code
    q = qd.quantize_per_channel(x, s, z, axis, -128, 127, torch.int8)
    ours = K.run_kernel("quantized_decomposed.quantize_per_channel.default", [x.numpy(), s.numpy(), z.numpy(), axis, -128, 127, int8], {})
    _same(ours, q)
    for zp in (z, None):
        want = qd.dequantize_per_channel(q, s, zp, axis, -128, 127, torch.int8)
        got = K.run_kernel("quantized_decomposed.dequantize_per_channel.default",
                           [q.numpy(), s.numpy(), None if zp is None else zp.numpy(), axis, -128, 127, int8], {})
        _same(got, want)
