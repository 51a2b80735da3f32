"""
`flop-count`: the floating-point operations of a program, per op and in total
(a shape analysis over the graph, of the kind "torch.fx: Practical Program
Capture and Transformation" builds on FX), computed from the result and
operand types alone, so symbolic sizes give symbolic counts (`2*s0*768`).

Two conventions (option `mode`):

* `torch` (default) is `torch.utils.flop_counter.FlopCounterMode`'s: only
  matrix products, convolutions and attention count. `mm`/`addmm`/`bmm`/
  `baddbmm` are 2·M·N·K (the bias add of `addmm` is not counted); `linear`
  and `matmul` count what they dispatch to on contiguous CPU tensors (`mm` or
  `bmm`; a matrix-vector or dot product goes to `mv`/`dot`, which torch does
  not count); a convolution is 2·batch·(output spatial)·C_out·(C_in/groups)·
  (kernel) (input spatial for a transposed one), bias ignored; attention
  counts what it dispatches to on CPU: the fused flash kernel (4-D inputs, no
  dropout, a 2-D or 4-D mask: see `_cpu_flash_attention`), for which torch has
  no formula, is 0, the math fallback its two batched products.
* `all` adds what `torch` leaves out: attention's two products wherever it
  runs, bias adds (one per output element), matrix-vector products, every `pointwise`-tagged operator (one per output
  element, transcendental ones included), reductions (one per input element)
  and the fused normalizations and softmax, by the weights in `_WEIGHTS`.

Recurrent modules (`gru`, `lstm`, `rnn_tanh`, `rnn_relu`, their `.input` and
`.data` overloads) count the matrix products torch's composite CPU
implementation dispatches, 2·rows·M·K per `[M, K]` weight, whether or not the
program was decomposed (but an unpacked floating-point LSTM other than float64
runs oneDNN's fused kernel, 0 in `torch` mode); `all` counts its products
anyway and adds their bias adds, not the gates' arithmetic.

Higher-order ops: `cond` counts its more expensive branch (torch's upper
bound, `Max(...)` when symbolic), `map` its body times the mapped size, a
`while_loop` one iteration of its condition and body (the trip count is data;
the op's count is marked `per_iteration`).

Every counted op gets an `exir.flops` attribute (`#exir.sym<...>` when
symbolic, an integer otherwise), the program the total, and a report (one
line per op kind, then the total) goes to stderr, or to the file named by
`report` (`report=none` disables it).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerAttr, ModuleOp, UnitAttr, i64
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.passes import ModulePass
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.dialects import exir
from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.semantics.inference import Bound, InferenceError, bind_arguments
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.op_registry import functional_variant, lookup
from xdsl_exir.utils.symbolic import normalize, print_expr, sympy, to_sym

__all__ = ["FlopCountPass", "count_program", "op_flops", "program_flops"]

if TYPE_CHECKING:
    Expr = sympy.Expr
else:
    Expr = "sympy.Expr"  # as text: sympy loads when a count is first made


def _zero() -> Expr:
    return sympy.Integer(0)

_WEIGHTS: dict[str, tuple[int, str]] = {
    # functional overload: (flops per element, of "in"put or "out"put) -- mode=all only;
    # in-place and out= variants count as their functional overload
    **dict.fromkeys((
        "aten.sum.default", "aten.sum.dim_IntList", "aten.mean.default", "aten.mean.dim", "aten.amax.default",
        "aten.amin.default", "aten.max.default", "aten.max.dim", "aten.max.other", "aten.min.default",
        "aten.min.dim", "aten.min.other", "aten.prod.default", "aten.prod.dim_int", "aten.argmax.default",
        "aten.argmin.default", "aten.any.default", "aten.any.dim", "aten.any.dims", "aten.all.default",
        "aten.all.dim", "aten.all.dims", "aten.cumsum.default", "aten.cumprod.default",
        "aten.avg_pool2d.default", "aten.max_pool2d.default", "aten.max_pool2d_with_indices.default",
        "aten.adaptive_avg_pool2d.default", "aten._adaptive_avg_pool2d.default", "aten.avg_pool1d.default",
        "aten.avg_pool3d.default", "aten.max_pool1d.default", "aten.max_pool3d.default",
    ), (1, "in")),
    **dict.fromkeys((
        "aten.norm.Scalar", "aten.norm.ScalarOpt_dim", "aten.norm.ScalarOpt_dim_dtype",
        "aten.norm.ScalarOpt_dtype",
    ), (2, "in")),
    **dict.fromkeys((
        "aten.var.default", "aten.var.correction", "aten.var.dim", "aten.std.default", "aten.std.correction",
        "aten.std.dim", "aten.var_mean.default", "aten.var_mean.correction", "aten.var_mean.dim",
        "aten.std_mean.default", "aten.std_mean.correction", "aten.std_mean.dim", "aten.logsumexp.default",
    ), (3, "in")),
    **dict.fromkeys((
        "aten.softmax.int", "aten._softmax.default", "aten.log_softmax.int", "aten._log_softmax.default",
        "aten.batch_norm.default", "aten._native_batch_norm_legit_no_training.default",
        "aten.native_batch_norm.default",
    ), (4, "in")),
    **dict.fromkeys((
        "aten.layer_norm.default", "aten.native_layer_norm.default", "aten.group_norm.default",
        "aten.native_group_norm.default",
    ), (5, "in")),
    **dict.fromkeys((
        "aten._native_batch_norm_legit.default", "aten._native_batch_norm_legit.no_stats",
        "aten._native_batch_norm_legit_functional.default",
    ), (6, "in")),
}  # fmt: skip
"""Operators that are not pointwise but do arithmetic, for `mode=all`: a documented convention."""


def _t(b: Bound, name: str) -> exir.TensorType | None:
    v = b.get(name)
    if isinstance(v, SSAValue) and isinstance(v.type, exir.TensorType):
        return v.type
    return None


def _sizes(t: exir.TensorType | None) -> list[Expr]:
    return [to_sym(s) for s in t.sizes] if t is not None else []


def _prod(values: Sequence[Expr]) -> Expr:
    return sympy.Mul(*values) if values else sympy.Integer(1)


def _numel(t: Attribute | None) -> Expr:
    return _prod(_sizes(t)) if isinstance(t, exir.TensorType) else _zero()


def _matmul(a: exir.TensorType, b: exir.TensorType, mode: str) -> Expr:
    """2·batch·M·N·K of a (broadcast) matrix product; torch's dispatch gives vector cases to mv/dot."""
    sa, sb = _sizes(a), _sizes(b)
    if (len(sa) == 1 or len(sb) == 1) and not (len(sa) == 1 and len(sb) == 2) and mode == "torch":
        return _zero()
    if len(sa) == 1:
        sa = [sympy.Integer(1), *sa]
    if len(sb) == 1:
        sb = [*sb, sympy.Integer(1)]
    m, k, n = sa[-2], sa[-1], sb[-1]
    batch_a, batch_b = sa[:-2], sb[:-2]
    rank = max(len(batch_a), len(batch_b))
    batch_a = [sympy.Integer(1)] * (rank - len(batch_a)) + batch_a
    batch_b = [sympy.Integer(1)] * (rank - len(batch_b)) + batch_b
    batch = [x if y == 1 else y for x, y in zip(batch_a, batch_b)]
    return 2 * _prod(batch) * m * n * k


