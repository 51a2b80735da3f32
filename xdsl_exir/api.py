"""
The Python API: what `exir-opt` and `exir-run` do, in a few calls from a notebook.

    import xdsl_exir.api as exir

    program = exir.load("m.pt2")              # a path, bytes, IR text, or a live torch ExportedProgram
    fast = program.apply("optimize-inference")  # a pipeline, as exir-opt -p spells it (a new Program)
    y = fast(x)                                # positional arrays or torch tensors in; outputs back
                                               # in the program's pytree structure (its out_spec)
    print(fast.to_mlir()); print(fast.to_fx())
    print(fast.profile(x))                     # the per-operator table of exir-run --profile
    native = exir.compile(module, x)           # an nn.Module (torch.export), ExportedProgram, path or
    y = native(x)                              # Program, compiled by IREE; called like the module

The names in `__all__` are the API and keep their meaning across versions; the
rest of the package is free to move. Loading goes through exir-opt's frontends
and pipelines through its pipeline builder, so the API and the tools give the
same IR and the same diagnostics; failures raise `ExirError` with the tools'
one-paragraph message. The live torch importer is imported only for a live
object (and says which extra to install when torch is missing).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, fields
from io import BytesIO
from typing import Any, cast

import numpy as np
from threadpoolctl import threadpool_limits
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from xdsl_exir.dialects.exir import ProgramOp
from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.interpreters.ts_runner import TorchScriptRunner, is_torchscript
from xdsl_exir.targets.registry import get_all_targets
from xdsl_exir.tools.exir_opt import (
    ExirOptMain,
    ExirUserError,
    build_pipeline,
    check_target,
    detect_frontend,
    directory_given,
)
from xdsl_exir.tools.profiler import OpProfiler, OpStat
from xdsl_exir.tools.run_program import message
from xdsl_exir.utils.dtypes import LOW_PRECISION, DType, cast_array
from xdsl_exir.utils.pytree import flatten_inputs, prepare_unflatten, unflatten

__all__ = ["CompiledProgram", "ExirError", "Profile", "Program", "compile", "load", "parse"]


class ExirError(Exception):
    """A program that cannot be loaded, transformed, printed or run; the message says where and why."""


# ---------------------------------------------------------------------------
# Loading
# ---------------------------------------------------------------------------


def _check_type(value: Any, expected: type | tuple[type, ...], what: str, hint: str = "") -> None:
    """
    A `TypeError` naming the argument, the type it takes and the type given, as
    Python's own functions say it; without it a wrong type fails deep inside a
    frontend or the interpreter with a message about something else.
    """
    if isinstance(value, bool) and bool not in (expected if isinstance(expected, tuple) else (expected,)):
        ok = False  # a bool is an int to isinstance, never a count or a text
    else:
        ok = isinstance(value, expected)
    if not ok:
        names = " or ".join(
            "None" if t is type(None) else t.__name__ for t in (expected if isinstance(expected, tuple) else (expected,))
        )
        raise TypeError(f"{what} must be {names}, not {type(value).__name__}" + (f"; {hint}" if hint else ""))


def _tool(name: str) -> ExirOptMain:
    """exir-opt's driver, for its context (every dialect), frontends and passes; nothing is read."""
    return ExirOptMain(args=["--", name])


def load(
    source: str | os.PathLike[str] | bytes | Any,
    *,
    format: str | None = None,
    name: str | None = None,
    entry: str | None = None,
) -> Program:
    """
    A program from a file path, the bytes of a file, or a live object.

    Paths and bytes are read as exir-opt reads them: `format` is `mlir`, `pt2`,
    `torchscript` or `script`, by default chosen from the extension or the
    content (a `.pt2` is a zip archive). A `torch.export.ExportedProgram` goes
    through the live importer (the `torch` extra); an xDSL `ModuleOp` is used
    as it is (not copied). `entry` names the TorchScript method or function to
    run (exir-run's `--entry`).
    """
    _check_type(format, (str, type(None)), "load()'s format")
    _check_type(name, (str, type(None)), "load()'s name")
    _check_type(entry, (str, type(None)), "load()'s entry")
    if isinstance(source, ModuleOp):
        return Program(source, entry)
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        if os.path.isdir(path):
            raise ExirError(
                directory_given(
                    path,
                    "load()",
                    " or takes an ExportedProgram or a ModuleOp (compile() also takes an nn.Module); "
                    "a compiled artifact's directory runs with xdsl_exir.runtime.load(path)",
                )
            )
        if not os.path.isfile(path):
            raise ExirError(f"{path}: no such file" + ("; for IR text use parse(text)" if "\n" in path else ""))
        with open(path, "rb") as f:
            head = f.read(4096)
        chosen = format or detect_frontend(path, head)
        if chosen == "pt2":  # mapped from its path: the weights are not read (see load_pt2)
            try:
                module = load_pt2(path, name or path)
                module.verify()
            except Exception as e:
                raise ExirError(message(e, None, name or path)) from None
            return Program(module, entry, _tool(name or path))
        with open(path, "rb") as f:
            data = f.read()
        return _load_bytes(data, chosen, name or path, entry)
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        return _load_bytes(data, format or detect_frontend(None, data[:4096]), name or "<bytes>", entry)
    if type(source).__name__ == "ExportedProgram":
        return Program(_import_exported_program(source))
    raise ExirError(
        f"load() takes a path, bytes, an ExportedProgram or a ModuleOp, got {type(source).__name__}"
    )


