"""
`--emit torchscript-python`: TorchScript graphs printed as torch's Python printer does.

Functions and modules are scripted (or traced) with torch, their graphs are
turned into `ts` / `prim` IR by `import_graph` below (a small builder over
torch's Graph API that keeps value names as name hints, as a dump importer
does), printed with `method_code`, and compared with torch's `.code`
exactly. The printed code is then executed (`run_code`: `torch.xxx` calls go
to `torch.ops.aten`, `ops` is `torch.ops`, `annotate` / `uninitialized` /
`unchecked_cast` / `fork` are what they mean) and its results compared with
the scripted function's, so the text also means what the graph computes.
What torch cannot print (loops with a trip count and a condition, fusion
groups, `prim::ConstantChunk`, whole programs with classes) is built by hand.
"""

from __future__ import annotations

import ast
import importlib
import io
import math
import pathlib
import re
import types
import typing
import zipfile
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    StringAttr,
    f64,
    i64,
)
from xdsl.ir import Attribute, Block, Region, SSAValue
from xdsl.parser import Parser
from xdsl.rewriter import Rewriter

from xdsl_exir.dialects.exir import DType
from xdsl_exir.dialects.prim import OP_OF_KIND, ConstantOp, Prim, ReturnOp
from xdsl_exir.dialects.ts import (
    SCALAR_TYPE_OF,
    SCALAR_TYPES,
    TS,
    MethodOp,
    NodeOp,
    ScriptModuleOp,
    SlotOp,
    TensorValueAttr,
    TSFunctionType,
    parse_ts_type,
)
from xdsl_exir.targets.torchscript_python import (
    TorchScriptPythonPrinter,
    format_float,
    method_code,
    print_torchscript_python,
    quote_string,
)
from xdsl_exir.utils.tensor_data import storage_dtype

FIXTURES = pathlib.Path(__file__).parent / "torchscript"

# ---------------------------------------------------------------------------
# torch Graph -> ts / prim IR
# ---------------------------------------------------------------------------

I1 = IntegerType(1)


def _value_attr(value: Any, t: Attribute) -> Attribute | None:
    """A constant's Python value as the `prim.Constant` encoding (see its docstring)."""
    import torch

    if value is None:
        return None
    if isinstance(value, bool):
        return IntegerAttr(int(value), I1)
    if isinstance(value, int):
        return IntegerAttr(value, i64)
    if isinstance(value, float):
        return FloatAttr(value, f64)
    if isinstance(value, complex):
        return ArrayAttr([FloatAttr(value.real, f64), FloatAttr(value.imag, f64)])
    if isinstance(value, str):
        return StringAttr(value)
    if isinstance(value, torch.device):
        return StringAttr(str(value))
    if isinstance(value, torch.Tensor):
        dtype = DType(str(value.dtype).removeprefix("torch."))
        data = value.detach().contiguous().numpy().astype(storage_dtype(dtype)).tobytes()
        return TensorValueAttr(SCALAR_TYPE_OF[dtype], list(value.shape), data)
    if isinstance(value, list | tuple):
        items = [_value_attr(v, t) for v in value]
        if any(i is None for i in items):
            raise NotImplementedError(f"None inside the constant {value!r}")
        return ArrayAttr([i for i in items if i is not None])
    raise NotImplementedError(f"constant {value!r}")


def _node_attrs(node: Any) -> dict[str, Attribute]:
    attrs: dict[str, Attribute] = {}
    for name in node.attributeNames():
        k = node.kindOf(name)
        if k == "i":
            attrs[name] = IntegerAttr(node.i(name), i64)
        elif k == "f":
            attrs[name] = FloatAttr(node.f(name), f64)
        elif k == "s":
            attrs[name] = StringAttr(node.s(name))
        elif k == "ty":
            attrs[name] = parse_ts_type(str(node.ty(name)))
        elif k == "tys":
            attrs[name] = ArrayAttr([parse_ts_type(str(t)) for t in node.tys(name)])
        elif k == "g":
            continue
        else:
            raise NotImplementedError(f"attribute kind {k} of {node.kind()}")
    return attrs


