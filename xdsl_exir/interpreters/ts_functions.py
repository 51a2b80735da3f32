"""
How the `prim` ops and `ts.node` run, for the graph compiler (`compiler.py`).

A `ts.node` names its operator but not the overload (`aten::add`), so the
overload is resolved once, when the graph is compiled, from the operand types
(`overloads.resolve_node`, TorchScript's own schema matching); what is left
per run is applying the implicit conversions it asks for (a Tensor passed as
an int, a number passed as a Tensor) and calling the numpy kernel of that
overload (`aten_kernels`) or, for the builtins on numbers, strings, lists and
dicts, its implementation in `ts_builtins`. Node inputs are positional and
complete, so each is bound to its schema argument by position.

Values are Python objects with TorchScript's reference semantics (JIT Technical Overview,
"Evaluation Semantics"): tensors are numpy arrays (views share memory with
their base wherever numpy can express the view, so an in-place op on
`x.select(0, 1)` writes into `x`), lists are Python lists and dicts Python
dicts (mutated in place by `aten::append`, `aten::_set_item`), tuples are
tuples, `int`/`float`/`bool`/`str` are Python's, a Device is its string
(`"cpu"`), a dtype is its ScalarType code, module and class instances are
`ScriptObject`s, and a fork's result is a `Future`.

Control flow runs the compiled regions: `prim.If` one of its blocks,
`prim.Loop` its body while the condition holds and the trip count allows
(the JIT Technical Overview's pseudo-code; a `while` loop is a trip count of 2**63 - 1), and
the subgraph ops (`FusionGroup`, `TensorExprGroup`, `DifferentiableGraph`,
`fork`, `prim::FallbackGraph`) their subgraph, compiled once into one
straight-line function, the fused kernel. There is no autograd:
`DifferentiableGraph` runs its forward graph, and the requires_grad part of a
`prim::TypeCheck`/`prim::RequiresGradCheck` type is not checked (every
tensor satisfies it). `fork` runs its subgraph at once and returns a
completed Future. The frontend's `Store`/`Load` and exit statements are
refused: they only exist before `convert-to-ssa` and `exit-transform`.

Calls find their callee by name: `prim.CallMethod` in the `ts.module` of the
object's class, `prim.CallFunction` among the top-level `ts.method`s.
`prim.Enter`/`prim.Exit` call the `__enter__`/`__exit__` methods of the
object's class the same way (`__exit__` gets None for each of its
arguments). Callees are compiled on first use and cached per class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

import numpy as np
from xdsl.dialects.builtin import ArrayAttr, FloatAttr, IntegerAttr, NoneAttr, StringAttr
from xdsl.ir import Attribute, Block, Operation, SSAValue

from xdsl_exir.analysis.overload_resolution import OverloadError, resolve_node
from xdsl_exir.dialects import prim
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.dialects.ts import (
    DTYPE_CODES,
    MethodOp,
    NodeOp,
    ScriptModuleOp,
    TensorValueAttr,
    TSClassType,
    TSComplexType,
    TSTensorType,
    TSTupleType,
    ts_type_str,
)
from xdsl_exir.interpreters.compiler import (
    CompileContext,
    CompiledGraph,
    InterpreterError,
    Prepared,
    register_op,
    register_terminator,
)
from xdsl_exir.interpreters.ts_builtins import (
    Future,
    ScriptException,
    builtin_for,
    implicit_conversion,
)
from xdsl_exir.semantics import kernels as aten_kernels
from xdsl_exir.semantics.inference import Bound, InferenceError, infer_bound, make_tensor
from xdsl_exir.utils import op_registry
from xdsl_exir.utils.aten_enums import enum_arguments, require_enum
from xdsl_exir.utils.diagnostics import op_title
from xdsl_exir.utils.dtypes import dtype_of
from xdsl_exir.utils.function_schema import FunctionSchema, TypeKind
from xdsl_exir.utils.tensor_data import TensorDataError

__all__ = [
    "UNINITIALIZED",
    "MissingData",
    "ScriptFunction",
    "ScriptObject",
    "TSCompileContext",
    "constant_value",
    "tensor_matches",
]

register_terminator(prim.ReturnOp)


# ---------------------------------------------------------------------------
# run-time objects
# ---------------------------------------------------------------------------


class ScriptObject:
    """
    An instance of a TorchScript class: a module (its slots and submodules
    by name) or an object made by `prim::CreateObject`. Its methods are
    those of the `ts.module` of its class.
    """

    __slots__ = ("class_name", "attrs")

    def __init__(self, class_name: str, attrs: dict[str, Any] | None = None) -> None:
        self.class_name = class_name
        self.attrs: dict[str, Any] = attrs if attrs is not None else {}

    def get(self, name: str) -> Any:
        try:
            value = self.attrs[name]
        except KeyError:
            raise InterpreterError(f"an object of class {self.class_name} has no attribute '{name}'") from None
        if type(value) is MissingData:
            raise InterpreterError(f"the slot '{name}' of {self.class_name} has no data in the input")
        return value

    def __repr__(self) -> str:
        return f"<{self.class_name} object>"


class MissingData:
    """The value of a tensor slot whose data the input does not hold; reading it is an error."""

    __slots__ = ("class_name", "name")

    def __init__(self, class_name: str, name: str) -> None:
        self.class_name = class_name
        self.name = name


class ScriptFunction:
    """A function value (`prim::Constant[name="f"]`), called by `prim::CallFunction`."""

    __slots__ = ("name", "_ctx", "_compiled")

    def __init__(self, name: str, ctx: CompileContext) -> None:
        self.name = name
        self._ctx = ctx
        self._compiled: CompiledGraph | None = None

    def __call__(self, *args: Any) -> tuple[Any, ...]:
        if self._compiled is None:
            self._compiled = _context(self._ctx).function(self.name)
        return self._compiled(*args)

    def __repr__(self) -> str:
        return f"<function {self.name}>"


class _Uninitialized:
    """`prim::Uninitialized`: a value the compiler proved is never used; using it is an error."""

    __slots__ = ()

    def _fail(self, *_: object, **__: object) -> Any:
        raise InterpreterError("a value from prim::Uninitialized was used")

    __bool__ = __int__ = __float__ = __index__ = __len__ = __iter__ = __getitem__ = _fail
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = _fail
    __array__ = __lt__ = __le__ = __gt__ = __ge__ = _fail

    def __repr__(self) -> str:
        return "<uninitialized>"


UNINITIALIZED = _Uninitialized()


# ---------------------------------------------------------------------------
# the compile context: classes and functions of the program
# ---------------------------------------------------------------------------


class TSCompileContext(CompileContext):
    """
    A compile context that also knows the TorchScript program: the
    `ts.module` of each class (where methods are found) and the top-level
    `ts.method`s (functions).
    """

    def __init__(self, classes: dict[str, ScriptModuleOp], functions: dict[str, MethodOp]) -> None:
        super().__init__()
        self.classes = classes
        self.functions = functions
        self._methods: dict[tuple[str, str], CompiledGraph] = {}
        self._functions: dict[str, CompiledGraph] = {}

    def compile_method(self, method: MethodOp, key: str) -> CompiledGraph:
        """Compile a `ts.method` with a frame of its own."""
        return self.compile_function(method.body.block, key)

    def method(self, class_name: str, name: str) -> CompiledGraph:
        """The compiled method `name` of a class (cached)."""
        key = (class_name, name)
        compiled = self._methods.get(key)
        if compiled is None:
            module = self.classes.get(class_name)
            if module is None:
                raise InterpreterError(
                    f"the class {class_name} is not in the input (no ts.module of this class), "
                    f"so its method '{name}' cannot run"
                )
            method = module.method(name)
            if method is None:
                raise InterpreterError(f"the class {class_name} has no method '{name}'")
            compiled = self._methods[key] = self.compile_method(method, f"{class_name}.{name}")
        return compiled

    def function(self, name: str) -> CompiledGraph:
        """The compiled top-level function `name` (`helper` or `__torch__.models.helper`)."""
        compiled = self._functions.get(name)
        if compiled is None:
            method = self.functions.get(name) or self.functions.get(name.rsplit(".", 1)[-1])
            if method is None:
                raise InterpreterError(
                    f"the function '{name}' is not in the input (a graph dump does not contain the "
                    "functions it calls: inline them, or give their graphs as top-level ts.methods)"
                )
            compiled = self._functions[name] = self.compile_method(method, name)
        return compiled


def _context(ctx: CompileContext) -> TSCompileContext:
    if not isinstance(ctx, TSCompileContext):
        raise InterpreterError("calls between TorchScript methods need the TorchScript runner (ts_runner)")
    return ctx


# ---------------------------------------------------------------------------
# constants
# ---------------------------------------------------------------------------


def tensor_constant(value: TensorValueAttr) -> np.ndarray:
    """The array a `#ts.tensor_value` holds."""
    if not value.known:
        raise InterpreterError(
            "the data of this tensor constant is not in the input (a dump prints it as <Tensor>); "
            "import the module or function live to run it"
        )
    try:
        return value.to_array()
    except TensorDataError as e:
        raise InterpreterError(f"bad tensor constant: {e}") from None


def constant_value(value: Attribute | None, t: Attribute) -> Any:
    """The Python value of a constant attribute of type `t` (prim.Constant values, attribute slots)."""
    if value is None or isinstance(value, NoneAttr):
        return None
    if isinstance(value, IntegerAttr):
        v = cast(int, value.value.data)
        return bool(v) if value.type.width.data == 1 else v
    if isinstance(value, FloatAttr):
        return float(value.value.data)
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, TensorValueAttr):
        return tensor_constant(value)
    if isinstance(value, ArrayAttr):
        items = cast(tuple[Attribute, ...], value.data)
        if isinstance(t, TSComplexType):
            return complex(constant_value(items[0], t), constant_value(items[1], t))
        if isinstance(t, TSTupleType):
            return tuple(constant_value(v, e) for v, e in zip(items, t.element_types))
        elem = getattr(t, "element", t)
        return [constant_value(v, elem) for v in items]
    raise InterpreterError(f"cannot use the constant {value} as a value")


@register_op(prim.ConstantOp)
def compile_constant(op: Operation, ctx: CompileContext) -> Prepared:
    const = cast(prim.ConstantOp, op)
    if const.fn_name is not None:
        fn = ScriptFunction(const.fn_name.data, ctx)
        return lambda: (fn,)
    value = constant_value(const.value, const.results[0].type)
    if isinstance(value, list):
        template = cast(list[Any], value)
        return lambda: (_deep_copy_list(template),)  # lists are mutable: a fresh one each time
    return lambda: (value,)


def _deep_copy_list(v: list[Any]) -> list[Any]:
    return [_deep_copy_list(x) if isinstance(x, list) else x for x in v]


# ---------------------------------------------------------------------------
# ts.node: operator calls
# ---------------------------------------------------------------------------

def _scalar_type_arg(code: Any) -> Any:
    """A ScalarType argument (an int in TorchScript, `6` is float32) as the kernels' DType."""
    if code is None or isinstance(code, DType):
        return code
    dt = DTYPE_CODES[code] if isinstance(code, int) and 0 <= code < len(DTYPE_CODES) else None
    if dt is None:
        raise InterpreterError(f"{code!r} is not a ScalarType code")
    return dt


