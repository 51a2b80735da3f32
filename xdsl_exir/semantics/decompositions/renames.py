"""Decompositions that rename one core op (the CALLS table), identities, aliases and copies."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import (
    MemoryFormat,
)
from xdsl_exir.semantics.decompositions.core import Decline, Emitter, Rule, rule
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.op_registry import all_operators
from xdsl_exir.utils.symbolic import sympy

# -- renames: one core op, arguments taken by schema name ---------------------


@dataclass(frozen=True)
class Arg:
    """An argument of the replacement: a source argument by name, or a function of the bound arguments."""

    name: str | None = None
    fn: Callable[[Bound], object] | None = None

    def value(self, b: Bound) -> object:
        if self.fn is not None:
            return self.fn(b)
        assert self.name is not None
        return b[self.name]


@dataclass(frozen=True)
class Call:
    """Replace the op by `target(args..., kwargs...)`, returning result `result` (all if None)."""

    target: str
    args: tuple[Arg | str, ...]
    kwargs: tuple[tuple[str, Arg | str], ...] = ()
    result: int | None = None
    core: bool = False


def _a(x: Arg | str, b: Bound) -> object:
    return x.value(b) if isinstance(x, Arg) else b[x]


def _const(value: object) -> Arg:
    return Arg(fn=lambda _b: value)


def _listed(name: str) -> Arg:
    return Arg(fn=lambda b: b[name] if isinstance(b[name], list) else [b[name]])


_SAME2 = ("self", "other")

CALLS: dict[str, Call] = {
    # operator spellings of bitwise ops
    **{
        f"aten.__{py}__.{ov}": Call(f"aten.bitwise_{name}.{ov}", _SAME2)
        for py, name in (("and", "and"), ("or", "or"), ("xor", "xor"))
        for ov in ("Scalar", "Tensor")
    },
    "aten.floor_divide.default": Call(
        "aten.div.Tensor_mode", _SAME2, (("rounding_mode", _const("floor")),)
    ),
    "aten.squeeze.dim": Call("aten.squeeze.dims", ("self", _listed("dim")), core=True),
    "aten.sum.default": Call(
        "aten.sum.dim_IntList", ("self", _const([])), (("dtype", "dtype"),)
    ),
    "aten.layer_norm.default": Call(
        "aten.native_layer_norm.default",
        ("input", "normalized_shape", "weight", "bias", "eps"),
        result=0,
    ),
    "aten.max_pool2d.default": Call(
        "aten.max_pool2d_with_indices.default",
        ("self", "kernel_size", "stride", "padding", "dilation", "ceil_mode"),
        result=0,
    ),
    "aten.native_batch_norm.default": Call(
        "aten._native_batch_norm_legit_no_training.default",
        ("input", "weight", "bias", "running_mean", "running_var", "momentum", "eps"),
    ),
    "aten.expand_as.default": Call(
        "aten.expand.default", ("self", Arg(fn=lambda b: list(b.tensor("other").sizes)))
    ),
    # binary min/max and one-sided clamps (torch/_refs)
    "aten.min.other": Call("aten.minimum.default", _SAME2),
    "aten.max.other": Call("aten.maximum.default", _SAME2),
    "aten.clamp_min.Tensor": Call("aten.clamp.Tensor", ("self", "min")),
    "aten.clamp_max.Tensor": Call("aten.clamp.Tensor", ("self", _const(None), "max")),
    "aten.clamp_min.default": Call("aten.clamp.default", ("self", "min")),
    "aten.clamp_max.default": Call("aten.clamp.default", ("self", _const(None), "max")),
    # ranges: every arange is `arange.start_step`
    **{
        f"aten.arange.{ov}": Call(
            "aten.arange.start_step",
            (_const(0) if ov == "default" else "start", "end"),
            tuple((k, k) for k in ("dtype", "layout", "device", "pin_memory")),
        )
        for ov in ("default", "start")
    },
    # embedding bags: the core kernel, padding_idx -1 when none is given
    **{
        f"aten.embedding_bag.{ov}": Call(
            "aten._embedding_bag.default",
            ("weight", "indices", "offsets", "scale_grad_by_freq", "mode", "sparse", "per_sample_weights",
             "include_last_offset", Arg(fn=lambda b: -1 if b.get("padding_idx") is None else b["padding_idx"])),
        )
        for ov in ("default", "padding_idx")
    },
    # composite views torch's tracing decomposes
    "aten.split.sizes": Call("aten.split_with_sizes.default", ("self", "split_size", "dim")),
    "aten.linalg_diagonal.default": Call("aten.diagonal.default", ("A", "offset", "dim1", "dim2")),
}


def rule_from_call(spec: Call) -> Rule:
    def apply(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue] | None:
        args = [_a(x, b) for x in spec.args]
        kwargs = {k: v for k, x in spec.kwargs if (v := _a(x, b)) is not None}
        # symbolic sizes in computed arguments become SymInt values
        args = [e.sizes(a) if isinstance(a, list) and any(isinstance(s, sympy.Expr) for s in a) else a for a in args]
        new = e.call(spec.target, *args, **kwargs)
        if spec.result is not None:
            return [e.item(new, spec.result)]
        return list(new.results)

    return apply


CALLS["aten.cdist.default"] = Call("aten._cdist_forward.default", ("x1", "x2", "p", "compute_mode"))

for _name, _spec in CALLS.items():
    rule(_name, core=_spec.core)(rule_from_call(_spec))


# -- identities ----------------------------------------------------------------


@rule("aten.dropout.default", "aten.feature_dropout.default", "aten.alpha_dropout.default",
      "aten.feature_alpha_dropout.default")
def _dropout(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue] | None:
    if b.get("train"):
        return None
    return [b.value("input")]


# -- aliases and copies -----------------------------------------------------------


def _same_arguments(e: Emitter, b: Bound, target: str) -> AtenOp:
    """`target` called with the bound arguments by name (an alias has the same schema)."""
    cls = aten_op_class(target)
    if cls is None:
        raise Decline()
    args: list[object] = []
    kwargs: dict[str, Any] = {}  # forwarded to AtenOp.build
    for a in cls.SCHEMA.arguments:
        if a.name not in b:
            continue
        if a.kwarg_only:
            kwargs[a.name] = b[a.name]
        else:
            args.append(b[a.name])
    return e.call(target, *args, **kwargs)


ALIASES: dict[str, str] = {
    **{f"aten.{a}.default": f"aten.{t}.default" for a, t in (
        ("absolute", "abs"), ("arccos", "acos"), ("arccosh", "acosh"), ("arcsin", "asin"), ("arcsinh", "asinh"),
        ("arctan", "atan"), ("arctan2", "atan2"), ("arctanh", "atanh"), ("clip", "clamp"), ("negative", "neg"),
        ("fix", "trunc"), ("special_expit", "sigmoid"), ("special_erf", "erf"), ("special_expm1", "expm1"),
        ("special_log1p", "log1p"), ("special_exp2", "exp2"), ("concat", "cat"), ("concatenate", "cat"),
    )},
    "aten.clip.Tensor": "aten.clamp.Tensor",
    **{f"aten.{a}.{ov}": f"aten.{t}.{ov}" for a, t in (
        ("divide", "div"), ("multiply", "mul"), ("subtract", "sub"), ("true_divide", "div"), ("greater", "gt"),
        ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"), ("not_equal", "ne"),
    ) for ov in ("Tensor", "Scalar")},
    "aten.divide.Tensor_mode": "aten.div.Tensor_mode",
    "aten.divide.Scalar_mode": "aten.div.Scalar_mode",
    "aten.special_xlogy.default": "aten.xlogy.Tensor",
    "aten.special_xlogy.self_scalar": "aten.xlogy.Scalar_Self",
    "aten.special_xlogy.other_scalar": "aten.xlogy.Scalar_Other",
    "aten.special_log_softmax.default": "aten.log_softmax.int",
    "aten.special_softmax.default": "aten.softmax.int",
    "aten.special_round.default": "aten.round.decimals",
    "aten._unsafe_index.Tensor": "aten.index.Tensor",
    "aten._unsafe_index_put.default": "aten.index_put.default",
}
"""Overloads that are another overload under another name, with the same arguments
(torch's alias declarations: `absolute` is `abs`, `special_expit` is `sigmoid`)."""


def alias_rule(target: str) -> Rule:
    def apply(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
        return list(_same_arguments(e, b, target).results)

    return apply


ALIASES["aten.unsafe_split_with_sizes.default"] = "aten.split_with_sizes.default"
ALIASES["aten._stack.default"] = "aten.stack.default"

for _name, _target in ALIASES.items():
    rule(_name)(alias_rule(_target))


COPIES: dict[str, str] = {
    f"aten.{v}_copy.{ov}": f"aten.{v}.{ov}"
    for v, ov in (
        ("view", "default"), ("permute", "default"), ("expand", "default"), ("transpose", "int"), ("t", "default"),
        ("unsqueeze", "default"), ("squeeze", "default"), ("squeeze", "dim"), ("squeeze", "dims"), ("select", "int"),
        ("slice", "Tensor"), ("diagonal", "default"), ("alias", "default"), ("detach", "default"),
        ("unfold", "default"), ("as_strided", "default"),
    )
}
"""The functional `_copy` forms of view ops: the view, then a copy (a fresh tensor)."""
COPIES["aten.narrow_copy.default"] = "aten.narrow.default"
COPIES["aten._reshape_alias_copy.default"] = "aten.view.default"


def copy_rule(view: str) -> Rule:
    def apply(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
        value = _same_arguments(e, b, view).results[0]
        return [e.v("aten.clone.default", value, memory_format=MemoryFormat.contiguous_format)]

    return apply


for _name, _view in COPIES.items():
    if _name in all_operators():
        rule(_name)(copy_rule(_view))


def _softmax_in(e: Emitter, b: Bound, target: str) -> Sequence[SSAValue]:
    """`softmax.int`/`log_softmax.int` as torch decomposes them: the input cast to `dtype` if one
    is given (the result has that dtype), then the core op (`half_to_float` false)."""
    x = b["self"]
    dtype = b.dtype("dtype")
    if dtype is not None:
        x = e.v("aten._to_copy.default", x, dtype=dtype)
    return [e.v(target, x, b.int("dim"), False)]


@rule("aten.softmax.int")
def _softmax_int(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return _softmax_in(e, b, "aten._softmax.default")


@rule("aten.log_softmax.int")
def _log_softmax_int(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return _softmax_in(e, b, "aten._log_softmax.default")


@rule("aten.positive.default", "aten.lift_fresh.default")
def _positive(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [b.value("self")]
