"""
Custom operators (`torch.library`): a numpy kernel registered with
`xdsl_exir.register_kernel` (or through an `xdsl_exir.kernels` entry point) runs
the user's op in the interpreter; its schema makes it a known, functional
operator for the verifier and the passes, its `infer` rule types its calls.
"""

from __future__ import annotations

import pathlib
import sys
from collections.abc import Iterator

import numpy as np
import pass_harness as ph
import pytest
from xdsl.utils.exceptions import VerifyException

import xdsl_exir
from xdsl_exir.dialects.exir import CallFunctionOp, DType, TensorType
from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.semantics.inference import infer_result_types
from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass
from xdsl_exir.utils import op_registry

SCHEMA = "mytest::scale2(Tensor x, float k=2.0) -> Tensor"

TEXT = """
exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32> {
    %a = exir.call_function "mytest.scale2.default"(%x, 3.0) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    %b = exir.call_function "mytest.scale2.default"(%x, 3.0) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    %unused = exir.call_function "mytest.scale2.default"(%x) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    %r = aten.add.Tensor(%a, %b) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    exir.output %r : !exir.tensor<[2, 3], float32>
  }
}
"""


@pytest.fixture
def scale2() -> Iterator[list[tuple[object, ...]]]:
    """`mytest::scale2` registered for one test; the list records its calls."""
    calls: list[tuple[object, ...]] = []

    def kernel(x: np.ndarray, k: float) -> np.ndarray:
        calls.append((x.shape, k))
        return x * k  # float64 k: the runner gives the result the IR's float32

    xdsl_exir.register_kernel("mytest::scale2", kernel, schema=SCHEMA, infer=lambda x, k: x)
    yield calls
    op_registry.unregister_kernel("mytest::scale2")


def test_registered_kernel_runs_and_binds_defaults(scale2: list[tuple[object, ...]]) -> None:
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    (got,) = ProgramRunner(ph.parse(TEXT))(x)
    np.testing.assert_array_equal(got, x * 6)
    assert got.dtype == np.float32
    assert ((2, 3), 2.0) in scale2  # the default of the schema filled in


def test_schema_makes_it_a_known_functional_operator(scale2: list[tuple[object, ...]]) -> None:
    module = ph.parse(TEXT)
    VerifyExportIRPass().apply(ph.context(), module)
    VerifyExportIRPass(dialect="core").apply(ph.context(), module)  # not ATen: the core rule leaves it
    after = ph.apply(module, "exir-cse,exir-dce")
    calls = [op for op in after.walk() if isinstance(op, CallFunctionOp)]
    assert len(calls) == 1  # the duplicate merged, the unused call removed
    x = np.ones((2, 3), np.float32)
    np.testing.assert_array_equal(ProgramRunner(after)(x)[0], x * 6)


def test_infer_rule_types_calls(scale2: list[tuple[object, ...]]) -> None:
    module = ph.parse(TEXT)
    x = next(op for op in module.walk() if isinstance(op, CallFunctionOp)).operands[0]
    assert infer_result_types("mytest.scale2.default", [x, 3.0]) == [TensorType([2, 3], DType.float32)]


def test_unregistered_operator_is_refused_with_its_name() -> None:
    module = ph.parse(TEXT)
    with pytest.raises(VerifyException, match="unknown operator 'mytest.scale2.default'"):
        VerifyExportIRPass().apply(ph.context(), module)
    with pytest.raises(InterpreterError, match="mytest.scale2.default"):
        ProgramRunner(module)(np.ones((2, 3), np.float32))


def test_kernel_without_schema_gets_the_recorded_arguments() -> None:
    seen: list[object] = []

    def kernel(x: np.ndarray, *rest: object) -> np.ndarray:
        seen.append(rest)
        return x + 1

    xdsl_exir.register_kernel("mytest.scale2.default", kernel)
    try:
        module = ph.parse(TEXT)
        x = np.zeros((2, 3), np.float32)
        np.testing.assert_array_equal(ProgramRunner(module)(x)[0], np.full((2, 3), 2, np.float32))
        assert (3.0,) in seen and () in seen
        VerifyExportIRPass().apply(ph.context(), module)  # registered: a known operator
        # Without a schema nothing is known about its effects: dce keeps the unused call.
        after = ph.apply(module, "exir-dce")
        assert len([op for op in after.walk() if isinstance(op, CallFunctionOp)]) == 3
    finally:
        op_registry.unregister_kernel("mytest::scale2")


def test_kernel_of_wrong_shape_is_refused() -> None:
    xdsl_exir.register_kernel("mytest::scale2", lambda x, k=2.0: np.zeros(5), schema=SCHEMA)
    try:
        with pytest.raises(InterpreterError, match=r"returned shape \[5\], but the program says \[2, 3\]"):
            ProgramRunner(ph.parse(TEXT))(np.ones((2, 3), np.float32))
    finally:
        op_registry.unregister_kernel("mytest::scale2")


def test_kernel_result_of_a_symbolic_size_is_taken() -> None:
    """A result typed with a symbolic size is not compared with the program's sizes
    (they are not all integers); its rank and dtype still come from the IR."""
    text = TEXT.replace("[2, 3]", "[s0, 3]")
    xdsl_exir.register_kernel("mytest::scale2", lambda x, k=2.0: x * k, schema=SCHEMA)
    try:
        x = np.arange(12, dtype=np.float32).reshape(4, 3)
        (got,) = ProgramRunner(ph.parse(text))(x)
        np.testing.assert_array_equal(got, x * 6)
    finally:
        op_registry.unregister_kernel("mytest::scale2")


def test_bad_registrations() -> None:
    with pytest.raises(op_registry.CustomOperatorError, match="operator of torch"):
        xdsl_exir.register_kernel("aten::add.Tensor", lambda a, b: a)
    with pytest.raises(op_registry.CustomOperatorError, match="needs the operator's schema"):
        xdsl_exir.register_kernel("mytest::f", lambda a: a, infer=lambda a: a)
    with pytest.raises(op_registry.CustomOperatorError, match="the schema names mytest.g.default"):
        xdsl_exir.register_kernel("mytest::f", lambda a: a, schema="mytest::g(Tensor a) -> Tensor")


def test_entry_point_is_loaded_on_first_use(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "ep_kernels.py").write_text(
        "import xdsl_exir\n"
        "LOADS = []\n"
        "def register():\n"
        "    LOADS.append(1)\n"
        "    xdsl_exir.register_kernel('epns::twice', lambda x: x * 2, schema='epns::twice(Tensor x) -> Tensor')\n"
    )
    dist = tmp_path / "ep_kernels-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-kernels\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[xdsl_exir.kernels]\nepns = ep_kernels:register\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        assert "ep_kernels" not in sys.modules
        assert op_registry.custom_operator("torch.ops.epns.twice.default") is not None
        assert op_registry.custom_operator("epns.other.default") is None  # loaded once per namespace
        assert sys.modules["ep_kernels"].LOADS == [1]
        assert op_registry.is_known_target("epns::twice")
    finally:
        op_registry.unregister_kernel("epns::twice")
        sys.modules.pop("ep_kernels", None)


def test_pt2_program_with_torch_library_op() -> None:
    """The zoo's custom_op model: torch eager's outputs, through the zoo's registered kernel."""
    module = ph.load_zoo("custom_op")
    with np.load(ph.ZOO / "custom_op.inputs.npz") as i, np.load(ph.ZOO / "custom_op.expected.npz") as o:
        got = ProgramRunner(module)(i["arg0"])
        np.testing.assert_allclose(got[0], o["out0"], rtol=1e-5, atol=1e-6)
