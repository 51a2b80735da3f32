"""The graph compiler drops each intermediate value after its last use.

A run that held every intermediate until it returned made the allocator hand
the whole footprint back to the system after each run and fault it in again on
the next; dropping dead values lets numpy reuse freed, cached blocks. These
tests watch the values through weak references from a profiler's `wrap_op`.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np
from pass_harness import parse
from xdsl.ir import Operation

from xdsl_exir.interpreters.compiler import Prepared
from xdsl_exir.interpreters.program import ProgramRunner

T = "!exir.tensor"
F = f"{T}<[4, 8], float32>"

CHAIN = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "out">, <user_output "kept">] {{
    exir.graph @forward(%x: {F}) -> ({F}, {F}) {{
      %a = exir.call_function "aten.relu.default"(%x) : ({F}) -> {F}
      %b = exir.call_function "aten.mul.Scalar"(%a, 2.0) : ({F}) -> {F}
      %kept = exir.call_function "aten.neg.default"(%b) : ({F}) -> {F}
      %unused = exir.call_function "aten.exp.default"(%b) : ({F}) -> {F}
      %c = exir.call_function "aten.add.Tensor"(%b, %x) : ({F}, {F}) -> {F}
      %d = exir.call_function "aten.sub.Tensor"(%c, %kept) : ({F}, {F}) -> {F}
      %e = exir.call_function "aten.abs.default"(%d) : ({F}) -> {F}
      exir.output %e, %kept : {F}, {F}
    }}
  }}
}}
"""


def test_dead_values_are_freed_during_the_run() -> None:
    refs: dict[str, Any] = {}
    alive_at_last_step: dict[str, bool] = {}

    def wrap(prepared: Prepared, op: Operation) -> Prepared:
        name = op.results[0].name_hint or "?"

        def run(*ops: Any) -> tuple[Any, ...]:
            if name == "e":
                alive_at_last_step.update({k: r() is not None for k, r in refs.items()})
            out = prepared(*ops)
            refs[name] = weakref.ref(out[0])
            return out

        return run

    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    e, kept = ProgramRunner(parse(CHAIN), wrap_op=wrap).run([x])
    b = np.maximum(x, 0) * 2
    np.testing.assert_array_equal(e, np.abs(b + x + b))
    np.testing.assert_array_equal(kept, -b)
    # a, b, c and the unused exp are dead before the last op runs; the kept output and the
    # last op's operand are not
    assert alive_at_last_step == {"a": False, "b": False, "kept": True, "unused": False, "c": False, "d": True}


def test_repeated_runs_agree() -> None:
    runner = ProgramRunner(parse(CHAIN))
    x = np.linspace(-2, 2, 32, dtype=np.float32).reshape(4, 8)
    first = [o.copy() for o in runner.run([x])]
    for _ in range(3):
        for got, want in zip(runner.run([x]), first):
            np.testing.assert_array_equal(got, want)
