"""
The driver of `convert-exir-to-linalg` (not its per-operator rules): both
spellings of an ATen call lower alike, refusals say what to do, malformed
weights and unsupported dtypes are located diagnostics, and programs run the
same before and after the lowering (numpy interpreter, the lowered module on
xDSL's interpreter, IREE when installed, torch eager when installed).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import pathlib
import subprocess
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.dialects.aten import AtenOp, to_call_function
from xdsl_exir.dialects.exir import TensorType
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.semantics.kernels import numpy_dtype
from xdsl_exir.targets.iree import lower_to_upstream, lowering_context, print_mlir, to_core
from xdsl_exir.transforms.convert_exir_to_linalg import function_arguments
from xdsl_exir.utils.diagnostics import ExirDiagnostic, InterpreterError
from xdsl_exir.utils.mlir_parser import ResourceParser

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"


def parse(text: str) -> ModuleOp:
    return ResourceParser(lowering_context(), text, "test.mlir").parse_module()


def flatten(value: Any, out: list[np.ndarray]) -> list[np.ndarray]:
    if isinstance(value, list | tuple):
        for v in value:
            flatten(v, out)
    elif value is not None:
        out.append(np.asarray(value))
    return out


def run_both(module: ModuleOp, inputs: list[Any]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """The numpy interpreter's outputs and the lowered module's (xDSL's interpreter), same runner contract."""
    lowered = lower_to_upstream(module)
    program = find_program(module)
    arguments = function_arguments(program)
    ours = flatten(ProgramRunner(module).run([np.copy(x) for x in inputs]), [])
    out_types = program.entry.function_type.outputs.data if program.entry else ()

    def execute(*args: Any) -> list[Any]:
        results = run_lowered(lowered, [args[i] for i in arguments])
        # run_lowered holds bfloat16 in float32 arrays; the runner's contract is ml_dtypes' bfloat16
        return [r.astype(numpy_dtype(t.element_dtype)) if isinstance(t, TensorType) else r for r, t in zip(results, out_types)]

    runner = ProgramRunner(program, executor=execute)
    return ours, flatten(runner.run([np.copy(x) for x in inputs]), [])


def tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`exir-opt`/`exir-run` in this process (their `run` is the whole command; no interpreter start-up)."""
    module = importlib.import_module(f"xdsl_exir.tools.{name.replace('-', '_')}")
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = module.run(list(args))
        except SystemExit as e:  # how the tools exit on a diagnostic
            code = int(e.code or 0)
    return subprocess.CompletedProcess([name, *args], code, out.getvalue(), err.getvalue())


def generic(module: ModuleOp) -> ModuleOp:
    """The same module with every aten op spelled `exir.call_function "aten..."`."""
    copy = module.clone()
    for op in [o for o in copy.walk() if isinstance(o, AtenOp)]:
        new = to_call_function(op)
        new.location = op.location
        assert op.parent is not None
        op.parent.insert_op_before(new, op)
        for old, r in zip(op.results, new.results):
            old.replace_all_uses_with(r)
            r.name_hint = old.name_hint
        op.detach()
        op.erase()
    return copy


# -- one path for both forms ------------------------------------------------------


MLP = """
builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[s0, 4], float32>, %w: !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0, 3], float32> {
      %mm = aten.mm.default(%x, %w) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0, 3], float32>
      %r = aten.relu.default(%mm) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], float32>
      exir.output %r : !exir.tensor<[s0, 3], float32>
    }
  }
}
"""


def test_generic_form_lowers_exactly_as_the_named_form() -> None:
    named = parse(MLP)
    call_form = generic(named)
    assert "exir.call_function" in str(call_form) and "aten.mm.default(" not in str(call_form)
    assert print_mlir(lower_to_upstream(call_form)) == print_mlir(lower_to_upstream(named))
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    w = np.random.default_rng(1).standard_normal((4, 3)).astype(np.float32)
    ours, lowered = run_both(call_form, [x, w])
    np.testing.assert_array_equal(lowered[0], ours[0])
    np.testing.assert_allclose(lowered[0], np.maximum(x @ w, 0), rtol=1e-6)


REFUSED = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0], float32> {
      %e = exir.call_function "aten.exp.default"(%x) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
      %r = exir.call_function "aten.cosine_similarity.default"(%e, %x) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0], float32>
      exir.output %r : !exir.tensor<[s0], float32>
    }
  }
}
"""


