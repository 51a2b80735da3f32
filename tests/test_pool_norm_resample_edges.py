"""
Pooling, transposed convolution, normalisation and resampling on the values
where a shortcut and torch's CPU kernels part ways: NaN and infinities inside
and outside windows, integer extremes, empty and non-contiguous inputs. The
interpreter's kernels, and the `convert-exir-to-linalg` rules in xDSL's
interpreter (and in IREE when the extra is installed), are compared with
eager PyTorch.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from iree_compiles import compile_lowered
from test_linalg_lowering_conv_reduce import Case, X, Y, f32, op, together

from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL
from xdsl_exir.targets.iree import iree_available, lower_to_upstream

torch = pytest.importorskip("torch")

POOL = [np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, -1.0, 0.5, -2.5, 1e30, -1e-30, 3.0, -7.0]
INT_POOL = [np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, -1, 1, 2, -7, 3, 5]


def edge(shape: Sequence[int], shift: int = 0, dtype: Any = np.float32) -> np.ndarray:
    """Edge values cycling so that two inputs with different shifts meet every pair."""
    pool = INT_POOL if np.dtype(dtype).kind == "i" else POOL
    n = int(np.prod(shape))
    return np.array([pool[(i + shift * (i // len(pool))) % len(pool)] for i in range(n)], dtype=dtype).reshape(shape)


def kernel(name: str) -> Callable[..., Any]:
    import xdsl_exir.semantics.kernels  # noqa: F401 - registers every family

    return FUNCTIONAL[name]


def same(got: Any, want: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    got = np.asarray(got)
    want = want.numpy() if isinstance(want, torch.Tensor) else np.asarray(want)
    assert got.shape == want.shape and got.dtype == want.dtype, f"{got.dtype}{got.shape} vs {want.dtype}{want.shape}"
    if want.dtype.kind == "f":
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol, equal_nan=True)
        both_zero = (got == 0) & (want == 0)
        assert (np.signbit(got) == np.signbit(want))[both_zero].all(), "the sign of a zero differs"
    else:
        np.testing.assert_array_equal(got, want)


def channels_last(a: np.ndarray) -> np.ndarray:
    """The same values laid out channels-last (a non-contiguous NCHW view)."""
    perm = (0, *range(2, a.ndim), 1)
    back = (0, a.ndim - 1, *range(1, a.ndim - 1))
    return np.ascontiguousarray(a.transpose(perm)).transpose(back)


# -- max pooling: the last NaN of a window is its index, as in torch's CPU kernel ------


@pytest.mark.parametrize("layout", ["contiguous", "channels_last"])
@pytest.mark.parametrize(
    ("nd", "shape", "kwargs"),
    [
        (2, (1, 2, 3, 6), {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
        (2, (2, 3, 7, 5), {"kernel_size": 2, "stride": 1, "padding": 1, "dilation": 2}),
        (3, (1, 2, 3, 6, 5), {"kernel_size": 3, "stride": 2, "ceil_mode": True}),
    ],
)
def test_max_pool_indices_with_nan(nd: int, shape: tuple[int, ...], kwargs: dict[str, Any], layout: str) -> None:
    x = edge(shape)
    if layout == "channels_last":
        x = channels_last(x)
    k = {"kernel_size": kwargs["kernel_size"], "stride": kwargs.get("stride", ()), "padding": kwargs.get("padding", 0),
         "dilation": kwargs.get("dilation", 1), "ceil_mode": kwargs.get("ceil_mode", False)}  # fmt: skip
    fn = torch.nn.functional.max_pool2d if nd == 2 else torch.nn.functional.max_pool3d
    want_v, want_i = fn(torch.from_numpy(x), return_indices=True, **kwargs)

    def expand(v: int) -> list[int]:
        return [v] * nd

    got_v, got_i = kernel(f"aten.max_pool{nd}d_with_indices.default")(
        x, expand(k["kernel_size"]), expand(k["stride"]) if k["stride"] else [], expand(k["padding"]), expand(k["dilation"]),
        k["ceil_mode"],
    )  # fmt: skip
    same(got_v, want_v)
    same(got_i, want_i)


def test_max_pool_backward_routes_to_the_last_nan_and_takes_empty_inputs() -> None:
    x = torch.from_numpy(edge((1, 2, 3, 6))).requires_grad_()
    v, i = torch.nn.functional.max_pool2d(x, 3, 2, ceil_mode=True, return_indices=True)
    g = torch.ones_like(v)
    want = torch.ops.aten.max_pool2d_with_indices_backward(g, x.detach(), [3, 3], [2, 2], [0, 0], [1, 1], True, i)
    back = kernel("aten.max_pool2d_with_indices_backward.default")
    same(back(g.numpy(), x.detach().numpy(), [3, 3], [2, 2], [0, 0], [1, 1], True, i.numpy()), want)
    empty = np.zeros((0, 2, 3, 6), np.float32)
    got = back(np.zeros((0, 2, 1, 3), np.float32), empty, [3, 3], [2, 2], [0, 0], [1, 1], True, np.zeros((0, 2, 1, 3), np.int64))
    assert got.shape == (0, 2, 3, 6) and got.dtype == np.float32


# -- average pooling -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("nd", "shape", "args"),
    [
        (2, (1, 2, 5, 6), ([3, 2], [2, 2], [1, 1], True, True, None)),
        (2, (2, 2, 4, 5), ([2, 2], [1, 2], [0, 1], False, False, None)),
        (2, (1, 3, 4, 4), ([2, 2], [2, 2], [0, 0], False, True, 3)),
        (3, (1, 2, 3, 4, 5), ([2, 2, 3], [1, 2, 2], [1, 0, 1], True, True, None)),
    ],
)
def test_int64_avg_pool_wraps_and_truncates(nd: int, shape: tuple[int, ...], args: tuple[Any, ...]) -> None:
    """torch sums int64 windows in int64 (wrapping) and divides truncating toward zero."""
    x = edge(shape, dtype=np.int64)
    k, s, p, ceil, include, div = args
    fn = torch.ops.aten.avg_pool2d if nd == 2 else torch.ops.aten.avg_pool3d
    want = fn(torch.from_numpy(x), k, s, p, ceil, include, div)
    same(kernel(f"aten.avg_pool{nd}d.default")(x, k, s, p, ceil, include, div), want)


# -- adaptive average pooling: an infinity stays in its windows --------------------------


@pytest.mark.parametrize(
    ("name", "shape", "size"),
    [
        ("aten.adaptive_avg_pool1d.default", (3, 8, 8), [5]),
        ("aten.adaptive_avg_pool1d.default", (2, 3, 4), [3]),
        ("aten._adaptive_avg_pool2d.default", (2, 3, 8, 8), [8, 7]),
        ("aten._adaptive_avg_pool2d.default", (2, 3, 7, 5), [3, 2]),
        ("aten._adaptive_avg_pool3d.default", (2, 3, 8, 8, 8), [5, 7, 4]),
        ("aten._adaptive_avg_pool3d.default", (1, 2, 5, 3, 4), [2, 2, 2]),
    ],
)
@pytest.mark.parametrize("values", ["edge", "noncontig", "empty"])
def test_adaptive_avg_pool(name: str, shape: tuple[int, ...], size: list[int], values: str) -> None:
    x = edge(shape) if values != "empty" else np.zeros((0, *shape[1:]), np.float32)
    if values == "noncontig":
        x = edge((*shape, 2))[..., 0]
    want = getattr(torch.ops.aten, name.split(".")[1])(torch.from_numpy(np.ascontiguousarray(x)), size)
    same(kernel(name)(x, size), want)


# -- transposed convolution: no stuffed zero meets an infinite weight --------------------


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize(
    ("stride", "padding", "dilation", "output_padding", "groups"),
    [(1, 0, 1, 0, 1), (2, 1, 1, 1, 1), (2, 2, 2, 1, 1), (3, 0, 1, 2, 2), (1, 1, 2, 0, 3)],
)
def test_conv_transpose_edge_values(nd: int, stride: int, padding: int, dilation: int, output_padding: int, groups: int) -> None:
    x, w = edge((2, 6, *[4] * nd), 0), edge((6, 2, *[3] * nd), 1)
    b = np.arange(2 * groups, dtype=np.float32)
    args = ([stride] * nd, [padding] * nd, [dilation] * nd, True, [output_padding] * nd, groups)
    want = torch.ops.aten.convolution(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), *args)
    same(kernel("aten.convolution.default")(x, w, b, *args), want, atol=1e-5)


# -- the lowering ----------------------------------------------------------------------


def _lowered_against_torch(case: Case, inputs: list[np.ndarray], want: list[Any]) -> None:
    module = case.module()
    for got in [run_lowered(lower_to_upstream(module), inputs)] + ([_iree_run(module, inputs)] if iree_available() else []):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            same(g, w)


def _iree_run(module: Any, inputs: list[np.ndarray]) -> list[Any]:
    return list(compile_lowered(module)(*[x.copy() for x in inputs]))


def test_lowered_max_pool_and_adaptive_avg_follow_torch_on_edge_values() -> None:
    x, y = edge((1, 2, 3, 6)), edge((2, 3, 8), 1)
    case = Case(
        "edges",
        [(f32(1, 2, 3, 6), (1, 2, 3, 6)), (f32(2, 3, 8), (2, 3, 8))],
        together(
            op("aten.max_pool2d_with_indices.default", X, [3, 3], [2, 2], [0, 0], [1, 1], True),
            op("aten._adaptive_avg_pool2d.default", X, [2, 4]),
            op("aten.adaptive_avg_pool1d.default", Y, [5]),
        ),
    )
    t = torch.from_numpy(x)
    v, i = torch.nn.functional.max_pool2d(t, 3, 2, ceil_mode=True, return_indices=True)
    want = [v, i, torch.ops.aten._adaptive_avg_pool2d(t, [2, 4]), torch.ops.aten.adaptive_avg_pool1d(torch.from_numpy(y), [5])]
    _lowered_against_torch(case, [x, y], want)


# -- normalisation ---------------------------------------------------------------------


def _rows(n: int, dtype: Any, seed: int) -> np.ndarray:
    """Rows of ordinary values, of huge ones (whose squares overflow), and mixed."""
    rng = np.random.default_rng(seed)
    big = 3e19 if dtype == np.float32 else 3e154
    rows = []
    for pattern in range(7):
        r = rng.standard_normal(n).astype(dtype)
        if pattern == 1:
            r[:] = big
        elif pattern == 2:
            r[0] = big
        elif pattern == 3:
            r[0], r[-1] = big, -big
        elif pattern == 4:
            r = (r * big).astype(dtype)
        elif pattern == 5:
            r[n // 2] = np.inf
        elif pattern == 6:
            r = (r * 10 + 1e4).astype(dtype)
        rows.append(r)
    return np.stack(rows)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n", [3, 6, 8, 9, 17, 128, 129, 520, 1100])
def test_layer_norm_statistics_overflow_as_torch(n: int, dtype: Any) -> None:
    """torch's row moments (Welford per SIMD lane, chunks combined pairwise) make a
    row of huge values NaN or zeros depending on where a square overflows."""
    x = _rows(n, dtype, n)
    scale = np.nan_to_num(np.abs(x), posinf=0).max(axis=1, keepdims=True)
    for eps in (0.0, 1e-5):
        want = torch.ops.aten.native_layer_norm(torch.from_numpy(x), [n], None, None, eps)
        y, mean, rstd = kernel("aten.native_layer_norm.default")(x, [n], None, None, eps)
        # the row near 1e4 has float32 means a few ulps apart (torch's Welford, our two passes)
        same(y, want[0], rtol=1e-3, atol=1e-3)
        same(rstd, want[2], rtol=1e-4, atol=1e-4)
        # torch's build contracts Welford's updates into fused multiply-adds: a mean
        # that cancels to nothing may keep a residue of the rounding of the huge values
        assert np.array_equal(np.isnan(mean), np.isnan(want[1].numpy()))
        m = want[1].numpy()
        residue = 16 * np.finfo(dtype).eps * scale
        assert ((mean == m) | (np.abs(mean - m) <= 1e-4 * np.abs(m) + residue))[~np.isnan(mean)].all()


def test_layer_norm_edge_sample() -> None:
    """The OpInfo's edge sample: a row holding 1e30 (squared: inf in float32), eps -0.5."""
    x, w, b = edge((2, 2, 3)), edge((2, 3), 1), edge((2, 3), 2)
    want = torch.nn.functional.layer_norm(torch.from_numpy(x), [2, 3], torch.from_numpy(w), torch.from_numpy(b), eps=-0.5)
    same(kernel("aten.layer_norm.default")(x, [2, 3], w, b, -0.5), want)


