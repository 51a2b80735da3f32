"""The matrix, vector and tensor products (``mm``, ``bmm``, ``matmul``, ``addmm``,
``baddbmm``, ``linear``, ``einsum``, ``linalg_matmul``, ``multi_dot``, ``vecdot``, ...)
and scaled dot-product attention.

Products accumulate in the opmath type and apply ``beta``/``alpha`` as torch's
BLAS calls do; attention is written with the softmax of ``reductions`` and the
dropout of ``random``, as torch's math reference implementation composes them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, cast

import numpy as np

from xdsl_exir.semantics.kernels.core import immutable_root, run_pointwise, softmax_rows
from xdsl_exir.semantics.kernels.dtypes import (
    BOOL,
    cast_to,
    compute_dtype,
    finish,
    is_tensor,
    numpy_dtype_or_none,
    result_type,
)
from xdsl_exir.semantics.kernels.registry import FUNCTIONAL, register
from xdsl_exir.utils.dtypes import is_floating

_SMALL_BMM = 400
"""ATen's `bmm` and `baddbmm` use their own loop, not BLAS, below this many multiply-adds
per matrix (rows x columns x contraction)."""


_SKINNY_ROWS = 32
"""At most this many rows, a product with a transposed matrix (a weight that a `permute`
or `.T` made column-major) is computed the other way round."""


_ROW_MAJOR_MAX_BYTES = 32 << 20
"""The largest constant weight `RowMajorWeight` copies (a 2048 x 4096 float32 matrix): the
copy doubles the weight's memory, which a language model's vocabulary head is not worth."""


class RowMajorWeight:
    """
    One product's row-major copy of a constant right operand that reaches it column-major
    (a linear layer's weight `w`, as `w.T` or `permute(w, [1, 0])`). numpy's BLAS
    multiplies by the row-major form 10-40% faster from a few dozen rows on (measured,
    one thread: 128x256 by 256x768 0.77 ms against 0.67 ms, 64x768 by 768x3072 5.4 ms
    against 3.8 ms; torch's `linear` 0.47 and 3.1 ms), so the copy is made on the first
    call and reused while the operand is the same memory, which nothing can write
    (`immutable_root`); any other operand takes `matmul` as it is.
    """

    __slots__ = ("entry",)

    def __init__(self) -> None:
        # (the memory's owner, the data address, the shape, the copy): one attribute, read
        # and replaced whole, so that two threads running the program never mix two entries
        self.entry: tuple[object, int, tuple[int, ...], np.ndarray] | None = None

    @property
    def copy(self) -> np.ndarray | None:
        """The row-major copy held, if any."""
        return None if self.entry is None else self.entry[3]

    def matmul(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if (
            b.ndim == 2
            and a.ndim >= 2
            and b.flags.f_contiguous
            and not b.flags.c_contiguous
            and a.size > _SKINNY_ROWS * a.shape[-1]
            and a.dtype == b.dtype
            and a.dtype.kind == "f"
            and b.nbytes <= _ROW_MAJOR_MAX_BYTES
            and (root := immutable_root(b)) is not None
        ):
            ptr = b.ctypes.data
            entry = self.entry
            if entry is None or entry[0] is not root or entry[1] != ptr or entry[2] != b.shape:
                entry = self.entry = (root, ptr, b.shape, np.ascontiguousarray(b))
            try:
                return np.matmul(a, entry[3])
            except ValueError:
                raise ValueError(_mismatch(a.shape, b.shape)) from None
        return matmul(a, b)


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """
    `np.matmul`, but a few rows times a column-major matrix (a linear layer's transposed
    weight: a decode step, a classifier head, the late stages of a CNN) is computed as
    `(b.T @ a.T).T` with `b.T` row-major, then laid out row-major again. numpy's BLAS
    reads the column-major form several times slower (measured, one thread: 4x768 by
    768x3072 takes 3.9 ms against 0.96 ms this way, torch's `linear` 0.89 ms); from
    about 64 rows on, the direct call is as fast or faster (`RowMajorWeight` is faster
    still for a constant weight). Either way each element is
    a dot product over the same terms, summed in the BLAS's own order.
    """
    try:
        if (
            a.ndim == 2
            and b.ndim == 2
            and a.shape[0] <= _SKINNY_ROWS
            and b.flags.f_contiguous
            and not b.flags.c_contiguous
            and a.dtype == b.dtype
            and a.dtype.kind == "f"
        ):
            return np.ascontiguousarray(np.matmul(b.T, a.T).T)
        return np.matmul(a, b)
    except ValueError:
        raise ValueError(_mismatch(a.shape, b.shape)) from None


def _mismatch(a: tuple[int, ...], b: tuple[int, ...]) -> str:
    """Why the shapes `a` and `b` have no matrix product, in a sentence (numpy's own says
    `gufunc signature`): a traced program meets the shapes only at run time."""
    what = f"matrix product of shapes {list(a)} and {list(b)}"
    if len(a) == 0 or len(b) == 0:
        return f"{what}: a 0-d tensor has no matrix product"
    inner_b = b[-2] if len(b) >= 2 else b[-1]
    if a[-1] != inner_b:
        return f"{what}: inner sizes {a[-1]} and {inner_b} differ"
    return f"{what}: the batch dimensions {list(a[:-2])} and {list(b[:-2])} do not broadcast"


def product(a: np.ndarray, b: np.ndarray, small_bmm: bool = False) -> np.ndarray:
    """
    `np.matmul`; with `small_bmm`, for matrices under `_SMALL_BMM` multiply-adds, the
    non-finite elements are recomputed with each product rounded on its own, as ATen's
    own small-`bmm` loop rounds them. numpy's BLAS (like the MKL torch's larger products
    call) fuses the multiply-add: inside an FMA `1e30 * 1e30` does not overflow float32,
    so `-inf + 1e30 * 1e30` stays -inf where ATen's loop sums `-inf + inf`, NaN. A
    product that overflows makes a fused sum non-finite too, so only the non-finite
    elements can differ.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        p = matmul(a, b)
    if not small_bmm or a.ndim < 2 or b.ndim < 2 or a.shape[-2] * a.shape[-1] * b.shape[-1] >= _SMALL_BMM:
        return p
    if p.dtype.kind != "f" or p.size == 0 or bool(np.isfinite(p).all()):
        return p
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    p2 = p.reshape(np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]) + (a2.shape[-2], b2.shape[-1]))
    batch = p2.shape[:-2]
    a2 = np.broadcast_to(a2, batch + a2.shape[-2:])
    b2 = np.broadcast_to(b2, batch + b2.shape[-2:])
    bad = np.nonzero(~np.isfinite(p2))
    rows = a2[bad[:-1]]  # [n, k]
    cols = np.swapaxes(b2, -1, -2)[(*bad[:-2], bad[-1])]  # [n, k]
    p2 = p2.copy()
    with np.errstate(over="ignore", invalid="ignore"):
        p2[bad] = np.sum(rows * cols, axis=-1)
    return p2.reshape(p.shape)