def _conv(x: exir.TensorType, w: exir.TensorType, out: exir.TensorType, transposed: bool) -> Expr:
    sx, sw, so = _sizes(x), _sizes(w), _sizes(out)
    if len(sx) == len(sw) - 1:  # unbatched input
        sx, so = [sympy.Integer(1), *sx], [sympy.Integer(1), *so]
    spatial = (sx if transposed else so)[2:]
    return 2 * sx[0] * _prod(spatial) * _prod(sw[2:]) * sw[0] * sw[1]


def _sdpa(q: exir.TensorType, k: exir.TensorType, v: exir.TensorType) -> Expr:
    """The two batched products `q @ k^T` and `attn @ v`, over the broadcast batch (query heads, for GQA)."""
    sq, sk, sv = _sizes(q), _sizes(k), _sizes(v)
    rank = max(len(sq), len(sk), len(sv)) - 2
    padded = [[sympy.Integer(1)] * (rank + 2 - len(x)) + x[:-2] for x in (sq, sk, sv)]
    # each batch dim is the first operand's that is not 1 (broadcasting; key/value heads repeat for GQA)
    n = _prod([next((d for d in dims if d != 1), sympy.Integer(1)) for dims in zip(*padded)])
    return 2 * n * sq[-2] * sq[-1] * sk[-2] + 2 * n * sq[-2] * sk[-2] * sv[-1]


