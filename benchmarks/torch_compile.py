"""
`torch.compile(backend="exir")` against Inductor (torch.compile's default),
torch eager and onnxruntime (inference only, when installed), one thread each.

Usage:
    .venv/bin/python benchmarks/torch_compile.py [--models a,b] [--reps N] [--quick]
        [--exir-backend iree|interpreter] [--no-train] [--wall]

Models: the largest of the zoo (`scripts/gen_zoo.py`'s `resnet18`,
`transformer_encoder`, `llama_block`, `dwsep_cnn`, built from the same seeds),
`llama` (the zoo's LLaMA block at width 256, hidden 768, 1x128, as in
`benchmarks/compile.py`) and the models `benchmarks/models.py` builds (`resnet18`, `transformer`, `vit`,
`convnext`, ...: `--models models:vit,models:bert`).

Per model, in this one process:

- compile time: the first call of each compiled model (Dynamo, AOTAutograd and
  the backend's compiler; IREE without its on-disk cache, which points to a
  temporary directory, so every compilation is cold);
- inference: `model(*args)` under `torch.inference_mode()`; beside the
  runners, `floor`: `torch.compile` with a backend whose graph costs nothing
  (`dynamo_floor.py`), what Dynamo and AOTAutograd cost around any backend's
  compiled function, so `exir - floor` is what the exir backend and IREE take
  and `ind - floor` what Inductor's code takes;
- one training step: forward, a mean-square loss, backward, SGD step, on a copy
  of the model in training mode (so batch norms update their statistics);
- outputs (and the first step's loss) checked against eager first;
- the exir backend's partition report (which pieces ran where);
- steady state: the runners interleaved round-robin (the starting runner
  rotates), each sample a batch of calls of at least a few milliseconds,
  median per call, in CPU time of this process (`--wall`: wall clock).

Everything runs on one thread: torch's intra- and inter-op threads, Inductor's
generated code, IREE's `local-sync` driver (`threads=1`), onnxruntime's intra
and inter-op threads, and the BLAS under numpy (environment set before numpy
loads). The machine may be shared: ratios are between runners of the same
interleaved run, and nothing here asserts a time.
"""

from __future__ import annotations

import os
import tempfile

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"  # before numpy (and torch) load their BLAS
_CACHE = tempfile.TemporaryDirectory(prefix="exir-iree-cache-")
os.environ["EXIR_IREE_CACHE"] = _CACHE.name  # cold IREE compilations: compile time is measured

import argparse
import copy
import gc
import logging
import math
import pathlib
import statistics
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
import torch.utils._pytree as pytree
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import gen_zoo
import models as model_cases
from dynamo_floor import floor_backend

from xdsl_exir.tools import torch_compile

RTOL = 2e-3  # against the largest output magnitude: deep float32 stacks sum in other orders
CLOCK: Callable[[], float] = time.process_time

ZOO_CASES = ("resnet18", "transformer_encoder", "llama_block", "dwsep_cnn")


@dataclass
class Case:
    name: str
    label: str
    make: Callable[[torch.Generator], nn.Module]
    args: Callable[[torch.Generator], tuple[Any, ...]]


def _cases() -> dict[str, Case]:
    cases: dict[str, Case] = {}
    for entry in gen_zoo.ENTRIES:
        if entry.name in ZOO_CASES:
            cases[entry.name] = Case(entry.name, f"zoo {entry.name}", entry.make, entry.args)
    cases["llama"] = Case(
        "llama",
        "LLaMA block d256 1x128",
        lambda g: gen_zoo.LlamaBlock(g, dim=256, heads=4, hidden=768, max_seq=128),
        lambda g: (torch.randn(1, 128, 256, generator=g),),
    )
    for c in model_cases.CASES:
        cases[f"models:{c.name}"] = Case(f"models:{c.name}", c.label, c.make, c.args)
    return cases


# -- measuring ------------------------------------------------------------------


def interleave(fns: dict[str, Callable[[], Any]], reps: int, sample_s: float) -> dict[str, float]:
    """Median seconds per call of each function, round-robin with a rotating start."""
    number: dict[str, int] = {}
    for name, fn in fns.items():
        fn()
        t = CLOCK()
        fn()
        number[name] = max(1, min(200, int(sample_s / max(CLOCK() - t, 1e-7))))
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    gc.collect()
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            fn, k = fns[name], number[name]
            t = CLOCK()
            for _ in range(k):
                fn()
            times[name].append((CLOCK() - t) / k)
    return {n: statistics.median(ts) for n, ts in times.items()}


