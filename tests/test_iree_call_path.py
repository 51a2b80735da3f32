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

from iree_compiles import ProgramBatch  # noqa: E402 - after importorskip

from xdsl_exir.frontends.torch_live import import_exported_program  # noqa: E402 - after importorskip
from xdsl_exir.runtime import DirectCall  # noqa: E402 - after importorskip
from xdsl_exir.targets.iree import CompiledProgram, IreeOptions, compile_program  # noqa: E402 - after importorskip


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
    return _prepared(compile_program(import_exported_program(exported), IreeOptions(threads=1, cache_dir=cache)))


def _prepared(program: CompiledProgram) -> CompiledProgram:
    plan = program.fast_plan
    assert plan is not None and plan.direct is not None, "the prepared direct call does not apply"
    return program


def _assert_direct(program: CompiledProgram) -> None:
    """That the calls took the direct path: IREE's result buffers were found as the signature says."""
    plan = program.fast_plan
    assert plan is not None and plan.direct is not None and plan.direct.verified and not plan.direct.refused


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
    original = DirectCall.copy_in

    def counting(self: DirectCall, array: np.ndarray, element_type: Any) -> Any:
        copies[0] += 1
        return original(self, array, element_type)

    monkeypatch.setattr(DirectCall, "copy_in", counting)
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


def test_small_inputs_of_any_layout_are_copied_with_their_values(cache: str) -> None:
    """
    Small inputs (copied, never read in place) given strided, reversed, Fortran-order,
    read-only, 0-d or empty give eager's values, through the direct call, for one
    input and for several.
    """

    def one(x: Any) -> Any:
        return x * 2 - 1

    def two(x: Any, y: Any, s: Any) -> Any:
        return x @ y + s, (y * s).sum(0)

    base = np.arange(48, dtype=np.float32).reshape(6, 8) - 20.5
    program = _compile(one, (torch.zeros(3, 4),), cache)
    read_only = base[:3, :4].copy()
    read_only.flags.writeable = False
    layouts = {
        "strided": base[::2, ::2],
        "reversed": base[::-1, ::-1][:3, :4],
        "fortran": np.asfortranarray(base[:3, :4]),
        "transposed": base[:4, :3].T,
        "read-only": read_only,
        "broadcast": np.broadcast_to(base[0, :4], (3, 4)),
    }
    for name, x in layouts.items():
        got = program(x)
        want = one(torch.from_numpy(np.ascontiguousarray(x)))
        _same(got, want)
        assert not np.shares_memory(got[0], x), name
    _assert_direct(program)

    args = (torch.zeros(3, 5), torch.zeros(5, 2), torch.tensor(0.0))
    program = _compile(two, args, cache)
    x = np.arange(30, dtype=np.float32).reshape(6, 5)[::2]
    y = np.asfortranarray(np.arange(10, dtype=np.float32).reshape(5, 2) * -0.5)
    s = np.array(-0.0, np.float32)
    _same(program(x, y, s), two(*(torch.from_numpy(np.ascontiguousarray(a)) for a in (x, y, s))))
    _assert_direct(program)
    # a second or third argument the kept buffers do not take goes the general way, which refuses it, located
    from xdsl_exir.interpreters.compiler import InterpreterError

    for bad in ((x, y.astype(np.float64), s), (x, y[:4], s), (x, y, np.zeros(1, np.float32)), (x, y, [0.0])):
        with pytest.raises(InterpreterError) as direct:
            program(*bad)
        with pytest.raises(InterpreterError) as general:
            program.runner.run(list(bad))
        assert str(direct.value) == str(general.value)
    _same(program(x, y, s), two(*(torch.from_numpy(np.ascontiguousarray(a)) for a in (x, y, s))))

    program = _compile(one, (torch.zeros(0, 3),), cache)
    empty = np.zeros((3, 0), np.float32).T
    _same(program(empty), one(torch.zeros(0, 3)))
    _assert_direct(program)