def _is_scalar_type(st: Any) -> bool:
    while st.kind is TypeKind.OPTIONAL:
        st = st.elements[0]
    return st.kind is TypeKind.BASE and st.name == "ScalarType"


def _kernel_name(name: str) -> str:
    """`aten::add.Tensor` -> `aten.add.Tensor`, `aten::relu` -> `aten.relu.default`."""
    ir = name.replace("::", ".")
    return ir if ir.count(".") == 2 else ir + ".default"


def _result_fixer(schema_type: Any) -> Callable[[Any], Any] | None:
    """Kernels may return numpy scalars; TorchScript values are arrays or Python numbers."""
    if schema_type.kind is TypeKind.BASE and schema_type.name == "Tensor":
        return lambda r: r if type(r) is np.ndarray else np.asarray(r)
    if schema_type.kind is TypeKind.LIST and schema_type.elements[0].name == "Tensor":
        return lambda r: [x if type(x) is np.ndarray else np.asarray(x) for x in r]
    if schema_type.kind is TypeKind.BASE and schema_type.name in ("int", "float", "bool", "Scalar", "SymInt"):
        return lambda r: r.item() if isinstance(r, (np.ndarray, np.generic)) else r
    return None


def _bind_operands(
    node: NodeOp, schema: FunctionSchema, bindings: Sequence[int | None], conversions: Sequence[str | None]
) -> list[tuple[str, int | None, Any, Callable[[Any], Any] | None]]:
    """Per schema argument: (name, operand index or None, default, conversion)."""
    out: list[tuple[str, int | None, Any, Callable[[Any], Any] | None]] = []
    for i, arg in enumerate(schema.arguments):
        g = bindings[i] if bindings else i
        if g is None:
            out.append((arg.name, None, arg.default_value if arg.has_default else None, None))
            continue
        conv_name = conversions[g] if conversions else None
        conv = implicit_conversion(conv_name, arg.type) if conv_name else None
        if conv is None and _is_scalar_type(arg.type):
            conv = _scalar_type_arg
        out.append((arg.name, g, None, conv))
    return out


