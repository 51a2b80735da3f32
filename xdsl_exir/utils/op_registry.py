"""
The operators xdsl-exir knows, read from the checked-in schema list.

`xdsl_exir/dialects/torch_schemas.txt` (generated from torch by
`scripts/gen_torch_schemas.py`) is the single source of truth: one FunctionSchema
per line with the operator's tags. Nothing here imports torch. Schemas are parsed
on first use only, so asking whether a target is known stays cheap.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import metadata
from importlib.resources import files

from xdsl_exir.utils.function_schema import FunctionSchema, SchemaType, parse_schema

HIGHER_ORDER_OPS: frozenset[str] = frozenset(
    {
        "higher_order.cond",
        "higher_order.while_loop",
        "higher_order.map_impl",
        "higher_order.scan",
        "higher_order.associative_scan",
        "higher_order.invoke_subgraph",
        "higher_order.auto_functionalized",
        "higher_order.auto_functionalized_v2",
        "higher_order.with_effects",
        "higher_order.wrap_with_set_grad_enabled",
        "higher_order.wrap_with_autocast",
        "higher_order.run_const_graph",
        "higher_order.executorch_call_delegate",
        "higher_order.flex_attention",
        "higher_order.out_dtype",
    }
)
"""`torch.ops.higher_order.*` targets an Export IR graph may call."""

PYTHON_TARGETS: frozenset[str] = frozenset(
    {
        "operator.getitem",
        "_operator.getitem",
        *(f"{m}.{f}" for m in ("operator", "_operator") for f in (
            "add", "sub", "mul", "floordiv", "truediv", "mod", "pow", "neg",
            "eq", "ne", "lt", "le", "gt", "ge", "and_", "or_", "not_", "abs",
        )),
        "math.ceil",
        "math.floor",
        "math.trunc",
        "math.sqrt",
        "torch.sym_not",
        "torch.sym_max",
        "torch.sym_min",
        "torch.sym_float",
        "torch.sym_int",
        "torch.sym_ite",
        "torch.sym_sqrt",
        "torch.sym_sum",
    }
)
"""Python callables FX records for SymInt arithmetic."""

CORE_IR_EXTRAS: frozenset[str] = frozenset(
    {
        "aten._assert_async.default",
        "aten._assert_async.msg",
        "aten._assert_scalar.default",
        "aten._assert_tensor_metadata.default",
        "aten._functional_assert_async.msg",
        "aten._functional_assert_scalar.default",
        "aten._make_dep_token.default",
        "aten.sym_constrain_range.default",
        "aten.sym_constrain_range_for_size.default",
        "aten.sym_size.default",
        "aten.sym_stride.default",
        *(f"aten.__{d}shift__.{o}" for d in "lr" for o in ("Scalar", "Tensor")),
        *(f"aten.bitwise_{d}_shift.{o}" for d in ("left", "right") for o in ("Tensor", "Tensor_Scalar", "Scalar_Tensor")),
    }
)
"""
ATen operators without the `core` tag that core ATen IR still holds, because
`run_decompositions()` keeps them: the runtime assertions and SymInt queries
`torch.export` inserts for dynamic shapes, and the bit shifts, which no core
operator expresses.
"""


@dataclass(frozen=True)
class OperatorEntry:
    """One overload: its schema text and torch's tags for it."""

    op_name: str
    schema_text: str
    tags: frozenset[str]

    @property
    def schema(self) -> FunctionSchema:
        return _parse_cached(self.schema_text)

    @property
    def nondeterministic(self) -> bool:
        """torch tags it random (`nondeterministic_seeded`: `rand`, `dropout`) or not bit-reproducible
        (`nondeterministic_bitwise`): two calls on the same operands may differ, so no pass may fold,
        merge or hoist it."""
        return bool(self.tags & NONDETERMINISTIC_TAGS)


NONDETERMINISTIC_TAGS = frozenset({"nondeterministic_seeded", "nondeterministic_bitwise"})


@cache
def _parse_cached(text: str) -> FunctionSchema:
    return parse_schema(text)


def op_name_of(qualified: str, overload: str) -> str:
    """`aten::add` + `Tensor` -> `aten.add.Tensor`; no overload -> `.default`."""
    return f"{qualified.replace('::', '.')}.{overload or 'default'}"


def _split_line(line: str) -> tuple[str, frozenset[str]]:
    text, sep, tags = line.rpartition("  # ")
    if not sep:
        return line, frozenset()
    return text, frozenset(t.strip() for t in tags.split(",") if t.strip())


