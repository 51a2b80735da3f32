"""
The TorchScript runner (on `torch.jit.trace` graphs) and the `--emit python`
module against eager PyTorch, where the OpInfo conformance sweep found them
giving what torch would not: the overload a node's complete inputs call, torch's
enums as constant arguments of the generated module, its located failures and
output checks, `chunk` of an empty dimension and `contiguous` of a 0-d tensor.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pass_harness as ph
import pytest

torch = pytest.importorskip("torch")

import xdsl_exir  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.analysis.overload_resolution import resolve_node  # noqa: E402 - after pytest.importorskip
from xdsl_exir.dialects import ts  # noqa: E402 - after pytest.importorskip
from xdsl_exir.frontends.torch_live import import_exported_program  # noqa: E402 - after pytest.importorskip
from xdsl_exir.frontends.torchscript_live import import_script_module  # noqa: E402 - after pytest.importorskip
from xdsl_exir.interpreters.ts_runner import TorchScriptRunner  # noqa: E402 - after pytest.importorskip
from xdsl_exir.targets.python_source import python_source  # noqa: E402 - after pytest.importorskip
from xdsl_exir.utils import op_registry  # noqa: E402 - after pytest.importorskip
from xdsl_exir.utils.diagnostics import InterpreterError  # noqa: E402 - after pytest.importorskip

ROOT = Path(__file__).resolve().parent.parent
I64_MIN, I64_MAX = np.iinfo(np.int64).min, np.iinfo(np.int64).max


class _Call(torch.nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *xs: Any) -> Any:
        return self.fn(*xs)


def _flat(value: Any) -> list[Any]:
    if isinstance(value, list | tuple):
        return [x for v in value for x in _flat(v)]
    return [value]


def _same(ours: list[Any], eager: Any) -> None:
    want = [w.numpy() for w in _flat(eager)]
    assert len(ours) == len(want)
    for got, exp in zip(ours, want):
        assert isinstance(got, np.ndarray)
        assert got.dtype == exp.dtype and got.shape == exp.shape, (got.dtype, got.shape, exp.dtype, exp.shape)
        np.testing.assert_allclose(got, exp, rtol=1.3e-6, atol=1e-5)


def run_ts(fn: Callable[..., Any], *args: Any) -> list[Any]:
    traced = torch.jit.trace(_Call(fn), args, check_trace=False)
    return _flat(TorchScriptRunner(import_script_module(traced)).run([a.numpy() for a in args]))


def python_module(fn: Callable[..., Any], *args: Any) -> dict[str, Any]:
    source = python_source(import_exported_program(torch.export.export(_Call(fn), args)))
    namespace: dict[str, Any] = {"__name__": "generated"}
    exec(compile(source, "<generated>", "exec"), namespace)
    return namespace


def run_python(fn: Callable[..., Any], *args: Any) -> list[Any]:
    return _flat(python_module(fn, *args)["forward"](*[a.numpy() for a in args]))


# ---------------------------------------------------------------------------
# the overload of a node: every argument is an input
# ---------------------------------------------------------------------------


def test_a_node_with_every_argument_calls_the_complete_overload() -> None:
    # aten::addmm(a, b, c, 3, 2) is addmm(beta=3, alpha=2): addmm.dtype would read 3 as
    # out_dtype (int32) and 2 as beta; baddbmm's .dtype overload read beta 1 as int8.
    tensor, number = ts.TSTensorType(), ts.TSIntType()
    assert resolve_node("aten::addmm", [tensor] * 3 + [number] * 2).name == "aten::addmm"
    assert resolve_node("aten::baddbmm", [tensor] * 3 + [number] * 2).name == "aten::baddbmm"
    assert resolve_node("aten::addmm", [tensor] * 3 + [number] * 3).name == "aten::addmm.dtype"


def test_traced_addmm_with_integer_scalars() -> None:
    inp = torch.tensor([[1, -2, 3], [I64_MAX, I64_MIN, 0]], dtype=torch.int64)
    a = torch.tensor([[2, -1], [7, 5]], dtype=torch.int64)
    b = torch.tensor([[3, 0, -4], [1, I64_MAX, 6]], dtype=torch.int64)
    fn = lambda x, y, z: torch.addmm(x, y, z, beta=3, alpha=2)  # noqa: E731 - a one-line sample
    _same(run_ts(fn, inp, a, b), fn(inp, a, b))


def test_traced_baddbmm_keeps_float32() -> None:
    x = torch.tensor([[[1.0, float("nan")], [-0.0, float("inf")]]])
    y = torch.tensor([[[2.0, -1.5], [0.5, 3.0]]])
    fn = lambda a, b, c: torch.baddbmm(a, b, c, beta=1, alpha=2)  # noqa: E731 - a one-line sample
    _same(run_ts(fn, x, y, y), fn(x, y, y))


# ---------------------------------------------------------------------------
# shared kernels only these executors reached
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape,chunks,dim", [((0, 5), 2, 0), ((4, 0), 3, 1), ((0,), 1, 0), ((5, 3), 2, 0)])
def test_chunk_of_an_empty_dimension_gives_every_piece(shape: tuple[int, ...], chunks: int, dim: int) -> None:
    x = torch.zeros(shape)
    fn = lambda t: torch.chunk(t, chunks, dim)  # noqa: E731 - a one-line sample
    _same(run_ts(fn, x), fn(x))
    _same(run_python(fn, x), fn(x))


def test_traced_argwhere_gives_int64_indices() -> None:
    """argwhere runs through its decomposition (nonzero) in a one-op graph whose result type is a
    placeholder; the indices must stay int64, not take the placeholder's dtype."""
    x = torch.tensor([[0.0, float("nan")], [-0.0, 3.0]])
    _same(run_ts(torch.argwhere, x), torch.argwhere(x))


