"""
`aten_coverage.txt`: every ATen overload a CPU program can contain ends in a
kernel, a decomposition or an explicit refusal, and says so truthfully; and
every overload the interpreter runs reaches core ATen through `to-core-aten`
(a decomposition) or is kept in core as torch keeps it.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Collection
from pathlib import Path
from types import ModuleType

import pytest

from xdsl_exir.interpreters.aten_coverage import read_coverage, status_of
from xdsl_exir.interpreters.exir_functions import builtin_targets
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.decompositions import DECOMPOSED_CORE, KEEP_IN_CORE, NOT_YET, RULES, default_legal_ops
from xdsl_exir.semantics.decompositions.keep import torch_decomposed
from xdsl_exir.semantics.kernels.decomposed import DECOMPOSED
from xdsl_exir.transforms.linalg_lowering import rule_for
from xdsl_exir.utils.op_registry import CORE_IR_EXTRAS, all_operators

SCRIPT = Path(__file__).parents[1] / "scripts" / "gen_aten_coverage.py"
STATUS = re.compile(r"^(kernel|kernel; to-core-aten refuses: \S.*|decomposition|refused: \S.*)$")


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


# ---------------------------------------------------------------------------
# The guard: every kernel reaches core ATen through to-core-aten, or is kept as torch keeps it
# ---------------------------------------------------------------------------


def gaps(rules: Collection[str], keep: Collection[str], not_yet: Collection[str]) -> list[str]:
    """Non-core overloads the interpreter has a kernel for that to-core-aten could neither keep nor
    decompose, given the decomposition table `rules` and the lists `keep` and `not_yet`."""
    core = {n for n, e in all_operators().items() if "core" in e.tags} - DECOMPOSED_CORE
    return sorted(
        n for n in read_coverage()
        if (aten_kernels.has_kernel(n) or n in builtin_targets())
        and n not in core and n not in CORE_IR_EXTRAS
        and n not in rules and n not in keep and n not in not_yet
    )


def test_every_kernel_has_a_decomposition_or_is_kept_in_core() -> None:
    """A non-core overload the interpreter runs has a rule in the decompose table, or is on the
    keep-in-core list (torch keeps it too), or is a gap named in NOT_YET with its reason."""
    missing = gaps(RULES, KEEP_IN_CORE, NOT_YET)
    assert not missing, (
        "non-core overloads with a kernel but no decomposition (give a rule in semantics/decompositions/, "
        f"or, if torch keeps them, list them in KEEP_IN_CORE): {missing}"
    )


def test_a_softplus_like_gap_is_caught() -> None:
    """Without its rule, `softplus` (a kernel, not core, not kept by torch) is reported."""
    assert "aten.softplus.default" in RULES
    assert gaps(set(RULES) - {"aten.softplus.default"}, KEEP_IN_CORE, NOT_YET) == ["aten.softplus.default"]
    assert status_of("aten.softplus.default") == "kernel"


def test_not_yet_lists_only_real_gaps() -> None:
    """Each NOT_YET entry has a kernel and no rule, and torch decomposes it: the list shrinks as
    rules arrive, and its statuses in aten_coverage.txt say that to-core-aten refuses them."""
    torch_rewrites = torch_decomposed()
    for name, reason in NOT_YET.items():
        assert aten_kernels.has_kernel(name), name
        assert name not in RULES, f"{name} has a rule now: remove it from NOT_YET"
        assert name in torch_rewrites, f"{name}: torch keeps it, so it belongs on KEEP_IN_CORE"
        assert status_of(name) == f"kernel; to-core-aten refuses: {reason}"


def test_keep_in_core_matches_torch() -> None:
    """Every kept overload is one torch's run_decompositions() keeps too: not core-tagged, not in
    its decomposition table, not rewritten by a composite kernel."""
    torch_rewrites = torch_decomposed()
    for name, reason in KEEP_IN_CORE.items():
        assert name in all_operators(), name
        assert "core" not in all_operators()[name].tags, f"{name} is core-tagged"
        assert name not in torch_rewrites, f"torch decomposes {name} ({torch_rewrites[name]})"
        # A rule runs only where the linalg lowering has none of its own (it decomposes such core
        # operators first): to-core-aten keeps the overload.
        assert name not in RULES or rule_for(name) is None, f"{name} has a rule, which neither to-core-aten nor the lowering runs"
        assert reason
    assert set(KEEP_IN_CORE) <= default_legal_ops()
    assert not set(KEEP_IN_CORE) & CORE_IR_EXTRAS, "listed twice: keep one list of each overload"
    for name in CORE_IR_EXTRAS - {"aten.sym_size.default", "aten.sym_stride.default"}:  # SymInt queries, not dispatched
        assert name not in torch_rewrites, f"CORE_IR_EXTRAS keeps {name}, which torch decomposes"


CORE_REWRITTEN_BEYOND_TORCH = {
    "aten.copy.default": "functionalized `copy_` becomes _to_copy/expand/clone, core ops that say the same",
}
"""Core-tagged overloads the decompose table rewrites although torch's core IR keeps them, and why."""


def test_decomposed_core_overloads_are_torchs() -> None:
    """The core-tagged overloads the decompose table still rewrites are ones torch rewrites too,
    except those listed with their reason."""
    assert DECOMPOSED_CORE - set(torch_decomposed()) == set(CORE_REWRITTEN_BEYOND_TORCH)


def test_torch_decompositions_file_is_current() -> None:
    pytest.importorskip("torch")
    spec = importlib.util.spec_from_file_location(
        "gen_torch_decompositions", Path(__file__).parents[1] / "scripts" / "gen_torch_decompositions.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.render() == module.OUT.read_text()
