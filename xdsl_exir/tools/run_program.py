"""
What `exir-run` does once its arguments are parsed: load (through exir-opt's
frontends and pipeline handling), run on numpy or IREE, write or summarise the
outputs, and profile (`--profile`, `--trace`). `exir_run.py` is the command
line; it imports this module only after parsing, so `exir-run --help` does not
load xDSL's dialects, sympy or the kernels.

Input files are read by `utils/npz.py`: the zip rules of `.pt2` archives, each
`.npy` header checked before its data is inflated, never a pickle. No tensor
larger than `--max-tensor-bytes` is allocated from a size the input claims.
Every failure is one located paragraph (`message`); `-o` is written only on
success.

`--timeout SECONDS` is a `SIGALRM` timer (POSIX, main thread only): Python
code is interrupted at once, one long numpy call only when it returns.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, TYPE_CHECKING, Any, TypeVar, cast

import numpy as np
from threadpoolctl import threadpool_limits
from xdsl.dialects.builtin import ModuleOp
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException

from xdsl_exir import runtime as bundle_runtime
from xdsl_exir.dialects.exir import BoolType, FloatType, IntType, SymBoolType, SymFloatType, SymIntType, TensorType
from xdsl_exir.dialects.stream import parameter_keys, parameters_refused
from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.interpreters.upstream.program import LoweredProgram, is_lowered
from xdsl_exir.semantics.kernels import numpy_dtype
from xdsl_exir.tools import TimeoutUnavailable, time_limit
from xdsl_exir.tools.exir_opt import (
    ExirOptMain,
    ExirUserError,
    check_output_path,
    describe_unexpected,
    describe_verify_failure,
    directory_given,
    format_parse_error,
    sniff_frontend,
    write_atomically,
)
from xdsl_exir.tools.pass_timer import PassTimer
from xdsl_exir.tools.progress import progress
from xdsl_exir.utils.limits import TensorSizeError, max_tensor_bytes
from xdsl_exir.utils.npz import NpzError, npz_array, read_npz
from xdsl_exir.utils.tensor_data import random_array

if TYPE_CHECKING:
    from xdsl_exir.tools.profiler import OpProfiler


class _Loader:
    """Reuses exir-opt's frontends, pipeline handling and diagnostics."""

    def __init__(
        self, input_file: str, pipeline: str | None, from_format: str | None, time_passes: bool = False
    ) -> None:
        argv: list[str] = []
        if pipeline:
            argv.append(f"--passes={pipeline}")  # `=`: a pipeline may start with '-'
        if from_format:
            argv.append(f"--from={from_format}")
        if time_passes:
            argv.append("--time-passes")
        if input_file != "-":  # `-`: stdin, as exir-opt reads it (a .pt2 known by its zip signature)
            argv += ["--", input_file]
        loader = self

        class _Main(ExirOptMain):
            def output_resulting_program(self, prog: ModuleOp) -> str:
                loader.module = prog
                return ""

            def prepare_output(self) -> IO[str]:
                return open(os.devnull, "w")

        self.module: ModuleOp | None = None
        self.tool = _Main(args=argv)
        self.tool.frontend_name = from_format or sniff_frontend(self.tool)

    def load(self) -> ModuleOp:
        self.tool.run()
        if self.module is None:
            raise InterpreterError("the input holds no module")
        return self.module


def _load_npz(path: str) -> dict[str, np.ndarray]:
    try:
        return read_npz(path)
    except NpzError as e:
        raise InterpreterError(str(e)) from None


def _read_inputs(path: str, names: Sequence[str], arrays: dict[str, np.ndarray] | None = None) -> list[Any]:
    if arrays is None:
        arrays = _load_npz(path)
    expected = [f"arg{i}" for i in range(len(names))]
    extra = sorted(set(arrays) - set(expected))
    missing = [k for k in expected if k not in arrays]
    if missing or extra:
        detail = []
        if missing:
            detail.append("missing " + ", ".join(f"{k} ({names[int(k[3:])]})" for k in missing))
        if extra:
            detail.append("unexpected " + ", ".join(extra))
        raise InterpreterError(
            f"{path}: the program takes {len(names)} user inputs ({', '.join(names) or 'none'}) "
            f"as arg0..arg{len(names) - 1}; " + "; ".join(detail)
        )
    return [arrays[k] for k in expected]