def test_group_norm_scale_and_shift_and_empty() -> None:
    x = edge((2, 4, 3, 2))
    w, b = np.array([np.inf, 1, 2, -0.0], np.float32), np.array([np.inf, 0, 1, 2], np.float32)
    group_norm = kernel("aten.native_group_norm.default")
    for ww, bb in ((None, None), (w, b)):
        want = torch.ops.aten.native_group_norm(
            torch.from_numpy(x), None if ww is None else torch.from_numpy(ww), None if bb is None else torch.from_numpy(bb), 2, 4, 6, 2, 0.5
        )  # fmt: skip
        for g, t in zip(group_norm(x, ww, bb, 2, 4, 6, 2, 0.5), want):
            same(g, t, rtol=1e-4, atol=1e-4)
    empty = np.zeros((0, 4, 3), np.float32)
    want = torch.ops.aten.native_group_norm(torch.from_numpy(empty), None, None, 0, 4, 3, 2, 1e-5)
    for g, t in zip(group_norm(empty, None, None, 0, 4, 3, 2, 1e-5), want):
        same(g, t)


def _run_exported(fn: Callable[..., Any], *tensors: np.ndarray, core: bool = False) -> list[Any]:
    """`fn` exported by torch.export, imported and run by the interpreter (after `to-core-aten` with `core`)."""
    from xdsl_exir.frontends.torch_live import import_exported_program
    from xdsl_exir.interpreters.program import ProgramRunner

    class Call(torch.nn.Module):
        def forward(self, *xs: Any) -> Any:
            return fn(*xs)

    module = import_exported_program(torch.export.export(Call(), tuple(torch.from_numpy(t) for t in tensors)))
    if core:
        from xdsl_exir.targets.iree import to_core

        module = to_core(module)
    return [np.asarray(v) for v in ProgramRunner(module).run([t.copy() for t in tensors])]


