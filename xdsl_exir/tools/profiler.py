"""
Profiles of interpreter runs and pass pipelines, and a progress line for people.

`OpProfiler` is the interpreter's profiler: handed to `ProgramRunner` as its
`wrap_op`, it wraps each prepared op when the graph is compiled (so a run without
it pays nothing) and records calls, total and self time per operator. `table()`
prints them as torch.profiler's `key_averages().table()` does, sorted by self
time, with the FLOPs `flop-count` knows (torch's FlopCounterMode convention) and
the rate they were done at; `chrome_trace()` is one run as a Chrome/Perfetto
trace (trace-event JSON: open it in ui.perfetto.dev or chrome://tracing).

(`--time-passes` is `pass_timer.py`.)

"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, cast

from xdsl.dialects.builtin import IntegerAttr
from xdsl.ir import Operation

from xdsl_exir.dialects.exir import CallFunctionOp, ProgramOp, SymExprAttr, TensorType
from xdsl_exir.dialects.ts import NodeOp
from xdsl_exir.interpreters.compiler import Prepared
from xdsl_exir.transforms.flop_count import count_program
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.symbolic import sympy

__all__ = ["OpProfiler", "OpStat", "op_key"]

_FLOPS_ATTR = "exir.flops"


def op_key(op: Operation) -> str:
    """The name an op is profiled under: the operator it calls, else the op's name."""
    if isinstance(op, CallFunctionOp):
        return op.target.data
    if isinstance(op, NodeOp):  # a TorchScript node: its kind, `aten::add`
        return op.kind.data
    return op.name


@dataclass
class OpStat:
    """One row of the profile: every call of one operator."""

    name: str
    calls: int = 0
    total_ns: int = 0
    """Time inside the op, including ops it runs (a fusion group's body, a cond's branch)."""
    self_ns: int = 0
    """Time inside the op minus the profiled ops it ran."""
    flops: int = 0
    """FLOPs done, where `flop-count` knows the op's count (static sizes only)."""
    counted: bool = False


@dataclass
class _Event:
    name: str
    start_ns: int
    dur_ns: int
    category: str
    args: dict[str, Any] = field(default_factory=dict[str, Any])


