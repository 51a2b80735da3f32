"""
Where a model's native time goes, dispatch by dispatch: one of
`benchmarks/compile.py`'s models compiled as `compile_program` compiles it (the
same lowering, flags and data-tiling hints, weights embedded in the module),
called in IREE's own harness (`iree-benchmark-module`) with host-execution
profiling on, and `iree-profile dispatch`'s figures per dispatch function.

Usage:
    env -u OPENBLAS_CORETYPE .venv/bin/python benchmarks/dispatches.py MODEL [--calls N] [--threads N]
        [--top K] [--variant="--flag MODULE.ATTR=V data_tiling=0|1"]

MODEL is a name of `benchmarks/compile.py` (`squeezenet`, `resnet18`, the
single layers...). `--threads 1` (the default) runs on the calling thread
(`local-sync`), more on that many `local-task` workers. `--variant` takes
`compile.py`'s words for one alternative form. The table lists, per dispatch
function, how many times a call runs it, its least and mean time, and its
share of the summed mean times, the heaviest first; the whole call's time in
the harness comes first. Times are the harness's own, in a fresh process with
nothing else running in it: compare them with onnxruntime's per-node profile
(`SessionOptions.enable_profiling`) or with another `--variant`, run for run,
not with `compile.py`'s steady state. Nothing here asserts a time.
"""

from __future__ import annotations

import sys

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import compile as bench  # first: it reads --threads before numpy loads

# isort: split
import argparse
import dataclasses
import json
import pathlib
import subprocess
import tempfile
from typing import Any

import numpy as np

from xdsl_exir.targets.iree import IreeOptions, compile_text, lower_for_iree


def _tool(name: str) -> str:
    """An IREE tool installed beside this Python (the `iree` extra's wheels)."""
    return str(pathlib.Path(sys.executable).parent / name)


def compiled_module(case: bench.Case, tmp: pathlib.Path, alt: bench.Alternative, threads: int) -> tuple[pathlib.Path, list[pathlib.Path]]:
    """
    The model's module as `compile_program` builds it, weights embedded, and its inputs as .npy
    files. Data tiling is fixed to what the options decide for the program, so that where
    iree-compile refuses the module with it this fails, instead of profiling the module
    `compile_text` retries without it (its note on stderr is easy to miss in a table).
    """
    _, args, path = bench.build(case, tmp)
    options = alt.iree_options(IreeOptions(threads=threads, use_cache=False, parameters_from_bytes=-1))
    with alt.switched():
        text = lower_for_iree(path, options).text
        options = dataclasses.replace(options, data_tiling=options.auto_data_tiling(text))
        vmfb = tmp / f"{case.name}.vmfb"
        vmfb.write_bytes(compile_text(text, options).vmfb)
    inputs = []
    for i, a in enumerate(args):
        inputs.append(tmp / f"input{i}.npy")
        np.save(inputs[-1], a.numpy())
    return vmfb, inputs


def profile(vmfb: pathlib.Path, inputs: list[pathlib.Path], calls: int, threads: int, tmp: pathlib.Path) -> tuple[str, list[dict[str, Any]]]:
    """The harness's line for the whole call, and `iree-profile`'s group of each dispatch function."""
    device = ["--device=local-sync"] if threads <= 1 else ["--device=local-task", f"--task_topology_group_count={threads}"]
    prof = tmp / "run.ireeprof"
    run = subprocess.run(
        [_tool("iree-benchmark-module"), f"--module={vmfb}", "--function=forward", *(f"--input=@{p}" for p in inputs),
         *device, f"--benchmark_min_time={calls}x", "--device_profiling_mode=host-execution",
         f"--device_profiling_output={prof}"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    whole = next((ln for ln in run.stdout.splitlines() if ln.startswith("BM_")), "")
    out = subprocess.run([_tool("iree-profile"), "dispatch", "--format=jsonl", str(prof)], capture_output=True, text=True, check=True)
    groups = [json.loads(ln) for ln in out.stdout.splitlines() if ln.startswith("{")]
    return whole, [g for g in groups if g.get("type") == "host_dispatch_group"]


def report(whole: str, groups: list[dict[str, Any]], calls: int, top: int) -> None:
    rows = []
    for g in groups:
        count = float(g["count"]) / calls
        rows.append((count * float(g["avg_ns"]) / 1e3, count, float(g["min_ns"]) / 1e3, float(g["avg_ns"]) / 1e3, str(g["key"])))
    rows.sort(reverse=True)
    total = sum(r[0] for r in rows)
    print(f"whole call in iree-benchmark-module ({calls} calls): {' '.join(whole.split()[1:5])}")
    print(f"{len(rows)} dispatch functions, {sum(r[1] for r in rows):.0f} dispatches a call, their mean times sum to {total:.1f} us a call")
    print(f"{'us a call':>10} {'share':>6} {'runs':>5} {'least us':>9} {'mean us':>8}  dispatch")
    for per_call, count, least, mean, key in rows[:top]:
        print(f"{per_call:10.1f} {per_call / total:6.1%} {count:5.0f} {least:9.1f} {mean:8.1f}  {key}")
    if len(rows) > top:
        rest = sum(r[0] for r in rows[top:])
        print(f"{rest:10.1f} {rest / total:6.1%}        ({len(rows) - top} more)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("model", help=f"one of {','.join(c.name for c in bench.CASES)}")
    parser.add_argument("--calls", type=int, default=200, help="calls of the profiled run (default 200)")
    parser.add_argument("--threads", type=int, default=1, help="1: the calling thread; more: that many workers")
    parser.add_argument("--top", type=int, default=30, help="dispatch functions listed (default 30)")
    parser.add_argument("--variant", default="", help="compile.py's --variant words for one alternative form")
    opts = parser.parse_args()
    case = next((c for c in bench.CASES if c.name == opts.model), None)
    if case is None:
        parser.error(f"unknown model {opts.model!r}")
    with tempfile.TemporaryDirectory(prefix="exir-dispatches-") as d:
        tmp = pathlib.Path(d)
        vmfb, inputs = compiled_module(case, tmp, bench.Alternative.parse(opts.variant), opts.threads)
        whole, groups = profile(vmfb, inputs, opts.calls, opts.threads, tmp)
    report(whole, groups, opts.calls, opts.top)


if __name__ == "__main__":
    main()