@cache
def all_operators() -> dict[str, OperatorEntry]:
    """Every overload of the schema list, keyed by IR name (`aten.add.Tensor`)."""
    content = files("xdsl_exir.dialects").joinpath("torch_schemas.txt").read_text()
    entries: dict[str, OperatorEntry] = {}
    for line in content.splitlines():
        if not line or line.startswith("#"):
            continue
        text, tags = _split_line(line)
        head = text.split("(", 1)[0]
        qualified, _, overload = head.partition(".")
        name = op_name_of(qualified, overload)
        entries[name] = OperatorEntry(name, text, tags)
    return entries


def lookup(target: str) -> OperatorEntry | None:
    """The registry entry of a call_function target, if it is an operator (custom ones included)."""
    name = _normalize_target(target)
    entry = all_operators().get(name)
    if entry is None and (custom := custom_operator(name)) is not None:
        return custom.entry
    return entry


def _normalize_target(target: str) -> str:
    # Accept the spellings FX and serialized archives use for OpOverloads.
    for prefix in ("torch.ops.", "torch._ops."):
        if target.startswith(prefix):
            target = target[len(prefix):]
    if "::" in target:
        qualified, _, overload = target.partition(".")
        return op_name_of(qualified, overload)
    return target


@cache
def torch_namespaces() -> frozenset[str]:
    """The operator namespaces of torch's own schema list (`aten`, `prims`, `quantized`, ...)."""
    return frozenset(name.split(".", 1)[0] for name in all_operators())


def is_known_target(target: str) -> bool:
    """An ATen/prim operator, a higher-order op, an FX SymInt callable or a registered custom operator."""
    norm = _normalize_target(target)
    return (
        norm in all_operators()
        or norm in HIGHER_ORDER_OPS
        or norm in PYTHON_TARGETS
        or custom_operator(norm) is not None
    )


CAST_ARGUMENTS: dict[str, frozenset[str]] = {
    name: frozenset({"value"})
    for name in (
        "aten.masked_fill.Scalar", "aten.masked_fill.Tensor", "aten.masked_fill_.Scalar", "aten.masked_fill_.Tensor",
        "aten.fill.Scalar", "aten.fill.Tensor", "aten.fill_.Scalar", "aten.fill_.Tensor",
        "aten.index_fill.int_Scalar", "aten.index_fill.int_Tensor",
    )
}  # fmt: skip
"""
Arguments of pointwise-tagged operators that take no part in type promotion:
torch casts them to `self`'s dtype (`masked_fill` of an int64 tensor with 1.5 is
int64), so the lowering must not promote for them and the verifier's
`no-promotion` rule does not count them.
"""


# ---------------------------------------------------------------------------
# Custom operators
# ---------------------------------------------------------------------------

KERNEL_ENTRY_POINT_GROUP = "xdsl_exir.kernels"
"""
Packages register kernels of their `torch.library` operators under this entry-point
group: the entry point's name is the operator namespace (`mylib`), its object a
function of no arguments that calls `register_kernel` for each operator. It is
loaded the first time an operator of that namespace is looked up.
"""


@dataclass(frozen=True)
class CustomOperator:
    """
    A user's operator (`mylib::scale2`) the interpreter can run: a numpy kernel,
    optionally the operator's FunctionSchema (which binds arguments, states its
    effects and makes it a known operator for the verifier and the passes) and a
    result-type rule (which lets shape-propagation and the TorchScript lowering
    type its calls).
    """

    op_name: str
    kernel: Callable[..., object]
    entry: OperatorEntry | None = None
    infer: Callable[..., object] | None = None


_CUSTOM: dict[str, CustomOperator] = {}
_LOADED_NAMESPACES: set[str] = set()


class CustomOperatorError(ValueError):
    """A custom operator registration that cannot be right (a bad name or schema)."""


def custom_op_name(name: str) -> str:
    """`mylib::scale2`, `mylib.scale2.default`, `torch.ops.mylib.scale2.default` -> `mylib.scale2.default`."""
    norm = _normalize_target(name)
    if norm.count(".") == 1:
        norm += ".default"
    return norm


