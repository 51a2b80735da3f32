"""
The exir interpreter inside xDSL's own `Interpreter`.

Projects that mix our dialects with others run them with xDSL's interpreter
framework; `ExirFunctions` gives it every op the graph compiler knows, with
the same prepared implementations (prepared once per op and cached), so both
paths compute the same thing. Region ops (`exir.cond`, `exir.while_loop`,
`exir.map`) run their regions through the xDSL interpreter, so ops of other
dialects may appear inside them.

    interpreter = Interpreter(module)
    interpreter.register_implementations(ExirFunctions(program))
    outputs = interpreter.run_ssacfg_region(program.entry.body, args)

`ProgramRunner` is the fast path: it compiles the whole graph to a flat list
and applies the program signature (state, symbols, mutations).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, cast

import numpy as np
from xdsl.interpreter import (
    Interpreter,
    InterpreterFunctions,
    OpImpl,
    OpImplResult,
    ReturnedValues,
    register_impls,
)
from xdsl.ir import Operation

from xdsl_exir.dialects.aten import ATEN_OP_NAMES, aten_op_class
from xdsl_exir.dialects.exir import (
    SYM_ARITH_OPS,
    CondOp,
    MapOp,
    OutputOp,
    ProgramOp,
    WhileLoopOp,
)
from xdsl_exir.interpreters.compiler import CompileContext, Prepared, compiler_for, registered_op_types, truth
from xdsl_exir.interpreters.exir_functions import map_over
from xdsl_exir.interpreters.program import load_state


def _region_ops() -> dict[type[Operation], Any]:
    def run_cond(ft: ExirFunctions, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> OpImplResult:
        cond = cast(CondOp, op)
        region = cond.true_branch if truth(args[0]) else cond.false_branch
        return OpImplResult(interp.run_ssacfg_region(region, args[1:], "cond"), None)

    def run_while(ft: ExirFunctions, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> OpImplResult:
        loop = cast(WhileLoopOp, op)
        n = len(loop.carried)
        carried, extra = args[:n], args[n:]
        while truth(interp.run_ssacfg_region(loop.cond_region, (*carried, *extra), "while_cond")[0]):
            carried = interp.run_ssacfg_region(loop.body_region, (*carried, *extra), "while_body")
        return OpImplResult(tuple(carried), None)

    def run_map(ft: ExirFunctions, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> OpImplResult:
        map_op = cast(MapOp, op)
        n = len(map_op.xs)
        body = lambda *a: interp.run_ssacfg_region(map_op.body, a, "map")  # noqa: E731 - a one-line closure over the interpreter, named for the call below
        return OpImplResult(tuple(map_over(body, list(args[:n]), list(args[n:]))), None)

    def run_output(ft: ExirFunctions, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> OpImplResult:
        return OpImplResult((), ReturnedValues(args))

    return {CondOp: run_cond, WhileLoopOp: run_while, MapOp: run_map, OutputOp: run_output}


def _run_prepared(ft: ExirFunctions, interp: Interpreter, op: Operation, args: tuple[Any, ...]) -> OpImplResult:
    with np.errstate(all="ignore"):  # a compiled graph silences numpy once per run; op by op, here
        return OpImplResult(ft.prepared(op)(*args), None)


@register_impls
class ExirFunctions(InterpreterFunctions):
    """Implementations of every exir, aten (and, when loaded, fx) op for xDSL's Interpreter."""

    def __init__(self, program: ProgramOp | None = None, state: dict[str, Any] | None = None) -> None:
        if state is None:
            state = load_state(program) if program is not None else {}
        self.ctx = CompileContext(program, state)
        self._prepared: dict[Operation, Prepared] = {}

    def prepared(self, op: Operation) -> Prepared:
        fn = self._prepared.get(op)
        if fn is None:
            compile_fn = compiler_for(type(op))
            assert compile_fn is not None
            fn = self._prepared[op] = compile_fn(op, self.ctx)
        return fn

    @classmethod
    def _impls(cls) -> Iterable[tuple[type[Operation], OpImpl[InterpreterFunctions, Operation]]]:
        special = _region_ops()
        types: set[type[Operation]] = {t for t in registered_op_types() if not getattr(t, "__abstractmethods__", None)}
        types |= set(SYM_ARITH_OPS.values())
        types |= {c for n in ATEN_OP_NAMES if (c := aten_op_class(n)) is not None}
        impls: dict[type[Operation], Any] = {}
        for t in types:
            if t in special:
                continue
            if compiler_for(t) is not None and getattr(t, "name", None):
                impls[t] = _run_prepared
        impls.update(special)
        return impls.items()
