"""
`torchscript-to-exir` on what third-party modules script into and the lowering
used to refuse (or, for `any` of computed bools, get wrong): each program is
lowered, verified and run, and compared with torch.jit's own run.
(No `from __future__ import annotations`: TorchScript reads the annotations.)
"""

import math
from typing import List, Tuple

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

import pass_harness as ph  # noqa: E402 - after pytest.importorskip
from test_torchscript_to_exir_torch import check_function, imported, lower, types_option  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from torch import Tensor  # noqa: E402 - after pytest.importorskip, so the module skips without torch

import xdsl_exir  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.dialects.exir import CallFunctionOp, ConstantOp  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.interpreters.program import ProgramRunner  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.interpreters.ts_runner import TorchScriptRunner  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.transforms.torchscript_to_exir import TorchScriptToExirPass  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.utils import op_registry  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.utils.diagnostics import ExirDiagnostic  # noqa: E402 - after pytest.importorskip, so the module skips without torch


def any_of_computed(x: Tensor) -> Tensor:
    flags: List[bool] = [bool(x.sum() > 0), False]
    if any(flags):
        return x + 1
    return x - 1


def all_of_computed(x: Tensor) -> Tensor:
    flags: List[bool] = [True, bool(x.max() > 0), x.shape[0] == 3]
    if all(flags):
        return x + 1
    return x - 1


@pytest.mark.parametrize("fn", [any_of_computed, all_of_computed])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_any_all_of_values_computed_from_tensor_data(fn: object, sign: float) -> None:
    x = torch.rand(3, 4) * sign
    check_function(fn, {"x": x})


def max_of_computed(x: Tensor) -> float:
    values: List[float] = [float(x.sum()), 0.5]
    return max(values)


def test_other_builtins_of_computed_values_are_refused_not_guessed() -> None:
    with pytest.raises(ExirDiagnostic, match="of a list holding values computed from tensor data"):
        check_function(max_of_computed, {"x": torch.randn(3)})


def cumsum_computed_dim(x: Tensor) -> Tensor:
    d = int(x.sum() > 0)
    return torch.cumsum(x, d) * 2


def softmax_computed_negative_dim(x: Tensor) -> Tensor:
    d = -1 - int(x[0, 0] > 0)
    return torch.softmax(x, d)


@pytest.mark.parametrize("fn", [cumsum_computed_dim, softmax_computed_negative_dim])
@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_dim_computed_from_tensor_data(fn: object, sign: float) -> None:
    program = check_function(fn, {"x": torch.rand(3, 4) * sign})
    assert any(op.name == "aten.where.self" for op in program.walk())


def ceil_of_computed(x: Tensor) -> Tensor:
    n = float(x.abs().sum())
    return x + math.ceil(n) - math.floor(n / 3)


def test_ceil_floor_of_value_computed_from_tensor_data() -> None:
    check_function(ceil_of_computed, {"x": torch.randn(3, 4)})


def scalar_and_bool_outputs(x: Tensor) -> Tuple[Tensor, int, bool, float, int, bool]:
    return x * 2, x.shape[0], True, 2.5, int(x.sum() > 0), bool(x.max() > 10)


def test_scalar_and_bool_graph_outputs() -> None:
    x = torch.randn(3, 4)
    program = check_function(scalar_and_bool_outputs, {"x": x})
    assert [op.python_value for op in program.walk() if isinstance(op, ConstantOp)] == [3, True, 2.5]
    got = ProgramRunner(program)(x.numpy())
    assert [type(v) for v in got[1:]] == [int, bool, float, int, bool]


def masked_fill_int_with_float(x: Tensor) -> Tensor:
    return x.masked_fill(x > 2, 1.5)


def test_masked_fill_keeps_the_integer_dtype() -> None:
    program = check_function(masked_fill_int_with_float, {"x": torch.arange(12).reshape(3, 4)})
    assert not any(op.name == "aten._to_copy.default" for op in program.walk())


def arange_out_then_view(x: Tensor) -> Tensor:
    out = torch.empty(3, 4)
    torch.arange(0, 12, out=out)
    buf = torch.zeros(5, dtype=torch.int64)
    torch.arange(1, 11, 2, out=buf)
    return out.view(12)[:5] * buf + x


def test_arange_out() -> None:
    check_function(arange_out_then_view, {"x": torch.randn(5)})


def out_resizes(x: Tensor) -> Tensor:
    out = torch.empty(2)
    torch.cumsum(x, 0, out=out)
    return out


def test_out_that_torch_would_resize_is_refused() -> None:
    scripted = torch.jit.script(out_resizes)
    with pytest.raises(ExirDiagnostic, match=r"resizes out from \[2\] to \[5\]"):
        lower(imported(scripted), input_types=types_option(x=torch.randn(5)))


QD = """graph(%x : Float(4, strides=[1], requires_grad=0, device=cpu)):
  %s : float = prim::Constant[value=0.5]()
  %z : int = prim::Constant[value=0]()
  %lo : int = prim::Constant[value=-128]()
  %hi : int = prim::Constant[value=127]()
  %dt : int = prim::Constant[value=1]()
  %q : Tensor = quantized_decomposed::quantize_per_tensor(%x, %s, %z, %lo, %hi, %dt)
  return (%q)
"""


def test_quantized_decomposed_is_a_known_namespace() -> None:
    """torch registers quantized_decomposed::* at run time; the schema list holds them."""
    import torch.ao.quantization.fx._decomposed  # registers the operators in torch

    module = parse_torchscript(QD, "qd.txt")
    try:
        TorchScriptToExirPass().apply(ph.context(), module)
    except ExirDiagnostic as e:  # known, but without a result-type rule: named as such, not as unknown
        assert "torch defines no operator" not in str(e)
        assert "quantized_decomposed::quantize_per_tensor resolves to" in str(e)
        return
    targets = [op.target.data for op in module.walk() if isinstance(op, CallFunctionOp)]
    assert targets == ["quantized_decomposed.quantize_per_tensor.default"]
    x = np.linspace(-3, 3, 4).astype(np.float32)
    want = torch.ops.quantized_decomposed.quantize_per_tensor(torch.from_numpy(x), 0.5, 0, -128, 127, torch.int8)
    np.testing.assert_array_equal(ProgramRunner(module)(x)[0], want.numpy())


CUSTOM = """graph(%x : Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)):
  %k : float = prim::Constant[value=3.]()
  %y : Tensor = mylib::scale2(%x, %k)
  %z : Tensor = aten::relu(%y)
  return (%z)
"""


def test_custom_operator_in_torchscript() -> None:
    xdsl_exir.register_kernel(
        "mylib::scale2", lambda x, k: x * k, schema="mylib::scale2(Tensor x, float k=2.0) -> Tensor", infer=lambda x, k: x
    )
    try:
        x = np.arange(6, dtype=np.float32).reshape(2, 3) - 2
        want = np.maximum(x * 3, 0)
        (direct,) = TorchScriptRunner(parse_torchscript(CUSTOM, "c.txt")).run([x])
        np.testing.assert_array_equal(direct, want)
        module = parse_torchscript(CUSTOM, "c.txt")
        TorchScriptToExirPass().apply(ph.context(), module)
        assert [op.target.data for op in module.walk() if isinstance(op, CallFunctionOp)] == ["mylib.scale2.default"]
        np.testing.assert_array_equal(ProgramRunner(module)(x)[0], want)
    finally:
        op_registry.unregister_kernel("mylib::scale2")