def _cpu_flash_attention(b: Bound, q: exir.TensorType, k: exir.TensorType, v: exir.TensorType) -> bool:
    """
    Whether `scaled_dot_product_attention` on CPU tensors runs the fused flash
    kernel, which FlopCounterMode has no formula for (it counts 0), rather than
    the math fallback, whose two `bmm`s it counts. The kernel's constraints as
    ATen's CPU backend selection checks them on dense contiguous tensors:
    4-D floating-point q, k, v with one batch size, one head count (or query
    heads a multiple of key/value heads with `enable_gqa`), one head dim, no
    dropout, and a 2-D or 4-D mask if any.
    """
    sq, sk, sv = _sizes(q), _sizes(k), _sizes(v)
    if not (len(sq) == len(sk) == len(sv) == 4) or not q.element_dtype.is_floating_point:
        return False
    dropout = b.get("dropout_p")
    if isinstance(dropout, int | float) and dropout > 0:
        return False
    if not (sq[0] == sk[0] == sv[0]) or sq[-1] != sk[-1] or sq[-1] != sv[-1] or sk[1] != sv[1]:
        return False
    if sq[1] != sk[1] and not (b.get("enable_gqa") and (sq[1] % sk[1]) == 0):
        return False
    mask = _t(b, "attn_mask")
    return mask is None or mask.rank in (2, 4)


_PRODUCTS: dict[str, tuple[str, str]] = {
    "aten.mm.default": ("self", "mat2"), "aten.mm.dtype": ("self", "mat2"),
    "aten.bmm.default": ("self", "mat2"), "aten.bmm.dtype": ("self", "mat2"),
    "aten.matmul.default": ("self", "other"), "aten._scaled_mm.default": ("self", "mat2"),
    "aten.addmm.default": ("mat1", "mat2"), "aten.addmm.dtype": ("mat1", "mat2"),
    "aten.baddbmm.default": ("batch1", "batch2"), "aten.baddbmm.dtype": ("batch1", "batch2"),
    "aten.mv.default": ("self", "vec"), "aten.dot.default": ("self", "tensor"), "aten.addmv.default": ("mat", "vec"),
}  # fmt: skip
"""Matrix and vector products: their two factors."""
_VECTOR_PRODUCTS = frozenset({"aten.mv.default", "aten.dot.default", "aten.addmv.default"})
_BIASED_PRODUCTS = frozenset(
    {"aten.addmm.default", "aten.addmm.dtype", "aten.baddbmm.default", "aten.baddbmm.dtype", "aten.addmv.default"}
)
_CONVOLUTIONS = frozenset({
    "aten.convolution.default", "aten._convolution.default", "aten._convolution.deprecated",
    "aten.conv1d.default", "aten.conv1d.padding", "aten.conv2d.default", "aten.conv2d.padding",
    "aten.conv3d.default", "aten.conv3d.padding", "aten.conv_transpose1d.default", "aten.conv_transpose2d.input",
    "aten.conv_transpose3d.input", "aten._slow_conv2d_forward.default", "aten.convolution_overrideable.default",
    "aten.cudnn_convolution.default",
})  # fmt: skip
_TRANSPOSED_CONVOLUTIONS = frozenset(
    {"aten.conv_transpose1d.default", "aten.conv_transpose2d.input", "aten.conv_transpose3d.input"}
)
_ATTENTION = frozenset({
    "aten.scaled_dot_product_attention.default", "aten._scaled_dot_product_flash_attention.default",
    "aten._scaled_dot_product_flash_attention.quantized", "aten._scaled_dot_product_efficient_attention.default",
    "aten._scaled_dot_product_cudnn_attention.default", "aten._scaled_dot_product_flash_attention_for_cpu.default",
})  # fmt: skip
_SDPA = "aten.scaled_dot_product_attention.default"
_UNCOUNTED_ATTENTION = frozenset({"aten._scaled_dot_product_flash_attention_for_cpu.default"})
"""Fused attention kernels FlopCounterMode registers no formula for: 0 in `torch` mode."""
_RECURRENT = frozenset({
    f"aten.{cell}.{overload}" for cell in ("gru", "lstm", "rnn_tanh", "rnn_relu") for overload in ("input", "data")
})  # fmt: skip
"""Whole recurrent modules: torch runs them as a linear per weight matrix (see `_recurrent`)."""
_COUNTED = frozenset({*_PRODUCTS, "aten.linear.default", *_CONVOLUTIONS, *_ATTENTION, *_WEIGHTS, *_RECURRENT})


