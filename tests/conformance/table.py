"""
The expected-failure table: `expected_failures.txt`, one row per executor,
OpInfo and sample pattern, grouped under their reason.

    == wrong: value: out[3] 0.0, torch -0.0 (input -0.0)
    interp  nn.functional.relu  float32/edge
    core    nn.functional.relu  */edge

A group starts with `== reason`; the reason's first word is the kind of failure
it expects (`wrong`, `refused`, `crash`, `timeout`): a sample that fails in
another way is not covered by the row. A pattern is an `fnmatch` pattern over
sample ids (`float32/3`, `int64/*`, `*`). A row that matches a sample which
agrees with eager is stale and fails the suite, so the table stays true;
`scripts/conformance_sweep.py --update-table` rewrites it from a run, keeping
the reason of every row that still holds (reasons may be edited by hand).
"""

from __future__ import annotations

import fnmatch
import pathlib
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from conformance.harness import EXECUTORS, Outcome, clean_message

TABLE = pathlib.Path(__file__).with_name("expected_failures.txt")

HEADER = """\
# Expected failures of the OpInfo conformance suite (tests/conformance), grouped by reason.
#
# A group starts with "== reason"; the reason's first word is the kind of failure the rows
# expect: wrong (a value, dtype or shape differs from eager), refused (a located diagnostic),
# crash (any other exception), timeout. Rows: EXECUTOR  OPINFO  SAMPLE-PATTERN (fnmatch over
# sample ids dtype/index, dtype/edge, dtype/noncontig, dtype/empty). Executors: interp (the
# interpreter as exported), core (after to-core-aten), linalg (the lowering in xDSL's
# interpreter), iree, ts (the TorchScript runner on torch.jit.trace), python (--emit python).
#
# A row matching a sample that agrees with eager fails the suite. Regenerate with
#   python scripts/conformance_sweep.py --update-table
# which keeps the reason of each row that still holds; reasons may be edited by hand.
"""


@dataclass(frozen=True)
class Row:
    executor: str
    opinfo: str
    pattern: str
    reason: str

    @property
    def kind(self) -> str:
        return self.reason.split(":", 1)[0].split()[0]

    def matches(self, outcome: Outcome) -> bool:
        return (
            outcome.executor == self.executor
            and outcome.opinfo == self.opinfo
            and fnmatch.fnmatchcase(outcome.sample_id, self.pattern)
        )


def read(path: pathlib.Path = TABLE) -> list[Row]:
    rows: list[Row] = []
    reason: str | None = None
    if not path.exists():
        return rows
    for number, line in enumerate(path.read_text().splitlines(), 1):
        text = line.strip()
        if not text or text.startswith("#"):
            continue
        if text.startswith("=="):
            reason = text[2:].strip()
            continue
        parts = text.split()
        if reason is None or len(parts) != 3 or parts[0] not in EXECUTORS:
            raise ValueError(f"{path.name}:{number}: expected 'EXECUTOR OPINFO PATTERN' under a '== reason' line")
        rows.append(Row(parts[0], parts[1], parts[2], reason))
    return rows


def reason_of(outcome: Outcome) -> str:
    return f"{outcome.kind}: {clean_message(outcome.detail)}" if outcome.detail else outcome.kind


@dataclass
class Verdict:
    """An outcome judged against the table."""

    outcome: Outcome
    status: str
    """`agree`, `skip`, `xfail` (failed as a row expects), `xpass` (a row expects a failure:
    stale), `wrong` (a value, dtype or shape differs and no row says so) or `error` (an
    unexpected refusal, crash or timeout)."""
    row: Row | None = None


def judge(outcomes: Iterable[Outcome], rows: Sequence[Row]) -> list[Verdict]:
    by_key: dict[tuple[str, str], list[Row]] = defaultdict(list)
    for row in rows:
        by_key[row.executor, row.opinfo].append(row)
    verdicts: list[Verdict] = []
    for o in outcomes:
        candidates = [r for r in by_key.get((o.executor, o.opinfo), ()) if r.matches(o)]
        if o.status == "skip":
            verdicts.append(Verdict(o, "skip"))
        elif o.status == "agree":
            verdicts.append(Verdict(o, "xpass", candidates[0]) if candidates else Verdict(o, "agree"))
        else:
            same = [r for r in candidates if r.kind == o.kind]
            if same:
                verdicts.append(Verdict(o, "xfail", same[0]))
            else:
                verdicts.append(Verdict(o, "wrong" if o.kind == "wrong" else "error"))
    return verdicts


def _compress(failing: set[str], run: set[str]) -> list[str]:
    """Patterns naming exactly `failing` among the samples `run`: `*`, `dtype/*` or single ids."""
    if failing == run:
        return ["*"]
    patterns: list[str] = []
    by_dtype: dict[str, set[str]] = defaultdict(set)
    for s in run:
        by_dtype[s.split("/", 1)[0]].add(s)
    rest = set(failing)
    for dtype, samples in sorted(by_dtype.items()):
        if samples <= failing:
            patterns.append(f"{dtype}/*")
            rest -= samples
    return patterns + sorted(rest, key=_sample_key)


def _sample_key(sample_id: str) -> tuple[str, int, str]:
    dtype, index = sample_id.split("/", 1)
    return (dtype, int(index) if index.isdigit() else 1 << 30, index)


def update(outcomes: Sequence[Outcome], old: Sequence[Row]) -> list[Row]:
    """
    The table after a run: rows for the (executor, OpInfo) pairs the run covered
    are rebuilt from its failures, one group per pair and kind of failure, with
    the reason of an old row that matched one of them if there is one (else the
    first failure's own message); rows for pairs the run did not cover stay.
    """
    ran: dict[tuple[str, str], set[str]] = defaultdict(set)
    failing: dict[tuple[str, str, str], list[Outcome]] = defaultdict(list)
    for o in outcomes:
        if o.status == "skip":
            continue
        ran[o.executor, o.opinfo].add(o.sample_id)
        if o.status == "fail":
            failing[o.executor, o.opinfo, o.kind].append(o)
    rows = [r for r in old if (r.executor, r.opinfo) not in ran]
    for (executor, opinfo, kind), group in failing.items():
        kept = [r for r in old if r.kind == kind and any(r.matches(o) for o in group)]
        reason = kept[0].reason if kept else reason_of(group[0])
        for pattern in _compress({o.sample_id for o in group}, ran[executor, opinfo]):
            rows.append(Row(executor, opinfo, pattern, reason))
    return rows


def write(rows: Sequence[Row], path: pathlib.Path = TABLE) -> None:
    groups: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        groups[row.reason].append(row)
    order = {e: i for i, e in enumerate(EXECUTORS)}
    lines = [HEADER]
    kinds = ("wrong", "refused", "crash", "timeout")
    for reason in sorted(groups, key=lambda r: (kinds.index(r.split(":")[0]) if r.split(":")[0] in kinds else 9, r)):
        lines.append(f"== {reason}")
        for row in sorted(groups[reason], key=lambda r: (r.opinfo, order[r.executor], _sample_key(r.pattern)
                                                         if "/" in r.pattern else ("", -1, r.pattern))):  # fmt: skip
            lines.append(f"{row.executor:<7} {row.opinfo}  {row.pattern}")
        lines.append("")
    path.write_text("\n".join(lines))
