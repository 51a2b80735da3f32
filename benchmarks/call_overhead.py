"""
The fixed cost of one call of a program compiled by IREE: what the project
adds around IREE's own function call, and how that compares with torch eager
and onnxruntime on the same small models.

Usage:
    .venv/bin/python benchmarks/call_overhead.py [--reps N] [--wall] [--split]

Programs: a trivial one (`x + 1` on four floats, where everything but the call
is overhead) and the zoo's `mlp` (`tests/zoo/mlp.core.pt2`, 4x16 input).
Runners, interleaved round-robin with a rotating start, median per call in CPU
time of this process (`--wall`: wall clock), one thread each:

- `iree`: IREE's own floor: the module's `forward` invoked on the VM context
  with its argument list of buffer views prepared once, the results left in IREE;
- `iree-py`: `iree.runtime`'s Python call of the same function on numpy arrays,
  results read back by `to_host()` (what IREE's Python API costs as it comes);
- `exir`: `compile_program(...)(*inputs)`, every check of the contract included,
  the outputs numpy arrays;
- `artifact`: the same program saved as a compiled artifact and called through
  `xdsl_exir.runtime.load(...)` (numpy and IREE's runtime only), outputs in the
  export's structure;
- `exir-torch`: `torch.compile(backend="exir")` on the same model (Dynamo's guards
  and the tensor conversions on top);
- `dynamo`: `torch.compile` with a backend whose graph costs nothing
  (`dynamo_floor.py`): the floor of Dynamo's and AOTAutograd's wrappers, which
  every backend pays;
- `eager`: the exported program's module in torch eager;
- `ort`: onnxruntime (when installed) on the same module.

`--split` adds, for the zoo `mlp`, the pieces of one prepared call
(`runtime.DirectCall` on a kept input buffer) timed one by one, best of 7
batches of CPU time: the argument test, the lock, writing the input into the
kept buffer, IREE's invoke (with the result list it fills), reading a result
out of that list, mapping it and wrapping it as a numpy array, and the alias
test against the kept buffer.

Nothing here asserts a time: the machine may be shared.
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import gc
import pathlib
import statistics
import sys
import tempfile
import threading
import time
import timeit
import warnings
from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
import torch

import xdsl_exir
from xdsl_exir import runtime as artifact_runtime
from xdsl_exir.frontends.torch_live import import_exported_program
from xdsl_exir.targets.iree import compile_program
from xdsl_exir.targets.iree_bundle import save_bundle

torch.set_num_threads(1)
ROOT = pathlib.Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
sys.path.insert(0, str(ROOT / "scripts"))

import gen_zoo  # pyright: ignore[reportMissingImports] - scripts/ is put on sys.path just above

sys.path.insert(0, str(ROOT / "benchmarks"))
from dynamo_floor import floor_backend


class AddOne(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + 1


def interleave(fns: dict[str, Callable[[], Any]], reps: int, clock: Callable[[], float]) -> dict[str, list[float]]:
    """Seconds per call of each function, one sample per round, round-robin with a rotating start."""
    number: dict[str, int] = {}
    for name, fn in fns.items():
        for _ in range(20):
            fn()
        t = clock()
        for _ in range(20):
            fn()
        number[name] = max(10, min(5000, int(0.02 / max((clock() - t) / 20, 1e-8))))
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    gc.collect()
    for rep in range(reps):
        for name in names[rep % len(names) :] + names[: rep % len(names)]:
            fn, k = fns[name], number[name]
            t = clock()
            for _ in range(k):
                fn()
            times[name].append((clock() - t) / k)
    return times


def _paired(times: dict[str, list[float]], name: str, *less: str) -> float:
    """The median over rounds of `name`'s time less the others' in the same round."""
    return statistics.median(t - sum(times[o][i] for o in less) for i, t in enumerate(times[name]))


def ort_runner(model: torch.nn.Module, args: tuple[torch.Tensor, ...], tmp: pathlib.Path) -> Callable[[], Any] | None:
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


def runners(
    module: torch.nn.Module, program: Any, args: tuple[torch.Tensor, ...], tmp: pathlib.Path
) -> dict[str, Callable[[], Any]]:
    compiled = compile_program(program, threads=1)
    arrays = [a.numpy() for a in args]
    want = module(*args)
    got = compiled(*arrays)
    np.testing.assert_allclose(got[0], want.detach().numpy(), rtol=1e-5, atol=1e-6)
    bundle = tmp / f"artifact{len(list(tmp.iterdir()))}"
    save_bundle(compiled, bundle)
    loaded = artifact_runtime.load(bundle, threads=1)
    np.testing.assert_array_equal(loaded.run_flat(arrays)[0], got[0])

    # IREE's floor: the same module's function, every placeholder's array (weights included) prepared once.
    executor: Any = compiled.runner.graph
    fn = executor._fn
    prepared: list[Any] = []
    state = compiled.runner.state
    user = iter(arrays)
    # the runner's placeholders, read below its public API on purpose: this is the floor under it
    for inp in compiled.runner._inputs:  # pyright: ignore[reportPrivateUsage] - the floor prepares them itself
        prepared.append(next(user) if inp.kind.name == "user_input" else state[cast(str, inp.target)])
    call_args = [prepared[s.placeholder] for s in executor._slots]

    def python_api() -> Any:
        r = fn(*call_args)
        return r.to_host()

    runtime = executor._runtime
    device = executor._device
    views = [
        device.allocator.allocate_buffer_copy(
            memory_type=runtime.MemoryType.DEVICE_LOCAL, allowed_usage=runtime.BufferUsage.DEFAULT, device=device,
            buffer=a, element_type=runtime.array_interop.map_dtype_to_element_type(a.dtype),
        )
        for a in call_args
    ]  # fmt: skip
    prepared_list = runtime.VmVariantList(len(views))
    for v in views:
        prepared_list.push_ref(v)
    vm_context, vm_function = executor._ctx.vm_context, fn.vm_function

    def floor() -> Any:
        results = runtime.VmVariantList(1)
        vm_context.invoke(vm_function, prepared_list, results)
        return results

    dyn = torch.compile(module, backend="exir", options={"backend": "iree", "threads": 1})
    floor_compiled = torch.compile(module, backend=floor_backend)
    with torch.inference_mode():
        dyn(*args)
        floor_compiled(*args)
    fns: dict[str, Callable[[], Any]] = {
        "iree": floor,
        "iree-py": python_api,
        "exir": lambda: compiled(*arrays),
        "artifact": lambda: loaded(*arrays),
        "exir-torch": lambda: dyn(*args),
        "dynamo": lambda: floor_compiled(*args),
        "eager": lambda: module(*args),
    }
    ort = ort_runner(module, args, tmp)
    if ort is not None:
        fns["ort"] = ort
    return fns


def split(program: Any, x: np.ndarray) -> list[tuple[str, float]]:
    """Microseconds of CPU time of each piece of one prepared call of `program` on `x` (best of 7 batches)."""
    executor: Any = program.runner.graph
    runtime, device = executor._runtime, executor._device
    element_type = runtime.array_interop.map_dtype_to_element_type(x.dtype)
    view = device.allocator.allocate_buffer_copy(
        runtime.MemoryType.DEVICE_LOCAL, runtime.BufferUsage.DEFAULT, device, x, element_type
    )
    staging = np.ndarray(x.shape, x.dtype, buffer=view.map())
    args = runtime.VmVariantList(1)
    args.push_ref(view)
    out = runtime.VmVariantList(1)
    context, function = executor._ctx.vm_context, executor._fn.vm_function
    context.invoke(function, args, out)
    view_type, result = runtime.HalBufferView, out.get_as_object(0, runtime.HalBufferView)
    mapped = result.map()
    lock = threading.Lock()
    shape, dtype = x.shape, x.dtype
    array = np.ndarray(tuple(result.shape), np.float32, buffer=mapped)
    pieces: dict[str, Callable[[], Any]] = {
        "whole call": lambda: program(x),
        "argument test": lambda: type(x) is np.ndarray and x.shape == shape and x.dtype is dtype,
        "lock": lambda: lock.acquire(False) and lock.release(),
        "input into kept buffer": lambda: staging.__setitem__(Ellipsis, x),
        "IREE invoke": lambda: context.invoke(function, args, out),
        "result from the list": lambda: out.get_as_object(0, view_type),
        "map": lambda: result.map(),
        "numpy array over it": lambda: np.ndarray(array.shape, np.float32, buffer=mapped),
        "alias test": lambda: np.may_share_memory(array, staging),
        "(empty lambda)": lambda: None,
    }
    n = 20000
    return [
        (name, min(timeit.repeat(fn, number=n, repeat=7, timer=time.process_time)) / n * 1e6)
        for name, fn in pieces.items()
    ]


def main(argv: Sequence[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--wall", action="store_true", help="wall clock instead of this process's CPU time")
    p.add_argument("--split", action="store_true", help="also time the pieces of one prepared call of the mlp")
    a = p.parse_args(argv)
    clock = time.perf_counter if a.wall else time.process_time
    x = torch.randn(4)
    add_one = AddOne().eval()
    mlp = gen_zoo.MLP().eval()  # the zoo's module, its weights from the zoo's archive
    mlp.load_state_dict(torch.export.load(str(ZOO / "mlp.core.pt2")).state_dict)
    mlp_input = torch.from_numpy(np.load(ZOO / "mlp.inputs.npz")["arg0"])
    cases = {
        "trivial (x + 1)": (add_one, import_exported_program(torch.export.export(add_one, (x,))), (x,)),
        "mlp (zoo, 4x16)": (mlp, str(ZOO / "mlp.core.pt2"), (mlp_input,)),
    }
    rows: list[tuple[str, dict[str, list[float]]]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, (module, program, args) in cases.items():
            with torch.inference_mode():
                fns = runners(module, program, args, pathlib.Path(tmp))
                rows.append((name, interleave(fns, a.reps, clock)))
    print(f"xdsl_exir from {pathlib.Path(xdsl_exir.__file__).parent.parent}")
    print("load average (1, 5, 15 min): " + ", ".join(f"{x:.2f}" for x in os.getloadavg()))
    print(f"median {'wall-clock' if a.wall else 'CPU'} time per call, one thread")
    cols = ["iree", "iree-py", "exir", "artifact", "exir-torch", "dynamo", "eager", "ort"]
    # exir-iree (artifact-iree): what compile_program's (runtime.load's) call adds to IREE's; torch-ours: what the exir
    # backend adds to IREE's call and Dynamo's floor together. Each the median of the differences within a round,
    # which a loaded machine's drift between rounds leaves out.
    extra: dict[str, Callable[[dict[str, list[float]]], float]] = {
        "exir-iree": lambda t: _paired(t, "exir", "iree"),
        "artifact-iree": lambda t: _paired(t, "artifact", "iree"),
        "torch-ours": lambda t: _paired(t, "exir-torch", "dynamo", "iree"),
    }
    print(f"{'us per call':<20}" + "".join(f"{c:>11}" for c in cols) + "".join(f"{c:>14}" for c in extra))
    for name, t in rows:
        cells = "".join(f"{statistics.median(t[c]) * 1e6:>11.1f}" if c in t else f"{'-':>11}" for c in cols)
        print(f"{name:<20}{cells}" + "".join(f"{f(t) * 1e6:>14.1f}" for f in extra.values()))
    if a.split:
        print("pieces of one prepared call of the mlp, us of CPU time (each with a lambda's call around it):")
        for piece, us in split(compile_program(str(ZOO / "mlp.core.pt2"), threads=1), mlp_input.numpy()):
            print(f"  {piece:<24}{us:>7.2f}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