@pytest.mark.parametrize("core", [False, True])
def test_instance_norm_scales_and_shifts_as_batch_norm(core: bool) -> None:
    """torch runs instance norm as batch norm: `x * (rstd * weight) + (bias - mean * rstd * weight)`,
    so a zero input under an infinite weight is NaN."""
    x, w = edge((5, 5, 5)), np.array([np.nan, np.inf, -np.inf, -0.0, 0.0], np.float32)

    def call(x: Any, w: Any) -> Any:
        return torch.nn.functional.instance_norm(x, weight=w, bias=w, eps=0.6)

    want = call(torch.from_numpy(x), torch.from_numpy(w))
    (got,) = _run_exported(call, x, w, core=core)
    same(got, want)
    (plain,) = _run_exported(lambda x: torch.nn.functional.instance_norm(x, eps=0.6), x, core=core)
    same(plain, torch.nn.functional.instance_norm(torch.from_numpy(x), eps=0.6))


@pytest.mark.parametrize("core", [False, True])
def test_unbatched_conv_transpose(core: bool) -> None:
    """`conv_transpose{n}d` of an unbatched input: a unit batch added and dropped around the convolution."""
    rng = np.random.default_rng(0)
    for n, fn in ((1, torch.nn.functional.conv_transpose1d), (2, torch.nn.functional.conv_transpose2d)):
        x = rng.standard_normal((3, *[4] * n)).astype(np.float32)
        w = rng.standard_normal((3, 2, *[3] * n)).astype(np.float32)

        def call(x: Any, w: Any, fn: Callable[..., Any] = fn) -> Any:
            return fn(x, w, stride=2, padding=1, output_padding=1)

        (got,) = _run_exported(call, x, w, core=core)
        same(got, call(torch.from_numpy(x), torch.from_numpy(w)), atol=1e-5)