def test_a_refused_generic_program_is_left_as_it_was() -> None:
    module = parse(REFUSED)
    before = str(module)
    with pytest.raises(ExirDiagnostic) as e:
        lower_to_upstream(module)
    message = str(e.value)
    assert "aten.cosine_similarity.default" in message and "run to-core-aten first" in message
    assert "(%r) in @forward" in message
    assert str(module) == before
    lower_to_upstream(to_core(module))  # to-core-aten is indeed what it needed


def test_training_ir_hints_to_core_aten() -> None:
    proc = tool("exir-opt", str(ZOO / "cnn_bn.train.pt2"), "-p", "convert-exir-to-linalg")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "aten.conv2d.default" in proc.stderr and "run to-core-aten first" in proc.stderr


def test_core_op_without_rule_points_at_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    import xdsl_exir.transforms.convert_exir_to_linalg as driver
    from xdsl_exir.transforms.linalg_lowering import refusal_for

    text = """
builtin.module {
  exir.program inputs [] outputs [<user_output "r">] {
    exir.graph @forward() -> !exir.tensor<[4], int64> {
      %r = exir.call_function "aten.randperm.default"(4) : () -> !exir.tensor<[4], int64>
      exir.output %r : !exir.tensor<[4], int64>
    }
  }
}
"""
    why = refusal_for("aten.randperm.default")
    for documented in (True, False):
        if not documented:  # a core overload with neither a rule nor a documented refusal
            monkeypatch.setattr(driver, "refusal_for", lambda name: None)
        with pytest.raises(ExirDiagnostic) as e:
            lower_to_upstream(parse(text))
        message = str(e.value)
        assert "aten.randperm.default has no lowering to linalg" in message and "docs/linalg_lowering.md" in message
        assert "to-core-aten" not in message
        if documented and why is not None:
            assert why in message
        if not documented:
            assert "no rule yet" in message