def _compile_kernel_call(node: NodeOp, kernel_name: str, schema: FunctionSchema, bound: Sequence[Any]) -> Prepared:
    kernel = aten_kernels.KERNELS[kernel_name]
    constants = {name: default for name, g, default, _ in bound if g is None}
    direct = [(name, g) for name, g, _, conv in bound if g is not None and conv is None]
    converted = [(name, g, conv) for name, g, _, conv in bound if g is not None and conv is not None]
    fixers = [_result_fixer(r.type) for r in schema.returns]
    n_results = len(node.results)
    single = fixers[0] if len(fixers) == 1 else None
    # A graph's enums are run-time values: checked here, where the op verifiers cannot.
    enums = enum_arguments(kernel_name, [a.name for a in schema.arguments])

    def call(*ops: Any) -> tuple[Any, ...]:
        kw = dict(constants)
        for name, g in direct:
            kw[name] = ops[g]
        for name, g, conv in converted:
            kw[name] = conv(ops[g])
        for name in enums:
            require_enum(kernel_name, name, kw.get(name))
        try:
            with np.errstate(all="ignore"):
                res = kernel(**kw)
        except InterpreterError:
            raise
        except Exception:
            refusal = _refusal(schema, kw)
            if refusal is None:
                raise
            raise InterpreterError(refusal) from None
        if n_results == 1:
            return (single(res) if single is not None else res,)
        if n_results == 0:
            return ()
        items = list(res)
        return tuple(f(r) if f is not None else r for f, r in zip(fixers, items))

    return call


