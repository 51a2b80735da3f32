"""
Views and shape ops. Value semantics make a view a new tensor: reshapes become
`tensor.collapse_shape` + `tensor.expand_shape`, slices `tensor.extract_slice`,
`permute` `linalg.transpose`, `expand` a broadcasting `linalg.generic`, `cat`
`tensor.insert_slice`s into one `tensor.empty`.

A reshape between symbolic shapes is split into groups whose size products are
equal symbolically (`[s0, s1, 16] -> [s0*s1, 16]` is `[[0, 1], [2]]`), so it
stays a pair of reassociations that IREE folds away, with no data movement.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    DenseArrayBase,
    IntegerAttr,
    i64,
)
from xdsl.dialects.builtin import (
    TensorType as BuiltinTensorType,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.ir import Attribute, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.aten_inference import Bound
from xdsl_exir.dialects.exir import TensorType
from xdsl_exir.transforms.linalg_lowering import lowers
from xdsl_exir.transforms.linalg_lowering.state import (
    DYNAMIC,
    PARALLEL,
    LoweringState,
    broadcast_map,
    element_type,
    identity_map,
    sized,
    tensor_type,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    result_of as _result,
)
from xdsl_exir.transforms.linalg_lowering.state import (
    type_of as _t,
)
from xdsl_exir.utils.symbolic import SymSize, sympy, to_sym


def _same(a: object, b: object) -> bool:
    return sympy.expand(to_sym(cast(int, a)) - to_sym(cast(int, b))) == 0


def _product(sizes: Sequence[object]) -> object:
    p: object = 1
    for s in sizes:
        p = p * s  # pyright: ignore[reportOperatorIssue] - sizes are ints and sympy expressions, which multiply
    return sympy.expand(p) if isinstance(p, sympy.Basic) else p


def _divides(a: object, b: object) -> bool:
    """Whether `b / a` is a polynomial in the symbols (so `a` can grow towards `b`)."""
    ratio = sympy.cancel(to_sym(cast(int, b)) / to_sym(cast(int, a)))
    return sympy.fraction(ratio)[1] == 1


def reshape_groups(src: Sequence[object], dst: Sequence[object]) -> list[tuple[list[int], list[int]]] | None:
    """
    Split a reshape into consecutive groups of source and result dims whose size
    products are equal; trailing size-1 dims join the last group. None when the
    sizes have no such common structure.
    """
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    n, m = len(src), len(dst)
    while i < n and j < m:
        gi, gj = [i], [j]
        pa, pb = src[i], dst[j]
        i, j = i + 1, j + 1
        while not _same(pa, pb):
            if i < n and _divides(pa, pb):
                gi.append(i)
                pa = _product([pa, src[i]])
                i += 1
            elif j < m and _divides(pb, pa):
                gj.append(j)
                pb = _product([pb, dst[j]])
                j += 1
            else:
                return None
        groups.append((gi, gj))
    if not groups:
        return None
    for k in range(i, n):
        if src[k] != 1:
            return None
        groups[-1][0].append(k)
    for k in range(j, m):
        if dst[k] != 1:
            return None
        groups[-1][1].append(k)
    return groups


def _add(a: object, b: object) -> object:
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    return sympy.expand(to_sym(cast(int, a)) + to_sym(cast(int, b)))


def _reassociation(groups: Sequence[Sequence[int]]) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in g]) for g in groups])


def _builtin(sizes: Sequence[object], el: Attribute) -> BuiltinTensorType[Attribute]:
    return BuiltinTensorType(el, [s if isinstance(s, int) else DYNAMIC for s in sizes])


def collapse(st: LoweringState, value: SSAValue, groups: Sequence[Sequence[int]], sizes: Sequence[object], el: Attribute) -> SSAValue:
    """`tensor.collapse_shape` to `sizes` (one per group)."""
    op = tensor.CollapseShapeOp.create(
        operands=[value],
        result_types=[_builtin(sizes, el)],
        properties={"reassociation": _reassociation(groups)},
    )
    return st.emit(op)


def expand(st: LoweringState, value: SSAValue, groups: Sequence[Sequence[int]], sizes: Sequence[object], el: Attribute) -> SSAValue:
    """`tensor.expand_shape` to `sizes`, dynamic ones given as index values."""
    static = [s if isinstance(s, int) else DYNAMIC for s in sizes]
    return st.emit(
        tensor.ExpandShapeOp(value, st.dynamic_sizes(sizes), _reassociation(groups), static, _builtin(sizes, el))
    )


def reshape(st: LoweringState, value: SSAValue, src: Sequence[object], dst: Sequence[object], el: Attribute) -> SSAValue:
    """Reshape a contiguous tensor of sizes `src` to sizes `dst`."""
    if len(src) == len(dst) and all(_same(a, b) for a, b in zip(src, dst)):
        return value
    groups = reshape_groups(src, dst)
    if groups is None or not groups:
        # No common structure (or a rank-0 side): through a 1-D tensor.
        flat = [_product(src)]
        if src:
            value = collapse(st, value, [list(range(len(src)))], flat, el)
        else:
            value = expand(st, value, [], [1], el)
            flat = [1]
        if dst:
            return expand(st, value, [list(range(len(dst)))], dst, el)
        return collapse(st, value, [], [], el)
    middle = [_product([src[i] for i in gi]) for gi, _ in groups]
    if any(len(gi) > 1 for gi, _ in groups):
        value = collapse(st, value, [gi for gi, _ in groups], middle, el)
    if any(len(gj) > 1 for _, gj in groups):
        value = expand(st, value, [gj for _, gj in groups], dst, el)
    return value


@lowers("aten.view.default", "aten._unsafe_view.default", "aten.reshape.default", "aten.view_copy.default", "aten._reshape_alias.default")
def _view(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    out = _result(op)
    return [reshape(st, st.tensor(x), _t(x).sizes, out.sizes, element_type(out.element_dtype))]


@lowers(
    "aten.unsqueeze.default", "aten.squeeze.dims", "aten.squeeze.dim", "aten.squeeze.default",
    "aten.flatten.using_ints", "aten.unflatten.int", "aten.unsqueeze_copy.default", "aten.squeeze_copy.dims",
)  # fmt: skip
def _squeeze_like(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    return list(_view(st, op, b))


@lowers("aten.permute.default", "aten.permute_copy.default")
def _permute(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    rank = _t(x).rank
    perm = [d % rank if rank else 0 for d in cast(list[int], b["dims"])]
    return [transpose(st, st.tensor(x), perm, _result(op))]


def transpose(st: LoweringState, value: SSAValue, perm: Sequence[int], out: TensorType) -> SSAValue:
    if list(perm) == list(range(len(perm))):
        return value
    init = st.empty(out)
    op = linalg.TransposeOp(value, init, DenseArrayBase.from_list(i64, list(perm)))
    st.insert(op)
    return op.results[0]


@lowers("aten.transpose.int", "aten.transpose_copy.int")
def _transpose(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    rank = _t(x).rank
    perm = list(range(rank))
    if rank:
        d0, d1 = cast(int, b["dim0"]) % rank, cast(int, b["dim1"]) % rank
        perm[d0], perm[d1] = perm[d1], perm[d0]
    return [transpose(st, st.tensor(x), perm, _result(op))]


@lowers("aten.t.default", "aten.t_copy.default", "aten.numpy_T.default")
def _t_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    perm = list(reversed(range(_t(x).rank)))
    return [transpose(st, st.tensor(x), perm, _result(op))]


@lowers("aten.expand.default", "aten.expand_copy.default", "aten.broadcast_to.default", "aten.expand_as.default")
def _expand(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    out = _result(op)
    xt = _t(x)
    if len(xt.sizes) == len(out.sizes) and all(_same(a, c) for a, c in zip(xt.sizes, out.sizes)):
        return [st.tensor(x)]
    rank = out.rank
    return st.generic(
        [(st.tensor(x), broadcast_map(xt.sizes, out.sizes))],
        [(st.empty(out), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: [args[0]],
    )


# -- slicing -------------------------------------------------------------------


def wrap_index(st: LoweringState, value: object, size: object, clamp: bool) -> SSAValue:
    """An index value for a start/end/index argument: negatives count from the end."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 0:
            if isinstance(size, int):
                v = value + size
                return st.index(max(v, 0) if clamp else v)
            return st.index(to_sym(cast(SymSize, size)) + value)
        if clamp and isinstance(size, int):
            return st.index(min(value, size))
        if clamp and value >= 2**62:
            return st.index(size)
        if clamp:
            return st.emit(arith.MinSIOp(st.index(value), st.index(size)))
        return st.index(value)
    lowered = st.lowered(value)
    if not isinstance(lowered, SSAValue):
        raise st.error(f"a slice bound {value!r} is not an integer")
    return lowered


