"""
`--emit python`: a program as a standalone numpy module, like FX's code
generation (`GraphModule.code`) but runnable without torch.

The module holds:

* `STATE`: the parameters, buffers and constants, decoded once at import
  from base64 of their raw little-endian bytes (bf16 as 16-bit patterns);
* `forward(*user_inputs)`: one line per FX node, named as `--emit fx` names
  them; operators call their numpy kernel from
  `xdsl_exir.semantics.kernels` with the arguments already bound to
  the schema (keywords, defaults filled in), so nothing is looked up per call,
  and each tensor result is given the dtype the IR records (what the
  interpreter does); SymInt ops are Python arithmetic; `cond`, `while_loop`
  and `map` are `if`, `while` and `for` over nested functions, one per
  subgraph; a fusion group (the `call_module` of a `fused_<k>` submodule in
  `--emit fx`) is a nested function `fused_<k>_forward` called once. It
  returns the user outputs as a flat tuple. Buffer mutations update `STATE`
  in place and user-input mutations write into the caller's arrays, as
  `ExportedProgram.module()` would;
* `main()`: `python model.py --inputs in.npz -o out.npz` with the keys
  `arg0..` / `out0..` of exir-run.

It fails as exir-run does rather than return what torch would not: an operator
that raises is reported as a `ProgramError` naming the node whose line raised
(`cat_1 (aten.cat.default): ...`), and a user output whose shape or dtype
contradicts the program's type stops `forward` (`main` prints either as one
`error:` line). Constant arguments are the values the interpreter passes, torch's
enums included (`DType.float32`: a kernel that runs through its decomposition
reads dtypes from them).

The generated module imports numpy, the kernels module, the enums and error
class those kernels use (`xdsl_exir.dialects.exir`, `xdsl_exir.utils.diagnostics`)
and the standard library only.
"""

from __future__ import annotations

