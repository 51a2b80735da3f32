"""
Run a compiled artifact: a directory that `Program.compile(backend="iree").save(path)`
or `exir-opt m.pt2 --emit iree-bundle -o path` wrote, with nothing but numpy
and IREE's runtime (`iree-base-runtime`): no xDSL, sympy, torch or IREE
compiler is imported, so the artifact runs where only those two are installed.

    import xdsl_exir.runtime as rt
    f = rt.load("model.bundle")        # checks the manifest, maps the module and the weights
    y = f(x)                           # called like the exported module: pytree in, pytree out

The directory holds three files:

- `module.vmfb`: the module IREE compiled, without the large weights;
- `parameters.irpa`: an IREE parameter archive (written with the runtime's
  `ParameterIndex.create_archive_file`) holding the weights the module reads as
  named parameters (scope `model`, keyed by the state's name) and the initial
  values of the buffers the program writes;
- `manifest.json`: the format and its version, the versions of xdsl-exir and
  IREE, the target (device, CPU, flags), a call's floating-point operations
  (`CALLER_BELOW_FLOPS`), the calling convention (each argument
  and result of `@forward` with its kind, name, dtype and sizes, symbolic ones
  by name), the pytree specs, the range constraints, the buffers, and the size
  and SHA-256 of each file.

`load` refuses, with one paragraph naming what is wrong, a directory that is
not such an artifact, a manifest it cannot read or of another format version, a
module compiled by another IREE version than the installed runtime, and a file
that is missing or whose size or SHA-256 is not the manifest's (a truncated
copy, a stale file from another build). The module is memory-mapped
(`VmModule.mmap`) and the archive too (`ParameterIndex.load`), so the weights
are read by the pages IREE touches and are not copied into Python.

A call checks its inputs as the compiled program does: the number of inputs,
each one's dtype (a float32 array is rounded to a bfloat16 or float16 input,
as `.npz` files carry them), rank, static sizes, that a symbol has one value
across inputs, and the range constraint of each symbol. Constraints on derived
expressions (`2*s0 <= 100`) need sympy and are not checked here. Buffers the
program writes keep their values across calls, in this process.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import os
import platform
import re
import threading
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from typing import Any, cast

import ml_dtypes
import numpy as np

from xdsl_exir.utils.pytree import flatten_inputs, prepare_unflatten

__all__ = ["BundleError", "BundleProgram", "load"]

FORMAT = "xdsl-exir/iree-bundle"
FORMAT_VERSION = 1
MANIFEST = "manifest.json"
MODULE = "module.vmfb"
PARAMETERS = "parameters.irpa"
PARAMETER_SCOPE = "model"
"""The scope of the named parameters the lowering writes and the archive serves."""

_NUMPY_DTYPES = {
    "bool": "bool", "uint8": "uint8", "int8": "int8", "int16": "int16", "int32": "int32", "int64": "int64",
    "float16": "float16", "float32": "float32", "float64": "float64",
}  # fmt: skip
"""The dtypes that cross the function boundary, by torch's name (bfloat16: ml_dtypes)."""

_SYMBOL = re.compile(r"^[A-Za-z_]\w*$")
_HASH_CHUNK = 1 << 24


class BundleError(Exception):
    """A compiled artifact that cannot be loaded or a call it refuses; the message says what is wrong."""


def numpy_dtype(name: str) -> np.dtype[Any]:
    """The numpy dtype of a torch dtype name at the boundary."""
    if name == "bfloat16":
        return np.dtype(ml_dtypes.bfloat16)
    try:
        return np.dtype(_NUMPY_DTYPES[name])
    except KeyError:
        raise BundleError(f"dtype {name} cannot cross the compiled function's boundary") from None


def file_digest(path: str) -> str:
    """The SHA-256 of a file, read in chunks (a multi-gigabyte archive is never in memory whole)."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(_HASH_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def iree_runtime() -> Any:
    """IREE's runtime module, or a BundleError saying how to install it."""
    try:
        import iree.runtime as runtime
    except ImportError:
        raise BundleError(
            "running a compiled artifact needs IREE's runtime: pip install iree-base-runtime "
            "(of the version its manifest names)"
        ) from None
    return runtime


def runtime_version() -> str:
    """The installed IREE runtime's version."""
    try:
        return version("iree-base-runtime")
    except PackageNotFoundError:
        return "unknown"