def _matmul_typed(a: object, b: object, out_dtype: np.dtype[Any] | None = None, small_bmm: bool = False) -> np.ndarray:
    dt = result_type(a, b)
    cdt = compute_dtype(dt)
    return finish(product(cast_to(a, cdt), cast_to(b, cdt), small_bmm), out_dtype or dt)


@register("aten.mm.default", "aten.matmul.default", "aten.mm.dtype")
def _mm(self: np.ndarray, mat2: np.ndarray | None = None, other: np.ndarray | None = None, out_dtype: object = None) -> np.ndarray:
    return _matmul_typed(self, mat2 if mat2 is not None else other, numpy_dtype_or_none(out_dtype))


@register("aten.bmm.default", "aten.bmm.dtype")
def _bmm(self: np.ndarray, mat2: np.ndarray, out_dtype: object = None) -> np.ndarray:
    a, b = np.shape(self), np.shape(mat2)
    if len(a) != 3 or len(b) != 3:
        raise ValueError(f"bmm expects 3-d tensors, got shapes {list(a)} and {list(b)}")
    if a[0] != b[0]:  # numpy's matmul would broadcast a batch of 1; torch's bmm refuses it
        raise ValueError(f"matrix product of shapes {list(a)} and {list(b)}: bmm's batch dimensions {a[0]} and {b[0]} differ")
    return _matmul_typed(self, mat2, numpy_dtype_or_none(out_dtype), small_bmm=True)


