"""
ResNet-style inference in the interpreter with and without `fold-conv-bn` + `fuse-pointwise`.

Usage: python benchmarks/fusion.py [--reps N] [--zoo] [--all-zoo [--models a,b]]

Exports a small ResNet (stem, four BasicBlocks with batch norm, 32x32 inputs)
with torch.export when torch is installed (else, or with --zoo, the zoo's
`resnet_blocks` core IR), runs it in our interpreter as exported and after
the passes, interleaving the two, single-threaded, and prints medians and
the speed-up. The outputs are checked to agree first.

`--all-zoo` does the same for every model of `tests/zoo/` (core IR; the zoo's
inputs): as exported, after `fuse-pointwise` alone and after
`optimize-inference`, and prints the time ratios against "as exported" --
the passes must never make a program slower (ratio <= 1.0, within noise).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import pass_harness as ph


def export_resnet():
    import torch

    torch.set_num_threads(1)
    nn = torch.nn

    class Block(nn.Module):
        def __init__(self, cin: int, cout: int, stride: int) -> None:
            super().__init__()
            self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
            self.bn1 = nn.BatchNorm2d(cout)
            self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
            self.bn2 = nn.BatchNorm2d(cout)
            self.down = (
                nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
                if stride != 1 or cin != cout
                else nn.Identity()
            )

        def forward(self, x):
            y = torch.relu(self.bn1(self.conv1(x)))
            return torch.relu(self.bn2(self.conv2(y)) + self.down(x))

    class ResNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.stem = nn.Sequential(nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU())
            self.layers = nn.Sequential(Block(16, 16, 1), Block(16, 32, 2), Block(32, 32, 1), Block(32, 64, 2))
            self.fc = nn.Linear(64, 10)

        def forward(self, x):
            return self.fc(self.layers(self.stem(x)).mean((2, 3)))

    torch.manual_seed(0)
    model = ResNet()
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            with torch.no_grad():
                m.running_mean.uniform_(-0.5, 0.5)
                m.running_var.uniform_(0.5, 2.0)
    model.eval()
    from xdsl_exir.frontends.torch_live import import_exported_program

    ep = torch.export.export(model, (torch.randn(8, 3, 32, 32),)).run_decompositions()
    return import_exported_program(ep), "ResNet (4 BasicBlocks, 8x3x32x32)"


def interleaved(fns: dict[str, Callable[[], object]], reps: int, sample_s: float = 0.02) -> dict[str, float]:
    """Median CPU seconds per call of each function, round-robin with a rotating start; each
    sample is as many calls as fill `sample_s`, so that sub-millisecond programs are not timer
    noise. CPU time of this (single-threaded) process, not wall time: on a shared machine the
    time spent waiting for a core is the other programs', not ours."""
    number: dict[str, int] = {}
    for name, fn in fns.items():
        fn()
        t = time.process_time()
        fn()
        number[name] = max(1, min(2000, int(sample_s / max(time.process_time() - t, 1e-7))))
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            fn, k = fns[name], number[name]
            t = time.process_time()
            for _ in range(k):
                fn()
            times[name].append((time.process_time() - t) / k)
    return {n: statistics.median(ts) for n, ts in times.items()}


ZOO_PIPELINES = ("fuse-pointwise", "optimize-inference")


