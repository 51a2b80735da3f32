"""Kernels with a cheap common path and an exact slow one agree with torch on both.

Each kernel here checks its input once and takes the slow path only where
torch's order of operations matters (values near overflow, NaN, infinities);
these tests mix such rows with ordinary ones, so that a check that let one
through, or sent every row down the slow path, shows up as a wrong value.
"""

from __future__ import annotations

import mmap
import pathlib
from collections.abc import Callable

import numpy as np
import pytest
import torch

from xdsl_exir.semantics.kernels import run_kernel


def _rows(rng: np.random.Generator, shape: tuple[int, int], special: dict[tuple[int, int], float]) -> np.ndarray:
    x = rng.standard_normal(shape).astype(np.float32)
    for (i, j), v in special.items():
        x[i, j] = v
    return x


@pytest.mark.parametrize(
    "special",
    [
        {},
        {(1, 3): 3e37},
        {(2, 5): float("nan")},
        {(3, 0): float("inf"), (5, 7): float("-inf")},
        {(0, 0): 2e18, (0, 1): -2e18},
        {(4, 2): -0.0},
    ],
    ids=["ordinary", "near-overflow", "nan", "inf", "square-overflows", "negative-zero"],
)
def test_layer_norm_rows_near_overflow(special: dict[tuple[int, int], float]) -> None:
    rng = np.random.default_rng(0)
    x = _rows(rng, (8, 64), special)
    x[6] *= 1e17  # a large row that is still safe
    w = rng.standard_normal(64).astype(np.float32)
    b = rng.standard_normal(64).astype(np.float32)
    got = run_kernel("aten.native_layer_norm.default", [x, [64], w, b, 1e-5], {})
    want = torch.ops.aten.native_layer_norm.default(torch.from_numpy(x), [64], torch.from_numpy(w), torch.from_numpy(b), 1e-5)
    for g, t in zip(got, want):
        t = t.numpy()
        scale = np.abs(np.where(np.isfinite(t), t, 0)).max(axis=-1, keepdims=True) + 1
        np.testing.assert_array_equal(np.isnan(g), np.isnan(t))
        np.testing.assert_allclose(np.nan_to_num(g / scale), np.nan_to_num(t / scale), rtol=0, atol=1e-5)


@pytest.mark.parametrize("rows", [1, 4, 32, 33, 96])
def test_skinny_products_with_a_transposed_weight(rows: int) -> None:
    """A few rows times a column-major weight is computed the other way round: same values
    as torch (non-finite ones included), row-major, for linear, addmm and mm alike."""
    rng = np.random.default_rng(rows)
    x = rng.standard_normal((rows, 48)).astype(np.float32)
    w = rng.standard_normal((80, 48)).astype(np.float32)
    b = rng.standard_normal(80).astype(np.float32)
    x[0, 3] = np.inf
    w[5, 7] = np.nan
    w[9, 0] = -0.0
    tx, tw, tb = map(torch.from_numpy, (x, w, b))
    cases = {
        "aten.linear.default": ([x, w, b], torch.nn.functional.linear(tx, tw, tb)),
        "aten.addmm.default": ([b, x, w.T], torch.addmm(tb, tx, tw.T)),
        "aten.mm.default": ([x, w.T], torch.mm(tx, tw.T)),
    }
    for op, (args, want) in cases.items():
        got = np.asarray(run_kernel(op, args, {}))
        assert got.flags.c_contiguous and got.shape == (rows, 80), op
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5, err_msg=op)


