"""
`--emit torchscript-python`: TorchScript programs as the Python printer writes them.

TorchScript shows a graph as Python source (`ScriptModule.code`, and the
`code/` folder of a `torch.jit.save` archive); the JIT Technical Overview's "Python Printer".
This target prints `ts.method`s and `ts.module`s the way torch 2.13 does:

    def forward(self,
        x: Tensor,
        y: int,
        z: float) -> Tensor:
      if torch.gt(y, 2):
        x0 = torch.add(x, z)
      else:
        x0 = torch.add(x, y)
      return x0

`method_code(method)` is `.code` of one function or method (a method's `self`
unannotated); `print_torchscript_python(module)` is the whole program laid
out like the archive: free functions, then one `class Name(Module):` per
module class with `__parameters__`, `__buffers__`, an annotation per slot and
submodule, and its methods (`self` annotated). When classes live in more than
one archive file (`__torch__.py`, `__torch__/torch/nn/modules/linear.py`),
each file starts with a `# code/<path>.py` comment. Tensor constants (and
strings with non-ASCII characters) are `CONSTANTS.c<N>`, listed in comments
at the end; `TorchScriptPythonPrinter.constants` holds their values.

The rules are torch's (`python_print.cpp`):

* constants are inlined at their uses; a constant whose text would make a
  long line (40 columns with its indentation) is assigned first;
* a value is inlined into its single use when it has no name of its own
  (or its use is a `return`), its node has one output and no blocks, and the
  node comes right before its user in expression-tree order, so that
  re-parsing the expression evaluates everything in the original order
  (side effects included); a long inlined expression is split again, its
  earlier siblings first;
* names come from name hints (`x.1` -> `x`, then `x0`, `x1` ... once taken),
  unnamed values are `_0`, `_1` ...; the counters run on across the
  functions of one archive file, as torch's do;
* `aten::xxx` is `torch.xxx(...)` (`aten::len` is `torch.len(l)` as in
  torch), other namespaces `ops.<ns>.<name>(...)`; arguments equal to their
  schema defaults are dropped from the end, keyword-only ones are named, and
  `out=` arguments are always named (the overload is resolved from the input
  types, `analysis/overload_resolution.py`); `aten::__getitem__` is `l[i]`, `aten::Int`
  `int(x)`, tuples, lists and dicts are literals (`annotate(List[int], [])`
  when empty), `prim::GetAttr` `self.w`, `prim::SetAttr` `self.w = v`,
  `prim::CallMethod` `(self.lin).forward(x, )`, `prim::Uninitialized`
  `uninitialized(T)`, `prim::If` an if/else assigning its outputs,
  `prim::Loop` a `for _ in range(n)` or a `while` loop;
* the first assignment of an Optional / Union variable declares its type
  (`o : Optional[int] = torch.mul(n, 2)`), loop variables whose type differs
  from their initial value's too;
* floats print like torch's IValue (`1.`, `0.10000000000000001`, `inf`; an
  integral float of 1e10 or more loses its point, `10000000000`, as in
  torch), strings with double quotes and C escapes.

Where torch has no spelling this printer chooses one, so that the output is
always valid Python:

* a `prim::Loop` that is neither a for nor a while loop (torch refuses it):
  `_c = cond` / `for i in range(n):` / `if _c: <body> else: break`;
* `prim::FusionGroup`, `prim::DifferentiableGraph`, `prim::TensorExprGroup`
  and nodes of other kinds holding a subgraph over their inputs
  (`prim::FallbackGraph`): the subgraph as a nested
  `def FusionGroup_0(a: Tensor, ...)` printed right before the node, which
  calls it; `prim::fork` is torch's `def __forked_function():` /
  `fork(__forked_function)`;
* a call of a `prim::X(...)` schema shows all its inputs (torch none);
* `prim::ConstantChunk` is `a, b = torch.chunk(x, chunks, dim)`;
* node attributes without a Python spelling of their own (`prim::profile`,
  `prim::BailOut`, unknown kinds) are keyword arguments of the `ops` call;
* the frontend's `prim::Store` / `prim::Load` and exit statements are
  assignments, names, `break`, `continue` and `return`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import IO

from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue, TypeAttribute
from xdsl.utils.exceptions import DiagnosticException
from xdsl.utils.target import Target

from xdsl_exir.analysis.overload_resolution import OverloadError, resolve_node, schema_type_to_ts
from xdsl_exir.dialects.prim import (
    INT64_MAX,
    BailOutOp,
    BreakStmtOp,
    CallFunctionOp,
    CallMethodOp,
    ConstantChunkOp,
    ConstantOp,
    ContinueStmtOp,
    DictConstructOp,
    DifferentiableGraphOp,
    EnterOp,
    ExitOp,
    ForkOp,
    FusionGroupOp,
    GetAttrOp,
    IfOp,
    ListConstructOp,
    ListUnpackOp,
    LoadOp,
    LoopOp,
    PrimOp,
    ReturnOp,
    ReturnStmtOp,
    SetAttrOp,
    StoreOp,
    TensorExprGroupOp,
    TupleConstructOp,
    TupleIndexOp,
    TupleUnpackOp,
    UninitializedOp,
    WithOp,
)
from xdsl_exir.dialects.ts import (
    MethodOp,
    NodeOp,
    ScriptModuleOp,
    SlotOp,
    TensorValueAttr,
    TSAnyType,
    TSComplexType,
    TSDeviceType,
    TSDictType,
    TSFunctionType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOptionalType,
    TSTensorType,
    TSTupleType,
    TSTypeError,
    TSUnionType,
    parse_ts_type,
    ts_annotation_str,
    ts_type_str,
)
from xdsl_exir.utils.diagnostics import ExirDiagnostic
from xdsl_exir.utils.function_schema import (
    Argument,
    FunctionSchema,
    SchemaParseError,
    SchemaType,
    TypeKind,
    parse_schema,
)
from xdsl_exir.utils.op_registry import all_operators

__all__ = [
    "TorchScriptPythonPrinter",
    "TorchScriptPythonTarget",
    "annotation_str",
    "emit_torchscript_python",
    "format_float",
    "method_code",
    "print_torchscript_python",
    "quote_string",
]

# ---------------------------------------------------------------------------
# Spelling of types and constants
# ---------------------------------------------------------------------------

RESERVED_NAMES = frozenset(
    {
        # what the importer's environment defines
        "_", "as", "aten", "attribute", "CONSTANTS", "fork", "getattr", "inf", "nan",
        "infj", "nanj", "ops", "__torch__", "uninitialized", "unchecked_cast",
        # Python keywords
        "and", "assert", "async", "await", "break", "class", "continue", "def", "del",
        "elif", "else", "except", "False", "finally", "for", "from", "global", "if",
        "import", "in", "is", "lambda", "None", "nonlocal", "not", "or", "pass",
        "raise", "return", "True", "try", "while", "with", "yield",
    }
)
"""Names torch never gives a local: they mean something to its importer."""

LONG_LINE = 40
"""An expression this long (with two columns per indentation level) gets its own line."""


def annotation_str(t: Attribute) -> str:
    """A TorchScript type as code annotates it (`Optional[List[int]]`): the dialect's one
    spelling (`ts_annotation_str`, torch's `annotation_str`), functions named as code names them."""
    try:
        return ts_annotation_str(t, qualified_function_name)
    except TypeError:
        raise DiagnosticException(f"{t} is not a TorchScript type; it has no Python annotation") from None


def qualified_function_name(name: str) -> str:
    """
    How a function is named in code: graph dumps keep only `helper`
    (`prim::Constant[name="helper"]`), torch prints the qualified name
    `__torch__.helper`; a name with a dot is taken as qualified already.
    """
    return name if "." in name else f"__torch__.{name}"


def format_float(d: float) -> str:
    """A double as TorchScript's IValue prints it: `1.`, `-0.`, `0.10000000000000001`, `1e+20`, `inf`."""
    if math.isnan(d):
        return "nan"
    if math.isinf(d):
        return "inf" if d > 0 else "-inf"
    if abs(d) < 1e10 and d == int(d):
        i = int(d)
        if i == 0 and math.copysign(1.0, d) < 0:
            return "-0."
        return f"{i}."
    return f"{d:.17g}"


def format_complex(re: float, im: float) -> str:
    """`3.+4.j`, `0.-1.j`: real part, sign, magnitude of the imaginary part."""
    sign = "+" if im >= 0 else "-"
    return f"{format_float(re)}{sign}{format_float(abs(im))}j"


_ESCAPES = {"\\": "\\\\", "'": "\\'", '"': '\\"', "\a": "\\a", "\b": "\\b", "\f": "\\f",
            "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def quote_string(s: str) -> str:
    """A string in double quotes with C escapes (`\\n`, `\\'`, octal `\\001`), as torch quotes it."""
    parts: list[str] = []
    for c in s:
        if c in _ESCAPES:
            parts.append(_ESCAPES[c])
        elif " " <= c <= "~":
            parts.append(c)
        else:
            parts.append("".join(f"\\{b:03o}" for b in c.encode()))
    return '"' + "".join(parts) + '"'


def is_valid_identifier(name: str) -> bool:
    return bool(name) and all(c == "_" or c.isascii() and (c.isalpha() or (i and c.isdigit()))
                              for i, c in enumerate(name))


def _make_valid_identifier(name: str) -> str:
    """Replace what an identifier cannot hold by `_` (and prefix one to a leading digit)."""
    head = "_" if not name or name[0].isdigit() else ""
    return head + "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)


def _debug_name_base(name: str) -> str:
    """`x.1` -> `x`: the name without a numeric uniquing suffix."""
    base, dot, suffix = name.rpartition(".")
    return base if dot and suffix.isdigit() else name


def _is_union(t: Attribute) -> bool:
    return isinstance(t, TSOptionalType | TSUnionType)


def _element_inferable(t: Attribute) -> bool:
    """Whether a list / dict literal's element type follows from its members."""
    return not isinstance(t, TSOptionalType | TSUnionType | TSNumberType | TSAnyType)


class _Missing:
    """No compile-time value (the operand is not a constant)."""


MISSING = _Missing()


def constant_value(v: SSAValue) -> object:
    """The Python value of a `prim.Constant` operand (`toIValue`), MISSING for anything else."""
    if not isinstance(v, OpResult) or not isinstance(v.op, ConstantOp):
        return MISSING
    op = v.op
    if op.fn_name is not None:
        return MISSING
    return _attr_value(op.value, v.type)


def _attr_value(value: Attribute | None, t: Attribute) -> object:
    if value is None:
        return None
    if isinstance(value, IntegerAttr):
        n = value.value.data
        return bool(n) if value.type.width.data == 1 else n
    if isinstance(value, FloatAttr):
        return float(value.value.data)
    if isinstance(value, StringAttr):
        return value.data
    if isinstance(value, ArrayAttr):
        if isinstance(t, TSComplexType):
            re, im = (_attr_value(x, TSAnyType()) for x in value.data)
            return complex(float(re), float(im))  # pyright: ignore[reportArgumentType] - a complex constant's parts are floats
        if isinstance(t, TSTupleType):
            return tuple(_attr_value(x, e) for x, e in zip(value.data, t.element_types))
        elem = t.element if isinstance(t, TSListType) else TSAnyType()
        return [_attr_value(x, elem) for x in value.data]
    return MISSING


def _same_ivalue(a: object, b: object) -> bool:
    """IValue equality: the kinds must agree (`1` is not `1.`, `True` is not `1`)."""
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(_same_ivalue(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    return a == b


# ---------------------------------------------------------------------------
# Structure of TorchScript ops
# ---------------------------------------------------------------------------


def node_kind(op: Operation) -> str:
    """The TorchScript node kind of an op: `aten::add`, `prim::If`."""
    if isinstance(op, NodeOp):
        return op.kind.data
    if isinstance(op, PrimOp):
        return op.KIND
    return op.name


_SUBGRAPH_DEF_OPS = (FusionGroupOp, DifferentiableGraphOp, TensorExprGroupOp)


def _scanned_blocks(op: Operation) -> list[Block]:
    """The blocks printed inline with their node (subgraphs are separate functions)."""
    if isinstance(op, ForkOp | BailOutOp | FusionGroupOp | DifferentiableGraphOp | TensorExprGroupOp):
        return []
    if isinstance(op, NodeOp) and _is_subgraph_node(op):
        return []
    return [r.block for r in op.regions if r.blocks]


def _is_subgraph_node(op: NodeOp) -> bool:
    """A node of an unmodelled kind carrying a subgraph over its inputs (`prim::FallbackGraph`)."""
    if len(op.regions) != 1 or len(op.regions[0].blocks) != 1:
        return False
    return len(op.regions[0].block.args) == len(op.operands)


def _block_nodes(block: Block) -> list[Operation]:
    """A block's nodes, without its `prim.Return`."""
    return [op for op in block.ops if not isinstance(op, ReturnOp)]


def _block_return(block: Block, where: Operation) -> ReturnOp:
    last = block.last_op
    if not isinstance(last, ReturnOp):
        raise ExirDiagnostic(where, "a block must end with prim.Return to print it as Python")
    return last


def _node_of(v: SSAValue) -> Operation | None:
    return v.op if isinstance(v, OpResult) else None


@dataclass
class _LoopView:
    """The parts of a `prim.Loop`, named as torch's LoopView names them."""

    op: LoopOp

    @property
    def max_trip_count(self) -> SSAValue:
        return self.op.operands[0]

    @property
    def input_cond(self) -> SSAValue:
        return self.op.operands[1]

    @property
    def body(self) -> Block:
        return self.op.body.block

    @property
    def trip_count(self) -> BlockArgument:
        return self.body.args[0]

    @property
    def next_cond(self) -> SSAValue:
        return _block_return(self.body, self.op).operands[0]

    def kind(self) -> str:
        """`for`, `while`, or `modified` (a loop with both a trip count and a condition)."""
        trip = constant_value(self.max_trip_count)
        cond_in = constant_value(self.input_cond)
        cond_next = constant_value(self.next_cond)
        always_true = cond_in is True and cond_next is True
        trip_specified = trip is MISSING or trip != INT64_MAX or bool(self.trip_count.uses)
        if always_true:
            return "for" if trip_specified else "while"
        return "modified" if trip_specified else "while"


# ---------------------------------------------------------------------------
# The printer
# ---------------------------------------------------------------------------


@dataclass
class _ConstantTable:
    """`CONSTANTS.c<N>`: tensors (deduplicated) and strings with non-ASCII characters."""

    values: list[Attribute] = field(default_factory=list[Attribute])

    def index(self, value: Attribute) -> int:
        if isinstance(value, TensorValueAttr):
            for i, v in enumerate(self.values):
                if v == value:
                    return i
        self.values.append(value)
        return len(self.values) - 1


class _FunctionPrinter:
    """
    Prints functions into one text (one archive file, or one `.code`),
    sharing what torch shares within a file: the `_N` / `x0` counters and the
    constant table. The names taken start afresh with each function.
    """

    def __init__(self, constants: _ConstantTable) -> None:
        self.constants = constants
        self.out: list[str] = []
        self.level = 0
        self.next_id: dict[str, int] = {}
        self.used_names: set[str] = set()
        self.output_inline: set[Operation] = set()
        self.expr_table: dict[SSAValue, str] = {}
        self.ident_refs: dict[SSAValue, str] = {}
        self.visited_split: dict[Operation, int] = {}
        self.seen_constants: set[Operation] = set()
        self.group_ids: dict[str, int] = {}
        self.annotated_unions: set[SSAValue] = set()
        """Optional / Union values already declared with their annotation."""

    # -- text ------------------------------------------------------------
    def text(self) -> str:
        return "".join(self.out)

    def line(self, s: str) -> None:
        self.out.append("  " * self.level + s + "\n")

    def is_long(self, s: str) -> bool:
        return len(s) + self.level * 2 >= LONG_LINE

    # -- names -----------------------------------------------------------
    def gen_name(self, candidate: str) -> str:
        name = candidate
        while name in self.used_names or name in RESERVED_NAMES:
            n = self.next_id.get(name, 0)
            self.next_id[name] = n + 1
            name = candidate + str(n)
        self.used_names.add(name)
        return name

    def unique_name_for(self, v: SSAValue) -> str:
        hint = v.name_hint
        return self.gen_name(_make_valid_identifier(_debug_name_base(hint)) if hint else "_")

    def assign_unique_names(self, values: Iterable[SSAValue]) -> list[str]:
        names: list[str] = []
        for v in values:
            self.ident_refs[v] = name = self.unique_name_for(v)
            names.append(name)
        return names

    def use_of(self, v: SSAValue) -> str:
        if v in self.ident_refs:
            return self.ident_refs[v]
        if v in self.expr_table:
            return self.expr_table[v]
        owner = _node_of(v)
        if owner is not None:
            raise ExirDiagnostic(owner, "this value is used where it is not defined; cannot print it as Python")
        raise DiagnosticException("a block argument is used outside its block; cannot print it as Python")

    def uses_of(self, values: Sequence[SSAValue]) -> str:
        return ", ".join(self.use_of(v) for v in values)

    # -- inlining (torch's scanBlock / scanNode / scanValue) -------------
    def can_inline(self, v: SSAValue) -> bool:
        n = _node_of(v)
        if n is None or len(n.results) != 1:
            return False
        use = v.get_unique_use()
        if use is None:
            return False
        user = use.operation
        if v.name_hint and not isinstance(user, ReturnOp):
            return False
        if n.regions:
            return False
        if isinstance(user, LoopOp) and use.index >= 2:
            return False
        if isinstance(user, ForkOp) or node_kind(n) == "prim::isinstance":
            return False
        return True

    @staticmethod
    def previous_non_constant(op: Operation) -> Operation | None:
        p = op.prev_op
        while isinstance(p, ConstantOp):
            p = p.prev_op
        return p

    def scan_value(self, point: Operation | None, v: SSAValue) -> Operation | None:
        n = _node_of(v)
        if n is not None and n is point and self.can_inline(v):
            point = self.scan_node(n)
            self.output_inline.add(n)
        elif isinstance(n, ConstantOp):
            self.output_inline.add(n)
        return point

    def scan_node(self, op: Operation) -> Operation | None:
        if op in self.output_inline:
            return op
        for block in _scanned_blocks(op):
            self.scan_block(block)
        point = self.previous_non_constant(op)
        for v in reversed(op.operands):
            point = self.scan_value(point, v)
        return point

    def scan_block(self, block: Block) -> None:
        last = block.last_op
        if isinstance(last, ReturnOp):
            self.scan_node(last)
        for op in reversed(_block_nodes(block)):
            self.scan_node(op)

    def constant_list(self, block: Block, acc: list[Operation]) -> None:
        """The constants a block uses, in order of first use (printed first)."""
        for op in block.ops:
            for v in op.operands:
                n = _node_of(v)
                if isinstance(n, ConstantOp) and n not in self.seen_constants:
                    acc.append(n)
                    self.seen_constants.add(n)
            for inner in _scanned_blocks(op):
                self.constant_list(inner, acc)

    # -- long lines ([reordering of inlines]) ----------------------------
    def is_non_constant_inline(self, v: SSAValue) -> bool:
        n = _node_of(v)
        return n is not None and not isinstance(n, ConstantOp) and n in self.output_inline

    def split_long_inlines(self, v: SSAValue) -> None:
        use = v.get_unique_use()
        assert use is not None
        to_split: list[SSAValue] = []
        self.scan_long_inlines(use.operation, use.index, to_split)
        for w in reversed(to_split):
            owner = _node_of(w)
            assert owner is not None
            self.print_output_definition(owner, self.use_of(w))

    def scan_long_inlines(self, user: Operation, offset: int, acc: list[SSAValue]) -> None:
        seen = self.visited_split.get(user)
        low = seen + 1 if seen is not None else 0
        for i in range(offset, low - 1, -1):
            if self.is_non_constant_inline(user.operands[i]):
                acc.append(user.operands[i])
        self.visited_split[user] = offset
        if seen is None and user in self.output_inline:
            use = user.results[0].get_unique_use()
            assert use is not None
            self.scan_long_inlines(use.operation, use.index - 1, acc)

    # -- statements ------------------------------------------------------
    def print_output_definition(self, op: Operation, expr: str) -> None:
        names = self.assign_unique_names(op.results)
        self.line(f"{', '.join(names)} = {expr}" if names else expr)

    def print_assignment(self, lhs: Sequence[SSAValue], rhs: Sequence[SSAValue]) -> None:
        """`a, b = x, y`; the first assignment of an Optional / Union variable declares its type."""
        if not lhs:
            return
        target = self.uses_of(lhs)
        if len(lhs) == 1:
            v = lhs[0]
            if v not in self.annotated_unions and v not in self.expr_table and _is_union(v.type):
                target += f" : {annotation_str(v.type)}"
                self.annotated_unions.add(v)
        self.line(f"{target} = {self.uses_of(rhs)}")

    def requires_annotation(self, lhs: SSAValue, rhs: SSAValue) -> bool:
        """Whether a loop's initial assignment annotates the variable."""
        if _is_union(lhs.type):
            if lhs in self.annotated_unions:
                return False
            self.annotated_unions.add(lhs)
            return True
        return lhs.type != rhs.type

    def print_block(self, block: Block, has_other_statements: bool) -> None:
        before = len(self.out)
        for op in _block_nodes(block):
            self.print_node(op, print_const=False)
        # torch asks whether the block has nodes; asking whether anything was
        # printed also covers blocks holding only constants.
        if not has_other_statements and len(self.out) == before:
            self.line("pass")

    def print_body(self, block: Block, where: Operation) -> None:
        """A graph's body: long constants first, then its nodes and its return."""
        constants: list[Operation] = []
        self.constant_list(block, constants)
        self.scan_block(block)
        ret = _block_return(block, where)
        self.level += 1
        try:
            for c in constants:
                self.print_node(c, print_const=True)
            self.print_block(block, bool(ret.operands))
            if ret.operands:
                self.line(f"return {self.uses_of(ret.operands)}")
        finally:
            self.level -= 1

    def print_node(self, op: Operation, print_const: bool) -> None:
        if not isinstance(op, NodeOp | PrimOp):
            raise ExirDiagnostic(op, "only ts and prim ops print as TorchScript Python")
        if isinstance(op, ConstantOp) and not print_const:
            return
        if isinstance(op, LoopOp) and op.cond_block is not None:
            self.print_frontend_loop(op)
        elif isinstance(op, LoopOp):
            self.print_loop(_LoopView(op))
        elif isinstance(op, IfOp):
            self.print_if(op)
        elif isinstance(op, TupleUnpackOp | ListUnpackOp):
            names = self.assign_unique_names(op.results)
            source = self.use_of(op.operands[0])
            self.line(f"{', '.join(names)}, = {source}" if names else source)
        elif isinstance(op, SetAttrOp):
            self.line(f"{self.use_of(op.operands[0])}.{op.attr.data} = {self.use_of(op.operands[1])}")
        elif isinstance(op, ForkOp):
            self.print_fork(op)
        elif isinstance(op, EnterOp):
            self.print_enter(op)
        elif isinstance(op, ExitOp):
            if isinstance(op.prev_op, EnterOp):
                self.line("pass")
            self.level -= 1
        elif isinstance(op, WithOp):
            self.print_with(op)
        elif isinstance(op, _SUBGRAPH_DEF_OPS):
            self.print_subgraph_call(op, self.print_subgraph_def(op, op.KIND.partition("::")[2]))
        elif isinstance(op, StoreOp):
            self.line(f"{_make_valid_identifier(op.var.data)} = {self.use_of(op.operands[0])}")
        elif isinstance(op, BreakStmtOp):
            self.line("break")
        elif isinstance(op, ContinueStmtOp):
            self.line("continue")
        elif isinstance(op, ReturnStmtOp):
            self.line(f"return {self.uses_of(op.operands)}" if op.operands else "return")
        elif isinstance(op, NodeOp) and op.regions:
            if not _is_subgraph_node(op):
                raise ExirDiagnostic(op, f"no Python spelling for a '{op.kind.data}' node with blocks")
            self.print_subgraph_call(op, self.print_subgraph_def(op, _make_valid_identifier(op.op_name)))
        else:
            self.print_expression_node(op)

    def print_expression_node(self, op: Operation) -> None:
        rhs = self.rhs(op)
        if op not in self.output_inline or (isinstance(op, ConstantOp) and self.is_long(rhs)):
            self.print_output_definition(op, rhs)
        else:
            v = op.results[0]
            self.expr_table[v] = rhs
            if self.is_long(rhs):
                self.split_long_inlines(v)

    def print_if(self, op: IfOp) -> None:
        self.assign_unique_names(op.results)
        self.line(f"if {self.use_of(op.operands[0])}:")
        self.print_branch(op, op.regions[0].block)
        self.line("else:")
        self.print_branch(op, op.regions[1].block)

    def print_branch(self, op: IfOp, block: Block) -> None:
        self.level += 1
        self.print_block(block, bool(op.results))
        self.print_assignment(op.results, _block_return(block, op).operands)
        self.level -= 1

    def print_loop(self, loop: _LoopView) -> None:
        op = loop.op
        kind = loop.kind()
        self.assign_unique_names(op.results)
        for block_input, result in zip(loop.body.args[1:], op.results, strict=True):
            self.expr_table[block_input] = self.use_of(result)
        for result, initial in zip(op.results, op.carried, strict=True):
            annotation = f": {annotation_str(result.type)}" if self.requires_annotation(result, initial) else ""
            self.line(f"{self.use_of(result)}{annotation} = {self.use_of(initial)}")
        ret = _block_return(loop.body, op)
        if kind == "modified":
            self.print_modified_loop(loop, ret)
            return
        trip = self.assign_unique_names([loop.trip_count])[0]
        if kind == "for":
            self.line(f"for {trip} in range({self.use_of(loop.max_trip_count)}):")
            offset = 1
        else:
            self.line(f"{trip} = {self.use_of(loop.input_cond)}")
            self.line(f"while {trip}:")
            offset = 0
        self.level += 1
        lhs = loop.body.args[offset:]
        self.print_block(loop.body, bool(lhs))
        self.print_assignment(lhs, ret.operands[offset:])
        self.level -= 1

    def print_modified_loop(self, loop: _LoopView, ret: ReturnOp) -> None:
        """A loop with a trip count and a condition (torch cannot print it): `for` + `if`/`break`."""
        cond = self.gen_name("_")
        self.line(f"{cond} = {self.use_of(loop.input_cond)}")
        trip = self.assign_unique_names([loop.trip_count])[0]
        self.line(f"for {trip} in range({self.use_of(loop.max_trip_count)}):")
        self.level += 1
        self.line(f"if {cond}:")
        self.level += 1
        self.print_block(loop.body, True)
        lhs = [cond, *(self.use_of(a) for a in loop.body.args[1:])]
        self.line(f"{', '.join(lhs)} = {self.uses_of(ret.operands)}")
        self.level -= 1
        self.line("else:")
        self.line("  break")
        self.level -= 1

    def print_frontend_loop(self, op: LoopOp) -> None:
        """
        The script frontend's loop, its condition still a block of its own
        (before convert-to-ssa): the condition is computed before each trip.
        """
        assert op.cond_block is not None
        body, cond = op.body.block, op.cond_block.block
        initial = op.operands[1:]
        self.assign_unique_names(op.results)
        for block_input, result in zip(body.args[1:], op.results, strict=True):
            self.expr_table[block_input] = self.use_of(result)
        for result, value in zip(op.results, initial, strict=True):
            annotation = f": {annotation_str(result.type)}" if self.requires_annotation(result, value) else ""
            self.line(f"{self.use_of(result)}{annotation} = {self.use_of(value)}")
        trip = self.assign_unique_names([body.args[0]])[0]
        self.line(f"for {trip} in range({self.use_of(op.operands[0])}):")
        self.level += 1
        self.print_block(cond, True)
        self.line(f"if {self.use_of(_block_return(cond, op).operands[0])}:")
        self.level += 1
        self.print_block(body, bool(op.results))
        self.print_assignment(body.args[1:], _block_return(body, op).operands)
        self.level -= 1
        self.line("else:")
        self.line("  break")
        self.level -= 1

    def print_enter(self, op: EnterOp) -> None:
        text = f"with {self.use_of(op.operands[0])}"
        if op.results and op.results[0].uses:
            text += f" as {self.assign_unique_names([op.results[0]])[0]}"
        self.line(text + ":")
        self.level += 1

    def print_with(self, op: WithOp) -> None:
        body, exit_block = (r.block for r in op.regions)
        self.print_block(body, True)
        if op.results:
            self.print_assignment(op.results, _block_return(body, op).operands)
        self.print_block(exit_block, True)

    def print_fork(self, op: ForkOp) -> None:
        """torch's spelling: the subgraph as a closure, run by `fork`."""
        name = self.gen_name("__forked_function")
        self.line(f"def {name}():")
        block = op.subgraph.block
        for arg, v in zip(block.args, op.operands, strict=True):
            self.expr_table[arg] = self.use_of(v)
        self.print_body(block, op)
        self.print_output_definition(op, f"fork({name})")

    def print_subgraph_def(self, op: Operation, short: str) -> str:
        """A subgraph as a nested function taking its inputs; returns its name."""
        n = self.group_ids.get(short, 0)
        self.group_ids[short] = n + 1
        name = self.gen_name(f"{short}_{n}")
        block = op.regions[0].block
        params = [f"{p}: {annotation_str(a.type)}" for p, a in zip(self.assign_unique_names(block.args), block.args)]
        returns = _block_return(block, op).operands
        self.line(f"def {name}({', '.join(params)}) -> {_return_annotation([v.type for v in returns])}:")
        self.print_body(block, op)
        return name

    def print_subgraph_call(self, op: Operation, name: str) -> None:
        """`r = FusionGroup_0(x, y)`; a subgraph returning more than the node's
        results (a DifferentiableGraph's saved values) gives its first ones."""
        call = f"{name}({self.uses_of(op.operands)})"
        n_returns = len(_block_return(op.regions[0].block, op).operands)
        n = len(op.results)
        if n_returns > n:
            call += "[0]" if n == 1 else f"[:{n}]"
        self.print_output_definition(op, call)

    # -- right-hand sides ------------------------------------------------
    def rhs(self, op: Operation) -> str:
        kind = node_kind(op)
        ins = op.operands
        if isinstance(op, ConstantOp):
            return self.constant_rhs(op)
        if isinstance(op, UninitializedOp):
            return f"uninitialized({annotation_str(op.results[0].type)})"
        if isinstance(op, TupleConstructOp):
            return f"({self.uses_of(ins)}{',' if len(ins) == 1 else ''})"
        if isinstance(op, TupleIndexOp):
            return f"({self.use_of(ins[0])})[{self.use_of(ins[1])}]"
        if isinstance(op, ListConstructOp):
            t = op.results[0].type
            literal = f"[{self.uses_of(ins)}]"
            if not ins or (isinstance(t, TSListType) and not _element_inferable(t.element)):
                return f"annotate({annotation_str(t)}, {literal})"
            return literal
        if isinstance(op, DictConstructOp):
            t = op.results[0].type
            literal = "{" + ", ".join(
                f"{self.use_of(ins[i])}: {self.use_of(ins[i + 1])}" for i in range(0, len(ins), 2)
            ) + "}"
            if not ins or (isinstance(t, TSDictType) and not (_element_inferable(t.key) and _element_inferable(t.value))):
                return f"annotate({annotation_str(t)}, {literal})"
            return literal
        if isinstance(op, GetAttrOp):
            field_name = op.attr.data
            if is_valid_identifier(field_name):
                return f"{self.use_of(ins[0])}.{field_name}"
            return f"getattr({self.use_of(ins[0])}, {quote_string(field_name)})"
        if isinstance(op, CallFunctionOp):
            return self.use_of(ins[0]) + "(" + "".join(f"{self.use_of(v)}, " for v in ins[1:]) + ")"
        if isinstance(op, CallMethodOp):
            args = "".join(f"{self.use_of(v)}, " for v in ins[1:])
            return f"({self.use_of(ins[0])}).{op.method.data}({args})"
        if isinstance(op, ConstantChunkOp):
            return f"torch.chunk({self.use_of(ins[0])}, {op.chunks.value.data}, {op.dim.value.data})"
        if isinstance(op, LoadOp):
            return _make_valid_identifier(op.var.data)
        special = self.special_rhs(op, kind)
        if special is not None:
            return special
        return self.call_rhs(op, kind)

    def special_rhs(self, op: Operation, kind: str) -> str | None:
        """The node kinds torch prints as Python builtins or syntax."""
        ins = op.operands
        out_type = op.results[0].type if len(op.results) == 1 else None
        if kind in ("aten::ScalarImplicit", "aten::FloatImplicit", "aten::IntImplicit") and out_type:
            return f"annotate({annotation_str(out_type)}, {self.use_of(ins[0])})"
        builtin = _BUILTIN_CALLS.get(kind)
        if builtin is not None:
            return f"{builtin}({self.uses_of(ins)})"
        if kind == "aten::__getitem__" and len(ins) == 2:
            container = self.use_of(ins[0])
            if not is_valid_identifier(container):
                container = f"({container})"
            return f"{container}[{self.use_of(ins[1])}]"
        if kind == "prim::TupleSlice" and len(ins) == 1:
            beg, end = (_int_attr(op, "beg"), _int_attr(op, "end"))
            return f"({self.use_of(ins[0])})[{beg}:{end}]"
        if kind == "prim::CreateObject" and out_type:
            name = annotation_str(out_type)
            return f"{name}.__new__({name})"
        if kind == "aten::_unwrap_optional" and len(ins) == 1 and out_type:
            arg = self.use_of(ins[0])
            if constant_value(ins[0]) is None or isinstance(ins[0].type, TSNoneType):
                arg = f"annotate({annotation_str(TSOptionalType(out_type))}, {arg})"
            return f"torch._unwrap_optional({arg})"
        if kind in ("prim::unchecked_cast", "prim::unchecked_unwrap_optional") and out_type:
            return f"unchecked_cast({annotation_str(out_type)}, {self.use_of(ins[0])})"
        if kind == "prim::isinstance" and len(ins) == 1:
            types = [annotation_str(t) for t in _type_list_attr(op, "types")]
            shown = types[0] if len(types) == 1 else "(" + ", ".join(types) + ")"
            return f"isinstance({self.use_of(ins[0])}, {shown})"
        if kind == "prim::tolist" and out_type and ins:
            return f"annotate({annotation_str(out_type)}, {self.use_of(ins[0])}.tolist())"
        if kind == "prim::EnumValue" and len(ins) == 1:
            return f"({self.use_of(ins[0])}).value"
        if kind == "prim::EnumName" and len(ins) == 1:
            return f"({self.use_of(ins[0])}).name"
        return None

    def call_rhs(self, op: Operation, kind: str) -> str:
        """`torch.add(x, y, alpha=2)`: the op's name and its necessary arguments."""
        ns, _, name = kind.partition("::")
        name, _, overload = name.partition(".")
        schema = _schema_for(op, ns, name, overload)
        ins = list(op.operands)
        parts: list[str] = []
        if schema is None:
            parts = [self.use_of(v) for v in ins]
        elif schema.is_vararg:
            # torch prints none of the inputs of a `prim::X(...)` call; all of them say more.
            parts = [self.use_of(v) for v in ins]
        else:
            necessary, n_out = _necessary_args(schema, ins)
            args = schema.arguments
            for i in range(necessary):
                prefix = f"{args[i].name}=" if i < len(args) and args[i].kwarg_only else ""
                parts.append(prefix + self.use_of(ins[i]))
            if necessary < len(args):
                for i in range(len(args) - n_out, min(len(args), len(ins))):
                    parts.append(f"{args[i].name}={self.use_of(ins[i])}")
        if isinstance(op, BailOutOp) and op.regions:
            parts.append(f"subgraph={self.print_subgraph_def(op, 'BailOut')}")
        parts.extend(f"{k}={_format_attr(v)}" for k, v in _extra_attrs(op))
        return f"{_op_name(ns, name)}({', '.join(parts)})"

    def constant_rhs(self, op: ConstantOp) -> str:
        t = op.results[0].type
        if op.fn_name is not None:
            # The type may know the qualified name (`__torch__.m.helper`), the attribute only `helper`.
            if isinstance(t, TSFunctionType) and "." in t.qualname.data:
                return t.qualname.data
            return qualified_function_name(op.fn_name.data)
        return self.format_constant(op.value, t)

    def format_constant(self, value: Attribute | None, t: Attribute) -> str:
        """A constant as IValue's repr shows it, tensors and non-ASCII strings as `CONSTANTS.c<N>`."""
        if value is None:
            return "None"
        if isinstance(value, IntegerAttr):
            n = value.value.data
            if value.type.width.data == 1:
                return "True" if n else "False"
            return str(n)
        if isinstance(value, FloatAttr):
            return format_float(float(value.value.data))
        if isinstance(value, StringAttr):
            if isinstance(t, TSDeviceType):
                return f"torch.device({quote_string(value.data)})"
            if not value.data.isascii():
                return f"CONSTANTS.c{self.constants.index(value)}"
            return quote_string(value.data)
        if isinstance(value, TensorValueAttr):
            return f"CONSTANTS.c{self.constants.index(value)}"
        if isinstance(value, ArrayAttr):
            items = value.data
            if isinstance(t, TSComplexType) and len(items) == 2:
                re, im = (_attr_value(x, TSAnyType()) for x in items)
                return format_complex(float(re), float(im))  # pyright: ignore[reportArgumentType] - a complex constant's parts are floats
            if isinstance(t, TSTupleType):
                shown = [self.format_constant(x, e) for x, e in zip(items, t.element_types)]
                return f"({', '.join(shown)}{',' if len(shown) == 1 else ''})"
            elem = t.element if isinstance(t, TSListType) else TSAnyType()
            literal = "[" + ", ".join(self.format_constant(x, elem) for x in items) + "]"
            if not items or not _element_inferable(elem):
                return f"annotate({annotation_str(t)}, {literal})"
            return literal
        raise DiagnosticException(f"no Python spelling for the constant {value}")

    def format_default(self, arg: Argument) -> str:
        """A schema default, as torch prints it after `=`."""
        return self.format_python_value(arg.default_value, arg.type)

    def format_python_value(self, value: object, st: SchemaType) -> str:
        inner = st.unwrap_optional()
        if value is None:
            return "None"
        if isinstance(value, bool):
            return "True" if value else "False"
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return format_float(value)
        if isinstance(value, complex):
            return format_complex(value.real, value.imag)
        if isinstance(value, str):
            if inner.kind is TypeKind.BASE and inner.name == "Device":
                return f"torch.device({quote_string(value)})"
            return quote_string(value)
        if isinstance(value, list | tuple):
            elem = inner.elements[0] if inner.kind is TypeKind.LIST and inner.elements else inner
            literal = "[" + ", ".join(self.format_python_value(x, elem) for x in value) + "]"
            if not value:
                return f"annotate({annotation_str(schema_type_to_ts(inner))}, {literal})"
            return literal
        return str(value)

    # -- functions -------------------------------------------------------
    def print_function(self, method: MethodOp, first_arg_typed: bool, is_method: bool = False) -> None:
        """`def name(args) -> T:` and the body (a method's first input is `self`)."""
        self.used_names.clear()
        block = method.body.block
        params = _parameters(method, is_method)
        text = f"def {method.sym_name.data}("
        for i, ((name, ann, default), value) in enumerate(zip(params, block.args, strict=True)):
            arg_name = self.gen_name(name)
            if i == 0:
                text += arg_name + (f": {ann}" if first_arg_typed else "")
            else:
                text += f",\n    {arg_name}: {ann}"
            if i > 0 or first_arg_typed:
                self.annotated_unions.add(value)
            if default is not None:
                text += "=" + self.format_default(default)
            self.ident_refs[value] = arg_name
        # The frontend's variables (prim.Store / prim.Load) keep their names;
        # no other value may take one.
        for op in method.walk():
            if isinstance(op, StoreOp | LoadOp):
                self.used_names.add(_make_valid_identifier(op.var.data))
        self.line(f"{text}) -> {_method_return_annotation(method)}:")
        self.print_body(block, method)

    def print_class(self, module: ScriptModuleOp) -> None:
        """A module's class: parameter and buffer lists, attribute annotations, methods."""
        self.line(f"class {module.class_name.data.rpartition('.')[2]}(Module):")
        self.level += 1
        slots = module.slots()
        params = "".join(f'"{s.sym_name.data}", ' for s in slots if s.kind.data == "parameter")
        buffers = "".join(f'"{s.sym_name.data}", ' for s in slots if s.kind.data == "buffer")
        self.line(f"__parameters__ = [{params}]")
        self.line(f"__buffers__ = [{buffers}]")
        members = [op for op in module.body.ops if isinstance(op, SlotOp | ScriptModuleOp)]
        for i, member in enumerate(members):
            name = member.sym_name.data
            ann = annotation_str(member.slot_type) if isinstance(member, SlotOp) else member.class_name.data
            if is_valid_identifier(name):
                self.line(f"{name} : {ann}")
            else:
                if i == 0:
                    self.line("__annotations__ = []")
                self.line(f'__annotations__["{name}"] = {ann}')
        for method in module.methods():
            self.print_function(method, first_arg_typed=True, is_method=True)
        self.level -= 1


_BUILTIN_CALLS = {
    "aten::Int": "int",
    "aten::Float": "float",
    "aten::Bool": "bool",
    "aten::str": "str",
    "prim::Print": "print",
    "aten::sorted": "sorted",
}

_OVERRIDDEN_NAMES = {("aten", "backward"): "torch.autograd.backward", ("aten", "grad"): "torch.autograd.grad"}


def _op_name(ns: str, name: str) -> str:
    if (ns, name) in _OVERRIDDEN_NAMES:
        return _OVERRIDDEN_NAMES[(ns, name)]
    return f"torch.{name}" if ns == "aten" else f"ops.{ns}.{name}"


def _schema_for(op: Operation, ns: str, name: str, overload: str) -> FunctionSchema | None:
    """The schema torch would print the node's call against, None when unknown."""
    if overload:
        entry = all_operators().get(f"{ns}.{name}.{overload}")
        return entry.schema if entry is not None else None
    try:
        return resolve_node(f"{ns}::{name}", [v.type for v in op.operands]).schema
    except (OverloadError, TypeError):  # no overload; operands of non-TorchScript types
        return None


def _necessary_args(schema: FunctionSchema, ins: Sequence[SSAValue]) -> tuple[int, int]:
    """
    (how many leading arguments to print, how many trailing `out=` arguments
    there are): defaults equal to what the node passes are dropped from the
    end of the arguments before the `out=` ones (torch's CalculateNecessaryArgs).
    """
    args = schema.arguments
    if not args:
        return 0, 0
    idx = len(args) - 1
    while idx >= 0 and args[idx].is_out:
        idx -= 1
    n_out = len(args) - idx - 1
    if len(args) < len(ins):
        return len(ins), n_out
    idx = min(idx, len(ins) - 1)
    while idx >= 0:
        arg = args[idx]
        if not arg.has_default:
            return idx + 1, n_out
        actual = constant_value(ins[idx])
        if actual is MISSING or not _same_ivalue(actual, arg.default_value):
            return idx + 1, n_out
        idx -= 1
    return 0, n_out


def _int_attr(op: Operation, key: str) -> int:
    attrs = op.properties.get("attrs")
    value = attrs.data.get(key) if isinstance(attrs, DictionaryAttr) else None
    if not isinstance(value, IntegerAttr):
        raise ExirDiagnostic(op, f"expected an integer attribute '{key}'")
    return value.value.data


def _type_list_attr(op: Operation, key: str) -> list[Attribute]:
    """A list of types kept as types or as their dump spelling (`types=[Tensor]`)."""
    attrs = op.properties.get("attrs")
    value = attrs.data.get(key) if isinstance(attrs, DictionaryAttr) else None
    items = value.data if isinstance(value, ArrayAttr) else (value,) if value is not None else ()
    types: list[Attribute] = []
    for item in items:
        if isinstance(item, StringAttr):
            try:
                types.append(parse_ts_type(item.data))
            except TSTypeError as e:
                raise ExirDiagnostic(op, f"malformed type '{item.data}' in '{key}': {e}") from e
        elif isinstance(item, TypeAttribute):
            types.append(item)
        else:
            raise ExirDiagnostic(op, f"expected types in '{key}'")
    if not types:
        raise ExirDiagnostic(op, f"expected the attribute '{key}'")
    return types


def _extra_attrs(op: Operation) -> list[tuple[str, Attribute]]:
    """Node attributes that only a keyword argument can show (`index=1`, `seen_none=0`)."""
    items: list[tuple[str, Attribute]] = []
    for key, value in op.properties.items():
        if key == "attrs" and isinstance(value, DictionaryAttr):
            items.extend(value.data.items())
        elif not (isinstance(op, NodeOp) and key == "kind"):
            items.append((key, value))
    return items


def _format_attr(value: Attribute) -> str:
    if isinstance(value, IntegerAttr):
        n = value.value.data
        return ("True" if n else "False") if value.type.width.data == 1 else str(n)
    if isinstance(value, FloatAttr):
        return format_float(float(value.value.data))
    if isinstance(value, StringAttr):
        return quote_string(value.data)
    if isinstance(value, ArrayAttr):
        return "[" + ", ".join(_format_attr(x) for x in value.data) + "]"
    if isinstance(value, TSTensorType) and value != TSTensorType():
        return quote_string(ts_type_str(value))  # the refinement has no annotation
    if isinstance(value, TypeAttribute):
        try:
            return annotation_str(value)
        except DiagnosticException:
            pass
    return quote_string(str(value))


def _return_annotation(types: Sequence[Attribute]) -> str:
    if len(types) == 1:
        return annotation_str(types[0])
    if not types:
        return "None"
    return f"Tuple[{', '.join(annotation_str(t) for t in types)}]"


def _method_schema(method: MethodOp) -> FunctionSchema | None:
    if method.schema is None:
        return None
    try:
        return parse_schema(method.schema.data)
    except SchemaParseError as e:
        raise ExirDiagnostic(method, f"malformed schema: {e}") from e


def _parameters(method: MethodOp, is_method: bool) -> list[tuple[str, str, Argument | None]]:
    """Per graph input: its name, its annotation and the schema argument giving its default."""
    block = method.body.block
    schema = _method_schema(method)
    if schema is not None and len(schema.arguments) == len(block.args):
        return [
            (a.name, annotation_str(schema_type_to_ts(a.type)), a if a.has_default else None)
            for a in schema.arguments
        ]
    params: list[tuple[str, str, Argument | None]] = []
    for i, arg in enumerate(block.args):
        if i == 0 and is_method:
            name = "self"
        elif arg.name_hint:
            name = _make_valid_identifier(_debug_name_base(arg.name_hint))
        else:
            name = f"argument_{i}"
        params.append((name, annotation_str(arg.type), None))
    return params


def _method_return_annotation(method: MethodOp) -> str:
    schema = _method_schema(method)
    if schema is not None and len(schema.returns) == 1:
        return annotation_str(schema_type_to_ts(schema.returns[0].type))
    if schema is not None and not schema.returns:
        return "NoneType"
    return _return_annotation([v.type for v in _block_return(method.body.block, method).operands])


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------


def method_code(method: MethodOp) -> str:
    """
    `.code` of one function or method as torch 2.13 shows it
    (`ScriptFunction.code`, `ScriptModule.code` for `forward`): a method's
    `self` is not annotated. Tensor constants print as `CONSTANTS.c<N>`.
    """
    printer = _FunctionPrinter(_ConstantTable())
    in_module = isinstance(method.parent_op(), ScriptModuleOp)
    printer.print_function(method, first_arg_typed=not in_module, is_method=in_module)
    return printer.text()


class TorchScriptPythonPrinter:
    """
    Prints a whole program; `constants` then holds what `CONSTANTS.c<N>`
    refers to (`#ts.tensor_value` attributes and non-ASCII strings).
    """

    def __init__(self) -> None:
        self._table = _ConstantTable()

    @property
    def constants(self) -> list[Attribute]:
        return list(self._table.values)

    def print_program(self, module: ModuleOp) -> str:
        functions = [op for op in module.ops if isinstance(op, MethodOp)]
        roots = [op for op in module.ops if isinstance(op, ScriptModuleOp)]
        if not functions and not roots:
            raise DiagnosticException(
                "--emit torchscript-python prints ts.method and ts.module ops; the input has none"
            )
        files: dict[str, _FunctionPrinter] = {}

        def file_for(qualifier: str) -> _FunctionPrinter:
            if qualifier not in files:
                files[qualifier] = _FunctionPrinter(self._table)
            return files[qualifier]

        for fn in functions:
            file_for("__torch__").print_function(fn, first_arg_typed=True)
        for cls in _classes_in_print_order(roots):
            qualifier = cls.class_name.data.rpartition(".")[0] or "__torch__"
            file_for(qualifier).print_class(cls)
        parts: list[str] = []
        for qualifier, printer in files.items():
            text = printer.text()
            if len(files) > 1:
                text = f"# code/{qualifier.replace('.', '/')}.py\n{text}"
            parts.append(text)
        text = "\n".join(parts)
        if self._table.values:
            text += "".join(
                f"# CONSTANTS.c{i} = {_describe_constant(v)}\n" for i, v in enumerate(self._table.values)
            )
        return text


def _classes_in_print_order(roots: Sequence[ScriptModuleOp]) -> list[ScriptModuleOp]:
    """Each class once, root first, then the classes of submodules as they are met (torch's deps order)."""
    seen: set[str] = set()
    order: list[ScriptModuleOp] = []
    queue = list(roots)
    while queue:
        cls = queue.pop(0)
        if cls.class_name.data in seen:
            continue
        seen.add(cls.class_name.data)
        order.append(cls)
        queue.extend(cls.submodules())
    return order


def _describe_constant(value: Attribute) -> str:
    if isinstance(value, TensorValueAttr):
        return f"{value.scalar.data} tensor of sizes {list(value.shape)}"
    if isinstance(value, StringAttr):
        return repr(value.data)
    return str(value)


def print_torchscript_python(module: ModuleOp) -> str:
    """The whole program (free functions and module classes) as TorchScript Python."""
    return TorchScriptPythonPrinter().print_program(module)


def emit_torchscript_python(module: ModuleOp, output: IO[str]) -> None:
    """The `torchscript-python` target of exir-opt."""
    output.write(print_torchscript_python(module))


@dataclass(frozen=True)
class TorchScriptPythonTarget(Target):
    """`-t torchscript-python` / `--emit torchscript-python`."""

    name = "torchscript-python"

    def emit(self, ctx: Context, module: ModuleOp, output: IO[str]) -> None:
        emit_torchscript_python(module, output)