def test_joint_forward_backward_graph_lowers_and_runs() -> None:
    """A joint graph from `aot_export_module` (generic form throughout) lowers after to-core-aten and matches eager."""
    torch = pytest.importorskip("torch")
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(4, 3)

        def forward(self, x: Any) -> Any:
            return ((torch.relu(self.lin(x)) ** 2).sum(),)

    torch.manual_seed(0)
    net = Net()
    x = torch.randn(5, 4)
    gm, sig = aot_export_module(net, (x,), trace_joint=True, output_loss_index=0)
    params = dict(net.named_parameters())
    example = [params[n].detach() for n in sig.parameters] + [x]
    module = import_graph_module(gm, example)
    assert any(op.name == "exir.call_function" for op in module.walk())
    core = to_core(module)
    assert any(op.name == "exir.call_function" for op in core.walk())  # core ops stay generic
    inputs = [t.numpy() for t in example]
    want = [t.detach().numpy() for t in gm(*example)]
    ours, lowered = run_both(core, inputs)
    for w, o, g in zip(want, ours, lowered, strict=True):
        np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    if _iree():
        from xdsl_exir.targets.iree import IreeOptions, compile_program

        native = flatten(compile_program(module, IreeOptions(threads=1, use_cache=False))(*inputs), [])
        for w, g in zip(want, native, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_generic_multi_result_calls_lower_and_run() -> None:
    """
    Multi-result operators in the generic form (one call with a tuple result,
    read by getitems, as AOTAutograd writes them) lower through the named op's
    rule, and match eager on the interpreter, the lowered module and IREE.
    """
    torch = pytest.importorskip("torch")
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln = torch.nn.LayerNorm(4)
            self.bn = torch.nn.BatchNorm2d(3)
            self.pool = torch.nn.MaxPool2d(2, return_indices=True)

        def forward(self, x: Any, y: Any) -> Any:
            values, indices = self.pool(self.bn(y))
            return (self.ln(x), values, indices)

    torch.manual_seed(0)
    net = Net().eval()
    with torch.no_grad():
        net.bn.running_mean.uniform_(-1, 1)
        net.bn.running_var.uniform_(0.5, 2)
        net.ln.weight.uniform_(-2, 2)
    x = torch.randn(2, 4) * 3
    y = torch.randn(1, 3, 4, 6)
    y[0, 1, 0, 0] = float("nan")  # max_pool propagates NaN and its index
    gm, sig = aot_export_module(net, (x, y), trace_joint=False)
    state = dict(net.named_parameters()) | dict(net.named_buffers())
    example = [state[n].detach() for n in (*sig.parameters, *sig.buffers)] + [x, y]
    module = import_graph_module(gm, example)
    tuples = [op for op in module.walk() if op.name == "exir.call_function" and op.results and "tuple" in str(op.results[0].type)]
    assert len(tuples) == 3, module  # layer norm, batch norm, max pool: one tuple-typed call each
    inputs = [t.numpy() for t in example]
    want = [t.detach().numpy() for t in gm(*example)]
    ours, lowered = run_both(module, inputs)
    for w, o, g in zip(want, ours, lowered, strict=True):
        assert g.dtype == w.dtype
        np.testing.assert_allclose(o, w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)
    if _iree():
        from xdsl_exir.targets.iree import IreeOptions, compile_program

        native = flatten(compile_program(module, IreeOptions(threads=1, use_cache=False))(*inputs), [])
        for w, g in zip(want, native, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_tuple_result_used_whole_is_refused_with_its_name() -> None:
    """A tuple result used other than through getitems stays generic, and the refusal names the call."""
    text = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[2, 4], float32>) -> !exir.tuple<!exir.tensor<[2, 4], float32>, !exir.tensor<[2, 1], float32>, !exir.tensor<[2, 1], float32>> {
      %t = exir.call_function "aten.native_layer_norm.default"(%x, [4], none, none, 1.0e-05) : (!exir.tensor<[2, 4], float32>) -> !exir.tuple<!exir.tensor<[2, 4], float32>, !exir.tensor<[2, 1], float32>, !exir.tensor<[2, 1], float32>>
      exir.output %t : !exir.tuple<!exir.tensor<[2, 4], float32>, !exir.tensor<[2, 1], float32>, !exir.tensor<[2, 1], float32>>
    }
  }
}
"""
    with pytest.raises(ExirDiagnostic) as e:
        lower_to_upstream(parse(text))
    assert "aten.native_layer_norm.default" in str(e.value) and "exir.getitem" in str(e.value)


def _one_call(target: str, n_operands: int) -> str:
    ty = "!exir.tensor<[4], float32>"
    operands = ", ".join(["%x"] * n_operands)
    return f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {{
    exir.graph @forward(%x: {ty}) -> {ty} {{
      %r = exir.call_function "{target}"({operands}) : ({", ".join([ty] * n_operands)}) -> {ty}
      exir.output %r : {ty}
    }}
  }}
}}
"""


@pytest.mark.parametrize(
    ("target", "n_operands", "want"),
    [
        ("aten.relu.default", 1, [0.0, 0.5, np.nan, -0.0]),  # as torch: relu(-0.0) is -0.0
        ("aten::relu", 1, [0.0, 0.5, np.nan, -0.0]),  # OpOverload.name()'s spelling, the default overload
        ("torch.ops.aten.relu.default", 1, [0.0, 0.5, np.nan, -0.0]),  # a serialized archive's spelling
        ("aten::add.Tensor", 2, [-2.0, 1.0, np.nan, -0.0]),
    ],
)
def test_target_spellings_resolve_alike_in_the_interpreter_and_the_lowering(target: str, n_operands: int, want: list[float]) -> None:
    """The interpreter and the lowering resolve a call's target with the registry's one resolver."""
    x = np.array([-1.0, 0.5, np.nan, -0.0], np.float32)
    ours, lowered = run_both(parse(_one_call(target, n_operands)), [x])
    np.testing.assert_array_equal(ours[0], np.array(want, np.float32))
    np.testing.assert_array_equal(lowered[0], np.array(want, np.float32))
    assert np.signbit(lowered[0][3]) == np.signbit(np.float32(want[3]))