def cpu_workers(threads: int | None) -> int:
    """
    The threads a CPU program runs on: `threads`, or with None every core this
    process may run on (its CPU affinity, which a container's CPU set narrows;
    `os.cpu_count()` where the platform has no affinity). 1 is the calling
    thread (`local-sync`), more are `local-task` workers (`task_device_flags`).
    """
    if threads is not None:
        return threads
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def task_device_flags(workers: int) -> tuple[str, ...]:
    """
    IREE's runtime flags for a `local-task` device of `workers` worker threads
    (2 or more; one thread is `local-sync`, on the caller): the worker count
    and nothing else.

    What else was tried at 2 threads on a 2-core machine that other work
    loaded (benchmarks/compile.py's docstring has the figures), and lost:
    workers spinning for more work between dispatches (`--task_worker_spin_us`
    50 or 500: SqueezeNet 1.6 -> 2.5 and 4.6 ms, median wall time), a spinning
    worker taking the core the working one or another process needs; workers
    pinned to the cores (`--task_topology_cpu_ids=0,1`), left waiting for a
    core another process holds; one worker (`--task_topology_group_count=1`),
    at twice the CPU time of `local-sync` (2.9 against 1.3 ms): the task
    system costs about 11 us of CPU time per dispatch, and the caller only
    waits. No flag makes the caller work beside the workers. On that machine
    the calling thread beat 2 workers on nine of ten models (0.58x the time,
    geometric mean), the encoder alone gaining from them (228 against 287 ms);
    `threads` >= 2 still gets its workers, as asked: where other work holds
    the cores, `threads=1` is the faster call.

    Measured again at load 5-8 (eleven models, wall time, caller, 2 workers
    and 2 spinning 10, 20, 50 and 200 us, interleaved; two runs): which of the
    caller and the workers wins a model changes from one run to the next
    (SqueezeNet 8.4 against 10.8 ms, then 11.2 against 4.0), and so do the
    geometric means (caller/workers 0.54, then 1.04; spinning 20 us/not 0.63,
    then 1.01; 50 us 0.96). Spinning keeps its cost on a one-input call (the
    zoo mlp: 35 us without, 0.17-0.46 ms with 10-50 us in the quieter run).
    On a quiet machine (load 0.9-1.4, nine models, wall time) spinning 20 us
    took 0.96x the time of parking, mixed (ViT-tiny 6.91 -> 4.98 ms, ResNet-18
    7.55 -> 8.19, the zoo's mlp 0.037 -> 0.056), and 50 us 1.16x. No spin,
    then, and no choice made per program from timings: a choice measured on a
    program's first calls would keep what one minute of load decided. The
    choice that is made, small programs on the calling thread, reads the
    program's size (`CALLER_BELOW_FLOPS`; benchmarks/compile.py's docstring has
    the tables).
    """
    return (f"--task_topology_group_count={workers}",)


CALLER_BELOW_FLOPS = 200_000_000
"""
A CPU program of fewer floating-point operations a call than this (torch's
count, `transforms.flop_count.program_flops`) runs on the calling thread even
where `threads` allows workers: the threads are the most a call may use, and
for such a program IREE's task system costs more than the second core gains.

Measured at two threads on a quiet 2-core machine (load 0.9-1.4; wall time,
interleaved, ms; 2 workers against the calling thread, and onnxruntime on 2
threads): MobileNetV3-small (13 MFLOP) 1.52 against 1.00 (ORT 0.95),
ShuffleNetV2 (26) 1.85 / 0.95 (1.42), SqueezeNet (43) 1.50 / 1.16 (0.64),
EfficientNet-B0 (66) 3.00 / 3.02 (2.54), RegNet-X-400MF (68) 4.61 / 2.60
(1.33), ViT-tiny (188) 6.91 / 6.50 (4.24), the zoo's mlp 0.037 / 0.013
(0.013); the workers won on the LLaMA block (235 MFLOP) 3.53 / 3.81 (2.32) and
ResNet-18 (297) 7.55 / 8.67 (5.01), and win on the encoder (3.5 GFLOP). The
task system costs about 11 us of CPU time a dispatch (`task_device_flags`), a
fixed cost that a small program's short dispatches do not repay. The bound
sits between ViT-tiny and the LLaMA block, where the two are within 8%; a
program whose count is unknown (symbolic sizes) gets its workers.

Measured again on another quiet 2-core machine (AMD EPYC, AVX-512), eager and
onnxruntime in the rotation, each sample after untimed calls of its runner: the
two are a coin flip from the LLaMA block to DenseNet-121 (465 MFLOP), and which
wins changes with the run (ResNet-18 5.34 / 4.19 ms workers / caller, then 4.47
/ 4.78; the LLaMA block 3.94 / 2.85, then 3.00 / 2.61; DenseNet-121 6.91 / 6.27,
then 6.67 / 6.66); the workers win clearly on the encoder (29.8 / 39.1). In IREE's
own harness (`iree-benchmark-module`, weights embedded) 2 workers took ResNet-18
from 4.75 to 3.95 ms and the LLaMA block from 2.52 to 2.09, and SqueezeNet from
0.69 to 1.20. One dispatch a call there, us on the caller / 1 worker / 2
workers: a 3x3 convolution's pad copy 21 / 95 / 98, its im2col columns 186 /
310 / 566, its product 2027 / - / 1158. The bound stays.
"""


_TASK_DEVICES: dict[tuple[str, tuple[str, ...]], Any] = {}
"""`local-task` devices by driver and runtime flags, each with its own workers (`_task_device`)."""
_TASK_DEVICES_LOCK = threading.Lock()


def _task_device(runtime: Any, driver: str, flags: tuple[str, ...]) -> Any:
    """
    A `local-task` device whose executor was started with `flags`, one per set
    of flags in this process. IREE reads the task flags when it creates a
    driver, and `iree.runtime.Config(name)` returns the first device of that
    name created in the process, whatever the flags then: a program opened
    for 4 threads after one for 2 would run on 2. So each set of flags gets a
    driver of its own, created just after its flags are parsed, and the
    device is kept for the next program opened with the same flags.
    """
    key = (driver, flags)
    with _TASK_DEVICES_LOCK:
        device = _TASK_DEVICES.get(key)
        if device is None:
            runtime.flags.parse_flags(*flags)
            # iree.runtime's public get_driver is the cached one, created with the flags of its first use
            device = runtime._binding.create_hal_driver(driver).create_default_device()
            _TASK_DEVICES[key] = device
    return device