import base64
import keyword
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import IO, cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp
from xdsl.ir import Operation, SSAValue
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from xdsl_exir.dialects.exir import (
    BoolType,
    DenseBlobAttr,
    DeviceAttr,
    DType,
    FloatType,
    GraphOp,
    InputKind,
    IntType,
    Layout,
    MemoryFormat,
    OutputKind,
    ProgramOp,
    ResourceBlobAttr,
    StateOp,
    SymBoolType,
    SymFloatType,
    SymIntType,
    SymScalarType,
    TensorType,
    blob_data,
)
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.kernels.decomposed import DECOMPOSED
from xdsl_exir.targets.fx_graph import (
    FxArg,
    FxGraph,
    FxNode,
    FxProgram,
    FxSlice,
    SubgraphRef,
    build_fx_programs,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.dtypes import numpy_dtype
from xdsl_exir.utils.function_schema import FunctionSchema
from xdsl_exir.utils.op_registry import OperatorEntry, custom_operator, functional_variant, lookup
from xdsl_exir.utils.schema_binding import SchemaBindError, bind
from xdsl_exir.utils.symbolic import print_python_expr, sympy
from xdsl_exir.utils.tensor_data import (
    TensorDataError,
    bytes_from_array,
    storage_dtype,
)

__all__ = ["PythonTarget", "emit_python", "python_source"]

_MODULE_NAMES = frozenset(
    {
        "np",
        "aten",
        "STATE",
        "KERNELS",
        "SimpleNamespace",
        "apply_result_dtype",
        "run_kernel",
        "base64",
        "math",
        "sys",
        "forward",
        "main",
        "_load",
        "_check_input",
        "_check_range",
        "_sizes",
        "InputError",
        "INPUTS",
        "round_to_bfloat16",
        "_i",
        "_stacked",
        "custom_kernel",
        "custom_operator",
        "DType",
        "Layout",
        "MemoryFormat",
        "functools",
        "InterpreterError",
        "ProgramError",
        "_located",
        "_check_output",
        "_NODES",
    }
)
"""Module-level and helper names; node names avoid them so locals never shadow."""

_NUMPY_NAMES: dict[DType, str] = {
    DType.bool: "np.bool_",
    DType.uint8: "np.uint8",
    DType.int8: "np.int8",
    DType.int16: "np.int16",
    DType.int32: "np.int32",
    DType.int64: "np.int64",
    DType.uint16: "np.uint16",
    DType.uint32: "np.uint32",
    DType.uint64: "np.uint64",
    DType.float16: "np.float16",
    DType.float32: "np.float32",
    DType.float64: "np.float64",
    DType.complex32: "np.complex64",
    DType.complex64: "np.complex64",
    DType.complex128: "np.complex128",
}
"""How the generated code spells the numpy dtype that carries a torch dtype."""

_INFIX: dict[str, str] = {
    "operator.add": "+",
    "operator.sub": "-",
    "operator.mul": "*",
    "operator.floordiv": "//",
    "operator.truediv": "/",
    "operator.mod": "%",
    "operator.pow": "**",
    "operator.eq": "==",
    "operator.ne": "!=",
    "operator.lt": "<",
    "operator.le": "<=",
    "operator.gt": ">",
    "operator.ge": ">=",
}
_CALLS: dict[str, str] = {
    "torch.sym_max": "max",
    "torch.sym_min": "min",
    "torch.sym_float": "float",
    "operator.abs": "abs",
    "math.ceil": "math.ceil",
    "math.floor": "math.floor",
    "math.trunc": "math.trunc",
    "math.sqrt": "math.sqrt",
    "torch.sym_sqrt": "math.sqrt",
}
"""Python callables FX records for SymInt arithmetic, as Python spells them."""


def _python_kind(kind: str) -> str:
    return "operator." + kind[len("_operator.") :] if kind.startswith("_operator.") else kind


def _graph_function_name(symbol: str) -> str:
    """Module-level function of a program-level subgraph: `graph_<symbol>`."""
    cleaned = "".join(c if c.isalnum() or c == "_" else "_" for c in symbol)
    return f"graph_{cleaned}"


def _py_constant(value: object) -> str:
    """
    A constant argument as Python source. torch's enums are the values the
    interpreter passes (`DType.float32`): a kernel that runs through its
    decomposition infers types from them, and a string is not a dtype there.
    """
    if isinstance(value, DType | Layout | MemoryFormat):
        return f"{type(value).__name__}.{value.name}"
    if isinstance(value, DeviceAttr):
        return repr(value.device.data)
    if isinstance(value, float):
        if math.isnan(value):
            return "np.nan"
        if math.isinf(value):
            return "np.inf" if value > 0 else "-np.inf"
        return repr(value)
    if isinstance(value, complex):
        return f"complex({_py_constant(value.real)}, {_py_constant(value.imag)})"
    if value is None or isinstance(value, bool | int | str):
        return repr(value)
    raise TypeError(f"no Python spelling for the constant {value!r}")


def _py_arg(arg: FxArg) -> str:
    if isinstance(arg, FxNode):
        return arg.name
    if isinstance(arg, FxSlice):
        return f"slice({_py_arg(arg.start)}, {_py_arg(arg.stop)}, {_py_arg(arg.step)})"
    if arg is Ellipsis:
        return "..."
    if isinstance(arg, list):
        return "[" + ", ".join(_py_arg(a) for a in arg) + "]"
    if isinstance(arg, tuple):
        inner = ", ".join(_py_arg(a) for a in arg)
        return f"({inner},)" if len(arg) == 1 else f"({inner})"
    return _py_constant(arg)


def _spread(arg: FxArg) -> list[str]:
    """The items of a sequence argument, for a call `f(a, b)` rather than `f(*[a, b])`."""
    if isinstance(arg, list | tuple):
        return [_py_arg(a) for a in arg]
    return ["*" + _py_arg(arg)]


def _type_comment(value: SSAValue | None) -> str:
    """`float32[s0, 16]`, `SymInt 4*s0`: what a line computes, for the reader."""
    if value is None:
        return ""
    t = value.type
    if isinstance(t, TensorType):
        sizes = ", ".join(
            str(s) if isinstance(s, int) else print_python_expr(s) for s in t.sizes
        )
        return f"{t.element_dtype.value}[{sizes}]"
    if isinstance(t, SymScalarType):
        kind = {SymIntType: "SymInt", SymFloatType: "SymFloat", SymBoolType: "SymBool"}.get(
            type(t), "Sym"
        )
        return kind if t.value is None else f"{kind} {print_python_expr(t.value)}"
    return ""


# ---------------------------------------------------------------------------
# Kernel calls with the schema binding done here
# ---------------------------------------------------------------------------


def _bind(
    op: Operation, schema: FunctionSchema, args: Sequence[FxArg], kwargs: dict[str, FxArg]
) -> tuple[dict[str, FxArg], list[FxArg]]:
    """Schema names -> arguments with defaults, as the kernels' calling convention wants."""
    try:
        bound, extra = bind(schema, args, kwargs, missing="none")
    except SchemaBindError as e:
        raise ExirDiagnostic(op, str(e)) from None
    return cast(dict[str, FxArg], bound), cast(list[FxArg], extra)


def _keyword_args(items: dict[str, FxArg]) -> list[str]:
    out: list[str] = []
    odd: list[str] = []
    for k, v in items.items():
        if keyword.iskeyword(k) or not k.isidentifier():
            odd.append(f"{k!r}: {_py_arg(v)}")
        else:
            out.append(f"{k}={_py_arg(v)}")
    if odd:
        out.append("**{" + ", ".join(odd) + "}")
    return out


class _KernelTable:
    """The operators a module calls, as `aten.<op>.<overload>` attributes."""

    def __init__(self) -> None:
        self.ops: dict[str, dict[str, str]] = {}

    def reference(self, op_name: str) -> str:
        ns, name, overload = op_name.split(".")
        if ns == "aten" and all(
            p.isidentifier() and not keyword.iskeyword(p) for p in (name, overload)
        ):
            self.ops.setdefault(name, {})[overload] = op_name
            return op_name
        return f"KERNELS[{op_name!r}]"  # a name Python cannot spell as attributes

    def source(self) -> list[str]:
        if not self.ops:
            return []
        lines = [
            "# Operators: `aten.add.Tensor` is the numpy kernel of aten.add.Tensor,",
            "# looked up once here.",
            "aten = SimpleNamespace(",
        ]
        for name in sorted(self.ops):
            overloads = self.ops[name]
            inner = ", ".join(
                f"{ov}=KERNELS[{full!r}]" for ov, full in sorted(overloads.items())
            )
            lines.append(f"    {name}=SimpleNamespace({inner}),")
        lines.append(")")
        return lines


# ---------------------------------------------------------------------------
# The writer
# ---------------------------------------------------------------------------


class _Writer:
    """Emits the functions of one program."""

    def __init__(self, program: FxProgram) -> None:
        self.program = program
        self.kernels = _KernelTable()
        self.lines: list[str] = []
        self.needs_math = False
        self.needs_apply_dtype = False
        self.needs_run_kernel = False
        self.needs_graph_compiler = False
        """Whether a kernel called runs through a decomposition (the interpreter's compiler runs those)."""
        self.needs_round_bf16 = False
        self.needs_custom = False
        self.kernel_nodes: set[int] = set()
        """ids of nodes whose value is a kernel result (their getitems get dtypes)."""
        self.scopes: list[set[str]] = []
        """Names taken in each function being written, innermost last."""
        self.line_nodes: dict[int, str] = {}
        """Index in `lines` -> the node that line computes (`cat (aten.cat.default)`), for errors."""

    def emit(self, text: str, indent: int) -> None:
        self.lines.append("    " * indent + text if text else "")

    # -- functions ------------------------------------------------------------

    def function(self, name: str, graph: FxGraph, indent: int, entry: bool) -> None:
        params = self._params(graph, entry)
        self.emit(f"def {name}({', '.join(params)}):", indent)
        body = indent + 1
        self.scopes.append({n.name for n in graph.nodes})
        if entry:
            self._entry_prologue(graph, body)
        for node in graph.nodes:
            if node.op == "placeholder":
                continue
            self.node(node, body, entry)
        self.scopes.pop()

    def _params(self, graph: FxGraph, entry: bool) -> list[str]:
        if not entry or self.program.program is None:
            return [n.name for n in graph.placeholders]
        specs = self.program.program.inputs.data
        return [
            n.name
            for n, spec in zip(graph.placeholders, specs)
            if spec.input_kind is InputKind.user_input
        ]

    def _entry_prologue(self, graph: FxGraph, indent: int) -> None:
        program = self.program.program
        if program is None:
            return
        self._input_checks(graph, program, indent)
        for node, spec in zip(graph.placeholders, program.inputs.data):
            kind = spec.input_kind
            if kind is InputKind.user_input:
                conversion = _scalar_conversion(node.value)
                if conversion is not None:
                    self.emit(f"{node.name} = {conversion}({node.name})", indent)
            elif kind is InputKind.token:
                self.emit(f"{node.name} = None  # token", indent)
            else:
                self.emit(
                    f"{node.name} = STATE[{spec.target_name!r}]  # {kind.value}", indent
                )

    def _input_checks(self, graph: FxGraph, program: ProgramOp, indent: int) -> None:
        """
        Each user tensor must have the dtype, rank and static sizes the program
        was exported for; a size symbol (`s0`) is bound where it first appears,
        must agree elsewhere, and must lie in its range constraint.
        """
        checks: list[str] = []
        bound: set[str] = set()
        for node, spec in zip(graph.placeholders, program.inputs.data):
            t = node.value.type if node.value is not None else None
            if spec.input_kind is not InputKind.user_input or not isinstance(t, TensorType):
                continue
            dtype = _NUMPY_NAMES.get(t.element_dtype)
            if t.element_dtype is DType.bfloat16:
                dtype = "np.float32"
            if dtype is None:
                continue
            sizes: list[str] = []
            for size in t.sizes:
                if isinstance(size, int):
                    sizes.append(str(size))
                elif isinstance(size, sympy.Symbol):
                    sizes.append(repr(size.name))
                    bound.add(size.name)
                else:
                    sizes.append("None")
            shape = "(" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")"
            checks.append(
                f"{node.name} = _check_input({node.name!r}, {node.name}, {dtype}, {shape}, _sizes)"
            )
            if t.element_dtype is DType.bfloat16:
                self.needs_round_bf16 = True
                checks.append(f"{node.name} = round_to_bfloat16({node.name})")
        if not checks:
            return
        self.emit("_sizes: dict[str, int] = {}  # size symbols, bound from the inputs", indent)
        for line in checks:
            self.emit(line, indent)
        for expr, (lower, upper) in program.ranges().items():
            if not isinstance(expr, sympy.Symbol) or expr.name not in bound:
                continue
            lo = "None" if not lower.is_finite else str(int(lower))
            hi = "None" if not upper.is_finite else str(int(upper))
            if lo == "None" and hi == "None":
                continue
            self.emit(f"_check_range(_sizes, {expr.name!r}, {lo}, {hi})", indent)

    # -- nodes ------------------------------------------------------------------

    def node(self, node: FxNode, indent: int, entry: bool) -> None:
        start = len(self.lines)
        self._node(node, indent, entry)
        what = "the output" if node.op == "output" else f"{node.name} ({_python_kind(node.kind)})"
        for i in range(start, len(self.lines)):
            self.line_nodes.setdefault(i, what)  # lines of a nested function belong to its own nodes

    def _node(self, node: FxNode, indent: int, entry: bool) -> None:
        if node.op == "get_attr":
            self._get_attr(node, indent)
        elif node.op == "output":
            self._output(node, indent, entry)
        elif node.op == "call_function":
            self._call(node, indent)
        elif node.op == "call_module" and node.subgraph is not None:
            self._call_submodule(node, node.subgraph, indent)
        else:
            raise ExirDiagnostic(
                cast(Operation, node.source),
                f"{node.op} has no numpy form: --emit python takes Export IR, whose "
                "graphs call operators only (export the module, or lower it first)",
            )

    def _get_attr(self, node: FxNode, indent: int) -> None:
        ref = node.subgraph
        if ref is None:
            program = self.program.program
            if program is not None and node.kind in program.state():
                self.emit(f"{node.name} = STATE[{node.kind!r}]  # get_attr", indent)
                return
            raise ExirDiagnostic(
                cast(Operation, node.source), f"get_attr of '{node.kind}', which is not a graph"
            )
        if ref.program_level:
            self.emit(f"{node.name} = {_graph_function_name(ref.attr)}  # get_attr", indent)
            return
        if self.lines and not self.lines[-1].rstrip().endswith(":") and self.lines[-1]:
            self.emit("", indent)
        self.function(node.name, ref.graph, indent, entry=False)
        self.emit("", indent)

    def _call_submodule(self, node: FxNode, ref: SubgraphRef, indent: int) -> None:
        """A fusion group: its graph as a nested function, then one call of it."""
        taken = self.scopes[-1]
        name = f"{ref.attr}_forward"
        k = 0
        while name in taken or name in _MODULE_NAMES:
            k += 1
            name = f"{ref.attr}_forward_{k}"
        taken.add(name)
        if self.lines and not self.lines[-1].rstrip().endswith(":") and self.lines[-1]:
            self.emit("", indent)
        self.function(name, ref.graph, indent, entry=False)
        self.emit("", indent)
        args = ", ".join(_py_arg(a) for a in node.args)
        self._line(node, f"{name}({args})", indent, f"call_module {ref.attr}: {_type_comment(node.value)}")

    def _output(self, node: FxNode, indent: int, entry: bool) -> None:
        (value,) = node.args
        if not isinstance(value, tuple):
            self.emit(f"return {_py_arg(value)}", indent)
            return
        program = self.program.program
        if not entry or program is None:
            self.emit(f"return {_py_arg(value)}", indent)
            return
        returned: list[FxArg] = []
        for v, spec in zip(value, program.outputs.data):
            kind = spec.output_kind
            if kind is OutputKind.buffer_mutation:
                self.emit(
                    f"np.copyto(STATE[{spec.target_name!r}], {_py_arg(v)}, casting='unsafe')"
                    "  # buffer mutation",
                    indent,
                )
            elif kind is OutputKind.user_input_mutation:
                target = self._user_input_named(spec.target_name)
                if target is not None:
                    self.emit(
                        f"np.copyto({target}, {_py_arg(v)}, casting='unsafe')"
                        "  # user input mutation",
                        indent,
                    )
            elif kind in (OutputKind.user_output, OutputKind.loss_output):
                returned.append(v)
        for index, v in enumerate(returned):
            check = _output_check(index, v)
            if check is not None:
                self.emit(check, indent)
        self.emit(f"return {_py_arg(tuple(returned))}", indent)

    def _user_input_named(self, name: str | None) -> str | None:
        program = self.program.program
        assert program is not None
        for node, spec in zip(self.program.entry.placeholders, program.inputs.data):
            if spec.input_kind is InputKind.user_input and spec.arg_name.data == name:
                return node.name
        return None

    def _call(self, node: FxNode, indent: int) -> None:
        kind = _python_kind(node.kind)
        op = node.source
        assert op is not None
        comment = _type_comment(node.value)
        if kind == "higher_order.cond":
            self._cond(node, indent)
        elif kind == "higher_order.while_loop":
            self._while(node, indent)
        elif kind == "higher_order.map_impl":
            self._map(node, indent)
        elif kind == "operator.getitem":
            self._getitem(node, indent)
        elif kind in _INFIX:
            a, b = (_py_arg(x) for x in node.args)
            self._line(node, f"{a} {_INFIX[kind]} {b}", indent, f"{kind}: {comment}")
        elif kind in _CALLS:
            fn = _CALLS[kind]
            self.needs_math |= fn.startswith("math.")
            args = ", ".join(_py_arg(a) for a in node.args)
            self._line(node, f"{fn}({args})", indent, f"{kind}: {comment}")
        elif kind == "operator.neg":
            self._line(node, f"-{_py_arg(node.args[0])}", indent, f"{kind}: {comment}")
        elif kind in ("operator.and_", "operator.or_"):
            a, b = (_py_arg(x) for x in node.args)
            word = "and" if kind == "operator.and_" else "or"
            self._line(node, f"bool({a}) {word} bool({b})", indent, f"{kind}: {comment}")
        elif kind in ("torch.sym_not", "operator.not_"):
            self._line(node, f"not {_py_arg(node.args[0])}", indent, f"{kind}: {comment}")
        elif kind == "torch.sym_int":
            self.needs_math = True
            self._line(node, f"int(math.trunc({_py_arg(node.args[0])}))", indent, f"{kind}: {comment}")
        elif kind == "aten.sym_size.int":
            x, dim = node.args
            self._line(node, f"{_py_arg(x)}.shape[{_py_arg(dim)}]", indent, f"{kind}: {comment}")
        elif kind == "aten.sym_numel.default":
            self._line(node, f"{_py_arg(node.args[0])}.size", indent, f"{kind}: {comment}")
        elif kind == "aten.sym_stride.int":
            self.needs_math = True
            x, dim = (_py_arg(a) for a in node.args)
            expr = f"math.prod(max(n, 1) for n in {x}.shape[{dim}:][1:])"
            self._line(node, expr, indent, f"{kind} (contiguous): {comment}")
        elif kind in ("aten._assert_scalar.default", "aten._assert_async.msg"):
            cond, message = node.args
            self.emit(
                f"if not np.all({_py_arg(cond)}): raise RuntimeError({str(message)!r})  # {kind}",
                indent,
            )
        elif kind == "aten._assert_tensor_metadata.default":
            self._metadata_check(node, indent)
        elif kind in ("aten.sym_constrain_range.default", "aten.sym_constrain_range_for_size.default"):
            self._range_check(node, indent)
        else:
            self._kernel(node, kind, indent, comment)

    def _line(self, node: FxNode, expr: str, indent: int, comment: str) -> None:
        comment = comment.rstrip(": ")
        self.emit(f"{node.name} = {expr}" + (f"  # {comment}" if comment else ""), indent)

    def _getitem(self, node: FxNode, indent: int) -> None:
        seq, index = node.args
        expr = f"{_py_arg(seq)}[{_py_arg(index)}]"
        if isinstance(seq, FxNode) and id(seq) in self.kernel_nodes:
            expr = self._with_dtype(expr, node.value)
        self._line(node, expr, indent, _type_comment(node.value))

    def _with_dtype(self, expr: str, value: SSAValue | None) -> str:
        """The kernel result `expr` with the dtype the IR records, as the interpreter does."""
        if value is None or not isinstance(value.type, TensorType):
            return expr
        dtype = value.type.element_dtype
        if dtype is DType.bfloat16:
            self.needs_apply_dtype = True
            return f"apply_result_dtype({expr}, 'bfloat16')"
        name = _NUMPY_NAMES.get(dtype)
        return expr if name is None else f"np.asarray({expr}, {name})"

    def _kernel(self, node: FxNode, kind: str, indent: int, comment: str) -> None:
        op = cast(Operation, node.source)
        entry = lookup(kind)
        if not aten_kernels.has_kernel(kind) and custom_operator(kind) is not None:
            self._custom(node, kind, entry, indent, comment)
            return
        if entry is None or not aten_kernels.has_kernel(kind):
            raise ExirDiagnostic(op, f"no numpy kernel for '{kind}' to generate Python with")
        bound, extra = _bind(op, entry.schema, node.args, node.kwargs)
        self.kernel_nodes.add(id(node))
        if any(k in DECOMPOSED for k in (kind, functional_variant(kind), functional_variant(kind, mutable=True))):
            self.needs_graph_compiler = True
        if extra:
            self.needs_run_kernel = True
            dtypes = [
                repr(r.type.element_dtype.value) if isinstance(r.type, TensorType) else "None"
                for r in op.results
            ]
            positional = [_py_arg(v) for k, v in bound.items()] + [_py_arg(v) for v in extra]
            call = (
                f"run_kernel({kind!r}, [{', '.join(positional)}], {{}}, [{', '.join(dtypes)}])"
            )
            self._line(node, call, indent, comment)
            return
        call = f"{self.kernels.reference(kind)}({', '.join(_keyword_args(bound))})"
        if node.value is not None:
            call = self._with_dtype(call, node.value)
        self._line(node, call, indent, comment)

    def _custom(self, node: FxNode, kind: str, entry: OperatorEntry | None, indent: int, comment: str) -> None:
        """
        A custom operator: the kernel registered for it (`register_kernel` or an
        `xdsl_exir.kernels` entry point), looked up when the line runs, called as
        the interpreter calls it (bound to its schema when it has one).
        """
        op = cast(Operation, node.source)
        self.needs_custom = True
        self.kernel_nodes.add(id(node))
        if entry is not None:
            bound, extra = _bind(op, entry.schema, node.args, node.kwargs)
            parts = [_py_arg(v) for v in extra] + _keyword_args(bound)
        else:
            parts = [_py_arg(a) for a in node.args] + _keyword_args(node.kwargs)
        call = f"custom_kernel({kind!r})({', '.join(parts)})"
        if node.value is not None:
            call = self._with_dtype(call, node.value)
        self._line(node, call, indent, f"custom operator: {comment}")

    def _metadata_check(self, node: FxNode, indent: int) -> None:
        x = _py_arg(node.args[0])
        dtype = node.kwargs.get("dtype", node.args[3] if len(node.args) > 3 else None)
        name = _NUMPY_NAMES.get(dtype) if isinstance(dtype, DType) else None
        if name is None:
            self.emit(f"{node.name} = None  # aten._assert_tensor_metadata.default", indent)
            return
        message = f"tensor metadata assertion failed: expected a {cast(DType, dtype).value} tensor"
        self.emit(
            f"if {x}.dtype != {name}: raise RuntimeError({message!r})"
            "  # aten._assert_tensor_metadata.default",
            indent,
        )

    def _range_check(self, node: FxNode, indent: int) -> None:
        bound = dict(zip(("size", "min", "max"), node.args)) | node.kwargs
        size = _py_arg(bound["size"])
        checks: list[str] = []
        if bound.get("min") is not None:
            checks.append(f"{size} < {_py_arg(bound['min'])}")
        if bound.get("max") is not None:
            checks.append(f"{size} > {_py_arg(bound['max'])}")
        if checks:
            self.emit(
                f"if {' or '.join(checks)}: raise RuntimeError("
                f"'runtime assertion failed: ' + str({size}) + ' is out of range')  # {node.kind}",
                indent,
            )

    # -- higher-order ops ---------------------------------------------------------

    def _cond(self, node: FxNode, indent: int) -> None:
        pred, true_g, false_g, operands = node.args
        call_args = ", ".join(_spread(operands))
        pick = "[0]" if node.single_result else ""
        self.emit(f"if {_py_arg(pred)}:  # torch.ops.higher_order.cond", indent)
        self.emit(f"{node.name} = {_py_arg(true_g)}({call_args}){pick}", indent + 1)
        self.emit("else:", indent)
        self.emit(f"{node.name} = {_py_arg(false_g)}({call_args}){pick}", indent + 1)

    def _while(self, node: FxNode, indent: int) -> None:
        cond_g, body_g, carried, *rest = node.args
        additional = rest[0] if rest else ()
        name = node.name
        extra = _spread(additional)
        call_args = ", ".join([f"*{name}", *extra])
        cond_fn = cast(FxNode, cond_g)
        bare = cond_fn.subgraph is not None and cond_fn.subgraph.graph.bare_output
        test = f"{_py_arg(cond_g)}({call_args})" + ("" if bare else "[0]")
        self.emit(f"{name} = {_py_arg(tuple(_as_list(carried)))}  # torch.ops.higher_order.while_loop", indent)
        self.emit(f"while {test}:", indent)
        self.emit(f"{name} = {_py_arg(body_g)}({call_args})", indent + 1)
        if node.single_result:
            self.emit(f"{name} = {name}[0]", indent)

    def _map(self, node: FxNode, indent: int) -> None:
        body_g, xs, *rest = node.args
        extra = _spread(rest[0]) if rest else []
        name = node.name
        if isinstance(xs, list | tuple):
            slices = [f"{_py_arg(x)}[_i]" for x in xs]
            first = _py_arg(xs[0])
        else:
            slices = [f"*[x[_i] for x in {_py_arg(xs)}]"]
            first = f"{_py_arg(xs)}[0]"
        self.emit(f"{name} = []  # torch.ops.higher_order.map_impl", indent)
        self.emit(f"for _i in range({first}.shape[0]):", indent)
        self.emit(f"{name}.append({_py_arg(body_g)}({', '.join([*slices, *extra])}))", indent + 1)
        pick = "[0]" if node.single_result else ""
        self.emit(f"{name} = tuple(np.stack(_stacked) for _stacked in zip(*{name})){pick}", indent)


def _output_check(index: int, value: FxArg) -> str | None:
    """
    The line checking user output `index` against its IR type, as exir-run's
    interpreter checks it: a kernel that computed another shape or dtype is a
    bug to stop at, not a value to hand back.
    """
    if not isinstance(value, FxNode) or value.value is None or not isinstance(value.value.type, TensorType):
        return None
    t = value.value.type
    dtype = _NUMPY_NAMES.get(t.element_dtype) if t.element_dtype is not DType.complex32 else None
    sizes = [str(s) if isinstance(s, int) else "None" for s in t.sizes]
    shape = "(" + ", ".join(sizes) + ("," if len(sizes) == 1 else "") + ")"
    return f"_check_output({index}, {value.name!r}, {value.name}, {dtype or 'None'}, {shape})"


def _as_list(arg: FxArg) -> list[FxArg]:
    if isinstance(arg, list | tuple):
        return list(arg)
    return [arg]


def _scalar_conversion(value: SSAValue | None) -> str | None:
    """How `forward` turns a 0-d array given for a scalar input into a Python scalar."""
    if value is None:
        return None
    t = value.type
    if isinstance(t, IntType | SymIntType):
        return "int"
    if isinstance(t, FloatType | SymFloatType):
        return "float"
    if isinstance(t, BoolType | SymBoolType):
        return "bool"
    return None


# ---------------------------------------------------------------------------
# State
# ---------------------------------------------------------------------------


def _state_bytes(op: StateOp) -> tuple[bytes, str, tuple[int, ...]] | None:
    """(little-endian bytes, storage dtype, shape) of a tensor state, None if no data."""
    t = op.state_type
    value = op.value
    if value is None:
        return None
    if not isinstance(t, TensorType) or not all(isinstance(s, int) for s in t.sizes):
        raise ExirDiagnostic(op, "only tensor state of static shape can be embedded")
    shape = cast(tuple[int, ...], tuple(t.sizes))
    dtype = t.element_dtype
    try:
        storage = storage_dtype(dtype)
    except TensorDataError as e:
        raise ExirDiagnostic(op, str(e)) from None
    code = "bf16" if dtype is DType.bfloat16 else storage.str
    if isinstance(value, DenseBlobAttr | ResourceBlobAttr):
        try:
            data = blob_data(value, t)  # sized wrongly, or read without its bytes (elided): says so here
        except TensorDataError as e:
            raise ExirDiagnostic(op, f"state @{op.sym_name.data}: {e}") from None
        return data, code, shape
    if isinstance(value, DenseIntOrFPElementsAttr):
        values = np.asarray(value.get_values(), dtype=numpy_dtype(dtype))
        if values.size == 1:
            array = np.full(shape, values.reshape(()))
        elif values.size == math.prod(shape):
            array = values.reshape(shape)
        else:
            raise ExirDiagnostic(op, f"dense data of {values.size} elements for a {t}")
        return bytes_from_array(array, dtype), code, shape
    raise ExirDiagnostic(op, "state data must be a #exir.blob or dense<...> to be embedded")


_INPUT_CHECKS = '''
class InputError(ValueError):
    \"\"\"An input `forward` cannot take: wrong dtype, rank or size.\"\"\"


def _check_input(
    name: str, value: object, dtype: type, sizes: tuple[int | str | None, ...], bound: dict[str, int]
) -> np.ndarray:
    \"\"\"`value` as an array of `dtype` and `sizes` (an int, a size symbol bound on first use, or None).\"\"\"
    array = np.asarray(value)
    if array.dtype != dtype:
        raise InputError(f"input {name}: expected a {np.dtype(dtype)} array, got {array.dtype}")
    if array.ndim != len(sizes):
        raise InputError(f"input {name}: expected {len(sizes)} dimensions, got shape {list(array.shape)}")
    for dim, (want, got) in enumerate(zip(sizes, array.shape)):
        if isinstance(want, int) and want != got:
            raise InputError(f"input {name}: dimension {dim} must be {want}, got shape {list(array.shape)}")
        if isinstance(want, str) and bound.setdefault(want, got) != got:
            raise InputError(f"input {name}: dimension {dim} is {got}, but {want} = {bound[want]} elsewhere")
    return array


def _check_output(index: int, name: str, value: object, dtype: type | None, sizes: tuple[int | None, ...]) -> None:
    \"\"\"A user output whose shape or dtype contradicts the program's type is an operator's bug.\"\"\"
    if not isinstance(value, np.ndarray):
        return
    shape_ok = value.ndim == len(sizes) and all(w is None or w == g for w, g in zip(sizes, value.shape))
    if shape_ok and (dtype is None or value.dtype == dtype):
        return
    want = [w if w is not None else "?" for w in sizes]
    raise ProgramError(
        f"output {index} ({name!r}): computed shape {list(value.shape)} and dtype {value.dtype} where the "
        f"program says {want} and {np.dtype(dtype) if dtype is not None else 'its dtype'}; an operator's "
        "implementation disagrees with its type"
    )


def _check_range(bound: dict[str, int], symbol: str, lower: int | None, upper: int | None) -> None:
    value = bound[symbol]
    if (lower is not None and value < lower) or (upper is not None and value > upper):
        raise InputError(
            f"{symbol} = {value} is outside the range [{lower if lower is not None else '-inf'}, "
            f"{upper if upper is not None else 'inf'}] the program was exported for"
        )
'''


_ERRORS = '''
class ProgramError(InterpreterError, RuntimeError):
    \"\"\"An operator of the program failed, or computed what its type rules out; names the node.\"\"\"


def _located(fn):
    \"\"\"`fn`, with a failure inside an operator raised as a ProgramError naming the node (as exir-run names the op).\"\"\"

    @functools.wraps(fn)
    def run(*args):
        try:
            return fn(*args)
        except (InputError, ProgramError):
            raise
        except Exception as e:
            where = None
            tb = e.__traceback__
            while tb is not None:  # the innermost line of this module that was running
                if tb.tb_frame.f_globals is globals() and tb.tb_lineno in _NODES:
                    where = _NODES[tb.tb_lineno]
                tb = tb.tb_next
            text = str(e) or type(e).__name__
            if not isinstance(e, (InterpreterError, RuntimeError, ValueError, TypeError, IndexError, KeyError)):
                text = f"{type(e).__name__}: {text}"
            raise ProgramError(f"{where}: {text}" if where else text) from e

    return run
'''


_CUSTOM_KERNEL = '''
def custom_kernel(name: str):
    """The kernel registered for a custom operator (by an installed package or register_kernel)."""
    found = custom_operator(name)
    if found is None:
        raise RuntimeError(
            f"no kernel is registered for the custom operator {name}: install the package that "
            "provides it (entry point group xdsl_exir.kernels) or call xdsl_exir.register_kernel"
        )
    return found.kernel
'''


_LOADER = '''
def _load(data: str, storage: str, shape: tuple[int, ...]) -> np.ndarray:
    """A tensor from base64 of its little-endian bytes (bf16 as 16-bit patterns)."""
    raw = base64.b64decode(data)
    if storage == "bf16":  # numpy has no bfloat16: float32 holding bf16 values
        bits = np.frombuffer(raw, dtype="<u2").astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    array = np.frombuffer(raw, dtype=storage)
    return array.astype(array.dtype.newbyteorder("="), copy=True).reshape(shape)
'''


def _state_lines(program: ProgramOp) -> list[str]:
    lines = [
        "# Parameters, buffers and constants, by the names of the program state.",
        "STATE: dict[str, np.ndarray | None] = {",
    ]
    for name, op in program.state().items():
        found = _state_bytes(op)
        if found is None:
            lines.append(f"    {name!r}: None,  # no data in the program: assign before calling forward")
            continue
        data, code, shape = found
        encoded = base64.b64encode(data).decode("ascii")
        chunks = [encoded[i : i + 96] for i in range(0, len(encoded), 96)] or [""]
        # A tensor of another dim order (a channels-last weight) in memory as torch holds it:
        # as_strided reads the storage.
        t = op.state_type
        order = t.get_dim_order() if isinstance(t, TensorType) else tuple(range(len(shape)))
        laid, end = "", ""
        if order != tuple(range(len(order))):
            inverse = tuple(order.index(d) for d in range(len(order)))
            laid, end = "np.ascontiguousarray(", f".transpose({order!r})).transpose({inverse!r})"
        if len(chunks) == 1:
            lines.append(f"    {name!r}: {laid}_load({chunks[0]!r}, {code!r}, {shape!r}){end},")
            continue
        lines.append(f"    {name!r}: {laid}_load(")
        lines += [f"        {c!r}" for c in chunks]
        lines[-1] += ","
        lines.append(f"        {code!r},")
        lines.append(f"        {shape!r},")
        lines.append(f"    ){end},")
    lines.append("}")
    return lines


# ---------------------------------------------------------------------------
# The module
# ---------------------------------------------------------------------------


def python_source(module: ModuleOp) -> str:
    """The Python module computing the (single) program of `module`."""
    programs = build_fx_programs(module, _reserved_names(module))
    if len(programs) != 1:
        found = "none" if not programs else str(len(programs))
        raise DiagnosticException(
            f"--emit python writes one program: the module must hold one exir.program "
            f"(or exir.graph ops), it holds {found}"
        )
    program = programs[0]
    writer = _Writer(program)
    for symbol, graph in program.graphs.items():
        writer.function(_graph_function_name(symbol), graph, 0, entry=False)
        writer.emit("", 0)
        writer.emit("", 0)
    writer.emit("@_located  # an operator's failure names its node", 0)
    writer.emit('@np.errstate(all="ignore")  # as torch, no warnings on inf/nan', 0)
    writer.function("forward", program.entry, 0, entry=True)
    user_inputs = _user_input_names(program)
    outputs = _user_output_names(program)

    signature = f"forward({', '.join(user_inputs)}) -> ({', '.join(outputs)}{',' if len(outputs) == 1 else ''})"
    head = [
        '"""',
        f"{signature}: the exported program, computed with numpy.",
        "",
        "Generated by `exir-opt --emit python` (xdsl-exir). `STATE` holds the parameters,",
        "buffers and constants (buffer mutations update it in place); operators are the numpy",
        "kernels of `xdsl_exir.semantics.kernels`.",
        "",
        "Run: python <this file> --inputs in.npz -o out.npz  (keys arg0.. / out0..)",
        '"""',
        "",
        "import base64",
        "import functools",
    ]
    if writer.needs_math:
        head.append("import math")
    head += ["import sys", "from types import SimpleNamespace", "", "import numpy as np", ""]
    imported = ["KERNELS"]
    if writer.needs_apply_dtype:
        imported.append("apply_result_dtype")
    if writer.needs_run_kernel:
        imported.append("run_kernel")
    if writer.needs_round_bf16:
        imported.append("round_to_bfloat16")
    head.append(f"from xdsl_exir.semantics.kernels import {', '.join(imported)}")
    if writer.needs_graph_compiler:
        head.append("import xdsl_exir.interpreters.compiler  # noqa: F401 - runs the kernels of decomposed operators")
    enums = sorted({m.group(1) for line in writer.lines for m in _ENUM_USE.finditer(line)})
    if enums:  # the dtype, layout and memory format arguments, as the interpreter passes them
        head.append(f"from xdsl_exir.dialects.exir import {', '.join(enums)}")
    if writer.needs_custom:
        head.append("from xdsl_exir.utils.op_registry import custom_operator")
    head.append("from xdsl_exir.utils.diagnostics import InterpreterError")
    head += ["", "", *_LOADER.strip("\n").splitlines(), "", ""]
    if writer.needs_custom:
        head += [*_CUSTOM_KERNEL.strip("\n").splitlines(), "", ""]
    head += [*_INPUT_CHECKS.strip("\n").splitlines(), "", ""]
    head += [*_ERRORS.strip("\n").splitlines(), "", ""]
    state = (
        _state_lines(program.program)
        if program.program is not None
        else ["STATE: dict[str, np.ndarray | None] = {}"]
    )
    kernels = writer.kernels.source()
    before = [*head, *state, "", *([*kernels, "", ""] if kernels else [""])]
    body = [*before[len(head) :], *writer.lines]
    first = len(before) + 1  # the line number of writer.lines[0]
    nodes = [f"    {first + i}: {what!r}," for i, what in sorted(writer.line_nodes.items())]
    tail = [
        "",
        "",
        "_NODES = {",
        *nodes,
        "}",
        '"""Line of this module -> the node it computes, for the errors of `_located`."""',
        "",
        "",
        *_main_lines(user_inputs),
    ]
    return "\n".join([*head, *body, *tail]) + "\n"


_ENUM_USE = re.compile(r"\b(DType|Layout|MemoryFormat)\.[a-z]")
"""Where a line spells one of torch's enums (`_py_constant`)."""


def _reserved_names(module: ModuleOp) -> set[str]:
    names = set(_MODULE_NAMES)
    for op in module.walk():
        if isinstance(op, GraphOp):
            names.add(_graph_function_name(op.sym_name.data))
    return names


def _user_input_names(program: FxProgram) -> list[str]:
    if program.program is None:
        return [n.name for n in program.entry.placeholders]
    return [
        n.name
        for n, spec in zip(program.entry.placeholders, program.program.inputs.data)
        if spec.input_kind is InputKind.user_input
    ]


def _user_output_names(program: FxProgram) -> list[str]:
    out = program.entry.output.args[0]
    values = list(out) if isinstance(out, tuple) else [out]
    if program.program is None:
        return [_py_arg(v) for v in values]
    return [
        _py_arg(v)
        for v, spec in zip(values, program.program.outputs.data)
        if spec.output_kind in (OutputKind.user_output, OutputKind.loss_output)
    ]


def _main_lines(inputs: Sequence[str]) -> list[str]:
    listed = repr(tuple(inputs))
    return f'''
INPUTS = {listed}
"""The user inputs of `forward`, in order: the .npz keys arg0, arg1, ... hold them."""


def main(argv: list[str] | None = None) -> int:
    """`python <this file> --inputs in.npz -o out.npz`: `forward` on arg0.., out0.. written."""
    import argparse

    parser = argparse.ArgumentParser(description="Run forward on the arrays of an .npz file.")
    parser.add_argument("--inputs", help="an .npz file with the user inputs arg0, arg1, ...")
    parser.add_argument("-o", "--output", help="an .npz file to write the outputs out0, out1, ... to")
    args = parser.parse_args(argv)
    values = []
    if INPUTS:
        if args.inputs is None:
            parser.error(f"--inputs is required: forward takes {{', '.join(INPUTS)}}")
        with np.load(args.inputs) as data:
            keys = [f"arg{{i}}" for i in range(len(INPUTS))]
            missing = [k for k in keys if k not in data]
            if missing:
                parser.error(f"{{args.inputs}} has no {{', '.join(missing)}}")
            values = [data[k] for k in keys]
    try:
        outputs = forward(*values)
    except (InputError, RuntimeError) as e:
        print(f"error: {{e}}", file=sys.stderr)
        return 1
    # A None output keeps its number but has no array (no key), as in exir-run.
    arrays = {{f"out{{i}}": np.asarray(v) for i, v in enumerate(outputs) if v is not None}}
    if args.output is None:
        for key, array in arrays.items():
            print(f"{{key}}: {{array.dtype}}{{list(array.shape)}}")
    else:
        np.savez(args.output, **arrays)
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''.strip("\n").splitlines()


def emit_python(module: ModuleOp, output: IO[str]) -> None:
    """The `python` target of exir-opt."""
    output.write(python_source(module))



@dataclass(frozen=True)
class PythonTarget(Target):
    """`-t python` / `--emit python`."""

    name = "python"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        emit_python(module, output)