def first_call(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()  # compile time is wall clock: iree-compile and the C++ compiler run in subprocesses too
    out = fn()
    return out, time.perf_counter() - t


def rel_error(got: Any, want: Any) -> float:
    worst = 0.0
    g_leaves, w_leaves = pytree.tree_leaves(got), pytree.tree_leaves(want)
    if len(g_leaves) != len(w_leaves):
        return math.inf
    for g, w in zip(g_leaves, w_leaves):
        g = np.asarray(g.detach().float() if isinstance(g, torch.Tensor) else g, dtype=np.float64)
        w = np.asarray(w.detach().float() if isinstance(w, torch.Tensor) else w, dtype=np.float64)
        if g.shape != w.shape:
            return math.inf
        scale = max(float(np.abs(w).max()) if w.size else 0.0, 1e-6)
        worst = max(worst, float(np.abs(g - w).max()) / scale if w.size else 0.0)
    return worst


def ort_runner(model: nn.Module, args: tuple[Any, ...], tmp: pathlib.Path) -> Callable[[], Any] | None:
    try:
        import onnxruntime as ort
    except ImportError:
        return None
    path = tmp / "model.onnx"
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, str(path), dynamo=False)
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    feed = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args)}
    return lambda: sess.run(None, feed)


def loss_of(out: Any) -> torch.Tensor:
    leaves = [t for t in pytree.tree_leaves(out) if isinstance(t, torch.Tensor) and t.is_floating_point()]
    return sum((t.float().square().mean() for t in leaves), torch.zeros(()))


# -- one model --------------------------------------------------------------------


@dataclass
class Row:
    name: str
    label: str
    infer_ms: dict[str, float] = field(default_factory=dict)
    train_ms: dict[str, float] = field(default_factory=dict)
    compile_s: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    placement: str = ""


def one_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:200]


def bench(case: Case, exir_backend: str, reps: int, sample_s: float, train: bool, tmp: pathlib.Path) -> Row:
    row = Row(case.name, case.label)
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    model = case.make(gen).eval()
    args = case.args(gen)
    exir_options = {"backend": exir_backend, "threads": 1}

    torch._dynamo.reset()
    torch_compile.reset_reports()
    infer: dict[str, Callable[[], Any]] = {}
    with torch.inference_mode():
        want = model(*args)
        infer["eager"] = lambda: model(*args)
        for name, compiled in (
            ("inductor", torch.compile(copy.deepcopy(model))),
            ("exir", torch.compile(copy.deepcopy(model), backend="exir", options=exir_options)),
        ):
            try:
                got, seconds = first_call(lambda c=compiled: c(*args))
            except Exception as e:
                row.errors.append(f"{name} inference: {one_line(e)}")
                continue
            row.compile_s[f"{name} infer"] = seconds
            err = rel_error(got, want)
            if err > RTOL:
                row.errors.append(f"{name} inference differs from eager: relative error {err:.2e}")
            infer[name] = lambda c=compiled: c(*args)
        try:
            ort = ort_runner(model, args, tmp)
        except Exception as e:
            ort = None
            row.errors.append(f"onnxruntime: {one_line(e)}")
        if ort is not None:
            infer["onnxruntime"] = ort
        floor = torch.compile(copy.deepcopy(model), backend=floor_backend)
        floor(*args)
        infer["floor"] = lambda: floor(*args)
        row.infer_ms = {k: v * 1e3 for k, v in interleave(infer, reps, sample_s).items()}
    row.placement = torch_compile.report()

    if not train:
        return row
    torch._dynamo.reset()
    torch_compile.reset_reports()
    steps: dict[str, Callable[[], Any]] = {}
    first_loss: dict[str, float] = {}
    for name in ("eager", "inductor", "exir"):
        m = copy.deepcopy(model).train()
        opt = torch.optim.SGD(m.parameters(), lr=1e-4)
        fwd: Callable[..., Any] = m
        if name == "inductor":
            fwd = torch.compile(m)
        elif name == "exir":
            fwd = torch.compile(m, backend="exir", options=exir_options)

        def step(fwd: Callable[..., Any] = fwd, opt: Any = opt) -> float:
            opt.zero_grad(set_to_none=True)
            loss = loss_of(fwd(*args))
            loss.backward()
            opt.step()
            return loss.item()

        try:
            loss, seconds = first_call(step)
        except Exception as e:
            row.errors.append(f"{name} training: {one_line(e)}")
            continue
        first_loss[name] = loss
        if name != "eager":
            row.compile_s[f"{name} train"] = seconds
            if abs(loss - first_loss["eager"]) > 1e-4 * max(abs(first_loss["eager"]), 1e-6):
                row.errors.append(f"{name} first training loss {loss:.6g} vs eager {first_loss['eager']:.6g}")
        steps[name] = step
    if steps:  # (a model eager cannot train, batch norm on one value per channel, has none)
        row.train_ms = {k: v * 1e3 for k, v in interleave(steps, reps, sample_s).items()}
    row.placement += "\n" + torch_compile.report()
    return row