def test_a_packet_without_overload_is_refused_by_both() -> None:
    """`aten.relu` (FX's print of an OpOverloadPacket) names no operator: neither path guesses one."""
    module = parse(_one_call("aten.relu", 1))
    with pytest.raises(InterpreterError, match="aten.relu"):
        ProgramRunner(module).run([np.zeros(4, np.float32)])
    with pytest.raises(ExirDiagnostic, match=r"aten\.relu names no overload"):
        lower_to_upstream(module)


def test_lifted_tensor_constant_is_embedded() -> None:
    """An FX get_attr of a lifted tensor constant (AOTAutograd's `_tensor_constant0`) lowers to a constant."""
    torch = pytest.importorskip("torch")
    from torch._functorch.aot_autograd import aot_export_module

    from xdsl_exir.frontends.torch_live import import_graph_module

    class Net(torch.nn.Module):
        def forward(self, x: Any) -> Any:
            return (x * torch.tensor([1.5, -0.0, float("inf")]) + torch.tensor([1, -2, 3]),)

    x = torch.tensor([[2.0, -1.0, 0.5], [float("nan"), 3.0, -0.0]])
    gm, _ = aot_export_module(Net(), (x,), trace_joint=False)
    module = import_graph_module(gm, [x])
    assert any(op.name == "fx.get_attr" for op in module.walk())
    want = [t.numpy() for t in gm(x)]
    ours, lowered = run_both(module, [x.numpy()])
    for w, o, g in zip(want, ours, lowered, strict=True):
        np.testing.assert_array_equal(o, w)
        np.testing.assert_array_equal(g, w)


def _iree() -> bool:
    from xdsl_exir.targets.iree import iree_available

    return iree_available()


# -- weights, dtypes ----------------------------------------------------------------


def _weight_program(dtype: str, sizes: str, hex_data: str) -> str:
    return f"""
builtin.module {{
  exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">] outputs [<user_output "r">] {{
    exir.state @w : !exir.tensor<[{sizes}], {dtype}> = #exir.blob<"0x{hex_data}">
    exir.graph @forward(%p_w: !exir.tensor<[{sizes}], {dtype}>, %x: !exir.tensor<[{sizes}], {dtype}>) -> !exir.tensor<[{sizes}], {dtype}> {{
      %r = aten.add.Tensor(%x, %p_w) : (!exir.tensor<[{sizes}], {dtype}>, !exir.tensor<[{sizes}], {dtype}>) -> !exir.tensor<[{sizes}], {dtype}>
      exir.output %r : !exir.tensor<[{sizes}], {dtype}>
    }}
  }}
}}
"""


@pytest.mark.parametrize(
    ("case", "sizes", "hex_data", "nbytes"),
    [
        ("short", "4", "0000803F00000040", 8),
        ("long", "2", "0000803F000000400000404000008040", 16),
        ("empty", "4", "", 0),
        ("int8 over float", "4", "01020304", 4),
        ("huge shape", "100000, 100000", "00" * 128, 128),
        ("16 MB", "4", "00" * (16 << 20), 16 << 20),
    ],
    ids=["short", "long", "empty", "int8-over-float", "huge-shape", "16MB"],
)
def test_blob_size_is_checked_against_its_type(case: str, sizes: str, hex_data: str, nbytes: int, tmp_path: pathlib.Path) -> None:
    text = _weight_program("float32", sizes, hex_data)
    with pytest.raises(ExirDiagnostic) as e:
        lower_to_upstream(parse(text))
    assert f"its data is {nbytes} bytes" in str(e.value) and "state @w" in str(e.value), case
    if case in ("short", "huge shape"):  # the tool: located, exit 1, nothing written
        src, out = tmp_path / "w.mlir", tmp_path / "out.mlir"
        src.write_text(text)
        proc = tool("exir-opt", str(src), "-p", "convert-exir-to-linalg", "-o", str(out))
        assert proc.returncode == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr
        assert "w.mlir:4" in proc.stderr and f"its data is {nbytes} bytes" in proc.stderr
        assert not out.exists()


