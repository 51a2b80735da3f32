"""
`exir.fusion_group` for the graph compiler: the group's region runs as one kernel.

The region is compiled once into one generated Python function. Pointwise
ops that the IR proves to be same-dtype float ufunc calls (the ops of
`exir_functions`' fast-path tables, `FAST_UNARY` and `FAST_BINARY`, and a
clamp with number bounds, the clamp kernel's one-`np.clip` case) are
emitted as numpy calls writing into a buffer that is dead after the op
(`np.add(v1, v2, out=v1)`), so a chain of N ops allocates about one array
instead of N; a group input is overwritten too when the group is the only
user of a fresh array made by a dense op (a convolution's or matmul's result).
The arithmetic is the fast path's, from the same tables, so results equal the
unfused ops bit for bit. Every other op of the region runs through its registered compiler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import FusionGroupOp, OutputOp, TensorType
from xdsl_exir.interpreters.compiler import (
    CompileContext,
    InterpreterError,
    Prepared,
    compiler_for,
    describe_error,
    register_op,
)
from xdsl_exir.interpreters.exir_functions import (
    FAST_BINARY,
    FAST_DTYPES,
    FAST_UNARY,
    OperandRef,
    decode_call_args,
)
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.kernels.pointwise import clamp_scalar_bounds

_FRESH_PRODUCERS = frozenset(
    {
        "aten.convolution.default",
        "aten.conv2d.default",
        "aten.conv1d.default",
        "aten.addmm.default",
        "aten.mm.default",
        "aten.bmm.default",
        "aten.linear.default",
    }
)
"""Ops whose kernels return a newly allocated array: a group that is the only
user of such a result may overwrite it."""

def _float_type(value: SSAValue) -> TensorType | None:
    t = value.type
    return t if isinstance(t, TensorType) and t.element_dtype in FAST_DTYPES else None


def _inline_form(op: Operation) -> tuple[str, list[str], list[object]] | None:
    """(target, kind, arguments) when `op` is a same-dtype ufunc call the group can emit in place."""
    if not isinstance(op, AtenOp) or len(op.results) != 1:
        return None
    rt = _float_type(op.results[0])
    if rt is None or any(_float_type(o) is None or cast(TensorType, o.type).element_dtype != rt.element_dtype for o in op.operands):
        return None
    target = op.name
    args, kwargs = decode_call_args(op)
    if target in FAST_UNARY and len(args) == 1 and not kwargs and isinstance(args[0], OperandRef):
        return target, ["unary"], args
    if target in FAST_BINARY and len(args) == 2 and not set(kwargs) - {"alpha"} and kwargs.get("alpha", 1) == 1:
        a, b = args
        if isinstance(a, OperandRef) and (isinstance(b, OperandRef) or (isinstance(b, (int, float)) and not isinstance(b, bool))):
            return target, ["binary"], args
    if target == "aten.clamp.default" and not kwargs and args and isinstance(args[0], OperandRef):
        bounds = [*args[1:], None, None][:2]
        # the kernel's own test for its one-np.clip path, on a stand-in of the operand's dtype
        if len(args) <= 3 and clamp_scalar_bounds(np.empty(0, aten_kernels.numpy_dtype(rt.element_dtype)), *bounds):
            return target, ["clamp"], [args[0], *bounds]
    return None


def _scalar_name(namespace: dict[str, Any], name: str, value: object, dtype: np.dtype[Any]) -> str:
    """A bound of an inlined clamp as a constant of the generated function (`None` stays None)."""
    if value is None:
        return "None"
    namespace[name] = dtype.type(cast(float, value))
    return name


def _donatable(value: SSAValue, group: FusionGroupOp) -> bool:
    """The group is the only user of `value`, a fresh array of a dense op."""
    owner = value.owner
    return (
        isinstance(owner, AtenOp)
        and owner.name in _FRESH_PRODUCERS
        and value.has_one_use()
        and value.get_user_of_unique_use() is group
    )


class _FusedKernel:
    """The generated function of one fusion group and the ops its lines came from."""

    def __init__(self, group: FusionGroupOp, ctx: CompileContext) -> None:
        block = group.body.block
        names: dict[SSAValue, str] = {}
        namespace: dict[str, Any] = {"np": np}
        self.line_ops: dict[int, Operation] = {}
        lines: list[str] = []
        for i, arg in enumerate(block.args):
            names[arg] = f"a{i}"
        owned: set[SSAValue] = {arg for arg, outer in zip(block.args, group.inputs) if _donatable(outer, group)}
        outputs: set[SSAValue] = set()
        terminator = block.last_op
        if not isinstance(terminator, OutputOp):
            raise InterpreterError("a fusion group's body must end with exir.output", group)
        outputs.update(terminator.operands)
        ops = [op for op in block.ops if op is not terminator]
        last_use: dict[SSAValue, int] = {}
        for k, op in enumerate(ops):
            for v in op.operands:
                last_use[v] = k

        def emit(text: str, op: Operation) -> None:
            lines.append(text)
            self.line_ops[len(lines) + 1] = op  # +1: the `def` line

        for k, op in enumerate(ops):
            form = _inline_form(op)
            result = op.results[0] if op.results else None
            if form is not None and result is not None:
                target, (kind,), args = form
                out = f"v{k}"
                names[result] = out
                rt = cast(TensorType, result.type)
                # a dead owned buffer of the result's type becomes the output
                reuse = next(
                    (
                        v
                        for v in op.operands
                        if v in owned and v not in outputs and last_use.get(v) == k and v.type == rt
                    ),
                    None,
                )
                np_dtype = aten_kernels.numpy_dtype(rt.element_dtype)
                zero = f"_z{k}"
                namespace[zero] = np_dtype.type(0)
                if kind == "clamp":
                    x = names[op.operands[cast(OperandRef, args[0]).index]]
                    lo, hi = (_scalar_name(namespace, f"_c{k}_{j}", v, np_dtype) for j, v in enumerate(args[1:]))
                    if reuse is not None:
                        emit(f"{out} = np.clip({x}, {lo}, {hi}, out={names[reuse]})", op)
                    else:
                        emit(f"{out} = np.clip({x}, {lo}, {hi})", op)
                elif kind == "unary":
                    x = names[op.operands[cast(OperandRef, args[0]).index]]
                    steps = FAST_UNARY[target]
                    if reuse is not None:
                        emit(f"{out} = {names[reuse]}", op)
                        for s in steps:
                            emit(s.format(x=x, o=out, z=zero), op)
                    else:
                        # a unary result has its operand's shape
                        emit(f"{out} = np.empty_like({x}, dtype=np.{np_dtype.name})", op)
                        for s in steps:
                            emit(s.format(x=x, o=out, z=zero), op)
                else:
                    a, b = args
                    ufunc = FAST_BINARY[target]
                    xa = names[op.operands[cast(OperandRef, a).index]]
                    if isinstance(b, OperandRef):
                        xb = names[op.operands[b.index]]
                    else:
                        const = f"_c{k}"
                        namespace[const] = np_dtype.type(b)  # a Python scalar takes the tensor's dtype
                        xb = const
                    if reuse is not None:
                        emit(f"{out} = np.{ufunc}({xa}, {xb}, out={names[reuse]})", op)
                    else:
                        emit(f"{out} = np.{ufunc}({xa}, {xb})", op)
                        emit(f"if type({out}) is not np.ndarray: {out} = np.asarray({out})", op)
                owned.add(result)
                continue
            compile_fn = compiler_for(type(op))
            if compile_fn is None:
                raise InterpreterError(f"the interpreter has no implementation of '{op.name}'", op)
            prepared = compile_fn(op, ctx)
            namespace[f"p{k}"] = prepared
            call = f"p{k}(" + ", ".join(names[v] for v in op.operands) + ")"
            outs = [f"v{k}_{j}" for j in range(len(op.results))]
            for r, n in zip(op.results, outs):
                names[r] = n
            if len(outs) == 1:
                emit(f"{outs[0]} = {call}[0]", op)
            elif outs:
                emit(", ".join(outs) + f", = {call}", op)
            else:
                emit(call, op)
        ret = "".join(f"{names[v]}, " for v in terminator.operands)
        source = "\n".join(
            [f"def fused({''.join(f'a{i}, ' for i in range(len(block.args)))}):", *("    " + ln for ln in lines), f"    return ({ret})"]
        )
        self.filename = f"<exir-fusion-group-{id(self)}>"
        exec(compile(source, self.filename, "exec"), namespace)
        self.fn: Callable[..., tuple[Any, ...]] = namespace["fused"]
        self.source = source

    def failing_op(self, e: BaseException) -> Operation | None:
        tb = e.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code.co_filename == self.filename:
                return self.line_ops.get(tb.tb_lineno)
            tb = tb.tb_next
        return None


@register_op(FusionGroupOp)
def compile_fusion_group(op: Operation, ctx: CompileContext) -> Prepared:
    group = cast(FusionGroupOp, op)
    kernel = _FusedKernel(group, ctx)
    fn = kernel.fn

    def run(*args: Any) -> tuple[Any, ...]:
        try:
            return fn(*args)
        except InterpreterError:
            raise
        except Exception as e:
            raise InterpreterError(describe_error(e), kernel.failing_op(e) or group) from e

    return run
