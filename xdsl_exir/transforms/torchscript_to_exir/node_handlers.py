"""Node kinds the generic path cannot lower from a schema: size and metadata
queries answered from the known types, scalar/tensor conversions, `tensor`
literals, `is`, futures, `batch_norm` in training mode (its running statistics
written out as buffer updates), `torch.no_grad()` objects, container builtins.
A handler returns `NotImplemented` to decline.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, cast

import numpy as np
from xdsl.ir import SSAValue

from xdsl_exir.dialects import ts
from xdsl_exir.dialects.exir import DType, SymSizeOp, TensorType
from xdsl_exir.transforms.torchscript_to_exir.values import (
    GRAD_MODE_CLASSES,
    LV,
    Device,
    Future,
    GradMode,
    SymScalar,
    TensorRef,
    TensorScalar,
    TSList,
    dtype_code_of,
    getitem,
)
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.dtypes import numpy_dtype
from xdsl_exir.utils.function_schema import FunctionSchema, SchemaType, TypeKind

if TYPE_CHECKING:
    from xdsl_exir.transforms.torchscript_to_exir.nodes import NodeLowering


# Special node kinds
# ---------------------------------------------------------------------------


def walk_values(value: object) -> Iterator[object]:
    if isinstance(value, list | tuple):
        for v in cast(Sequence[object], value):
            yield from walk_values(v)
    elif isinstance(value, dict):
        for v in cast(dict[object, object], value).values():
            yield from walk_values(v)
    else:
        yield value


def is_tensor_type(st: SchemaType) -> bool:
    st = st.unwrap_optional()
    return st.kind is TypeKind.BASE and st.name == "Tensor"


def mentions_tensor(schema: FunctionSchema) -> bool:
    def has(st: SchemaType) -> bool:
        if st.kind is TypeKind.BASE:
            return st.name == "Tensor"
        return any(has(e) for e in st.elements)

    return any(has(a.type) for a in schema.arguments) or any(has(r.type) for r in schema.returns)


def known_kind(kind: str) -> bool:
    ns, _, name = kind.partition("::")
    prefix = f"{ns}.{name}."
    return any(n.startswith(prefix) for n in op_registry.all_operators())


NodeHandler = Callable[["NodeLowering", ts.NodeOp, list[LV]], object]
"""Lowers a node kind TorchScript gives no schema (or one the generic path cannot use); NotImplemented declines."""


def _tensor_type(low: NodeLowering, v: LV, what: str) -> TensorType:
    return cast(TensorType, low.tensor_arg(v, what).type)


def _size(low: NodeLowering, t: SSAValue, dim: int) -> LV:
    tt = cast(TensorType, t.type)
    if not -tt.rank <= dim < tt.rank:
        raise low.fail(f"dimension {dim} out of range for a tensor of rank {tt.rank}")
    s = tt.sizes[dim % tt.rank]
    if isinstance(s, int):
        return s
    op = SymSizeOp(t, dim % tt.rank)
    low.emit(op)
    return low.sym_result(op.results[0])


def _h_size(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    if not args or not isinstance(args[0], TensorRef):
        return NotImplemented
    t = low.value_of(args[0])
    if len(args) == 1:
        lst = TSList(_size(low, t, d) for d in range(cast(TensorType, t.type).rank))
        lst.depth = low.branch_depth
        return [lst]
    dim = args[1]
    if not isinstance(dim, int):
        raise low.fail(f"aten::size with dimension {low.describe(dim)}")
    return [_size(low, t, dim)]


def _h_dim(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    if not isinstance(args[0], TensorRef):
        return NotImplemented
    return [_tensor_type(low, args[0], "aten::dim").rank]


def _h_numel(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    if not isinstance(args[0], TensorRef):
        return NotImplemented
    n = _tensor_type(low, args[0], "aten::numel").numel()
    if not isinstance(n, int):
        raise low.fail("aten::numel of a tensor with symbolic sizes")
    return [n]


def _h_len(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    if isinstance(args[0], TensorRef):
        return [_size(low, low.value_of(args[0]), 0)]
    return NotImplemented


def _h_dtype(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [dtype_code_of(_tensor_type(low, args[0], "prim::dtype").element_dtype)]


def _h_device(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [Device(_tensor_type(low, args[0], "prim::device").device.data)]


def _h_layout(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [0]


def _h_false(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [False]


def _h_is_cuda(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [_tensor_type(low, args[0], "prim::is_cuda").device.data.startswith("cuda")]


def _h_is_floating_point(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [_tensor_type(low, args[0], op.kind.data).element_dtype.is_floating_point]


def _h_shape(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return _h_size(low, op, args[:1])


def _h_identity(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return args[: len(op.results)]


def _h_to_scalar(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    """`aten::Int(t)`, `aten::item(t)`, `aten::Bool(t)`, ...: a scalar from tensor data."""
    x = args[0] if args else None
    if not isinstance(x, TensorRef):
        return NotImplemented
    kind = op.kind.data.split("::")[1]
    if x.const is not None:
        value = x.const
        conv = {"Int": int, "IntImplicit": int, "Float": float, "FloatImplicit": float, "Bool": bool}.get(kind)
        return [conv(value) if conv else value]
    v = low.value_of(x)
    t = cast(TensorType, v.type)
    if isinstance(t.numel(), int) and t.numel() != 1:
        raise low.fail(f"{op.kind.data} of a tensor of sizes {list(t.sizes)}; it needs one element")
    natural = "bool" if t.element_dtype == DType.bool else ("float" if t.element_dtype.is_floating_point else "int")
    target = {"Int": "int", "IntImplicit": "int", "Float": "float", "FloatImplicit": "float", "Bool": "bool"}.get(
        kind, natural
    )
    return [low.convert_scalar(TensorScalar(v, natural), target)]


def _h_num_to_tensor(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    x = args[0]
    if isinstance(x, TensorScalar):
        v = x.value
        if cast(TensorType, v.type).rank:
            v = low.aten("aten.view.default", v, [])
        return [low.new_tensor(v)]
    if isinstance(x, SymScalar):
        raise low.fail("prim::NumToTensor of a symbolic size has no Export IR lowering")
    if not isinstance(x, int | float | bool):
        raise low.fail(f"prim::NumToTensor of {low.describe(x)}")
    dtype = DType.bool if isinstance(x, bool) else (DType.int64 if isinstance(x, int) else DType.float64)
    ref = low.new_tensor(low.aten("aten.scalar_tensor.default", x, dtype=dtype))
    ref.const = x
    return [ref]


def _h_tensor(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    """`aten::tensor(data, dtype, device, requires_grad)` with known data."""
    data = args[0]
    if isinstance(data, TensorRef | TensorScalar | SymScalar):
        return NotImplemented
    flat = list(walk_values(data))
    if any(not isinstance(v, int | float | bool) for v in flat):
        raise low.fail("aten::tensor of data that is not known while lowering")
    dtype_code = args[1] if len(args) > 1 else None
    if isinstance(dtype_code, int) and not isinstance(dtype_code, bool):
        dtype = cast(DType, ts.DTYPE_CODES[dtype_code])
    elif flat and all(isinstance(v, bool) for v in flat):
        dtype = DType.bool
    elif flat and all(isinstance(v, int) for v in flat):
        dtype = DType.int64
    else:
        dtype = DType.float32
    if not isinstance(data, list | tuple):
        ref = low.new_tensor(low.aten("aten.scalar_tensor.default", data, dtype=dtype))
        ref.const = cast(int | float | bool, data)
        return [ref]
    array = np.asarray(_plain(data), dtype=numpy_dtype(dtype))
    value = ts.TensorValueAttr.from_array(array, ts.SCALAR_TYPE_OF[dtype])
    return [low.lift_constant(value, None)]


def _plain(value: object) -> object:
    if isinstance(value, list | tuple):
        return [_plain(v) for v in cast(Sequence[object], value)]
    return value


def _h_is(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    a, b = args
    same = (a is None and b is None) if (a is None or b is None) else a is b
    return [same if op.kind.data == "aten::__is__" else not same]


def _h_wait(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    fut = args[0]
    if not isinstance(fut, Future):
        raise low.fail(f"aten::wait of {low.describe(fut)}")
    return list(fut.values) if len(op.results) == len(fut.values) else [tuple(fut.values)]


def _h_convolution(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    """`aten::_convolution` (what traces record) is `aten::convolution` plus backend flags."""
    if len(args) < 9:
        return NotImplemented
    resolved = low.resolve("aten::convolution", [v.type for v in op.operands[:9]], args[:9])
    return low.lower_tensor_op(op, resolved, args[:9])


def _h_requires_grad_check(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    """The profiling executor's guard on requires_grad: Export IR has no autograd, both paths compute the same."""
    return [*args, True]