def _refusal(schema: FunctionSchema, kw: dict[str, Any]) -> str | None:
    """
    Why torch refuses a failed kernel call, from the operator's inference rule run on
    the arguments' run-time types; None when the rule has no objection (the kernel's
    own message stands).

    A TorchScript graph's types seldom give sizes (and a traced graph's are only those
    it was traced at), so unlike an Export IR program, whose inference rules checked
    every op before it runs, a graph reaches its kernels unchecked. A rule run on
    run-time types costs about a fifth of a whole run of the LSTM cell of
    `benchmarks/torchscript.py` (building the types is most of it), so one per node on
    every call would make small graphs several times slower; run when a kernel fails,
    it costs nothing otherwise and turns numpy's words (`cannot reshape array of size 8
    into shape (2,3)`) into the rule's (`shape [2, 3] is invalid for 8 elements`), which
    `verify-export-ir` gives for the same sizes. What numpy would accept and torch
    refuses (a bias broadcast over the channels, an index taken from the end) the
    kernels refuse themselves, on every path.
    """
    if any(v is UNINITIALIZED for v in kw.values()):
        return None  # named by _guard_uninitialized
    try:
        bound = Bound(schema, {name: _typed(v) for name, v in kw.items()})
        infer_bound(bound)
        _check_in_place(schema, bound)
    except InferenceError as e:
        tensors = ", ".join(f"{name}: {_tensor_text(v)}" for name, v in kw.items() if isinstance(v, np.ndarray))
        return f"{e} ({tensors})" if tensors else str(e)
    except Exception:  # NoInference, or a rule that cannot read some run-time value
        return None
    return None


