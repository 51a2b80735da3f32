"""
Whole-program timings of the `.pt2` import and the interpreter, each as a ratio
against its PyTorch peer measured in the same run.

1. Interpreter overhead per op: a 1000-op graph of small tensors (4x16), run by
   `ProgramRunner`, by torch eager and by `torch.fx.Interpreter` on the
   symbolically traced module. Targets: <= 1x eager, <= 0.2x fx.Interpreter.
2. `.pt2` import per node: `load_pt2` (bytes -> verified-ready IR, weights
   included) against `torch.export.load` on the same archive. Target: <= 50 us
   per node.
3. End to end: one forward call of a CNN and of an attention block, loaded from
   their `.pt2`, against torch eager on the same input. Target: <= 2x. The
   first call (import + compile + run) is reported too.

Run: `python benchmarks/run_programs.py [interpreter] [import] [e2e]` (needs the
torch extra for the peers). Both sides run single-threaded (torch intra-op threads
and the BLAS under numpy), so that a busy machine does not favour either side; the
timings of the two sides are interleaved and each figure is a median.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy and torch load their BLAS

import io
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.fx
import torch.nn.functional as F
from torch import nn

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner

N_OPS = 1000


def median_time(fn: Callable[[], Any], repeat: int = 7, number: int = 1) -> float:
    """Median seconds per call over `repeat` batches of `number` calls."""
    return compare([fn], repeat, number)[0]


def compare(fns: list[Callable[[], Any]], repeat: int = 9, number: int = 1) -> list[float]:
    """Median seconds per call of each function, their batches interleaved so that
    load changes on the machine hit all of them alike."""
    for fn in fns:
        fn()  # warm up
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(repeat):
        for fn, acc in zip(fns, times):
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            acc.append((time.perf_counter() - t0) / number)
    return [statistics.median(t) for t in times]


class Chain(nn.Module):
    """linear, relu, scale, residual add, softmax: repeated to `n_ops` ops."""

    def __init__(self, n_ops: int, features: int = 16) -> None:
        super().__init__()
        self.blocks = n_ops // 5
        self.weights = nn.ParameterList(
            [nn.Parameter(torch.randn(features, features) * 0.3) for _ in range(self.blocks)]
        )
        self.biases = nn.ParameterList([nn.Parameter(torch.randn(features) * 0.1) for _ in range(self.blocks)])

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for w, b in zip(self.weights, self.biases):
            y = F.linear(x, w, b)
            y = torch.relu(y)
            y = y * 0.5
            y = y + x
            x = torch.softmax(y, -1)
        return x


class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AvgPool2d(2),
        )
        self.head = nn.Linear(32 * 8 * 8, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.flatten(self.features(x), 1))


class Attention(nn.Module):
    def __init__(self, d: int = 64, heads: int = 4) -> None:
        super().__init__()
        self.heads = heads
        self.norm = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm(x)).chunk(3, dim=-1)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        scores = q @ k.transpose(-2, -1) / (d // self.heads) ** 0.5
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), diagonal=1)
        scores = scores.masked_fill(mask, float("-inf"))
        out = torch.softmax(scores, -1) @ v
        return x + self.proj(out.transpose(1, 2).reshape(b, t, d))


def archive(model: nn.Module, args: tuple[torch.Tensor, ...], core: bool = False) -> bytes:
    ep = torch.export.export(model.eval(), args)
    if core:
        ep = ep.run_decompositions()
    buf = io.BytesIO()
    torch.export.save(ep, buf)
    return buf.getvalue()


def count_call_nodes(data: bytes) -> tuple[int, int]:
    ep = torch.export.load(io.BytesIO(data))
    nodes = list(ep.graph.nodes)
    return sum(n.op == "call_function" for n in nodes), len(nodes)


def bench_interpreter() -> None:
    torch.manual_seed(0)
    model = Chain(N_OPS).eval()
    x = torch.randn(4, 16)
    data = archive(model, (x,))
    n_ops, _ = count_call_nodes(data)
    runner = ProgramRunner(load_pt2(data, "chain.pt2"))
    x_np = x.numpy()
    ours = runner.run([x_np])[0]
    with torch.no_grad():
        expected = model(x).numpy()
    assert np.allclose(ours, expected, rtol=1e-4, atol=1e-5), "the interpreter disagrees with eager"
    gm = torch.fx.symbolic_trace(model)
    fx_interp = torch.fx.Interpreter(gm)
    with torch.no_grad():
        t_ours, t_eager, t_fx = compare([lambda: runner.run([x_np]), lambda: model(x), lambda: fx_interp.run(x)], number=3)
    print(f"interpreter, {n_ops}-op graph of 4x16 tensors ({runner.num_steps} compiled steps):")
    print(f"  ours            {t_ours / n_ops * 1e6:8.2f} us/op")
    print(f"  torch eager     {t_eager / n_ops * 1e6:8.2f} us/op   ratio ours/eager = {t_ours / t_eager:.2f}  (target <= 1)")
    print(f"  fx.Interpreter  {t_fx / n_ops * 1e6:8.2f} us/op   ratio ours/fx    = {t_ours / t_fx:.2f}  (target <= 0.2)")


def bench_import() -> None:
    torch.manual_seed(0)
    data = archive(Chain(N_OPS), (torch.randn(4, 16),))
    _, n_nodes = count_call_nodes(data)
    t_ours, t_torch = compare([lambda: load_pt2(data, "chain.pt2"), lambda: torch.export.load(io.BytesIO(data))], 5)
    print(f".pt2 import, {n_nodes} nodes ({len(data) // 1024} KiB archive):")
    print(f"  ours (load_pt2)     {t_ours / n_nodes * 1e6:8.2f} us/node  (target <= 50)")
    print(f"  torch.export.load   {t_torch / n_nodes * 1e6:8.2f} us/node  ratio ours/torch = {t_ours / t_torch:.2f}")


def bench_end_to_end() -> None:
    cases: list[tuple[str, nn.Module, torch.Tensor]] = [
        ("cnn (conv-bn-relu-pool x2, linear; 8x3x32x32)", SmallCNN(), torch.randn(8, 3, 32, 32)),
        ("attention (layernorm, qkv, causal softmax; 4x32x64)", Attention(), torch.randn(4, 32, 64)),
    ]
    print("end to end, one forward call:")
    for name, model, x in cases:
        torch.manual_seed(0)
        model.eval()
        for ir, core in (("training IR", False), ("core ATen IR", True)):
            data = archive(model, (x,), core=core)
            t0 = time.perf_counter()
            runner = ProgramRunner(load_pt2(data, "m.pt2"))
            out = runner.run([x.numpy()])[0]
            cold = time.perf_counter() - t0
            x_np = x.numpy()
            with torch.no_grad():
                expected = model(x).numpy()
                assert np.allclose(out, expected, rtol=1e-4, atol=1e-4), f"{name}: results differ from eager"
                t_ours, t_eager = compare([lambda: runner.run([x_np]), lambda: model(x)], number=5)
            print(
                f"  {name}, {ir}: ours {t_ours * 1e3:7.3f} ms, eager {t_eager * 1e3:7.3f} ms, "
                f"ratio {t_ours / t_eager:5.2f} (target <= 2); first call incl. import {cold * 1e3:.1f} ms"
            )


def main() -> None:
    torch.set_num_threads(1)
    which = sys.argv[1:] or ["interpreter", "import", "e2e"]
    if "interpreter" in which:
        bench_interpreter()
    if "import" in which:
        bench_import()
    if "e2e" in which:
        bench_end_to_end()


if __name__ == "__main__":
    main()
