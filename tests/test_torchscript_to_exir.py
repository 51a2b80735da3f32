"""
`torchscript-to-exir`: TorchScript programs lowered to Export IR, checked three
ways: the form of the program (op names, signature), `verify-export-ir`, and
its results under `ProgramRunner` against torch.jit (rtol 1e-5).

Graphs come from torch itself (scripted or traced, converted in process by
`tests/ts_graphs.py`; modules with their slots by `_ts_module` below), and
from hand-written IR where no torch is needed.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.parser import Parser

from xdsl_exir.dialects import ts
from xdsl_exir.dialects.aten import Aten
from xdsl_exir.dialects.exir import CondOp, Exir, GraphOp, ProgramOp
from xdsl_exir.dialects.prim import Prim
from xdsl_exir.dialects.ts import TS
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.transforms.input_options import InputOptionError, parse_input_types
from xdsl_exir.transforms.torchscript_to_exir import TorchScriptToExirPass, parse_input_values
from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass
from xdsl_exir.utils.diagnostics import ExirDiagnostic

ROOT = pathlib.Path(__file__).resolve().parent


def _ctx() -> Context:
    ctx = Context()
    for d in (Builtin, Exir, Aten, TS, Prim):
        ctx.load_dialect(d)
    return ctx


def parse(text: str) -> ModuleOp:
    return Parser(_ctx(), text).parse_module()


def lower(module: ModuleOp, **options: Any) -> ProgramOp:
    """Run the pass (and verify-export-ir) on `module`; return the program."""
    TorchScriptToExirPass(**options).apply(_ctx(), module)
    module.verify()
    VerifyExportIRPass().apply(_ctx(), module)
    programs = [op for op in module.ops if isinstance(op, ProgramOp)]
    assert len(programs) == 1
    assert not any(isinstance(op, ts.ScriptModuleOp | ts.MethodOp) for op in module.ops)
    return programs[0]


def op_names(program: ProgramOp) -> list[str]:
    graph = program.entry
    assert isinstance(graph, GraphOp)
    return [op.name for op in graph.walk() if op is not graph]


def signature(program: ProgramOp) -> tuple[list[str], list[str]]:
    ins = [f"{s.kind.data}:{s.arg_name.data}" + (f"->{s.target_name}" if s.target_name else "")
           for s in program.inputs.data]  # fmt: skip
    outs = [f"{s.kind.data}" + (f"->{s.target_name}" if s.target_name else "") for s in program.outputs.data]
    return ins, outs


# ---------------------------------------------------------------------------
# Without torch: hand-written IR
# ---------------------------------------------------------------------------

LSTM_IR = """
ts.method @lstm_cell {
^bb0(%x: !ts.tensor, %hx: !ts.tensor, %cx: !ts.tensor, %w_ih: !ts.tensor, %w_hh: !ts.tensor, %b_ih: !ts.tensor,
     %b_hh: !ts.tensor):
  %c4 = prim.Constant() {value = 4 : i64} : () -> !ts.int
  %c1 = prim.Constant() {value = 1 : i64} : () -> !ts.int
  %9 = ts.node "aten::t"(%w_ih) : (!ts.tensor) -> !ts.tensor
  %10 = ts.node "aten::mm"(%x, %9) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %13 = ts.node "aten::t"(%w_hh) : (!ts.tensor) -> !ts.tensor
  %14 = ts.node "aten::mm"(%hx, %13) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %16 = ts.node "aten::add"(%10, %14, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %19 = ts.node "aten::add"(%16, %b_ih, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %gates = ts.node "aten::add"(%19, %b_hh, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %26 = ts.node "aten::chunk"(%gates, %c4, %c1) : (!ts.tensor, !ts.int, !ts.int) -> !ts.list<!ts.tensor>
  %i1, %f1, %g1, %o1 = prim.ListUnpack(%26) : (!ts.list<!ts.tensor>) -> (!ts.tensor, !ts.tensor, !ts.tensor, !ts.tensor)
  %ingate = ts.node "aten::sigmoid"(%i1) : (!ts.tensor) -> !ts.tensor
  %forgetgate = ts.node "aten::sigmoid"(%f1) : (!ts.tensor) -> !ts.tensor
  %cellgate = ts.node "aten::tanh"(%g1) : (!ts.tensor) -> !ts.tensor
  %outgate = ts.node "aten::sigmoid"(%o1) : (!ts.tensor) -> !ts.tensor
  %41 = ts.node "aten::mul"(%forgetgate, %cx) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %44 = ts.node "aten::mul"(%ingate, %cellgate) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %cy = ts.node "aten::add"(%41, %44, %c1) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
  %49 = ts.node "aten::tanh"(%cy) : (!ts.tensor) -> !ts.tensor
  %hy = ts.node "aten::mul"(%outgate, %49) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %53 = prim.TupleConstruct(%hy, %cy) : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
  prim.Return(%53) : (!ts.tuple<!ts.tensor, !ts.tensor>) -> ()
}
"""

LSTM_TYPES = "x=f32[3,10];hx=f32[3,20];cx=f32[3,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"


def test_lstm_cell_from_ir_matches_recorded_torch_outputs() -> None:
    program = lower(parse(LSTM_IR), input_types=LSTM_TYPES)
    names = op_names(program)
    assert names.count("aten.mm.default") == 2 and names.count("exir.getitem") == 4
    assert "aten.chunk.default" in names and names[-1] == "exir.output"
    ins, outs = signature(program)
    assert ins == [f"user_input:{n}" for n in ("x", "hx", "cx", "w_ih", "w_hh", "b_ih", "b_hh")]
    assert outs == ["user_output", "user_output"]
    assert program.out_spec is not None and "builtins.tuple" in program.out_spec.data
    data = np.load(ROOT / "torchscript" / "data" / "lstm_cell.npz")
    hy, cy = ProgramRunner(program)(*(data[f"arg{i}"] for i in range(7)))
    np.testing.assert_allclose(hy, data["out0"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(cy, data["out1"], rtol=1e-5, atol=1e-6)


def test_option_parsing() -> None:
    types = parse_input_types("x=f32[3, 10]; y=int64[s0,2*s0] ;z=Float(2, 3)")
    assert str(types["x"]) == "!exir.tensor<[3, 10], float32>"
    assert str(types["y"]) == "!exir.tensor<[s0, 2*s0], int64>"
    assert str(types["z"]) == "!exir.tensor<[2, 3], float32>"
    assert parse_input_values("n=3;f=0.5;b=true;o=None;l=[1, 2]") == {
        "n": 3, "f": 0.5, "b": True, "o": None, "l": [1, 2]
    }
    with pytest.raises(InputOptionError, match="write DTYPE\\[SIZES\\]"):
        parse_input_types("x=f99[3]")
    with pytest.raises(InputOptionError, match="NAME=VALUE"):
        parse_input_values("3")


# ---------------------------------------------------------------------------
# The committed TorchScript fixtures (dumps and torch's recorded outputs)
# ---------------------------------------------------------------------------

FIXTURES = ROOT / "torchscript"
_NP_DTYPES = {"float32": "f32", "float64": "f64", "int64": "i64", "int32": "i32", "bool": "bool"}


def _fixture_cases() -> list[tuple[str, str, str]]:
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    cases: list[tuple[str, str, str]] = []
    for entry in manifest:
        if entry["kind"] in ("script_module", "trace_module"):
            continue  # method dumps without the module's state
        for key in entry["dumps"]:
            for variant in entry["data"]:
                cases.append((entry["name"], key, variant))
    return cases


# What the lowering refuses among the fixtures, and why (everything else must match torch).
REFUSED = {
    "fork_wait": "function 'fork_helper' is not defined in this module",
    "call_other/graph": "function 'helper_scale' is not defined in this module",
    "with_stmt": "prim::CreateObject makes a __torch__.models.Counter",
    "module_frozen": "a Float tensor constant of sizes [4, 3] has no data in the IR",
}


@pytest.mark.parametrize("name,key,variant", _fixture_cases())
def test_fixture(name: str, key: str, variant: str) -> None:
    from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

    manifest = {e["name"]: e for e in json.loads((FIXTURES / "manifest.json").read_text())}
    entry = manifest[name]
    path = entry["dumps"][key]
    module = parse_torchscript((FIXTURES / path).read_text(), path)
    data = np.load(FIXTURES / entry["data"][variant])
    (method,) = [op for op in module.ops if isinstance(op, ts.MethodOp)]
    types: list[str] = []
    values: list[str] = []
    tensors: list[np.ndarray] = []
    inputs = [a for a in method.body.block.args if not isinstance(a.type, ts.TSClassType)]  # `self` of a frozen module
    for i, arg in enumerate(inputs):
        value = data[f"arg{i}"]
        arg_name = re.sub(r"\.\d+$", "", arg.name_hint or f"arg{i}")
        if isinstance(arg.type, ts.TSTensorType | ts.TSOptionalType):
            types.append(f"{arg_name}={_NP_DTYPES[str(value.dtype)]}[{', '.join(map(str, value.shape))}]")
            tensors.append(value)
        else:
            values.append(f"{arg_name}={value.item()!r}")
    options = {"input_types": ";".join(types), "input_values": ";".join(values)}
    refusal = REFUSED.get(f"{name}/{key}", REFUSED.get(name))
    if refusal is not None:
        with pytest.raises(ExirDiagnostic, match=re.escape(refusal)):
            lower(module, **options)
        return
    program = lower(module, **options)
    outputs = ProgramRunner(program)(*tensors)
    expected = [data[f"out{i}"] for i in range(len([k for k in data if k.startswith("out")]))]
    assert len(outputs) == len(expected)
    for ours, theirs in zip(outputs, expected):
        ours = np.asarray(ours)  # a scalar output (an int, a bool) is a 0-d array in the .npz
        assert ours.shape == theirs.shape and ours.dtype == theirs.dtype
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


# ---------------------------------------------------------------------------
# Modules in IR: state, calls, assignments; diagnostics
# ---------------------------------------------------------------------------

MODULE_IR = """
ts.module @m class "__torch__.M" {
  ts.slot parameter @w : !ts.tensor<Float(2, strides=[1], requires_grad=1, device=cpu)> = #ts.tensor_value<Float, [2], #exir.blob<"0x0000803F00000040">>
  ts.slot buffer @total : !ts.tensor<Float(2, strides=[1], requires_grad=0, device=cpu)> = #ts.tensor_value<Float, [2], #exir.blob<"0x0000000000000000">>
  ts.slot attribute @scale : !ts.float = 3.0 : f64
  ts.slot attribute @table : !ts.tensor<Long(2, device=cpu)> = #ts.tensor_value<Long, [2], #exir.blob<"0x01000000000000000200000000000000">>
  ts.module @inner class "__torch__.Inner" {
    ts.slot attribute @k : !ts.int = 2 : i64
    ts.method @forward {
    ^bb0(%self: !ts.class<"__torch__.Inner">, %x: !ts.tensor):
      %k = prim.GetAttr(%self) {name = "k"} : (!ts.class<"__torch__.Inner">) -> !ts.int
      %y = ts.node "aten::mul"(%x, %k) : (!ts.tensor, !ts.int) -> !ts.tensor
      prim.Return(%y) : (!ts.tensor) -> ()
    }
    ts.method @broken {
    ^bb0(%self: !ts.class<"__torch__.Inner">, %x: !ts.tensor):
      %y = ts.node "mylib::nope"(%x) : (!ts.tensor) -> !ts.tensor
      prim.Return(%y) : (!ts.tensor) -> ()
    }
  }
  ts.method @forward {
  ^bb0(%self: !ts.class<"__torch__.M">, %x: !ts.tensor<Float(2, device=cpu)>):
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %inner = prim.GetAttr(%self) {name = "inner"} : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Inner">
    %y = prim.CallMethod(%inner, %x) {name = "forward"} : (!ts.class<"__torch__.Inner">, !ts.tensor<Float(2, device=cpu)>) -> !ts.tensor
    %w = prim.GetAttr(%self) {name = "w"} : (!ts.class<"__torch__.M">) -> !ts.tensor
    %scale = prim.GetAttr(%self) {name = "scale"} : (!ts.class<"__torch__.M">) -> !ts.float
    %table = prim.GetAttr(%self) {name = "table"} : (!ts.class<"__torch__.M">) -> !ts.tensor
    %z = ts.node "aten::mul"(%y, %w) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %z2 = ts.node "aten::mul"(%z, %scale) : (!ts.tensor, !ts.float) -> !ts.tensor
    %z3 = ts.node "aten::add"(%z2, %table, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    %total = prim.GetAttr(%self) {name = "total"} : (!ts.class<"__torch__.M">) -> !ts.tensor
    %new = ts.node "aten::add"(%total, %z3, %one) : (!ts.tensor, !ts.tensor, !ts.int) -> !ts.tensor
    prim.SetAttr(%self, %new) {name = "total"} : (!ts.class<"__torch__.M">, !ts.tensor) -> ()
    prim.Return(%z3) : (!ts.tensor) -> ()
  }
  ts.method @calls_broken {
  ^bb0(%self: !ts.class<"__torch__.M">, %x: !ts.tensor<Float(2, device=cpu)>):
    %inner = prim.GetAttr(%self) {name = "inner"} : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Inner">
    %y = prim.CallMethod(%inner, %x) {name = "broken"} : (!ts.class<"__torch__.Inner">, !ts.tensor<Float(2, device=cpu)>) -> !ts.tensor
    prim.Return(%y) : (!ts.tensor) -> ()
  }
}
"""


def test_module_state_attributes_and_buffer_assignment() -> None:
    program = lower(parse(MODULE_IR))
    ins, outs = signature(program)
    assert ins == ["parameter:p_w->w", "buffer:b_total->total", "constant_tensor:c_table->table", "user_input:x"]
    assert outs == ["buffer_mutation->total", "user_output"]
    # The int attribute of the submodule and the float attribute fold into the arguments; the int64
    # constant is cast to float32 explicitly (no implicit promotion in Export IR).
    names = op_names(program)
    assert names.count("aten.mul.Scalar") == 2 and names.count("aten._to_copy.default") == 1
    runner = ProgramRunner(program)
    x = np.array([1.0, -1.0], np.float32)
    expected = x * 2 * np.array([1.0, 2.0], np.float32) * 3.0 + np.array([1, 2])
    for calls in (1, 2):
        (out,) = runner(x)
        np.testing.assert_allclose(out, expected)
        np.testing.assert_allclose(runner.state["total"], calls * expected)


def test_errors_inside_calls_name_the_call() -> None:
    with pytest.raises(ExirDiagnostic) as info:
        lower(parse(MODULE_IR), entry="calls_broken")
    message = str(info.value)
    assert "'mylib::nope' (%y) in @broken: unknown operator mylib::nope" in message
    assert message.endswith("(inlined from 'prim::CallMethod' (%y) in @calls_broken)")


SCALAR_IR = """
ts.method @f {
^bb0(%x: !ts.tensor, %n: !ts.int):
  %y = ts.node "aten::mul"(%x, %n) : (!ts.tensor, !ts.int) -> !ts.tensor
  prim.Return(%y) : (!ts.tensor) -> ()
}
ts.method @g {
^bb0(%x: !ts.tensor):
  prim.Return(%x) : (!ts.tensor) -> ()
}
"""


@pytest.mark.parametrize(
    "options,message",
    [
        ({"entry": "f", "input_types": "x=f32[2]"},
         "input 'n' of @f is an int; Export IR specializes non-tensor inputs: give its value with the pass option "
         'input-values="n=..."'),
        ({"entry": "f", "input_types": "x=f99[2]"}, "torchscript-to-exir option input-types: cannot read 'f99[2]'"),
        ({"entry": "f", "input_types": "x=f32[2];y=f32[2]", "input_values": "n=1"},
         "input-types/input-values name y, which is not an input of @f (x, n)"),
        ({"entry": "f", "input_types": "x=f32[2]", "input_values": "n=tru"}, "input-values: 'tru' for 'n' is not"),
        ({"entry": "f", "input_types": "x=f32[s0]", "ranges": "s0=2..4"}, "ranges: expected s0=[MIN, MAX]"),
        ({"entry": "h"}, "torchscript-to-exir: no ts.method @h to lower (functions: f, g)"),
        ({}, "several functions (f, g); choose the entry with the pass option entry=NAME"),
    ],
)
def test_option_and_entry_errors(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ExirDiagnostic) as info:
        lower(parse(SCALAR_IR), **options)
    assert message in str(info.value)


def test_scalar_input_is_specialized() -> None:
    program = lower(parse(SCALAR_IR), entry="f", input_types="x=f32[2]", input_values="n=3")
    assert op_names(program) == ["aten.mul.Scalar", "exir.output"]
    (out,) = ProgramRunner(program)(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(out, [3.0, 6.0])


COND_CONSTANTS_IR = """
ts.method @f {
^bb0(%x: !ts.tensor<Float(3, device=cpu)>):
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %none = prim.Constant() : () -> !ts.none
  %s = ts.node "aten::sum"(%x, %none) : (!ts.tensor<Float(3, device=cpu)>, !ts.none) -> !ts.tensor
  %g = ts.node "aten::gt"(%s, %zero) : (!ts.tensor, !ts.int) -> !ts.tensor
  %c = ts.node "aten::Bool"(%g) : (!ts.tensor) -> !ts.bool
  %k, %done, %r = prim.If(%c) ({
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %true = prim.Constant() {value = true} : () -> !ts.bool
    %two = prim.Constant() {value = 2.0 : f64} : () -> !ts.float
    %early = ts.node "aten::mul"(%x, %two) : (!ts.tensor<Float(3, device=cpu)>, !ts.float) -> !ts.tensor
    prim.Return(%one, %true, %early) : (!ts.int, !ts.bool, !ts.tensor) -> ()
  }, {
    %half = prim.Constant() {value = 0.5 : f64} : () -> !ts.float
    %false = prim.Constant() {value = false} : () -> !ts.bool
    %u = prim.Uninitialized() : () -> !ts.tensor
    prim.Return(%half, %false, %u) : (!ts.float, !ts.bool, !ts.tensor) -> ()
  }) : (!ts.bool) -> (!ts.float, !ts.bool, !ts.tensor)
  %out = prim.If(%done) ({
    prim.Return(%r) : (!ts.tensor) -> ()
  }, {
    %y = ts.node "aten::mul"(%x, %k) : (!ts.tensor<Float(3, device=cpu)>, !ts.float) -> !ts.tensor
    prim.Return(%y) : (!ts.tensor) -> ()
  }) : (!ts.bool) -> !ts.tensor
  prim.Return(%out) : (!ts.tensor) -> ()
}
"""


def test_cond_results_that_are_numbers_or_uninitialized() -> None:
    """What exit-transform makes of an early return under a tensor condition: flags, numbers, placeholders."""
    program = lower(parse(COND_CONSTANTS_IR))
    conds = [op for op in program.walk() if isinstance(op, CondOp)]
    assert len(conds) == 2
    runner = ProgramRunner(program)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(runner(x)[0], x * 2.0)
    np.testing.assert_allclose(runner(-x)[0], -x * 0.5)


LOOP_IR = """
ts.method @f {
^bb0(%x: !ts.tensor):
  %true = prim.Constant() {value = true} : () -> !ts.bool
  %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %n = ts.node "aten::size"(%x, %zero) : (!ts.tensor, !ts.int) -> !ts.int
  %r = prim.Loop(%n, %true, %x) ({
  ^bb0(%i: !ts.int, %acc: !ts.tensor):
    %y = ts.node "aten::mul"(%acc, %acc) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Return(%true, %y) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
"""


@pytest.mark.parametrize(
    "options,message",
    [
        ({"input_types": "x=f32[s0]"}, "the loop's trip count depends on a symbolic size"),
        ({"input_types": "x=f32[5]", "max_unroll": 4}, "the loop runs more than 4 iterations; raise the pass option"),
    ],
)
def test_loops_that_do_not_unroll(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ExirDiagnostic, match=re.escape(message)):
        lower(parse(LOOP_IR), **options)


def test_loop_unrolls_up_to_the_limit() -> None:
    program = lower(parse(LOOP_IR), input_types="x=f32[4]", max_unroll=4)
    assert op_names(program).count("aten.mul.Tensor") == 4
    (out,) = ProgramRunner(program)(np.full(4, 1.5, np.float32))
    np.testing.assert_allclose(out, np.full(4, 1.5**16, np.float32), rtol=1e-6)



NESTED_LOOP_IR = """
ts.method @f {
^bb0(%x: !ts.tensor):
  %true = prim.Constant() {value = true} : () -> !ts.bool
  %n = prim.Constant() {value = 10 : i64} : () -> !ts.int
  %r = prim.Loop(%n, %true, %x) ({
  ^bb0(%i: !ts.int, %acc: !ts.tensor):
    %inner = prim.Loop(%n, %true, %acc) ({
    ^bb0(%j: !ts.int, %a: !ts.tensor):
      %y = ts.node "aten::mul"(%a, %a) : (!ts.tensor, !ts.tensor) -> !ts.tensor
      prim.Return(%true, %y) : (!ts.bool, !ts.tensor) -> ()
    }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
    prim.Return(%true, %inner) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
"""


def test_nested_loops_are_bounded_by_their_product(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each loop is within max-unroll, but nested trip counts multiply: the total is bounded too."""
    from xdsl_exir.transforms.torchscript_to_exir import prims

    program = lower(parse(NESTED_LOOP_IR), input_types="x=f32[2]", max_unroll=10)
    assert op_names(program).count("aten.mul.Tensor") == 100
    monkeypatch.setattr(prims, "UNROLL_BUDGET", 50)
    with pytest.raises(ExirDiagnostic, match="unroll to more than 50 iterations in all"):
        lower(parse(NESTED_LOOP_IR), input_types="x=f32[2]", max_unroll=10)


def test_max_unroll_has_a_ceiling() -> None:
    with pytest.raises(ValueError, match="max-unroll must be between 0 and"):
        TorchScriptToExirPass(max_unroll=10**9)


INPLACE_IR = """
ts.method @f {
^bb0(%x: !ts.tensor<Float(2, 3, device=cpu)>):
  %two = prim.Constant() {value = 2 : i64} : () -> !ts.int
  %p = ts.node "aten::pow_"(%x, %two) : (!ts.tensor<Float(2, 3, device=cpu)>, !ts.int) -> !ts.tensor
  %q = ts.node "aten::pow_"(%p, %x) : (!ts.tensor, !ts.tensor<Float(2, 3, device=cpu)>) -> !ts.tensor
  %z = ts.node "aten::zero_"(%q) : (!ts.tensor) -> !ts.tensor
  prim.Return(%p) : (!ts.tensor) -> ()
}
"""


def test_inplace_ops_lower_to_torchs_functional_variant() -> None:
    """`x.pow_(2)` is pow_.Scalar, whose functional form is pow.Tensor_Scalar (the lowering used to
    guess pow.Scalar from the overload name) and pow_.Tensor's is pow.Tensor_Tensor (it guessed
    pow.Tensor, which does not exist); `zero_`'s variant, aten.zero, outside the aten dialect, is
    spelled fill.Scalar(0) (that table entry used to fail: its arguments were bound to fill's schema)."""
    program = lower(parse(INPLACE_IR), entry="f")
    names = op_names(program)
    assert "aten.pow.Tensor_Scalar" in names and "aten.pow.Tensor_Tensor" in names
    assert "aten.fill.Scalar" in names
    x = np.array([[1.0, 2.0, 3.0], [0.5, 1.5, 2.5]], np.float32)
    (out,) = ProgramRunner(program)(x.copy())
    np.testing.assert_array_equal(out, np.zeros_like(x))  # %p aliases %x, which zero_ cleared