def _weights_kept_only_while_constant(
    check: Callable[[np.ndarray], None], w0: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Call `check` on weights a kept form may and may not be reused for: a read-only
    constant twice, another constant, a writable copy before and after it changes in
    place, and a read-only view of writable memory before and after that changes; the
    constant, the writable copy and the view are returned for the caller's own checks."""
    constant = np.frombuffer(w0.tobytes(), w0.dtype).reshape(w0.shape)
    check(constant)
    check(constant)  # the kept form reused
    check(np.frombuffer((2 * w0).tobytes(), w0.dtype).reshape(w0.shape))  # another constant replaces it
    writable = w0.copy()
    check(writable)
    writable *= 3  # in place: the next call reads the new values
    check(writable)
    view = writable[:]
    view.flags.writeable = False  # read-only, but its memory is not
    check(view)
    writable += 1
    check(view)
    return constant, writable, view


def test_skinny_products_in_a_compiled_graph() -> None:
    """The graph compiler's own linear/addmm/mm fast paths take the same form."""
    from pass_harness import parse

    from xdsl_exir.interpreters.program import ProgramRunner

    t = "!exir.tensor"
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "b">] outputs [<user_output "y">, <user_output "z">] {{
    exir.graph @forward(%x: {t}<[2, 48], float32>, %w: {t}<[80, 48], float32>, %b: {t}<[80], float32>) -> ({t}<[2, 80], float32>, {t}<[2, 80], float32>) {{
      %wt = exir.call_function "aten.permute.default"(%w, [1, 0]) : ({t}<[80, 48], float32>) -> {t}<[48, 80], float32>
      %y = exir.call_function "aten.addmm.default"(%b, %x, %wt) : ({t}<[80], float32>, {t}<[2, 48], float32>, {t}<[48, 80], float32>) -> {t}<[2, 80], float32>
      %z = exir.call_function "aten.mm.default"(%x, %wt) : ({t}<[2, 48], float32>, {t}<[48, 80], float32>) -> {t}<[2, 80], float32>
      exir.output %y, %z : {t}<[2, 80], float32>, {t}<[2, 80], float32>
    }}
  }}
}}
"""
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype(np.float32) for s in ((2, 48), (80, 48), (80,)))
    y, z = ProgramRunner(parse(text)).run([x, w, b])
    tx, tw, tb = map(torch.from_numpy, (x, w, b))
    np.testing.assert_allclose(y, torch.addmm(tb, tx, tw.T).numpy(), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(z, torch.mm(tx, tw.T).numpy(), rtol=1e-5, atol=1e-5)
    assert y.flags.c_contiguous and z.flags.c_contiguous


def test_constant_weight_is_copied_row_major_once(tmp_path: pathlib.Path) -> None:
    """A linear layer's weight that nothing can write (a parameter: a read-only view of its
    blob's bytes) is multiplied in a row-major copy made on the first call; a weight that can
    change between calls (writable, or a read-only view of writable memory) is read anew each
    time, and another weight replaces the copy. Values as torch's, edge values included."""
    from pass_harness import parse

    from xdsl_exir.interpreters.program import ProgramRunner
    from xdsl_exir.semantics.kernels.matmul import RowMajorWeight

    t = "!exir.tensor"
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "b">] outputs [<user_output "y">, <user_output "z">] {{
    exir.graph @forward(%x: {t}<[96, 48], float32>, %w: {t}<[80, 48], float32>, %b: {t}<[80], float32>) -> ({t}<[96, 80], float32>, {t}<[96, 80], float32>) {{
      %wt = exir.call_function "aten.permute.default"(%w, [1, 0]) : ({t}<[80, 48], float32>) -> {t}<[48, 80], float32>
      %y = exir.call_function "aten.addmm.default"(%b, %x, %wt) : ({t}<[80], float32>, {t}<[96, 48], float32>, {t}<[48, 80], float32>) -> {t}<[96, 80], float32>
      %z = exir.call_function "aten.linear.default"(%x, %w) : ({t}<[96, 48], float32>, {t}<[80, 48], float32>) -> {t}<[96, 80], float32>
      exir.output %y, %z : {t}<[96, 80], float32>, {t}<[96, 80], float32>
    }}
  }}
}}
"""
    rng = np.random.default_rng(4)
    x = rng.standard_normal((48, 96)).astype(np.float32).T  # non-contiguous
    w0 = rng.standard_normal((80, 48)).astype(np.float32)
    b = rng.standard_normal(80).astype(np.float32)
    x[0, 3], x[2, 0] = np.inf, -0.0
    w0[5, 7], w0[9, 0], w0[11, 2] = np.nan, -0.0, -np.inf
    runner = ProgramRunner(parse(text))

    def check(w: np.ndarray) -> None:
        tx, tw, tb = torch.from_numpy(x.copy()), torch.from_numpy(w.copy()), torch.from_numpy(b)
        y, z = runner.run([x, w, b])
        for got, want in ((y, torch.addmm(tb, tx, tw.T)), (z, torch.nn.functional.linear(tx, tw))):
            np.testing.assert_array_equal(np.isnan(got), np.isnan(want.numpy()))
            np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)
            assert got.flags.c_contiguous

    constant, writable, view = _weights_kept_only_while_constant(check, w0)
    # the object alone: an empty batch and a mismatch go to the plain product and its message
    weight = RowMajorWeight()
    x64 = np.ascontiguousarray(x[:64])
    weight.matmul(x64, writable.T)
    weight.matmul(x64, view.T)
    assert weight.copy is None  # nothing copied of memory that can change
    np.testing.assert_array_equal(weight.matmul(x64, constant.T), np.matmul(x64, np.ascontiguousarray(constant.T)))
    assert weight.copy is not None and weight.copy.flags.c_contiguous
    assert weight.matmul(np.zeros((0, 48), np.float32), constant.T).shape == (0, 80)
    # a weight mapped from a file: read-only map, copied; writable map seen read-only, not
    path = tmp_path / "w.bin"
    path.write_bytes(w0.tobytes())
    with path.open("r+b") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as ro:
        mapped = np.frombuffer(memoryview(ro), np.float32).reshape(80, 48)
        weight = RowMajorWeight()
        np.testing.assert_array_equal(weight.matmul(x64, mapped.T), np.matmul(x64, np.ascontiguousarray(w0.T)))
        assert weight.copy is not None
        del mapped, weight  # (the cache holds the map's view, as the parameter does)
    with path.open("r+b") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_WRITE) as rw:
        mapped = np.frombuffer(memoryview(rw).toreadonly(), np.float32).reshape(80, 48)
        weight = RowMajorWeight()
        weight.matmul(x64, mapped.T)
        assert weight.copy is None
        del mapped, weight
    with pytest.raises(ValueError, match="inner sizes 47 and 48 differ"):
        RowMajorWeight().matmul(np.zeros((64, 47), np.float32), constant.T)


@pytest.mark.parametrize("k, size", [(3, 9), (7, 5)])
def test_depthwise_weight_tiled_once(k: int, size: int) -> None:
    """A depthwise convolution's weight that nothing can write (a parameter) is tiled on
    the first call and the tiled form reused; a weight that can change between calls
    (writable, or a read-only view of writable memory) is tiled anew each time, and
    another weight, or another row width, replaces the kept form. Values as torch's,
    edge values and a non-contiguous input included."""
    from pass_harness import parse

    from xdsl_exir.interpreters.program import ProgramRunner
    from xdsl_exir.semantics.kernels.core import DepthwiseTaps

    t = "!exir.tensor"
    c, p = 8, k // 2
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "x">, <user_input "w">] outputs [<user_output "y">] {{
    exir.graph @forward(%x: {t}<[1, {c}, {size}, {size}], float32>, %w: {t}<[{c}, 1, {k}, {k}], float32>) -> ({t}<[1, {c}, {size}, {size}], float32>) {{
      %y = exir.call_function "aten.convolution.default"(%x, %w, none, [1, 1], [{p}, {p}], [1, 1], false, [0, 0], {c}) : ({t}<[1, {c}, {size}, {size}], float32>, {t}<[{c}, 1, {k}, {k}], float32>) -> {t}<[1, {c}, {size}, {size}], float32>
      exir.output %y : {t}<[1, {c}, {size}, {size}], float32>
    }}
  }}
}}
"""
    rng = np.random.default_rng(6)
    x = rng.standard_normal((1, size, size, c)).astype(np.float32).transpose(0, 3, 1, 2)  # non-contiguous
    x[0, 1, 2, 3], x[0, 2, 0, 0], x[0, 3, 4, 4] = np.inf, np.nan, -0.0
    w0 = rng.standard_normal((c, 1, k, k)).astype(np.float32)
    # (finite weights: torch's depthwise kernel leaves the padding out of its sums, so an
    # infinite weight over the padding gives NaN in its dense kernel and here, not in it)
    w0[4, 0, 0, 1], w0[5, 0, 1, 1] = -1e38, -0.0  # (x 3 stays finite)
    runner = ProgramRunner(parse(text))

    def check(w: np.ndarray) -> None:
        want = torch.nn.functional.conv2d(torch.from_numpy(x.copy()), torch.from_numpy(w.copy()), None, 1, p, 1, c)
        (y,) = runner.run([x, w])
        np.testing.assert_array_equal(np.isnan(y), np.isnan(want.numpy()))
        np.testing.assert_allclose(y, want.numpy(), rtol=1e-5, atol=1e-5)

    constant, writable, view = _weights_kept_only_while_constant(check, w0)
    # the object alone: nothing kept of memory that can change; a kept form is read-only
    taps = DepthwiseTaps()
    taps.tiled(view, (k, k), size)
    assert taps.entry is None
    tiled = taps.tiled(constant, (k, k), size)
    assert taps.entry is not None and not tiled.flags.writeable and tiled.shape == (k, k, size * c)
    assert taps.tiled(constant, (k, k), size) is tiled
    assert taps.tiled(constant, (k, k), size + 1).shape == (k, k, (size + 1) * c)  # another width replaces it
    np.testing.assert_array_equal(tiled.reshape(k, k, size, c)[:, :, 3], w0[:, 0].transpose(1, 2, 0))
    wide = (32 << 20) // (k * k * c * 4) + 1  # a tiled form over 32 MiB is not kept
    assert taps.tiled(constant, (k, k), wide).shape == (k, k, wide * c) and taps.entry[3] is not None
    assert taps.entry[2][3] == size + 1