@lowers("aten.slice.Tensor", "aten.slice_copy.Tensor")
def _slice(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    dim = cast(int, b["dim"]) % rank
    start = b.get("start")
    step = cast(int, b.get("step") or 1)
    start_v = wrap_index(st, 0 if start is None else start, xt.sizes[dim], clamp=True)
    offsets: list[SSAValue | int] = [0] * rank
    sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in out.sizes]
    strides: list[SSAValue | int] = [1] * rank
    offsets[dim] = start_v
    strides[dim] = step
    op_ = tensor.ExtractSliceOp(st.tensor(x), offsets, sizes, strides, tensor_type(out))
    return [st.emit(op_)]


@lowers("aten.select.int", "aten.select_copy.int")
def _select(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    dim = cast(int, b["dim"]) % rank
    index = b["index"]
    if isinstance(index, int) and index < 0 and not isinstance(xt.sizes[dim], int):
        idx = st.index(to_sym(xt.sizes[dim]) + index)
    else:
        idx = wrap_index(st, index, xt.sizes[dim], clamp=False)
    offsets: list[SSAValue | int] = [0] * rank
    offsets[dim] = idx
    sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in xt.sizes]
    sizes[dim] = 1
    op_ = tensor.ExtractSliceOp(st.tensor(x), offsets, sizes, [1] * rank, tensor_type(out))
    return [st.emit(op_)]