# -- the table ----------------------------------------------------------------------


def fmt(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None or b == 0 else a / b


def report(rows: list[Row], exir_backend: str) -> None:
    print()
    # Other processes' load shows in every runner's time alike; the ratios are what compare.
    print("load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"Inference, ms per call (one thread; exir = torch.compile(backend='exir') on {exir_backend}):")
    print("(floor: Dynamo's and AOTAutograd's wrappers around a graph that costs nothing; net = minus the floor)")
    head = (
        f"{'model':<34} {'eager':>9} {'inductor':>9} {'exir':>9} {'ort':>9} {'floor':>9} {'exir/ind':>9} "
        f"{'net ratio':>9} {'compile ind s':>14} {'compile exir s':>15}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        i = r.infer_ms
        floor = i.get("floor")
        net = None
        if floor is not None and i.get("exir") is not None and i.get("inductor") is not None:
            net = ratio(i["exir"] - floor, i["inductor"] - floor)
        print(
            f"{r.label:<34} {fmt(i.get('eager')):>9} {fmt(i.get('inductor')):>9} {fmt(i.get('exir')):>9} "
            f"{fmt(i.get('onnxruntime')):>9} {fmt(floor, 3):>9} {fmt(ratio(i.get('exir'), i.get('inductor'))):>9} "
            f"{fmt(net):>9} {fmt(r.compile_s.get('inductor infer'), 1):>14} {fmt(r.compile_s.get('exir infer'), 1):>15}"
        )
    if any(r.train_ms for r in rows):
        print()
        print("One training step (forward, backward, SGD), ms:")
        head = f"{'model':<34} {'eager':>9} {'inductor':>9} {'exir':>9} {'exir/eager':>11} {'compile ind s':>14} {'compile exir s':>15}"
        print(head)
        print("-" * len(head))
        for r in rows:
            t = r.train_ms
            print(
                f"{r.label:<34} {fmt(t.get('eager')):>9} {fmt(t.get('inductor')):>9} {fmt(t.get('exir')):>9} "
                f"{fmt(ratio(t.get('exir'), t.get('eager'))):>11} "
                f"{fmt(r.compile_s.get('inductor train'), 1):>14} {fmt(r.compile_s.get('exir train'), 1):>15}"
            )
    print()
    for r in rows:
        print(f"{r.name}: where the exir backend ran each graph")
        for line in r.placement.splitlines():
            print(f"    {line}")
        for e in r.errors:
            print(f"    ! {e}")


def main(argv: Sequence[str] | None = None) -> None:
    cases = _cases()
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("--models", default="transformer_encoder,resnet18", help=f"comma-separated, of {','.join(cases)}")
    parser.add_argument("--reps", type=int, default=None, help="interleaved samples per runner (default 7, --quick 3)")
    parser.add_argument("--quick", action="store_true", help="few short samples: a smoke run")
    parser.add_argument("--exir-backend", default="iree", choices=("iree", "interpreter"))
    parser.add_argument("--no-train", action="store_true", help="inference only")
    parser.add_argument("--wall", action="store_true", help="time wall-clock instead of CPU time")
    opts = parser.parse_args(argv)
    global CLOCK
    if opts.wall:
        CLOCK = time.perf_counter
    wanted = [m for m in opts.models.split(",") if m]
    unknown = sorted(set(wanted) - set(cases))
    if unknown:
        parser.error(f"unknown models: {', '.join(unknown)}")
    reps = opts.reps or (3 if opts.quick else 7)
    sample_s = 0.01 if opts.quick else 0.05
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch._inductor.config.compile_threads = 1
    logging.getLogger("xdsl_exir.torch_compile").setLevel(logging.ERROR)  # the report is printed below the table
    rows = []
    with model_cases.one_thread(), tempfile.TemporaryDirectory(prefix="exir-torch-compile-") as d:
        for name in wanted:
            case = cases[name]
            print(f"{case.name} ({case.label}) ...", flush=True)
            try:
                rows.append(bench(case, opts.exir_backend, reps, sample_s, not opts.no_train, pathlib.Path(d)))
            except Exception as e:
                print(f"    ! {one_line(e)}")
    report(rows, opts.exir_backend)


if __name__ == "__main__":
    main()