def all_zoo(reps: int, wanted: list[str]) -> None:
    """Every zoo model as exported and after each of `ZOO_PIPELINES`, interleaved; time ratios."""
    from xdsl_exir.interpreters.program import ProgramRunner

    print(f"zoo core IR: interpreter, single-threaded, CPU time, median of {reps} interleaved samples; ratio = after / as exported")
    print(f"  {'model':22s} {'exported ms':>11s}" + "".join(f" {p:>26s}" for p in ZOO_PIPELINES))
    worst: dict[str, float] = dict.fromkeys(ZOO_PIPELINES, 0.0)
    logs: dict[str, list[float]] = {p: [] for p in ZOO_PIPELINES}
    for entry in ph.zoo_models():
        name = entry["name"]
        if (wanted and name not in wanted) or not (ph.ZOO / f"{name}.core.pt2").exists():
            continue
        module = ph.load_zoo(name, "core")
        with np.load(ph.ZOO / f"{name}.inputs.npz") as f:
            xs = [f[f"arg{i}"] for i in range(len(f.files))]
        try:
            runners = {"exported": ProgramRunner(module)}
            for p in ZOO_PIPELINES:
                runners[p] = ProgramRunner(ph.apply(module, p))
            want = ph.run(module, xs)
            for p in ZOO_PIPELINES:
                ph.assert_same_outputs(ph.run(ph.apply(module, p), xs), want, rtol=1e-4, atol=1e-5)
        except Exception as e:  # a model the interpreter or a pass cannot take: say so, go on
            print(f"  {name:22s} skipped: {type(e).__name__}: {str(e).splitlines()[0][:100] if str(e) else ''}")
            continue
        fns = {k: (lambda r=r: r.run([np.array(x, copy=True) if isinstance(x, np.ndarray) else x for x in xs])) for k, r in runners.items()}
        med = interleaved(fns, reps)
        base = med["exported"]
        cells = []
        for p in ZOO_PIPELINES:
            ratio = med[p] / base
            worst[p] = max(worst[p], ratio)
            logs[p].append(math.log(ratio))
            cells.append(f" {med[p] * 1e3:10.3f} ms  {ratio:5.2f}x {'SLOWER' if ratio > 1.05 else '':6s}  ")
        print(f"  {name:22s} {base * 1e3:11.3f}" + "".join(cells), flush=True)
    for p in ZOO_PIPELINES:
        if logs[p]:
            print(f"  {p}: geometric mean {math.exp(sum(logs[p]) / len(logs[p])):.2f}x, worst {worst[p]:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--reps", type=int, default=15)
    parser.add_argument("--zoo", action="store_true", help="use the zoo's resnet_blocks instead of exporting")
    parser.add_argument("--all-zoo", action="store_true", help="every zoo model, as exported against the passes")
    parser.add_argument("--models", default="", help="with --all-zoo: comma-separated zoo model names")
    opts = parser.parse_args()
    if opts.all_zoo:
        all_zoo(opts.reps, [m for m in opts.models.split(",") if m])
        return
    from xdsl_exir.interpreters.program import ProgramRunner

    module, label = (ph.load_zoo("resnet_blocks", "core"), "zoo resnet_blocks") if opts.zoo else (None, "")
    if module is None:
        try:
            module, label = export_resnet()
        except ImportError:
            module, label = ph.load_zoo("resnet_blocks", "core"), "zoo resnet_blocks"
    variants = {
        "as exported": module,
        "fold-conv-bn": ph.apply(module, "fold-conv-bn"),
        "fold-conv-bn,fuse-pointwise": ph.apply(module, "fold-conv-bn,fuse-pointwise"),
        "fold-conv-bn,fuse-pointwise{min-size=1}": ph.apply(module, "fold-conv-bn,fuse-pointwise{min-size=1}"),
    }
    runners = {k: ProgramRunner(m) for k, m in variants.items()}
    xs = ph.random_flat_inputs(module, 0)
    want = runners["as exported"].run(xs)
    for name, r in runners.items():
        got = r.run(xs)
        for g, w in zip(got, want, strict=True):
            np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4, err_msg=name)
    times: dict[str, list[float]] = {k: [] for k in runners}
    for _ in range(opts.reps):
        for name, r in runners.items():  # interleaved
            t = time.perf_counter()
            r.run(xs)
            times[name].append(time.perf_counter() - t)
    base = statistics.median(times["as exported"])
    print(f"{label}: interpreter, single-threaded, median of {opts.reps} interleaved runs")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"  {name:42s} {med * 1e3:8.2f} ms   {base / med:5.2f}x   ({(1 - med / base) * 100:5.1f}% less time)")


if __name__ == "__main__":
    main()