def _check_in_place(schema: FunctionSchema, bound: Bound) -> None:
    """
    An in-place operator is typed as the tensor it writes, so its rule cannot object to
    a result of other sizes; its functional form's rule gives the result, which must
    fit the written tensor (torch: "output with shape [1, 3] doesn't match the
    broadcast shape [2, 3]").
    """
    functional = op_registry.functional_variant(schema.op_name)
    entry = op_registry.lookup(functional) if functional is not None else None
    if entry is None or not schema.arguments or not schema.arguments[0].is_write:
        return
    if len(entry.schema.arguments) != len(schema.arguments):
        return
    values = [bound[a.name] for a in schema.arguments]  # the same arguments, in order (names may differ)
    results = infer_bound(Bound(entry.schema, {a.name: v for a, v in zip(entry.schema.arguments, values)}))
    written = values[0]
    if not results or not isinstance(written, SSAValue):
        return
    have, want = written.type, results[0]
    if isinstance(have, TensorType) and isinstance(want, TensorType) and list(have.sizes) != list(want.sizes):
        raise InferenceError(
            f"output with shape {list(have.sizes)} doesn't match the broadcast shape {list(want.sizes)}"
        )


def _typed(value: Any) -> Any:
    """A run-time value as an inference rule reads an argument: a tensor as a value of its type."""
    if isinstance(value, np.ndarray):
        return Block(arg_types=[make_tensor(list(value.shape), dtype_of(value))]).args[0]
    if isinstance(value, list | tuple):
        return [_typed(v) for v in cast(Sequence[Any], value)]
    return value


def _tensor_text(value: np.ndarray) -> str:
    try:
        return f"{dtype_of(value).value}{list(value.shape)}"
    except NotImplementedError:
        return f"{value.dtype}{list(value.shape)}"


def _compile_builtin_call(node: NodeOp, fn: Callable[..., Any], bound: Sequence[Any], n_vararg: int) -> Prepared:
    n_fixed = len(bound)
    plan = [(g, default, conv) for _, g, default, conv in bound]
    n_results = len(node.results)
    simple = all(g == i and conv is None for i, (g, _, conv) in enumerate(plan))

    def args_of(ops: Sequence[Any]) -> list[Any]:
        args = [default if g is None else (conv(ops[g]) if conv is not None else ops[g]) for g, default, conv in plan]
        args.extend(ops[n_fixed : n_fixed + n_vararg])
        return args

    if n_results == 1:
        if simple:
            return lambda *ops: (fn(*ops),)
        return lambda *ops: (fn(*args_of(ops)),)
    if n_results == 0:

        def run0(*ops: Any) -> tuple[Any, ...]:
            fn(*(ops if simple else args_of(ops)))
            return ()

        return run0
    return lambda *ops: tuple(fn(*(ops if simple else args_of(ops))))


def _compile_region_call(node: Operation, ctx: CompileContext) -> Prepared:
    """A node whose (first) region is a subgraph run on the node's inputs."""
    body = ctx.compile_region(node.regions[0])
    return lambda *xs: body(*xs)


def _requires_grad_check(node: Operation, ctx: CompileContext) -> Prepared:
    n = len(node.operands)
    return lambda *xs: (*xs[:n], True)


def _create_object(node: Operation, ctx: CompileContext) -> Prepared:
    t = node.results[0].type
    if not isinstance(t, TSClassType):
        raise InterpreterError(f"prim::CreateObject must make an object of a class, not {ts_type_str(t)}")
    name = t.qualname.data
    return lambda: (ScriptObject(name),)


_SPECIAL_NODES: dict[str, Callable[[Operation, CompileContext], Prepared]] = {
    "prim::FallbackGraph": _compile_region_call,
    "prim::RequiresGradCheck": _requires_grad_check,
    "prim::CreateObject": _create_object,
}
"""Node kinds with no schema that the interpreter still runs."""


@register_op(NodeOp)
def compile_node(op: Operation, ctx: CompileContext) -> Prepared:
    node = cast(NodeOp, op)
    kind = node.kind.data
    special = _SPECIAL_NODES.get(kind)
    if special is not None:
        return special(node, ctx)
    if node.regions and len(node.regions[0].block.args) == len(node.operands):
        return _compile_region_call(node, ctx)
    try:
        resolved = resolve_node(kind, [v.type for v in node.operands])
    except OverloadError as e:
        if str(e).startswith("unknown operator"):
            raise InterpreterError(f"no implementation of {kind} (torch defines no operator of that name)", op) from None
        raise InterpreterError(str(e), op) from None
    schema = resolved.schema
    bound = _bind_operands(node, schema, resolved.bindings, resolved.conversions)
    kernel_name = _kernel_name(resolved.name)
    if aten_kernels.has_kernel(kernel_name):
        return _guard_uninitialized(_compile_kernel_call(node, kernel_name, schema, bound))
    custom = op_registry.custom_operator(resolved.name)
    if custom is not None:  # a custom operator's registered kernel, its arguments by name
        names = [a.name for a in schema.arguments]
        kernel = custom.kernel
        return _guard_uninitialized(_compile_builtin_call(node, lambda *a: kernel(**dict(zip(names, a))), bound, 0))
    fn = builtin_for(resolved.name, schema)
    if fn is None:
        raise InterpreterError(f"no implementation of {resolved.name} ({schema})", op)
    n_vararg = len(node.operands) - len(schema.arguments) if schema.is_vararg else 0
    return _guard_uninitialized(_compile_builtin_call(node, fn, bound, n_vararg))