def register_kernel(
    name: str,
    kernel: Callable[..., object],
    *,
    schema: str | None = None,
    infer: Callable[..., object] | None = None,
) -> CustomOperator:
    """
    Register a numpy kernel for a custom operator, for the interpreter and the passes.

    `kernel` receives the call's arguments as the program records them (numpy arrays
    for tensors, Python scalars, lists); with a `schema` (`"mylib::scale2(Tensor x,
    float k=2.) -> Tensor"`) they are first bound to it, by name, defaults filled in.
    It returns an array (or a tuple of them for several results); the runner gives
    each result the dtype the IR records and refuses one of another shape.
    `infer(**arguments)` (schema required) receives tensor arguments as their
    `!exir.tensor` types and returns the result type(s). ATen operators cannot be
    overridden; registering a name again replaces it.
    """
    op_name = custom_op_name(name)
    namespace = op_name.split(".", 1)[0]
    if namespace in ("aten", "prim", "prims") or op_name in all_operators():
        raise CustomOperatorError(f"{op_name} is an operator of torch, not a custom operator")
    if not callable(kernel):
        raise CustomOperatorError(f"the kernel of {op_name} is not callable")
    entry = None
    if schema is not None:
        try:
            parsed = parse_schema(schema)
        except ValueError as e:
            raise CustomOperatorError(f"schema of {op_name}: {e}") from None
        if parsed.op_name != op_name:
            raise CustomOperatorError(f"the schema names {parsed.op_name}, not {op_name}")
        entry = OperatorEntry(op_name, schema, frozenset())
    elif infer is not None:
        raise CustomOperatorError(f"{op_name}: a result-type rule needs the operator's schema")
    op = CustomOperator(op_name, kernel, entry, infer)
    _CUSTOM[op_name] = op
    return op


def may_be_custom(target: str) -> bool:
    """Whether facts about `target` may change as custom kernels are registered (caches skip it)."""
    norm = _normalize_target(target)
    return not (norm in all_operators() or norm in HIGHER_ORDER_OPS or norm in PYTHON_TARGETS)


def unregister_kernel(name: str) -> None:
    """Forget a custom operator (tests, notebooks)."""
    _CUSTOM.pop(custom_op_name(name), None)


def custom_operator(target: str) -> CustomOperator | None:
    """The registered custom operator a target names, loading its namespace's entry points first."""
    name = _normalize_target(target)
    found = _CUSTOM.get(name)
    if found is not None:
        return found
    namespace = name.split(".", 1)[0]
    if namespace in _LOADED_NAMESPACES or namespace in ("aten", "prim", "prims", "torch", "operator"):
        return None
    _LOADED_NAMESPACES.add(namespace)
    for ep in metadata.entry_points(group=KERNEL_ENTRY_POINT_GROUP, name=namespace):
        register = ep.load()
        register()
    return _CUSTOM.get(name)


@cache
def _overload_index() -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for name in all_operators():
        namespace, sep, rest = name.partition(".")
        base, sep2, overload = rest.partition(".")
        if sep and sep2 and "." not in overload:
            index.setdefault(f"{namespace}::{base}", []).append(name)
    return {k: tuple(v) for k, v in index.items()}


def overloads(qualified: str) -> tuple[str, ...]:
    """The IR names of every overload of `aten::add`, in schema-list order (a custom operator's registered ones)."""
    found = _overload_index().get(qualified, ())
    if found or "::" not in qualified:
        return found
    custom_operator(qualified.replace("::", ".") + ".default")  # loads the namespace's entry points
    return tuple(
        name for name, op in _CUSTOM.items() if op.entry is not None and op.entry.schema.qualified_name == qualified
    )


# ---------------------------------------------------------------------------
# Functional variants
# ---------------------------------------------------------------------------

_TENSOR_OPTIONS = ("dtype", "layout", "device", "pin_memory")


def _without_alias(t: SchemaType) -> SchemaType:
    return dataclasses.replace(t, alias=None, elements=tuple(_without_alias(e) for e in t.elements))


def _variant_arguments(schema: FunctionSchema) -> tuple[tuple[str, str], ...]:
    """(type, name) of the arguments an operator's variants share (torchgen's
    `FunctionSchema.signature()`): out= arguments, mutability annotations and the
    TensorOptions quartet left out."""
    args = [a for a in schema.arguments if not a.is_out]
    kwarg_names = {a.name for a in args if a.kwarg_only}
    if all(n in kwarg_names for n in _TENSOR_OPTIONS):
        args = [a for a in args if not (a.kwarg_only and a.name in _TENSOR_OPTIONS)]
    return tuple((str(_without_alias(a.type)), a.name) for a in args)