# -- resampling, distances, softmax backward -------------------------------------------


@pytest.mark.parametrize("mode", [0, 1])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("grid", ["uniform", "edge"])
def test_grid_sampler_2d_zeros_padding(mode: int, align_corners: bool, grid: str) -> None:
    """A corner outside the input reads 0 (an infinity at the border stays out), a NaN coordinate makes NaN."""
    x = edge((2, 3, 5, 6))
    rng = np.random.default_rng(0)
    g = rng.uniform(-1.3, 1.3, (2, 4, 7, 2)).astype(np.float32) if grid == "uniform" else edge((2, 4, 7, 2), 1)
    want = torch.ops.aten.grid_sampler_2d(torch.from_numpy(x), torch.from_numpy(g), mode, 0, align_corners)
    with np.errstate(all="ignore"):
        same(kernel("aten.grid_sampler_2d.default")(x, g, mode, 0, align_corners), want, atol=1e-5)


@pytest.mark.parametrize("p", [0.0, 1.0, 2.0, 3.0, float("inf")])
def test_cdist_edge_values(p: float) -> None:
    x1, x2 = edge((5, 4, 3)), edge((5, 6, 3), 1)
    want = torch.ops.aten._cdist_forward(torch.from_numpy(x1), torch.from_numpy(x2), p, 2)
    with np.errstate(all="ignore"):
        same(kernel("aten._cdist_forward.default")(x1, x2, p, 2), want, rtol=1e-4)


