"""
The driver of `convert-exir-to-linalg` (not its per-operator rules): both
spellings of an ATen call lower alike, refusals say what to do, malformed
weights and unsupported dtypes are located diagnostics, and programs run the
same before and after the lowering (numpy interpreter, the lowered module on
xDSL's interpreter, IREE when installed, torch eager when installed).
"""

from __future__ import annotations

import pathlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.dialects.aten import AtenOp, to_call_function
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.interpreters.upstream import run_lowered
from xdsl_exir.targets.iree import _context, lower_to_upstream, print_mlir, to_core  # pyright: ignore[reportPrivateUsage] - the one dialect context of the target
from xdsl_exir.transforms.convert_exir_to_linalg import function_arguments
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.mlir_parser import ResourceParser

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"


def parse(text: str) -> ModuleOp:
    return ResourceParser(_context(), text, "test.mlir").parse_module()


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
    runner = ProgramRunner(program, executor=lambda *args: run_lowered(lowered, [args[i] for i in arguments]))
    return ours, flatten(runner.run([np.copy(x) for x in inputs]), [])


def tool(name: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[str]:
    code = f"from xdsl_exir.tools.{name.replace('-', '_')} import main; main()"
    return subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=600, check=False
    )


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


def test_core_op_without_rule_points_at_the_table() -> None:
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
    with pytest.raises(ExirDiagnostic) as e:
        lower_to_upstream(parse(text))
    message = str(e.value)
    assert "aten.randperm.default" in message and "docs/linalg_lowering.md" in message
    assert "to-core-aten" not in message


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


def _iree() -> bool:
    from xdsl_exir.targets.iree import iree_available

    return iree_available()
