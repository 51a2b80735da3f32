"""
Post-training quantization (torch.fx: Practical Program Capture and Transformation, §9): `insert-observers`, then
calibration (`xdsl_exir.transforms.calibrate.calibrate`), then `quantize`.

Observers are ordinary Export IR, the way `torch.export` records a module
that updates a buffer: each observed activation gets a float32 `[2]` buffer
`observer_<i>` holding the running `[min, max]` (initially `[inf, -inf]`),
a placeholder for it, the aten ops computing the updated range
(`amin`/`amax`/`minimum`/`maximum`/`stack`), and a `buffer_mutation` output.
So the interpreter runs observed programs unchanged, calibration is just
running the program on sample inputs (the runner applies the buffer
mutations to the state), and the observed program verifies and exports.
Observer ops carry the discardable attribute `observer = "<state>"`; the
quantizable op they feed is tagged `observes = "<state>"`.

`quantize` rewrites each observed `linear` / `addmm` / `mm` / `conv2d` /
`convolution` whose weight is program state into integer compute: the
activation is quantized per tensor (affine int8, scale and zero point from
the observed range), the weight per output channel (symmetric int8, stored
as a new constant), the product is computed in int32 (`matmul` /
`convolution`), and the result is dequantized with one float32 scale per
channel (activation scale times weight scale) before the float bias is
added. Then every observer is removed, with its buffer, placeholder and
output, and weights nothing else uses are dropped from the program.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp, StringAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import (
    DType,
    GraphOp,
    InputKind,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    StateOp,
    TensorType,
    array_from_blob,
)
from xdsl_exir.transforms.program_state import add_state_input, remove_state_input, sync_function_type
from xdsl_exir.utils.diagnostics import ExirDiagnostic

__all__ = ["InsertObserversPass", "QuantizePass", "OBSERVER_PREFIX", "observer_states"]

OBSERVER_PREFIX = "observer_"
OBSERVER_ATTR = "observer"
OBSERVES_ATTR = "observes"

# op name -> (activation argument, weight argument, weight layout):
# "oi" weight is [out, in...] as in linear/conv, "io" is [in, out] as mm's mat2.
QUANTIZABLE: dict[str, tuple[str, str, str]] = {
    "aten.linear.default": ("input", "weight", "oi"),
    "aten.conv2d.default": ("input", "weight", "oi"),
    "aten.convolution.default": ("input", "weight", "oi"),
    "aten.addmm.default": ("mat1", "mat2", "io"),
    "aten.mm.default": ("self", "mat2", "io"),
}


def _build(name: str, *args: object, **kwargs: Any) -> AtenOp:  # forwarded to AtenOp.build
    cls = aten_op_class(name)
    assert cls is not None, name
    return cls.build(*args, **kwargs)


# ---------------------------------------------------------------------------
# Program signature surgery shared by both passes
# ---------------------------------------------------------------------------


def _program(module: ModuleOp) -> tuple[ProgramOp, GraphOp]:
    programs = [op for op in module.ops if isinstance(op, ProgramOp)]
    if len(programs) != 1:
        raise ExirDiagnostic(module, f"PTQ passes need exactly one exir.program, found {len(programs)}")
    entry = programs[0].entry
    assert entry is not None  # the program verifier guarantees it
    return programs[0], entry


def _add_state_input(
    program: ProgramOp, graph: GraphOp, name: str, kind: InputKind, data: np.ndarray, dtype: DType
) -> BlockArgument:
    """
    A new `exir.state @name` with `data` and a placeholder for it before the user inputs.
    A weight used by several ops (a recurrent cell unrolled over time) is quantized once per
    use: an existing state of that name holding the same data is shared, and one holding
    other data (each use's own activation scale) gets the next free name `name_1`, ...
    """
    states = program.state()
    base, n = name, 0
    while name in states:
        found = states[name]
        value = found.value
        if value is not None and isinstance(found.state_type, TensorType) and found.state_type.element_dtype is dtype:
            existing = array_from_blob(cast(Any, value), found.state_type)
            if existing.shape == data.shape and np.array_equal(existing, data.astype(existing.dtype, copy=False)):
                for spec, arg in zip(program.inputs.data, graph.body.block.args):
                    if spec.target_name == name:
                        return arg
        n += 1
        name = f"{base}_{n}"
    specs = program.inputs.data
    index = next((i for i, s in enumerate(specs) if s.input_kind is InputKind.user_input), len(specs))
    prefix = {InputKind.buffer: "b_", InputKind.constant_tensor: "c_"}.get(kind, "p_")
    t = TensorType(list(data.shape), dtype)
    return add_state_input(program, graph, name, kind, t, data, index, prefix + name.replace(".", "_"))


def _state_of(program: ProgramOp, graph: GraphOp, value: SSAValue) -> tuple[StateOp, BlockArgument] | None:
    """The `exir.state` a placeholder of the entry graph reads, if any."""
    if not isinstance(value, BlockArgument) or value.block is not graph.body.block:
        return None
    spec = program.inputs.data[value.index]
    if spec.input_kind is InputKind.user_input or spec.target_name is None:
        return None
    state = program.state().get(spec.target_name)
    return None if state is None else (state, value)


def observer_states(module: ModuleOp) -> list[str]:
    """The names of the observer buffers of a program, in signature order."""
    program, _ = _program(module)
    return [
        cast(str, s.target_name)
        for s in program.inputs.data
        if s.input_kind is InputKind.buffer and (s.target_name or "").startswith(OBSERVER_PREFIX)
    ]


# ---------------------------------------------------------------------------
# insert-observers
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class InsertObserversPass(ModulePass):
    """Record the running min/max of every quantizable op's float activation in a buffer."""

    name = "insert-observers"

    ops: tuple[str, ...] = ("linear", "addmm", "mm", "conv2d", "convolution")
    """Which quantizable ops to observe (short names of `QUANTIZABLE`)."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        wanted = {self.ops} if isinstance(self.ops, str) else set(self.ops)
        known = {n.split(".")[1] for n in QUANTIZABLE}
        if unknown := wanted - known:
            raise ExirDiagnostic(
                op,
                f"insert-observers: unknown op(s) {', '.join(sorted(unknown))} in `ops`; "
                f"quantizable ops are {', '.join(sorted(known))}",
            )
        program, graph = _program(op)
        if observer_states(op):
            raise ExirDiagnostic(program, "insert-observers: the program already has observers")
        observed: dict[SSAValue, str] = {}
        targets = [
            o
            for o in graph.body.block.ops
            if isinstance(o, AtenOp) and o.name in QUANTIZABLE and o.name.split(".")[1] in wanted
        ]
        for target in targets:
            x = target.bound_arguments()[QUANTIZABLE[target.name][0]]
            if not isinstance(x, SSAValue) or not isinstance(x.type, TensorType):
                continue
            if x.type.element_dtype is not DType.float32:
                continue
            if x not in observed:
                observed[x] = self._observe(program, graph, target, x, len(observed))
            target.attributes[OBSERVES_ATTR] = StringAttr(observed[x])

    @staticmethod
    def _observe(program: ProgramOp, graph: GraphOp, before: Operation, x: SSAValue, i: int) -> str:
        name = f"{OBSERVER_PREFIX}{i}"
        buf = _add_state_input(
            program, graph, name, InputKind.buffer, np.array([np.inf, -np.inf], np.float32), DType.float32
        )
        mn = _build("aten.amin.default", x)
        mx = _build("aten.amax.default", x)
        lo = _build("aten.select.int", buf, 0, 0)
        hi = _build("aten.select.int", buf, 0, 1)
        new_lo = _build("aten.minimum.default", lo, mn)
        new_hi = _build("aten.maximum.default", hi, mx)
        new = _build("aten.stack.default", [new_lo, new_hi])
        new.results[0].name_hint = name
        ops: list[Operation] = [mn, mx, lo, hi, new_lo, new_hi, new]
        for o in ops:
            o.attributes[OBSERVER_ATTR] = StringAttr(name)
        Rewriter.insert_op(ops, InsertPoint.before(before))
        out = graph.body.block.last_op
        assert isinstance(out, OutputOp)
        out_specs = list(program.outputs.data)
        index = next(
            (j for j, s in enumerate(out_specs) if s.output_kind is not OutputKind.buffer_mutation), len(out_specs)
        )
        out_specs.insert(index, OutputSpecAttr(OutputKind.buffer_mutation, name, name))
        program.outputs = type(program.outputs)(out_specs)
        values = list(out.operands)
        values.insert(index, new.results[0])
        out.operands = values
        sync_function_type(graph)
        return name


# ---------------------------------------------------------------------------
# quantize
# ---------------------------------------------------------------------------


def activation_qparams(lo: float, hi: float) -> tuple[float, int]:
    """Per-tensor affine int8 parameters for the range [lo, hi] (always containing 0)."""
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0
    if scale <= 0.0:
        scale = 1.0
    zero_point = int(np.clip(round(-128 - lo / scale), -128, 127))
    return float(scale), zero_point


def weight_qparams(w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per-output-channel symmetric int8: (int8 weight, float32 scale per channel)."""
    flat = np.abs(w.reshape(w.shape[0], -1).astype(np.float64))
    scale = flat.max(axis=1) / 127.0
    scale[scale == 0.0] = 1.0
    shape = (-1,) + (1,) * (w.ndim - 1)
    q = np.clip(np.round(w / scale.reshape(shape)), -127, 127).astype(np.int8)
    return q, scale.astype(np.float32)


@dataclass(frozen=True)
class QuantizePass(ModulePass):
    """Observed fp32 linear/conv become int8 x int8 -> int32 compute; observers are removed."""

    name = "quantize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        program, graph = _program(op)
        state = program.state()
        ranges: dict[str, tuple[float, float]] = {}
        for name in observer_states(op):
            st = state[name]
            assert isinstance(st.value, Attribute) and isinstance(st.state_type, TensorType)
            lo, hi = (float(v) for v in array_from_blob(cast(Any, st.value), st.state_type))
            ranges[name] = (lo, hi)
        for target in list(graph.body.block.ops):
            attr = target.attributes.pop(OBSERVES_ATTR, None)
            if not isinstance(target, AtenOp) or not isinstance(attr, StringAttr) or attr.data not in ranges:
                continue
            lo, hi = ranges[attr.data]
            if not (np.isfinite(lo) and np.isfinite(hi)):
                raise ExirDiagnostic(
                    target,
                    f"quantize: observer @{attr.data} has no range (it saw no data); calibrate the "
                    "program on sample inputs after insert-observers and before quantize",
                )
            _Quantizer(program, graph, target, *activation_qparams(lo, hi)).rewrite()
        self._remove_observers(program, graph)

    @staticmethod
    def _remove_observers(program: ProgramOp, graph: GraphOp) -> None:
        out = graph.body.block.last_op
        assert isinstance(out, OutputOp)
        specs = list(program.outputs.data)
        keep = [
            i
            for i, s in enumerate(specs)
            if not (s.output_kind is OutputKind.buffer_mutation and (s.target_name or "").startswith(OBSERVER_PREFIX))
        ]
        program.outputs = type(program.outputs)([specs[i] for i in keep])
        out.operands = [out.operands[i] for i in keep]
        for o in reversed(list(graph.body.block.ops)):
            if OBSERVER_ATTR in o.attributes and not any(r.uses for r in o.results):
                graph.body.block.erase_op(o)
        for arg in reversed(graph.body.block.args):
            spec = program.inputs.data[arg.index]
            if not arg.uses and (spec.target_name or "").startswith(OBSERVER_PREFIX):
                remove_state_input(program, graph, arg)
        sync_function_type(graph)


class _Quantizer:
    """Rewrites one observed op; leaves it alone when its weight is not constant state."""

    def __init__(self, program: ProgramOp, graph: GraphOp, op: AtenOp, scale: float, zero_point: int) -> None:
        self.program, self.graph, self.op = program, graph, op
        self.scale, self.zero_point = scale, zero_point
        self.new_ops: list[Operation] = []

    def emit(self, name: str, *args: object, **kwargs: object) -> SSAValue:
        o = _build(name, *args, **kwargs)
        self.new_ops.append(o)
        return o.results[0]

    def weight(self) -> tuple[np.ndarray, list[Operation], BlockArgument] | None:
        """The float weight as [out, in...], the view ops between it and the op, its placeholder."""
        act, warg, layout = QUANTIZABLE[self.op.name]
        w = self.op.bound_arguments()[warg]
        views: list[Operation] = []
        transposed = layout == "io"
        if transposed and isinstance(w, SSAValue) and isinstance(w.owner, AtenOp):
            o = w.owner
            b = o.bound_arguments()
            if o.name == "aten.t.default" or (o.name == "aten.permute.default" and list(cast(list[int], b["dims"])) == [1, 0]):
                views.append(o)
                w = cast(SSAValue, b["self"])
                transposed = False
        if not isinstance(w, SSAValue):
            return None
        found = _state_of(self.program, self.graph, w)
        if found is None or found[0].value is None or not isinstance(found[0].state_type, TensorType):
            return None
        st, arg = found
        data = array_from_blob(cast(Any, st.value), cast(TensorType, st.state_type))
        if data.dtype != np.float32:
            return None
        return (data.T if transposed else data), views, arg

    def rewrite(self) -> None:
        op = self.op
        bound = op.bound_arguments()
        if op.name == "aten.convolution.default" and bound["transposed"]:
            return
        found = self.weight()
        if found is None:
            return
        w, views, w_arg = found
        x = cast(SSAValue, bound[QUANTIZABLE[op.name][0]])
        result_type = op.results[0].type
        # Quantize the activation: q = clamp(round(x / s) + zp, -128, 127) as int8.
        q = self.emit("aten.div.Scalar", x, self.scale)
        q = self.emit("aten.round.default", q)
        q = self.emit("aten.add.Scalar", q, self.zero_point)
        q = self.emit("aten.clamp.default", q, -128, 127)
        q = self.emit("aten._to_copy.default", q, dtype=DType.int8)
        qi = self.emit("aten._to_copy.default", q, dtype=DType.int32)
        qi = self.emit("aten.sub.Scalar", qi, self.zero_point)
        wq, wscale = weight_qparams(w)
        base = (w_arg.name_hint or "w").removeprefix("p_")
        conv = op.name in ("aten.conv2d.default", "aten.convolution.default")
        if conv:
            w_state = _add_state_input(
                self.program, self.graph, f"{base}_qweight", InputKind.constant_tensor, wq, DType.int8
            )
        else:
            w_state = _add_state_input(
                self.program, self.graph, f"{base}_qweight", InputKind.constant_tensor,
                np.ascontiguousarray(wq.T), DType.int8,
            )
        out_scale = (wscale.astype(np.float64) * self.scale).astype(np.float32)
        channels = out_scale.shape[0]
        if conv and isinstance(result_type, TensorType):
            out_scale = out_scale.reshape((channels,) + (1,) * (len(result_type.sizes) - 2))
        s_state = _add_state_input(
            self.program, self.graph, f"{base}_qscale", InputKind.constant_tensor, out_scale, DType.float32
        )
        wi = self.emit("aten._to_copy.default", w_state, dtype=DType.int32)
        if conv:
            acc = self.emit(
                "aten.convolution.default", qi, wi, None, bound["stride"], bound["padding"], bound["dilation"],
                False, bound.get("output_padding", [0] * len(cast(list[int], bound["stride"]))), bound["groups"],
            )
        else:
            acc = self.emit("aten.matmul.default", qi, wi)
        y = self.emit("aten._to_copy.default", acc, dtype=DType.float32)
        y = self.emit("aten.mul.Tensor", y, s_state)
        bias = bound.get("bias", bound.get("self") if op.name == "aten.addmm.default" else None)
        if isinstance(bias, SSAValue):
            if conv:
                bias = self.emit("aten.view.default", bias, [channels] + [1] * (len(cast(TensorType, result_type).sizes) - 2))
            y = self.emit("aten.add.Tensor", y, bias)
        if y.type != result_type:  # a shape we do not reproduce exactly: keep the float op
            for added in (s_state, w_state):
                for o in reversed(self.new_ops):
                    if not any(r.uses for r in o.results):
                        o.drop_all_references()
                if not added.uses:
                    remove_state_input(self.program, self.graph, added)
            return
        Rewriter.insert_op(self.new_ops, InsertPoint.before(op))
        op.results[0].replace_all_uses_with(y)
        y.name_hint = op.results[0].name_hint
        Rewriter.erase_op(op)
        for v in views:
            if not any(r.uses for r in v.results):
                Rewriter.erase_op(v)
        if not w_arg.uses:
            remove_state_input(self.program, self.graph, w_arg)