def _guard_uninitialized(call: Prepared) -> Prepared:
    """Name a `prim::Uninitialized` operand when it makes an operator fail (checked only on failure)."""

    def run(*ops: Any) -> tuple[Any, ...]:
        try:
            return call(*ops)
        except InterpreterError:
            raise
        except Exception:
            if any(o is UNINITIALIZED for o in ops):
                raise InterpreterError("a value from prim::Uninitialized was used") from None
            raise

    return run


# ---------------------------------------------------------------------------
# control flow
# ---------------------------------------------------------------------------


@register_op(prim.IfOp)
def compile_if(op: Operation, ctx: CompileContext) -> Prepared:
    then_block = ctx.compile_region(op.regions[0])
    else_block = ctx.compile_region(op.regions[1])

    def run(cond: Any) -> tuple[Any, ...]:
        return then_block() if cond else else_block()

    return run


@register_op(prim.LoopOp)
def compile_loop(op: Operation, ctx: CompileContext) -> Prepared:
    body = ctx.compile_region(cast(prim.LoopOp, op).body)

    def run(max_trip_count: Any, cond: Any, *carried: Any) -> tuple[Any, ...]:
        values = carried
        i = 0
        while cond and i < max_trip_count:
            out = body(i, *values)
            cond = out[0]
            values = out[1:]
            i += 1
        return tuple(values)

    return run


@register_op(
    prim.StoreOp,
    prim.LoadOp,
    prim.LoopContinuationOp,
    prim.ReturnStmtOp,
    prim.BreakStmtOp,
    prim.ContinueStmtOp,
    prim.WithOp,
)
def compile_frontend_only(op: Operation, ctx: CompileContext) -> Prepared:
    raise InterpreterError(
        f"'{op_title(op)}' only exists while the frontend builds a graph; "
        "run convert-to-ssa and exit-transform first"
    )


@register_op(prim.UninitializedOp)
def compile_uninitialized(op: Operation, ctx: CompileContext) -> Prepared:
    return lambda: (UNINITIALIZED,)


@register_op(prim.RaiseExceptionOp)
def compile_raise(op: Operation, ctx: CompileContext) -> Prepared:
    def run(message: Any, cls: Any = None) -> tuple[Any, ...]:
        raise ScriptException(str(message), str(cls) if cls is not None else "RuntimeError")

    return run


# ---------------------------------------------------------------------------
# lists, tuples, dicts
# ---------------------------------------------------------------------------


@register_op(prim.ListConstructOp)
def compile_list_construct(op: Operation, ctx: CompileContext) -> Prepared:
    return lambda *xs: (list(xs),)


@register_op(prim.ListUnpackOp)
def compile_list_unpack(op: Operation, ctx: CompileContext) -> Prepared:
    n = len(op.results)

    def run(seq: Any) -> tuple[Any, ...]:
        if len(seq) != n:
            raise ScriptException(f"Expected {n} elements in a list but found {len(seq)}", "RuntimeError")
        return tuple(seq)

    return run


@register_op(prim.TupleConstructOp)
def compile_tuple_construct(op: Operation, ctx: CompileContext) -> Prepared:
    return lambda *xs: (xs,)


@register_op(prim.TupleUnpackOp)
def compile_tuple_unpack(op: Operation, ctx: CompileContext) -> Prepared:
    n = len(op.results)

    def run(t: Any) -> tuple[Any, ...]:
        if len(t) != n:
            raise InterpreterError(f"expected a tuple of {n} elements, got {len(t)}")
        return tuple(t)

    return run