def open_module(
    module: bytes | str,
    driver: str,
    threads: int | None,
    parameters: Any = None,
    function: str = "forward",
    flops: int | None = None,
) -> tuple[Any, Any]:
    """
    An IREE context holding a compiled module (its bytes, or a path to map), and its
    function `function` (`forward`; another in a module of several programs).
    `parameters` (a `ParameterIndex`) serves the named parameters the module reads,
    through an `io_parameters` module registered before it. On the CPU, `threads`
    <= 1 runs on the calling thread (`local-sync`), else on that many workers
    (`local-task` with `task_device_flags`; None: every core, `cpu_workers`), but
    a program of fewer than `CALLER_BELOW_FLOPS` floating-point operations a call
    (`flops`, when known) runs on the calling thread whatever `threads` allows. The
    one way both the compiler side (`targets/iree.py`) and `load` start a module.
    """
    runtime = iree_runtime()
    workers = cpu_workers(threads) if driver == "local-task" else 0
    if driver == "local-task" and (workers <= 1 or (flops is not None and flops < CALLER_BELOW_FLOPS)):
        config = runtime.Config("local-sync")
    elif driver == "local-task":
        config = runtime.Config(device=_task_device(runtime, driver, task_device_flags(workers)))
    else:
        config = runtime.Config(driver)
    ctx = runtime.SystemContext(config=config)
    if parameters is not None and len(parameters):
        provider = parameters.create_provider(scope=PARAMETER_SCOPE)
        ctx.add_vm_module(runtime.create_io_parameters_module(ctx.instance, provider))
    if isinstance(module, str):
        vm = runtime.VmModule.mmap(ctx.instance, module)
    else:
        vm = runtime.VmModule.copy_buffer(ctx.instance, module)
    ctx.add_vm_module(vm)
    return ctx, ctx.modules.module[function]


IN_PLACE_BYTES = 64 * 1024
"""Inputs of at least this many bytes are read in place when IREE can (`DirectCall`); smaller ones are copied, which costs less than the check."""

Spec = tuple[np.dtype[Any], tuple[int, ...]]
"""An argument's or result's numpy dtype and static sizes."""