def _split(st: LoweringState, x: object, dim: int, pieces: Sequence[object], outs: Sequence[TensorType]) -> list[SSAValue]:
    xt = _t(x)
    rank = xt.rank
    values: list[SSAValue] = []
    offset: object = 0
    for size, out in zip(pieces, outs):
        offsets: list[SSAValue | int] = [0] * rank
        offsets[dim] = offset if isinstance(offset, int) else st.index(offset)
        sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in out.sizes]
        values.append(st.emit(tensor.ExtractSliceOp(st.tensor(x), offsets, sizes, [1] * rank, tensor_type(out))))
        offset = _add(offset, size)
    return values


@lowers("aten.split_with_sizes.default", "aten.split_with_sizes_copy.default", "aten.split.Tensor", "aten.split_copy.Tensor")
def _split_rule(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt = _t(x)
    rank = xt.rank
    dim = cast(int, b.get("dim", 0)) % rank
    total = xt.sizes[dim]
    if "split_sizes" in b:
        pieces = list(cast(list[object], b["split_sizes"]))
    else:
        size = cast(int, b["split_size"])
        if not isinstance(total, int):
            raise st.error("split of a symbolic dimension by a fixed size")
        pieces = [min(size, total - k) for k in range(0, total, size)] or [0]
    outs: list[TensorType] = []
    for p in pieces:
        sizes: list[object] = list(xt.sizes)
        sizes[dim] = p
        outs.append(sized(sizes, xt.element_dtype))
    return [cast(SSAValue, _split(st, x, dim, pieces, outs))]


@lowers("aten.unbind.int", "aten.unbind_copy.int")
def _unbind(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt = _t(x)
    rank = xt.rank
    dim = cast(int, b.get("dim", 0)) % rank
    n = xt.sizes[dim]
    if not isinstance(n, int):
        raise st.error("unbind of a symbolic dimension")
    out_sizes = [s for k, s in enumerate(xt.sizes) if k != dim]
    values: list[SSAValue] = []
    for i in range(n):
        offsets: list[SSAValue | int] = [0] * rank
        offsets[dim] = i
        sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in xt.sizes]
        sizes[dim] = 1
        out = sized(out_sizes, xt.element_dtype)
        values.append(st.emit(tensor.ExtractSliceOp(st.tensor(x), offsets, sizes, [1] * rank, tensor_type(out))))
    return [cast(SSAValue, values)]


@lowers("aten.cat.default", "aten.concat.default")
def _cat(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    out = _result(op)
    rank = out.rank
    dim = cast(int, b.get("dim", 0)) % rank
    acc = st.empty(out)
    offset: object = 0
    for x in cast(list[object], b["tensors"]):
        xt = _t(x)
        if xt.rank == 1 and xt.sizes[0] == 0 and rank != 1:
            continue  # torch skips legacy empty [0] tensors in cat
        value = st.convert(st.tensor(x), xt, out.element_dtype)
        offsets: list[SSAValue | int] = [0] * rank
        offsets[dim] = offset if isinstance(offset, int) else st.index(offset)
        sizes: list[SSAValue | int] = [s if isinstance(s, int) else st.index(s) for s in xt.sizes]
        acc = st.insert_slice(value, acc, offsets, sizes)
        size = xt.sizes[dim]
        offset = _add(offset, size)
    return [acc]


@lowers("aten.flip.default")
def _flip(st: LoweringState, op: AtenOp, b: Bound) -> list[SSAValue]:
    x = b["self"]
    xt, out = _t(x), _result(op)
    rank = xt.rank
    dims = {d % rank for d in cast(list[int], b["dims"])}
    if any(not isinstance(xt.sizes[d], int) for d in dims):
        raise st.error("flip of a symbolic dimension")
    exprs = [
        AffineExpr.constant(cast(int, xt.sizes[d]) - 1) - AffineExpr.dimension(d) if d in dims else AffineExpr.dimension(d)
        for d in range(rank)
    ]
    return st.generic(
        [(st.tensor(x), AffineMap(rank, 0, tuple(exprs)))],
        [(st.empty(out), identity_map(rank))],
        [PARALLEL] * rank,
        lambda args: [args[0]],
    )
