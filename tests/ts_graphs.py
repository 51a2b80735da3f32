"""
Test support: a live `torch._C.Graph` as `ts`/`prim` IR, built in process.

The interpreter tests compare against torch.jit on graphs torch itself made
(scripted, traced, fused), without going through the text of a dump. Every
node kind with a prim op becomes that op, every other kind a `ts.node`;
subgraph attributes (`FusionGroup`, `fork`, `FallbackGraph`) become regions.
Only the attributes the interpreter reads are carried.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, ModuleOp, StringAttr, i1, i64
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from xdsl_exir.dialects import prim
from xdsl_exir.dialects.ts import (
    DTYPE_CODES,
    SCALAR_TYPE_OF,
    MethodOp,
    NodeOp,
    TensorValueAttr,
    TSDeviceType,
    TSFunctionType,
    parse_ts_type,
)
from xdsl_exir.semantics.kernels import dtype_of
from xdsl_exir.utils.tensor_data import bytes_from_array


def ts_type(t: Any) -> Attribute:
    return parse_ts_type(t.str() if hasattr(t, "str") else str(t))  # str() drops refinements


def constant_attr(value: object) -> Attribute | None:
    if value is None:
        return None
    if isinstance(value, bool):
        return IntegerAttr(int(value), i1)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, 64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, torch.device):
        return StringAttr(str(value))
    if isinstance(value, torch.Tensor):
        a = value.detach().contiguous().numpy()
        dt = dtype_of(a)
        return TensorValueAttr(SCALAR_TYPE_OF[dt], list(a.shape), bytes_from_array(a, dt))
    if isinstance(value, (list, tuple)):
        items = [constant_attr(v) for v in value]
        assert all(i is not None for i in items)
        return ArrayAttr([i for i in items if i is not None])
    raise TypeError(f"constant {value!r}")


class _Builder:
    def __init__(self) -> None:
        self.values: dict[Any, SSAValue] = {}

    def block(self, inputs: Any, nodes: Any, outputs: Any) -> Block:
        block = Block(arg_types=[ts_type(v.type()) for v in inputs])
        for v, arg in zip(inputs, block.args):
            self.values[v] = arg
            arg.name_hint = _hint(v.debugName())
        for n in nodes:
            block.add_op(self.node(n))
        block.add_op(prim.ReturnOp.make([self.values[v] for v in outputs]))
        return block

    def graph_region(self, g: Any) -> Region:
        return Region(self.block(list(g.inputs()), g.nodes(), list(g.outputs())))

    def node(self, n: Any) -> Operation:
        kind = n.kind()
        operands = [self.values[v] for v in n.inputs()]
        result_types = [ts_type(v.type()) for v in n.outputs()]
        props: dict[str, Attribute | None] = {}
        regions: list[Region] = []
        op_class = prim.OP_OF_KIND.get(kind)
        if kind == "prim::Constant":
            if n.hasAttribute("name"):
                props["name"] = StringAttr(n.s("name"))
                result_types = [TSFunctionType(n.s("name"))]
            elif n.attributeNames():
                value = n.t("value") if n.kindOf("value") == "t" else n.output().toIValue()
                props["value"] = constant_attr(value)
                if isinstance(n.output().toIValue(), torch.device):
                    result_types = [TSDeviceType()]
        elif kind in ("prim::GetAttr", "prim::SetAttr", "prim::CallMethod"):
            props["name"] = StringAttr(n.s("name"))
        elif kind == "prim::ConstantChunk":
            props["chunks"] = IntegerAttr(n.i("chunks"), i64)
            props["dim"] = IntegerAttr(n.i("dim"), i64)
        elif kind == "prim::TypeCheck":
            props["types"] = ArrayAttr(result_types[:-1])
        for b in n.blocks():
            regions.append(Region(self.block(list(b.inputs()), b.nodes(), list(b.outputs()))))
        if "Subgraph" in n.attributeNames():
            regions.append(self.graph_region(n.g("Subgraph")))
        if op_class is not None:
            op: Operation = op_class.make(operands, result_types, props, regions)
        else:
            op = NodeOp(kind, operands, result_types, regions=regions)
        for v, r in zip(n.outputs(), op.results):
            self.values[v] = r
            r.name_hint = _hint(v.debugName())
        return op


def _hint(name: str) -> str | None:
    name = name.replace(".", "_")
    return name if name and not name[0].isdigit() else None


def graph_module(graph: Any, name: str = "forward", extra: dict[str, Any] | None = None) -> ModuleOp:
    """A builtin module holding `graph` as `ts.method @name` (and `extra` graphs by name)."""
    methods = [MethodOp(name, _Builder().graph_region(graph))]
    for other, g in (extra or {}).items():
        methods.append(MethodOp(other, _Builder().graph_region(g)))
    module = ModuleOp(methods)
    module.verify()
    return module


def to_numpy(v: Any) -> Any:
    """torch values as the runner's Python-level values."""
    if isinstance(v, torch.Tensor):
        return v.detach().numpy().copy()
    if isinstance(v, (list, tuple)):
        items = [to_numpy(x) for x in v]
        return items if isinstance(v, list) else tuple(items)
    if isinstance(v, dict):
        return {k: to_numpy(x) for k, x in v.items()}
    if isinstance(v, torch.device):
        return str(v)
    if isinstance(v, torch.dtype):  # TorchScript passes dtypes as their ScalarType codes
        return DTYPE_CODES.index(dtype_of(torch.empty(0, dtype=v).numpy()))
    return v


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-5, atol: float = 1e-6) -> None:
    """Our output equals torch's: same structure, same dtypes, values within tolerance."""
    theirs = to_numpy(theirs)
    if isinstance(theirs, (list, tuple)):
        assert isinstance(ours, (list, tuple)), (ours, theirs)
        assert len(ours) == len(theirs), (ours, theirs)
        for a, b in zip(ours, theirs):
            assert_same(a, b, rtol, atol)
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), (ours, theirs)
        for k in theirs:
            assert_same(ours[k], theirs[k], rtol, atol)
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), (ours, theirs)
        assert ours.dtype == theirs.dtype, (ours.dtype, theirs.dtype)
        assert ours.shape == theirs.shape, (ours.shape, theirs.shape)
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol)
    elif isinstance(theirs, float):
        assert type(ours) is float, (ours, theirs)
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=0)
    else:
        assert type(ours) is type(theirs) and ours == theirs, (ours, theirs)