class GraphImporter:
    """Builds the `ts.method` of a torch Graph: one op per node, blocks as regions."""

    def __init__(self) -> None:
        self.values: dict[int, SSAValue] = {}

    def ts_type(self, v: Any) -> Attribute:
        return parse_ts_type(str(v.type()))

    def name(self, ssa: SSAValue, v: Any) -> None:
        name = v.debugName()
        if not name.isdigit():
            ssa.name_hint = name

    def block(self, inputs: Sequence[Any], nodes: Any, returns: Sequence[Any]) -> Block:
        block = Block(arg_types=[self.ts_type(v) for v in inputs])
        for arg, v in zip(block.args, inputs):
            self.values[v.unique()] = arg
            self.name(arg, v)
        for node in nodes:
            block.add_op(self.node(node))
        block.add_op(ReturnOp.make([self.values[v.unique()] for v in returns]))
        return block

    def subgraph(self, graph: Any) -> Region:
        return Region(self.block(list(graph.inputs()), graph.nodes(), list(graph.outputs())))

    def node(self, node: Any) -> Any:
        kind = node.kind()
        operands = [self.values[v.unique()] for v in node.inputs()]
        types_ = [self.ts_type(v) for v in node.outputs()]
        regions = [
            Region(self.block(list(b.inputs()), b.nodes(), list(b.returnNode().inputs())))
            for b in node.blocks()
        ]
        props: dict[str, Attribute | None] = {}
        if kind == "prim::Constant":
            if node.hasAttribute("name"):
                props["name"] = StringAttr(node.s("name"))
                types_ = [TSFunctionType(node.output().type().annotation_str)]
            elif node.hasAttribute("value"):
                props["value"] = _value_attr(node.output().toIValue(), types_[0])
        elif kind in ("prim::fork", "prim::FusionGroup", "prim::DifferentiableGraph"):
            regions = [self.subgraph(node.g("Subgraph"))]
        if kind in OP_OF_KIND and kind != "prim::Constant":
            attrs = _node_attrs(node)
            for key in ("name", "chunks", "dim", "index", "types"):
                if key in attrs:
                    props[key] = attrs.pop(key)
            if attrs:
                props["attrs"] = DictionaryAttr(attrs)
        if kind in OP_OF_KIND:
            op = OP_OF_KIND[kind].make(operands, types_, props, regions)
        else:
            op = NodeOp(kind, operands, types_, _node_attrs(node) or None, regions)
        for r, v in zip(op.results, node.outputs()):
            self.values[v.unique()] = r
            self.name(r, v)
        return op


def import_graph(graph: Any, name: str, schema: str | None = None) -> MethodOp:
    """A torch Graph as a `ts.method` (its name hints are the graph's value names)."""
    imp = GraphImporter()
    block = imp.block(list(graph.inputs()), graph.nodes(), list(graph.return_node().inputs()))
    return MethodOp(name, Region(block), schema)


def function_ir(fn: Any) -> tuple[ModuleOp, MethodOp]:
    """A scripted (or traced) function as a module holding one `ts.method`."""
    method = import_graph(fn.graph, fn.name, str(fn.schema))
    module = ModuleOp([method])
    module.verify()
    return module, method


def module_ir(scripted: Any, name: str = "m") -> ScriptModuleOp:
    """A scripted module as a `ts.module` (parameters, buffers, submodules, every method)."""
    cls = scripted._c._type()
    mod = ScriptModuleOp(name, cls.qualified_name())
    body = mod.body.block
    for pname, p in scripted.named_parameters(recurse=False):
        body.add_op(SlotOp(pname, "parameter", parse_ts_type("Tensor"), _value_attr(p, None)))  # pyright: ignore[reportArgumentType] - no declared type: the helper takes None at run time
    for bname, b in scripted.named_buffers(recurse=False):
        body.add_op(SlotOp(bname, "buffer", parse_ts_type("Tensor"), _value_attr(b, None)))  # pyright: ignore[reportArgumentType] - no declared type: the helper takes None at run time
    for cname, child in scripted.named_children():
        body.add_op(module_ir(child, cname))
    for mname in cls.method_names():
        m = scripted._c._get_method(mname)
        body.add_op(import_graph(m.graph, mname, str(m.schema)))
    return mod


# ---------------------------------------------------------------------------
# Running printed code
# ---------------------------------------------------------------------------

_PY_OPS: dict[str, Callable[..., Any]] = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "lt": lambda a, b: a < b,
    "gt": lambda a, b: a > b,
    "le": lambda a, b: a <= b,
    "ge": lambda a, b: a >= b,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "__and__": lambda a, b: a and b,
    "__or__": lambda a, b: a or b,
    "__not__": lambda a: not a,
    "neg": lambda a: -a,
}
"""TorchScript builtins on Python values (no tensor among the arguments)."""

_OBJECT_OPS: dict[str, Callable[..., Any]] = {
    "append": lambda lst, x: (lst.append(x), lst)[1],
    "_set_item": lambda d, k, v: d.__setitem__(k, v),
    "__is__": lambda a, b: a is b,
    "__isnot__": lambda a, b: a is not b,
    "len": len,
    "wait": lambda fut: fut,
}
"""Builtins that mutate or inspect Python objects (torch.ops would copy them)."""


class _TorchShim:
    """`torch.xxx(...)` of printed code: TorchScript's builtins, then `torch.ops.aten`."""

    def __getattr__(self, name: str) -> Any:
        import torch

        if name in _OBJECT_OPS:
            return _OBJECT_OPS[name]
        if name in ("device", "autograd"):
            return getattr(torch, name)

        def call(*args: Any, **kwargs: Any) -> Any:
            if name in _PY_OPS and not kwargs and not any(isinstance(a, torch.Tensor) for a in args):
                return _PY_OPS[name](*args)
            try:
                return getattr(torch.ops.aten, name)(*args, **kwargs)
            except RuntimeError:
                return getattr(torch, name)(*args, **kwargs)

        return call


