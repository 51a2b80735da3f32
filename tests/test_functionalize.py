"""`functionalize`: in-place / out= ops become functional; mutations become signature outputs."""

from __future__ import annotations

import numpy as np
import pytest
from pass_harness import (
    ZOO,
    apply,
    assert_preserves,
    assert_same_outputs,
    load_zoo,
    parse,
    random_flat_inputs,
    zoo_models,
)
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.dialects.exir import OutputKind, ProgramOp
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.utils.op_registry import functional_variant, lookup

MODELS = [m["name"] for m in zoo_models()]


def _program(module: object) -> ProgramOp:
    return next(op for op in module.walk() if isinstance(op, ProgramOp))  # pyright: ignore[reportAttributeAccessIssue] - a ModuleOp, typed object so tests can pass any IR


def _mutable_ops(module: object) -> list[str]:
    out = []
    for op in module.walk():  # pyright: ignore[reportAttributeAccessIssue] - a ModuleOp, typed object so tests can pass any IR
        entry = lookup(op.name) if op.name.startswith("aten.") else None
        if entry is not None and entry.schema.is_mutable:
            out.append(op.name)
    return out


def test_functional_variants_come_from_the_schema_list() -> None:
    def variant(name: str) -> str | None:
        return functional_variant(name)

    assert variant("aten.add_.Tensor") == "aten.add.Tensor"
    assert variant("aten.copy_.default") == "aten.copy.default"
    assert variant("aten.relu_.default") == "aten.relu.default"
    assert variant("aten.add.out") == "aten.add.Tensor"
    assert variant("aten.index_put_.default") == "aten.index_put.default"


@pytest.mark.parametrize("name", MODELS)
def test_zoo_results_unchanged(name: str) -> None:
    after = assert_preserves(load_zoo(name, "train"), "functionalize,exir-dce")
    assert _mutable_ops(after) == []


def test_buffer_mutation_matches_torch_export_core_ir() -> None:
    train = load_zoo("buffer_mutation", "train")
    core = load_zoo("buffer_mutation", "core")
    assert _mutable_ops(train)
    after = apply(train, "functionalize,exir-dce,verify-export-ir")
    assert _mutable_ops(after) == []
    sig = [(s.output_kind, s.target_name) for s in _program(after).outputs.data]
    want = [(s.output_kind, s.target_name) for s in _program(core).outputs.data]
    assert sig == want
    assert [k for k, _ in sig[:3]] == [OutputKind.buffer_mutation] * 3
    # Two calls: the state is updated through the mutation outputs exactly as in place.
    before_runner, after_runner = ProgramRunner(train), ProgramRunner(after)
    xs = random_flat_inputs(train, 0)
    for _ in range(2):
        assert_same_outputs(after_runner.run(xs), before_runner.run(xs))
    for key, value in before_runner.state.items():
        np.testing.assert_allclose(after_runner.state[key], value, rtol=1e-6, err_msg=key)
    # And against torch eager: the second call sees the state the first one left.
    zoo = ZOO / "buffer_mutation"
    runner = ProgramRunner(after)
    x = np.load(f"{zoo}.inputs.npz")["arg0"]
    state = np.load(f"{zoo}.state_after.npz")
    for name in ("expected", "expected_call2"):
        want = np.load(f"{zoo}.{name}.npz")
        got = runner.run([x])
        for i, g in enumerate(got):
            np.testing.assert_allclose(g, want[f"out{i}"], rtol=1e-5, atol=1e-6, err_msg=name)
        if name == "expected":  # the state torch had after one call
            for key in state:
                np.testing.assert_allclose(runner.state[key], state[key], rtol=1e-5, atol=1e-6, err_msg=key)


T = "!exir.tensor<[3, 4], float32>"
R = "!exir.tensor<[4], float32>"
C = "!exir.tensor<[3], float32>"

THROUGH_VIEWS = f"""
builtin.module {{
  exir.program inputs [<buffer "b_acc" -> "acc">, <user_input "x">] outputs [<user_output "out">] {{
    exir.state @acc : {T} = dense<1.0> : tensor<3x4xf32>
    exir.graph @forward(%b_acc: {T}, %x: {T}) -> ({T}) {{
      %row = aten.select.int(%x, 0, 1) : ({T}) -> {R}
      %r1 = aten.mul_.Tensor(%row, 2.0) : ({R}) -> {R}
      %tr = aten.t.default(%b_acc) : ({T}) -> !exir.tensor<[4, 3], float32>
      %col = aten.select.int(%tr, 0, 2) : (!exir.tensor<[4, 3], float32>) -> {C}
      %r2 = aten.add_.Tensor(%col, 1.0) : ({C}) -> {C}
      %sl = aten.slice.Tensor(%x, 1, 0, 2) : ({T}) -> !exir.tensor<[3, 2], float32>
      %r3 = aten.fill_.Scalar(%sl, 5.0) : (!exir.tensor<[3, 2], float32>) -> !exir.tensor<[3, 2], float32>
      %s = aten.add.Tensor(%x, %b_acc) : ({T}, {T}) -> {T}
      %out = aten.add.Tensor(%s, %row) : ({T}, {R}) -> {T}
      exir.output %out : {T}
    }}
  }}
}}
"""