def parse(text: str, *, format: str = "mlir", name: str = "<text>", entry: str | None = None) -> Program:
    """A program from IR text (a TorchScript graph dump with `format="torchscript"`, Python with "script")."""
    _check_type(text, str, "parse()'s text", "load() reads a path or the bytes of a file")
    _check_type(format, str, "parse()'s format")
    _check_type(name, str, "parse()'s name")
    _check_type(entry, (str, type(None)), "parse()'s entry")
    return _load_bytes(text.encode(), format, name, entry)


def _load_bytes(data: bytes, format: str, name: str, entry: str | None = None) -> Program:
    tool = _tool(name)
    frontend = tool.available_frontends.get(format)
    if frontend is None:
        raise ExirError(f"unknown format '{format}' (formats: {', '.join(sorted(tool.available_frontends))})")
    try:
        module = frontend(BytesIO(data))
        module.verify()
    except Exception as e:
        raise ExirError(message(e, None, name)) from None
    return Program(module, entry, tool)


def _import_exported_program(ep: Any) -> ModuleOp:
    from xdsl_exir.frontends.torch_live import import_exported_program  # torch: only for live objects

    try:
        return import_exported_program(ep)
    except ModuleNotFoundError:
        raise
    except Exception as e:
        raise ExirError(message(e, None, "ExportedProgram")) from None


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


@dataclass
class Profile:
    """The per-operator times of `Program.profile` (printed, it is exir-run --profile's table)."""

    profiler: OpProfiler
    outputs: Any

    @property
    def rows(self) -> list[OpStat]:
        """One row per operator, longest self time first."""
        return self.profiler.rows()

    def table(self, limit: int | None = None) -> str:
        """The table, its `limit` slowest operators only when given."""
        _check_type(limit, (int, type(None)), "table()'s limit")
        return self.profiler.table(limit)

    def chrome_trace(self) -> str:
        """The run as trace-event JSON (write it to a file and open it in ui.perfetto.dev)."""
        return self.profiler.chrome_trace()

    def __str__(self) -> str:
        return self.table()