@pytest.mark.parametrize("pick", ["none", "all", "mixed", "empty"])
def test_where_when_the_condition_picks_one_side(pick: str) -> None:
    """A condition true nowhere or everywhere is a copy of one side, broadcast and promoted
    as torch.where does (NaN and -0.0 kept, a fresh array, not the operand)."""
    rng = np.random.default_rng(4)
    rows = 0 if pick == "empty" else 8
    cond = {"none": np.zeros, "all": np.ones, "mixed": lambda s, dtype: rng.random(s) < 0.5, "empty": np.zeros}[pick](
        (1, rows, 1), dtype=bool
    )
    a = rng.standard_normal((1, rows, 16)).astype(np.float32)
    b = rng.standard_normal((1, 1, 16)).astype(np.float64)
    if rows:
        a[0, 0, :3] = [np.nan, -0.0, np.inf]
    b[0, 0, :3] = [-0.0, np.nan, -np.inf]
    ints = np.arange(16, dtype=np.int64).reshape(1, 1, 16)
    tc, ta, tb, ti = map(torch.from_numpy, (cond, a, b, ints))
    cases = [
        ("aten.where.self", [cond, a, b], torch.where(tc, ta, tb)),
        ("aten.where.self", [cond, ints, a], torch.where(tc, ti, ta)),
        ("aten.where.ScalarOther", [cond, a, 2.5], torch.where(tc, ta, 2.5)),
        ("aten.where.ScalarSelf", [cond, -1.5, b], torch.where(tc, -1.5, tb)),
    ]
    for op, args, want in cases:
        got = np.asarray(run_kernel(op, args, {}))
        w = want.numpy()
        assert got.dtype == w.dtype and got.shape == w.shape, op
        np.testing.assert_array_equal(got, w, err_msg=op)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(w), err_msg=op)
        assert not any(got is x or np.shares_memory(got, x) for x in args if isinstance(x, np.ndarray))