class DirectCall:
    """
    A compiled function's call on a CPU device with the work per argument and
    result decided once, for arguments and results of fixed dtypes and sizes:
    `call(arrays)` gives the results as numpy arrays, or None where a value is
    not a numpy array of exactly its argument's dtype and sizes (the caller's
    general path then converts or refuses it, with its diagnostic) or where
    IREE's results are not as the signature says.

    iree.runtime's own call (`FunctionInvoker`) inspects every argument and
    result at each call, 10-15 us of Python for a small model; `call` is a
    closure built here for the program's count of arguments, so a call is the
    type, sizes and dtype test of each array, IREE's buffer copy, the VM's
    invoke and one numpy array per result, with nothing looked up. An input is
    written into a buffer kept for it (`_staged`), or, where another thread's
    call holds those, copied into a new IREE buffer (in C order: one IREE does
    not take as it is, strided, is copied to C order first); a large one (`IN_PLACE_BYTES`)
    that is C-contiguous, writable and aligned to 64 bytes is read where it lies
    (DLPack), no copy. A result is a writable numpy array over IREE's result
    buffer, which the array keeps alive, so it survives later calls. IREE may
    return an argument it found unchanged: a result sharing the memory of an
    input read in place, or the kept buffer, is copied, so no output aliases an
    input or changes at a later call. Concurrent calls are safe. The results'
    count, sizes and bytes are checked against the signature at the first call;
    where they differ, that call and every later one give None (`refused`).
    Callers read `call` at each call: it is replaced then.
    """

    def __init__(
        self,
        runtime: Any,
        context: Any,
        function: Any,
        arguments: Sequence[Spec],
        results: Sequence[Spec],
        error: Callable[[str], Exception],
    ) -> None:
        self._runtime = runtime
        self._device = context.config.device
        self._vm_context = context.vm_context
        self._vm_function = function.vm_function
        self._error = error
        self.arguments = [(dtype, shape, self.element_type(dtype)) for dtype, shape in arguments]
        self.results = list(results)
        self.large = [math.prod(shape) * dtype.itemsize >= IN_PLACE_BYTES for dtype, shape in arguments]
        """Per argument, whether it is read in place when IREE can."""
        # The closures hold this, not `self`: a program dropped is freed at once, not at the next cycle collection.
        self._checks = _FirstCall(self.results, runtime.HalBufferView)
        self._call = self._build()

    @property
    def call(self) -> Callable[[Sequence[Any]], list[np.ndarray] | None]:
        """The prepared call (`_refused` once IREE's results were found unlike the signature)."""
        if self._checks.refused:
            return _refused
        return self._call if self._call is not None else self._call_large

    @property
    def verified(self) -> bool:
        """Whether IREE's results were found of the signature's count, sizes and bytes (at the first call)."""
        return self._checks.verified

    @property
    def refused(self) -> bool:
        """Whether they were found otherwise: `call` then gives None."""
        return self._checks.refused

    @staticmethod
    def prepare(
        runtime: Any,
        context: Any,
        function: Any,
        arguments: Sequence[Spec],
        results: Sequence[Spec],
        error: Callable[[str], Exception],
    ) -> DirectCall | None:
        """A `DirectCall`, or None where an argument's dtype has no IREE element type."""
        element_type = runtime.array_interop.map_dtype_to_element_type
        if any(element_type(dtype) is None for dtype, _ in arguments):
            return None
        return DirectCall(runtime, context, function, arguments, results, error)

    def element_type(self, dtype: np.dtype[Any]) -> Any:
        """IREE's element type for arrays of `dtype`."""
        return self._runtime.array_interop.map_dtype_to_element_type(dtype)

    def copy_in(self, array: np.ndarray, element_type: Any) -> Any:
        """An array copied into a new IREE buffer view of `element_type`, in C order."""
        return _copy_in(self._runtime, self._device, self._error, array, element_type)

    def view_in_place(self, array: np.ndarray) -> Any | None:
        """
        An array's own memory as an IREE buffer view (DLPack, no copy), or None
        where IREE cannot read it there: not C-contiguous, read-only (DLPack before
        1.0 cannot say so), or not aligned to 64 bytes (numpy's allocations rarely
        are; torch's always).
        """
        flags = array.flags
        if not flags.c_contiguous or not flags.writeable or array.ctypes.data % 64:
            return None
        try:
            return self._device.from_dlpack_capsule(array.__dlpack__())
        except Exception:
            return None

    def _build(self) -> Callable[[Sequence[Any]], list[np.ndarray] | None] | None:
        """The closure for a call, or None where some argument is large (`_call_large`)."""
        if any(self.large):
            return None
        runtime = self._runtime
        new_list, view_type, ndarray = runtime.VmVariantList, runtime.HalBufferView, np.ndarray
        memory_type, usage, device = runtime.MemoryType.DEVICE_LOCAL, runtime.BufferUsage.DEFAULT, self._device
        allocate = device.allocator.allocate_buffer_copy
        invoke, vm_function = self._vm_context.invoke, self._vm_function
        error, checks = self._error, self._checks
        copy_in = functools.partial(_copy_in, runtime, device, error)
        arguments, results = tuple(self.arguments), tuple(self.results)
        n, m = len(arguments), len(results)

        # Below, the test of each input is `type(value) is ndarray and value.shape == shape and
        # value.dtype == dtype`, written out (`is` first: numpy's dtypes of one kind are one object).
        def call(inputs: Sequence[Any]) -> list[np.ndarray] | None:
            if len(inputs) != n:
                return None
            args = new_list(n)
            for value, (dtype, shape, element_type) in zip(inputs, arguments):
                if type(value) is not ndarray or value.shape != shape or (value.dtype is not dtype and value.dtype != dtype):
                    return None
                try:
                    args.push_ref(allocate(memory_type, usage, device, value, element_type))
                except Exception:
                    args.push_ref(copy_in(value, element_type))
            out = new_list(m)
            try:
                invoke(vm_function, args, out)
            except Exception as e:
                raise error(f"the compiled program failed: {e}") from None
            if not checks.verified and not checks.verify(out):
                return None
            get = out.get_as_object
            return [ndarray(shape, dtype, buffer=get(k, view_type).map()) for k, (dtype, shape) in enumerate(results)]

        return self._staged(call)

    def _staged(
        self, fresh: Callable[[Sequence[Any]], list[np.ndarray] | None]
    ) -> Callable[[Sequence[Any]], list[np.ndarray] | None]:
        """
        For a function of small arguments: `fresh` (new IREE buffers and lists per
        call) with the buffers and both lists made once instead, each input written
        into its buffer's numpy view (numpy's assignment reads any strides, so no
        C-order copy either) and IREE's invoke writing its results over the last
        call's in the kept result list, which saves all of a call's IREE calls but
        the invoke and the results' reading: 0.45-0.8 us of the zoo mlp's call (a
        result list made per call) and 2.7 us of a three-input one's (13.1 -> 10.3 us;
        the old and this prepared call interleaved in one process, CPU time, median
        of the paired differences, load 5.7-6.8). The buffers and
        lists are one per program, so a lock guards them from the first write to
        the last result read: a call finding it taken (another thread's call) takes
        `fresh`, never waits. A result sharing a kept buffer's memory (IREE returned
        the argument, or a view of it) is copied, as the next call overwrites it.
        The kept result list holds the last results' IREE buffers until the next
        call (the arrays given out hold them anyway, as long as they live).
        `fresh` itself where IREE gives no writable host view of a buffer, or an
        argument is empty.
        """
        if any(math.prod(shape) == 0 for _, shape, _ in self.arguments):
            return fresh
        runtime = self._runtime
        args = runtime.VmVariantList(len(self.arguments))
        stagings: list[np.ndarray] = []
        for dtype, shape, element_type in self.arguments:
            try:
                view = self.copy_in(np.zeros(shape, dtype), element_type)
                staging = np.ndarray(shape, dtype, buffer=view.map())
            except Exception:
                return fresh
            if not staging.flags.writeable:
                return fresh
            args.push_ref(view)
            stagings.append(staging)
        view_type, ndarray, may_share = runtime.HalBufferView, np.ndarray, np.may_share_memory
        invoke, vm_function, error, checks = self._vm_context.invoke, self._vm_function, self._error, self._checks
        arguments, results = tuple(self.arguments), tuple(self.results)
        n, m = len(arguments), len(results)
        out = runtime.VmVariantList(m)
        get = out.get_as_object
        lock = threading.Lock()
        acquire, release = lock.acquire, lock.release

        if n == 1 and m == 1:  # the common case written out: no loops, no lists built
            ((dtype, shape, _),) = arguments
            ((result_dtype, result_shape),) = results
            (staging,) = stagings

            def call_staged_one(inputs: Sequence[Any]) -> list[np.ndarray] | None:
                if len(inputs) != 1:
                    return None
                value = inputs[0]
                if type(value) is not ndarray or value.shape != shape or (value.dtype is not dtype and value.dtype != dtype):
                    return None
                if not acquire(False):
                    return fresh(inputs)
                try:
                    staging[...] = value
                    try:
                        invoke(vm_function, args, out)
                    except Exception as e:
                        raise error(f"the compiled program failed: {e}") from None
                    if not checks.verified and not checks.verify(out):
                        return None
                    a = ndarray(result_shape, result_dtype, buffer=get(0, view_type).map())
                    return [a.copy() if may_share(a, staging) else a]
                finally:
                    release()

            return call_staged_one

        def call_staged(inputs: Sequence[Any]) -> list[np.ndarray] | None:
            if len(inputs) != n:
                return None
            for value, (dtype, shape, _) in zip(inputs, arguments):
                if type(value) is not ndarray or value.shape != shape or (value.dtype is not dtype and value.dtype != dtype):
                    return None
            if not acquire(False):
                return fresh(inputs)
            try:
                for staging, value in zip(stagings, inputs):
                    staging[...] = value
                try:
                    invoke(vm_function, args, out)
                except Exception as e:
                    raise error(f"the compiled program failed: {e}") from None
                if not checks.verified and not checks.verify(out):
                    return None
                arrays = [ndarray(s, d, buffer=get(k, view_type).map()) for k, (d, s) in enumerate(results)]
                return [a.copy() if any(may_share(a, s) for s in stagings) else a for a in arrays]
            finally:
                release()

        return call_staged

    def _call_large(self, inputs: Sequence[Any]) -> list[np.ndarray] | None:
        """`call` where some argument is large: read in place where IREE can, and no result aliasing an input."""
        if len(inputs) != len(self.arguments):
            return None
        runtime = self._runtime
        args = runtime.VmVariantList(len(inputs))
        in_place: list[np.ndarray] = []
        for value, (dtype, shape, element_type), large in zip(inputs, self.arguments, self.large):
            if type(value) is not np.ndarray or value.shape != shape or value.dtype != dtype:
                return None
            if large and (view := self.view_in_place(value)) is not None:
                in_place.append(value)
            else:
                view = self.copy_in(value, element_type)
            args.push_ref(view)
        out = runtime.VmVariantList(len(self.results))
        try:
            self._vm_context.invoke(self._vm_function, args, out)
        except Exception as e:
            raise self._error(f"the compiled program failed: {e}") from None
        if not self._checks.verified and not self._checks.verify(out):
            return None
        view_type = runtime.HalBufferView
        arrays = [
            np.ndarray(shape, dtype, buffer=out.get_as_object(k, view_type).map())
            for k, (dtype, shape) in enumerate(self.results)
        ]
        return [a.copy() if any(np.may_share_memory(a, v) for v in in_place) else a for a in arrays]


