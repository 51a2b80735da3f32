"""
Import live TorchScript objects (needs the `torch` extra; nothing else in the
core imports torch).

`import_script_module(obj)` takes a `torch.jit.ScriptModule` (scripted or
traced) or a `torch.jit.ScriptFunction`:

* a module becomes `ts.module @<name> class "<qualified class name>"`; its
  parameters and buffers become `ts.slot parameter/buffer` typed with their
  full tensor type (`Float(2, 3, strides=[3, 1], requires_grad=1,
  device=cpu)`) and holding their data (`#ts.tensor_value`, little-endian
  contiguous bytes, bfloat16 as its 16-bit patterns); its other attributes
  become `ts.slot attribute` (ints, floats, bools, strings, None, tensors, and
  lists and tuples of them; anything else is refused); each submodule is a
  nested `ts.module` named by its attribute; each method is a `ts.method`
  with its FunctionSchema as `schema`, whose graph is read from
  `str(method.graph)` by the dump frontend (one reader for dumps and live
  objects, so the two cannot disagree);
* a function becomes a top-level `ts.method @<name>` with its schema.

Nothing is pickled or serialized: the data is read from the tensors.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

try:
    import torch
except ModuleNotFoundError as e:  # the optional extra: say which one, not a bare "No module named 'torch'"
    raise ModuleNotFoundError(
        "xdsl_exir.frontends.torchscript_live imports live torch objects and needs torch: pip install 'xdsl-exir[torch]'",
        name=e.name,
    ) from None
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NoneAttr,
    StringAttr,
    f64,
    i1,
    i64,
)
from xdsl.ir import Attribute, Region
from xdsl.utils.exceptions import VerifyException

from xdsl_exir.dialects import ts
from xdsl_exir.dialects.exir import DType
from xdsl_exir.frontends.torch_compat import (
    infer_script_type,
    script_module_attributes,
    script_module_concrete_type,
    script_module_methods,
    script_module_type_name,
)
from xdsl_exir.frontends.torchscript_dump_reader import TorchScriptParseError, parse_torchscript

__all__ = ["TorchScriptImportError", "import_script_module", "tensor_type_of", "tensor_value_of"]


class TorchScriptImportError(ValueError):
    """A TorchScript object this importer cannot represent."""


def import_script_module(obj: Any) -> ModuleOp:
    """A `ScriptModule` as a `ts.module`, a `ScriptFunction` as a `ts.method`, in a builtin module."""
    if isinstance(obj, torch.jit.ScriptFunction):
        # torch's stub declares ScriptFunction.name and .schema methods; both are properties at run time.
        name: str = obj.name  # pyright: ignore[reportAssignmentType] - a str property at run time, a method in the stub
        op: ts.ScriptModuleOp | ts.MethodOp = _method(name, str(obj.graph), str(obj.schema))
    elif isinstance(obj, torch.jit.ScriptModule):
        op = _module(obj, obj.original_name)
    else:
        raise TorchScriptImportError(
            f"expected a torch.jit.ScriptModule or ScriptFunction, got {type(obj).__name__}"
        )
    module = ModuleOp([op])
    try:
        module.verify()
    except VerifyException as e:
        raise TorchScriptImportError(f"the imported program does not verify: {e}") from e
    return module


# ---------------------------------------------------------------------------
# Tensors
# ---------------------------------------------------------------------------


def _scalar_name(dtype: torch.dtype) -> str:
    try:
        return ts.SCALAR_TYPE_OF[DType(str(dtype).removeprefix("torch."))]
    except (KeyError, ValueError):
        raise TorchScriptImportError(f"tensors of dtype {dtype} have no TorchScript scalar type here") from None


def tensor_type_of(t: torch.Tensor) -> ts.TSTensorType:
    """The complete type TorchScript gives a tensor value: `Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)`."""
    strides = list(t.stride()) if t.dim() else None  # torch has no strides to show for a 0-d tensor
    return ts.TSTensorType(_scalar_name(t.dtype), list(t.shape), strides, t.requires_grad, str(t.device))


def tensor_value_of(t: torch.Tensor) -> ts.TensorValueAttr:
    """A tensor's data: contiguous little-endian bytes (bfloat16 as its bit patterns)."""
    if t.is_quantized or t.is_sparse or t.layout != torch.strided:
        raise TorchScriptImportError(f"cannot import the data of a {t.layout} / quantized tensor")
    data = t.detach().cpu().contiguous()
    raw = data.reshape(-1).view(torch.uint8).numpy().tobytes() if data.numel() else b""
    if sys.byteorder == "big" and data.element_size() > 1:
        width = data.element_size()
        raw = np.frombuffer(raw, dtype=f">u{width}").astype(f"<u{width}").tobytes()
    return ts.TensorValueAttr(_scalar_name(t.dtype), list(t.shape), raw)


