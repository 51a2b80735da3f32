"""
`aten_coverage.txt`: every ATen overload a CPU program can contain ends in a
kernel, a decomposition or an explicit refusal, and says so truthfully.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

from xdsl_exir.interpreters.aten_coverage import read_coverage, status_of
from xdsl_exir.interpreters.aten_kernels.decomposed import DECOMPOSED
from xdsl_exir.transforms.decompositions import RULES
from xdsl_exir.utils.op_registry import all_operators

SCRIPT = Path(__file__).parents[1] / "scripts" / "gen_aten_coverage.py"
STATUS = re.compile(r"^(kernel|decomposition|refused: \S.*)$")


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_aten_coverage", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_entry_ends_in_exactly_one_status() -> None:
    entries = read_coverage()
    assert len(entries) > 1000
    bad = {n: s for n, s in entries.items() if not STATUS.match(s)}
    assert not bad, f"entries without exactly one status: {bad}"
    unknown = [n for n in entries if n not in all_operators()]
    assert not unknown, f"not overloads of torch_schemas.txt: {unknown}"


def test_statuses_are_what_the_code_does() -> None:
    """A kernel or decomposition the file claims exists, and none that exists is missed."""
    wrong = {n: (s, status_of(n)) for n, s in read_coverage().items() if s != status_of(n)}
    assert not wrong, f"stale entries (file, code); run scripts/gen_aten_coverage.py: {wrong}"
    for n, s in read_coverage().items():
        if s == "decomposition":
            assert n in RULES and n in DECOMPOSED


def test_a_missing_status_is_caught() -> None:
    entries = read_coverage("aten.add.Tensor  \naten.diff.default  refused: \n")
    assert not any(STATUS.match(s) for s in entries.values())


def test_the_set_is_torchs() -> None:
    """The file lists exactly the functional CPU/composite overloads of the installed torch."""
    pytest.importorskip("torch")
    names = _script().cpu_overloads()
    assert sorted(read_coverage()) == names