class _FirstCall:
    """Whether IREE's results are of the signature's count, sizes and bytes, asked at a program's first call."""

    def __init__(self, results: Sequence[Spec], view_type: Any) -> None:
        self.results = list(results)
        self.view_type = view_type
        self.verified = False
        self.refused = False

    def verify(self, out: Any) -> bool:
        """Whether `out` (IREE's result list) is as the signature says; where not, every later call gives None."""
        ok = len(out) == len(self.results)
        for k, (dtype, shape) in enumerate(self.results if ok else ()):
            view = out.get_as_object(k, self.view_type)
            if tuple(view.shape) != shape or view.byte_length != math.prod(shape) * dtype.itemsize:
                ok = False
        self.verified, self.refused = ok, not ok
        return ok


def _copy_in(runtime: Any, device: Any, error: Callable[[str], Exception], array: np.ndarray, element_type: Any) -> Any:
    """An array copied into a new IREE buffer view of `element_type` on `device`, in C order."""
    try:
        return device.allocator.allocate_buffer_copy(
            runtime.MemoryType.DEVICE_LOCAL, runtime.BufferUsage.DEFAULT, device, array, element_type
        )
    except ValueError:
        if array.flags.c_contiguous:
            raise error("IREE cannot take the array") from None
        return _copy_in(runtime, device, error, array.copy(order="C"), element_type)  # IREE copies C-contiguous only
    except Exception as e:
        raise error(f"IREE cannot take the array: {e}") from None