COMPLEX_INPUT = """
builtin.module {
  exir.program inputs [<user_input "z">] outputs [<user_output "r">] {
    exir.graph @forward(%z: !exir.tensor<[3], complex64>) -> !exir.tensor<[3, 2], float32> {
      %r = aten.view_as_real.default(%z) : (!exir.tensor<[3], complex64>) -> !exir.tensor<[3, 2], float32>
      exir.output %r : !exir.tensor<[3, 2], float32>
    }
  }
}
"""

COMPLEX_INSIDE = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[3, 2], float32>) -> !exir.tensor<[3, 2], float32> {
      %z = exir.call_function "aten.view_as_complex.default"(%x) : (!exir.tensor<[3, 2], float32>) -> !exir.tensor<[3], complex64>
      %r = aten.view_as_real.default(%z) : (!exir.tensor<[3], complex64>) -> !exir.tensor<[3, 2], float32>
      exir.output %r : !exir.tensor<[3, 2], float32>
    }
  }
}
"""


@pytest.mark.parametrize(
    ("text", "where"), [(COMPLEX_INPUT, "input 'z'"), (COMPLEX_INSIDE, "aten.view_as_complex.default")], ids=["input", "inside"]
)
def test_complex_tensors_are_located_refusals(text: str, where: str, tmp_path: pathlib.Path) -> None:
    src = tmp_path / "c.mlir"
    src.write_text(text)
    proc = tool("exir-opt", str(src), "-p", "convert-exir-to-linalg")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert where in proc.stderr and "complex64" in proc.stderr and proc.stderr.count("\n") == 1
    if where.startswith("aten."):
        assert "c.mlir:5" in proc.stderr


LOW_PRECISION = """
builtin.module {
  exir.program inputs [<parameter "p_w" -> "w">, <parameter "p_v" -> "v">, <user_input "x">, <user_input "h">] outputs [<user_output "r">, <user_output "g">] {
    exir.state @w : !exir.tensor<[4], bfloat16> = #exir.blob<"0x803F00C04040807F">
    exir.state @v : !exir.tensor<[4], float16> = #exir.blob<"0x003C00C0007C0080">
    exir.graph @forward(%p_w: !exir.tensor<[4], bfloat16>, %p_v: !exir.tensor<[4], float16>, %x: !exir.tensor<[2, 4], bfloat16>, %h: !exir.tensor<[4], float16>) -> (!exir.tensor<[2, 4], bfloat16>, !exir.tensor<[4], float16>) {
      %r = aten.mul.Tensor(%x, %p_w) : (!exir.tensor<[2, 4], bfloat16>, !exir.tensor<[4], bfloat16>) -> !exir.tensor<[2, 4], bfloat16>
      %e = aten.exp.default(%h) : (!exir.tensor<[4], float16>) -> !exir.tensor<[4], float16>
      %g = aten.add.Tensor(%e, %p_v) : (!exir.tensor<[4], float16>, !exir.tensor<[4], float16>) -> !exir.tensor<[4], float16>
      exir.output %r, %g : !exir.tensor<[2, 4], bfloat16>, !exir.tensor<[4], float16>
    }
  }
}
"""


def test_bfloat16_and_float16_at_the_function_boundary() -> None:
    """Inputs, outputs and weights of 16-bit floats: interpreter, lowered module and IREE agree exactly."""
    import ml_dtypes

    module = parse(LOW_PRECISION)
    x = np.array([[1.5, -2.25, 0.0, np.inf], [3.0, -0.0, np.nan, 1e30]], dtype=ml_dtypes.bfloat16)
    h = np.array([0.5, -1.0, 11.0, np.nan], dtype=np.float16)
    ours, lowered = run_both(module, [x, h])
    assert ours[0].dtype == x.dtype and ours[1].dtype == np.float16
    for o, g in zip(ours, lowered, strict=True):
        np.testing.assert_array_equal(g.astype(np.float32), o.astype(np.float32))
    if _iree():
        from xdsl_exir.targets.iree import IreeOptions, compile_program

        native = flatten(compile_program(module, IreeOptions(threads=1, use_cache=False))(x, h), [])
        for o, g in zip(ours, native, strict=True):
            assert g.dtype == o.dtype
            np.testing.assert_array_equal(g.astype(np.float32), o.astype(np.float32))


# -- exir-run on the lowered form --------------------------------------------------


def _load_npz(path: pathlib.Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


@pytest.fixture(scope="module")
def lowered_mlp(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    path = tmp_path_factory.mktemp("lowered") / "mlp.linalg.mlir"
    proc = tool("exir-opt", str(ZOO / "mlp.core.pt2"), "-p", "to-core-aten,convert-exir-to-linalg", "-o", str(path))
    assert proc.returncode == 0, proc.stderr
    return path


@pytest.mark.parametrize("backend", ["interpreter", "iree"])
def test_exir_run_runs_the_lowered_form(backend: str, lowered_mlp: pathlib.Path, tmp_path: pathlib.Path) -> None:
    if backend == "iree" and not _iree():
        pytest.skip("the iree extra is not installed")
    out = tmp_path / "out.npz"
    args = ["--backend", backend, "--iree-cache-dir", str(tmp_path / "cache")]
    proc = tool("exir-run", str(lowered_mlp), "--inputs", str(ZOO / "mlp.inputs.npz"), "-o", str(out), *args)
    assert proc.returncode == 0, proc.stderr
    got, want = _load_npz(out), _load_npz(ZOO / "mlp.expected.npz")
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-5)
    # the same checks of the inputs as for the program before lowering: located, exit 1, nothing written
    bad = tmp_path / "bad.npz"
    np.savez(bad, arg0=np.zeros((3, 3), np.float32))
    out.unlink()
    proc = tool("exir-run", str(lowered_mlp), "--inputs", str(bad), "-o", str(out), *args)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr and "arg0" in proc.stderr and "expected shape" in proc.stderr
    assert not out.exists()


def test_lowered_form_keeps_buffers_across_calls() -> None:
    """Buffers arrive by name, and each call's update is the next call's value, as before lowering."""
    from xdsl_exir.frontends.pt2 import load_pt2
    from xdsl_exir.interpreters.upstream.program import LoweredProgram

    core = to_core(load_pt2((ZOO / "buffer_mutation.core.pt2").read_bytes(), "buffer_mutation.core.pt2"))
    reference = ProgramRunner(core)
    lowered = LoweredProgram(lower_to_upstream(core))
    assert lowered.user_input_names == reference.user_input_names
    assert set(lowered.buffer_names) <= set(reference.state)
    with pytest.raises(InterpreterError) as e:
        lowered.run([np.zeros((4, 8), np.float32)])
    assert "count" in str(e.value) and "by its name" in str(e.value)
    lowered.set_buffers({n: np.copy(reference.state[n]) for n in lowered.buffer_names})
    x = [np.asarray(v) for v in _load_npz(ZOO / "buffer_mutation.inputs.npz").values()]
    for call in range(2):
        want = flatten(reference.run([np.copy(v) for v in x]), [])
        got = flatten(lowered.run([np.copy(v) for v in x]), [])
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"call {call}")
        for n in lowered.buffer_names:
            np.testing.assert_allclose(lowered.state[n], reference.state[n], rtol=1e-5, atol=1e-6, err_msg=n)


def test_a_module_without_the_calling_convention_is_refused(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "plain.mlir"
    src.write_text(
        "func.func @forward(%a: tensor<3xf32>) -> tensor<3xf32> {\n  func.return %a : tensor<3xf32>\n}\n"
    )
    proc = tool("exir-run", str(src), "--random-inputs", "0")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "exir.kind" in proc.stderr and "convert-exir-to-linalg" in proc.stderr


# -- symbolic predicates and scalars ------------------------------------------------


COND_ON_SIZE = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">, <user_output "big">] ranges [<s0 in [2, 64]>] {
    exir.graph @forward(%x: !exir.tensor<[s0, 3], float32>) -> (!exir.tensor<[s0, 3], float32>, !exir.sym_bool) {
      %n = exir.sym_size %x, 0 : !exir.tensor<[s0, 3], float32> -> !exir.sym_int<s0>
      %gt = exir.sym_gt(%n, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
      %le = exir.sym_le(%n, 40) : (!exir.sym_int<s0>) -> !exir.sym_bool
      %both = exir.sym_and(%gt, %le) : (!exir.sym_bool, !exir.sym_bool) -> !exir.sym_bool
      %half = exir.sym_floordiv(%n, 2) : (!exir.sym_int<s0>) -> !exir.sym_int
      %r = exir.cond %both(%x, %half) : !exir.sym_bool, (!exir.tensor<[s0, 3], float32>, !exir.sym_int) -> !exir.tensor<[s0, 3], float32> {
      ^bb0(%x_1: !exir.tensor<[s0, 3], float32>, %h_1: !exir.sym_int):
        %sin = aten.sin.default(%x_1) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], float32>
        %mul = aten.mul.Tensor(%sin, %h_1) : (!exir.tensor<[s0, 3], float32>, !exir.sym_int) -> !exir.tensor<[s0, 3], float32>
        exir.output %mul : !exir.tensor<[s0, 3], float32>
      } else {
      ^bb0(%x_2: !exir.tensor<[s0, 3], float32>, %h_2: !exir.sym_int):
        %cos = aten.cos.default(%x_2) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], float32>
        %add = aten.add.Tensor(%cos, %h_2) : (!exir.tensor<[s0, 3], float32>, !exir.sym_int) -> !exir.tensor<[s0, 3], float32>
        exir.output %add : !exir.tensor<[s0, 3], float32>
      }
      exir.output %r, %gt : !exir.tensor<[s0, 3], float32>, !exir.sym_bool
    }
  }
}
"""