def test_outputs_returning_an_input_never_alias_it(cache: str) -> None:
    """
    A result IREE may give as the argument's own buffer (the input returned, viewed
    or sliced) is a new array: it keeps its values through later calls, and writing
    it leaves the input alone; for one argument and for two, each kept in its own buffer.
    """

    def f(x: Any) -> Any:
        return x, x.reshape(8, 2), x[1:3], x * 1

    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    program = _compile(f, (torch.from_numpy(x),), cache)
    first = program(x)
    kept = [a.copy() for a in first]
    _same(first, f(torch.from_numpy(x)))
    program(x + 100)
    for a, b in zip(first, kept):
        np.testing.assert_array_equal(a, b)
        assert a.flags.writeable and not np.shares_memory(a, x)
    for a in first:  # (they may share memory with each other, as eager's views of one tensor do)
        a[...] = -1
    np.testing.assert_array_equal(x, np.arange(16, dtype=np.float32).reshape(4, 4))

    def g(x: Any, y: Any) -> Any:
        return y, x[1:3], x + y

    y = -np.arange(16, dtype=np.float32).reshape(4, 4)
    program = _compile(g, (torch.from_numpy(x), torch.from_numpy(y)), cache)
    plan = program.fast_plan
    assert plan is not None and plan.direct is not None and plan.direct.call.__name__ == "call_staged"
    first = program(x, y)
    kept = [a.copy() for a in first]
    _same(first, g(torch.from_numpy(x), torch.from_numpy(y)))
    _same(program(y, x), g(torch.from_numpy(y), torch.from_numpy(x)))  # each argument's kept buffer rewritten
    for a, b in zip(first, kept):
        np.testing.assert_array_equal(a, b)
        assert not np.shares_memory(a, x) and not np.shares_memory(a, y)
    _assert_direct(program)


class _Subclass(np.ndarray):
    """An ndarray subclass, which the direct call leaves to the general path."""


def test_values_the_direct_call_does_not_take_go_the_general_way(cache: str) -> None:
    """A numpy subclass, a masked array, a wrong count: converted or refused as `ProgramRunner.run` does."""
    from xdsl_exir.interpreters.compiler import InterpreterError

    def f(x: Any) -> Any:
        return x + 1

    program = _compile(f, (torch.zeros(2, 2),), cache)
    want = np.array([[2, 3], [4, 5]], np.float32)
    for value in (
        np.ma.masked_array([[1, 2], [3, 4]], dtype=np.float32),
        np.array([[1, 2], [3, 4]], np.float32).view(_Subclass),
    ):
        got = program(value)
        np.testing.assert_array_equal(np.asarray(got[0]), want)
    with pytest.raises(InterpreterError, match="user input"):
        program(want, want)
    with pytest.raises(InterpreterError, match="user input"):
        program()


def test_concurrent_calls_each_get_their_own_results(cache: str) -> None:
    """Threads calling one compiled program at once each get the results of their own inputs (a call finding the kept input buffer taken makes its own)."""
    from concurrent.futures import ThreadPoolExecutor

    def f(x: Any) -> Any:
        return torch.tanh(x) * 3, x.sum(1)

    program = _compile(f, (torch.zeros(8, 16),), cache)
    inputs = [np.full((8, 16), k / 7, np.float32) for k in range(16)]

    wants = [program(x) for x in inputs]  # one at a time
    for x, want in zip(inputs, wants):
        for g, w in zip(want, f(torch.from_numpy(x))):
            np.testing.assert_allclose(g, w.numpy(), rtol=1e-6, atol=1e-6)

    def work(k: int) -> bool:
        x, want = inputs[k % len(inputs)], wants[k % len(inputs)]
        return all(all(np.array_equal(g, w) for g, w in zip(program(x), want)) for _ in range(50))

    with ThreadPoolExecutor(4) as pool:
        assert all(pool.map(work, range(32)))
    _assert_direct(program)


