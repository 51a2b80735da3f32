"""
Rules that lower core ATen ops to upstream MLIR dialects (linalg on tensors).

One rule per overload, keyed by the full overload name (`aten.add.Tensor`), in
modules by family: `pointwise`, `matmul`, `conv_pool`, `reductions`, `views`,
`creation`, `indexing`, `resampling`, `distances`, `scalars`, `random`, `norms` (the
families of the inference, kernel and decomposition trees); the rest is
infrastructure: `core` (the helpers families share: reshapes, gathers, reduction
builders; no family imports another), `state` (the lowering state), `scalar`
(scalar bodies), `float64_math`, `windows` (the sliding windows of convolution and
pooling), `columns` (a convolution's im2col columns as one generic),
`conv_products` (a convolution's matrix product over them), `variants`
(switches between lowerings), and
`refusals`, which documents the overloads refused on purpose. A rule receives the lowering state (`LoweringState`, in
`state.py`), the op and its bound arguments, and returns the lowered values of
the op's results. The pass `convert-exir-to-linalg` drives them; the family
modules are imported on first use so that importing the pass stays cheap.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from xdsl.ir import SSAValue

from xdsl_exir.semantics.decompositions import RULES as DECOMPOSITIONS
from xdsl_exir.utils.op_registry import all_operators

if TYPE_CHECKING:
    from xdsl_exir.dialects.aten import AtenOp
    from xdsl_exir.semantics.inference import Bound
    from xdsl_exir.transforms.linalg_lowering.state import LoweringState

LoweringRule = Callable[["LoweringState", "AtenOp", "Bound"], Sequence[SSAValue]]

_RULES: dict[str, LoweringRule] = {}
_NOTES: dict[str, str] = {}
_REFUSALS: dict[str, str] = {}
_FAMILIES = ("pointwise", "matmul", "conv_pool", "reductions", "views", "creation", "indexing", "resampling", "distances", "scalars", "random", "norms", "variants", "refusals")
_loaded = False


def lowers(*names: str, note: str | None = None) -> Callable[[LoweringRule], LoweringRule]:
    """
    Register a rule for the given full overload names (`aten.add.Tensor`);
    `note` says what the rule refuses, for the documentation table.
    """

    def register(rule: LoweringRule) -> LoweringRule:
        for name in names:
            if name in _RULES:
                raise ValueError(f"two linalg lowering rules for {name}")
            _RULES[name] = rule
            if note:
                _NOTES[name] = note
        return rule

    return register


def refuses(*names: str, note: str) -> None:
    """
    Document that the given overloads are refused on purpose, and why (with
    what to do instead); the table shows the note, and `refusal_for` gives it
    to the diagnostic.
    """
    for name in names:
        if name in _RULES or name in _REFUSALS:
            raise ValueError(f"{name} has a lowering rule or a refusal already")
        _REFUSALS[name] = note


def refusal_for(name: str) -> str | None:
    """Why overload `name` is refused, when that is documented."""
    _load()
    return _REFUSALS.get(name)


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for family in _FAMILIES:
            importlib.import_module(f"{__name__}.{family}")


def rule_for(name: str) -> LoweringRule | None:
    """The rule lowering overload `name`, if there is one."""
    _load()
    return _RULES.get(name)


def lowered_overloads() -> frozenset[str]:
    """Every overload that has a rule (for the documentation table)."""
    _load()
    return frozenset(_RULES)


def status_table() -> str:
    """
    The Markdown table of every core ATen overload (tagged `core` in the schema
    list) with its lowering status, then the other overloads that have rules.
    """
    _load()
    ops = all_operators()
    core = sorted(n for n, e in ops.items() if "core" in e.tags and n.startswith("aten."))
    lines = [
        "| overload | status |",
        "|---|---|",
    ]
    for name in core:
        if name in _RULES:
            status = "lowered" + (f" ({_NOTES[name]})" if name in _NOTES else "")
        elif name in DECOMPOSITIONS:
            status = "decomposed first (its rule in `semantics/decompositions/`), then lowered"
        elif name in _REFUSALS:
            status = f"refused: {_REFUSALS[name]}"
        else:
            status = "refused: no rule"
        lines.append(f"| `{name}` | {status} |")
    extra = sorted(n for n in _RULES if n not in set(core))
    lowered = sum(1 for n in core if n in _RULES)
    decomposed = sum(1 for n in core if n not in _RULES and n in DECOMPOSITIONS)
    documented = sum(1 for n in core if n not in _RULES and n not in DECOMPOSITIONS and n in _REFUSALS)
    head = [
        f"{lowered} of the {len(core)} core ATen overloads of torch 2.13 have a rule, {decomposed} are",
        "decomposed first into overloads that have one (backward operators of training graphs),",
        f"and {documented} are refused on purpose, for the reason given; an op without a rule stops",
        "`convert-exir-to-linalg` with a diagnostic naming the overload and its",
        "source location, and nothing is lowered.",
        "",
    ]
    tail = ["", f"Further overloads with a rule (training IR and aliases, {len(extra)}):", ""]
    tail += [", ".join(f"`{n}`" for n in extra)]
    return "\n".join(head + lines + tail) + "\n"