def _onednn_lstm(bound: Bound) -> bool:
    """
    Whether an unpacked CPU LSTM runs oneDNN's fused kernel, which
    FlopCounterMode has no formula for (0): torch takes it for float32,
    bfloat16 and float16 inputs (float64 and packed sequences run the
    composite implementation, whose products count).
    """
    x = _t(bound, "input")
    return x is not None and x.element_dtype in (exir.DType.float32, exir.DType.bfloat16, exir.DType.float16)


def _recurrent(key: str, bound: Bound) -> tuple[Expr, Expr]:
    """
    The products and bias adds of a recurrent module (`gru.input`, `lstm.data`...).
    torch's CPU implementation is composite: FlopCounterMode sees one matrix
    product per weight matrix and sequence row (the input projection of the
    whole sequence, then the hidden one, and LSTM's projection, step by step),
    so each 2-D parameter `[M, K]` costs 2·rows·M·K, and each bias one add per
    row and element. The rows are the sequence's time steps times batch (the
    packed `data`'s rows for `.data`).
    """
    x = _t(bound, "data") if key.endswith(".data") else _t(bound, "input")
    params = bound.get("params")
    if x is None or not isinstance(params, list | tuple):
        return _zero(), _zero()
    rows = _prod(_sizes(x)[:-1])
    weights: Expr = _zero()
    biases: Expr = _zero()
    for p in cast(Sequence[object], params):
        t = p.type if isinstance(p, SSAValue) and isinstance(p.type, exir.TensorType) else None
        if t is not None and t.rank == 2:
            weights = weights + _numel(t)
        elif t is not None:
            biases = biases + _numel(t)
    return 2 * rows * weights, rows * biases


def op_flops(name: str, bound: Bound, results: Sequence[Attribute], mode: str) -> Expr:
    """The flops of operator `name` (`aten.mm.default`) with these bound arguments and result types.

    Tables are keyed by functional overload; an out= variant counts as its functional one. In-place
    ones do not count: torch's FlopCounterMode registers formulas per overload packet (`aten.addmm`
    holds `addmm.out`, not `addmm_`)."""
    key = name
    if name not in _COUNTED and (variant := functional_variant(name, mutable=True)) is not None:
        if variant.split(".")[1] == name.split(".")[1]:
            key = variant
    out = results[0] if results else None
    out_numel = _numel(out)
    bias_add = _zero()
    flops: Expr = _zero()
    if key in _PRODUCTS:
        flops, bias_add = _product_flops(key, bound, mode, out_numel)
    elif key == "aten.linear.default":
        flops, bias_add = _linear_flops(bound, out_numel)
    elif key in _CONVOLUTIONS:
        flops, bias_add = _convolution_flops(key, bound, out, out_numel)
    elif key in _RECURRENT:
        flops, bias_add = _recurrent(key, bound)
        if mode == "torch" and key == "aten.lstm.input" and _onednn_lstm(bound):
            flops = _zero()
    elif key in _ATTENTION:
        flops = _attention_flops(key, bound, mode)
    elif mode == "all":
        flops = _other_flops(name, key, bound, out_numel)
    if mode == "all":
        flops = flops + bias_add
    return sympy.expand(flops) if flops.free_symbols else flops