class _Qualified:
    """`__torch__.a.b.C`: functions printed alongside, else the Python object at `a.b.C`."""

    def __init__(self, env: dict[str, Any], path: tuple[str, ...] = ()) -> None:
        self._env = env
        self._path = path

    def __getattr__(self, name: str) -> Any:
        path = (*self._path, name)
        if len(path) == 1 and name in self._env:
            return self._env[name]
        try:
            return importlib.import_module(".".join(path))
        except ImportError:
            pass
        try:
            obj = importlib.import_module(".".join(path[:-1]))
            return getattr(obj, name)
        except (ImportError, AttributeError, ValueError):
            return _Qualified(self._env, path)


class _Generic:
    def __class_getitem__(cls, item: Any) -> Any:
        return Any


def constant_values(printer_constants: Sequence[Attribute]) -> types.SimpleNamespace:
    """`CONSTANTS`: the printer's table as torch tensors and strings."""
    import torch

    values: dict[str, Any] = {}
    for i, c in enumerate(printer_constants):
        if isinstance(c, TensorValueAttr):
            dtype = SCALAR_TYPES[c.scalar.data]
            array = np.frombuffer(c.data.data, storage_dtype(dtype)).reshape(c.shape)
            values[f"c{i}"] = torch.from_numpy(array.copy())
        elif isinstance(c, StringAttr):
            values[f"c{i}"] = c.data
    return types.SimpleNamespace(**values)


def run_code(source: str, constants: Sequence[Attribute] = ()) -> dict[str, Any]:
    """Execute printed code; returns its namespace (the functions it defines)."""
    import torch

    env: dict[str, Any] = {}
    env.update(
        torch=_TorchShim(),
        ops=torch.ops,
        annotate=lambda t, v: v,
        uninitialized=lambda t: None,
        unchecked_cast=lambda t, v: v,
        fork=lambda f: f(),
        Tensor=torch.Tensor,
        List=typing.List,
        Dict=typing.Dict,
        Tuple=typing.Tuple,
        Optional=typing.Optional,
        Union=typing.Union,
        Any=typing.Any,
        Future=_Generic,
        Device=torch.device,
        NoneType=type(None),
        number=float,
        inf=math.inf,
        nan=math.nan,
        CONSTANTS=constant_values(constants),
        Module=object,
    )
    env["__torch__"] = _Qualified(env)
    exec(compile(source, "<printed>", "exec"), env)
    return env


def assert_same(a: Any, b: Any) -> None:
    import torch

    if isinstance(a, torch.Tensor):
        assert isinstance(b, torch.Tensor), (a, b)
        assert a.dtype == b.dtype and a.shape == b.shape
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-6, equal_nan=True)
    elif isinstance(a, list | tuple):
        assert type(a) is type(b) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y)
    elif isinstance(a, float) and math.isnan(a):
        assert isinstance(b, float) and math.isnan(b)
    elif isinstance(a, int | float) and not isinstance(a, bool):
        # torch spells a float >= 1e10 with an integral value without a point
        # (`10000000000`), which Python reads back as an int.
        assert a == b and isinstance(b, int | float) and not isinstance(b, bool), (a, b)
    else:
        assert a == b and type(a) is type(b), (a, b)


def canonical(source: str) -> str:
    """`source` with local names renamed in order of first appearance (`v0`, `v1`, ...)."""
    tree = ast.parse(source)
    known = set(dir(__builtins__)) | {
        "torch", "ops", "annotate", "uninitialized", "unchecked_cast", "fork", "Tensor", "List",
        "Dict", "Tuple", "Optional", "CONSTANTS", "__torch__", "self", "Module",
    }
    mapping: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id not in known:
            mapping.setdefault(node.id, f"v{len(mapping)}")
            node.id = mapping[node.id]
        elif isinstance(node, ast.arg) and node.arg not in known:
            mapping.setdefault(node.arg, f"v{len(mapping)}")
            node.arg = mapping[node.arg]
    return ast.unparse(tree)


# ---------------------------------------------------------------------------
# The functions of the tests
# ---------------------------------------------------------------------------

torch = pytest.importorskip("torch")
from torch import Tensor  # noqa: E402 - after pytest.importorskip, so the module skips without torch


class SeedModule(torch.nn.Module):
    """The JIT Technical Overview's Python printer example."""

    def forward(self, x: Tensor, y: int, z: float) -> Tensor:
        if y > 2:
            x = x + z
        else:
            x = x + y
        return x


def lstm_cell(x: Tensor, hx: Tensor, cx: Tensor, w_ih: Tensor, w_hh: Tensor,
              b_ih: Tensor, b_hh: Tensor) -> tuple[Tensor, Tensor]:
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = ingate.sigmoid()
    forgetgate = forgetgate.sigmoid()
    cellgate = cellgate.tanh()
    outgate = outgate.sigmoid()
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * cy.tanh()
    return hy, cy


def for_loop(x: Tensor) -> Tensor:
    z = x
    for i in range(x.size(0)):
        z = z * z
    return z


def while_continue(x: Tensor, i: int) -> tuple[Tensor, int]:
    while i < 5:
        if i == 3:
            i += 1
            continue
        i += 2
        x = x + i
    return x, i