RELU_CHAIN = """
builtin.module {{
  exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "r">] {{
    exir.graph @forward(%x: {t}, %y: {t}) -> {t} {{
      %s = aten.add.Tensor(%x, %y) : ({t}, {t}) -> {t}
      %r = aten.relu.default(%s) : ({t}) -> {t}
      exir.output %r : {t}
    }}
  }}
}}
"""


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_relu_keeps_negative_zero_and_nan_sign_in_place(fused: bool, dtype: str) -> None:
    """relu's fast path (and a fusion group writing relu into its operand's buffer): -0.0
    stays -0.0 and a NaN keeps its sign, as torch's; negatives and -inf become +0.0."""
    import pass_harness as ph

    from xdsl_exir.interpreters.program import ProgramRunner

    n = 203  # vector loops and a scalar tail
    text = RELU_CHAIN.format(t=f"!exir.tensor<[{n}], {dtype}>")
    module = ph.parse(text)
    if fused:
        module = ph.apply(module, "fuse-pointwise")
        assert any(op.name == "exir.fusion_group" for op in module.walk())
    rng = np.random.default_rng(5)
    x = rng.standard_normal(n).astype(dtype)
    x[[0, 7, 64, 130, 202]] = [-0.0, np.nan, -np.nan, -np.inf, -0.0]
    x[[1, 2, 3]] = [np.inf, 0.0, -1e-45]
    y = np.zeros(n, dtype)
    y[5] = -0.0
    x[5] = -0.0  # -0.0 + -0.0 is -0.0
    (got,) = ProgramRunner(module).run([x, y])
    want = torch.relu(torch.from_numpy(x) + torch.from_numpy(y)).numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))
    # a 0-d operand
    (z,) = ProgramRunner(ph.parse(RELU_CHAIN.format(t=f"!exir.tensor<[], {dtype}>"))).run(
        [np.array(-0.0, dtype), np.array(-0.0, dtype)]
    )
    assert z.shape == () and z == 0 and np.signbit(z)


