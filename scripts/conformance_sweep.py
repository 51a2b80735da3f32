"""
The OpInfo conformance sweep: every OpInfo of torch's `op_db` whose ATen ops the
project covers, through every executor, compared with eager PyTorch
(`tests/conformance/harness.py` says how), judged against the expected-failure
table `tests/conformance/expected_failures.txt`.

    python scripts/conformance_sweep.py                       # the sweep; a summary per executor
    python scripts/conformance_sweep.py --ops 'add,nn.functional.*' --executors interp,core
    python scripts/conformance_sweep.py --update-table        # rewrite the table from this run
    python scripts/conformance_sweep.py --log run.jsonl       # keep every outcome (one JSON a line)
    python scripts/conformance_sweep.py --replay run.jsonl --update-table   # the table from a kept run

The defaults (two OpInfo samples per dtype plus the edge samples; linalg and
IREE, one compile per sample, on the first float32 sample and the float32 edge
sample) take about an hour on two cores; everything:
`--max-samples 0 --max-lowered 0 --lowered-edges edge,empty,noncontig
--lowered-dtypes float32,int64,bool,float64`.

Exit status 1 if a sample fails in a way the table does not expect, or a row
of the table matches a sample that now agrees (the table is stale).
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import pathlib
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import asdict

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one thread: steadier on a shared machine
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from conformance import harness, table  # noqa: E402 - after the path to the tests is known


def _select(names: Sequence[str], patterns: str | None) -> list[str]:
    if not patterns:
        return list(names)
    wanted = [p.strip() for p in patterns.split(",") if p.strip()]
    return [n for n in names if any(fnmatch.fnmatchcase(n, p) for p in wanted)]


def summary(verdicts: Sequence[table.Verdict], executors: Sequence[str]) -> str:
    columns = ("opinfos", "samples", "agree", "expected failure", "stale", "wrong", "error", "skipped")
    counts: dict[str, dict[str, int]] = {e: dict.fromkeys(columns, 0) for e in executors}
    ops: dict[str, set[str]] = defaultdict(set)
    shape_only: dict[str, int] = defaultdict(int)
    for v in verdicts:
        c = counts.setdefault(v.outcome.executor, dict.fromkeys(columns, 0))
        if v.status == "skip":
            c["skipped"] += 1
            continue
        ops[v.outcome.executor].add(v.outcome.opinfo)
        c["samples"] += 1
        c[{"agree": "agree", "xfail": "expected failure", "xpass": "stale"}.get(v.status, v.status)] += 1
        if v.status == "agree" and v.outcome.shape_only:
            shape_only[v.outcome.executor] += 1
    for e, c in counts.items():
        c["opinfos"] = len(ops[e])
    width = [max(len(col), 7) for col in columns]
    lines = ["executor  " + "  ".join(f"{col:>{w}}" for col, w in zip(columns, width))]
    for e, c in counts.items():
        lines.append(f"{e:<8}  " + "  ".join(f"{c[col]:>{w}}" for col, w in zip(columns, width)))
    if shape_only:
        lines.append(
            "random operators (checked by dtype and shape only) among 'agree': "
            + ", ".join(f"{e} {n}" for e, n in shape_only.items())
        )
    return "\n".join(lines)


def unexpected(verdicts: Sequence[table.Verdict]) -> list[str]:
    lines: list[str] = []
    for v in verdicts:
        o = v.outcome
        if v.status in ("wrong", "error"):
            lines.append(f"{v.status.upper():<6} {o.executor:<7} {o.opinfo} {o.sample_id}: {table.reason_of(o)}")
        elif v.status == "xpass":
            assert v.row is not None
            lines.append(f"STALE  {o.executor:<7} {o.opinfo} {o.sample_id}: agrees, the table expects '{v.row.reason}'")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ops", help="comma-separated fnmatch patterns over OpInfo names (default: all)")
    parser.add_argument("--executors", default=",".join(harness.EXECUTORS), help="comma-separated executors")
    parser.add_argument("--max-samples", type=int, default=2, help="OpInfo samples per dtype (0: all)")
    parser.add_argument(
        "--max-lowered", type=int, default=1,
        help="OpInfo samples per dtype run through linalg and iree (edge samples always are; 0: all)",
    )  # fmt: skip
    parser.add_argument(
        "--lowered-edges", default="edge",
        help="which edge samples (edge, empty, noncontig) linalg and iree run (default: edge)",
    )  # fmt: skip
    parser.add_argument(
        "--lowered-dtypes", default="float32", help="the dtypes linalg and iree run samples in (default: float32)"
    )
    parser.add_argument(
        "--stop-after", type=float, help="start no OpInfo after this many seconds (the summary says how many ran)"
    )
    parser.add_argument("--timeout", type=int, default=harness.TIMEOUT_S, help="seconds per executor and sample")
    parser.add_argument("--start-after", help="skip the OpInfos up to this name (resume a sweep)")
    parser.add_argument("--shard", default="0/1", help="K/N: run every N-th covered OpInfo, starting at the K-th")
    parser.add_argument("--log", type=pathlib.Path, help="write every outcome to this file, one JSON object a line")
    parser.add_argument("--replay", type=pathlib.Path, action="append", help="read outcomes from --log files, run nothing")
    parser.add_argument("--update-table", action="store_true", help="rewrite the expected-failure table from this run")
    parser.add_argument("--quiet", action="store_true", help="no progress lines")
    args = parser.parse_args(argv)
    executors = [e.strip() for e in args.executors.split(",") if e.strip()]
    bad = [e for e in executors if e not in harness.EXECUTORS]
    if bad:
        parser.error(f"unknown executors {', '.join(bad)} (known: {', '.join(harness.EXECUTORS)})")
    rows = table.read()
    outcomes: list[harness.Outcome] = []
    not_covered: dict[str, str] = {}
    if args.replay:
        # A later file replaces an earlier one's outcomes for each (executor, OpInfo) it holds:
        # replay a whole sweep, then a rerun of a few OpInfos after a fix.
        merged: dict[tuple[str, str], list[harness.Outcome]] = {}
        for path in args.replay:
            found: dict[tuple[str, str], list[harness.Outcome]] = defaultdict(list)
            for line in path.read_text().splitlines():
                record = json.loads(line)
                if "not_covered" in record:
                    not_covered[record["opinfo"]] = record["not_covered"]
                elif record["executor"] in executors:
                    o = harness.Outcome(**record)
                    found[o.executor, o.opinfo].append(o)
                    not_covered.pop(o.opinfo, None)
            merged.update(found)
        outcomes = [o for group in merged.values() for o in group]
    else:
        outcomes, not_covered = sweep(args, executors)
    verdicts = table.judge(outcomes, rows)
    print()
    print(f"OpInfos not covered (an ATen op without kernel or decomposition, or untraceable): {len(not_covered)}")
    print(summary(verdicts, executors))
    problems = unexpected(verdicts)
    if problems:
        print(f"\n{len(problems)} outcomes the table does not expect:")
        print("\n".join(problems))
    if args.update_table:
        new = table.update(outcomes, rows)
        table.write(new)
        print(f"\n{table.TABLE.name}: {len(new)} rows (was {len(rows)})")
        return 0
    return 1 if problems else 0


def sweep(args: argparse.Namespace, executors: list[str]) -> tuple[list[harness.Outcome], dict[str, str]]:
    import torch

    torch.set_num_threads(1)
    harness.IREE_CACHE = os.environ.get("EXIR_IREE_CACHE")
    k, n = (int(x) for x in args.shard.split("/"))
    ops = harness.opinfos_by_name()
    names = _select(sorted(ops), args.ops)[k::n]
    fast = [e for e in executors if e not in ("linalg", "iree")]
    lowered = [e for e in executors if e in ("linalg", "iree")]
    lowered_kinds = [k for k in args.lowered_edges.split(",") if k]
    lowered_dtypes = {d for d in args.lowered_dtypes.split(",") if d}
    log = args.log.open("w") if args.log else None
    outcomes: list[harness.Outcome] = []
    not_covered: dict[str, str] = {}
    start = time.monotonic()
    for i, name in enumerate(names):
        op = ops[name]
        if args.start_after and name <= args.start_after:
            continue
        try:
            ok, why = harness.covered(op)
        except Exception as e:  # the OpInfo's own sample generation failed
            ok, why = False, f"samples fail: {type(e).__name__}: {e}"
        if not ok:
            not_covered[name] = why
            if log:
                log.write(json.dumps({"opinfo": name, "not_covered": why}) + "\n")
            continue
        t0 = time.monotonic()
        if args.stop_after is not None and t0 - start > args.stop_after:
            print(f"stopped after {i} of {len(names)} OpInfos (--stop-after {args.stop_after:g})", flush=True)
            break
        timed_out: set[str] = set()  # an executor that timed out is not run on the OpInfo's later samples
        try:
            got = [
                o
                for dtype in harness.DTYPES
                for o in harness.run_opinfo(
                    op, fast, args.max_samples or None,
                    lowered if harness.DTYPE_NAMES[dtype] in lowered_dtypes else [], args.max_lowered or None,
                    dtypes=[dtype], timeout=args.timeout, lowered_kinds=lowered_kinds, timed_out=timed_out,
                )
            ]  # fmt: skip
        except Exception as e:  # the OpInfo's own sample generation failed
            not_covered[name] = f"samples fail: {type(e).__name__}: {e}"
            continue
        outcomes.extend(got)
        if log:
            for o in got:
                log.write(json.dumps(asdict(o)) + "\n")
            log.flush()
        if not args.quiet:
            bad = sum(o.status == "fail" for o in got)
            print(
                f"[{i + 1}/{len(names)} {time.monotonic() - start:6.0f}s] {name}: {len(got)} outcomes, "
                f"{bad} failing ({time.monotonic() - t0:.1f}s)",
                flush=True,
            )
    if log:
        log.close()
    return outcomes, not_covered


if __name__ == "__main__":
    sys.exit(main())
