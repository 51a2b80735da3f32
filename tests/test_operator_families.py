"""
The four operator trees share one family taxonomy (`docs/architecture.md`, "Operator
families"): an overload's inference rule, kernel, decomposition and lowering rule are
defined in modules of the same family name, and every module of a tree is a family of the
list or one of the tree's named infrastructure modules (no catch-all).
"""

from __future__ import annotations

import inspect
import pkgutil
from collections.abc import Callable, Iterable
from types import ModuleType

from xdsl_exir.semantics import decompositions, inference, kernels
from xdsl_exir.semantics.inference import core as inference_core
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL
from xdsl_exir.transforms import linalg_lowering

FAMILIES = frozenset({
    "backward", "conv_pool", "creation", "distances", "indexing", "lapack", "losses", "matmul", "norms",
    "pointwise", "random", "recurrent", "reductions", "resampling", "scalars", "special", "spectral",
    "statistics", "views",
})  # fmt: skip
"""The families of architecture.md's table."""

INFRASTRUCTURE: dict[ModuleType, frozenset[str]] = {
    inference: frozenset({"core", "renames"}),
    kernels: frozenset({"core", "registry", "dtypes", "derived", "decomposed"}),
    decompositions: frozenset({"core", "renames", "keep", "pattern"}),
    linalg_lowering: frozenset({"core", "state", "scalar", "float64_math", "windows", "columns", "conv_products", "variants", "refusals"}),
}
"""Each tree's modules that are not families, as its `__init__` names them."""


def _rules() -> dict[ModuleType, dict[str, Callable[..., object]]]:
    lowering = {name: linalg_lowering.rule_for(name) for name in linalg_lowering.lowered_overloads()}
    return {
        inference: dict(inference_core.RULES),
        kernels: dict(FUNCTIONAL),
        decompositions: dict(decompositions.RULES),
        linalg_lowering: {name: rule for name, rule in lowering.items() if rule is not None},
    }


def _module_names(package: ModuleType) -> Iterable[str]:
    return (m.name for m in pkgutil.iter_modules(package.__path__))


def _family(package: ModuleType, fn: Callable[..., object]) -> str | None:
    """The family module `fn` is defined in, None for the tree's infrastructure (an alias table's entry)."""
    module = inspect.getmodule(inspect.unwrap(fn))
    assert module is not None
    prefix = package.__name__ + "."
    if not module.__name__.startswith(prefix):
        return None
    name = module.__name__.removeprefix(prefix)
    return None if name in INFRASTRUCTURE[package] else name


def test_every_module_is_a_family_or_named_infrastructure() -> None:
    stray = [
        f"{package.__name__}.{name}"
        for package, infra in INFRASTRUCTURE.items()
        for name in _module_names(package)
        if name not in FAMILIES and name not in infra
    ]
    assert not stray, f"modules that are neither a family of architecture.md's table nor named infrastructure: {stray}"


def test_an_overload_is_in_one_family_in_every_tree() -> None:
    families: dict[str, dict[str, str]] = {}
    for package, rules in _rules().items():
        for name, fn in rules.items():
            family = _family(package, fn)
            if family is not None:
                families.setdefault(name, {})[package.__name__.rpartition(".")[2]] = family
    split = {name: trees for name, trees in families.items() if len(set(trees.values())) > 1}
    assert not split, "overloads whose pieces are in different families (tree: family):\n" + "\n".join(
        f"  {name}: {trees}" for name, trees in sorted(split.items())
    )
    assert len(families) > 900  # the check saw the registries (1,008 overloads when it was written)
