"""
The wide hostile-input campaign: the generators of `tests/test_hostile_input.py`
on another seed and about 10,000 cases.

The default test runs a few hundred cases under its fixed seed in under a
minute; this runs many more, under any seed, with the IREE cases that compile
(seconds each). Each case is screened in-process as the test does (exit 0 or 1,
one paragraph, no traceback or "internal error", nothing written on failure,
bounded time); a failing case is then confirmed twice, alone in a fresh
process (`--case pt2-17` reruns it: no state left by earlier cases) and, where
it ran a tool, by the tool's real executable on the same arguments, for the
exit code and stderr a shell sees. A case's generator is seeded by
`"{seed}/{category}/{index}"`, so any case reproduces alone.

    nice -n 19 python scripts/fuzz_hostile.py --seed 25 --total 10000 --log campaign.jsonl

prints a table of cases, failures and confirmations by category; `--log`
keeps one JSON line per case (a long run can be read while it goes).
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

hostile: Any = importlib.import_module("test_hostile_input")
"""The generators live with the test, in tests/ (put on sys.path above)."""

WEIGHTS: dict[str, int] = {
    "pt2": 1400,
    "mlir": 1400,
    "torchscript": 900,
    "script": 500,
    "npz": 500,
    "output": 200,
    "pipeline": 1200,
    "options": 1800,
    "resources": 1400,
    "api": 600,
    "iree": 100,
}
"""Cases per category in a run of 10,000 (`--total` scales them)."""


def builders() -> dict[str, Callable[[random.Random, Path], None]]:
    found = dict(hostile.CASE_BUILDERS)
    found["iree"] = lambda rng, tmp: hostile.iree_case(rng, tmp, compiles=True)
    return found


class Recorder:
    """The tool invocations of the current case, for the replay through the real executables."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, list[str]]] = []
        self.original = hostile.invoke

    def __call__(self, tool: str, argv: list[str]) -> Any:
        self.calls.append((tool, list(argv)))
        return self.original(tool, argv)


def run_case(category: str, index: int, seed: int, recorder: Recorder) -> dict[str, Any]:
    """One case, screened in-process; its working directory is kept when it fails."""
    tmp = Path(tempfile.mkdtemp(prefix=f"fuzz-{category}-{index}-"))
    here = os.getcwd()
    recorder.calls = []
    start = time.monotonic()
    failure: str | None = None
    os.chdir(tmp)  # a pipeline may name a report file
    try:
        builders()[category](random.Random(f"{seed}/{category}/{index}"), tmp)
    except (AssertionError, hostile.CaseTimeout) as e:
        failure = f"{type(e).__name__}: {e}"
    except Exception as e:
        failure = f"the harness failed: {type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}"
    finally:
        os.chdir(here)
    record: dict[str, Any] = {
        "case": f"{category}-{index}",
        "seconds": round(time.monotonic() - start, 3),
        "failure": failure,
        "calls": recorder.calls,
        "dir": str(tmp),
    }
    if failure is None:
        shutil.rmtree(tmp, ignore_errors=True)
    return record


def replay(tool: str, argv: Sequence[str], cwd: str) -> str | None:
    """The promise through the real executable; why it is broken, or None."""
    exe = Path(sys.executable).parent / tool
    try:
        proc = subprocess.run([str(exe), *argv], cwd=cwd, capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "ran past 120 s"
    err = proc.stderr
    if proc.returncode not in (0, 1):
        return f"exit {proc.returncode}: {err[-500:]}"
    if "Traceback (most recent call last)" in err or "internal error" in err:
        return err[-800:]
    if proc.returncode == 1 and ("\n\n" in err.strip() or not err.startswith(f"{tool}: error: ")):
        return f"not one paragraph: {err[-800:]}"
    return None


def confirm(record: dict[str, Any], seed: int) -> dict[str, Any]:
    """A failing case again, alone in a fresh process, and its last tool call through the real tool."""
    alone = subprocess.run(
        [sys.executable, __file__, "--seed", str(seed), "--case", record["case"], "--max-seconds", str(hostile.MAX_SECONDS)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    confirmed: dict[str, Any] = {"alone": alone.returncode != 0}
    if record["calls"]:
        tool, argv = record["calls"][-1]
        confirmed["cli"] = replay(tool, argv, record["dir"])
    return confirmed


def plan(total: int, only: Sequence[str]) -> dict[str, int]:
    scale = total / sum(WEIGHTS.values())
    return {c: max(1, round(n * scale)) for c, n in WEIGHTS.items() if not only or c in only}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--seed", type=int, default=25, help="the campaign's seed (the default test's is 13)")
    parser.add_argument("--total", type=int, default=10_000, help="cases in all, shared as WEIGHTS says")
    parser.add_argument("--only", default="", help="comma-separated categories to run")
    parser.add_argument("--start", type=int, default=0, help="first case index of each category (to resume)")
    parser.add_argument("--case", help="run one case, e.g. pt2-17, and exit 1 when it fails")
    parser.add_argument("--log", help="append one JSON line per case to this file")
    parser.add_argument("--no-confirm", action="store_true", help="screen only")
    parser.add_argument(
        "--max-seconds",
        type=float,
        default=60.0,
        help="a case running longer fails (a guard against hangs; wall time, so a loaded machine needs room)",
    )
    args = parser.parse_args(argv)
    hostile.MAX_SECONDS = args.max_seconds
    # Start-up (torch, the kernels' registry) before the first case's clock: a cold first case is no hang.
    hostile.invoke("exir-run", [str(ROOT / "tests" / "zoo" / "mlp.core.pt2"), "--random-inputs", "0"])

    recorder = Recorder()
    hostile.invoke = recorder  # the builders call the module's invoke
    if args.case:
        category, _, index = args.case.rpartition("-")
        record = run_case(category, int(index), args.seed, recorder)
        print(json.dumps(record, indent=1))
        return 1 if record["failure"] else 0

    counts = plan(args.total, [c for c in args.only.split(",") if c])
    log = open(args.log, "a") if args.log else None  # kept open for the run, closed below
    table: dict[str, dict[str, float]] = {}
    failures: list[dict[str, Any]] = []
    started = time.monotonic()
    try:
        for category, n in counts.items():
            row = table.setdefault(category, {"cases": 0, "failed": 0, "alone": 0, "cli": 0, "seconds": 0.0})
            for index in range(args.start, args.start + n):
                record = run_case(category, index, args.seed, recorder)
                row["cases"] += 1
                row["seconds"] += record["seconds"]
                if record["failure"]:
                    row["failed"] += 1
                    if not args.no_confirm:
                        record["confirmed"] = confirm(record, args.seed)
                        row["alone"] += record["confirmed"]["alone"]
                        row["cli"] += record["confirmed"].get("cli") is not None
                    failures.append(record)
                    print(f"FAIL {record['case']}: {record['failure'][:400]}", flush=True)
                if log is not None:
                    log.write(json.dumps(record) + "\n")
                    log.flush()
            print(f"{category}: {row['cases']} cases, {row['failed']} failed, {row['seconds']:.0f} s", flush=True)
    finally:
        if log is not None:
            log.close()
    print(f"\nseed {args.seed}, {sum(r['cases'] for r in table.values()):.0f} cases in {time.monotonic() - started:.0f} s, "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB")
    print("| category | cases | failed | failing alone | failing through the CLI | seconds |")
    print("|---|---:|---:|---:|---:|---:|")
    for category, row in table.items():
        print(f"| {category} | {row['cases']:.0f} | {row['failed']:.0f} | {row['alone']:.0f} | {row['cli']:.0f} | {row['seconds']:.0f} |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
