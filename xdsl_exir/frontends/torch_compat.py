"""
Every use the package makes of torch's private API, in one place.

The live importers and the `torch.compile` backend need a few things torch
keeps private: the classes of an operator overload, an overload packet and a
higher-order operator (exported only from `torch._ops`), the name torch.fx
prints a call target with, a scripted module's attribute slots, its type name
and its methods, the type TorchScript infers for a Python value, the module
call graph of an `ExportedProgram`, and AOTAutograd's backend factory with the
decomposition table, fake-mode switch, compiler mark and static inputs the backend uses.
(`torch.utils._pytree`, torch's one pytree module, is imported where it is used.) Each function below names the upstream
change that would let it go; when torch is upgraded, this is the one module to
check. torch is imported inside the functions: importing this module never
needs the optional extra.
"""

# The package's one gateway to torch's private API (see the docstring), so the rule is off here only:
# pyright: reportPrivateUsage=false

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from torch.export import ExportedProgram
    from torch.export.exported_program import ModuleCallEntry

__all__ = [
    "aot_autograd",
    "core_aten_decompositions",
    "fx_qualified_name",
    "infer_script_type",
    "is_higher_order_operator",
    "is_op_overload",
    "mark_wrapped_backward_compiler",
    "overload_name",
    "packet_name",
    "script_module_attributes",
    "script_module_concrete_type",
    "script_module_methods",
    "script_module_type_name",
    "static_input_indices",
    "unset_fake_temporarily",
    "with_module_call_graph",
]


# --- operators ---------------------------------------------------------------


def is_op_overload(target: object) -> bool:
    """
    Whether `target` is an operator overload (`torch.ops.aten.add.Tensor`).
    Upstream: `OpOverload` exported from a public module (`torch.ops`).
    """
    import torch._ops

    return isinstance(target, torch._ops.OpOverload)


def overload_name(target: object) -> str | None:
    """`aten.add.Tensor` for an operator overload, None for anything else; the text is the overload's own `str`."""
    return str(target) if is_op_overload(target) else None


def packet_name(target: object) -> str | None:
    """
    `aten.add` for an overload packet (`torch.ops.aten.add`), None for anything
    else; the text is the packet's own `str`.
    Upstream: `OpOverloadPacket` exported from a public module.
    """
    import torch._ops

    return str(target) if isinstance(target, torch._ops.OpOverloadPacket) else None


def is_higher_order_operator(target: object) -> bool:
    """
    Whether `target` is a higher-order operator (cond, while_loop, map), whose
    subgraphs are attributes of the graph module.
    Upstream: `HigherOrderOperator` exported from a public module.
    """
    import torch._ops

    return isinstance(target, torch._ops.HigherOrderOperator)


def fx_qualified_name(target: Callable[..., Any]) -> str:
    """
    The name torch.fx prints a call target with (`_operator.add`, `torch.relu`).
    Upstream: `torch.fx.node._get_qualified_name` made public.
    """
    from torch.fx.node import _get_qualified_name

    return _get_qualified_name(target)


# --- TorchScript modules ---------------------------------------------------------


def script_module_type_name(module: torch.jit.ScriptModule) -> str:
    """
    The qualified name of a scripted module's class type (`__torch__.Net`).
    Upstream: a public accessor of the module's JIT type on `ScriptModule`.
    """
    return module._c._type().qualified_name()


def script_module_attributes(module: torch.jit.ScriptModule) -> list[tuple[str, Any]]:
    """
    A scripted module's attribute slots in slot order, with their values: only
    this debug iterator lists them all (`named_parameters`, `named_buffers` and
    `named_children` leave out plain attributes); torch's stub omits it.
    Upstream: a public iterator over a `ScriptModule`'s slots.
    """
    import torch

    iterators: Any = torch._C._jit_debug_module_iterators(module._c)  # pyright: ignore[reportAttributeAccessIssue] - absent from torch's stub, present at run time
    return list(iterators["named_attributes"])


def script_module_methods(module: torch.jit.ScriptModule) -> list[tuple[str, Any]]:
    """
    A scripted module's compiled methods (`forward` and whatever it calls), by
    name, each with its `graph` and `schema`.
    Upstream: a public list of a `ScriptModule`'s compiled methods.
    """
    return [(name, module._c._get_method(name)) for name in module._c._method_names()]


def script_module_concrete_type(module: torch.jit.ScriptModule) -> Any | None:
    """
    The concrete type `torch.jit.script` recorded for the module (its
    attributes' declared TorchScript types), None for a traced module.
    Upstream: the module's declared attribute types as public API.
    """
    return getattr(module, "_concrete_type", None)


def infer_script_type(value: object) -> Any:
    """
    The type `torch.jit.script` infers for a module attribute's value (a result
    with `success()`, `type()` and `reason()`).
    Upstream: a public entry point to TorchScript's type inference of a value.
    """
    import torch

    return torch._C._jit_try_infer_type(value)


# --- torch.compile ------------------------------------------------------------------


def aot_autograd(**compilers: Any) -> Callable[..., Any]:
    """
    AOTAutograd as a Dynamo backend with the given compilers and decompositions.
    Upstream: `aot_autograd` exported from `torch.compiler` (it lives in
    `torch._dynamo.backends.common`).
    """
    from torch._dynamo.backends.common import aot_autograd as make_backend

    return make_backend(**compilers)


def core_aten_decompositions() -> Any:
    """
    torch's table taking ATen to core ATen, the one `torch.export` uses.
    Upstream: `torch.export.default_decompositions` in the form AOTAutograd takes.
    """
    from torch._decomp import core_aten_decompositions as table

    return table()


def unset_fake_temporarily() -> AbstractContextManager[Any]:
    """
    Leave AOTAutograd's fake mode while a compiler runs real tensors.
    Upstream: a public switch out of the active fake tensor mode.
    """
    from torch._subclasses.fake_tensor import unset_fake_temporarily as unset

    return unset()


def static_input_indices() -> list[int]:
    """
    The positions of the graph inputs AOTAutograd's compiler is being called
    for that are the module's parameters and buffers (Dynamo lifts them to graph
    inputs), read inside the compiler; empty outside one, or where AOTAutograd
    recorded none (a backward graph's inputs are saved tensors).
    Upstream: the static inputs handed to a compiler as an argument (Inductor
    reads the same tracing context).
    """
    import torch._guards

    context = torch._guards.TracingContext.try_get()
    metadata = getattr(context, "fw_metadata", None) if context is not None else None
    return list(getattr(metadata, "static_input_indices", None) or [])


def mark_wrapped_backward_compiler(compiler: Callable[..., Any]) -> None:
    """
    Tell AOTAutograd that `compiler`, a backward compiler, is kept out of Dynamo's
    tracing already, so it adds no wrapper of its own.
    Upstream: a documented option of `aot_autograd` for it.
    """
    setattr(compiler, "_is_wrapped_bw_compiler", True)  # noqa: B010 - the mark AOTAutograd reads, an attribute a function's type does not declare


# --- exported programs -----------------------------------------------------------


def with_module_call_graph(program: ExportedProgram, entries: Sequence[ModuleCallEntry]) -> ExportedProgram:
    """
    A shallow copy of `program` whose module call graph is `entries` (the
    caller's program is not changed).
    Upstream: a public way to build an `ExportedProgram` with another call graph.
    """
    copied = copy.copy(program)
    copied._module_call_graph = list(entries)
    return copied