# ---------------------------------------------------------------------------
# Modules
# ---------------------------------------------------------------------------


def _module(m: torch.jit.ScriptModule, name: str) -> ts.ScriptModuleOp:
    qualname = script_module_type_name(m)
    op = ts.ScriptModuleOp(name, qualname)
    body = op.body.block
    params = dict(m.named_parameters(recurse=False))
    buffers = dict(m.named_buffers(recurse=False))
    children = dict(m.named_children())
    declared = _declared_types(m)
    members = script_module_attributes(m)
    for attr, value in members:
        if attr in children:
            continue
        if attr in params or attr in buffers:
            tensor = params[attr] if attr in params else buffers[attr]
            if tensor is None:  # an unset Optional[Tensor] parameter or buffer
                body.add_op(ts.SlotOp(attr, "attribute", ts.TSOptionalType(ts.TSTensorType())))
                continue
            kind = "parameter" if attr in params else "buffer"
            body.add_op(ts.SlotOp(attr, kind, tensor_type_of(tensor), tensor_value_of(tensor)))
            continue
        body.add_op(_attribute_slot(qualname, attr, value, declared.get(attr)))
    for child_name, child in children.items():
        if not isinstance(child, torch.jit.ScriptModule):
            raise TorchScriptImportError(f"submodule '{child_name}' of {qualname} is not a ScriptModule")
        body.add_op(_module(child, child_name))
    for method_name, method in script_module_methods(m):
        body.add_op(_method(method_name, str(method.graph), str(method.schema), f"{qualname}.{method_name}"))
    return op


def _declared_types(m: torch.jit.ScriptModule) -> dict[str, Attribute]:
    """Attribute name -> declared TorchScript type, where the module's concrete type records it."""
    out: dict[str, Attribute] = {}
    concrete = script_module_concrete_type(m)
    if concrete is None:
        return out
    for attr, (jit_type, _is_param) in concrete.get_attributes().items():
        try:
            out[attr] = ts.parse_ts_type(jit_type.str())
        except (ts.TSTypeError, ValueError):
            continue
    return out


def _attribute_slot(qualname: str, attr: str, value: Any, declared: Attribute | None) -> ts.SlotOp:
    if isinstance(value, torch.Tensor):
        return ts.SlotOp(attr, "attribute", tensor_type_of(value), tensor_value_of(value))
    slot_type = declared if declared is not None else _type_of_value(qualname, attr, value)
    encoded = _encode(qualname, attr, value)
    return ts.SlotOp(attr, "attribute", slot_type, None if value is None else encoded)


def _type_of_value(qualname: str, attr: str, value: Any) -> Attribute:
    inferred = infer_script_type(value)  # the type torch.jit.script itself infers for a module attribute
    if not inferred.success():
        raise TorchScriptImportError(f"attribute '{attr}' of {qualname}: {inferred.reason()}")
    jit_type = inferred.type()
    if not isinstance(jit_type, torch.Type):  # every JIT type is one; the stub types the result as its base
        raise TorchScriptImportError(f"attribute '{attr}' of {qualname} has no TorchScript type")
    try:
        return ts.parse_ts_type(jit_type.str())
    except ts.TSTypeError as e:
        raise TorchScriptImportError(f"attribute '{attr}' of {qualname} has a type this importer cannot read: {e}") from e


def _encode(qualname: str, attr: str, value: Any) -> Attribute:
    """An attribute value as a builtin attribute (the `ts.slot` encoding)."""
    if value is None:
        return NoneAttr()
    if isinstance(value, bool):
        return IntegerAttr(int(value), i1)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, torch.Tensor):
        return tensor_value_of(value)
    if isinstance(value, list | tuple):
        return ArrayAttr([_encode(qualname, attr, v) for v in value])
    raise TorchScriptImportError(
        f"attribute '{attr}' of {qualname} holds a {type(value).__name__}; ts.slot holds ints, floats, bools, "
        "strings, None, tensors and lists and tuples of them"
    )


def _method(name: str, graph_text: str, schema: str, where: str | None = None) -> ts.MethodOp:
    where = where or name
    try:
        parsed = parse_torchscript(graph_text, f"<{where}>")
    except TorchScriptParseError as e:
        raise TorchScriptImportError(f"the graph of {where} does not read back: {e}") from e
    (graph,) = parsed.body.block.ops
    assert isinstance(graph, ts.MethodOp)
    method = ts.MethodOp(name, Region(), schema)
    graph.body.move_blocks(method.body)
    return method