def random_inputs(runner: ProgramRunner, seed: int) -> list[Any]:
    """Inputs drawn from the placeholder types (symbolic sizes take their lower bound, at least 2)."""
    rng = np.random.default_rng(seed)
    entry = runner.program.entry
    assert entry is not None
    ranges = runner.program.ranges()
    values: list[Any] = []
    for spec, t in zip(runner.program.inputs.data, entry.function_type.inputs.data):
        if spec.arg_name.data not in runner.user_input_names or spec.input_kind.value != "user_input":
            continue
        if isinstance(t, TensorType):
            shape = []
            for s in t.sizes:
                if isinstance(s, int):
                    shape.append(s)
                else:
                    low = ranges.get(s, (None, None))[0]  # a symbol without a range constraint has none
                    shape.append(max(int(low), 2) if low is not None and low.is_finite else 2)
            dt = numpy_dtype(t.element_dtype)
            values.append(random_array(rng, shape, dt, f"random input '{spec.arg_name.data}'"))
        elif isinstance(t, (IntType, SymIntType)):
            values.append(np.asarray(2))
        elif isinstance(t, (FloatType, SymFloatType)):
            values.append(np.asarray(rng.standard_normal()))
        elif isinstance(t, (BoolType, SymBoolType)):
            values.append(np.asarray(True))
        else:
            raise InterpreterError(f"cannot make a random value of type {t} for input '{spec.arg_name.data}'")
    return values


def _flatten(value: Any, out: list[np.ndarray]) -> None:
    if isinstance(value, (list, tuple)):
        for v in value:
            _flatten(v, out)
    elif value is None:
        # A None output (a constant) is a pytree leaf, as torch counts it: it keeps its
        # number, and has no array (an .npz cannot hold one without pickling).
        out.append(cast(np.ndarray, None))
    else:
        out.append(npz_array(value))


def _write_outputs(path: str, outputs: Sequence[np.ndarray]) -> None:
    buffer = io.BytesIO()
    # numpy's stub reads a key as allow_pickle; a None output has no key
    arrays: dict[str, Any] = {f"out{i}": o for i, o in enumerate(outputs) if o is not None}
    np.savez(buffer, **arrays)
    write_atomically(path, buffer.getvalue())


def _summarise(outputs: Sequence[np.ndarray]) -> str:
    lines = []
    with np.printoptions(precision=6, threshold=20, edgeitems=3, linewidth=100):
        for i, o in enumerate(outputs):
            if cast(object, o) is None:
                lines.append(f"out{i}: None")
                continue
            lines.append(f"out{i}: {o.dtype}{list(o.shape)}")
            lines.append("  " + str(o).replace("\n", "\n  "))
    return "\n".join(lines)


def _run_torchscript(module: ModuleOp, args: argparse.Namespace, profiler: OpProfiler | None = None) -> list[np.ndarray]:
    """Run a TorchScript program with exir-run's npz contract (see `ts_runner`)."""
    from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

    runner = TorchScriptRunner(module, entry=args.entry, wrap_op=profiler)
    if args.inputs is not None:
        names = runner.flat_input_names
        if names is None:  # a list input makes their number vary: every arg<i> of the file, in order
            arrays = _load_npz(args.inputs)
            names = [f"arg{i}" for i in range(sum(1 for k in arrays if k.startswith("arg") and k[3:].isdigit()))]
            inputs = _read_inputs(args.inputs, names, arrays)
        else:
            inputs = _read_inputs(args.inputs, names)
    elif args.random_inputs is not None:
        inputs = runner.random_flat_inputs(args.random_inputs)
    elif runner.input_types:
        raise InterpreterError(
            f"the graph takes inputs ({', '.join(runner.input_names)}); "
            "give them with --inputs IN.npz (or --random-inputs SEED)"
        )
    else:
        inputs = []
    if profiler is None:
        return runner.run_flat(inputs)
    with progress("running"):
        return profiled_runs(args, profiler, lambda: runner.run_flat(_copies(inputs)))


_T = TypeVar("_T")


def _copies(inputs: Sequence[Any]) -> list[Any]:
    """Each run's own inputs: a program that mutates a user input writes into them."""
    return [np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in inputs]


def profiled_runs(args: argparse.Namespace, profiler: OpProfiler, call: Callable[[], _T]) -> _T:
    """
    `--warmup` untimed runs (default 1), then `--runs` timed ones (default 1).
    The outputs are the first run's: later runs start from the state earlier
    ones left (a buffer mutation), which moves no time but may move values.
    """
    first: list[_T] = []
    for _ in range(1 if args.warmup is None else args.warmup):
        result = call()
        if not first:
            first.append(result)
    profiler.forget_runs()
    for _ in range(args.runs or 1):
        with profiler.run():
            result = call()
        if not first:
            first.append(result)
    return first[0]


