"""
The prepared call of a program IREE compiled (`compile_program(...)(*arrays)`):
IREE's own function call with the work per argument and result decided at load
time. Checked against torch eager and against the general path
(`ProgramRunner.run`): every dtype that crosses, edge values (NaN, infinities,
-0.0, integer extremes, empty and 0-d tensors), large inputs read in place when
aligned and copied when not (unaligned, read-only, Fortran order), outputs
that are writable, survive the next call and never share an input's memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from xdsl_exir.frontends.torch_live import import_exported_program  # noqa: E402 - after importorskip
from xdsl_exir.targets.iree import CompiledProgram, IreeExecutor, IreeOptions, compile_program  # noqa: E402 - after importorskip


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    return str(tmp_path_factory.mktemp("iree_cache"))


class _Fn(torch.nn.Module):
    def __init__(self, fn: Any) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _compile(fn: Any, args: tuple[Any, ...], cache: str) -> CompiledProgram:
    exported = torch.export.export(_Fn(fn), args)
    program = compile_program(import_exported_program(exported), IreeOptions(threads=1, cache_dir=cache))
    plan = program.fast_plan
    assert plan is not None and plan.arguments is not None, "the prepared direct call does not apply"
    return program


def _assert_direct(program: CompiledProgram) -> None:
    """That the calls took the direct path: IREE's result buffers were found as the signature says."""
    plan = program.fast_plan
    assert plan is not None and plan.arguments is not None and plan.verified


def _aligned(array: np.ndarray) -> np.ndarray:
    """A copy of `array` whose data starts on a 64-byte boundary (numpy's own allocations rarely do)."""
    raw = np.empty(array.nbytes + 64, np.uint8)
    start = -raw.ctypes.data % 64
    out = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def _unaligned(array: np.ndarray) -> np.ndarray:
    raw = np.empty(array.nbytes + 64 + array.itemsize, np.uint8)
    start = -raw.ctypes.data % 64 + array.itemsize
    out = raw[start : start + array.nbytes].view(array.dtype).reshape(array.shape)
    out[...] = array
    return out


def _same(got: list[Any], want: Any) -> None:
    want = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, np.ndarray) and g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape)
        np.testing.assert_array_equal(g, w)
        assert np.array_equal(np.signbit(g), np.signbit(w)) if g.dtype.kind == "f" else True


def test_every_dtype_and_edge_values(cache: str) -> None:
    def f(x: Any, i: Any, m: Any, u: Any, h: Any, s: Any) -> Any:
        return x * 2, i // 3, x > 0, (u + 1) * m, h + 1, m & (x < 1), x.double() * s, -x, i.to(torch.int8)

    x = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 0.0, 1.5, -2.5, 3e38])
    i = torch.tensor([torch.iinfo(torch.int64).min, torch.iinfo(torch.int64).max, -7, -1, 0, 1, 7, 255])
    m = torch.tensor([True, False, True, True, False, True, False, True])
    u = torch.arange(248, 256).to(torch.uint8)
    h = torch.tensor([65504.0, -65504.0, float("nan"), -0.0, 0.5, 1e-4, 2.0, -3.0], dtype=torch.float16)
    s = torch.tensor(0.5, dtype=torch.float64)
    args = (x, i, m, u, h, s)
    program = _compile(f, args, cache)
    arrays = [a.numpy() for a in args]
    for _ in range(2):
        _same(program(*arrays), f(*args))
    _assert_direct(program)
    general = program.runner.run(arrays)
    for g, w in zip(program(*arrays), general):
        np.testing.assert_array_equal(g, w)


def test_empty_and_0d_tensors(cache: str) -> None:
    def f(x: Any, s: Any) -> Any:
        return x * s, s + 1

    args = (torch.zeros(0, 4), torch.tensor(-0.0))
    program = _compile(f, args, cache)
    _same(program(*[a.numpy() for a in args]), f(*args))
    _assert_direct(program)


def test_outputs_are_writable_and_survive_the_next_call(cache: str) -> None:
    def f(x: Any) -> Any:
        return x * 1, x + 0, torch.relu(x)

    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    program = _compile(f, (torch.from_numpy(x),), cache)
    first = program(x)
    kept = [a.copy() for a in first]
    second = program(x + 1)
    for a, b in zip(first, kept):
        np.testing.assert_array_equal(a, b)
    assert all(a.flags.writeable for a in second)
    for a in second:
        assert not np.shares_memory(a, x)
        a[...] = 7.0
    np.testing.assert_array_equal(program(x)[2], np.maximum(x, 0))


def test_large_inputs_in_place_when_aligned_else_copied(cache: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """
    A 128 KiB input aligned to 64 bytes is read where it lies (no copy); the
    results never share its memory, though IREE may return the argument itself
    for `x * 1`; changed in place, it is read anew. Unaligned, read-only and
    Fortran-order inputs are copied, with the same numbers.
    """

    def f(x: Any) -> Any:
        return x * 1, x + 0, torch.relu(x)

    base = np.random.default_rng(1).standard_normal((128, 256)).astype(np.float32)
    program = _compile(f, (torch.from_numpy(base),), cache)
    copies = [0]
    original = IreeExecutor.copy_in

    def counting(self: IreeExecutor, array: np.ndarray, element_type: Any) -> Any:
        copies[0] += 1
        return original(self, array, element_type)

    monkeypatch.setattr(IreeExecutor, "copy_in", counting)
    x = _aligned(base)
    outs = program(x)
    assert copies[0] == 0, "an aligned large input was copied"
    for out, want in zip(outs, (x, x, np.maximum(x, 0))):
        np.testing.assert_array_equal(out, want)
        assert not np.shares_memory(out, x)
    x *= -1  # read in place: the next call sees it
    np.testing.assert_array_equal(program(x)[2], np.maximum(x, 0))
    outs[0][...] = 3.0
    assert not (x == 3.0).any()

    read_only = _aligned(base)
    read_only.flags.writeable = False
    for other in (_unaligned(base), read_only, np.asfortranarray(base)):
        before = copies[0]
        outs = program(other)
        assert copies[0] > before, "an input IREE cannot read in place was not copied"
        for out, want in zip(outs, (base, base, np.maximum(base, 0))):
            np.testing.assert_array_equal(out, want)
            assert not np.shares_memory(out, other)


def test_a_call_the_prepared_path_cannot_take_keeps_its_diagnostic(cache: str) -> None:
    """Wrong dtypes and sizes and lists go to `ProgramRunner.run`, which converts or refuses as always."""
    from xdsl_exir.interpreters.compiler import InterpreterError

    def f(x: Any) -> Any:
        return x * 2

    program = _compile(f, (torch.ones(2, 3),), cache)
    np.testing.assert_array_equal(program(np.ones((2, 3), np.float32))[0], np.full((2, 3), 2, np.float32))
    with pytest.raises(InterpreterError, match="expected a float32 tensor, got numpy int64"):
        program([[1, 2, 3], [4, 5, 6]])
    with pytest.raises(InterpreterError, match="dimension 1 must be 3"):
        program(np.ones((2, 4), np.float32))
    with pytest.raises(InterpreterError, match="expected a float32 tensor, got numpy float64"):
        program(np.ones((2, 3)))