SCALAR_OPS = """
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "a">, <user_output "s">, <user_output "m">, <user_output "d">] {{
    exir.graph @forward(%x: {t}) -> ({t}, {t}, {t}, {t}) {{
      %a = aten.add.Scalar(%x, 0.1) : ({t}) -> {t}
      %s = aten.sub.Scalar(%x, 3) : ({t}) -> {t}
      %m = aten.mul.Scalar(%x, -0.0) : ({t}) -> {t}
      %d = aten.div.Scalar(%x, 0.3) : ({t}) -> {t}
      exir.output %a, %s, %m, %d : {t}, {t}, {t}, {t}
    }}
  }}
}}
"""


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_scalar_overloads_match_torch(dtype: str) -> None:
    """add/sub/mul/div.Scalar take the tensor-with-a-number fast path: torch's values,
    the number rounded to the tensor's dtype, edge values included."""
    import pass_harness as ph

    from xdsl_exir.interpreters.program import ProgramRunner

    x = np.array([1.5, -0.0, 0.0, np.nan, np.inf, -np.inf, 3e38, -1e-45, 7.0], dtype)
    runner = ProgramRunner(ph.parse(SCALAR_OPS.format(t=f"!exir.tensor<[9], {dtype}>")))
    got = runner.run([x])
    tx = torch.from_numpy(x)
    want = [torch.ops.aten.add.Scalar(tx, 0.1), torch.ops.aten.sub.Scalar(tx, 3), torch.ops.aten.mul.Scalar(tx, -0.0),
            torch.ops.aten.div.Scalar(tx, 0.3)]  # fmt: skip
    for g, w in zip(got, want):
        assert g.dtype == w.numpy().dtype and g.shape == (9,)
        np.testing.assert_array_equal(g, w.numpy())
        np.testing.assert_array_equal(np.signbit(g[~np.isnan(g)]), np.signbit(w.numpy()[~np.isnan(g)]))


@pytest.mark.parametrize(("log", "safe"), [(False, False), (True, False), (False, True)])
def test_softmax_row_max_by_reduceat(log: bool, safe: bool) -> None:
    """The last-dim shift found by `reduceat` is the axis reduction's; softmax agrees with
    torch on rows with NaN, +-inf, only -inf and -0.0, strided or not, and on no rows."""
    from xdsl_exir.semantics.kernels.core import row_fmax, softmax_rows

    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 7, 49)).astype(np.float32) * 4
    x[0, 1, 5] = np.nan
    x[0, 2, :] = -np.inf
    x[1, 3, 0] = np.inf
    x[1, 4, :] = -0.0
    x[2, 5, 7] = -np.inf
    x[2, 6, :] = np.nan
    np.testing.assert_array_equal(row_fmax(x), np.fmax.reduce(x, axis=-1, keepdims=True))
    got = softmax_rows(x, 2, log, safe)
    tx = torch.from_numpy(x)
    if safe:
        want = torch.ops.aten._safe_softmax.default(tx, 2)
    else:
        want = torch.log_softmax(tx, 2) if log else torch.softmax(tx, 2)
    np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)
    strided = np.ascontiguousarray(x.transpose(1, 0, 2)).transpose(1, 0, 2)  # same values, not C-contiguous
    np.testing.assert_allclose(softmax_rows(strided, 2, log, safe), want.numpy(), rtol=1e-5, atol=1e-6)
    assert softmax_rows(np.zeros((0, 4), np.float32), 1, log, safe).shape == (0, 4)