def _functional_base(schema: FunctionSchema) -> str:
    name = schema.name
    if not schema.is_inplace:
        return name
    if name.startswith("__i") and name.endswith("__"):
        return "__" + name[3:]  # __iand__ -> __and__
    return name[:-1]


@cache
def functional_variant(name: str, *, mutable: bool = False) -> str | None:
    """
    The IR name of the overload an in-place or out= overload is a variant of
    (`aten.add_.Tensor` and `aten.add.out` -> `aten.add.Tensor`), None if it
    has none or `name` is neither.

    torch groups an operator's functional, in-place and out= overloads by
    signature (torchgen's `NativeFunctionsGroup`): the same name without the
    in-place `_`, the same arguments once the out= ones, the TensorOptions
    quartet (the factories' out= forms lack it) and mutability annotations are
    left out; a mutating operator's variants group with its generated
    `<name>_functional` overload. Overload names play no part (`pow_.Scalar`
    takes a Tensor and a Scalar: it is `pow.Tensor_Scalar`, not `pow.Scalar`).
    Argument *names* are not compared, as `torch.fx.passes.reinplace` and
    TorchScript's remove-mutation pass do not compare them (`dropout_(Tensor
    self, ...)` is `dropout(Tensor input, ...)` done in place); they only break
    ties (`dequantize.self_out` -> `dequantize.self`, not `.tensor`). The
    variant found need not be functional itself: an in-place view op
    (`squeeze_`, `t_`) has its view. With `mutable`, an overload of the same
    name that writes other arguments is preferred to the generated
    `_functional` one: the out= form of a batch norm that updates running
    statistics is that batch norm plus copies into `out`, which is how a
    kernel derives it.
    """
    entry = all_operators().get(name)
    if entry is None:
        return None
    schema = entry.schema
    if not (schema.is_inplace or schema.is_out):
        return None
    base = f"{schema.namespace}::{_functional_base(schema)}"
    wanted = _variant_arguments(schema)
    types = [t for t, _ in wanted]
    hits: list[tuple[str, bool]] = []
    for candidate in (*overloads(base), *overloads(base + "_functional")):
        other = all_operators()[candidate].schema
        if candidate == name or other.is_inplace or other.is_out or (other.is_mutable and not mutable):
            continue
        have = _variant_arguments(other)
        if [t for t, _ in have] == types:
            hits.append((candidate, have == wanted))
    best = [c for c, same_names in hits if same_names] or [c for c, _ in hits]
    return best[0] if best else None


# ---------------------------------------------------------------------------
# The aten dialect's selection
# ---------------------------------------------------------------------------


@cache
def selected_operators() -> tuple[str, ...]:
    """The IR names `aten_ops.txt` lists, in file order: the overloads the aten dialect has ops for."""
    text = files("xdsl_exir.dialects").joinpath("aten_ops.txt").read_text()
    return tuple(s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#"))


def selection_violations(names: Sequence[str]) -> list[str]:
    """
    Where a list of overloads breaks the rule `aten_ops.txt` states: every
    core-tagged aten overload, chosen pre-decomposition operators, and their
    in-place and out= variants. Checked: each name is a known overload,
    listed once; every core overload is listed; every in-place or out= variant
    of a listed overload is listed; every listed in-place or out= overload is
    core or a variant of a listed one (an in-place overload without a
    functional variant, such as TorchScript's `copy_.int`, may belong to a
    listed operator by name). Which functional operators beyond core are
    worth listing is the list's own choice.
    """
    ops = all_operators()
    listed = set(names)
    problems = [f"{n}: not an overload of torch_schemas.txt" for n in sorted(listed) if n not in ops]
    problems += [f"{n}: listed twice" for n in sorted(listed) if names.count(n) > 1]
    aten = [n for n in ops if n.startswith("aten.")]
    core = {n for n in aten if "core" in ops[n].tags}
    problems += [f"{n}: core-tagged but not listed" for n in sorted(core - listed)]
    for n in aten:
        variant = functional_variant(n, mutable=True)
        if variant in listed and n not in listed:
            problems.append(f"{n}: a variant of the listed {variant}, not listed")
    for n in sorted(listed & set(aten)):
        schema = ops[n].schema
        if n in core or not (schema.is_inplace or schema.is_out):
            continue
        variant = functional_variant(n, mutable=True)
        if variant in listed:
            continue
        if variant is None and schema.is_inplace and any(o in listed for o in overloads(f"aten::{schema.name[:-1]}")):
            continue
        problems.append(f"{n}: an in-place/out= overload whose functional form {variant} is not listed")
    return problems