def _h_create_object(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    t = op.results[0].type if op.results else None
    name = t.qualname.data if isinstance(t, ts.TSClassType) else ts.ts_type_str(t) if t else "?"
    if name in GRAD_MODE_CLASSES:
        return [GradMode(name)]
    raise low.fail(f"prim::CreateObject makes a {name}; TorchScript class objects have no Export IR lowering")


def _h_batch_norm(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    """
    `aten::batch_norm` in training mode updates the running statistics in
    place, which its schema does not say. Export IR makes that explicit: the
    normalization uses the batch statistics, and the running mean and (unbiased)
    variance become their functional update, written back into the buffers.
    """
    if len(args) != 9:
        return NotImplemented
    x, weight, bias, running_mean, running_var, training, momentum, eps, cudnn = args
    if training is not True or not isinstance(running_mean, TensorRef) or not isinstance(running_var, TensorRef):
        return NotImplemented
    if not isinstance(momentum, float) or not isinstance(eps, float) or not isinstance(x, TensorRef):
        raise low.fail("aten::batch_norm in training mode needs known momentum and eps")
    xv = low.value_of(x)
    rank = cast(TensorType, xv.type).rank
    dims = [0, *range(2, rank)]
    resolved = low.resolve(op.kind.data, [v.type for v in op.operands], [x, weight, bias, None, None, *args[5:]])
    (out,) = low.lower_tensor_op(op, resolved, [x, weight, bias, None, None, *args[5:]])
    mean = low.aten("aten.mean.dim", xv, dims)
    var = low.aten("aten.var.correction", xv, dims, correction=1)
    for stat, batch in ((running_mean, mean), (running_var, var)):
        current = low.value_of(stat)
        if cast(TensorType, batch.type).element_dtype != cast(TensorType, current.type).element_dtype:
            batch = low.aten("aten._to_copy.default", batch, dtype=cast(TensorType, current.type).element_dtype)
        scaled = low.aten("aten.mul.Scalar", current, 1.0 - momentum)
        low.write(stat, low.aten("aten.add.Tensor", scaled, batch, alpha=momentum))
    return [out]


def _h_unchecked_cast(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    return [args[0]]


def _h_container(low: NodeLowering, op: ts.NodeOp, args: list[LV]) -> object:
    """Dict and list builtins whose overloads need no schema matching."""
    name = op.kind.data.split("::")[1]
    c = args[0] if args else None
    if isinstance(c, dict):
        d = cast(dict[object, object], c)
        if name == "keys":
            return [TSList(d.keys())]
        if name == "values":
            return [TSList(d.values())]
        if name == "items":
            return [TSList(d.items())]
        if name == "__getitem__":
            return [getitem(d, low.hashable(args[1]))]
        if name == "get":
            return [d.get(low.hashable(args[1]), args[2] if len(args) > 2 else None)]
        if name == "len":
            return [len(d)]
        if name == "__contains__":
            return [low.hashable(args[1]) in d]
        if name == "_set_item":
            low.check_writable(d)
            d[low.hashable(args[1])] = args[2]
            return [None] * len(op.results)
        if name == "dict":
            return [dict(d)]
    if isinstance(c, TSList | tuple) and name == "__getitem__" and isinstance(args[1], int):
        return [getitem(c, args[1])]
    if isinstance(c, TSList | tuple) and name in ("len",):
        return [len(cast(Sequence[object], c))]
    if isinstance(c, TSList) and name == "list":
        lst = TSList(c)
        lst.depth = low.branch_depth
        return [lst]
    return NotImplemented


NODE_HANDLERS: dict[str, NodeHandler] = {
    "aten::size": _h_size, "aten::sym_size": _h_size, "aten::dim": _h_dim, "aten::numel": _h_numel,
    "aten::len": _h_len, "prim::dtype": _h_dtype, "prim::device": _h_device, "prim::layout": _h_layout,
    "prim::requires_grad": _h_false, "aten::requires_grad": _h_false, "prim::is_cuda": _h_is_cuda,
    "aten::is_floating_point": _h_is_floating_point, "prim::shape": _h_shape, "prim::data": _h_identity,
    "prim::unchecked_cast": _h_unchecked_cast, "prim::CreateObject": _h_create_object,
    "aten::batch_norm": _h_batch_norm,
    "prim::RequiresGradCheck": _h_requires_grad_check, "aten::Int": _h_to_scalar, "aten::Float": _h_to_scalar,
    "aten::Bool": _h_to_scalar, "aten::item": _h_to_scalar, "aten::ScalarImplicit": _h_to_scalar,
    "aten::IntImplicit": _h_to_scalar, "aten::FloatImplicit": _h_to_scalar,
    "prim::NumToTensor": _h_num_to_tensor, "aten::tensor": _h_tensor, "aten::__is__": _h_is,
    "aten::__isnot__": _h_is, "aten::wait": _h_wait, "aten::_convolution": _h_convolution,
    "aten::keys": _h_container, "aten::values": _h_container, "aten::items": _h_container,
    "aten::__getitem__": _h_container, "aten::get": _h_container, "aten::__contains__": _h_container,
    "aten::_set_item": _h_container, "aten::dict": _h_container, "aten::list": _h_container,
}  # fmt: skip