@pytest.mark.parametrize("name", ["relu", "relu6"])
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.int32])
def test_relu_kernel_keeps_negative_zero_and_nan(name: str, dtype: torch.dtype) -> None:
    """The kernel table's relu (dtypes the fast path leaves to it) keeps -0.0 and NaN over
    vector loops and a scalar tail, as torch's."""
    x = torch.randn(203, generator=torch.Generator().manual_seed(7)) * 8
    if dtype.is_floating_point:
        x[[0, 7, 64, 130, 202, 5]] = torch.tensor([-0.0, float("nan"), float("-inf"), float("inf"), -0.0, 0.0])
    x = x.to(dtype)
    operand = x.float().numpy().astype(np.dtype("bfloat16")) if dtype == torch.bfloat16 else x.numpy()
    got = np.asarray(run_kernel(f"aten.{name}.default", [operand], {})).astype(np.float32)
    want = getattr(torch.nn.functional, name)(x).float().numpy()
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


@pytest.mark.parametrize("contiguous", [True, False])
@pytest.mark.parametrize(
    "special",
    [{}, {(1, 3): 3e37}, {(2, 5): float("nan")}, {(3, 0): float("inf")}, {(0, 0): 2e18, (0, 1): -2e18}],
    ids=["ordinary", "near-overflow", "nan", "inf", "square-overflows"],
)
def test_layer_norm_statistics_bound_on_any_layout(contiguous: bool, special: dict[tuple[int, int], float]) -> None:
    """The common path bounds each row's magnitudes by its own mean and variance; a row
    whose bound fails (a special value, a huge row) sends the call to torch's order of
    operations. A channels-last view (copied by the kernel) and a 3-d input alike; the
    input is left as it was."""
    rng = np.random.default_rng(7)
    base = rng.standard_normal((2, 48, 6)).astype(np.float32)  # rows of 48 along a strided axis
    x = base.transpose(0, 2, 1) if not contiguous else np.ascontiguousarray(base.transpose(0, 2, 1))
    for (i, j), v in special.items():
        x[i % 2, i % 6, j] = v
    x[1, 4] *= 1e17  # large, still safe: its bound stays under the limit
    before = x.copy()
    w = rng.standard_normal(48).astype(np.float32)
    b = rng.standard_normal(48).astype(np.float32)
    got = run_kernel("aten.native_layer_norm.default", [x, [48], w, b, 1e-5], {})
    np.testing.assert_array_equal(x, before)
    want = torch.ops.aten.native_layer_norm.default(
        torch.from_numpy(np.ascontiguousarray(x)), [48], torch.from_numpy(w), torch.from_numpy(b), 1e-5
    )
    for g, t in zip(got, want):
        t = t.numpy()
        assert g.shape == t.shape and g.flags.c_contiguous
        scale = np.abs(np.where(np.isfinite(t), t, 0)).max(axis=-1, keepdims=True) + 1
        np.testing.assert_array_equal(np.isnan(g), np.isnan(t))
        np.testing.assert_allclose(np.nan_to_num(g / scale), np.nan_to_num(t / scale), rtol=0, atol=1e-5)


EXPAND = """
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "same">, <user_output "wide">] {{
    exir.graph @forward(%x: {t}<[2, 1, 3], float32>) -> ({t}<[2, 1, 3], float32>, {t}<[4, 2, 5, 3], float32>) {{
      %same = aten.expand.default(%x, [2, 1, 3]) : ({t}<[2, 1, 3], float32>) -> {t}<[2, 1, 3], float32>
      %wide = aten.expand.default(%x, [4, 2, 5, 3]) : ({t}<[2, 1, 3], float32>) -> {t}<[4, 2, 5, 3], float32>
      exir.output %same, %wide : {t}<[2, 1, 3], float32>, {t}<[4, 2, 5, 3], float32>
    }}
  }}
}}
"""