@register("aten.dot.default")
def _dot(self: np.ndarray, tensor: np.ndarray) -> np.ndarray:
    return _matmul_typed(self, tensor)


@register("aten.outer.default")
def _outer(self: np.ndarray, vec2: np.ndarray) -> np.ndarray:
    return run_pointwise(np.multiply.outer, self, vec2)


def _add_scaled(acc: np.ndarray, self: object, beta: object, alpha: object, dt: np.dtype[Any], reduced: int) -> np.ndarray:
    """alpha * acc + beta * self; `acc` is the product just computed, so it is updated in
    place when the sum keeps its shape (the bias of addmm/linear broadcasts into it).
    Over an empty contraction (`reduced` 0) the result is beta * self alone, as in torch:
    the product is not added, so a -0.0 bias keeps its sign and alpha is not read."""
    cdt = compute_dtype(dt)
    acc = np.asarray(acc).astype(cdt, copy=False)
    if reduced == 0:
        acc = np.zeros_like(acc)
    elif alpha != 1:
        acc = acc * np.asarray(alpha).astype(cdt)
    if beta != 0:
        s = cast_to(self, cdt)
        if beta != 1:
            s = s * np.asarray(beta).astype(cdt)
        try:
            shape = np.broadcast_shapes(acc.shape, s.shape)
        except ValueError:
            raise ValueError(f"the added tensor of shape {list(s.shape)} does not broadcast with the "
                             f"product's shape {list(acc.shape)}") from None
        if reduced == 0:
            acc = np.broadcast_to(s, shape).copy()
        elif acc.ndim and shape == acc.shape:
            np.add(acc, s, out=acc)
        else:
            acc = acc + s
    return finish(acc, dt)


@register("aten.addmm.default", "aten.addmm.dtype")
def _addmm(
    self: np.ndarray, mat1: np.ndarray, mat2: np.ndarray, beta: object = 1, alpha: object = 1, out_dtype: object = None,
    small_bmm: bool = False,
) -> np.ndarray:  # fmt: skip
    dt = result_type(mat1, mat2)
    prod = product(cast_to(mat1, compute_dtype(dt)), cast_to(mat2, compute_dtype(dt)), small_bmm)
    return _add_scaled(prod, self, beta, alpha, numpy_dtype_or_none(out_dtype) or dt, np.shape(mat1)[-1])


@register("aten.baddbmm.default", "aten.baddbmm.dtype")
def _baddbmm(self: np.ndarray, batch1: np.ndarray, batch2: np.ndarray, beta: object = 1, alpha: object = 1, out_dtype: object = None) -> np.ndarray:
    return _addmm(self, batch1, batch2, beta, alpha, out_dtype, small_bmm=True)


