"""The graph compiler, ProgramRunner and exir-run on hand-written programs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any, cast

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.interpreter import Interpreter

from xdsl_exir.dialects.registry import get_all_dialects
from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.interpreters.framework import ExirFunctions
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.tools import exir_run
from xdsl_exir.tools.exir_opt import LocatingParser

FILECHECK_OPS = Path(__file__).parent / "filecheck" / "dialects" / "exir" / "ops.mlir"
T = "!exir.tensor"


def parse(text: str, name: str = "test.mlir") -> ModuleOp:
    ctx = Context()
    for dialect_name, factory in get_all_dialects().items():
        ctx.register_dialect(dialect_name, factory)
    module = LocatingParser(ctx, text, name).parse_module()
    module.verify()
    return module


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(shape).astype(np.float32)


ADD = f"""
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "r">] {{
  exir.graph @forward(%x: {T}<[2, 3], float32>, %y: {T}<[2, 3], float32>) -> {T}<[2, 3], float32> {{
    %a = aten.add.Tensor(%x, %y, alpha = 2) : ({T}<[2, 3], float32>, {T}<[2, 3], float32>) -> {T}<[2, 3], float32>
    %r = aten.mul.Tensor(%a, %x) : ({T}<[2, 3], float32>, {T}<[2, 3], float32>) -> {T}<[2, 3], float32>
    exir.output %r : {T}<[2, 3], float32>
  }}
}}
"""


def test_pointwise_program() -> None:
    x, y = f32(2, 3, seed=1), f32(2, 3, seed=2)
    (out,) = ProgramRunner(parse(ADD)).run([x, y])
    np.testing.assert_allclose(out, (x + 2 * y) * x, rtol=1e-6)
    assert out.dtype == np.float32


DYNAMIC = f"""
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "v">, <user_output "n">] ranges [<s0 in [2, 8]>] {{
  exir.graph @forward(%x: {T}<[s0, 4], float32>, %y: {T}<[2*s0], float32>) -> ({T}<[4*s0], float32>, !exir.sym_int<4*s0>) {{
    %s = exir.sym_size %x, 0 : {T}<[s0, 4], float32> -> !exir.sym_int<s0>
    %n = exir.sym_mul(%s, 4) : (!exir.sym_int<s0>) -> !exir.sym_int<4*s0>
    %v = aten.view.default(%x, [%n]) : ({T}<[s0, 4], float32>, !exir.sym_int<4*s0>) -> {T}<[4*s0], float32>
    %ge = exir.sym_ge(%s, 3) : (!exir.sym_int<s0>) -> !exir.sym_bool
    exir.assert_scalar %ge, "Runtime assertion failed for expression s0 >= 3" : !exir.sym_bool
    exir.output %v, %n : {T}<[4*s0], float32>, !exir.sym_int<4*s0>
  }}
}}
"""


def test_symbolic_sizes_bind_from_inputs() -> None:
    runner = ProgramRunner(parse(DYNAMIC))
    for batch in (3, 5, 8):
        x = f32(batch, 4)
        v, n = runner.run([x, f32(2 * batch)])
        np.testing.assert_array_equal(v, x.reshape(-1))
        assert n == 4 * batch


@pytest.mark.parametrize(
    "shapes, message",
    [
        (((9, 4), (18,)), "s0 = 9 from input 'x' (arg0) dimension 0: s0 = 9 is outside the range [2, 8]"),
        (((3, 4), (7,)), "input 'y' (arg1) dimension 0 is 7, but it must be 2*s0 = 6"),
        (((3, 5), (6,)), "input 'x' (arg0): dimension 1 must be 4"),
        (((3,), (6,)), "input 'x' (arg0): expected 2 dimensions [s0, 4], got shape [3]"),
        (((2, 4), (4,)), "runtime assertion failed: Runtime assertion failed for expression s0 >= 3"),
    ],
)
def test_bad_inputs_are_located(shapes: tuple[tuple[int, ...], ...], message: str) -> None:
    runner = ProgramRunner(parse(DYNAMIC))
    with pytest.raises(InterpreterError) as info:
        runner.run([f32(*s) for s in shapes])
    assert message in str(info.value)


def test_assert_names_its_source_line() -> None:
    with pytest.raises(InterpreterError) as info:
        ProgramRunner(parse(DYNAMIC, "dyn.mlir")).run([f32(2, 4), f32(4)])
    assert str(info.value).startswith("dyn.mlir:8:5: 'exir.assert_scalar'")


def test_wrong_dtype_and_count() -> None:
    runner = ProgramRunner(parse(ADD))
    with pytest.raises(InterpreterError, match="expected a float32 tensor, got numpy float64"):
        runner.run([np.zeros((2, 3)), f32(2, 3)])
    with pytest.raises(InterpreterError, match=r"takes 2 user inputs \(x, y\), got 1"):
        runner.run([f32(2, 3)])


CONTROL = f"""
exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">, <user_input "pred">] outputs [<user_output "c">, <user_output "loop">, <user_output "mapped">] {{
  exir.state @w : {T}<[4], float32> = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  exir.graph @forward(%p_w: {T}<[4], float32>, %x: {T}<[3, 4], float32>, %pred: {T}<[], bool>) -> ({T}<[3, 4], float32>, {T}<[], int64>, {T}<[3, 4], float32>) {{
    %c = exir.cond %pred(%x, %p_w) : {T}<[], bool>, ({T}<[3, 4], float32>, {T}<[4], float32>) -> {T}<[3, 4], float32> {{
    ^bb0(%a: {T}<[3, 4], float32>, %w: {T}<[4], float32>):
      %m = exir.call_function "aten.mul.Tensor"(%a, %w) : ({T}<[3, 4], float32>, {T}<[4], float32>) -> {T}<[3, 4], float32>
      exir.output %m : {T}<[3, 4], float32>
    }} else {{
    ^bb0(%a: {T}<[3, 4], float32>, %w: {T}<[4], float32>):
      %n = exir.call_function "aten.neg.default"(%a) : ({T}<[3, 4], float32>) -> {T}<[3, 4], float32>
      exir.output %n : {T}<[3, 4], float32>
    }}
    %i0 = exir.call_function "aten.zeros.default"([], dtype = torch.int64) : () -> {T}<[], int64>
    %loop = exir.while_loop(%i0) additional (%p_w) : ({T}<[], int64>, {T}<[4], float32>) -> {T}<[], int64> cond {{
    ^bb0(%i: {T}<[], int64>, %w: {T}<[4], float32>):
      %lt = exir.call_function "aten.lt.Scalar"(%i, 5) : ({T}<[], int64>) -> {T}<[], bool>
      exir.output %lt : {T}<[], bool>
    }} body {{
    ^bb0(%i: {T}<[], int64>, %w: {T}<[4], float32>):
      %inc = exir.call_function "aten.add.Tensor"(%i, 2) : ({T}<[], int64>) -> {T}<[], int64>
      exir.output %inc : {T}<[], int64>
    }}
    %mapped = exir.map(%x) with (%p_w) : ({T}<[3, 4], float32>, {T}<[4], float32>) -> {T}<[3, 4], float32> {{
    ^bb0(%row: {T}<[4], float32>, %w: {T}<[4], float32>):
      %r = exir.call_function "aten.sub.Tensor"(%row, %w) : ({T}<[4], float32>, {T}<[4], float32>) -> {T}<[4], float32>
      exir.output %r : {T}<[4], float32>
    }}
    exir.output %c, %loop, %mapped : {T}<[3, 4], float32>, {T}<[], int64>, {T}<[3, 4], float32>
  }}
}}
"""


@pytest.mark.parametrize("pred", [True, False])
def test_higher_order_ops(pred: bool) -> None:
    x = f32(3, 4)
    w = np.array([1, 2, 3, 4], dtype=np.float32)
    c, loop, mapped = ProgramRunner(parse(CONTROL)).run([x, np.array(pred)])
    np.testing.assert_array_equal(c, x * w if pred else -x)
    assert loop.dtype == np.int64 and int(loop) == 6
    np.testing.assert_array_equal(mapped, x - w)


def test_xdsl_interpreter_framework_agrees() -> None:
    module = parse(CONTROL)
    program = find_program(module)
    interpreter = Interpreter(module)
    interpreter.register_implementations(ExirFunctions(program))
    x = f32(3, 4)
    fast = ProgramRunner(module).run([x, np.array(False)])
    assert program.entry is not None
    w = np.array([1, 2, 3, 4], dtype=np.float32)
    slow = interpreter.run_ssacfg_region(program.entry.body, (w, x, np.array(False)))
    for a, b in zip(fast, slow):
        np.testing.assert_array_equal(a, b)


BUFFERS = f"""
exir.program inputs [<buffer "b_count" -> "count">, <buffer "b_acc" -> "acc">, <user_input "x">] outputs [<buffer_mutation "new_acc" -> "acc">, <user_output "out">] {{
  exir.state @count : {T}<[], int64> = dense<0> : tensor<i64>
  exir.state @acc : {T}<[4], float32> = dense<0.0> : tensor<4xf32>
  exir.graph @forward(%b_count: {T}<[], int64>, %b_acc: {T}<[4], float32>, %x: {T}<[4], float32>) -> ({T}<[4], float32>, {T}<[4], float32>) {{
    %inc = aten.add_.Tensor(%b_count, 1) : ({T}<[], int64>) -> {T}<[], int64>
    %new_acc = aten.add.Tensor(%b_acc, %x) : ({T}<[4], float32>, {T}<[4], float32>) -> {T}<[4], float32>
    %out = aten.mul.Tensor(%new_acc, %inc) : ({T}<[4], float32>, {T}<[], int64>) -> {T}<[4], float32>
    exir.output %new_acc, %out : {T}<[4], float32>, {T}<[4], float32>
  }}
}}
"""


def test_buffer_mutation_semantics() -> None:
    """In-place writes (training IR) and BUFFER_MUTATION outputs (core IR) both update state."""
    runner = ProgramRunner(parse(BUFFERS))
    x = np.arange(4, dtype=np.float32)
    (out1,) = runner.run([x])
    (out2,) = runner.run([x])
    assert int(runner.state["count"]) == 2
    np.testing.assert_array_equal(runner.state["acc"], 2 * x)
    np.testing.assert_array_equal(out1, x * 1)
    np.testing.assert_array_equal(out2, 2 * x * 2)


def test_unknown_operator_is_refused_before_running() -> None:
    text = ADD.replace("aten.mul.Tensor(%a, %x)", 'exir.call_function "mylib.fancy.default"(%a, %x)')
    with pytest.raises(InterpreterError) as info:
        ProgramRunner(parse(text, "u.mlir"))
    assert "u.mlir:5:5" in str(info.value) and "no implementation of the operator 'mylib.fancy.default'" in str(
        info.value
    )


def test_whole_ops_file_runs() -> None:
    """The op round-trip file exercises every exir op; it runs with state supplied."""
    module = parse(FILECHECK_OPS.read_text())
    state: dict[str, Any] = {"w": f32(4), "n": np.array(5, dtype=np.int64), "tmp": f32(4), "k": f32(4)}
    runner = ProgramRunner(module, state=state)
    x = f32(6, 4)
    outputs = runner.run([x, np.array(True)])
    np.testing.assert_array_equal(outputs[0], x.max(axis=1))
    assert outputs[1] == 12
    assert int(runner.state["n"]) == 6


# -- exir-run -----------------------------------------------------------------


def write(tmp: Path, name: str, text: str) -> str:
    path = tmp / name
    path.write_text(text)
    return str(path)


def test_exir_run_npz_contract(tmp_path: Path) -> None:
    prog = write(tmp_path, "add.mlir", ADD)
    x, y = f32(2, 3, seed=3), f32(2, 3, seed=4)
    np.savez(tmp_path / "in.npz", arg0=x, arg1=y)
    assert exir_run.run([prog, "--inputs", str(tmp_path / "in.npz"), "-o", str(tmp_path / "out.npz")]) == 0
    with np.load(tmp_path / "out.npz") as out:
        assert out.files == ["out0"]
        np.testing.assert_allclose(out["out0"], (x + 2 * y) * x, rtol=1e-6)


def test_exir_run_runs_a_pipeline_first(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = write(tmp_path, "add.mlir", ADD)
    assert exir_run.run([prog, "-p", "cse,dce", "--random-inputs", "0"]) == 0
    assert "out0: float32[2, 3]" in capsys.readouterr().out


@pytest.mark.parametrize(
    "arrays, message",
    [
        ({"arg0": np.zeros((2, 3), np.float32)}, "missing arg1 (y)"),
        ({"arg0": f32(2, 3), "arg1": f32(2, 3), "arg2": f32(1)}, "unexpected arg2"),
        ({"arg0": f32(2, 3), "arg1": f32(3, 3)}, "input 'y' (arg1): dimension 0 must be 2"),
        ({"arg0": f32(2, 3), "arg1": np.array([object()], dtype=object)}, "would need unpickling"),
    ],
)
def test_exir_run_refuses_bad_inputs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], arrays: dict[str, np.ndarray], message: str
) -> None:
    prog = write(tmp_path, "add.mlir", ADD)
    np.savez(tmp_path / "in.npz", **arrays)  # pyright: ignore[reportArgumentType] - numpy's stub checks **arrays against savez's allow_pickle keyword
    out = tmp_path / "out.npz"
    with pytest.raises(SystemExit) as info:
        exir_run.run([prog, "--inputs", str(tmp_path / "in.npz"), "-o", str(out)])
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.startswith("exir-run: error: ") and message in err and "Traceback" not in err
    assert not out.exists()


def test_exir_run_reports_parse_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    prog = write(tmp_path, "bad.mlir", ADD.replace("aten.mul.Tensor", "aten.mul.Tensorr"))
    with pytest.raises(SystemExit):
        exir_run.run([prog, "--random-inputs", "0"])
    err = capsys.readouterr().err
    assert "bad.mlir:5:" in err and "Traceback" not in err


def test_exir_run_console_script(tmp_path: Path) -> None:
    """The installed `exir-run` script follows the contract from a shell."""
    script = Path(sys.executable).parent / "exir-run"
    prog = write(tmp_path, "add.mlir", ADD)
    done = subprocess.run([str(script), prog, "--random-inputs", "1", "-o", str(tmp_path / "o.npz")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "o.npz").exists()
    done = subprocess.run([str(script), prog], capture_output=True, text=True)
    assert done.returncode == 1 and done.stderr.startswith("exir-run: error: the program takes user inputs (x, y)")


# -- IR-typed fast paths agree with the general kernels ------------------------

FAST_CASES: list[tuple[str, list[tuple[int, ...]], list[object], dict[str, object]]] = [
    ("aten.add.Tensor", [(3, 4), (4,)], ["$0", "$1"], {}),
    ("aten.add.Tensor", [(3, 4)], ["$0", 2], {}),
    ("aten.sub.Tensor", [(3, 4), (3, 1)], ["$0", "$1"], {}),
    ("aten.mul.Tensor", [(3, 4)], ["$0", 0.5], {}),
    ("aten.div.Tensor", [(3, 4), (3, 4)], ["$0", "$1"], {}),
    ("aten.maximum.default", [(3, 4), (3, 4)], ["$0", "$1"], {}),
    ("aten.relu.default", [(3, 4)], ["$0"], {}),
    ("aten.tanh.default", [(5,)], ["$0"], {}),
    ("aten.sigmoid.default", [(5,)], ["$0"], {}),
    ("aten.exp.default", [(2, 2)], ["$0"], {}),
    ("aten.neg.default", [()], ["$0"], {}),
    ("aten.linear.default", [(2, 5, 4), (3, 4), (3,)], ["$0", "$1", "$2"], {}),
    ("aten.linear.default", [(2, 4), (3, 4)], ["$0", "$1"], {}),
    ("aten.addmm.default", [(3,), (2, 4), (4, 3)], ["$0", "$1", "$2"], {}),
    ("aten.mm.default", [(2, 4), (4, 3)], ["$0", "$1"], {}),
    ("aten._softmax.default", [(3, 5)], ["$0", -1, False], {}),
    ("aten._softmax.default", [(3, 5, 2)], ["$0", 1, False], {}),
    ("aten.softmax.int", [(4, 3)], ["$0", 0], {}),
    ("aten.clamp.default", [(3, 4)], ["$0", -0.5, 0.5], {}),
    ("aten.mean.dim", [(2, 3, 4, 5)], ["$0", [-1, -2], True], {}),
    ("aten.mean.dim", [(2, 3, 4)], ["$0", [1]], {}),
    ("aten.mean.dim", [(2, 3)], ["$0", [0, 1]], {}),
    ("aten.clamp.default", [(3, 4)], ["$0", 0], {}),
    ("aten.clamp.default", [(3, 4)], ["$0", None, 1], {}),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name, shapes, args, kwargs", FAST_CASES)
def test_fast_paths_match_kernels(
    name: str, shapes: list[tuple[int, ...]], args: list[object], kwargs: dict[str, object], dtype: type
) -> None:
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.exir import DType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import _fast_dense, _fast_pointwise, compile_call, decode_call_args
    from xdsl_exir.semantics import kernels as aten_kernels

    dt = DType.float32 if dtype is np.float32 else DType.float64
    from xdsl_exir.dialects.exir import TensorType

    src = TestOp(result_types=[TensorType(list(s), dt) for s in shapes])
    fx_args = [src.results[int(a[1:])] if isinstance(a, str) else a for a in args]
    op = aten.build(name, *fx_args, **kwargs)
    dec_args, dec_kwargs = decode_call_args(op)
    assert (_fast_pointwise(op, name, dec_args, dec_kwargs) or _fast_dense(op, name, dec_args, dec_kwargs)) is not None
    rng = np.random.default_rng(7)
    values = [rng.standard_normal(s).astype(dtype) for s in shapes]
    if name.endswith("softmax.default") or name == "aten.softmax.int":
        values[0][0, 0] = np.inf  # rows with infinities follow torch
        values[0][1, :] = -np.inf
    with np.errstate(all="ignore"):
        (fast,) = compile_call(op, CompileContext())(*values)
    real_args = [values[int(a[1:])] if isinstance(a, str) else a for a in args]
    with np.errstate(all="ignore"):
        slow = aten_kernels.run_kernel(name, real_args, kwargs, [dt])
    assert isinstance(fast, np.ndarray) and fast.dtype == slow.dtype and fast.shape == slow.shape
    np.testing.assert_allclose(fast, slow, rtol=1e-6 if dtype is np.float32 else 1e-12, equal_nan=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (4, 3), (1, 6, 2, 2, 2)])
@pytest.mark.parametrize("affine", [(True, True), (False, True), (True, False), (False, False)])
def test_fast_batch_norm_matches_kernel(dtype: type, shape: tuple[int, ...], affine: tuple[bool, bool]) -> None:
    """Inference batch norm's per-channel scale and shift equals the kernel bit for bit."""
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.exir import DType, TensorType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import _fast_batch_norm, compile_call, decode_call_args
    from xdsl_exir.semantics import kernels as aten_kernels

    name = "aten._native_batch_norm_legit_no_training.default"
    dt = DType.float32 if dtype is np.float32 else DType.float64
    c = shape[1]
    src = TestOp(result_types=[TensorType(list(shape), dt), *[TensorType([c], dt)] * 4])
    x, w, b, m, v = src.results
    op = aten.build(name, x, w if affine[0] else None, b if affine[1] else None, m, v, 0.1, 1e-3)
    rng = np.random.default_rng(3)
    values = [rng.standard_normal(shape).astype(dtype), *(rng.standard_normal(c).astype(dtype) for _ in range(3))]
    values.append(rng.random(c).astype(dtype))
    values[0].flat[0] = np.nan
    operands = [values[0], *(val for val, on in zip(values[1:3], affine) if on), *values[3:]]
    bound = aten_kernels.bind_kernel(name, *decode_call_args(op))[1]
    assert _fast_batch_norm(op, bound) is not None
    with np.errstate(all="ignore"):
        fast = compile_call(op, CompileContext())(*operands)
        call_args = [values[0], values[1] if affine[0] else None, values[2] if affine[1] else None, *values[3:], 0.1, 1e-3]
        slow = aten_kernels.run_kernel(name, call_args, {}, [dt] * 3)
    assert len(fast) == 3
    for f, s in zip(fast, cast(tuple[np.ndarray, ...], slow)):
        assert f.dtype == s.dtype and f.shape == s.shape
        np.testing.assert_array_equal(f, s)


