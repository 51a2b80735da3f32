"""
Accuracy of the linalg lowering and of its upstream interpreter against torch
eager: pooled sums accumulated in float64 like the other sums, a correctly
rounded `math.fma` (the float64 `fmod` the lowering emits depends on it).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import Any, cast

import numpy as np
import pytest
import sympy
from iree_compiles import compile_lowered
from test_decompose import program
from xdsl.dialects import math
from xdsl.dialects.builtin import Float16Type, Float32Type, Float64Type
from xdsl.dialects.builtin import TensorType as MlirTensor
from xdsl.dialects.test import TestOp as Operands

from xdsl_exir.dialects.aten import build
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.interpreters.upstream.math import MathFunctions
from xdsl_exir.semantics.inference.conv_pool import pool_out
from xdsl_exir.targets.iree import iree_available, lower_to_upstream

torch = pytest.importorskip("torch")

F32, F64 = DType.float32, DType.float64
_ELEMENT = {
    np.dtype(np.float64): Float64Type(),
    np.dtype(np.float32): Float32Type(),
    np.dtype(np.float16): Float16Type(),
}


def _fma(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """`math.fma` on 1-d tensors of a's dtype, through the upstream interpreter's function."""
    t = MlirTensor(_ELEMENT[a.dtype], [a.size])
    values = Operands(result_types=[t, t, t]).results
    op = math.FmaOp(values[0], values[1], values[2])
    return np.asarray(MathFunctions().run_fma(cast(Any, None), op, (a, b, c)).values[0])


def _exact(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> list[Fraction]:
    return [Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z)) for x, y, z in zip(a, b, c)]


def _nearest(value: Fraction, dtype: Any) -> float:
    """`value` rounded to nearest-even in a float format, by bracketing it with two neighbours."""
    info = np.finfo(dtype)
    lo = np.asarray(float(value), np.float64).astype(dtype)  # within one ulp of value
    candidates = {float(lo), float(np.nextafter(lo, dtype(np.inf))), float(np.nextafter(lo, dtype(-np.inf)))}
    best = min(
        candidates, key=lambda f: (abs(Fraction(f) - value), int(np.asarray(f, dtype).view(f"u{info.bits // 8}")) & 1)
    )
    return best


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.float16])
def test_fma_rounds_once(dtype: Any) -> None:
    """Products cancelled by c (where rounding the product first loses everything), random triples, signed zeros."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal(300).astype(dtype)
    b = rng.standard_normal(300).astype(dtype)
    near = -(a.astype(np.float64) * b).astype(dtype)
    c = np.concatenate(
        [near[:100], (near[100:200] * dtype(1.001)).astype(dtype), rng.standard_normal(100).astype(dtype)]
    )
    got = _fma(a, b, c)
    want = np.array([_nearest(v, dtype) for v in _exact(a, b, c)], dtype)
    assert np.array_equal(got, want), np.nonzero(got != want)
    zero = np.array([0.0, -0.0, -0.0, 1e-200 if dtype == np.float64 else 1e-30], dtype)
    one = np.array([1.0, 1.0, -1.0, -zero[3]], dtype)
    signs = np.signbit(_fma(zero, one, np.array([-0.0, -0.0, 0.0, -0.0], dtype)))
    assert signs.tolist() == [False, True, False, True]  # +0*1-0, -0*1-0, -0*-1+0, tiny negative product rounding to -0


def test_float64_fma_past_the_overflow_of_its_product() -> None:
    """a*b overflows float64 but a*b+c does not; an infinite operand still decides the result."""
    got = _fma(
        np.array([1e308, 1e308, np.inf, np.nan]), np.array([2.0, 2.0, 0.0, 1.0]), np.array([-1.5e308, 0.0, 1.0, 1.0])
    )
    assert got[0] == float(Fraction(1e308) * 2 - Fraction(1.5e308))
    assert got[1] == np.inf and np.isnan(got[2]) and np.isnan(got[3])


def test_float64_fmod_through_the_upstream_interpreter() -> None:
    """The lowered float64 fmod's remainder step is an fma: fmod(1, 0.1) was 0 when it rounded twice."""
    a = np.array([1.0, -1.0, 5.3, 1e300, 0.7, 3.0, -0.0], np.float64)
    b = np.array([0.1, 0.1, 0.2, 3.7, -0.3, np.inf, 2.0], np.float64)
    module = program(
        [TensorType([a.size], F64)] * 2, lambda add, x, y: [add(build("aten.fmod.Tensor", x, y)).results[0]]
    )
    got = np.asarray(run_lowered(lower_to_upstream(module), [a, b])[0])
    want = torch.fmod(torch.from_numpy(a), torch.from_numpy(b)).numpy()
    assert got[0] == 0.09999999999999995
    assert np.array_equal(got, want) and np.array_equal(np.signbit(got), np.signbit(want)), (got, want)


