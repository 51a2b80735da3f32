"""
The `decompose` driver's contract with its rules: a rule that emits ops and
then declines leaves no trace (the ops are erased, no change is counted, so the
fixpoint ends), and rules that keep producing the op they rewrite are a
located error naming it rather than a hang.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pass_harness as ph
import pytest
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import PassFailedException

from xdsl_exir.semantics.decompositions import RULES, Decline, Emitter
from xdsl_exir.semantics.decompositions.pattern import MAX_NESTED_REWRITES
from xdsl_exir.utils.diagnostics import ExirDiagnostic

TEXT = """
exir.graph @g(%x: !exir.tensor<[3, 4], float32>) -> (!exir.tensor<[4, 3], float32>) {
  %t = exir.call_function "torch.ops.aten.t.default"(%x) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[4, 3], float32>
  exir.output %t : !exir.tensor<[4, 3], float32>
}
"""

calls: list[int] = []


def _emit_then_decline(e: Emitter, bound: Mapping[str, Any], op: Operation) -> list[SSAValue]:
    """Emits a chain of ops (one using another), then declines, as a rule finding too late
    that its arguments do not fit would."""
    calls.append(1)
    assert len(calls) < 20, "decompose keeps retrying a rule that declined"  # fail, not hang
    x = bound["self"]
    y = e.v("aten.neg.default", x)
    e.v("aten.abs.default", y)
    raise Decline()


def _reemit_self(e: Emitter, bound: Mapping[str, Any], op: Operation) -> list[SSAValue]:
    """A broken rule: rewrites `t` to a new `t` of the same input."""
    return [e.v("aten.t.default", bound["self"])]


def test_emit_then_decline_leaves_the_ir_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULES, "aten.t.default", _emit_then_decline)
    calls.clear()
    before = ph.parse(TEXT)
    text_before = str(before)
    after = ph.apply(before, "decompose")
    assert str(after) == text_before
    assert not any(op.name in ("aten.neg.default", "aten.abs.default") for op in after.walk())
    assert 1 <= len(calls) <= 2  # tried once per walk, not forever


def test_to_core_aten_refuses_the_declined_op_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULES, "aten.t.default", _emit_then_decline)
    calls.clear()
    with pytest.raises(PassFailedException, match=r"'aten\.t\.default' is not a core ATen operator and its "
                       "decomposition does not apply"):  # fmt: skip
        ph.apply(ph.parse(TEXT), "to-core-aten")
    assert len(calls) <= 2


def test_a_rule_cycle_is_a_located_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULES, "aten.t.default", _reemit_self)
    with pytest.raises((ExirDiagnostic, PassFailedException), match=rf"aten\.t\.default is still being "
                       rf"rewritten after {MAX_NESTED_REWRITES} nested decompositions"):  # fmt: skip
        ph.apply(ph.parse(TEXT), "decompose")


def test_the_real_rule_still_applies() -> None:
    after = ph.apply(ph.parse(TEXT), "decompose")
    assert any(op.name == "aten.permute.default" for op in after.walk())