class Program:
    """
    One module holding an `exir.program` (or TorchScript), with what a notebook does with it.

    `module` is the xDSL IR itself, for anything the methods do not cover. The
    compiled interpreter is made on the first run and kept.
    """

    def __init__(self, module: ModuleOp, entry: str | None = None, tool: ExirOptMain | None = None) -> None:
        _check_type(module, ModuleOp, "Program()'s module", "load() and parse() make a Program from a file or text")
        _check_type(entry, (str, type(None)), "Program()'s entry")
        self.module = module
        self.entry = entry
        """TorchScript: the method or function to run (default: forward, or the only function)."""
        self._runner: ProgramRunner | TorchScriptRunner | None = None
        self._tool = tool

    @property
    def tool(self) -> ExirOptMain:
        """The exir-opt driver this program was read with: its context, passes and targets."""
        if self._tool is None:
            self._tool = _tool("<program>")
        return self._tool

    # -- structure ------------------------------------------------------------

    @property
    def is_torchscript(self) -> bool:
        return is_torchscript(self.module)

    @property
    def program(self) -> ProgramOp:
        """The `exir.program` (an error for TorchScript, which has none until lowered)."""
        programs = [op for op in self.module.ops if isinstance(op, ProgramOp)]
        if len(programs) != 1:
            raise ExirError(f"expected one exir.program in the module, found {len(programs)}")
        return programs[0]

    @property
    def input_names(self) -> list[str]:
        """The user inputs, flattened, in call order (the `arg0 ..` of exir-run's npz files)."""
        runner = self._get_runner()
        return list(runner.user_input_names if isinstance(runner, ProgramRunner) else runner.input_names)

    # -- transforming ---------------------------------------------------------

    def apply(self, pipeline: str) -> Program:
        """
        A new program: a copy of this one after `pipeline` (exir-opt's `-p`
        syntax: 'cse,dce', 'decompose{legal-ops=...}', a builtin.module(...)
        anchor). The IR is verified after each pass, as exir-opt does.
        """
        _check_type(pipeline, str, "apply()'s pipeline", "spell it as exir-opt's -p does, e.g. 'cse,dce'")
        module = self.module.clone()
        tool = self.tool

        def verify(previous: ModulePass | None, op: ModuleOp, next_pass: ModulePass | None) -> None:
            op.verify()

        try:
            passes = build_pipeline(tool.available_passes, pipeline, verify)
            module.verify()
            passes.apply(tool.ctx, module)
        except Exception as e:
            raise ExirError(message(e, module, f"-p {pipeline}")) from None
        return Program(module, self.entry, tool)

    # -- compiling ------------------------------------------------------------

    def compile(
        self, backend: str | None = None, *, pipeline: str = "", threads: int | None = None, **iree_options: Any
    ) -> CompiledProgram:
        """
        This program ready to run on `backend`: `"iree"` (native code; the default
        when IREE is installed) or `"interpreter"`. `pipeline` runs first (exir-opt's
        `-p`); `threads` sizes IREE's worker pool (or numpy's BLAS on the
        interpreter); the other keywords are `IreeOptions` fields (`device`,
        `target_cpu`, `data_tiling`, `cache_dir`, `use_cache`, ...).
        """
        _check_type(backend, (str, type(None)), "compile()'s backend")
        _check_type(threads, (int, type(None)), "compile()'s threads")
        _check_type(pipeline, str, "compile()'s pipeline", "spell it as exir-opt's -p does, e.g. 'cse,dce'")
        if threads is not None and threads < 1:
            raise ExirError(f"compile()'s threads must be at least 1, got {threads}")
        program = self.apply(pipeline) if pipeline else self
        if program.is_torchscript:
            program = program.apply("torchscript-to-exir")
        chosen = backend or ("iree" if _iree_available() else "interpreter")
        if chosen == "interpreter":
            if iree_options:
                raise ExirError(f"the interpreter takes no IREE options ({', '.join(sorted(iree_options))})")
            runner = program._get_runner()
            assert isinstance(runner, ProgramRunner)  # TorchScript was lowered to Export IR above
            return CompiledProgram(program.module, "interpreter", runner, threads)
        if chosen != "iree":
            raise ExirError(f"unknown backend {chosen!r}: use 'iree' or 'interpreter'")
        native = _iree_compile(program.module, threads, iree_options)
        compiled = CompiledProgram(program.module, "iree", native.runner, None)
        compiled.native = native
        return compiled

    # -- printing -------------------------------------------------------------

    def to_mlir(self, debuginfo: bool = False, generic: bool = False) -> str:
        """The textual IR, as exir-opt prints it (`debuginfo`: with locations, `generic`: generic op form)."""
        return self.emit("mlir", debuginfo=debuginfo, generic=generic)

    def emit(self, target: str, *, debuginfo: bool = False, generic: bool = False) -> str:
        """
        The output of an exir-opt target, spelled as `--emit` takes it: `mlir`, `fx`,
        `python`, `torchscript`, `mlir{elide-resource-strings-if-larger=64}`, ...
        """
        _check_type(target, str, "emit()'s target", "an output format such as 'mlir' or 'fx'")
        _check_type(debuginfo, bool, "emit()'s debuginfo")
        _check_type(generic, bool, "emit()'s generic")
        tool = self.tool
        try:
            check_target(tool, target)
        except ExirUserError as e:
            name = target.split("{")[0]
            if name in tool.available_targets:  # a known format given options it does not take
                raise ExirError(str(e)) from None
            known = ", ".join(sorted(get_all_targets()) + (["mlir"] if "mlir" not in get_all_targets() else []))
            raise ExirError(f"no '{name}' output format in this build (formats of xdsl-exir: {known})") from None
        args = tool.args
        saved = (args.target, args.print_debuginfo, args.print_op_generic)
        args.target, args.print_debuginfo, args.print_op_generic = target, debuginfo, generic
        try:
            return tool.output_resulting_program(self.module)
        except Exception as e:
            raise ExirError(message(e, self.module, f"--emit {target}")) from None
        finally:
            args.target, args.print_debuginfo, args.print_op_generic = saved

    def to_fx(self) -> str:
        """The graph as torch.fx prints it (`--emit fx`)."""
        return self.emit("fx")

    def to_python(self) -> str:
        """A standalone numpy module computing the program (`--emit python`)."""
        return self.emit("python")

    def to_dot(self) -> str:
        """The program as a Graphviz graph (`--emit dot`, when this build has that target)."""
        return self.emit("dot")

    def to_svg(self) -> str:
        """The program as an SVG picture (`--emit svg`: needs Graphviz's `dot` program)."""
        return self.emit("svg")

    def __str__(self) -> str:
        return self.to_mlir()

    def __repr__(self) -> str:
        if self.is_torchscript:
            return "<Program (TorchScript)>"
        try:
            names = ", ".join(self.input_names)
        except Exception:  # a program the interpreter cannot compile still has a repr
            names = "?"
        return f"<Program forward({names})>"

    # -- running --------------------------------------------------------------

    def _get_runner(self, wrap_op: OpProfiler | None = None) -> ProgramRunner | TorchScriptRunner:
        if self._runner is not None and wrap_op is None:
            return self._runner
        try:
            if self.is_torchscript:
                runner: ProgramRunner | TorchScriptRunner = TorchScriptRunner(self.module, self.entry, wrap_op)
            elif wrap_op is not None:
                wrap_op.count_flops(self.program)
                runner = ProgramRunner(self.module, wrap_op=wrap_op)
            else:
                runner = ProgramRunner(self.module)
        except ExirError:
            raise
        except Exception as e:
            raise ExirError(message(e, self.module, "program")) from None
        if wrap_op is None:
            self._runner = runner
        return runner

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.run(*args, **kwargs)

    def run(self, *args: Any, **kwargs: Any) -> Any:
        """
        Run on numpy: arguments as the exported module takes them (arrays, torch
        tensors, Python scalars, nested in tuples, lists and dicts as at export),
        or its flattened user inputs one by one; the outputs come back in the
        program's pytree structure (a single tensor, a tuple, a dict, ...).
        """
        return self._run(self._get_runner(), args, kwargs)

    def run_flat(self, inputs: Sequence[Any]) -> list[Any]:
        """The flattened user inputs in, the flattened user outputs out (exir-run's npz contract)."""
        _check_type(inputs, (list, tuple), "run_flat()'s inputs", "a list of the flattened user inputs")
        runner = self._get_runner()
        try:
            if isinstance(runner, TorchScriptRunner):
                return list(runner.run([_to_numpy(v) for v in inputs]))
            return runner.run([_to_numpy(v) for v in inputs])
        except Exception as e:
            raise ExirError(message(e, self.module, "run")) from None

    def profile(self, *args: Any, runs: int = 1, **kwargs: Any) -> Profile:
        """Run `runs` times with a per-operator profiler (exir-run --profile); the outputs are in `.outputs`."""
        _check_type(runs, int, "profile()'s runs")
        if runs < 1:
            raise ExirError(f"profile()'s runs must be at least 1, got {runs}")
        profiler = OpProfiler(trace=True)
        runner = self._get_runner(profiler)
        outputs: Any = None
        for _ in range(runs):
            with profiler.run():
                outputs = self._run(runner, args, kwargs)
        return Profile(profiler, outputs)

    def _run(self, runner: ProgramRunner | TorchScriptRunner, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        try:
            if isinstance(runner, TorchScriptRunner):
                if kwargs:
                    names = ", ".join(runner.input_names) or "none"
                    raise ExirError(
                        f"TorchScript programs take positional inputs only: got keyword arguments "
                        f"({', '.join(kwargs)}); give its inputs ({names}) in that order"
                    )
                results = runner.run([_to_numpy(a) for a in args])
                return results[0] if len(results) == 1 else tuple(results)
            names = runner.user_input_names
            flat = _flatten_inputs(args, kwargs, self.program.in_spec, names)
            outputs = runner.run(flat)
        except ExirError:
            raise
        except Exception as e:
            raise ExirError(message(e, self.module, "run")) from None
        spec = self.program.out_spec
        return unflatten(outputs, spec.data) if spec is not None else outputs


class CompiledProgram(Program):
    """
    A program compiled for one backend, called like the module it came from:
    pytree in, pytree out (the export's `out_spec`; torch tensors out when torch
    tensors came in, numpy arrays otherwise), `ExirError` on failure,
    `.profile(...)` for times. On IREE the native code runs as one step, so its
    profile has one row (`exir.graph`) with the whole call's time; the
    interpreter's profile has one row per operator.
    """

    def __init__(self, module: ModuleOp, backend: str, runner: ProgramRunner, threads: int | None) -> None:
        super().__init__(module)
        self.backend = backend
        """`iree` or `interpreter`."""
        self._runner = runner
        self._threads = threads
        self.native: Any = None
        """On IREE, the backend's compiled program (`targets.iree.CompiledProgram`: module, weights, options)."""
        self._call: tuple[Any, Sequence[str], Any] | None = None
        """On IREE, what a call needs, read from the program once: its input spec, input names and output spec."""
        self._structure: Callable[[Sequence[Any]], Any] | None = None
        """On IREE, the output structure, decided at the first call (`prepare_unflatten`)."""

    def save(self, path: str | os.PathLike[str]) -> None:
        """
        Write this program as a compiled artifact, a directory (the IREE module, its
        weights as an IREE parameter archive, and a manifest) that
        `xdsl_exir.runtime.load(path)` runs with only numpy and IREE's runtime, and
        `exir-run path` too.
        """
        if self.native is None:
            raise ExirError(f"save() writes programs compiled by IREE; this one runs on the {self.backend}: compile(backend='iree')")
        try:
            _save_bundle(self.native, path)
        except Exception as e:
            raise ExirError(message(e, self.module, os.fspath(path))) from None

    def _run(self, runner: ProgramRunner | TorchScriptRunner, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.native is not None and runner is self._runner:  # not a profiled run
            outputs = self._run_native(args, kwargs)
        elif self._threads is None:
            outputs = super()._run(runner, args, kwargs)
        else:
            with threadpool_limits(limits=self._threads, user_api="blas"):
                outputs = super()._run(runner, args, kwargs)
        return _to_torch(outputs) if _has_torch_tensor((args, kwargs)) else outputs

    def _run_native(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """
        A call on IREE through the compiled program's prepared call (its checks decided
        at load), with the program's specs read once: the same inputs, outputs and
        refusals as the runner's general path, without its per-call walk of the module.
        """
        if self._call is None:
            program = self.program
            self._call = (program.in_spec, self.native.runner.user_input_names, program.out_spec)
        in_spec, names, out_spec = self._call
        try:
            outputs = self.native(*_flatten_inputs(args, kwargs, in_spec, names))
        except ExirError:
            raise
        except Exception as e:
            raise ExirError(message(e, self.module, "run")) from None
        if self._structure is None:
            self._structure = prepare_unflatten(out_spec.data, len(outputs)) if out_spec is not None else list
        return self._structure(outputs)

    def _get_runner(self, wrap_op: OpProfiler | None = None) -> ProgramRunner | TorchScriptRunner:
        runner = self._runner
        assert runner is not None
        if wrap_op is None or self.backend == "interpreter":
            return super()._get_runner(wrap_op)
        assert isinstance(runner, ProgramRunner)
        entry = self.program.entry
        assert entry is not None
        native = runner.graph
        timed = wrap_op(lambda *args: tuple(native(*args)), entry)
        return ProgramRunner(self.program, state=runner.state, executor=timed)

    def __repr__(self) -> str:
        return f"<CompiledProgram ({self.backend}) forward({', '.join(self.input_names)})>"


def compile(
    obj: Any,
    *example_args: Any,
    backend: str | None = None,
    dynamic_shapes: Any = None,
    **options: Any,
) -> CompiledProgram:
    """
    One call from a model to a callable that runs it natively:
    `compile(module, x)` exports an `nn.Module` with `torch.export.export(module,
    example_args, dynamic_shapes=...)`; an `ExportedProgram`, a `.pt2` or `.mlir`
    path, or a `Program` is taken as it is. `backend` and `options` are
    `Program.compile`'s. The result takes what the module takes and returns its
    pytree (tuples, lists, dicts, as eager does), as numpy arrays.
    """
    if isinstance(obj, Program):
        program = obj
    elif isinstance(obj, ModuleOp | str | os.PathLike | bytes):
        program = load(obj)
    elif type(obj).__name__ == "ExportedProgram":
        program = load(obj)
    elif _is_torch_module(obj):
        program = Program(_import_exported_program(_export(obj, example_args, dynamic_shapes)))
    else:
        raise ExirError(
            "compile() takes an nn.Module (with example arguments), an ExportedProgram, a .pt2 or .mlir "
            f"path, or a Program; got {type(obj).__name__}"
        )
    if example_args and not _is_torch_module(obj):
        raise ExirError("example arguments are only for an nn.Module, which compile() exports with them")
    return program.compile(backend, **options)


def _has_torch_tensor(value: Any) -> bool:
    if isinstance(value, (tuple, list)):
        return any(_has_torch_tensor(v) for v in cast(Sequence[Any], value))
    if isinstance(value, dict):
        return any(_has_torch_tensor(v) for v in cast(dict[Any, Any], value).values())
    return type(value).__module__.startswith("torch") and hasattr(value, "numpy")


def _to_torch(value: Any) -> Any:
    """Outputs as torch tensors, sharing the arrays' memory (bfloat16 and float8 exactly, through float32)."""
    import torch  # torch tensors came in, so torch is installed

    if isinstance(value, tuple | list):
        items = [_to_torch(v) for v in cast(Sequence[Any], value)]
        return items if isinstance(value, list) else tuple(items)
    if isinstance(value, dict):
        return {k: _to_torch(v) for k, v in cast(dict[Any, Any], value).items()}
    if not isinstance(value, np.ndarray | np.generic):
        return value
    array = np.asarray(value)
    if array.dtype.name in _LOW_PRECISION_NAMES:
        return torch.from_numpy(array.astype(np.float32)).to(getattr(torch, array.dtype.name))
    if not array.flags.writeable or not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))  # torch shares only writable native arrays
    return torch.from_numpy(array)


def _is_torch_module(obj: Any) -> bool:
    return any(f"{c.__module__}.{c.__qualname__}" == "torch.nn.modules.module.Module" for c in type(obj).__mro__)


def _export(module: Any, args: tuple[Any, ...], dynamic_shapes: Any) -> Any:
    import torch  # an nn.Module means torch is installed

    try:
        return torch.export.export(module, tuple(args), dynamic_shapes=dynamic_shapes)
    except Exception as e:
        first = (str(e) or type(e).__name__).strip().splitlines()[0]
        raise ExirError(f"torch.export.export of the {type(module).__name__} failed: {first}") from None


def _iree_available() -> bool:
    from xdsl_exir.targets.iree import iree_available  # the IREE backend (and the lowering): loaded on first use

    return iree_available()


def _save_bundle(native: Any, path: str | os.PathLike[str]) -> None:
    from xdsl_exir.targets.iree_bundle import save_bundle  # the artifact writer (and IREE): loaded by save()

    save_bundle(native, path)


def _iree_compile(module: ModuleOp, threads: int | None, options: dict[str, Any]) -> Any:
    from xdsl_exir.targets.iree import (  # the IREE backend (and the lowering): loaded on first use
        IreeOptions,
        compile_program,
    )

    try:
        iree_options = IreeOptions(threads=threads, **options)
    except TypeError:
        known = ", ".join(f.name for f in fields(IreeOptions) if f.name != "threads")
        raise ExirError(f"unknown IREE option among {', '.join(sorted(options))} (options: {known})") from None
    try:
        return compile_program(module, iree_options)
    except ModuleNotFoundError:
        raise
    except Exception as e:
        raise ExirError(message(e, module, "compile (IREE)")) from None


# ---------------------------------------------------------------------------
# Inputs and outputs
# ---------------------------------------------------------------------------


_LOW_PRECISION_NAMES = frozenset(d.value for d in LOW_PRECISION)


def _to_numpy(value: Any) -> Any:
    """A torch tensor as a numpy array (without importing torch); anything else as it is."""
    if hasattr(value, "detach") and hasattr(value, "numpy"):
        tensor = value.detach().cpu()
        name = str(tensor.dtype).removeprefix("torch.")
        if name in _LOW_PRECISION_NAMES:  # bfloat16, float8: exactly, as an ml_dtypes array
            return cast_array(tensor.float().numpy(), DType(name))
        try:
            return tensor.numpy()
        except TypeError as e:  # dtypes numpy lacks
            raise ExirError(f"cannot hand a torch tensor of {tensor.dtype} to numpy ({e}); convert it first") from None
    return value


def _flatten_inputs(args: tuple[Any, ...], kwargs: dict[str, Any], in_spec: Any, names: Sequence[str]) -> list[Any]:
    """The user inputs in order: flat already, or flattened along the program's input spec."""
    return flatten_inputs(args, kwargs, in_spec.data if in_spec is not None else None, names, _to_numpy, ExirError)