def break_continue(x: Tensor) -> tuple[Tensor, int]:
    i = 0
    while i < 10:
        i += 1
        if i == 5:
            continue
        if i > 8:
            break
        x = x + i
    t = (x, i)
    return t[0], t[1]


def early_return(x: Tensor, n: int) -> Tensor:
    if n > 3:
        return x
    for i in range(n):
        if i == 2:
            return x * i
        x = x + 1
    return x - 1


def containers(x: Tensor, n: int) -> list[Tensor]:
    lst: list[Tensor] = []
    for i in range(n):
        lst.append(x * i)
    l2 = [1, 2, 3]
    m = len(l2) + l2[1]
    d = {"a": x, "b": x + 1}
    d["c"] = x
    e: dict[str, list[int]] = {}
    opt: list[typing.Optional[Tensor]] = [x, None]
    return lst + [d["a"] * m + len(e) + len(opt)]


def raising(x: Tensor, y: typing.Optional[int]) -> Tensor:
    if y is None:
        raise ValueError("bad " + "y")
    if x.sum() > 0:
        return x * 2.5 + 1e-5
    s = "hello\n\"q\""
    return x - float(y) - 0.1 + len(s)


def keywords(x: Tensor, z: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor, Tensor]:
    a = torch.mean(x, [0], out=z)
    b = torch.add(x, x, alpha=2)
    c = torch.zeros([2, 3], dtype=torch.float64, device=torch.device("cpu"))
    d = x.view(-1).to(torch.float64)
    w = torch.ones(3) * float("inf")
    return a, b, c, d, w + torch.tensor([1.0, 2.0, 3.0]).sum() + True


def constants(x: Tensor):
    a = (float("nan"), -float("inf"), -0.0, 1e20, 123456789.0, 1e-20, 1e10, 9999999999.0, 0.5e-3)
    b = ("a\n'b\"c\t\\\x01", "é", torch.device("cpu"), [True, False], 3 + 4j, 1j)
    return a, b, x + 1


@torch.jit.script
def helper(x: Tensor, k: int = 2) -> Tensor:
    return x * k


def calls(x: Tensor, o: typing.Optional[Tensor]) -> Tensor:
    y = helper(x)
    if isinstance(o, torch.Tensor):
        y = y + o
    t = (x, 1, "a very long string constant that is longer than forty")
    print(t[2])
    with torch.no_grad():
        y = y * 2
    fut = torch.jit.fork(helper, x, 3)
    return y + torch.jit.wait(fut) + x.size(0)


SCRIPTED_FUNCTIONS = [lstm_cell, for_loop, while_continue, break_continue, early_return, containers,
                      raising, keywords, constants, calls]


def _script(fn: Callable[..., Any]) -> Any:
    return fn if isinstance(fn, torch.jit.ScriptFunction) else torch.jit.script(fn)


# ---------------------------------------------------------------------------
# `.code` of scripted functions, exactly
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("fn", SCRIPTED_FUNCTIONS + [helper], ids=lambda f: f.__name__)
def test_function_code_is_torchs(fn: Callable[..., Any]) -> None:
    scripted = _script(fn)
    _, method = function_ir(scripted)
    text = method_code(method)
    assert text == scripted.code
    ast.parse(text)


@pytest.mark.parametrize("fn", SCRIPTED_FUNCTIONS, ids=lambda f: f.__name__)
def test_code_after_mlir_text_round_trip(fn: Callable[..., Any]) -> None:
    """Through `.mlir` text (what exir-opt reads) the code is torch's up to local names:
    xDSL drops numeric suffixes of name hints (`y_1` reads back as `y`)."""
    scripted = _script(fn)
    module, _ = function_ir(scripted)
    reparsed = parse(str(module))
    (method,) = [op for op in reparsed.walk() if isinstance(op, MethodOp)]
    assert canonical(method_code(method)) == canonical(scripted.code)


def test_seed_module_code() -> None:
    """The JIT Technical Overview's table: `m.code` of the if/else ScriptModule."""
    m = torch.jit.script(SeedModule())
    method = module_ir(m).method("forward")
    assert method is not None
    text = method_code(method)
    assert text == m.code
    assert text == (
        "def forward(self,\n"
        "    x: Tensor,\n"
        "    y: int,\n"
        "    z: float) -> Tensor:\n"
        "  if torch.gt(y, 2):\n"
        "    x0 = torch.add(x, z)\n"
        "  else:\n"
        "    x0 = torch.add(x, y)\n"
        "  return x0\n"
    )


def test_traced_code_with_tensor_constants() -> None:
    def traced(x: Tensor) -> tuple[Tensor, Tensor]:
        c = torch.tensor([1.0, 2.0, 3.0])
        y = x * torch.tensor(2.5) + c
        return y.transpose(0, 1).contiguous(), torch.zeros(2, dtype=torch.long)

    fn = torch.jit.trace(traced, torch.ones(2, 3))
    module, method = function_ir(fn)
    assert method_code(method) == fn.code
    printer = TorchScriptPythonPrinter()
    text = printer.print_program(module)
    assert "CONSTANTS.c0" in text and "# CONSTANTS.c0 = Float tensor of sizes [3]" in text
    env = run_code(text, printer.constants)
    x = torch.randn(2, 3)
    assert_same(env["traced"](x), fn(x))