def execute(args: argparse.Namespace, loaders: list[_Loader]) -> list[np.ndarray]:
    """Everything `exir-run` does after parsing; returns the flat outputs (and writes `-o`)."""
    if args.output is not None:
        check_output_path(args.output)
    if args.trace is not None:
        check_output_path(args.trace, "--trace")
    profiler = None
    if (args.runs is not None or args.warmup is not None) and not (args.profile or args.trace):
        raise InterpreterError("--runs and --warmup repeat a profiled run: give --profile or --trace with them")
    if args.profile or args.trace:
        from xdsl_exir.tools.profiler import OpProfiler

        profiler = OpProfiler(trace=args.trace is not None)
    with max_tensor_bytes(args.max_tensor_bytes), time_limit(args.timeout), _blas_threads(args):
        flat = _outputs(args, loaders, profiler)
    if profiler is not None:
        if args.profile:
            sys.stderr.write(profiler.table())
        if args.trace is not None:
            write_atomically(args.trace, profiler.chrome_trace().encode(), "--trace")
    if args.output:
        _write_outputs(args.output, flat)
    else:
        print(_summarise(flat))
    return flat


def _blas_threads(args: argparse.Namespace) -> contextlib.AbstractContextManager[object]:
    """
    `--threads N` on the interpreter: numpy's BLAS (matmul, convolution as matmul) on N
    threads. numpy is loaded before the arguments are read, so the environment
    variables OpenBLAS reads at load time are too late; threadpoolctl sets the pool
    of the loaded library.
    """
    if args.threads is None or args.backend != "interpreter":
        return contextlib.nullcontext()
    return threadpool_limits(limits=args.threads)


def _outputs(args: argparse.Namespace, loaders: list[_Loader], profiler: OpProfiler | None) -> list[np.ndarray]:
    """Load, transform and run the program: the user outputs, flattened."""
    if args.input_file != "-" and os.path.isdir(args.input_file):
        if not os.path.exists(os.path.join(args.input_file, bundle_runtime.MANIFEST)):
            raise InterpreterError(
                directory_given(
                    args.input_file,
                    "exir-run",
                    f" or runs a compiled artifact's directory (--emit iree-bundle), which holds a "
                    f"{bundle_runtime.MANIFEST}; this one has none (if it is a copy of one, the copy is incomplete)",
                )
            )
        return _run_bundle(args, profiler)
    if args.input_file != "-" and not os.path.isfile(args.input_file):
        raise InterpreterError(f"{args.input_file}: no such file")
    try:
        loader = _Loader(args.input_file, args.pipeline, args.from_format, args.time_passes)
    except (ValueError, KeyError) as e:  # a pass's own check of its options
        raise InterpreterError(f"-p {args.pipeline}: {e}") from None
    loaders.append(loader)
    if profiler is not None and profiler.trace and loader.tool.pass_timer is None:
        loader.tool.pass_timer = PassTimer()  # the passes go into the trace, without a report
    start = time.perf_counter_ns()
    with progress(f"loading {args.input_file}"):
        module = loader.load()
    if profiler is not None:
        profiler.phase("load" + (" and passes" if args.pipeline else ""), start, time.perf_counter_ns() - start)
        for name, pass_start, duration in loader.tool.pass_timer.calls if loader.tool.pass_timer else ():
            profiler.phase(name, pass_start, duration, "pass")
    if is_lowered(module):
        return _run_lowered(module, args, profiler)
    if _is_torchscript(module):
        if args.backend == "iree":
            raise InterpreterError(
                "--backend iree compiles Export IR: lower the TorchScript program first "
                "(-p 'torchscript-to-exir{input-types=...}')"
            )
        return _run_torchscript(module, args, profiler)
    if profiler is not None and args.backend == "iree":
        raise InterpreterError("--profile and --trace time the interpreter's ops; IREE runs the program as one call")
    runner = _program_runner(module, args, profiler)
    assert isinstance(runner, ProgramRunner)
    if args.inputs is not None:
        inputs = _read_inputs(args.inputs, runner.user_input_names)
    elif args.random_inputs is not None:
        inputs = random_inputs(runner, args.random_inputs)
    elif runner.user_input_names:
        raise InterpreterError(
            f"the program takes user inputs ({', '.join(runner.user_input_names)}); "
            "give them with --inputs IN.npz (or --random-inputs SEED)"
        )
    else:
        inputs = []
    flat: list[np.ndarray] = []
    with progress("running"):
        if profiler is None:
            results = runner.run(inputs)
        else:
            results = profiled_runs(args, profiler, lambda: runner.run(_copies(inputs)))
    _flatten(results, flat)
    return flat


