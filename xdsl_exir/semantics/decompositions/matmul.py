"""Decompositions of the matrix, vector and tensor products and the fused forms torch's passes emit."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    DeviceAttr,
    DType,
    Layout,
    MemoryFormat,
    TensorType,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    Strides,
    number_arg,
    rule,
    simplify_size,
    size_product,
    sizes_equal,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.broadcast import broadcast_shapes
from xdsl_exir.utils.symbolic import SymSize

# -- linear algebra --------------------------------------------------------------


@rule("aten.linear.default")
def _linear(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    ATen's `linear`: `addmm(bias, x, w.permute(1, 0))` for a 2-d input, or a
    contiguous n-d one viewed to 2-d and back; otherwise `matmul(x, w.t())`
    then `add` of the bias (a transposed input, as in `nn.MultiheadAttention`).
    """
    x, w, bias = b.value("input"), b.value("weight"), b.get("bias")
    t, wt = tensor_of(x), tensor_of(w)
    if wt.rank != 2 or t.rank == 0:
        raise Decline()
    if t.rank != 2 and (bias is None or not e.layouts.is_contiguous(x)):
        out = e.v("aten.matmul.default", x, e.v("aten.permute.default", w, [1, 0]))
        return [out if bias is None else e.v("aten.add.Tensor", out, bias)]
    lead = list(t.sizes[:-1])
    x2 = x if t.rank == 2 else e.reshape(x, [size_product(lead), t.sizes[-1]])
    w_t = e.v("aten.permute.default", w, [1, 0])
    if bias is not None:
        out = e.v("aten.addmm.default", bias, x2, w_t)
    else:
        out = e.v("aten.mm.default", x2, w_t)
    if t.rank != 2:
        out = e.v("aten.view.default", out, e.sizes([*lead, wt.sizes[0]]))
    return [out]