def _refused(inputs: Sequence[Any]) -> None:
    """`DirectCall.call` once IREE's results were found not as the signature says: every call takes the general path."""
    return None


def destination_problem(path: str | os.PathLike[str]) -> str | None:
    """
    Why an artifact cannot be written at `path`, or None: a new name in an
    existing directory, an empty directory or an earlier artifact (replaced) are fine.
    """
    final = os.path.abspath(os.fspath(path))
    if os.path.exists(final):
        if not os.path.isdir(final) or (os.listdir(final) and not os.path.isfile(os.path.join(final, MANIFEST))):
            return "exists and is not a compiled artifact; name a new directory (or an earlier artifact to replace)"
        return None
    parent = os.path.dirname(final)
    if not os.path.isdir(parent):
        return f"{parent} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"the directory {parent} is not writable"
    return None


# -- loading --------------------------------------------------------------------


def _refuse(path: str, what: str) -> BundleError:
    return BundleError(f"{path}: {what}")


def read_manifest(path: str) -> dict[str, Any]:
    """The manifest of the artifact at `path`, checked for format, version and files (not yet hashes)."""
    if not os.path.isdir(path):
        what = "no such directory" if not os.path.exists(path) else "not a directory"
        raise _refuse(path, f"{what}; a compiled artifact is a directory written by Program.compile(...).save(path) "
                      "or exir-opt --emit iree-bundle -o path")  # fmt: skip
    manifest_path = os.path.join(path, MANIFEST)
    try:
        with open(manifest_path, encoding="utf-8") as f:
            manifest = json.load(f)
    except FileNotFoundError:
        raise _refuse(path, f"no {MANIFEST}: not a compiled artifact (or an incomplete copy of one)") from None
    except (OSError, ValueError) as e:
        raise _refuse(path, f"{MANIFEST} cannot be read ({e}); the artifact is damaged: save it again") from None
    if not isinstance(manifest, dict) or cast(dict[str, Any], manifest).get("format") != FORMAT:
        raise _refuse(path, f"{MANIFEST} is not the manifest of an xdsl-exir compiled artifact")
    manifest = cast(dict[str, Any], manifest)
    if manifest.get("format_version") != FORMAT_VERSION:
        raise _refuse(
            path,
            f"the artifact is of format version {manifest.get('format_version')!r}, this xdsl-exir reads version "
            f"{FORMAT_VERSION}: save it again with this version",
        )
    for key in ("iree", "signature", "files", "buffers", "ranges", "parameters"):
        if key not in manifest:
            raise _refuse(path, f"{MANIFEST} has no '{key}' entry; the artifact is damaged: save it again")
    return manifest


def check_files(path: str, manifest: dict[str, Any], verify_hashes: bool = True) -> None:
    """Every file the manifest lists is there, of its size and (if asked) its SHA-256."""
    files = cast(dict[str, dict[str, Any]], manifest["files"])
    for name in (MODULE, PARAMETERS):
        if name not in files:
            raise _refuse(path, f"{MANIFEST} does not list {name}; the artifact is damaged: save it again")
    for name, info in files.items():
        file = os.path.join(path, name)
        if os.path.basename(name) != name:
            raise _refuse(path, f"{MANIFEST} lists a file outside the artifact ({name!r})")
        try:
            size = os.path.getsize(file)
        except OSError:
            raise _refuse(path, f"{name} is missing; the artifact is incomplete: copy it whole or save it again") from None
        if size != info.get("bytes"):
            raise _refuse(
                path,
                f"{name} is {size} bytes, the manifest says {info.get('bytes')} (truncated or replaced); "
                "copy the artifact whole or save it again",
            )
        if verify_hashes and file_digest(file) != info.get("sha256"):
            raise _refuse(
                path,
                f"{name} does not have the SHA-256 the manifest records (damaged, or from another build); "
                "save the artifact again",
            )


def load(path: str | os.PathLike[str], *, threads: int | None = None, verify_hashes: bool = True) -> BundleProgram:
    """
    The compiled artifact at `path`, ready to call. `threads` sizes IREE's worker
    pool (None: every core; 1: the calling thread). `verify_hashes=False` skips
    reading every byte to check the files' SHA-256 (their sizes are still checked).
    """
    where = os.fspath(path)
    manifest = read_manifest(where)
    runtime = iree_runtime()
    made_by = str(cast(dict[str, Any], manifest["iree"]).get("compiler"))
    have = runtime_version()
    if made_by != have:
        raise _refuse(
            where,
            f"the module was compiled by IREE {made_by}, and the installed IREE runtime is {have}: IREE's "
            f"module format is not stable across versions; install iree-base-runtime=={made_by} or compile "
            "the program again with this version",
        )
    triple = cast(dict[str, Any], manifest["iree"]).get("target_triple")
    if isinstance(triple, str) and triple:
        arch, here = _arch(triple.split("-")[0]), _arch(platform.machine())
        if arch != here:
            raise _refuse(
                where,
                f"the module was compiled for {triple} (target-triple), and this machine is {platform.machine()}: "
                "run it on such a machine, or compile it again for this one",
            )
    try:
        check_files(where, manifest, verify_hashes)
        return BundleProgram(where, manifest, threads, runtime)
    except (KeyError, TypeError, ValueError, AttributeError) as e:  # a manifest edited by hand, or of a broken writer
        raise _refuse(where, f"{MANIFEST} does not describe the artifact as this version writes it ({type(e).__name__}: {e}); "
                      "save it again") from None  # fmt: skip


