"""Decompositions of indexing: `index_add`/`_copy`/`_fill`, `take`, `take_along_dim`, `_index_put_impl`, `argwhere`, `where(cond)`, `one_hot`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import cast

from xdsl.ir import Operation, SSAValue

from xdsl_exir.dialects.exir import (
    CallFunctionOp,
    DeviceAttr,
    DType,
    GetItemOp,
    Layout,
    TensorType,
)
from xdsl_exir.semantics.decompositions.core import (
    Decline,
    Emitter,
    fill_value_for,
    movedim,
    rule,
    scalar_tensor,
    tensor_of,
)
from xdsl_exir.semantics.inference import Bound
from xdsl_exir.utils.broadcast import broadcast_shapes

# -- indexing along a dim ------------------------------------------------------------------


def _assert_in_range(e: Emitter, index: SSAValue, size: object, message: str) -> None:
    """
    An assertion, checked when the program runs, that every element of `index` is in
    [0, size): torch refuses others where the ops emitted instead would not (index_put
    takes a negative index from the end; one_hot's comparison gives a row of zeros).
    A symbolic size is not asserted.
    """
    if not isinstance(size, int):
        return
    ok = e.v("aten.logical_and.default", e.v("aten.ge.Scalar", index, 0), e.v("aten.lt.Scalar", index, size))
    e.insert(CallFunctionOp("aten._assert_async.msg", [e.v("aten.all.default", ok), message], {}, []))


def _index_along(e: Emitter, b: Bound, values: SSAValue, accumulate: bool) -> SSAValue:
    """`self` with `values` put at `index` along `dim`: the dim moved first, `index_put`, moved back."""
    x = cast(SSAValue, b["self"])
    rank = tensor_of(x).rank
    if rank == 0:
        # a 0-d self is indexed as one element (index 0 or -1), the value broadcast to the index
        put = e.v("aten.index_put.default", e.reshape(x, [1]), [b["index"]], e.reshape(values, [-1]), accumulate)
        return e.reshape(put, [])
    d = b.int("dim") % rank
    front = movedim(e, x, d, 0)
    vt = tensor_of(values)
    if vt.rank == rank:
        values = movedim(e, values, d, 0)
    put = e.v("aten.index_put.default", front, [b["index"]], values, accumulate)
    return movedim(e, put, 0, d)


@rule("aten.index_add.default")
def _index_add(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    source = b.value("source")
    if b.get("alpha", 1) != 1:
        source = e.v("aten.mul.Tensor", source, b["alpha"])
    _assert_dim_index(e, b, "index_add")
    return [_index_along(e, b, source, True)]


def _assert_dim_index(e: Emitter, b: Bound, op: str) -> None:
    t = tensor_of(b["self"])
    d = b.int("dim") % t.rank if t.rank else 0
    size = t.sizes[d] if t.rank else 1
    _assert_in_range(e, b.value("index"), size, f"{op}: an index is out of range for dimension {d} of size {size}")


@rule("aten.index_copy.default")
def _index_copy(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    _assert_dim_index(e, b, "index_copy")
    return [_index_along(e, b, b.value("source"), False)]


@rule("aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor")
def _index_fill(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    t = tensor_of(b["self"])
    value = b["value"]
    if not isinstance(value, SSAValue):
        value = scalar_tensor(e, fill_value_for(t.element_dtype, value), t)
    elif tensor_of(value).element_dtype != t.element_dtype:
        value = e.v("aten._to_copy.default", value, dtype=t.element_dtype)
    return [_index_along(e, b, value, False)]


@rule("aten.take.default")
def _take(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x = b.value("self")
    flat = e.reshape(x, [tensor_of(x).numel()])
    return [e.v("aten.index.Tensor", flat, [b["index"]])]


@rule("aten.take_along_dim.default")
def _take_along_dim(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    x, idx = b.value("self"), b.value("indices")
    if b.get("dim") is None:
        flat = e.reshape(x, [tensor_of(x).numel()])
        return [e.v("aten.gather.default", flat, 0, e.reshape(idx, [tensor_of(idx).numel()]))]
    tx, ti = tensor_of(x), tensor_of(idx)
    if tx.rank != ti.rank:
        raise Decline()
    d = b.int("dim") % tx.rank
    # Every dim but `dim` broadcasts (torch's take_along_dim); along `dim` each keeps its own.
    shape = broadcast_shapes([1 if i == d else s for i, s in enumerate(tx.sizes)], [1 if i == d else s for i, s in enumerate(ti.sizes)])
    xs = [tx.sizes[d] if i == d else s for i, s in enumerate(shape)]
    ids = [ti.sizes[d] if i == d else s for i, s in enumerate(shape)]
    if list(tx.sizes) != xs:
        x = e.v("aten.expand.default", x, e.sizes(xs))
    if list(ti.sizes) != ids:
        idx = e.v("aten.expand.default", idx, e.sizes(ids))
    return [e.v("aten.gather.default", x, d, idx)]


@rule("aten._index_put_impl.default")
def _index_put_impl(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    return [e.v("aten.index_put.default", b["self"], b["indices"], b["values"], b["accumulate"])]


@rule("aten.argwhere.default")
def _argwhere(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    """`nonzero`, typed as the graph recorded `argwhere` (its data-dependent size keeps the
    program's symbol)."""
    nz = e.v("aten.nonzero.default", b["self"])
    old = op.results[0].type
    if nz.type == old or not isinstance(old, TensorType):
        return [nz]
    # only the symbol's name is taken from the graph: a placeholder result type (the interpreter's
    # one-op graphs, TorchScript) must not turn nonzero's int64 indices into another dtype
    mine = tensor_of(nz)
    if old.element_dtype is not mine.element_dtype or old.rank != mine.rank:
        return [nz]
    return [e.rewriter.replace_value_with_new_type(nz, old)]


@rule("aten.one_hot.default")
def _one_hot(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue]:
    n = b.int("num_classes")
    if n < 0:
        raise Decline()  # the class count read from the data is a data-dependent size
    x = b.value("self")
    _assert_in_range(e, x, n, f"one_hot: a class value is out of range for {n} classes")
    classes = e.v("aten.arange.start_step", 0, n, layout=Layout.strided, device=DeviceAttr(tensor_of(x).device.data),
                  pin_memory=False)
    hit = e.v("aten.eq.Tensor", e.v("aten.unsqueeze.default", x, -1), classes)
    return [e.v("aten._to_copy.default", hit, dtype=DType.int64)]


@rule("aten.where.default", "aten.nonzero_numpy.default")
def _where_nonzero(e: Emitter, b: Bound, op: Operation) -> Sequence[SSAValue | None]:
    """`torch.where(cond)` and `nonzero(as_tuple=True)` (`nonzero_numpy`) are `nonzero(cond)` split
    into its columns (`select` of each); as with `unbind`, the columns replace the `getitem`s of the
    list. A 0-d condition is read as a 1-element one, as torch's `nonzero_numpy` does."""
    cond = b.value("condition" if "condition" in b else "self")
    rank = tensor_of(cond).rank
    result = op.results[0]
    users = [use.operation for use in result.uses]
    if not all(isinstance(u, GetItemOp) for u in users):
        raise Decline()
    if rank == 0:
        cond, rank = e.v("aten.unsqueeze.default", cond, 0), 1
    nz = e.v("aten.nonzero.default", cond)
    # the count keeps the program's symbol (the one its getitems and range constraints name)
    named = [u.results[0].type for u in users]
    mine = tensor_of(nz)
    if named and isinstance(named[0], TensorType) and named[0].rank == 1:
        nz = e.rewriter.replace_value_with_new_type(nz, TensorType([named[0].sizes[0], rank], mine.element_dtype, mine.device))
    cols: dict[int, SSAValue] = {}
    for user in cast(list[GetItemOp], users):
        i = user.index.data % rank
        if i not in cols:
            cols[i] = e.v("aten.select.int", nz, 1, i)
        e.rewriter.replace(user, [], [cols[i]])
    return [None]  # every column has been read out: the list has no uses left