def _product_flops(key: str, bound: Bound, mode: str, out_numel: Expr) -> tuple[Expr, Expr]:
    """A matrix or vector product (`mm`, `bmm`, `addmm`, `dot`, ...): its flops and its bias add."""
    flops: Expr = _zero()
    first, second = _PRODUCTS[key]
    a, b = _t(bound, first), _t(bound, second)
    if a is not None and b is not None:
        if key in _VECTOR_PRODUCTS:
            flops = _matmul(a, b, "all") if mode == "all" else _zero()
        else:
            flops = _matmul(a, b, mode)
    return flops, out_numel if key in _BIASED_PRODUCTS else _zero()


def _linear_flops(bound: Bound, out_numel: Expr) -> tuple[Expr, Expr]:
    """`aten.linear`: a product with the weight, and the bias add when there is a bias."""
    x, w = _t(bound, "input"), _t(bound, "weight")
    if x is None or w is None:
        return _zero(), _zero()
    return 2 * _numel(x) * _sizes(w)[0], out_numel if _t(bound, "bias") is not None else _zero()


def _convolution_flops(key: str, bound: Bound, out: Attribute | None, out_numel: Expr) -> tuple[Expr, Expr]:
    """A convolution (transposed or not), and the bias add when there is a bias."""
    x, w = _t(bound, "input") or _t(bound, "self"), _t(bound, "weight")
    transposed = key in _TRANSPOSED_CONVOLUTIONS or bool(bound.get("transposed", False))
    if x is None or w is None or not isinstance(out, exir.TensorType):
        return _zero(), _zero()
    return _conv(x, w, out, transposed), out_numel if _t(bound, "bias") is not None else _zero()


def _attention_flops(key: str, bound: Bound, mode: str) -> Expr:
    """Scaled dot-product attention, counted as torch's FlopCounterMode counts what it dispatches to."""
    q, k, v = _t(bound, "query"), _t(bound, "key"), _t(bound, "value")
    if q is None or k is None or v is None:
        return _zero()
    flops = _sdpa(q, k, v)
    if mode == "torch" and (key in _UNCOUNTED_ATTENTION or (key == _SDPA and _cpu_flash_attention(bound, q, k, v))):
        return _zero()
    return flops


def _other_flops(name: str, key: str, bound: Bound, out_numel: Expr) -> Expr:
    """The flops torch does not count (`mode="all"`): weighted ops by their input or output, pointwise ones by output."""
    entry = lookup(name)
    if key in _WEIGHTS:
        weight, of = _WEIGHTS[key]
        src = _t(bound, "input") or _t(bound, "self")
        return weight * (_numel(src) if of == "in" else out_numel)
    if entry is not None and "pointwise" in entry.tags:
        return out_numel
    return _zero()