def _arch(name: str) -> str:
    """A CPU architecture under one spelling (`arm64` is `aarch64`, `AMD64` is `x86_64`)."""
    name = name.lower()
    return {"arm64": "aarch64", "amd64": "x86_64", "x64": "x86_64"}.get(name, name)


class BundleProgram:
    """A loaded compiled artifact: call it like the exported module (pytree in, pytree out)."""

    def __init__(self, path: str, manifest: dict[str, Any], threads: int | None, runtime: Any) -> None:
        self.path = path
        self.manifest = manifest
        signature = cast(dict[str, Any], manifest["signature"])
        self._arguments = cast(list[dict[str, Any]], signature["arguments"])
        self._results = cast(list[dict[str, Any]], signature["results"])
        self.user_input_names = [a["name"] for a in self._arguments if a["kind"] == "user_input"]
        self._ranges = {
            r["symbol"]: (r.get("min"), r.get("max")) for r in cast(list[dict[str, Any]], manifest["ranges"]) if "symbol" in r
        }
        index = runtime.ParameterIndex()
        try:
            index.load(os.path.join(path, PARAMETERS))
        except Exception as e:
            raise _refuse(path, f"{PARAMETERS} is not an IREE parameter archive IREE can read ({e})") from None
        entries = dict(index.items())
        self.state: dict[str, np.ndarray] = {}
        """The buffers the program writes, by name: their values now."""
        for buffer in cast(list[dict[str, Any]], manifest["buffers"]):
            entry = entries.get(buffer["name"])
            if entry is None:
                raise _refuse(path, f"{PARAMETERS} holds no initial value for buffer '{buffer['name']}'")
            flat = runtime.parameter_index_entry_as_numpy_flat_ndarray(entry)
            dtype = numpy_dtype(buffer["dtype"])
            self.state[buffer["name"]] = np.array(flat.view(dtype).reshape(buffer["sizes"]))  # its own, writable copy
        missing = [k for k in cast(dict[str, Any], manifest["parameters"]).get("keys", []) if k not in entries]
        if missing:
            raise _refuse(path, f"{PARAMETERS} lacks the parameters {', '.join(missing[:3])} the module reads")
        self._index = index
        driver = str(cast(dict[str, Any], manifest["iree"]).get("driver", "local-task"))
        try:
            flops = cast(dict[str, Any], manifest["iree"]).get("flops")
            flops = flops if isinstance(flops, int) and not isinstance(flops, bool) else None
            self._ctx, self._fn = open_module(os.path.join(path, MODULE), driver, threads, index, flops=flops)
        except BundleError:
            raise
        except Exception as e:
            first = (str(e).strip().splitlines() or [type(e).__name__])[0]
            raise _refuse(path, f"IREE could not load {MODULE} ({first})") from None
        self._direct = self._direct_call(runtime, driver)
        out_spec = signature.get("out_spec")
        count = sum(r["kind"] in _OUTPUTS for r in self._results)
        self._structure = prepare_unflatten(out_spec, count) if out_spec is not None else list

    def _direct_call(self, runtime: Any, driver: str) -> DirectCall | None:
        """
        The call prepared once (`DirectCall`) where it applies: on the CPU, every
        argument a user input and every result a user output, tensors of static sizes
        (bfloat16 ones take the general path, which rounds float32 arrays to them).
        """
        if not driver.startswith("local"):
            return None
        specs: list[list[Spec]] = [[], []]
        for entries, kinds, spec in ((self._arguments, ("user_input",), specs[0]), (self._results, _OUTPUTS, specs[1])):
            for e in entries:
                sizes = e.get("sizes")
                if (
                    e["kind"] not in kinds
                    or not e.get("tensor", True)
                    or e.get("dtype") in (None, "bfloat16")
                    or not isinstance(sizes, list)
                    or not all(type(n) is int for n in cast(list[Any], sizes))
                ):
                    return None
                spec.append((numpy_dtype(e["dtype"]), tuple(cast(list[int], sizes))))
        return DirectCall.prepare(runtime, self._ctx, self._fn, specs[0], specs[1], BundleError)

    def __repr__(self) -> str:
        return f"<BundleProgram {self.path} forward({', '.join(self.user_input_names)})>"

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        # Arrays of exactly the inputs' dtypes and sizes, one per user input, are the flat inputs as they are.
        direct = self._direct
        if direct is not None and not kwargs and (outputs := direct.call(args)) is not None:
            return self._structure(outputs)
        signature = cast(dict[str, Any], self.manifest["signature"])
        flat = flatten_inputs(args, kwargs, signature.get("in_spec"), self.user_input_names, _leaf, BundleError)
        return self._structure(self.run_flat(flat))

    def run_flat(self, user_inputs: Sequence[Any]) -> list[Any]:
        """The flattened user inputs in, the flattened user outputs out (exir-run's npz contract)."""
        direct = self._direct
        if direct is not None and (arrays := direct.call(user_inputs)) is not None:
            return arrays
        if len(user_inputs) != len(self.user_input_names):
            raise BundleError(
                f"the program takes {len(self.user_input_names)} user inputs "
                f"({', '.join(self.user_input_names) or 'none'}), got {len(user_inputs)}"
            )
        env: dict[str, tuple[int, str]] = {}
        call: list[Any] = []
        user: list[Any] = []
        n = 0
        for a in self._arguments:
            if a["kind"] == "user_input":
                where = f"input '{a['name']}' (arg{n})"
                value = user_inputs[n]
                user.append(value)
                call.append(_argument(a, value, where, env))
                n += 1
            else:
                call.append(self.state[a["name"]])
        for symbol, (value, where) in env.items():
            low, high = self._ranges.get(symbol, (None, None))
            if (low is not None and value < low) or (high is not None and value > high):
                raise BundleError(
                    f"{symbol} = {value} from {where} is outside the range "
                    f"[{low if low is not None else '-inf'}, {high if high is not None else 'inf'}] "
                    "the program was exported for"
                )
        try:
            results = self._fn(*[v.view(np.int8) if v.dtype == np.uint8 else v for v in call])
        except Exception as e:
            raise BundleError(f"the compiled program failed: {e}") from None
        if not isinstance(results, tuple | list):
            results = (results,)
        outputs: list[Any] = []
        for r, spec in zip(cast(Sequence[Any], results), self._results):
            host = np.asarray(r.to_host() if hasattr(r, "to_host") else r)
            if spec.get("dtype") == "uint8" and host.dtype == np.int8:
                host = host.view(np.uint8)
            value: Any = host if spec.get("tensor", True) else host.item()
            kind = spec["kind"]
            if kind in ("user_output", "loss_output"):
                outputs.append(value)
            elif kind == "buffer_mutation":
                self.state[spec["name"]] = host
            elif kind == "user_input_mutation" and spec["name"] in self.user_input_names:
                dest = user[self.user_input_names.index(spec["name"])]
                if isinstance(dest, np.ndarray) and dest.flags.writeable:
                    np.copyto(dest, host, casting="unsafe")
        return outputs