def test_writes_through_views_are_scattered_into_the_base() -> None:
    before = parse(THROUGH_VIEWS)
    after = assert_preserves(before, "functionalize,exir-dce,verify-export-ir")
    assert _mutable_ops(after) == []
    names = {op.name for op in after.walk()}
    assert {"aten.select_scatter.default", "aten.slice_scatter.default"} <= names
    kinds = [(s.output_kind, s.target_name) for s in _program(after).outputs.data]
    assert kinds == [
        (OutputKind.buffer_mutation, "acc"),
        (OutputKind.user_input_mutation, "x"),
        (OutputKind.user_output, None),
    ]
    # The user input is written back into the caller's array, and the buffer updated, as in place.
    xs = random_flat_inputs(before, 3)
    r0, r1 = ProgramRunner(before), ProgramRunner(after)
    x0, x1 = xs[0].copy(), xs[0].copy()
    for _ in range(2):
        assert_same_outputs(r1.run([x1]), r0.run([x0]))
    np.testing.assert_allclose(x1, x0)
    np.testing.assert_allclose(r1.state["acc"], r0.state["acc"])


def test_unsupported_write_is_a_located_diagnostic() -> None:
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "out">] {{
    exir.graph @forward(%x: {T}) -> ({T}) {{
      %e = aten.expand.default(%x, [3, 4]) : ({T}) -> {T}
      %r = aten.add_.Tensor(%e, 1.0) : ({T}) -> {T}
      exir.output %x : {T}
    }}
  }}
}}
"""
    with pytest.raises(DiagnosticException, match=r"\[functionalize\].*aten\.expand\.default"):
        apply(parse(text), "functionalize")


def test_idempotent_on_functional_programs() -> None:
    core = load_zoo("cnn_bn", "core")
    once = apply(core, "functionalize")
    assert str(once) == str(core)


A23 = "!exir.tensor<[2, 3], float32>"
A32 = "!exir.tensor<[3, 2], float32>"
CONTIGUOUS = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "out">, <user_output "col">] {{
    exir.graph @forward(%x: {A23}) -> ({A23}, {A32}) {{
      %tr = aten.t.default(%x) : ({A23}) -> {A32}
      %c = aten.contiguous.default(%tr) : ({A32}) -> {A32}
      %w = aten.fill_.Scalar(%c, 5.0) : ({A32}) -> {A32}
      %row = aten.select.int(%x, 0, 0) : ({A23}) -> {C}
      %c2 = aten.contiguous.default(%row) : ({C}) -> {C}
      %w2 = aten.fill_.Scalar(%c2, 7.0) : ({C}) -> {C}
      %out = aten.clone.default(%x) : ({A23}) -> {A23}
      %col = aten.clone.default(%c) : ({A32}) -> {A32}
      exir.output %out, %col : {A23}, {A32}
    }}
  }}
}}
"""


def test_contiguous_aliases_only_a_contiguous_input() -> None:
    """
    torch's `contiguous` is its input when that is contiguous and a copy
    otherwise: a write through `x[0].contiguous()` reaches `x`, one through
    `x.t().contiguous()` does not (the TorchScript lowering treated both as
    views; this pass refused both).
    """
    before = parse(CONTIGUOUS)
    after = assert_preserves(before, "functionalize,exir-dce,verify-export-ir")
    assert _mutable_ops(after) == []
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    out, col = ProgramRunner(after).run([x.copy()])[-2:]
    want_x = x.copy()
    want_x[0] = 7.0  # only the row's write reaches x
    np.testing.assert_array_equal(out, want_x)
    np.testing.assert_array_equal(col, np.full((3, 2), 5.0, np.float32))
    torch = pytest.importorskip("torch")
    t = torch.from_numpy(x.copy())
    c = t.t().contiguous()
    c.fill_(5.0)
    t[0].contiguous().fill_(7.0)
    np.testing.assert_array_equal(out, t.numpy())
    np.testing.assert_array_equal(col, c.numpy())


def test_mutated_input_with_a_dim_order_returns_in_its_layout() -> None:
    # The in-place op's result is typed contiguous; the value written back takes the input's
    # layout. This used to assign SSAValue.type, a read-only property in xDSL (AttributeError).
    td = "!exir.tensor<[3, 4], float32, dim_order = [1, 0]>"
    text = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "out">] {{
    exir.graph @forward(%x: {td}) -> ({T}) {{
      %r = aten.add_.Tensor(%x, 1.0) : ({td}) -> {T}
      %o = aten.add.Tensor(%r, 1.0) : ({T}) -> {T}
      exir.output %o : {T}
    }}
  }}
}}
"""
    program = _program(apply(parse(text), "functionalize"))
    assert [s.output_kind for s in program.outputs.data] == [OutputKind.user_input_mutation, OutputKind.user_output]
    graph = program.entry
    output = graph.output
    assert output is not None
    assert output.values[0].type == graph.body.block.args[0].type