def test_expand_to_its_own_sizes_is_the_operand() -> None:
    """An `expand` to the sizes the operand has is the operand (a view of all of it, its
    strides, non-contiguous ones included); a real broadcast still goes to the kernel."""
    from pass_harness import parse

    from xdsl_exir.interpreters.program import ProgramRunner

    base = np.arange(12, dtype=np.float32).reshape(3, 1, 4)
    x = base.transpose(2, 1, 0)[:2]  # [2, 1, 3], strided
    x[0, 0, 0] = -0.0
    x[1, 0, 2] = np.nan
    same, wide = ProgramRunner(parse(EXPAND.format(t="!exir.tensor"))).run([x])
    tx = torch.from_numpy(np.ascontiguousarray(x))
    np.testing.assert_array_equal(same, tx.expand(2, 1, 3).numpy())
    assert np.signbit(same[0, 0, 0]) and np.shares_memory(same, x) and same.strides == x.strides
    np.testing.assert_array_equal(wide, tx.expand(4, 2, 5, 3).numpy())
    assert np.shares_memory(wide, x) and wide.strides[0] == 0


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("exponent", ["2", "2.0", "3", "0.5"])
def test_pow_by_a_number_in_a_compiled_graph(dtype: str, exponent: str) -> None:
    """`x ** 2` runs as the product x * x (RMSNorm's square), as torch's CPU pow computes it;
    other exponents keep the kernel. Edge values and a strided operand, bit for bit (square
    roots to the last bit: torch's own depends on the CPU)."""
    from pass_harness import parse

    from xdsl_exir.interpreters.program import ProgramRunner

    t = f"!exir.tensor<[3, 5], {dtype}>"
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "y">] {{
    exir.graph @forward(%x: {t}) -> {t} {{
      %y = aten.pow.Tensor_Scalar(%x, {exponent}) : ({t}) -> {t}
      exir.output %y : {t}
    }}
  }}
}}
"""
    x = np.random.default_rng(8).standard_normal((5, 3)).astype(dtype).T  # strided
    x[0, :] = [np.nan, -np.inf, np.inf, -0.0, 0.0]
    x[1, :2] = [1e200 if dtype == "float64" else 1e30, -1e-30]
    (y,) = ProgramRunner(parse(text)).run([x])
    want = torch.pow(torch.from_numpy(np.ascontiguousarray(x)), float(exponent)).numpy()
    assert y.dtype == want.dtype and y.shape == want.shape
    if exponent == "0.5":
        # torch's sqrt is MKL's vsSqrt/vdSqrt, whose last bit depends on the CPU: to the last bit
        finite = np.isfinite(want)
        np.testing.assert_array_equal(y[~finite], want[~finite])
        np.testing.assert_array_max_ulp(y[finite], want[finite], maxulp=1)
    else:
        np.testing.assert_array_equal(y, want)
    np.testing.assert_array_equal(np.signbit(y[~np.isnan(y)]), np.signbit(want[~np.isnan(want)]))


BMM = """
builtin.module {{
  exir.program inputs [<user_input "a">, <user_input "b">] outputs [<user_output "c">] {{
    exir.graph @forward(%a: {t}<[{n}, {m}, {k}], float32>, %b: {t}<[{n}, {k}, {p}], float32>) -> {t}<[{n}, {m}, {p}], float32> {{
      %c = aten.bmm.default(%a, %b) : ({t}<[{n}, {m}, {k}], float32>, {t}<[{n}, {k}, {p}], float32>) -> {t}<[{n}, {m}, {p}], float32>
      exir.output %c : {t}<[{n}, {m}, {p}], float32>
    }}
  }}
}}
"""


@pytest.mark.parametrize(
    "sizes", [(3, 2, 4, 5), (4, 50, 64, 50), (0, 3, 4, 5)], ids=["small-bmm", "attention", "empty"]
)
def test_bmm_in_a_compiled_graph(sizes: tuple[int, int, int, int]) -> None:
    """The graph compiler's bmm calls the kernel's own product: values as torch's (NaN,
    infinities and -0.0 included), a transposed operand, and ATen's small-bmm rounding,
    where `-inf + 1e30 * 1e30` is NaN as torch's loop sums it (a fused multiply-add keeps
    -inf)."""
    from pass_harness import parse

    from xdsl_exir.interpreters.program import ProgramRunner

    n, m, k, p = sizes
    rng = np.random.default_rng(9)
    a = rng.standard_normal((n, m, k)).astype(np.float32)
    b = rng.standard_normal((n, p, k)).astype(np.float32).transpose(0, 2, 1)  # strided, as k.transpose(-2, -1)
    if n:
        a[0, 0, :2] = [np.nan, -0.0]
        a[-1, -1, 0], a[-1, -1, 1], b[-1, 1, -1] = -np.inf, 1e30, 1e30
        b[0, 2, 0] = np.inf
    (c,) = ProgramRunner(parse(BMM.format(t="!exir.tensor", n=n, m=m, k=k, p=p))).run([a, b])
    want = torch.bmm(torch.from_numpy(a), torch.from_numpy(np.ascontiguousarray(b))).numpy()
    assert c.dtype == want.dtype and c.shape == want.shape
    np.testing.assert_array_equal(np.isnan(c), np.isnan(want))
    np.testing.assert_allclose(c, want, rtol=1e-5, atol=1e-5)