class OpProfiler:
    """
    Per-operator times of interpreter runs; pass it to `ProgramRunner(wrap_op=...)`.

    Call `count_flops(program)` before compiling to attach FLOPs. With `trace`,
    every op call is also kept as a trace event (for `chrome_trace`).
    """

    def __init__(self, trace: bool = False) -> None:
        self.stats: dict[str, OpStat] = {}
        self.trace = trace
        self.events: list[_Event] = []
        self._children: list[int] = []
        self._flops: dict[int, int] = {}
        self._sym_flops: dict[int, sympy.Expr] = {}
        self.wall_ns = 0
        self.runs = 0
        self.origin_ns = time.perf_counter_ns()

    # -- setup ----------------------------------------------------------------

    def count_flops(self, program: ProgramOp) -> None:
        """Each op's FLOPs by `flop-count`, remembered without changing the IR."""
        before = {id(op): op.attributes.get(_FLOPS_ATTR) for op in program.walk()}
        had_total = program.attributes.get(_FLOPS_ATTR)
        try:
            count_program(program, "torch")
        except ExirDiagnostic:
            return  # an op flop-count cannot bind: the profile shows no FLOPs
        finally:
            for op in program.walk():
                value = op.attributes.get(_FLOPS_ATTR)
                if isinstance(value, IntegerAttr) and value.value.data:
                    self._flops[id(op)] = value.value.data
                elif isinstance(value, SymExprAttr) and value.data.free_symbols:
                    self._sym_flops[id(op)] = value.data
                if before.get(id(op)) is None and _FLOPS_ATTR in op.attributes:
                    del op.attributes[_FLOPS_ATTR]
            if had_total is None:
                program.attributes.pop(_FLOPS_ATTR, None)
            elif _FLOPS_ATTR in program.attributes:
                program.attributes[_FLOPS_ATTR] = had_total

    # -- the wrapper ----------------------------------------------------------

    def __call__(self, prepared: Prepared, op: Operation) -> Prepared:
        """The `OpWrapper`: times every call of `prepared`."""
        key = op_key(op)
        stat = self.stats.get(key)
        if stat is None:
            stat = self.stats[key] = OpStat(key)
        flops = self._flops.get(id(op), 0)
        count = _symbolic_count(op, self._sym_flops.get(id(op)))
        if flops or count is not None:
            stat.counted = True
        children = self._children
        events = self.events if self.trace else None
        clock = time.perf_counter_ns

        def timed(*args: Any) -> tuple[Any, ...]:
            children.append(0)
            start = clock()
            try:
                return prepared(*args)
            finally:
                total = clock() - start
                inner = children.pop()
                if children:
                    children[-1] += total
                stat.calls += 1
                stat.total_ns += total
                stat.self_ns += total - inner
                done = flops if count is None else count(args)
                stat.flops += done
                if events is not None:
                    events.append(_Event(key, start, total, "op", {"flops": done} if done else {}))

        return timed

    @contextmanager
    def run(self) -> Iterator[None]:
        """Around one run: its wall time is the 100% of the table."""
        start = time.perf_counter_ns()
        try:
            yield
        finally:
            duration = time.perf_counter_ns() - start
            self.wall_ns += duration
            self.runs += 1
            if self.trace:
                self.events.append(_Event("run", start, duration, "run"))

    def forget_runs(self) -> None:
        """
        Drop what the runs so far recorded (warm-up runs), keeping the phases;
        the wrappers already made keep counting into the same rows.
        """
        for stat in self.stats.values():
            stat.calls = stat.total_ns = stat.self_ns = stat.flops = 0
        self.events[:] = [e for e in self.events if e.category not in ("op", "run")]  # the wrappers hold the list
        self.wall_ns = 0
        self.runs = 0

    def phase(self, name: str, start_ns: int, dur_ns: int, category: str = "phase") -> None:
        """A phase of the tool (loading, a pass) for the trace."""
        if self.trace:
            self.events.append(_Event(name, start_ns, dur_ns, category))

    # -- reports --------------------------------------------------------------

    def rows(self) -> list[OpStat]:
        """The operators that ran, by self time, longest first."""
        return sorted((s for s in self.stats.values() if s.calls), key=lambda s: (-s.self_ns, s.name))

    def table(self, limit: int | None = None) -> str:
        """The profile as a table (torch.profiler's `key_averages().table()` layout)."""
        rows = self.rows()
        shown = rows if limit is None else rows[:limit]
        wall = self.wall_ns or sum(s.self_ns for s in rows) or 1
        name_width = max([len("Name"), *(len(s.name) for s in shown)])
        head = (
            f"{'Name':<{name_width}}  {'Self %':>7}  {'Self total':>11}  {'Total':>11}  "
            f"{'Calls':>6}  {'Mean':>11}  {'FLOPs':>9}  {'GFLOP/s':>8}"
        )
        rule = "-" * len(head)
        lines = [rule, head, rule]
        for s in shown:
            flops = _si(s.flops) if s.counted else "-"
            rate = f"{s.flops / s.total_ns:.2f}" if s.counted and s.total_ns else "-"
            lines.append(
                f"{s.name:<{name_width}}  {100 * s.self_ns / wall:>6.1f}%  {_ms(s.self_ns):>11}  "
                f"{_ms(s.total_ns):>11}  {s.calls:>6}  {_ms(s.total_ns // s.calls):>11}  {flops:>9}  {rate:>8}"
            )
        lines.append(rule)
        if limit is not None and len(rows) > limit:
            lines.append(f"({len(rows) - limit} more operators not shown)")
        self_sum = sum(s.self_ns for s in rows)
        flops = sum(s.flops for s in rows)
        runs = f"{self.runs} run" + ("s" if self.runs != 1 else "")
        summary = f"Self time total: {_ms(self_sum)}; wall time of the {runs}: {_ms(self.wall_ns)}"
        if flops:
            summary += f"; {_si(flops)} FLOPs at {flops / max(self.wall_ns, 1):.2f} GFLOP/s"
        lines.append(summary)
        return "\n".join(lines) + "\n"

    def chrome_trace(self) -> str:
        """The recorded events as trace-event JSON (complete events, microseconds)."""
        events: list[dict[str, Any]] = [
            {"name": "process_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "xdsl-exir"}},
            {"name": "thread_name", "ph": "M", "pid": 1, "tid": 1, "args": {"name": "interpreter"}},
        ]
        for e in sorted(self.events, key=lambda e: (e.start_ns, -e.dur_ns)):
            event: dict[str, Any] = {
                "name": e.name,
                "cat": e.category,
                "ph": "X",
                "ts": (e.start_ns - self.origin_ns) / 1000,
                "dur": e.dur_ns / 1000,
                "pid": 1,
                "tid": 1,
            }
            if e.args:
                event["args"] = e.args
            events.append(event)
        return json.dumps({"traceEvents": events, "displayTimeUnit": "ms"}, indent=None) + "\n"


def _symbolic_count(op: Operation, expr: sympy.Expr | None) -> Callable[[tuple[Any, ...]], int] | None:
    """
    The FLOPs of one call of an op whose count is symbolic (`2*s0*768`): its symbols
    are read off the shapes of the operands that call gets; None when they do not
    all appear as a dimension of an operand.
    """
    if expr is None:
        return None
    probes: dict[sympy.Symbol, tuple[int, int]] = {}
    for i, t in enumerate(op.operand_types):
        if isinstance(t, TensorType):
            for d, size in enumerate(t.sizes):
                if isinstance(size, sympy.Symbol) and size not in probes:
                    probes[size] = (i, d)
    if not expr.free_symbols <= probes.keys():
        return None
    symbols = sorted(probes, key=str)
    cache: dict[tuple[int, ...], int] = {}

    def count(args: tuple[Any, ...]) -> int:
        key = tuple(int(args[probes[s][0]].shape[probes[s][1]]) for s in symbols)
        value = cache.get(key)
        if value is None:
            number = cast(sympy.Integer, expr.xreplace({s: sympy.Integer(v) for s, v in zip(symbols, key)}))
            value = cache[key] = int(number)
        return value

    return count


def _ms(ns: int) -> str:
    if ns >= 10_000_000:
        return f"{ns / 1e6:.1f}ms"
    if ns >= 1_000_000:
        return f"{ns / 1e6:.3f}ms"
    return f"{ns / 1e3:.1f}us"


def _si(n: int) -> str:
    for scale, suffix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "K")):
        if n >= scale:
            return f"{n / scale:.2f}{suffix}"
    return str(n)