@register("aten.linear.default")
def _linear(input: np.ndarray, weight: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    dt = result_type(input, weight)
    w = np.asarray(weight)
    prod = product(cast_to(input, compute_dtype(dt)), cast_to(w.T if w.ndim == 2 else w, compute_dtype(dt)))
    return _add_scaled(prod, bias, 0 if bias is None else 1, 1, dt, np.shape(input)[-1])


@register("aten.einsum.default")
def _einsum(equation: str, tensors: Sequence[np.ndarray], path: object = None) -> np.ndarray:
    dt = result_type(*tensors)
    cdt = compute_dtype(dt)
    return finish(np.einsum(equation.replace(" ", ""), *[cast_to(t, cdt) for t in tensors], optimize=True), dt)


@register("aten.einsum.sublist")
def _einsum_sublist(a: np.ndarray, *rest: object) -> np.ndarray:
    tensors = [a] + [r for r in rest if is_tensor(r)]
    dt = result_type(*tensors)
    cdt = compute_dtype(dt)
    ops = [cast_to(r, cdt) if is_tensor(r) else r for r in (a, *rest)]
    return finish(np.einsum(*cast(list[Any], ops)), dt)  # sublist form: arrays and index lists interleaved


@register("aten.scaled_dot_product_attention.default", low_precision_operands=True)
def _sdpa(
    query: np.ndarray, key: np.ndarray, value: np.ndarray, attn_mask: np.ndarray | None = None, dropout_p: float = 0.0,
    is_causal: bool = False, scale: float | None = None, enable_gqa: bool = False,
) -> np.ndarray:
    """
    What eager's `scaled_dot_product_attention` computes on the CPU. It picks its CPU
    flash kernel for 4-d inputs of one head size without dropout, which scales the
    product q k^T; otherwise its math path, which scales q and k each by sqrt(scale)
    before their product (a product that would overflow unscaled stays finite). Both
    add a boolean mask as 0/-inf (a NaN or +inf score at a masked position stays NaN)
    and give zeros for a row whose scores are all -inf (a NaN row stays NaN).
    float16/bfloat16 are computed in float32; under the flash kernel their
    probabilities are rounded per key block as it does (`_flash_rows`), under the math
    path the result is rounded once at the end. Not followed: the flash kernel's row
    maximum skips NaN scores only outside its vectorised loop, so whether a NaN query
    row gives zeros or NaN there depends on the key length and the machine's vector
    width; here it is NaN, as the math path gives.
    """
    dt = np.asarray(query).dtype
    cdt = compute_dtype(dt)
    q, k, v = cast_to(query, cdt), cast_to(key, cdt), cast_to(value, cdt)
    flash = dropout_p == 0 and q.ndim == k.ndim == v.ndim == 4 and q.shape[-1] == k.shape[-1] == v.shape[-1]
    if enable_gqa and q.ndim >= 3 and k.shape[-3] != q.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k, v = np.repeat(k, rep, axis=-3), np.repeat(v, rep, axis=-3)
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    if flash:  # the flash kernel scales the product
        scores = np.matmul(q, np.swapaxes(k, -1, -2))
        np.multiply(scores, np.asarray(s, cdt), out=scores)
    else:
        root = np.asarray(math.sqrt(s), cdt)
        scores = np.matmul(q * root, np.swapaxes(k, -1, -2) * root)
    L, S = q.shape[-2], k.shape[-2]
    if is_causal:
        np.copyto(scores, -np.inf, where=~np.tril(np.ones((L, S), dtype=bool)))
    if attn_mask is not None:
        m = np.asarray(attn_mask)
        if m.dtype == BOOL:
            m = np.where(m, np.zeros((), cdt), np.asarray(-np.inf, cdt))
        with np.errstate(invalid="ignore"):
            scores = scores + cast_to(m, cdt)  # the mask may broadcast scores to more dims
    # a fully masked row attends to nothing: torch's safe softmax yields zeros there, not NaN
    masked = np.maximum.reduce(scores, axis=-1, keepdims=True) == -np.inf if scores.size else None
    if cdt != dt and flash:
        out = _flash_rows(scores, v, dt)
        if masked is not None and masked.any():
            np.copyto(out, 0, where=masked)
        return finish(out, dt)
    attn = softmax_rows(scores, scores.ndim - 1)
    if masked is not None and masked.any():
        np.copyto(attn, 0, where=masked)
    if dropout_p > 0:
        attn = FUNCTIONAL["aten.native_dropout.default"](attn, dropout_p, True)[0]
    return finish(np.matmul(attn, v), dt)


def _flash_rows(scores: np.ndarray, v: np.ndarray, dt: np.dtype[Any], block: int = 512) -> np.ndarray:
    """
    Attention of float32 `scores` over `v` as torch's CPU flash-attention kernel
    computes a float16/bfloat16 one: key blocks of 512 with a running maximum and
    sum (online softmax); each block's unnormalised probabilities `exp(s - max)` are
    rounded to the input dtype before their product with `v`, and the float32
    accumulator is divided by the float32 sum at the end. Normalising first, in
    float32, differs from torch in about a quarter of the outputs by one ulp.
    """
    lead = scores.shape[:-1]
    m = np.full((*lead, 1), -np.inf, scores.dtype)
    total = np.zeros((*lead, 1), scores.dtype)
    acc = np.zeros((*lead, v.shape[-1]), scores.dtype)
    for j in range(0, scores.shape[-1], block):
        s = scores[..., j : j + block]
        m_new = np.maximum(m, np.max(s, axis=-1, keepdims=True))
        shift = np.where(m_new == -np.inf, 0, m_new)  # a row masked so far: exp(-inf) is 0, not NaN
        p = np.exp(s - shift)
        alpha = np.exp(m - shift)
        total = total * alpha + np.sum(p, axis=-1, keepdims=True)
        acc = acc * alpha + np.matmul(finish(p, dt).astype(scores.dtype), v[..., j : j + block, :])
        m = m_new
    with np.errstate(divide="ignore", invalid="ignore"):
        return acc / total


@register("aten._scaled_dot_product_flash_attention_for_cpu.default", low_precision_operands=True)
def _sdpa_flash_cpu(
    query: np.ndarray, key: np.ndarray, value: np.ndarray, dropout_p: float = 0.0, is_causal: bool = False,
    attn_mask: np.ndarray | None = None, scale: float | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """
    torch's CPU flash attention, which `torch.export` and `aot_export_module` record for
    `scaled_dot_product_attention` of 4-d tensors: the attention (the math of
    `scaled_dot_product_attention`, float16/bfloat16 rounded per key block as that
    kernel does, key/value heads shared by groups of query heads) and each query row's
    logsumexp of its scaled, masked scores, in float32 (float64 for float64 inputs); a
    row every key is masked from gives zeros and a logsumexp of 0, as torch's kernel
    does. torch refuses dropout, inputs of another rank or head size, and a mask of
    another dtype than the query (a boolean one included); so does this kernel.
    """
    q, k, v = np.asarray(query), np.asarray(key), np.asarray(value)
    name = "_scaled_dot_product_flash_attention_for_cpu"
    if dropout_p:
        raise ValueError(f"{name}: dropout_p {dropout_p}: torch's CPU flash attention has no dropout")
    if q.ndim != 4 or k.ndim != 4 or v.ndim != 4:
        raise ValueError(f"{name}: query, key and value must be 4-d [batch, heads, length, head size], "
                         f"got ranks {q.ndim}, {k.ndim}, {v.ndim}")
    if not (q.shape[3] == k.shape[3] == v.shape[3]):
        raise ValueError(f"{name}: query, key and value must have one head size, got {q.shape[3]}, {k.shape[3]}, {v.shape[3]}")
    if not is_floating(q.dtype):
        raise ValueError(f"{name}: query must be floating point, got {q.dtype}")
    if attn_mask is not None and np.asarray(attn_mask).dtype != q.dtype:
        raise ValueError(f"{name}: attn_mask of dtype {np.asarray(attn_mask).dtype} for a {q.dtype} query: torch's "
                         "CPU flash attention takes an additive mask of the query's dtype")
    hq, hk = q.shape[1], k.shape[1]
    if hk == 0 or hq % hk:
        raise ValueError(f"{name}: {hq} query heads cannot share {hk} key/value heads")
    out = _sdpa(q, k, v, attn_mask, 0.0, is_causal, scale, enable_gqa=True)
    cdt = compute_dtype(q.dtype)
    lse_dt = np.dtype(np.float64) if q.dtype == np.float64 else np.dtype(np.float32)
    qc, kc = cast_to(q, cdt), cast_to(k, cdt)
    if hq != hk:
        kc = np.repeat(kc, hq // hk, axis=1)
    s = scale if scale is not None else 1.0 / math.sqrt(q.shape[-1])
    scores = np.matmul(qc, np.swapaxes(kc, -1, -2)) * np.asarray(s, cdt)
    if is_causal:
        np.copyto(scores, -np.inf, where=~np.tril(np.ones(scores.shape[-2:], dtype=bool)))
    if attn_mask is not None:
        scores = scores + cast_to(attn_mask, cdt)
    if scores.shape[-1] == 0:
        return out, np.zeros(scores.shape[:-1], lse_dt)
    # torch's row maximum passes over NaN scores: a row of NaN and -inf scores is dead
    # (zeros, logsumexp 0), one NaN among finite scores makes the row NaN
    top = np.fmax.reduce(scores, axis=-1, keepdims=True)
    dead = ~(top > -np.inf)
    top = np.where(dead, 0, top)
    with np.errstate(divide="ignore", invalid="ignore"):
        lse = np.log(np.sum(np.exp(scores - top), axis=-1, keepdims=True)) + top
    if dead.any():
        out = np.where(dead, np.zeros((), out.dtype), out)
    return out, np.where(dead, 0, lse)[..., 0].astype(lse_dt)


@register("aten._int_mm.default")
def _int_mm(self: np.ndarray, mat2: np.ndarray) -> np.ndarray:
    """int8 x int8 -> int32 matrix product, accumulated exactly (int64, then wrapped to int32 as torch's)."""
    a, b = np.asarray(self), np.asarray(mat2)
    if a.dtype != np.int8 or b.dtype != np.int8 or a.ndim != 2 or b.ndim != 2 or a.shape[1] != b.shape[0]:
        raise ValueError("_int_mm expects two 2-d int8 matrices of matching inner size")
    return (a.astype(np.int64) @ b.astype(np.int64)).astype(np.int32)


@register("aten.linalg_matmul.default")
def _linalg_matmul(self: np.ndarray, other: np.ndarray) -> np.ndarray:
    return FUNCTIONAL["aten.matmul.default"](self, other=other)


@register("aten.linalg_multi_dot.default", "aten.chain_matmul.default")
def _multi_dot(tensors: Sequence[np.ndarray] | None = None, matrices: Sequence[np.ndarray] | None = None) -> np.ndarray:
    """The product of the chain (a 1-D first/last operand is a row/column vector, as in numpy)."""
    xs = [np.asarray(t) for t in (tensors if tensors is not None else matrices or [])]
    if len(xs) == 1:
        return xs[0].copy()
    dt = xs[0].dtype
    wide = [x.astype(np.float64) if is_floating(x.dtype) else x for x in xs]
    return np.asarray(np.linalg.multi_dot(wide)).astype(dt)


@register("aten.linalg_vecdot.default")
def _linalg_vecdot(x: np.ndarray, y: np.ndarray, dim: int = -1) -> np.ndarray:
    """Σ x * y over `dim` (real tensors: no conjugation needed), broadcast like torch."""
    a, b = np.asarray(x), np.asarray(y)
    dt = np.promote_types(a.dtype, b.dtype)
    wide = np.float64 if is_floating(dt) else dt
    return np.sum(a.astype(wide) * b.astype(wide), axis=dim).astype(dt)