@register_op(prim.TupleIndexOp)
def compile_tuple_index(op: Operation, ctx: CompileContext) -> Prepared:
    def run(t: Any, i: Any) -> tuple[Any, ...]:
        if not -len(t) <= i < len(t):
            raise ScriptException("tuple index out of range", "IndexError")
        return (t[i],)

    return run


@register_op(prim.DictConstructOp)
def compile_dict_construct(op: Operation, ctx: CompileContext) -> Prepared:
    return lambda *kv: (dict(zip(kv[0::2], kv[1::2])),)


# ---------------------------------------------------------------------------
# objects and calls
# ---------------------------------------------------------------------------


def _as_object(v: Any, what: str) -> ScriptObject:
    if not isinstance(v, ScriptObject):
        raise InterpreterError(f"{what} needs an object, got {type(v).__name__}")
    return v


@register_op(prim.GetAttrOp)
def compile_get_attr(op: Operation, ctx: CompileContext) -> Prepared:
    name = cast(prim.GetAttrOp, op).attr.data
    return lambda obj: (_as_object(obj, "prim::GetAttr").get(name),)


@register_op(prim.SetAttrOp)
def compile_set_attr(op: Operation, ctx: CompileContext) -> Prepared:
    name = cast(prim.SetAttrOp, op).attr.data

    def run(obj: Any, value: Any) -> tuple[Any, ...]:
        _as_object(obj, "prim::SetAttr").attrs[name] = value
        return ()

    return run


def _fit_results(res: tuple[Any, ...], n: int) -> tuple[Any, ...]:
    """A call's values for a node with `n` results (a method returning nothing yields None)."""
    if len(res) == n:
        return res
    if n == 0:
        return ()
    if n == 1 and not res:
        return (None,)
    raise InterpreterError(f"the callee returned {len(res)} values, the call expects {n}")


def _method_caller(ctx: CompileContext, obj_type: Attribute, name: str) -> Callable[[ScriptObject], CompiledGraph]:
    """How to find method `name` of the object a call receives: statically if its class is known."""
    tctx = _context(ctx)
    if isinstance(obj_type, TSClassType) and obj_type.qualname.data in tctx.classes:
        class_name = obj_type.qualname.data
        cache: list[CompiledGraph] = []

        def static(obj: ScriptObject) -> CompiledGraph:
            if not cache:
                cache.append(tctx.method(class_name, name))
            return cache[0]

        return static
    return lambda obj: tctx.method(obj.class_name, name)


@register_op(prim.CallMethodOp)
def compile_call_method(op: Operation, ctx: CompileContext) -> Prepared:
    name = cast(prim.CallMethodOp, op).method.data
    find = _method_caller(ctx, op.operands[0].type, name)
    n = len(op.results)

    def run(obj: Any, *args: Any) -> tuple[Any, ...]:
        obj = _as_object(obj, "prim::CallMethod")
        try:
            return _fit_results(find(obj)(obj, *args), n)
        except InterpreterError as e:
            _called_from(e, op)
            raise

    return run


def _called_from(e: InterpreterError, call: Operation) -> None:
    """
    Note the call a failure inside a method or function passed through: an op of
    a submodule's method is located in torch (`torch/nn/modules/linear.py`), the
    call in the user's `forward`, where the message then points. A traced
    module's calls carry no location (tracing records none for a module call),
    so there the op's `scope: __module.lin` is what names the submodule.
    """
    if e.op is not None and e.op is not call and not call.is_ancestor(e.op):
        e.call_sites.append(call)


@register_op(prim.CallFunctionOp)
def compile_call_function(op: Operation, ctx: CompileContext) -> Prepared:
    n = len(op.results)

    def run(fn: Any, *args: Any) -> tuple[Any, ...]:
        if not isinstance(fn, ScriptFunction):
            raise InterpreterError(f"prim::CallFunction needs a function, got {type(fn).__name__}")
        try:
            return _fit_results(fn(*args), n)
        except InterpreterError as e:
            _called_from(e, op)
            raise

    return run


@register_op(prim.EnterOp)
def compile_enter(op: Operation, ctx: CompileContext) -> Prepared:
    find = _method_caller(ctx, op.operands[0].type, "__enter__")
    n = len(op.results)

    def run(obj: Any) -> tuple[Any, ...]:
        obj = _as_object(obj, "prim::Enter")
        return _fit_results(find(obj)(obj), n)

    return run


