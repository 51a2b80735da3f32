"""The graph compiler computes once what depends on no input.

Ops whose operands all come from other such ops (a causal mask built from
`arange`, `full` and `where`, as torch.export writes `triu`) run when the graph
is compiled; their results become read-only constants of the generated code. A
random op, a value the program returns, a value a view or an in-place op takes,
still runs at every call.
"""

from __future__ import annotations

import numpy as np
import pytest
from pass_harness import parse

from xdsl_exir.interpreters.program import ProgramRunner

T = "!exir.tensor"
X = f"{T}<[1, 2, 4, 4], float32>"
M = f"{T}<[4, 4], float32>"
I = f"{T}<[4], int64>"

MASKED = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "out">] {{
    exir.graph @forward(%x: {X}) -> {X} {{
      %full = aten.full.default([4, 4], -inf, pin_memory = false) : () -> {M}
      %a = aten.arange.start_step(0, 4, pin_memory = false) : () -> {I}
      %row = aten.unsqueeze.default(%a, -2) : ({I}) -> {T}<[1, 4], int64>
      %b = aten.arange.start_step(0, 4, pin_memory = false) : () -> {I}
      %col = aten.unsqueeze.default(%b, -1) : ({I}) -> {T}<[4, 1], int64>
      %sub = aten.sub.Tensor(%row, %col) : ({T}<[1, 4], int64>, {T}<[4, 1], int64>) -> {T}<[4, 4], int64>
      %ge = aten.ge.Scalar(%sub, 1) : ({T}<[4, 4], int64>) -> {T}<[4, 4], bool>
      %zero = aten.scalar_tensor.default(0, dtype = torch.float32) : () -> {T}<[], float32>
      %mask = aten.where.self(%ge, %full, %zero) : ({T}<[4, 4], bool>, {M}, {T}<[], float32>) -> {M}
      %out = aten.add.Tensor(%x, %mask) : ({X}, {M}) -> {X}
      exir.output %out : {X}
    }}
  }}
}}
"""


def _causal(n: int) -> np.ndarray:
    return np.where(np.arange(n)[None, :] - np.arange(n)[:, None] >= 1, -np.inf, 0).astype(np.float32)


def test_a_causal_mask_is_computed_once() -> None:
    runner = ProgramRunner(parse(MASKED))
    body = runner.graph.body
    assert len(body.steps) == 1  # only the add runs per call
    (mask,) = body.constants.values()
    np.testing.assert_array_equal(mask, _causal(4))
    assert not mask.flags.writeable
    x = np.random.default_rng(0).standard_normal((1, 2, 4, 4)).astype(np.float32)
    for _ in range(2):
        (out,) = runner.run([x])
        np.testing.assert_array_equal(out, x + _causal(4))
        assert out.flags.writeable


def _program(body: str, result: str, out_type: str, x_type: str = M) -> str:
    return f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "out">] {{
    exir.graph @forward(%x: {x_type}) -> {out_type} {{
{body}
      exir.output {result} : {out_type}
    }}
  }}
}}
"""


def _steps(runner: ProgramRunner) -> tuple[int, int]:
    body = runner.graph.body
    return len(body.steps), len(body.constants)


def test_random_ops_run_at_every_call() -> None:
    runner = ProgramRunner(
        parse(
            _program(
                f"""      %r = aten.rand.default([4, 4], pin_memory = false) : () -> {M}
      %out = aten.add.Tensor(%x, %r) : ({M}, {M}) -> {M}""",
                "%out",
                M,
            )
        )
    )
    assert _steps(runner) == (2, 0)
    x = np.zeros((4, 4), np.float32)
    assert not np.array_equal(runner.run([x])[0], runner.run([x])[0])


@pytest.mark.parametrize(
    "body",
    [
        # returned as it is
        f"      %out = aten.full.default([4, 4], 2.0, pin_memory = false) : () -> {M}",
        # returned through a view
        f"""      %f = aten.full.default([16], 2.0, pin_memory = false) : () -> {T}<[16], float32>
      %out = aten.view.default(%f, [4, 4]) : ({T}<[16], float32>) -> {M}""",
    ],
)
def test_a_returned_value_is_fresh_at_every_call(body: str) -> None:
    runner = ProgramRunner(parse(_program(body, "%out", M)))
    assert _steps(runner)[1] == 0
    x = np.zeros((4, 4), np.float32)
    first = runner.run([x])[0]
    first[...] = 7  # the caller owns what it gets back
    np.testing.assert_array_equal(runner.run([x])[0], np.full((4, 4), 2.0, np.float32))


def test_a_value_written_in_place_is_made_at_every_call() -> None:
    runner = ProgramRunner(
        parse(
            _program(
                f"""      %f = aten.full.default([4, 4], 1.0, pin_memory = false) : () -> {M}
      %w = aten.add_.Tensor(%f, %x) : ({M}, {M}) -> {M}
      %out = aten.mul.Tensor(%f, 2.0) : ({M}) -> {M}""",
                "%out",
                M,
            )
        )
    )
    assert _steps(runner) == (3, 0)
    x = np.ones((4, 4), np.float32)
    for _ in range(3):
        np.testing.assert_array_equal(runner.run([x])[0], np.full((4, 4), 4.0, np.float32))


def test_a_failing_constant_op_fails_at_run_time_located() -> None:
    from xdsl_exir.utils.diagnostics import InterpreterError

    runner = ProgramRunner(
        parse(
            _program(
                f"""      %f = aten.full.default([4, 4], 1.0, pin_memory = false) : () -> {M}
      %bad = aten.view.default(%f, [3, 5]) : ({M}) -> {T}<[3, 5], float32>
      %out = aten.sum.default(%bad) : ({T}<[3, 5], float32>) -> {T}<[], float32>""",
                "%out",
                f"{T}<[], float32>",
            )
        )
    )
    with pytest.raises(InterpreterError) as info:
        runner.run([np.zeros((4, 4), np.float32)])
    assert info.value.op is not None and info.value.op.name == "aten.view.default"


def test_what_exceeds_the_budget_runs_per_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The memory held for hoisted values is bounded: past the budget, ops run per call."""
    from xdsl_exir.interpreters import compiler

    monkeypatch.setattr(compiler, "_HOISTED_MAX_BYTES", 100)  # the 4x4 float32 `full` alone takes 64
    runner = ProgramRunner(parse(MASKED))
    steps, constants = _steps(runner)
    assert steps > 1 and constants >= 1
    held = sum(v.nbytes for v in runner.graph.body.constants.values() if isinstance(v, np.ndarray))
    assert held <= 100
    x = np.random.default_rng(1).standard_normal((1, 2, 4, 4)).astype(np.float32)
    np.testing.assert_array_equal(runner.run([x])[0], x + _causal(4))