@rule("aten.matmul.default")
def _matmul(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's `_matmul_impl`: `mm`, folded `mm` for (n-d, 2-d), else broadcast `bmm`."""
    a, c = b.value("self"), b.value("other")
    ta, tc = tensor_of(a), tensor_of(c)
    da, dc = ta.rank, tc.rank
    if da < 2 or dc < 2:
        raise Decline()  # vector cases (dot, mv) are left to torch's own ops
    if da == 2 and dc == 2:
        return [e.v("aten.mm.default", a, c)]
    if da >= 3 and dc == 2 and _should_fold(ta, e.layouts.strides(a)):
        lead = list(ta.sizes[:-1])
        a2 = e.reshape(a, [size_product(lead), ta.sizes[-1]])
        out = e.v("aten.mm.default", a2, c)
        return [e.v("aten.view.default", out, e.sizes([*lead, tc.sizes[-1]]))]
    batch_a, batch_c = list(ta.sizes[:-2]), list(tc.sizes[:-2])
    batch = broadcast_shapes(batch_a, batch_c)  # a symbol against a constant takes the constant, as inference does
    n, m, p = ta.sizes[-2], ta.sizes[-1], tc.sizes[-1]
    bsz = size_product(batch)
    ea = e.v("aten.expand.default", a, e.sizes([*batch, n, m]))
    ea = e.reshape(ea, [bsz, n, m])
    ec = e.v("aten.expand.default", c, e.sizes([*batch, m, p]))
    ec = e.reshape(ec, [bsz, m, p])
    out = e.v("aten.bmm.default", ea, ec)
    return [e.v("aten.view.default", out, e.sizes([*batch, n, p]))]


def _should_fold(t: TensorType, strides: Strides) -> bool:
    """
    ATen's `should_fold` for an n-d left operand (no gradient is taken here):
    fold to one `mm` when `view(-1, k)` needs no copy.
    """
    if any(sizes_equal(s, 0) for s in t.sizes):
        return True
    sizes = t.sizes
    return all(sizes_equal(strides[i], simplify_size(strides[i + 1] * sizes[i + 1])) for i in range(len(sizes) - 2))


@rule("aten.baddbmm.default")
def _baddbmm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch's decomposition: `beta * self + alpha * bmm(batch1, batch2)`, the factors
    truncated to integers on integer tensors, as ATen's kernel takes them."""
    out = e.v("aten.bmm.default", b["batch1"], b["batch2"])
    alpha, beta = b["alpha"], b["beta"]
    dtype = tensor_of(out).element_dtype
    if not dtype.is_floating_point and dtype != DType.bool:
        alpha = int(alpha) if isinstance(alpha, float) else alpha
        beta = int(beta) if isinstance(beta, float) else beta
    if alpha != 1:
        out = e.v("aten.mul.Tensor", out, alpha)
    s = b["self"]
    if beta == 0:
        return [out]
    if beta != 1:
        s = e.v("aten.mul.Tensor", s, beta)
    return [e.v("aten.add.Tensor", s, out)]


# -- fused forms torch's passes emit ---------------------------------------------------------


@rule("aten._addmm_activation.default")
def _addmm_activation(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    out = e.v("aten.addmm.default", b["self"], b["mat1"], b["mat2"], beta=b.get("beta", 1), alpha=b.get("alpha", 1))
    return [e.v("aten.gelu.default", out) if b.get("use_gelu") else e.v("aten.relu.default", out)]


# -- einsum ------------------------------------------------------------------------


def _einsum_terms(equation: str, ranks: list[int]) -> tuple[list[str], str] | None:
    """The operands' subscripts and the output's, one letter per dimension: an ellipsis becomes
    spare capital letters (right-aligned, as broadcasting aligns), an implicit output the letters
    used once, sorted, after the ellipsis."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ranks):
        return None
    spare = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in equation]
    widths = [rank - (len(t) - 3) for t, rank in zip(terms, ranks) if "..." in t]
    width = max(widths, default=0)
    if width > len(spare) or any(w < 0 for w in widths):
        return None
    ellipsis = "".join(spare[:width])
    terms = [t.replace("...", ellipsis[width - (r - (len(t) - 3)):]) if "..." in t else t for t, r in zip(terms, ranks)]
    if any(len(t) != r or not t.isalpha() for t, r in zip(terms, ranks)):
        return None
    if arrow:
        out = rhs.replace("...", ellipsis)
    else:
        counts = {c: "".join(terms).count(c) for c in set("".join(terms))}
        out = ellipsis + "".join(sorted(c for c, n in counts.items() if n == 1 and c not in ellipsis))
    if not out.isalpha() and out:
        return None
    return terms, out


@rule("aten.einsum.default")
def _einsum(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`einsum` as torch computes it: per operand, repeated subscripts taken as `diagonal`s and
    subscripts no one else uses summed; then operands contracted left to right, each pair as
    one `bmm` over (shared kept, own, contracted) dims; the result permuted to the output's
    order. Sizes of a subscript must agree (no broadcasting of size-1 dims)."""
    operands = cast(list[SSAValue], b["tensors"])
    if not operands:
        raise Decline()
    parsed = _einsum_terms(cast(str, b["equation"]), [tensor_of(x).rank for x in operands])
    if parsed is None:
        raise Decline()
    terms, out = parsed
    sizes: dict[str, SymSize] = {}
    for x, term in zip(operands, terms):
        for c, s in zip(term, tensor_of(x).sizes):
            if c in sizes and not sizes_equal(sizes[c], s):
                raise Decline()
            sizes.setdefault(c, s)
    if any(c not in sizes for c in out) or len(set(out)) != len(out):
        raise Decline()

    def needed_after(k: int) -> set[str]:
        return set(out).union(*(set(t) for t in terms[k + 1 :]))

    def diagonals(x: SSAValue, term: str) -> tuple[SSAValue, str]:
        while len(set(term)) != len(term):
            c = next(c for c in term if term.count(c) > 1)
            i = term.index(c)
            j = term.index(c, i + 1)
            x = e.v("aten.diagonal.default", x, 0, i, j)
            term = term[:i] + term[i + 1 : j] + term[j + 1 :] + c
        return x, term

    def sum_out(x: SSAValue, term: str, keep: set[str]) -> tuple[SSAValue, str]:
        dims = [d for d, c in enumerate(term) if c not in keep]
        if not dims:
            return x, term
        return e.v("aten.sum.dim_IntList", x, dims), "".join(c for c in term if c in keep)

    def arrange(x: SSAValue, term: str, order: str) -> SSAValue:
        perm = [term.index(c) for c in order]
        return x if perm == list(range(len(perm))) else e.v("aten.permute.default", x, perm)

    acc, acc_term = diagonals(operands[0], terms[0])
    for k in range(1, len(operands)):
        other, other_term = diagonals(operands[k], terms[k])
        later = needed_after(k)
        acc, acc_term = sum_out(acc, acc_term, later | set(other_term))
        other, other_term = sum_out(other, other_term, later | set(acc_term))
        batch = "".join(c for c in acc_term if c in other_term and c in later)
        contracted = "".join(c for c in acc_term if c in other_term and c not in later)
        own_a = "".join(c for c in acc_term if c not in other_term)
        own_b = "".join(c for c in other_term if c not in acc_term)

        def size(letters: str) -> SymSize:
            return size_product([sizes[c] for c in letters])

        lhs = e.reshape(arrange(acc, acc_term, batch + own_a + contracted), [size(batch), size(own_a), size(contracted)])
        rhs = e.reshape(arrange(other, other_term, batch + contracted + own_b), [size(batch), size(contracted), size(own_b)])
        product = e.v("aten.bmm.default", lhs, rhs)
        acc_term = batch + own_a + own_b
        acc = e.v("aten.view.default", product, e.sizes([sizes[c] for c in acc_term]))
    if len(operands) == 1 or set(acc_term) - set(out):
        acc, acc_term = sum_out(acc, acc_term, set(out))
    return [arrange(acc, acc_term, out)]


# -- matrix products ------------------------------------------------------------


@rule("aten.linalg_matmul.default")
def _linalg_matmul(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.matmul.default", b["self"], b["other"])]


@rule("aten.chain_matmul.default", "aten.linalg_multi_dot.default")
def _multi_dot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """A chain of 2-d matrices multiplied left to right with `mm` (torch picks the cheapest order;
    the values agree up to rounding)."""
    mats = cast(list[SSAValue], b["matrices"] if "matrices" in b else b["tensors"])
    if not mats or any(tensor_of(m).rank != 2 for m in mats):
        raise Decline()
    out = mats[0]
    if len(mats) == 1:
        return [e.v("aten.clone.default", out)]
    for m in mats[1:]:
        out = e.v("aten.mm.default", out, m)
    return [out]


@rule("aten.vdot.default")
def _vdot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", b["self"], b["other"]), [])]


@rule("aten.addbmm.default")
def _addbmm(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """beta self + alpha Σ_i batch1[i] @ batch2[i]."""
    prod = e.v("aten.sum.dim_IntList", e.v("aten.bmm.default", b["batch1"], b["batch2"]), [0])
    beta, alpha = number_arg(b, "beta", 1.0), number_arg(b, "alpha", 1.0)
    if alpha != 1:
        prod = e.v("aten.mul.Tensor", prod, alpha)
    if beta == 0:  # self is ignored, NaNs included (torch's rule)
        return [prod]
    base = b.value("self")
    if beta != 1:
        base = e.v("aten.mul.Tensor", base, beta)
    return [e.v("aten.add.Tensor", base, prod)]


@rule("aten.kron.default")
def _kron(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Interleave the dims of a (a0, 1, a1, 1, ...) and b (1, b0, 1, b1, ...), multiply, merge pairs."""
    x, y = b.value("self"), b.value("other")
    tx, ty = tensor_of(x), tensor_of(y)
    n = max(tx.rank, ty.rank)
    xs = [1] * (n - tx.rank) + list(tx.sizes)
    ys = [1] * (n - ty.rank) + list(ty.sizes)
    xi = e.reshape(x, [s for d in xs for s in (d, 1)])
    yi = e.reshape(y, [s for d in ys for s in (1, d)])
    return [e.reshape(e.v("aten.mul.Tensor", xi, yi), [simplify_size(p * q) for p, q in zip(xs, ys)])]


@rule("aten.tensordot.default")
def _tensordot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """Contract `dims_self` with `dims_other`: permute both, flatten to matrices, one mm."""
    x, y = b.value("self"), b.value("other")
    tx, ty = tensor_of(x), tensor_of(y)
    ds = [d % max(tx.rank, 1) for d in b.ints("dims_self")]
    do = [d % max(ty.rank, 1) for d in b.ints("dims_other")]
    free_x = [d for d in range(tx.rank) if d not in ds]
    free_y = [d for d in range(ty.rank) if d not in do]
    k = size_product([tx.sizes[d] for d in ds])
    xm = e.reshape(_permuted(e, x, free_x + ds), [size_product([tx.sizes[d] for d in free_x]), k])
    ym = e.reshape(_permuted(e, y, do + free_y), [k, size_product([ty.sizes[d] for d in free_y])])
    out = e.v("aten.mm.default", xm, ym)
    shape = [tx.sizes[d] for d in free_x] + [ty.sizes[d] for d in free_y]
    return [out if len(shape) == 2 and all(sizes_equal(a, c) for a, c in zip(shape, tensor_of(out).sizes)) else e.reshape(out, shape)]


def _permuted(e: Emitter, x: SSAValue, order: list[int]) -> SSAValue:
    return x if order == list(range(len(order))) else e.v("aten.permute.default", x, order)


@rule("aten.linalg_cross.default", "aten.cross.default")
def _linalg_cross(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`a[i+1]*b[i+2] - a[i+2]*b[i+1]` along a dim of size 3, by index_select with rotations."""
    x, y = b.value("self"), b.value("other")
    tx, ty = tensor_of(x), tensor_of(y)
    shape = broadcast_shapes(list(tx.sizes), list(ty.sizes))
    dim = b.get("dim")
    if dim is None:
        dim = next((i for i, s in enumerate(shape) if sizes_equal(s, 3)), None)
        if dim is None:
            raise Decline()
    d = cast(int, dim) % len(shape)
    if not sizes_equal(shape[d], 3):
        raise Decline()
    if tx.sizes != shape:
        x = e.v("aten.expand.default", x, e.sizes(shape))
    if ty.sizes != shape:
        y = e.v("aten.expand.default", y, e.sizes(shape))
    device = DeviceAttr(tx.device.data)
    base = e.v("aten.arange.start_step", 0, 3, layout=Layout.strided, device=device, pin_memory=False)
    i1 = e.v("aten.remainder.Scalar", e.v("aten.add.Tensor", base, 1), 3)
    i2 = e.v("aten.remainder.Scalar", e.v("aten.add.Tensor", base, 2), 3)
    def pick(v: SSAValue, i: SSAValue) -> SSAValue:
        return e.v("aten.index_select.default", v, d, i)
    left = e.v("aten.mul.Tensor", pick(x, i1), pick(y, i2))
    right = e.v("aten.mul.Tensor", pick(x, i2), pick(y, i1))
    return [e.v("aten.sub.Tensor", left, right)]


@rule("aten.bilinear.default")
def _bilinear(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o]: x1 times W (as [I, O*J]) in one
    `mm`, then the product with x2 summed over j."""
    x1, x2, w = (cast(SSAValue, b[n]) for n in ("input1", "input2", "weight"))
    t1, t2, tw = tensor_of(x1), tensor_of(x2), tensor_of(w)
    if tw.rank != 3 or t1.rank < 1 or t1.sizes[:-1] != t2.sizes[:-1]:
        raise Decline()
    out_f, in1, in2 = tw.sizes
    lead = list(t1.sizes[:-1])
    rows = 1
    for s in lead:
        if not isinstance(s, int):
            raise Decline()
        rows *= s
    a = e.reshape(x1, [rows, in1])
    c = e.reshape(x2, [rows, in2])
    wm = e.reshape(e.v("aten.permute.default", w, [1, 0, 2]), [in1, out_f * in2])
    t = e.v("aten.view.default", e.v("aten.mm.default", a, wm), [rows, out_f, in2])
    y = e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", t, e.v("aten.unsqueeze.default", c, 1)), [2])
    if isinstance(b.get("bias"), SSAValue):
        y = e.v("aten.add.Tensor", y, b["bias"])
    return [e.v("aten.view.default", y, e.sizes([*lead, out_f]))]


@rule("aten.scaled_dot_product_attention.default")
def _sdpa(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """ATen's math path of `scaled_dot_product_attention` (no dropout): q and k^T each
    scaled by sqrt(scale), `matmul`, the mask added (a boolean one as 0/-inf, so a NaN
    or +inf score at a masked position stays NaN), and `_safe_softmax` (rows whose
    scores are all -inf give zeros, not NaN). Where eager picks its CPU flash kernel
    instead (4-d inputs of one head size), the product is scaled once, as that kernel
    and the interpreter's do. Grouped-query attention (`enable_gqa`) repeats each
    key/value head for its query heads, as that path does; float16 and bfloat16 are
    computed in float32 and rounded once, as torch's own decomposition."""
    if b.get("dropout_p"):
        raise Decline()
    q, k, v = (cast(SSAValue, b[n]) for n in ("query", "key", "value"))
    tq, tk = tensor_of(q), tensor_of(k)
    e_dim = tq.sizes[-1]
    if not isinstance(e_dim, int):
        raise Decline()
    if b.get("enable_gqa") and tq.rank >= 3 and tq.sizes[-3] != tk.sizes[-3]:
        hq, hk = tq.sizes[-3], tk.sizes[-3]
        if not isinstance(hq, int) or not isinstance(hk, int) or hk == 0 or hq % hk:
            raise Decline()
        k = e.v("aten.repeat_interleave.self_int", k, hq // hk, -3)
        v = e.v("aten.repeat_interleave.self_int", v, hq // hk, -3)
    dtype = tq.element_dtype
    wide = dtype.opmath()
    if wide != dtype:
        q, k, v = (e.v("aten._to_copy.default", x, dtype=wide) for x in (q, k, v))
    scale = b.get("scale")
    scale = float(cast(float, scale)) if scale is not None else 1.0 / math.sqrt(e_dim)
    tv = tensor_of(v)
    if tq.rank == tk.rank == tv.rank == 4 and e_dim == tk.sizes[-1] == tv.sizes[-1]:
        scores = e.v("aten.mul.Scalar", e.v("aten.matmul.default", q, e.v("aten.transpose.int", k, -2, -1)), scale)
    else:
        factor = math.sqrt(scale)
        q = e.v("aten.mul.Scalar", q, factor)
        kt = e.v("aten.mul.Scalar", e.v("aten.transpose.int", k, -2, -1), factor)
        scores = e.v("aten.matmul.default", q, kt)
    mask = b.get("attn_mask")
    if b.get("is_causal"):
        ones = e.v("aten.ones.default", e.sizes([tq.sizes[-2], tk.sizes[-2]]), dtype=DType.bool)
        upper = e.v("aten.triu.default", ones, 1)
        scores = e.v("aten.masked_fill.Scalar", scores, upper, float("-inf"))
    if isinstance(mask, SSAValue):
        if tensor_of(mask).element_dtype == DType.bool:
            zeros = e.v("aten.zeros_like.default", mask, dtype=wide)
            additive = e.v("aten.masked_fill.Scalar", zeros, e.v("aten.logical_not.default", mask), float("-inf"))
            scores = e.v("aten.add.Tensor", scores, additive)
        else:
            if tensor_of(mask).element_dtype != wide:
                mask = e.v("aten._to_copy.default", mask, dtype=wide)
            scores = e.v("aten.add.Tensor", scores, mask)
    attn = e.v("aten._softmax.default", scores, -1, False)
    masked = e.v("aten.eq.Scalar", scores, float("-inf"))
    live = e.v("aten.any.dim", e.v("aten.logical_not.default", masked), -1, True)
    dead = e.v("aten.logical_not.default", live)
    zeros = e.v("aten.full_like.default", attn, 0, pin_memory=False, memory_format=MemoryFormat.preserve_format)
    attn = e.v("aten.where.self", dead, zeros, attn)
    out = e.v("aten.matmul.default", attn, v)
    return [out if wide == dtype else e.v("aten._to_copy.default", out, dtype=dtype)]


@rule("aten._scaled_dot_product_flash_attention_for_cpu.default")
def _sdpa_flash_cpu(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """
    torch's CPU flash attention, which export records for `scaled_dot_product_attention`:
    the attention is `scaled_dot_product_attention` (its rule above), laid out as the
    kernel allocates it ([batch, length, heads, head size] in memory: permute, contiguous
    copy, permute back, as torch's own decomposition does, so that a later `view` stays
    legal); the logsumexp of each row's scaled, masked scores is computed here in float32
    (float64 for float64), where torch's decomposition returns the attention weights in its
    place. The kernel's row maximum passes over NaN scores: a row with no score above -inf
    (all masked, or NaN) gives zeros and a logsumexp of 0, as the kernel does.
    """
    if b.get("dropout_p"):
        raise Decline()  # the kernel refuses dropout
    q, k, v = b.value("query"), b.value("key"), b.value("value")
    tq, tk = tensor_of(q), tensor_of(k)
    e_dim, hq, hk = tq.sizes[-1], tq.sizes[1] if tq.rank == 4 else 0, tk.sizes[1] if tk.rank == 4 else 0
    if tq.rank != 4 or tk.rank != 4 or not all(isinstance(n, int) for n in (e_dim, hq, hk)):
        raise Decline()
    hq, hk = cast(int, hq), cast(int, hk)
    if hk == 0 or hq % hk:
        raise Decline()
    mask = b.get("attn_mask")
    mask = mask if isinstance(mask, SSAValue) else None
    causal = bool(b.get("is_causal"))
    scale = b.get("scale")
    out = e.v("aten.scaled_dot_product_attention.default", q, k, v, mask, 0.0, causal, scale=scale, enable_gqa=hq != hk)
    wide = DType.float64 if tq.element_dtype == DType.float64 else DType.float32
    if tq.element_dtype != wide:
        q, k = (e.v("aten._to_copy.default", x, dtype=wide) for x in (q, k))
    if hq != hk:
        k = e.v("aten.repeat_interleave.self_int", k, hq // hk, -3)
    factor = float(cast(float, scale)) if scale is not None else 1.0 / math.sqrt(cast(int, e_dim))
    scores = e.v("aten.mul.Scalar", e.v("aten.matmul.default", q, e.v("aten.transpose.int", k, -2, -1)), factor)
    if causal:
        ones = e.v("aten.ones.default", e.sizes([tq.sizes[-2], tk.sizes[-2]]), dtype=DType.bool)
        scores = e.v("aten.masked_fill.Scalar", scores, e.v("aten.triu.default", ones, 1), float("-inf"))
    if mask is not None:
        if tensor_of(mask).element_dtype != wide:
            mask = e.v("aten._to_copy.default", mask, dtype=wide)
        scores = e.v("aten.add.Tensor", scores, mask)
    finite = e.v("aten.masked_fill.Scalar", scores, e.v("aten.isnan.default", scores), float("-inf"))
    top = e.v("aten.amax.default", finite, [-1], True)
    dead = e.v("aten.logical_not.default", e.v("aten.gt.Scalar", top, float("-inf")))
    top = e.v("aten.masked_fill.Scalar", top, dead, 0.0)
    total = e.v("aten.sum.dim_IntList", e.v("aten.exp.default", e.v("aten.sub.Tensor", scores, top)), [-1], True)
    lse = e.v("aten.masked_fill.Scalar", e.v("aten.add.Tensor", e.v("aten.log.default", total), top), dead, 0.0)
    out = e.v("aten.masked_fill.Scalar", out, dead, 0.0)
    out = e.v("aten.clone.default", e.v("aten.permute.default", out, [2, 0, 1, 3]), memory_format=MemoryFormat.contiguous_format)
    return [e.v("aten.permute.default", out, [1, 2, 0, 3]), e.v("aten.squeeze.dims", lse, [-1])]


@rule("aten.mv.default")
def _mv(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    col = e.v("aten.unsqueeze.default", b["vec"], 1)
    return [e.v("aten.squeeze.dims", e.v("aten.mm.default", b["self"], col), [1])]


@rule("aten.ger.default", "aten.outer.default")
def _outer(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.mul.Tensor", e.v("aten.unsqueeze.default", b["self"], 1), b["vec2"])]


def _int_factor(v: object) -> object:
    return int(v) if isinstance(v, float) else v


def _scaled_sum(e: Emitter, b: Bound, product: SSAValue) -> SSAValue:
    """`beta * self + alpha * product` (self ignored when beta is 0, as torch does); on
    integer tensors the factors are truncated to integers first, as ATen's kernels take
    them (`beta=0.2` is 0: self ignored)."""
    alpha, beta = b.get("alpha", 1), b.get("beta", 1)
    dtype = tensor_of(product).element_dtype
    if not dtype.is_floating_point and dtype != DType.bool:
        alpha, beta = _int_factor(alpha), _int_factor(beta)
    if alpha != 1:
        product = e.v("aten.mul.Tensor", product, alpha)
    if beta == 0:
        return e.v("aten.expand.default", product, e.sizes(broadcast_shapes(list(tensor_of(b["self"]).sizes),
                                                                       list(tensor_of(product).sizes))))
    x = b["self"] if beta == 1 else e.v("aten.mul.Tensor", b["self"], beta)
    return e.v("aten.add.Tensor", x, product)


@rule("aten.addmv.default")
def _addmv(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    col = e.v("aten.unsqueeze.default", b["vec"], 1)
    product = e.v("aten.squeeze.dims", e.v("aten.mm.default", b["mat"], col), [1])
    return [_scaled_sum(e, b, product)]


@rule("aten.addr.default")
def _addr(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    if tensor_of(b["self"]).element_dtype == DType.bool:
        raise Decline()
    product = e.v("aten.mul.Tensor", e.v("aten.unsqueeze.default", b["vec1"], 1), b["vec2"])
    return [_scaled_sum(e, b, product)]


@rule("aten.inner.default")
def _inner(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, y = b.value("self"), b.value("other")
    rx, ry = tensor_of(x).rank, tensor_of(y).rank
    if rx == 0 or ry == 0:
        return [e.v("aten.mul.Tensor", x, y)]
    if rx == 1 and ry == 1:
        return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x, y), [0])]
    if rx <= 2 and ry == 2:
        return [e.v("aten.matmul.default", x, e.v("aten.permute.default", y, [1, 0]))]
    raise Decline()


@rule("aten.dot.default")
def _dot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """torch/_decomp `dot`: the products summed."""
    a = b.value("self")
    if tensor_of(a).element_dtype.is_complex:
        raise Decline()
    return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", a, b["tensor"]), [])]


@rule("aten.linalg_vecdot.default")
def _vecdot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`linalg.vecdot` of real tensors: `sum(x * y, dim)` (the conjugate of a real `x` is `x`)."""
    x = b.value("x")
    if tensor_of(x).element_dtype.is_complex:
        raise Decline()
    return [e.v("aten.sum.dim_IntList", e.v("aten.mul.Tensor", x, b["y"]), [b.int("dim")])]