# -- pooled sizes with ceil_mode ---------------------------------------------------


def _torch_pool_size(n: int, kernel: int, stride: int, pad: int, dilation: int) -> int | None:
    try:
        return torch.nn.functional.max_pool1d(
            torch.zeros(1, 1, n), kernel, stride, pad, dilation, ceil_mode=True
        ).shape[-1]
    except RuntimeError:  # pad past half the kernel, or no window at all
        return None


def test_ceil_mode_pool_size_on_a_symbolic_input_follows_torch() -> None:
    """A window may not start in the right padding: s0 = 5, kernel 2, stride 2, pad 1 pools to 3 (was 4)."""
    s0 = sympy.Symbol("s0", integer=True, positive=True)
    checked = 0
    for kernel, stride, dilation in itertools.product((1, 2, 3, 4), (1, 2, 3), (1, 2)):
        for pad in range(kernel // 2 + 1):
            size = pool_out(s0, kernel, stride, pad, dilation, True)
            for n in range(1, 14):
                want = _torch_pool_size(n, kernel, stride, pad, dilation)
                if want is not None:
                    assert int(cast(Any, size).subs(s0, n)) == want, (n, kernel, stride, pad, dilation, size)
                    assert pool_out(n, kernel, stride, pad, dilation, True) == want
                    checked += 1
    assert checked > 500
    ops: list[Any] = []

    def body(add: Any, x: Any) -> list[Any]:
        ops.insert(0, add(build("aten.max_pool2d_with_indices.default", x, [2, 2], [2, 2], [1, 1], [1, 1], True)))
        return [ops[0].results[0]]

    program([TensorType([1, 2, s0, 7], F32)], body)
    sizes = ops[0].results[0].type.sizes
    assert [s if isinstance(s, int) else int(s.subs(s0, 5)) for s in sizes] == [1, 2, 3, 4]
    x = np.random.default_rng(0).standard_normal((1, 2, 5, 7)).astype(np.float32)
    got = np.asarray(run_lowered(lower_to_upstream(program([TensorType([1, 2, s0, 7], F32)], body)), [x])[0])
    assert np.array_equal(got, torch.nn.functional.max_pool2d(torch.from_numpy(x), 2, 2, 1, 1, True).numpy())


# -- pooled sums -------------------------------------------------------------------


def _pool_errors(got: Any, want64: np.ndarray, theirs: np.ndarray) -> tuple[float, float]:
    ours = float(np.max(np.abs(np.asarray(got, np.float64) - want64) / np.abs(want64)))
    return ours, float(np.max(np.abs(theirs.astype(np.float64) - want64) / np.abs(want64)))


def test_global_average_pool_accumulates_wide_on_iree() -> None:
    """adaptive_avg_pool2d(1) over 2 * 2**18 values in [100, 101): a float32 running sum drifted by 1e-3."""
    if not iree_available():
        pytest.skip("the iree extra is not installed")
    shape = [1, 2, 512, 512]
    module = program(
        [TensorType(shape, F32)], lambda add, x: [add(build("aten._adaptive_avg_pool2d.default", x, [1, 1])).results[0]]
    )
    run = compile_lowered(module)
    x = (100 + np.random.default_rng(2).random(shape)).astype(np.float32)
    want = x.astype(np.float64).mean(axis=(2, 3), keepdims=True)
    theirs = torch.nn.functional.adaptive_avg_pool2d(torch.from_numpy(x), 1).numpy()
    ours, torchs = _pool_errors(run(x)[0], want, theirs)
    assert ours <= max(torchs, 2.0**-24), (ours, torchs)


@pytest.mark.parametrize(
    "name, args, reference",
    [
        ("aten.avg_pool2d.default", ([64, 64], [64, 64]), lambda t: torch.nn.functional.avg_pool2d(t, 64)),
        ("aten._adaptive_avg_pool2d.default", ([3, 3],), lambda t: torch.nn.functional.adaptive_avg_pool2d(t, 3)),
        ("aten._adaptive_avg_pool2d.default", ([1, 1],), lambda t: torch.nn.functional.adaptive_avg_pool2d(t, 1)),
    ],
)
def test_pooled_means_are_rounded_once(name: str, args: tuple[Any, ...], reference: Any) -> None:
    """Through xDSL's interpreter: every window's float32 mean is the float64 mean rounded once, as close as torch's or closer."""
    shape = [1, 1, 128, 128]
    module = program([TensorType(shape, F32)], lambda add, x: [add(build(name, x, *args)).results[0]])
    x = (100 + np.random.default_rng(3).random(shape)).astype(np.float32)
    got = np.asarray(run_lowered(lower_to_upstream(module), [x])[0])
    t = torch.from_numpy(x.astype(np.float64))
    want = reference(t).numpy()
    assert np.array_equal(got, want.astype(np.float32)), np.max(np.abs(got - want))
    ours, torchs = _pool_errors(got, want, reference(torch.from_numpy(x)).numpy())
    assert ours <= max(torchs, 2.0**-24)


# -- one broadcast -----------------------------------------------------------------


def test_matmul_of_a_symbolic_batch_against_a_constant_decomposes() -> None:
    """[s0, 2, 4] x [3, 4, 5]: the batch is 3 (s0 is guarded to it), so the decomposition verifies and runs."""
    import pass_harness as ph

    s0 = sympy.Symbol("s0", integer=True, positive=True)
    module = program(
        [TensorType([s0, 2, 4], F32), TensorType([3, 4, 5], F32)],
        lambda add, a, c: [add(build("aten.matmul.default", a, c)).results[0]],
    )
    module.verify()
    after = ph.apply(module, "decompose")
    after.verify()
    assert not any(op.name == "aten.matmul.default" for op in after.walk())
    rng = np.random.default_rng(4)
    a, c = rng.standard_normal((3, 2, 4)).astype(np.float32), rng.standard_normal((3, 4, 5)).astype(np.float32)
    got = ph.run(after, [a, c])
    np.testing.assert_allclose(
        np.asarray(got[-1]), (torch.from_numpy(a) @ torch.from_numpy(c)).numpy(), rtol=1e-6, atol=1e-6
    )


def test_index_of_a_symbolic_index_against_a_constant_one_lowers() -> None:
    """x[i, j] with i of [3] and j of [s0]: the index broadcast is [3], not [s0], as inference says."""
    s0 = sympy.Symbol("s0", integer=True, positive=True)
    types = [TensorType([4, 5], F32), TensorType([3], DType.int64), TensorType([s0], DType.int64)]
    module = program(types, lambda add, x, i, j: [add(build("aten.index.Tensor", x, [i, j])).results[0]])
    x = np.arange(20, dtype=np.float32).reshape(4, 5)
    i, j = np.array([0, 3, 1]), np.array([4, 0, 2])
    got = np.asarray(run_lowered(lower_to_upstream(module), [x, i, j])[0])
    assert np.array_equal(got, torch.from_numpy(x)[torch.from_numpy(i), torch.from_numpy(j)].numpy())


# -- flops of recurrent modules ------------------------------------------------------


@pytest.mark.parametrize(
    "cell, dtype",
    [("rnn_tanh", torch.float32), ("gru", torch.float32), ("lstm", torch.float64), ("lstm", torch.float32)],
)
def test_recurrent_flops_match_flop_counter_mode(cell: str, dtype: Any) -> None:
    """Two bidirectional layers: torch counts one product per weight and row, or 0 in oneDNN's fused LSTM."""
    from torch.utils.flop_counter import FlopCounterMode

    from xdsl_exir.dialects.exir import CallFunctionOp
    from xdsl_exir.interpreters.program import find_program
    from xdsl_exir.transforms.flop_count import count_program

    cls = {"rnn_tanh": torch.nn.RNN, "gru": torch.nn.GRU, "lstm": torch.nn.LSTM}[cell]
    module = cls(8, 16, num_layers=2, bidirectional=True).to(dtype)
    x = torch.randn(5, 3, 8, dtype=dtype)
    counter = FlopCounterMode(display=False)
    with counter, torch.no_grad():
        module(x)
    dt = F64 if dtype == torch.float64 else F32
    weights = [TensorType(list(p.shape), dt) for p in module._flat_weights]  # pyright: ignore[reportPrivateUsage] - the parameters in ATen's order
    hidden = TensorType([4, 3, 16], dt)
    types = [TensorType([5, 3, 8], dt), hidden, *([hidden] if cell == "lstm" else []), *weights]

    def body(add: Any, x: Any, *rest: Any) -> list[Any]:
        hx = [rest[0], rest[1]] if cell == "lstm" else rest[0]
        params = list(rest[2:] if cell == "lstm" else rest[1:])
        out = TensorType([5, 3, 32], dt)
        results = [out, hidden, *([hidden] if cell == "lstm" else [])]
        call = CallFunctionOp(f"aten.{cell}.input", [x, hx, params, True, 2, 0.0, False, True, False], None, results)
        return [add(call).results[0]]

    total, _ = count_program(find_program(program(types, body)))
    assert int(total) == counter.get_total_flops()
