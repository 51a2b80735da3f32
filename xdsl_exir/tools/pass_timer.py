"""
`--time-passes`: the wall time of a pipeline's passes, nested as they call each other.

A compound pass runs other passes inside its own `apply` (`optimize-inference` is
decompose, canonicalize, ...). While `PassTimer.active()` is entered, the `apply`
of every loaded pass class is wrapped, so the report shows those steps under the
pass that ran them, as mlir-opt's `--mlir-timing` report does. Nothing is
wrapped when the flag is off.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

__all__ = ["PassTimer"]


@dataclass
class _PassNode:
    name: str
    seconds: float = 0.0
    count: int = 0
    children: dict[str, _PassNode] = field(default_factory=dict[str, "_PassNode"])


def _pass_classes() -> list[type[ModulePass]]:
    found: list[type[ModulePass]] = []
    stack: list[type[ModulePass]] = [ModulePass]
    while stack:
        cls = stack.pop()
        for sub in cls.__subclasses__():
            if sub not in found:
                found.append(sub)
                stack.append(sub)
    return found


class PassTimer:
    """
    Wall time of every pass a pipeline runs, nested as the passes call each other.

    `with timer.active(): pipeline.apply(ctx, module)` wraps the `apply` of every
    pass class loaded at that point (a compound pass imports its steps with its
    module) and restores them on exit.
    """

    def __init__(self) -> None:
        self.root = _PassNode("total")
        self._stack: list[_PassNode] = [self.root]
        self.calls: list[tuple[str, int, int]] = []
        """Every pass run as (name, start, duration) in `time.perf_counter_ns` units, for traces."""

    @contextmanager
    def active(self) -> Iterator[None]:
        patched: list[tuple[type[ModulePass], Callable[..., None]]] = []
        for cls in _pass_classes():
            own = cls.__dict__.get("apply")
            if own is None or getattr(own, "_exir_timed", False):
                continue
            patched.append((cls, own))
            setattr(cls, "apply", self._wrap(own))  # noqa: B010 - a class attribute patched while profiling, restored on exit
        start = time.perf_counter()
        try:
            yield
        finally:
            self.root.seconds += time.perf_counter() - start
            for cls, own in patched:
                setattr(cls, "apply", own)  # noqa: B010 - restores the class attribute patched above

    def _wrap(self, apply: Callable[..., None]) -> Callable[..., None]:
        timer = self

        def timed(pass_: ModulePass, ctx: Any, op: ModuleOp) -> None:
            parent = timer._stack[-1]
            node = parent.children.get(pass_.name)
            if node is None:
                node = parent.children[pass_.name] = _PassNode(pass_.name)
            timer._stack.append(node)
            start = time.perf_counter_ns()
            try:
                apply(pass_, ctx, op)
            finally:
                duration = time.perf_counter_ns() - start
                node.seconds += duration / 1e9
                node.count += 1
                timer._stack.pop()
                timer.calls.append((pass_.name, start, duration))

        setattr(timed, "_exir_timed", True)  # noqa: B010 - a marker attribute the checker does not know functions may carry
        return timed

    def report(self) -> str:
        """mlir-opt's execution time report: each pass with its share, sub-passes indented."""
        total = self.root.seconds or 1e-9
        title = "... Execution time report ..."
        bar = "===" + "-" * 73 + "==="
        lines = [bar, title.center(len(bar)).rstrip(), bar, f"  Total Execution Time: {self.root.seconds:.4f} seconds", ""]
        lines.append("  ----Wall Time----  ----Name----")

        def walk(node: _PassNode, depth: int) -> None:
            for child in node.children.values():
                times = f" (x{child.count})" if child.count > 1 else ""
                lines.append(
                    f"  {child.seconds:8.4f} ({100 * child.seconds / total:5.1f}%)  {'  ' * depth}{child.name}{times}"
                )
                walk(child, depth + 1)

        walk(self.root, 0)
        other = self.root.seconds - sum(c.seconds for c in self.root.children.values())
        lines.append(f"  {other:8.4f} ({100 * other / total:5.1f}%)  (verification between passes)")
        lines.append(f"  {self.root.seconds:8.4f} (100.0%)  Total")
        return "\n".join(lines) + "\n"