_OUTPUTS = ("user_output", "loss_output")




def _leaf(value: Any) -> Any:
    """A torch tensor as numpy (without importing torch), anything else as it is."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        tensor = value.detach().cpu()
        if str(tensor.dtype) in ("torch.bfloat16", "torch.float16"):
            return tensor.float().numpy().astype(numpy_dtype(str(tensor.dtype).removeprefix("torch.")))
        return tensor.numpy()
    return value


def _argument(a: dict[str, Any], value: Any, where: str, env: dict[str, tuple[int, str]]) -> np.ndarray:
    """One user input as the compiled function takes it, checked against its manifest entry."""
    if not a.get("tensor", True):  # a scalar travels as a 0-d tensor
        scalar = np.asarray(value)
        if scalar.shape != ():
            raise BundleError(f"{where}: expected a scalar, got an array of shape {list(scalar.shape)}")
        dtype = a["dtype"]
        if dtype == "int64":
            if scalar.dtype.kind not in "iub":
                raise BundleError(f"{where}: expected an int, got {scalar.dtype}")
            if isinstance(a.get("symbol"), str):
                _bind(env, a["symbol"], int(scalar), where)
            return np.asarray(int(scalar), dtype=np.int64)
        return np.asarray(scalar, dtype=numpy_dtype(dtype))
    arr = value if isinstance(value, np.ndarray) else np.asarray(value)
    want = numpy_dtype(a["dtype"])
    if arr.dtype != want:
        if a["dtype"] in ("bfloat16", "float16") and arr.dtype == np.float32:
            arr = arr.astype(want)  # how .npz files carry them: rounded to the dtype
        else:
            raise BundleError(f"{where}: expected a {a['dtype']} tensor, got numpy {arr.dtype}")
    sizes = cast(list[int | str], a["sizes"])
    if arr.ndim != len(sizes):
        raise BundleError(f"{where}: expected {len(sizes)} dimensions {_show(sizes)}, got shape {list(arr.shape)}")
    for d, (size, actual) in enumerate(zip(sizes, arr.shape)):
        if isinstance(size, int):
            if size != actual:
                raise BundleError(f"{where}: dimension {d} must be {size} (shape {_show(sizes)}), got shape {list(arr.shape)}")
        elif _SYMBOL.match(size):
            _bind(env, size, int(actual), f"{where} dimension {d}")
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
    return arr if arr.flags.c_contiguous else arr.copy(order="C")


def _bind(env: dict[str, tuple[int, str]], symbol: str, value: int, where: str) -> None:
    if symbol in env and env[symbol][0] != value:
        first, first_where = env[symbol]
        raise BundleError(f"{where} is {value}, but {symbol} = {first} from {first_where}; they must be equal")
    env.setdefault(symbol, (value, where))


def _show(sizes: Sequence[int | str]) -> str:
    return "[" + ", ".join(str(s) for s in sizes) + "]"
