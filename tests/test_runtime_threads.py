"""
The CPU runtime's threads (`xdsl_exir.runtime.open_module`, issue 24): one
thread runs on the caller (`local-sync`), more on a `local-task` device of that
many workers, each count its own device. IREE reads the task flags once per
driver and `iree.runtime.Config` hands out the first device of a name, so a
second worker count in one process ran on the first one's workers; the check
counts the worker threads IREE names in a fresh interpreter (Linux's
`/proc/self/task`). No timing here. Skipped without the `iree` extra.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

import numpy as np
import pytest

pytest.importorskip("iree.compiler")
pytest.importorskip("iree.runtime")

from xdsl_exir import runtime

ROOT = pathlib.Path(__file__).resolve().parents[1]

_DOUBLE = """
func.func @forward(%a: tensor<64xf32>) -> tensor<64xf32> {
  %0 = arith.addf %a, %a : tensor<64xf32>
  return %0 : tensor<64xf32>
}
"""


@pytest.fixture(scope="module")
def vmfb(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    """A module that doubles 64 floats, compiled for this CPU."""
    import iree.compiler as compiler

    path = tmp_path_factory.mktemp("threads") / "double.vmfb"
    flags = ["--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=generic"]
    data = compiler.compile_str(_DOUBLE, extra_args=flags)
    assert isinstance(data, bytes)
    path.write_bytes(data)
    return path


def test_worker_count_and_flags() -> None:
    assert runtime.cpu_workers(3) == 3
    assert runtime.cpu_workers(1) == 1
    want = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert runtime.cpu_workers(None) == want
    assert runtime.task_device_flags(2) == ("--task_topology_group_count=2",)


def test_one_thread_is_the_callers(vmfb: pathlib.Path) -> None:
    """threads=1 opens the module on `local-sync`, with no device of workers kept for it."""
    kept = runtime._TASK_DEVICES  # pyright: ignore[reportPrivateUsage] - the devices kept are what is under test
    before = dict(kept)
    ctx, fn = runtime.open_module(str(vmfb), "local-task", 1)
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(np.asarray(fn(x)), 2 * x)
    assert kept == before
    assert all(ctx.config.device is not d for d in before.values())


def test_each_worker_count_its_own_device(vmfb: pathlib.Path) -> None:
    """Two programs opened for 2 and then 5 threads in one process run on 2 and 5 workers."""
    if not pathlib.Path("/proc/self/task").is_dir():
        pytest.skip("counts threads through Linux's /proc")
    script = textwrap.dedent(
        """
        import collections, os, sys, time
        import numpy as np
        from xdsl_exir import runtime

        def workers():
            names = collections.Counter()
            for tid in os.listdir("/proc/self/task"):
                try:
                    with open(f"/proc/self/task/{tid}/comm") as f:
                        name = f.read().strip()
                except OSError:
                    continue
                if name.startswith("iree-worker-"):
                    names[int(name.rsplit("-", 1)[1])] += 1
            return dict(sorted(names.items()))

        x = np.arange(64, dtype=np.float32)
        kept = []
        for threads in (2, 5, 2):
            ctx, fn = runtime.open_module(sys.argv[1], "local-task", threads)
            assert (np.asarray(fn(x)) == 2 * x).all()
            kept.append((ctx, fn))
        devices = {id(ctx.config.device) for ctx, _ in kept}
        for _ in range(200):  # a worker names itself once it runs: wait for the seven
            if sum(workers().values()) >= 7:
                break
            time.sleep(0.05)
        print(len(devices), workers())
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run(
        [sys.executable, "-c", script, str(vmfb)], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert out.returncode == 0, out.stderr
    # two devices (the second program for 2 threads shares the first's); worker i of each
    # executor is named iree-worker-i: 0 and 1 twice, 2 to 4 once
    assert out.stdout.split("\n")[0] == "2 {0: 2, 1: 2, 2: 1, 3: 1, 4: 1}", out.stdout


def test_small_program_runs_on_the_caller(vmfb: pathlib.Path) -> None:
    """A program of fewer flops than `CALLER_BELOW_FLOPS` opens on `local-sync` whatever
    the threads; one at the bound, or of an unknown count, gets its workers."""
    kept = runtime._TASK_DEVICES  # pyright: ignore[reportPrivateUsage] - the devices kept are what is under test
    x = np.arange(64, dtype=np.float32)
    small, fn = runtime.open_module(str(vmfb), "local-task", 2, flops=runtime.CALLER_BELOW_FLOPS - 1)
    np.testing.assert_array_equal(np.asarray(fn(x)), 2 * x)
    assert all(small.config.device is not d for d in kept.values())
    for flops in (runtime.CALLER_BELOW_FLOPS, None):
        ctx, fn = runtime.open_module(str(vmfb), "local-task", 2, flops=flops)
        np.testing.assert_array_equal(np.asarray(fn(x)), 2 * x)
        assert any(ctx.config.device is d for d in kept.values())


def test_program_flops_is_the_count_without_annotating() -> None:
    """`program_flops` is flop-count's total for static sizes, None for symbolic ones, and
    leaves the program as it was (the count a compiled program's threads are sized by)."""
    from xdsl_exir.frontends.pt2 import load_pt2
    from xdsl_exir.interpreters.program import find_program
    from xdsl_exir.targets.iree import to_core
    from xdsl_exir.transforms.flop_count import count_program, program_flops

    zoo = ROOT / "tests" / "zoo"
    prog = find_program(to_core(load_pt2(str(zoo / "cnn_bn.core.pt2"))))
    before = str(prog)
    flops = program_flops(prog)
    assert str(prog) == before
    total, _ = count_program(prog)
    assert isinstance(flops, int) and flops == int(total) > 0
    dynamic = find_program(to_core(load_pt2(str(zoo / "dynamic_batch.core.pt2"))))
    assert program_flops(dynamic) is None