@pytest.mark.parametrize("value", [2.5, float("nan"), -0.0])
def test_contiguous_of_a_0d_tensor_stays_0d(value: float) -> None:
    x = torch.tensor(value)
    fn = lambda t: t.contiguous()  # noqa: E731 - a one-line sample
    (got,) = run_ts(fn, x)
    assert got.shape == () and np.array_equal(got, x.numpy(), equal_nan=True)
    assert np.signbit(got) == np.signbit(x.numpy())


# ---------------------------------------------------------------------------
# the --emit python module
# ---------------------------------------------------------------------------


def test_python_passes_torch_enums_as_the_interpreter_does() -> None:
    # linalg_vector_norm with a dtype runs through its decomposition, which reads a DType
    x = torch.tensor([[3.0, -4.0, float("inf")], [0.0, -0.0, 1e30]])
    fn = lambda t: torch.linalg.vector_norm(t, dtype=torch.float64)  # noqa: E731 - a one-line sample
    namespace = python_module(fn, x)
    assert "DType" in namespace  # imported for `dtype=DType.float64`
    _same(_flat(namespace["forward"](x.numpy())), fn(x))
    grad, out = torch.tensor([[0.5, -1.0, 2.0]]), torch.softmax(torch.tensor([[1.0, 2.0, -3.0]]), 1)
    fn2 = lambda g, o: torch.ops.aten._softmax_backward_data(g, o, 1, torch.float32)  # noqa: E731 - a one-line sample
    _same(run_python(fn2, grad, out), fn2(grad, out))


BOOM = """
exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
    %y = aten.neg.default(%x) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    %r = exir.call_function "c21test.boom.default"(%y) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    exir.output %r : !exir.tensor<[3], float32>
  }
}
"""


@pytest.fixture
def boom() -> Iterator[list[Callable[[np.ndarray], np.ndarray]]]:
    """`c21test::boom`, whose kernel is the list's first function (a test sets it)."""
    behaviour: list[Callable[[np.ndarray], np.ndarray]] = [lambda x: x]
    xdsl_exir.register_kernel("c21test::boom", lambda x: behaviour[0](x))
    yield behaviour
    op_registry.unregister_kernel("c21test::boom")


def _generated(text: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {"__name__": "generated"}
    exec(compile(python_source(ph.parse(text)), "<generated>", "exec"), namespace)
    return namespace


def test_python_names_the_node_whose_operator_fails(boom: list[Callable[[np.ndarray], np.ndarray]]) -> None:
    def fail(x: np.ndarray) -> np.ndarray:
        raise ValueError("cannot reshape array of size 0")

    boom[0] = fail
    namespace = _generated(BOOM)
    with pytest.raises(InterpreterError, match=r"^r \(c21test\.boom\.default\): cannot reshape array of size 0$"):
        namespace["forward"](np.ones(3, np.float32))
    with pytest.raises(RuntimeError):  # what main() and callers of the module catch
        namespace["forward"](np.ones(3, np.float32))


def test_python_refuses_an_output_its_type_rules_out(boom: list[Callable[[np.ndarray], np.ndarray]]) -> None:
    namespace = _generated(BOOM)
    np.testing.assert_array_equal(namespace["forward"](np.ones(3, np.float32))[0], -np.ones(3, np.float32))
    boom[0] = lambda x: x[:1]
    with pytest.raises(InterpreterError, match=r"output 0 \('r'\): computed shape \[1\] .* says \[3\]"):
        namespace["forward"](np.ones(3, np.float32))


def test_python_main_reports_a_failing_operator_in_one_line(
    tmp_path: Path, boom: list[Callable[[np.ndarray], np.ndarray]]
) -> None:
    # registered here, where the module is written; run as a script, where no kernel is registered
    module = tmp_path / "m.py"
    module.write_text(python_source(ph.parse(BOOM)))
    np.savez(tmp_path / "in.npz", arg0=np.ones(3, np.float32))
    result = subprocess.run(
        [sys.executable, str(module), "--inputs", str(tmp_path / "in.npz")],
        capture_output=True, text=True, check=False, env={"PYTHONPATH": str(ROOT), "PATH": ""},
    )
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith("error: r (c21test.boom.default): no kernel is registered for the custom operator")


@pytest.mark.parametrize(
    "value,size", [(torch.tensor(True), []), (torch.tensor(-3, dtype=torch.int32), []), (torch.ones(2, 3, dtype=torch.bool), [1, 3])]
)
def test_sum_to_size_promotes_as_torch_sums(value: Any, size: list[int]) -> None:
    fn = lambda t: t.sum_to_size(size)  # noqa: E731 - a one-line sample
    _same(run_ts(fn, value), fn(value))


@pytest.mark.parametrize(
    "fn",
    [
        lambda t: torch.index_select(t, 0, torch.tensor([0])),
        lambda t: torch.linalg.vander(t, N=3),
    ],
    ids=["index_select", "linalg_vander"],
)
def test_0d_inputs_keep_torch_shapes(fn: Callable[[Any], Any]) -> None:
    for value in (2.5, float("nan"), -0.0):
        x = torch.tensor(value)
        _same(run_ts(fn, x), fn(x))
        _same(run_python(fn, x), fn(x))