@pytest.mark.parametrize("core", [False, True])
def test_softmax_backward_data_edge_values(core: bool) -> None:
    """torch's `y * (g - sum(g * y))`: an infinite sum gives an infinity, not inf - inf."""
    g, y = edge((5, 10, 5)), edge((5, 10, 5), 1)

    def call(g: Any, y: Any) -> Any:
        return torch.ops.aten._softmax_backward_data(g, y, -1, torch.float32)

    (got,) = _run_exported(call, g, y, core=core)
    same(got, call(torch.from_numpy(g), torch.from_numpy(y)))


_UPSAMPLE = [
    ("linear", 1, {"size": 7}),
    ("linear", 1, {"scale_factor": 2.5}),
    ("linear", 1, {"size": 3, "align_corners": True}),
    ("linear", 1, {"size": 1, "align_corners": True}),
    ("trilinear", 3, {"size": (3, 5, 7)}),
    ("trilinear", 3, {"scale_factor": (1.5, 2.0, 0.5), "align_corners": True}),
    ("nearest-exact", 1, {"size": 7}),
    ("nearest-exact", 2, {"size": (3, 9)}),
    ("nearest-exact", 2, {"scale_factor": 1.7}),
    ("nearest-exact", 3, {"size": (2, 5, 3)}),
]


@pytest.mark.parametrize("core", [False, True])
@pytest.mark.parametrize(("mode", "n", "kwargs"), _UPSAMPLE, ids=[f"{m}{n}d-{i}" for i, (m, n, _) in enumerate(_UPSAMPLE)])
def test_upsample_linear_trilinear_nearest_exact(mode: str, n: int, kwargs: dict[str, Any], core: bool) -> None:
    """Decomposed one spatial dim at a time with ATen's source coordinates, edge values included."""
    for x in (np.random.default_rng(n).standard_normal((2, 3, *[4] * n)).astype(np.float32), edge((1, 2, *[4] * n))):

        def call(x: Any) -> Any:
            return torch.nn.functional.interpolate(x, mode=mode, **kwargs)

        with np.errstate(all="ignore"):
            (got,) = _run_exported(call, x, core=core)
        same(got, call(torch.from_numpy(x)), atol=1e-5)