@register_op(prim.ExitOp)
def compile_exit(op: Operation, ctx: CompileContext) -> Prepared:
    find = _method_caller(ctx, op.operands[0].type, "__exit__")
    n = len(op.results)

    def run(obj: Any) -> tuple[Any, ...]:
        obj = _as_object(obj, "prim::Exit")
        method = find(obj)
        n_args = len(method.body.arg_slots) - 1
        res = method(obj, *([None] * n_args))
        return _fit_results(res, n) if n != 1 or res else (None,)

    return run


# ---------------------------------------------------------------------------
# the graph executor's nodes
# ---------------------------------------------------------------------------


@register_op(prim.ConstantChunkOp)
def compile_constant_chunk(op: Operation, ctx: CompileContext) -> Prepared:
    chunk = cast(prim.ConstantChunkOp, op)
    chunks = cast(int, chunk.chunks.value.data)
    dim = cast(int, chunk.dim.value.data)
    kernel = aten_kernels.KERNELS["aten.chunk.default"]

    def run(x: Any) -> tuple[Any, ...]:
        parts = kernel(self=x, chunks=chunks, dim=dim)
        if len(parts) != chunks:
            raise ScriptException(
                f"Expected chunk to return at least {chunks} outputs, but got only {len(parts)}", "RuntimeError"
            )
        return tuple(parts)

    return run


@register_op(prim.FusionGroupOp, prim.TensorExprGroupOp, prim.DifferentiableGraphOp)
def compile_subgraph(op: Operation, ctx: CompileContext) -> Prepared:
    return _compile_region_call(op, ctx)


@register_op(prim.ForkOp)
def compile_fork(op: Operation, ctx: CompileContext) -> Prepared:
    body = ctx.compile_region(cast(prim.ForkOp, op).subgraph)

    def run(*xs: Any) -> tuple[Any, ...]:
        out = body(*xs)
        return (Future(out[0] if len(out) == 1 else out),)

    return run


def tensor_matches(value: Any, t: TSTensorType, check_strides: bool = True) -> bool:
    """
    Whether an array has what a refined tensor type says: dtype, sizes,
    strides (on dimensions longer than 1) and device. requires_grad is not
    checked: there is no autograd here.
    """
    if not isinstance(value, np.ndarray):
        return False
    dt = t.dtype
    if dt is not None:
        try:
            if aten_kernels.numpy_dtype(dt) != value.dtype:
                return False
        except NotImplementedError:
            return False
    shape = t.shape
    if shape is not None:
        if len(shape) != value.ndim or any(d is not None and d != s for d, s in zip(shape, value.shape)):
            return False
        strides = t.stride_list
        if check_strides and strides is not None:
            actual = [s // value.itemsize for s in value.strides]
            if any(w is not None and n > 1 and w != a for w, a, n in zip(strides, actual, value.shape)):
                return False
    device = t.device_name
    return device is None or device == "cpu"


@register_op(prim.TypeCheckOp)
def compile_type_check(op: Operation, ctx: CompileContext) -> Prepared:
    types = [t if isinstance(t, TSTensorType) else TSTensorType() for t in cast(prim.TypeCheckOp, op).types.data]

    def run(*xs: Any) -> tuple[Any, ...]:
        ok = all(tensor_matches(x, t) for x, t in zip(xs, types))
        return (*xs, ok)

    return run


@register_op(prim.GuardOp)
def compile_guard(op: Operation, ctx: CompileContext) -> Prepared:
    t = op.results[0].type

    def run(x: Any, *_: Any) -> tuple[Any, ...]:
        if isinstance(t, TSTensorType) and not tensor_matches(x, t, check_strides=False):
            raise InterpreterError(
                f"prim::Guard failed: the value does not have type {ts_type_str(t)} "
                "(the interpreter has no deoptimized graph to bail out to)"
            )
        return (x,)

    return run


@register_op(prim.BailOutOp)
def compile_bailout(op: Operation, ctx: CompileContext) -> Prepared:
    return lambda x, *_: (x,)


@register_op(prim.ProfileOp)
def compile_profile(op: Operation, ctx: CompileContext) -> Prepared:
    n = len(op.results)
    return lambda *xs: tuple(xs[:n])
