"""
`scripts/op_card.py`: every `file:line` it prints points at the definition it names.

Two overloads cover its kinds of facts: `aten.hardswish.default` has an inference
rule, a family table's kernel (a factory's closure, registered by its short
name), a decomposition rule and a lowering rule; `CALLED`, an overload whose
decomposition is a `CALLS` entry (a closure registered by its full name), has no
lowering.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("op_card", ROOT / "scripts" / "op_card.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["op_card"] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


op_card = _load()

CALLED = next(
    n
    for n, rule in sorted(op_card.decompositions.RULES.items())
    if "<locals>" in rule.__qualname__
    and op_card.linalg_lowering.rule_for(n) is None
    and "registered at" in op_card.decomposition_facts(n)[0].note
)
"""
The first overload (by name) decomposed by a factory's closure registered under its quoted
name, and not lowered: a `CALLS` entry today.
"""


def _line(where: str) -> str:
    path, _, line = where.rpartition(":")
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    assert 1 <= int(line) <= len(lines), where
    return lines[int(line) - 1]


def _definition(where: str, qualname: str) -> None:
    """`where` is the first line of the function `qualname`: its decorator or its `def`."""
    text = _line(where).strip()
    assert text.startswith(("def ", "@")), (where, text)
    if not text.startswith("@"):
        assert re.match(rf"def {re.escape(qualname.rpartition('.')[2])}\(", text), (where, text)


@pytest.mark.parametrize("name", ["aten.hardswish.default", CALLED])
def test_every_location_points_at_its_definition(name: str) -> None:
    facts = op_card.card(name)
    short = name.split(".")[1]
    for fact in facts:
        if not fact.where:
            continue
        text = _line(fact.where)
        if fact.what == "schema":
            assert text.startswith(fact.note) and text.startswith(f"aten::{short}"), (fact, text)
        elif fact.what in ("inference", "kernel", "decomposition", "lowering"):
            qualname = fact.note.split(",")[0]
            _definition(fact.where, qualname)
            registered = re.search(r"registered at (\S+:\d+)", fact.note)
            if registered:
                assert f'"{name}"' in _line(registered.group(1)) or f'"{short}"' in _line(registered.group(1)), fact
        elif fact.what in ("aten dialect", "coverage"):
            assert text.split()[0] == name, (fact, text)
        else:  # a test line, a keep-in-core entry: the line quotes the overload (or its name within aten)
            assert name.partition(".")[2] in text, (fact, text)


def test_hardswish_card_names_each_piece() -> None:
    facts = {f.what: f for f in op_card.card("aten.hardswish.default")}
    for what in ("schema", "aten dialect", "inference", "kernel", "decomposition", "coverage", "lowering"):
        assert facts[what].where, f"no location for the {what}"
    assert "registered at" in facts["kernel"].note  # the unary table's entry, not only its factory
    assert facts["coverage"].note == "kernel"
    assert any(
        f.what == "test" and f.where.startswith("tests/test_decompositions_golden.py:")
        for f in op_card.card("aten.hardswish.default")
    )


def test_calls_entry_is_located_and_no_lowering_shown() -> None:
    facts = {f.what: f for f in op_card.card(CALLED)}
    assert f'"{CALLED}"' in _line(facts["decomposition"].note.split("registered at ")[1])
    assert facts["lowering"].where == "" and facts["lowering"].note == "none"


def test_keep_in_core_entry_is_located() -> None:
    facts = {f.what: f for f in op_card.card("aten.narrow.Tensor")}
    assert '"narrow.Tensor"' in _line(facts["not decomposed yet"].where)
    assert facts["coverage"].note.startswith("kernel; to-core-aten refuses")


def test_variant_and_unknown_name(capsys: pytest.CaptureFixture[str]) -> None:
    facts = {f.what: f for f in op_card.card("aten.add_.Tensor")}
    assert facts["variant of"].note.startswith("aten.add.Tensor ")
    assert facts["inference"].where == ""
    assert op_card.main(["aten.relu.default", "aten.no_such_op.default"]) == 1
    out, err = capsys.readouterr()
    assert out.startswith("aten.relu.default\n") and "aten.no_such_op.default is not an overload" in err