def test_functional_batch_norm_of_a_core_training_graph() -> None:
    """`_native_batch_norm_legit_functional`, what `run_decompositions` leaves of a training-mode
    BatchNorm: the output and the updated running statistics (returned, not written) as eager's."""
    x = np.random.default_rng(0).standard_normal((4, 3, 5, 5)).astype(np.float32)
    rm, rv = np.arange(3, dtype=np.float32), np.arange(1, 4, dtype=np.float32)
    w, b = np.array([1.0, -2.0, 0.5], np.float32), np.array([0.0, 1.0, -1.0], np.float32)
    t = [torch.from_numpy(v) for v in (x, w, b, rm, rv)]
    for training in (True, False):
        want = torch.ops.aten._native_batch_norm_legit_functional(*t, training, 0.1, 1e-5)
        got = kernel("aten._native_batch_norm_legit_functional.default")(x, w, b, rm, rv, training, 0.1, 1e-5)
        assert len(got) == 5
        for g, v in zip(got, want):
            same(g, v, rtol=1e-5, atol=1e-5)
        assert rm.tolist() == [0.0, 1.0, 2.0], "the running mean given is not written"
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4)).train()
    ep = torch.export.export(model, (torch.from_numpy(x),)).run_decompositions({})
    assert any("_native_batch_norm_legit_functional" in str(n.target) for n in ep.graph.nodes)
    from xdsl_exir.frontends.torch_live import import_exported_program
    from xdsl_exir.interpreters.program import ProgramRunner

    (got_out,) = ProgramRunner(import_exported_program(ep)).run([x.copy()])
    same(np.asarray(got_out), model(torch.from_numpy(x)).detach(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize(
    ("n", "shape", "size"),
    [(1, (2, 3, 9), [4]), (2, (2, 3, 7, 5), [3, 2]), (2, (3, 6, 6), [4, 4]), (3, (2, 3, 5, 6, 7), [2, 4, 3]), (3, (2, 4, 4, 4), [4, 1, 3])],
)
@pytest.mark.parametrize("values", ["random", "edge", "ties"])
def test_adaptive_max_pool(n: int, shape: tuple[int, ...], size: list[int], values: str) -> None:
    """First maximum among numbers, last NaN of a window (torch's scan replaces on `val > max || isnan`)."""
    rng = np.random.default_rng(n)
    x = {"random": rng.standard_normal(shape).astype(np.float32), "edge": edge(shape),
         "ties": rng.integers(-2, 2, shape).astype(np.float32)}[values]  # fmt: skip
    fn = getattr(torch.nn.functional, f"adaptive_max_pool{n}d")
    want = fn(torch.from_numpy(x), size, return_indices=True)
    got = kernel(f"aten.adaptive_max_pool{n}d.default")(x, size)
    for g, w in zip(got, want):
        same(g, w)


def test_max_pool1d_with_indices_decomposes() -> None:
    x = edge((2, 3, 11))

    def call(x: Any) -> Any:
        return torch.nn.functional.max_pool1d(x, 3, 2, 1, ceil_mode=True, return_indices=True)

    for core in (False, True):
        got = _run_exported(call, x, core=core)
        for g, w in zip(got, call(torch.from_numpy(x))):
            same(g, w)


@pytest.mark.parametrize("n", [2, 3])
def test_adaptive_max_pool_empty_batch(n: int) -> None:
    x = np.zeros((0, 3, *[5] * n), np.float32)
    want = getattr(torch.nn.functional, f"adaptive_max_pool{n}d")(torch.from_numpy(x), [2] * n, return_indices=True)
    for g, w in zip(kernel(f"aten.adaptive_max_pool{n}d.default")(x, [2] * n), want):
        same(g, w)