def test_cond_on_a_symbolic_predicate_and_scalar_operands() -> None:
    """`cond(x.shape[0] > 4 and x.shape[0] <= 40, ..., (x, x.shape[0] // 2))`: both branches, against numpy."""
    module = parse(COND_ON_SIZE)
    lowered_text = print_mlir(lower_to_upstream(module))
    assert "arith.cmpi sgt" in lowered_text and "scf.if" in lowered_text and "arith.floordivsi" in lowered_text
    native = None
    if _iree():
        from xdsl_exir.targets.iree import IreeOptions, compile_program

        native = compile_program(module, IreeOptions(threads=1, use_cache=False))
    rng = np.random.default_rng(0)
    for n in (3, 4, 5, 40, 41):
        x = rng.standard_normal((n, 3)).astype(np.float32)
        taken = 4 < n <= 40
        want = np.sin(x) * np.float32(n // 2) if taken else np.cos(x) + np.float32(n // 2)
        ours, lowered = run_both(module, [x])
        for got in (ours, lowered, flatten(native(x), []) if native is not None else ours):
            np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-5, err_msg=f"n = {n}")
            assert bool(got[1]) == (n > 4)


def test_a_failing_rule_is_a_located_diagnostic(monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in a rule is reported at its op, with what failed, never as an unlocated internal error."""
    import xdsl_exir.transforms.convert_exir_to_linalg as driver

    def broken(*args: object) -> list[object]:
        raise IndexError("tuple index out of range")

    monkeypatch.setattr(driver, "rule_for", lambda name: broken if name == "aten.relu.default" else None)
    text = """
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32> {
      %r = aten.relu.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      exir.output %r : !exir.tensor<[4], float32>
    }
  }
}
"""
    with pytest.raises(ExirDiagnostic) as e:
        lower_to_upstream(parse(text))
    message = str(e.value)
    assert "(%r) in @forward" in message and "aten.relu.default" in message and "IndexError" in message


ITEM_AS_SIZE = """
builtin.module {
  exir.program inputs [<user_input "x">, <user_input "k">] outputs [<user_output "r">, <user_output "n">] {
    exir.graph @forward(%x: !exir.tensor<[3], float32>, %k: !exir.tensor<[], int64>) -> (!exir.tensor<[u0], float32>, !exir.sym_int<u0>) {
      %n = aten._local_scalar_dense.default(%k) : (!exir.tensor<[], int64>) -> !exir.sym_int<u0>
      %f = aten.full.default([%n], 2.5, dtype = torch.float32) : (!exir.sym_int<u0>) -> !exir.tensor<[u0], float32>
      %s = aten.sum.default(%x) : (!exir.tensor<[3], float32>) -> !exir.tensor<[], float32>
      %r = aten.mul.Tensor(%f, %s) : (!exir.tensor<[u0], float32>, !exir.tensor<[], float32>) -> !exir.tensor<[u0], float32>
      exir.output %r, %n : !exir.tensor<[u0], float32>, !exir.sym_int<u0>
    }
  }
}
"""


def test_item_result_is_a_scalar_and_a_size() -> None:
    """`.item()` (`_local_scalar_dense`) gives a SymInt the driver binds: later sizes are read from it."""
    module = parse(ITEM_AS_SIZE)
    x = np.array([1.0, 2.0, 3.5], np.float32)
    native = None
    if _iree():
        from xdsl_exir.targets.iree import IreeOptions, compile_program

        native = compile_program(module, IreeOptions(threads=1, use_cache=False))
    for k in (0, 1, 5):
        ours, lowered = run_both(module, [x, np.asarray(k, np.int64)])
        for got in (ours, lowered, flatten(native(x, np.asarray(k, np.int64)), []) if native is not None else ours):
            np.testing.assert_array_equal(got[0], np.full(k, 2.5 * 6.5, np.float32))
            assert int(got[1]) == k


@pytest.mark.parametrize("backend", ["interpreter", "iree"])
def test_lowered_form_keeps_the_tensor_size_limit(backend: str, tmp_path: pathlib.Path) -> None:
    if backend == "iree" and not _iree():
        pytest.skip("the iree extra is not installed")
    src, lowered = tmp_path / "zeros.mlir", tmp_path / "zeros.linalg.mlir"
    src.write_text("""
builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[100000, 100000], float32> {
      %r = aten.full.default([100000, 100000], 0.0, dtype = torch.float32) : () -> !exir.tensor<[100000, 100000], float32>
      exir.output %r : !exir.tensor<[100000, 100000], float32>
    }
  }
}
""")
    proc = tool("exir-opt", str(src), "-p", "convert-exir-to-linalg", "-o", str(lowered))
    assert proc.returncode == 0, proc.stderr
    proc = tool("exir-run", str(lowered), "--random-inputs", "0", "--backend", backend, "--iree-cache-dir", str(tmp_path / "c"))
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert "zeros.linalg.mlir:" in proc.stderr and "[100000, 100000]" in proc.stderr and "--max-tensor-bytes" in proc.stderr


@pytest.mark.parametrize("backend", ["interpreter", "iree"])
def test_lowered_form_takes_bfloat16_as_npz_carries_it(backend: str, tmp_path: pathlib.Path) -> None:
    """A bf16 input travels in .npz as float32 and is rounded to bf16; outputs come back as float32 files."""
    import ml_dtypes

    if backend == "iree" and not _iree():
        pytest.skip("the iree extra is not installed")
    src, lowered, inputs, out = (tmp_path / n for n in ("lp.mlir", "lp.linalg.mlir", "in.npz", "out.npz"))
    src.write_text(LOW_PRECISION)
    proc = tool("exir-opt", str(src), "-p", "convert-exir-to-linalg", "-o", str(lowered))
    assert proc.returncode == 0, proc.stderr
    x = np.array([[1.5, -2.25, 0.0, np.inf], [3.0, -0.0, np.nan, 1e30]], dtype=np.float32)
    h = np.array([0.5, -1.0, 11.0, np.nan], dtype=np.float16)
    np.savez(inputs, arg0=x, arg1=h)
    proc = tool("exir-run", str(lowered), "--inputs", str(inputs), "-o", str(out), "--backend", backend,
                "--iree-cache-dir", str(tmp_path / "c"))  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    want = flatten(ProgramRunner(parse(LOW_PRECISION)).run([x.astype(ml_dtypes.bfloat16), h]), [])
    got = _load_npz(out)
    for i, w in enumerate(want):
        np.testing.assert_array_equal(got[f"out{i}"].astype(np.float32), w.astype(np.float32))