def module_op(m: Any, attributes: dict[str, Sequence[str]] | None = None, path: str = "") -> Any:
    """
    A scripted module as a `ts.module`: parameters and buffers with their
    data, the non-tensor attributes listed in `attributes` (per dotted path,
    "" for the root), submodules, and every method's graph.
    """
    from xdsl_exir.dialects.ts import ScriptModuleOp, SlotOp

    class_name = m._c._type().qualified_name()
    op = ScriptModuleOp(path.rsplit(".", 1)[-1] or "main", class_name)
    body = op.body.block
    for name, p in m.named_parameters(recurse=False):
        body.add_op(SlotOp(name, "parameter", ts_type(torch._C.TensorType.create_from_tensor(p)), constant_attr(p)))
    for name, b in m.named_buffers(recurse=False):
        body.add_op(SlotOp(name, "buffer", ts_type(torch._C.TensorType.create_from_tensor(b)), constant_attr(b)))
    for name in (attributes or {}).get(path, ()):
        value = getattr(m, name)
        body.add_op(SlotOp(name, "attribute", parse_ts_type(_python_type(value)), constant_attr(value)))
    for name, child in m.named_children():
        body.add_op(module_op(child, attributes, f"{path}.{name}" if path else name))
    for name in m._c._method_names():
        body.add_op(MethodOp(name, _Builder().graph_region(m._c._get_method(name).graph)))
    return op


def _python_type(value: object) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "str"
    if isinstance(value, list) and value:
        return f"{_python_type(value[0])}[]"
    raise TypeError(f"attribute {value!r}")


def script_module(m: Any, attributes: dict[str, Sequence[str]] | None = None) -> ModuleOp:
    """A builtin module holding one scripted module as a `ts.module` (see `module_op`)."""
    module = ModuleOp([module_op(m, attributes)])
    module.verify()
    return module