class _Counter:
    def __init__(self, mode: str, annotate: bool = True) -> None:
        self.mode = mode
        self.annotate = annotate
        self.by_kind: dict[str, Expr] = {}

    def block(self, block: Block) -> Expr:
        total: Expr = _zero()
        for op in block.ops:
            total = total + self.op(op)
        return total

    def op(self, op: Operation) -> Expr:
        if isinstance(op, exir.CondOp):
            a, b = self.block(op.true_branch.block), self.block(op.false_branch.block)
            flops = sympy.Max(a, b) if (a - b).free_symbols else max(a, b, key=int)
        elif isinstance(op, exir.MapOp):
            lead = cast(exir.TensorType, op.xs.types[0]).sizes[0]
            flops = to_sym(lead) * self.block(op.body.block)
        elif isinstance(op, exir.WhileLoopOp):
            flops = self.block(op.cond_region.block) + self.block(op.body_region.block)
            if self.annotate:
                op.attributes["per_iteration"] = UnitAttr()
        elif op.regions:
            flops = _zero()
            for region in op.regions:
                for block in region.blocks:
                    flops = flops + self.block(block)
        else:
            name = op.name if isinstance(op, AtenOp) else None
            if isinstance(op, exir.CallFunctionOp):
                name = op.target.data
            if name is None or (entry := lookup(name)) is None:
                return _zero()
            try:
                bound = (
                    op.bound_arguments()
                    if isinstance(op, AtenOp)
                    else bind_arguments(entry.schema, op.get_args(), op.get_kwargs())  # pyright: ignore[reportAttributeAccessIssue] - ops reaching here are call_function ops, which have get_args
                )
            except InferenceError as e:
                raise ExirDiagnostic(op, f"flop-count cannot bind the arguments: {e}") from None
            flops = op_flops(entry.op_name, bound, op.result_types, self.mode)
            if flops != 0:
                key = entry.op_name
                self.by_kind[key] = self.by_kind.get(key, _zero()) + flops
        if flops != 0 and self.annotate:
            op.attributes["exir.flops"] = _attr(flops)
        return cast(Expr, flops)  # sympy types Max and its numbers as Basic subclasses, not all Expr


def _attr(value: Expr) -> Attribute:
    v = normalize(sympy.expand(value)) if not value.has(sympy.Max) else value
    return IntegerAttr(v, i64) if isinstance(v, int) else exir.SymExprAttr(to_sym(v))


def count_program(program: exir.ProgramOp, mode: str = "torch") -> tuple[Expr, dict[str, Expr]]:
    """Annotate `program`'s entry graph; returns the total and the flops per operator."""
    entry = program.entry
    if entry is None:
        raise ExirDiagnostic(program, "program has no entry graph @forward")
    counter = _Counter(mode)
    total = counter.block(entry.body.block)
    program.attributes["exir.flops"] = _attr(total)
    return total, counter.by_kind


def program_flops(program: exir.ProgramOp) -> int | None:
    """
    The floating-point operations of one call of `program` (torch's count), when
    its sizes are static and every operator's arguments bind; else None. Nothing
    is annotated: a runtime sizing its threads to the work asks this.
    """
    entry = program.entry
    if entry is None:
        return None
    try:
        total = normalize(sympy.expand(_Counter("torch", annotate=False).block(entry.body.block)))
    except ExirDiagnostic:
        return None
    return total if isinstance(total, int) else None


def format_report(total: Expr, by_kind: dict[str, Expr], mode: str) -> str:
    lines = [f"flop-count (mode={mode})"]
    width = max((len(k) for k in by_kind), default=5)
    for kind, flops in sorted(by_kind.items()):
        lines.append(f"  {kind:<{width}}  {print_expr(normalize(to_sym(flops)))}")
    lines.append(f"  {'total':<{width}}  {print_expr(normalize(to_sym(total)))}")
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class FlopCountPass(ModulePass):
    """Annotate every op and the program with its floating-point operations and print a report."""

    name = "flop-count"

    mode: str = "torch"
    """`torch` (FlopCounterMode's convention: matmul, convolution, attention) or `all` (plus pointwise, reductions, bias)."""

    report: str = "stderr"
    """Where the textual report goes: `stderr`, a file path, or `none`."""

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.mode not in ("torch", "all"):
            raise DiagnosticException(f"flop-count: mode must be 'torch' or 'all', got '{self.mode}'")
        text = ""
        for program in [p for p in op.walk() if isinstance(p, exir.ProgramOp)]:
            total, by_kind = count_program(program, self.mode)
            text += format_report(total, by_kind, self.mode)
        if not text:
            raise DiagnosticException("flop-count: the module holds no exir.program (lower TorchScript first)")
        if self.report == "none":
            return
        if self.report == "stderr":
            sys.stderr.write(text)
            return
        try:
            with open(self.report, "w") as f:
                f.write(text)
        except OSError as e:
            raise DiagnosticException(f"flop-count: cannot write the report to '{self.report}': {e}") from None


__all__ += ["format_report"]