# ---------------------------------------------------------------------------
# The printed code computes what the graph computes
# ---------------------------------------------------------------------------

RUNS: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (lstm_cell, tuple(torch.randn(s) for s in [(3, 4), (3, 5), (3, 5), (20, 4), (20, 5), (20,), (20,)])),
    (for_loop, (torch.rand(3, 2),)),
    (while_continue, (torch.ones(2), 0)),
    (while_continue, (torch.ones(2), 3)),
    (while_continue, (torch.ones(2), 7)),
    (break_continue, (torch.ones(2),)),
    (early_return, (torch.ones(2), 5)),
    (early_return, (torch.ones(2), 2)),
    (early_return, (torch.ones(2), 3)),
    (containers, (torch.ones(2), 3)),
    (raising, (torch.ones(2), 3)),
    (raising, (-torch.ones(2), 3)),
    (keywords, (torch.randn(2, 3), torch.zeros(3))),
    (constants, (torch.ones(2),)),
    (calls, (torch.ones(2), torch.ones(2))),
    (calls, (torch.ones(2), None)),
]


@pytest.mark.parametrize(("fn", "args"), RUNS, ids=lambda p: getattr(p, "__name__", ""))
def test_printed_function_runs_like_torch(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    scripted = _script(fn)
    module, _ = function_ir(scripted)
    printer = TorchScriptPythonPrinter()
    text = printer.print_program(module)
    env = run_code(text, printer.constants)
    clone = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    assert_same(env[scripted.name](*clone), scripted(*args))


def test_printed_raise_raises() -> None:
    scripted = torch.jit.script(raising)
    module, _ = function_ir(scripted)
    env = run_code(print_torchscript_python(module))
    with pytest.raises(Exception, match="ValueError"):
        scripted(torch.ones(2), None)
    # torch.ops.prim.RaiseException called from Python reports the class name.
    with pytest.raises(Exception, match="ValueError"):
        env["raising"](torch.ones(2), None)


# ---------------------------------------------------------------------------
# Modules: CallMethod, GetAttr, SetAttr, classes
# ---------------------------------------------------------------------------


class Sub(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.scale = torch.nn.Parameter(torch.linspace(0.5, 1.5, 3))
        self.offset = 0.5

    def forward(self, x: Tensor) -> Tensor:
        return torch.relu(x) * self.scale + self.offset


class Composed(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        self.sub = Sub()
        self.register_buffer("count", torch.zeros(1))
        self.n = 2

    def forward(self, x: Tensor) -> Tensor:
        y = self.lin(x)
        for _ in range(self.n):
            y = self.sub(y)
        self.count = self.count + 1
        self.n = self.n + 1
        return y * self.count

    @torch.jit.export
    def other(self, x: Tensor, k: int = 3, s: str = "q") -> tuple[Tensor]:
        return (x * k,)


def _fresh_composed() -> Composed:
    torch.manual_seed(0)
    return Composed()


def test_module_method_code_and_run() -> None:
    eager = _fresh_composed()
    scripted = torch.jit.script(_fresh_composed())
    mod = module_ir(scripted)
    forward = mod.method("forward")
    assert forward is not None
    text = method_code(forward)
    assert text == scripted.code
    assert "  y = (lin).forward(x, )\n" in text and "  self.count = torch.add(count, 1)\n" in text
    env = run_code(text)
    x = torch.randn(2, 3)
    expected = scripted(x)
    assert_same(env["forward"](eager, x), expected)
    # SetAttr happened on the eager module as on the scripted one.
    assert eager.n == scripted.n == 3
    assert_same(eager.count, scripted.count)


def _archive_methods(scripted: Any) -> dict[str, str]:
    """`class.method` -> its text in the `code/` files of a `torch.jit.save` archive."""
    buf = io.BytesIO()
    torch.jit.save(scripted, buf)
    methods: dict[str, str] = {}
    with zipfile.ZipFile(buf) as z:
        for name in z.namelist():
            if not name.endswith(".py"):
                continue
            cls = ""
            current: list[str] | None = None
            for line in z.read(name).decode().splitlines(keepends=True):
                if line.startswith("class "):
                    cls = line.split()[1].split("(")[0]
                    current = None
                elif line.startswith("  def "):
                    current = []
                    methods[f"{cls}.{line[6:].split('(')[0]}"] = current  # pyright: ignore[reportArgumentType] - the dict holds a list of lines per method; its type is inferred from its first use
                if current is not None and (line.startswith("    ") or line.startswith("  def ")):
                    current.append(line)
    return {k: "".join(v) for k, v in methods.items()}


def test_program_classes_match_the_archive() -> None:
    """Methods print in the archive's layout, `self` annotated, `_N` counters shared per file."""
    scripted = torch.jit.script(_fresh_composed())
    program = ModuleOp([module_ir(scripted)])
    program.verify()
    text = print_torchscript_python(program)
    ast.parse(text)
    archive = _archive_methods(scripted)
    for key in ("Composed.forward", "Composed.other", "Sub.forward", "Linear.forward"):
        assert archive[key] in text, key
    # torch mangles a class name it has seen before (`___torch_mangle_3.Linear`),
    # which depends on what else this process scripted.
    text = re.sub(r"[./]___torch_mangle_\d+", "", text)
    assert text.startswith(
        "# code/__torch__/test_torchscript_python.py\n"
        "class Composed(Module):\n"
        '  __parameters__ = []\n'
        '  __buffers__ = ["count", ]\n'
        "  count : Tensor\n"
        "  lin : __torch__.torch.nn.modules.linear.Linear\n"
        "  sub : __torch__.test_torchscript_python.Sub\n"
        "  def forward(self: __torch__.test_torchscript_python.Composed,\n"
        "    x: Tensor) -> Tensor:\n"
    )
    assert '\n# code/__torch__/torch/nn/modules/linear.py\nclass Linear(Module):\n  __parameters__ = ["weight", "bias", ]\n' in text
    # Sub is printed after Composed in the same file: its unnamed values continue the count.
    assert "    _1 = torch.relu(x)\n" in text


# ---------------------------------------------------------------------------
# Hand-built IR: what torch cannot print, and the target
# ---------------------------------------------------------------------------


def parse(text: str) -> ModuleOp:
    ctx = Context()
    for d in (Builtin, TS, Prim):
        ctx.load_dialect(d)
    module = Parser(ctx, text).parse_module()
    module.verify()
    return module


MODIFIED_LOOP = """
ts.method @count_down attributes {schema = "count_down(Tensor x, int n) -> Tensor"} {
^bb0(%x.1: !ts.tensor, %n: !ts.int):
  %c0 = prim.Constant() {value = 0 : i64} : () -> !ts.int
  %1 = ts.node "aten::gt"(%n, %c0) : (!ts.int, !ts.int) -> !ts.bool
  %x = prim.Loop(%n, %1, %x.1) ({
  ^bb1(%i: !ts.int, %x.3: !ts.tensor):
    %x.5 = ts.node "aten::add"(%x.3, %i, %c0) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    %c3 = prim.Constant() {value = 3 : i64} : () -> !ts.int
    %more = ts.node "aten::lt"(%i, %c3) : (!ts.int, !ts.int) -> !ts.bool
    prim.Return(%more, %x.5) : (!ts.bool, !ts.tensor) -> ()
  }) : (!ts.int, !ts.bool, !ts.tensor) -> !ts.tensor
  prim.Return(%x) : (!ts.tensor) -> ()
}
"""


def test_loop_with_trip_count_and_condition() -> None:
    """torch refuses to print it; here it is a `for` with an `if`/`break`, and runs right."""
    text = print_torchscript_python(parse(MODIFIED_LOOP))
    assert text == (
        "def count_down(x: Tensor,\n"
        "    n: int) -> Tensor:\n"
        "  x0 = x\n"
        "  _0 = torch.gt(n, 0)\n"
        "  for i in range(n):\n"
        "    if _0:\n"
        "      x1 = torch.add(x0, i, 0)\n"
        "      _0, x0 = torch.lt(i, 3), x1\n"
        "    else:\n"
        "      break\n"
        "  return x0\n"
    )
    run = run_code(text)["count_down"]

    def reference(x: Tensor, n: int) -> Tensor:
        i, cond = 0, n > 0
        while i < n and cond:
            x, cond = x + 0 * i, i < 3
            i += 1
        return x

    for n in (0, 2, 6):
        assert_same(run(torch.ones(2), n), reference(torch.ones(2), n))


GROUPS = """
ts.method @fused {
^bb0(%x: !ts.tensor<Float(2, 3)>, %y: !ts.tensor<Float(2, 3)>):
  %r = prim.FusionGroup(%x, %y) ({
  ^bb1(%a: !ts.tensor<Float(2, 3)>, %b: !ts.tensor<Float(2, 3)>):
    %2 = ts.node "aten::mul"(%a, %b) : (!ts.tensor<Float(2, 3)>, !ts.tensor<Float(2, 3)>) -> !ts.tensor<Float(2, 3)>
    %3 = ts.node "aten::exp"(%2) : (!ts.tensor<Float(2, 3)>) -> !ts.tensor<Float(2, 3)>
    prim.Return(%3) : (!ts.tensor<Float(2, 3)>) -> ()
  }) : (!ts.tensor<Float(2, 3)>, !ts.tensor<Float(2, 3)>) -> !ts.tensor<Float(2, 3)>
  %p, %q = prim.ConstantChunk(%r) {chunks = 2 : i64, dim = 1 : i64} : (!ts.tensor<Float(2, 3)>) -> (!ts.tensor, !ts.tensor)
  %4 = ts.node "mylib::frob"(%p) attributes {scale = 2.5 : f64, mode = "fast"} : (!ts.tensor) -> !ts.tensor
  %5 = prim.TupleConstruct(%4, %q) : (!ts.tensor, !ts.tensor) -> !ts.tuple<!ts.tensor, !ts.tensor>
  prim.Return(%5) : (!ts.tuple<!ts.tensor, !ts.tensor>) -> ()
}
"""


def test_fusion_group_chunk_and_unknown_kinds() -> None:
    text = print_torchscript_python(parse(GROUPS))
    assert text == (
        "def fused(x: Tensor,\n"
        "    y: Tensor) -> Tuple[Tensor, Tensor]:\n"
        "  def FusionGroup_0(a: Tensor, b: Tensor) -> Tensor:\n"
        "    return torch.exp(torch.mul(a, b))\n"
        "  r = FusionGroup_0(x, y)\n"
        "  p, q = torch.chunk(r, 2, 1)\n"
        '  _0 = ops.mylib.frob(p, scale=2.5, mode="fast")\n'
        "  return (_0, q)\n"
    )
    env = run_code(text.replace("ops.mylib.frob(p, ", "(lambda p, **kw: p * kw['scale'])(p, "))
    x, y = torch.randn(2, 3), torch.randn(2, 3)
    chunks = torch.exp(x * y).chunk(2, 1)
    assert_same(env["fused"](x, y), (chunks[0] * 2.5, chunks[1]))


FRONTEND_STATEMENTS = """
ts.method @pre_ssa {
^bb0(%x: !ts.tensor, %n: !ts.int):
  %true = prim.Constant() {value = true} : () -> !ts.bool
  prim.Store(%x) {name = "acc"} : (!ts.tensor) -> ()
  prim.Loop(%n, %true) ({
  ^bb1(%i: !ts.int):
    %2 = prim.Load() {name = "acc"} : () -> !ts.tensor
    %0 = ts.node "aten::add"(%2, %i) : (!ts.tensor, !ts.int) -> !ts.tensor
    prim.Store(%0) {name = "acc"} : (!ts.tensor) -> ()
    %c3 = prim.Constant() {value = 3 : i64} : () -> !ts.int
    %1 = ts.node "aten::gt"(%i, %c3) : (!ts.int, !ts.int) -> !ts.bool
    prim.If(%1) ({
      prim.BreakStmt() : () -> ()
      prim.Return() : () -> ()
    }, {
      prim.ContinueStmt() : () -> ()
      prim.Return() : () -> ()
    }) : (!ts.bool) -> ()
    prim.Return(%true) : (!ts.bool) -> ()
  }) : (!ts.int, !ts.bool) -> ()
  %3 = prim.Load() {name = "acc"} : () -> !ts.tensor
  prim.ReturnStmt(%3) : (!ts.tensor) -> ()
  prim.Return(%3) : (!ts.tensor) -> ()
}
"""


def test_frontend_statements_before_convert_to_ssa() -> None:
    """Variables, break, continue and return of the script frontend's first graph."""
    text = print_torchscript_python(parse(FRONTEND_STATEMENTS))
    assert text == (
        "def pre_ssa(x: Tensor,\n"
        "    n: int) -> Tensor:\n"
        "  acc = x\n"
        "  for i in range(n):\n"
        "    acc = torch.add(acc, i)\n"
        "    if torch.gt(i, 3):\n"
        "      break\n"
        "    else:\n"
        "      continue\n"
        "  _0 = acc\n"
        "  return _0\n"
        "  return _0\n"
    )
    assert_same(run_code(text)["pre_ssa"](torch.zeros(2), 6), torch.full((2,), 10.0))


FRONTEND_LOOP = """
ts.method @count_while {
^bb0(%n: !ts.int):
  %c0 = prim.Constant() {value = 0 : i64} : () -> !ts.int
  prim.Store(%c0) {name = "i"} : (!ts.int) -> ()
  %max = prim.Constant() {value = 9223372036854775807 : i64} : () -> !ts.int
  prim.Loop(%max) ({
  ^bb1(%5: !ts.int):
    %0 = prim.Load() {name = "i"} : () -> !ts.int
    %c2 = prim.Constant() {value = 2 : i64} : () -> !ts.int
    %1 = ts.node "aten::add"(%0, %c2) : (!ts.int, !ts.int) -> !ts.int
    prim.Store(%1) {name = "i"} : (!ts.int) -> ()
    prim.Return() : () -> ()
  }, {
    %2 = prim.Load() {name = "i"} : () -> !ts.int
    %3 = ts.node "aten::lt"(%2, %n) : (!ts.int, !ts.int) -> !ts.bool
    prim.Return(%3) : (!ts.bool) -> ()
  }) : (!ts.int) -> ()
  %4 = prim.Load() {name = "i"} : () -> !ts.int
  prim.Return(%4) : (!ts.int) -> ()
}
"""


def test_frontend_loop_with_condition_block() -> None:
    """Before convert-to-ssa a loop's condition is a block of its own, computed before each trip."""
    text = print_torchscript_python(parse(FRONTEND_LOOP))
    assert text == (
        "def count_while(n: int) -> int:\n"
        "  i = 0\n"
        "  for _0 in range(9223372036854775807):\n"
        "    if torch.lt(i, n):\n"
        "      i = torch.add(i, 2)\n"
        "    else:\n"
        "      break\n"
        "  return i\n"
    )
    run = run_code(text)["count_while"]
    assert [run(n) for n in (0, 1, 5)] == [0, 2, 6]


@pytest.mark.parametrize(
    "dump",
    sorted(p.name for p in (FIXTURES / "dumps").glob("*.txt") if not p.name.endswith(".code.txt"))
    if (FIXTURES / "dumps").is_dir() else [],
)
def test_every_fixture_dump_prints_valid_python(dump: str) -> None:
    """Profiling, fusion and autodiff graphs too: torch cannot print those, this printer can."""
    frontend = pytest.importorskip("xdsl_exir.frontends.torchscript_dump_reader")
    module = frontend.parse_torchscript((FIXTURES / "dumps" / dump).read_text(), dump)
    ast.parse(print_torchscript_python(module))


DIFFERENTIABLE = """
ts.method @diff {
^bb0(%x: !ts.tensor):
  %r = prim.DifferentiableGraph(%x) ({
  ^bb1(%a: !ts.tensor):
    %s = ts.node "aten::sigmoid"(%a) : (!ts.tensor) -> !ts.tensor
    %0 = ts.node "aten::mul"(%s, %a) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    prim.Return(%0, %s) : (!ts.tensor, !ts.tensor) -> ()
  }) : (!ts.tensor) -> !ts.tensor
  prim.Return(%r) : (!ts.tensor) -> ()
}
"""


def test_differentiable_graph_gives_its_outputs_not_its_saved_values() -> None:
    text = print_torchscript_python(parse(DIFFERENTIABLE))
    assert text == (
        "def diff(x: Tensor) -> Tensor:\n"
        "  def DifferentiableGraph_0(a: Tensor) -> Tuple[Tensor, Tensor]:\n"
        "    s = torch.sigmoid(a)\n"
        "    return torch.mul(s, a), s\n"
        "  r = DifferentiableGraph_0(x)[0]\n"
        "  return r\n"
    )
    x = torch.randn(3)
    assert_same(run_code(text)["diff"](x), torch.sigmoid(x) * x)


def test_program_without_torchscript_is_refused() -> None:
    from xdsl.utils.exceptions import DiagnosticException

    with pytest.raises(DiagnosticException, match="ts.method and ts.module"):
        print_torchscript_python(ModuleOp([]))


@pytest.mark.parametrize(
    ("value", "text"),
    [(1.0, "1."), (-0.0, "-0."), (0.1, "0.10000000000000001"), (1e20, "1e+20"), (1e10, "10000000000"),
     (9999999999.0, "9999999999."), (float("inf"), "inf"), (-float("inf"), "-inf"), (2.5, "2.5")],
)
def test_float_spelling(value: float, text: str) -> None:
    assert format_float(value) == text


def test_string_spelling() -> None:
    assert quote_string("a\n'b\"c\t\\\x01\x7f") == '"a\\n\\\'b\\"c\\t\\\\\\001\\177"'


# ---------------------------------------------------------------------------
# Fixture dumps (when the TorchScript text frontend is there)
# ---------------------------------------------------------------------------


def _fixture_cases() -> list[tuple[str, str]]:
    dumps = FIXTURES / "dumps"
    if not dumps.is_dir():
        return []
    cases = []
    for code in sorted(dumps.glob("*.code.txt")):
        graph = code.with_name(code.name.replace(".code.txt", ".txt"))
        if not graph.exists():
            graph = code.with_name(code.name.replace(".code.txt", ".forward.txt"))
        if graph.exists():
            cases.append((graph.name, code.name))
    return cases


@pytest.mark.parametrize(("graph_file", "code_file"), _fixture_cases())
def test_fixture_dumps_print_like_torch(graph_file: str, code_file: str) -> None:
    """Dumps read by the text frontend print as torch's `.code`, up to the names of locals."""
    frontend = pytest.importorskip("xdsl_exir.frontends.torchscript_dump_reader")
    dumps = FIXTURES / "dumps"
    module = frontend.parse_torchscript((dumps / graph_file).read_text(), graph_file)
    # A dump names a called function by its last part (`helper`); the
    # fixtures' functions live in models.py, so give the printer their
    # qualified name the way an importer that knows it would, in the type.
    for op in list(module.walk()):
        if isinstance(op, ConstantOp) and op.fn_name is not None and "." not in op.fn_name.data:
            qualified = ConstantOp.make([], [TSFunctionType(f"__torch__.models.{op.fn_name.data}")], {"name": op.fn_name})
            Rewriter.replace_op(op, qualified)
    methods = [op for op in module.walk() if isinstance(op, MethodOp)]
    assert len(methods) == 1
    expected = (dumps / code_file).read_text()
    text = method_code(methods[0])
    # A dump has no schema and keeps only the last part of a function's name:
    # take the function name from torch's text, drop the annotation of a
    # method's `self` (the dump holds the method outside its class).
    name = re.match(r"def (\w+)\(", expected)
    assert name is not None
    text = re.sub(r"^def \w+\(", f"def {name.group(1)}(", text)
    text = re.sub(r"^(def \w+\(self): [\w.]+,", r"\1,", text)
    assert text == expected or canonical(text) == canonical(expected), text