def test_a_saved_artifact_takes_the_same_direct_call(cache: str, tmp_path: Any) -> None:
    """
    `runtime.load`'s program calls IREE the same direct way, answers in the
    export's structure, and leaves what it does not take (other dtypes, keyword
    arguments) to its general path, which refuses as before.
    """
    from xdsl_exir import runtime
    from xdsl_exir.targets.iree_bundle import save_bundle

    def f(x: Any, u: Any) -> Any:
        return x * 2, (u + 3, x.sum(0))

    x = np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5
    u = np.array([0, 1, 252, 255], np.uint8)
    program = _compile(f, (torch.from_numpy(x), torch.from_numpy(u)), cache)
    save_bundle(program, tmp_path / "b")
    loaded = runtime.load(tmp_path / "b", threads=1)
    want = f(torch.from_numpy(x), torch.from_numpy(u))
    got = loaded(x, u)
    assert isinstance(got, tuple) and isinstance(got[1], tuple)
    _same([got[0], *got[1]], (want[0], *want[1]))
    direct = loaded._direct  # pyright: ignore[reportPrivateUsage] - the test checks which path the call took
    assert direct is not None and direct.verified and not direct.refused
    _same(loaded.run_flat([np.asfortranarray(x), u[::-1][::-1]]), (want[0], *want[1]))
    with pytest.raises(runtime.BundleError, match="expected a float32 tensor, got numpy float64"):
        loaded(x.astype(np.float64), u)
    with pytest.raises(runtime.BundleError, match="takes 2 user inputs"):  # (the export takes no keywords)
        loaded(x, u=u)


_EDGES: dict[str, list[Any]] = {
    "bool": [True, False, True],
    "uint8": [0, 255, 7],
    "int8": [-128, 127, -1],
    "int16": [-(2**15), 2**15 - 1, 0],
    "int32": [-(2**31), 2**31 - 1, -7],
    "int64": [-(2**63), 2**63 - 1, 1],
    "float16": [float("nan"), -0.0, 65504.0],
    "float32": [float("inf"), -0.0, float("nan")],
    "float64": [-float("inf"), 5e-324, -0.0],
}


def _kept(x: Any) -> Any:
    return x, x.flip(0)


def _values(dtype: str) -> np.ndarray:
    return np.array(_EDGES[dtype] * 2, dtype=np.dtype(dtype))


KEPT = ProgramBatch(core=True)
"""Per dtype, `_kept` on 3 values and a 0-d clone: 18 programs compiled together (`tests/iree_compiles.py`)."""
for _dtype in _EDGES:
    KEPT.add(f"{_dtype}-kept", lambda d=_dtype: import_exported_program(
        torch.export.export(_Fn(_kept), (torch.from_numpy(_values(d)[:3].copy()),))))  # fmt: skip
    KEPT.add(f"{_dtype}-0d", lambda d=_dtype: import_exported_program(
        torch.export.export(_Fn(lambda s: s.clone()), (torch.from_numpy(_values(d)[1:2].reshape(())),))))  # fmt: skip


@pytest.mark.parametrize("dtype", list(_EDGES))
def test_one_input_through_the_kept_buffer_in_every_dtype(dtype: str) -> None:
    """
    A program of one input writes it into the buffer kept for it: every dtype, its
    edge values, 0-d and strided inputs; the input returned as it is (IREE gives the
    kept buffer back) is a copy that later calls leave alone.
    """
    values = _values(dtype)
    program = _prepared(KEPT.compiled(f"{dtype}-kept"))
    direct = program.fast_plan.direct if program.fast_plan is not None else None
    assert direct is not None and direct.call.__name__.startswith("call_staged"), "the call does not keep its input buffer"
    first = program(values[:3])
    _same(first, _kept(torch.from_numpy(values[:3].copy())))
    strided = values[::2]
    _same(program(strided), _kept(torch.from_numpy(strided.copy())))
    _same(first, _kept(torch.from_numpy(values[:3].copy())))  # not overwritten by the call after it
    _assert_direct(program)

    scalar = _prepared(KEPT.compiled(f"{dtype}-0d"))
    for v in values[:3]:
        zero_d = np.array(v)
        _same(scalar(zero_d), torch.from_numpy(zero_d.copy()))


def test_a_dropped_program_frees_its_call_at_once(cache: str) -> None:
    """The prepared call holds no reference cycle: dropping the program frees it (and IREE's context) without a collection."""
    import gc
    import weakref

    def f(x: Any) -> Any:
        return x + 1

    for shape in ((2, 3), (128, 256)):  # kept input buffer; large input read in place
        program = _compile(f, (torch.zeros(shape),), cache)
        program(np.zeros(shape, np.float32))
        plan = program.fast_plan
        assert plan is not None and plan.direct is not None
        ref = weakref.ref(plan.direct)
        gc.disable()
        try:
            del program, plan
            assert ref() is None, "the prepared call outlives its program"
        finally:
            gc.enable()
