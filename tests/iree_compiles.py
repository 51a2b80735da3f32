"""
IREE compiles shared by the tests that run lowered programs natively; tests
import this module, it is not a test.

Each iree-compile pays a process start and the set-up of IREE's pipeline, and
each module a run of that pipeline of its own: 40 of the lowering tests' small
programs took 45.6 s of CPU compiled one by one and 20.7 s compiled as one
module of 40 functions; 33 larger ones 57.9 and 38.0 s. The test run compiles
some 200 modules on two cores, so this is where its time goes.

- `ProgramBatch` holds small programs, each lowered by itself, and compiles
  them together: one module per set of compile flags, each program a function
  of its own (renamed from `forward`). Every program is compiled with exactly
  the flags it gets alone (data tiling is decided from each program's text) and
  runs its own function; a test takes its program's executor and fails on its
  own. A module IREE refuses is compiled again program by program, so that the
  refusal belongs to the one program that causes it.
- `compile_shared` is `compile_program` for programs whose lowered texts are
  equal but for the `exir.name` of their inputs and outputs (a zoo model's
  training and core IRs: torch names the outputs after different nodes). IREE
  compiles such a text once per process, and each program runs on that module
  with its own runner, size checks and weights. The names are only reflection
  metadata in the module: the executor passes arguments and reads results by
  position, which the rest of the text (types and `exir.kind` included) fixes.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import Any

from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.dialects.func import FuncOp

from xdsl_exir.dialects.exir import ProgramOp
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.targets.iree import (
    DATA_TILING_FLAG,
    GLOBAL_DATA_TILING_FLAG,
    CompiledProgram,
    IreeError,
    IreeExecutor,
    IreeOptions,
    compile_text,
    lower_for_iree,
    lower_to_upstream,
    named_parameters,
    print_mlir,
    to_core,
)
from xdsl_exir.targets.iree_cache import CompileResult

BATCH_OPTIONS = IreeOptions(threads=1, use_cache=False)
"""What the batched programs are compiled and run with: one thread, no on-disk cache."""


@dataclasses.dataclass
class _Program:
    """One program of a batch, lowered: where it runs once compiled, or why it cannot."""

    program: ProgramOp | None = None
    lowered: ModuleOp | None = None
    text: str = ""
    flags: tuple[str, ...] = ()
    parameters: dict[str, Any] = dataclasses.field(default_factory=lambda: {})
    vmfb: bytes | None = None
    function: str = "forward"
    error: Exception | None = None


class ProgramBatch:
    """
    Programs registered by name (`add`, at import), built, lowered and compiled
    together the first time a test asks for one (`executor`), once per process.
    `core` lowers each program as `compile_program` does (`to-core-aten` first,
    weights of `parameters_from_bytes` or more as named parameters); without it
    the program is lowered as it is (the lowering's rules alone under test).
    """

    def __init__(self, *, core: bool = False, options: IreeOptions = BATCH_OPTIONS) -> None:
        self.core = core
        self.options = options
        self._builders: dict[str, Callable[[], ModuleOp]] = {}
        self._programs: dict[str, _Program] | None = None
        self.compiles = 0
        """How many modules iree-compile was given (for the tests of this helper)."""

    def add(self, name: str, build: Callable[[], ModuleOp]) -> None:
        """Register the program `build()` makes under `name` (built when the batch is compiled)."""
        assert name not in self._builders, f"program '{name}' added twice"
        assert self._programs is None, "programs are added before the batch is compiled"
        self._builders[name] = build

    def program(self, name: str) -> ProgramOp:
        """The `exir.program` that `executor(name)` runs (after `to-core-aten` with `core`)."""
        entry = self._entry(name)
        assert entry.program is not None
        return entry.program

    def executor(self, name: str) -> IreeExecutor:
        """Program `name` on IREE, as `ProgramRunner`'s executor; raises what its lowering or compile raised."""
        entry = self._entry(name)
        assert entry.program is not None and entry.vmfb is not None
        return IreeExecutor(entry.program, entry.vmfb, self.options, parameters=entry.parameters, function=entry.function)

    def compiled(self, name: str) -> CompiledProgram:
        """
        Program `name` as `compile_program` returns it (with `core`): its runner on
        this executor and the call prepared at load time, on the batch's module.
        """
        entry = self._entry(name)
        assert entry.program is not None and entry.vmfb is not None
        runner = ProgramRunner(entry.program, executor=self.executor(name))
        return CompiledProgram(runner, entry.text, CompileResult(entry.vmfb, False, ""), self.options, entry.parameters)

    def _entry(self, name: str) -> _Program:
        if self._programs is None:
            self._programs = self._compile_all()
        entry = self._programs[name]
        if entry.error is not None:
            raise entry.error
        return entry

    def _lower(self, build: Callable[[], ModuleOp]) -> _Program:
        try:
            module = build()
            if self.core:
                module = to_core(module)
                lowered = lower_to_upstream(module, self.options.parameters_from_bytes)
            else:
                lowered = lower_to_upstream(module)
            program = find_program(module)
            text = print_mlir(lowered)
            flags = tuple(self.options.compile_flags(text))
            return _Program(program, lowered, text, flags, named_parameters(lowered, program))
        except Exception as e:  # the test of this program re-raises it; the others go on
            return _Program(error=e)

    def _compile_all(self) -> dict[str, _Program]:
        programs = {name: self._lower(build) for name, build in self._builders.items()}
        groups: dict[tuple[str, ...], list[_Program]] = {}
        for entry in programs.values():
            if entry.error is not None:
                continue
            if _single_forward(entry.lowered) is None or entry.parameters:
                self._compile_alone(entry)  # globals or named parameters: its module as it is
            else:
                groups.setdefault(entry.flags, []).append(entry)
        for flags, members in groups.items():
            if len(members) == 1:
                self._compile_alone(members[0])
                continue
            merged = ModuleOp([])
            for i, entry in enumerate(members):
                function = _single_forward(entry.lowered)
                assert function is not None
                clone = function.clone()
                entry.function = f"program_{i}"
                clone.sym_name = StringAttr(entry.function)
                merged.body.block.add_op(clone)
            text = print_mlir(merged)
            # The flags each member gets alone: data tiling on for all or none, and its path
            # (convolution or not) the same for all, so the merged text decides as each did.
            tiled = any(f in (DATA_TILING_FLAG, GLOBAL_DATA_TILING_FLAG) for f in flags)
            options = dataclasses.replace(self.options, data_tiling=tiled)
            assert tuple(options.compile_flags(text)) == flags, (options.compile_flags(text), flags)
            try:
                vmfb = self._compile(text, options).vmfb
            except IreeError:
                for entry in members:  # each refusal to the program that causes it
                    entry.function = "forward"
                    self._compile_alone(entry)
                continue
            for entry in members:
                entry.vmfb = vmfb
        return programs

    def _compile_alone(self, entry: _Program) -> None:
        try:
            entry.vmfb = self._compile(entry.text, self.options).vmfb
        except IreeError as e:
            entry.error = e

    def _compile(self, text: str, options: IreeOptions) -> CompileResult:
        self.compiles += 1
        return compile_text(text, options)


def compile_lowered(module: ModuleOp, options: IreeOptions = BATCH_OPTIONS) -> IreeExecutor:
    """A test program's lowering compiled by IREE as it is, in a module of its own (no
    `to-core-aten` first: the lowering rules alone are under test), for a program too
    large, or too particular, to share a batch."""
    vmfb = compile_text(print_mlir(lower_to_upstream(module)), options).vmfb
    return IreeExecutor(find_program(module), vmfb, options)


def _single_forward(lowered: ModuleOp | None) -> FuncOp | None:
    """The lowered module's `forward` when it is all the module holds (no globals, no other function)."""
    ops = list(lowered.ops) if lowered is not None else []
    if len(ops) == 1 and isinstance(ops[0], FuncOp) and ops[0].sym_name.data == "forward":
        return ops[0]
    return None


_NAMES = re.compile(r'exir\.name = "(?:[^"\\]|\\.)*"')
"""The `exir.name` attribute of a lowered function's argument or result."""

_SHARED: dict[tuple[str, tuple[str, ...]], CompileResult] = {}


def compile_shared(source: Any, options: IreeOptions) -> CompiledProgram:
    """
    `compile_program(source, options)`, except that a lowered text equal to one
    compiled before in this process but for its `exir.name`s runs on that
    module (see the module's docstring).
    """
    lowered = lower_for_iree(source, options)
    flags = tuple(options.compile_flags(lowered.text))
    key = (_NAMES.sub("exir.name", lowered.text), flags)
    result = _SHARED.get(key)
    if result is None:
        result = _SHARED[key] = compile_text(lowered.text, options)
    executor = IreeExecutor(lowered.program, result.vmfb, options, lowered.sizes, lowered.parameters)
    runner = ProgramRunner(lowered.program, executor=executor)
    return CompiledProgram(runner, lowered.text, result, options, lowered.parameters)