CONV_CASES: list[tuple[tuple[int, ...], tuple[int, ...], list[int], list[int], list[int], int]] = [
    # input, weight, stride, padding, dilation, groups
    ((2, 4, 9, 9), (6, 4, 3, 3), [1], [1], [1], 1),
    ((1, 6, 8, 7), (6, 1, 5, 5), [2, 1], [2, 2], [1], 6),
    ((3, 8, 6, 6), (8, 1, 3, 3), [1, 1], [0, 1], [2, 1], 8),
    ((1, 4, 5, 5), (8, 2, 1, 1), [1], [0], [1], 2),
    ((2, 3, 10), (4, 3, 3), [2], [1], [1], 1),
    ((1, 2, 4, 5, 6), (3, 2, 2, 2, 2), [1, 2, 1], [1], [1], 1),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("with_bias", [True, False])
@pytest.mark.parametrize("shape, wshape, stride, padding, dilation, groups", CONV_CASES)
def test_fast_convolution_matches_kernel(
    dtype: type, with_bias: bool, shape: tuple[int, ...], wshape: tuple[int, ...], stride: list[int],
    padding: list[int], dilation: list[int], groups: int,
) -> None:
    """A convolution with parameters fixed at compile time equals the kernel bit for bit."""
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.exir import DType, TensorType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import _fast_convolution, compile_call, decode_call_args
    from xdsl_exir.semantics import kernels as aten_kernels

    name = "aten.convolution.default"
    dt = DType.float32 if dtype is np.float32 else DType.float64
    src = TestOp(result_types=[TensorType(list(shape), dt), TensorType(list(wshape), dt), TensorType([wshape[0]], dt)])
    x, w, b = src.results
    n = len(shape) - 2
    op = aten.build(name, x, w, b if with_bias else None, stride, padding, dilation, False, [0] * n, groups)
    assert _fast_convolution(op, aten_kernels.bind_kernel(name, *decode_call_args(op))[1]) is not None
    rng = np.random.default_rng(5)
    xv, wv, bv = (rng.standard_normal(s).astype(dtype) for s in (shape, wshape, (wshape[0],)))
    (fast,) = compile_call(op, CompileContext())(*([xv, wv, bv] if with_bias else [xv, wv]))
    call_args = [xv, wv, bv if with_bias else None, stride, padding, dilation, False, [0] * n, groups]
    slow = aten_kernels.run_kernel(name, call_args, {}, [dt])
    assert isinstance(slow, np.ndarray) and fast.dtype == slow.dtype and fast.shape == slow.shape
    np.testing.assert_array_equal(fast, slow)


@pytest.mark.parametrize("dims", [[0, 2, 1], [-1, 0, 1], [2, 1, 0], [0, 1, 2]])
def test_fast_permute_matches_kernel(dims: list[int]) -> None:
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.exir import DType, TensorType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import _fast_permute, compile_call, decode_call_args
    from xdsl_exir.semantics import kernels as aten_kernels

    src = TestOp(result_types=[TensorType([2, 3, 4], DType.int32)])
    op = aten.build("aten.permute.default", src.results[0], dims)
    assert _fast_permute(op, *decode_call_args(op)) is not None
    x = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    (fast,) = compile_call(op, CompileContext())(x)
    slow = aten_kernels.run_kernel("aten.permute.default", [x, dims], {})
    np.testing.assert_array_equal(fast, slow)
    assert fast.shape == slow.shape and np.shares_memory(fast, x)  # a view stays a view


@pytest.mark.parametrize("sizes", [[6, 2], [-1, 4], [3, -1, 2], [12]])
def test_fast_reshape_matches_kernel(sizes: list[int]) -> None:
    from xdsl.dialects.test import TestOp

    from xdsl_exir.dialects import aten
    from xdsl_exir.dialects.exir import DType, TensorType
    from xdsl_exir.interpreters.compiler import CompileContext
    from xdsl_exir.interpreters.exir_functions import _fast_reshape, compile_call, decode_call_args
    from xdsl_exir.semantics import kernels as aten_kernels

    src = TestOp(result_types=[TensorType([3, 4], DType.int64)])
    op = aten.build("aten.view.default", src.results[0], sizes)
    assert _fast_reshape("aten.view.default", *decode_call_args(op)) is not None
    x = np.arange(12).reshape(3, 4)
    (fast,) = compile_call(op, CompileContext())(x)
    np.testing.assert_array_equal(fast, aten_kernels.run_kernel("aten.view.default", [x, sizes], {}))
    assert np.shares_memory(fast, x)  # a view stays a view