def _run_lowered(module: ModuleOp, args: argparse.Namespace, profiler: OpProfiler | None) -> list[np.ndarray]:
    """
    A module already lowered to upstream dialects (`func.func @forward`, see
    `LoweredProgram`): xDSL's interpreter with our upstream functions, or IREE.
    The user inputs are arg0..; a buffer the program writes is given by its name.
    """
    if profiler is not None:
        raise InterpreterError("--profile and --trace time the exir interpreter's ops; run the module before lowering")
    if keys := parameter_keys(module):
        raise InterpreterError(parameters_refused(keys, "exir-run"))
    program = _program_runner(module, args)
    assert isinstance(program, LoweredProgram)
    if args.inputs is not None:
        arrays = _load_npz(args.inputs)
        buffers = {k: v for k, v in arrays.items() if k in program.buffer_names}
        program.set_buffers(buffers)
        inputs = _read_inputs(args.inputs, program.user_input_names, {k: v for k, v in arrays.items() if k not in buffers})
    elif args.random_inputs is not None:
        inputs = program.random_inputs(args.random_inputs)
    elif program.user_input_names or program.buffer_names:
        raise InterpreterError(
            f"the program takes inputs ({', '.join(program.user_input_names + program.buffer_names)}); "
            "give them with --inputs IN.npz (or --random-inputs SEED)"
        )
    else:
        inputs = []
    with progress("running"):
        results = program.run(inputs)
    flat: list[np.ndarray] = []
    _flatten(results, flat)
    return flat


def _run_bundle(args: argparse.Namespace, profiler: OpProfiler | None) -> list[np.ndarray]:
    """A compiled artifact (a directory `--emit iree-bundle` wrote), run by `xdsl_exir.runtime` on IREE."""
    for given, flag in ((args.pipeline, "-p"), (profiler, "--profile/--trace"), (args.from_format, "--from")):
        if given:
            raise InterpreterError(f"{args.input_file}: a compiled artifact runs as it was compiled; {flag} does not apply to it")
    try:
        program = bundle_runtime.load(args.input_file, threads=args.threads)
        if args.inputs is not None:
            inputs = _read_inputs(args.inputs, program.user_input_names)
        elif args.random_inputs is not None:
            inputs = _bundle_random_inputs(program, args.random_inputs)
        elif program.user_input_names:
            raise InterpreterError(
                f"the program takes inputs ({', '.join(program.user_input_names)}); "
                "give them with --inputs IN.npz (or --random-inputs SEED)"
            )
        else:
            inputs = []
        with progress("running"):
            outputs = program.run_flat(inputs)
        flat: list[np.ndarray] = []
        _flatten(outputs, flat)  # as every other input's outputs: bfloat16 widened for the .npz
        return flat
    except bundle_runtime.BundleError as e:
        raise InterpreterError(str(e)) from None


def _bundle_random_inputs(program: bundle_runtime.BundleProgram, seed: int) -> list[Any]:
    """Inputs drawn from the manifest's types, as `random_inputs` draws them from the program's."""
    rng = np.random.default_rng(seed)
    lows = {r["symbol"]: r.get("min") for r in program.manifest["ranges"] if "symbol" in r}
    values: list[Any] = []
    for a in program.manifest["signature"]["arguments"]:
        if a["kind"] != "user_input":
            continue
        dtype = bundle_runtime.numpy_dtype(a["dtype"])
        if not a.get("tensor", True):
            values.append(np.asarray(True) if a["dtype"] == "bool" else np.asarray(2, dtype=dtype))
            continue
        shape = [s if isinstance(s, int) else max(int(lows.get(s) or 0), 2) for s in a["sizes"]]
        values.append(random_array(rng, shape, dtype, f"random input '{a['name']}'"))
    return values


def _program_runner(
    module: ModuleOp, args: argparse.Namespace, profiler: OpProfiler | None = None
) -> ProgramRunner | LoweredProgram:
    """
    The numpy interpreter, or the same contract around IREE's native code; for
    a module already lowered, xDSL's interpreter with our upstream functions,
    or IREE.
    """
    if args.backend != "iree":
        if is_lowered(module):
            return LoweredProgram(module)
        if profiler is None:
            return ProgramRunner(module)
        profiler.count_flops(find_program(module))
        return ProgramRunner(module, wrap_op=profiler)
    from xdsl_exir.targets.iree import IreeOptions, compile_lowered, runner_for

    options = IreeOptions(
        device=args.iree_device,
        threads=args.threads,
        cache_dir=args.iree_cache_dir,
        use_cache=not args.no_iree_cache,
    )
    return compile_lowered(module, options) if is_lowered(module) else runner_for(module, options)


def _is_torchscript(module: ModuleOp) -> bool:
    if not any(op.name.startswith("ts.") for op in module.ops):
        return False  # no top-level ts op: the TorchScript runner (and its dialect) need not load
    from xdsl_exir.interpreters.ts_runner import is_torchscript

    return is_torchscript(module)


def message(e: Exception, module: ModuleOp | None, input_file: str) -> str:
    """The one-paragraph diagnostic of a failure."""
    if isinstance(e, ParseError):
        return format_parse_error(e)
    if isinstance(e, (VerifyException, DiagnosticException)):
        return describe_verify_failure(e, module)
    if isinstance(e, (InterpreterError, ExirUserError, TensorSizeError, TimeoutUnavailable)):
        return str(e)
    return describe_unexpected(e, input_file)
