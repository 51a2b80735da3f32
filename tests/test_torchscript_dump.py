"""
TorchScript graph dumps in and out: the dump frontend (`parse_torchscript`),
the `torchscript` target (`print_torchscript`) and the live ScriptModule
importer (`import_script_module`).

Every dump torch writes must parse, verify, and print back as torch wrote it
up to a renaming of values; the dumps come from the fixtures in
`tests/torchscript/dumps/` and from torch itself, in-process.
"""

from __future__ import annotations

import math
import pathlib
import random
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from call_counting import assert_linear
from xdsl.context import Context
from xdsl.dialects.builtin import (
    ArrayAttr,
    Builtin,
    FileLineColLoc,
    FloatAttr,
    IntegerAttr,
    ModuleOp,
    NameLoc,
    OpaqueAttr,
    StringAttr,
)

from xdsl_exir.dialects import prim, ts
from xdsl_exir.dialects.exir import Exir
from xdsl_exir.frontends.torchscript_dump_reader import TorchScriptParseError, parse_torchscript, tensor_bytes
from xdsl_exir.targets.torchscript_dump_printer import (
    format_float,
    format_string,
    format_tensor,
    print_torchscript,
)
from xdsl_exir.tools.exir_opt import detect_frontend, run
from xdsl_exir.utils.mlir_parser import ResourceParser, print_module

ROOT = pathlib.Path(__file__).resolve().parents[1]
DUMP_DIR = ROOT / "tests" / "torchscript" / "dumps"
DUMPS = sorted(p for p in DUMP_DIR.glob("*.txt") if p.read_text().startswith("graph("))

_VALUE = re.compile(r"%([A-Za-z0-9_.]+)")


def canonical(text: str) -> str:
    """`text` with values renamed `%v0, %v1, ...` in order of first appearance, per graph (names are per graph)."""
    out: list[str] = []
    for section in re.split(r"(?m)^(?=graph\(|with )", text):
        names: dict[str, str] = {}

        def rename(m: re.Match[str]) -> str:
            return "%" + names.setdefault(m.group(1), f"v{len(names)}")

        out.append(_VALUE.sub(rename, section))
    return "".join(out)


def round_trip(text: str) -> str:
    return print_torchscript(parse_torchscript(text, "dump.txt"))


def only_method(module: ModuleOp) -> ts.MethodOp:
    (method,) = module.ops
    assert isinstance(method, ts.MethodOp)
    return method


def context() -> Context:
    ctx = Context()
    for d in (Builtin, ts.TS, prim.Prim, Exir):
        ctx.load_dialect(d)
    return ctx


def mlir_round_trip(module: ModuleOp) -> ModuleOp:
    from io import StringIO

    buf = StringIO()
    print_module(module, buf, context().loaded_dialects)  # tensor data is in the resources section
    parsed = ResourceParser(context(), buf.getvalue()).parse_module()
    parsed.verify()
    return parsed


def strip_locations(text: str) -> str:
    return re.sub(r" # [^\n]*", "", re.sub(r", scope: [^#\n]*?(?= #|\n)", "", text))


# ---------------------------------------------------------------------------
# Fixture dumps
# ---------------------------------------------------------------------------


def test_fixture_dumps_exist() -> None:
    assert len(DUMPS) >= 20, "tests/torchscript/dumps/ holds the torch-written dumps"


@pytest.mark.parametrize("path", DUMPS, ids=[p.stem for p in DUMPS])
def test_fixture_dump_round_trips(path: pathlib.Path) -> None:
    text = path.read_text()
    module = parse_torchscript(text, path.name)
    module.verify()
    assert canonical(print_torchscript(module)) == canonical(text)


@pytest.mark.parametrize("path", DUMPS, ids=[p.stem for p in DUMPS])
def test_fixture_dump_round_trips_through_mlir_text(path: pathlib.Path) -> None:
    text = path.read_text()
    again = mlir_round_trip(parse_torchscript(text, path.name))
    assert canonical(print_torchscript(again)) == canonical(strip_locations(text))


def test_canonical_tells_structure_apart() -> None:
    a = "graph(%x : Tensor):\n  %y : Tensor = aten::neg(%x)\n  return (%y)\n"
    assert canonical(a) == canonical(a.replace("%y", "%7"))
    assert canonical(a) != canonical(a.replace("return (%y)", "return (%x)"))


# ---------------------------------------------------------------------------
# What the parser builds
# ---------------------------------------------------------------------------

SEED_IF = """graph(%x.1 : Tensor,
      %y : int,
      %z : float):
  %5 : int = prim::Constant[value=1]()
  %3 : int = prim::Constant[value=2]()
  %4 : bool = aten::gt(%y, %3)
  %x : Tensor = prim::If(%4)
    block0():
      %x.2 : Tensor = aten::add(%x.1, %z, %5)
      -> (%x.2)
    block1():
      %x.3 : Tensor = aten::add(%x.1, %y, %5)
      -> (%x.3)
  return (%x)
"""


def test_structure_of_an_if() -> None:
    method = only_method(parse_torchscript(SEED_IF))
    assert method.sym_name.data == "forward"
    block = method.body.block
    assert [a.name_hint for a in block.args] == ["x.1", "y", "z"]
    assert [a.type for a in block.args] == [ts.TSTensorType(), ts.TSIntType(), ts.TSFloatType()]
    ops = list(block.ops)
    assert [type(op) for op in ops] == [prim.ConstantOp, prim.ConstantOp, ts.NodeOp, prim.IfOp, prim.ReturnOp]
    gt = ops[2]
    assert isinstance(gt, ts.NodeOp) and gt.kind.data == "aten::gt"
    assert list(gt.operands) == [block.args[1], ops[1].results[0]]
    if_op = ops[3]
    assert isinstance(if_op, prim.IfOp)
    true_ops = list(if_op.regions[0].block.ops)
    assert isinstance(true_ops[-1], prim.ReturnOp)
    assert true_ops[-1].operands[0] is true_ops[0].results[0]
    assert true_ops[0].operands[0] is block.args[0]  # outer values are visible in blocks
    assert ops[-1].operands[0] is if_op.results[0]
    assert canonical(round_trip(SEED_IF)) == canonical(SEED_IF)


def test_seed_loop_with_dynamic_types() -> None:
    text = """graph(%z.1 : Dynamic):
  %3 : bool = prim::Constant[value=1]()
  %1 : int = prim::Constant[value=0]()
  %2 : int = aten::size(%z.1, %1)
  %z : Dynamic = prim::Loop(%2, %3, %z.1)
    block0(%i : int, %5 : Dynamic):
      %z.2 : Dynamic = aten::mul(%5, %5)
      -> (%3, %z.2)
  return (%z)
"""
    method = only_method(parse_torchscript(text))
    loop = [op for op in method.body.block.ops if isinstance(op, prim.LoopOp)][0]
    assert loop.results[0].type == ts.TSTensorType()  # `Dynamic` is the JIT Technical Overview's unrefined Tensor
    assert [a.type for a in loop.body.block.args] == [ts.TSIntType(), ts.TSTensorType()]
    assert canonical(round_trip(text)) == canonical(text.replace("Dynamic", "Tensor"))


def test_seed_leniency_semicolon_and_stray_brace() -> None:
    text = """graph(%a : Dynamic,
      %c : bool):
  %5 : Dynamic = prim::If(%c)
    block0():
      %6 : int = prim::Constant[value=1]()
      %7 : Dynamic = aten::add(%a, %a, %6)
      -> (%7)
    }
    block1():
      -> (%a)
  return (%5);
"""
    method = only_method(parse_torchscript(text))
    assert isinstance(list(method.body.block.ops)[0], prim.IfOp)


def constant_ops(text: str) -> list[prim.ConstantOp]:
    return [op for op in only_method(parse_torchscript(text)).body.walk() if isinstance(op, prim.ConstantOp)]


def test_constant_encodings() -> None:
    text = r"""graph():
  %0 : bool = prim::Constant[value=1]()
  %1 : bool = prim::Constant[value=0]()
  %2 : int = prim::Constant[value=-3]()
  %3 : float = prim::Constant[value=1.]()
  %4 : float = prim::Constant[value=0.10000000000000001]()
  %5 : float = prim::Constant[value=-inf]()
  %6 : float = prim::Constant[value=nan]()
  %7 : float = prim::Constant[value=10000000000]()
  %8 : str = prim::Constant[value="a\"b\n\001"]()
  %9 : Device = prim::Constant[value="cpu"]()
  %10 : NoneType = prim::Constant()
  %11 : int[] = prim::Constant[value=[1, 2]]()
  %12 : bool[] = prim::Constant[value=[True, False]]()
  %13 : (int, float, str) = prim::Constant[value=(1, 2.5, "a")]()
  %14 : complex = prim::Constant[value=3.-4.j]()
  %15 : Function = prim::Constant[name="helper"]()
  %16 : int[] = prim::Constant[value=annotate(List[int], [])]()
  %17 : Long(requires_grad=0, device=cpu) = prim::Constant[value={2}]()
  %18 : Float(requires_grad=0, device=cpu) = prim::Constant[value={1.5}]()
  %19 : Tensor = prim::Constant[value={2}]()
  %20 : Float(11, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value=<Tensor>]()
  %21 : Float(3, strides=[1], requires_grad=0, device=cpu) = prim::Constant[value= 1  2  3 [ CPUFloatType{3} ]]()
  %22 : Function = prim::Constant[name="fallback_function", fallback=1]()
  return (%0)
"""
    ops = constant_ops(text)
    values = [op.value for op in ops]
    assert values[0] == IntegerAttr(1, 1) and values[1] == IntegerAttr(0, 1)
    assert values[2] == IntegerAttr(-3, 64)
    assert isinstance(values[3], FloatAttr) and values[3].value.data == 1.0
    assert isinstance(values[4], FloatAttr) and values[4].value.data == 0.1
    assert isinstance(values[5], FloatAttr) and values[5].value.data == -math.inf
    assert isinstance(values[6], FloatAttr) and math.isnan(values[6].value.data)
    assert isinstance(values[7], FloatAttr) and values[7].value.data == 1e10  # the type says float
    assert values[8] == StringAttr('a"b\n\x01')
    assert values[9] == StringAttr("cpu") and ops[9].results[0].type == ts.TSDeviceType()
    assert values[10] is None and ops[10].results[0].type == ts.TSNoneType()
    assert values[11] == ArrayAttr([IntegerAttr(1, 64), IntegerAttr(2, 64)])
    assert values[12] == ArrayAttr([IntegerAttr(1, 1), IntegerAttr(0, 1)])
    assert values[13] == ArrayAttr([IntegerAttr(1, 64), FloatAttr(2.5, 64), StringAttr("a")])
    assert values[14] == ArrayAttr([FloatAttr(3.0, 64), FloatAttr(-4.0, 64)])
    assert values[15] is None and ops[15].fn_name == StringAttr("helper")
    assert ops[15].results[0].type == ts.TSFunctionType("helper")
    assert values[16] == ArrayAttr([])
    t17, t18, t19, t20, t21 = values[17:22]
    assert t17 == ts.TensorValueAttr("Long", [], np.array([2], "<i8").tobytes())
    assert t18 == ts.TensorValueAttr("Float", [], np.array([1.5], "<f4").tobytes())
    assert t19 == ts.TensorValueAttr("Long", [], np.array([2], "<i8").tobytes())  # no dtype in the type: Long
    assert isinstance(t20, ts.TensorValueAttr) and not t20.known and t20.shape == (11,)
    assert t21 == ts.TensorValueAttr("Float", [3], np.array([1, 2, 3], "<f4").tobytes())
    assert ops[22].fn_name == StringAttr("fallback_function")
    assert ops[22].extra is not None and ops[22].extra.data["fallback"] == IntegerAttr(1, 64)
    assert canonical(round_trip(text)) == canonical(text)


def test_constants_without_a_faithful_encoding_stay_raw() -> None:
    text = """graph():
  %0 : Tensor[] = prim::Constant[value=[<Tensors>]]()
  %1 : Enum<__torch__.Color> = prim::Constant[value=__torch__.Color.RED]()
  %2 : (Float(2, strides=[1], requires_grad=0, device=cpu), NoneType) = prim::Constant[value=( 1  2 [ CPUFloatType{2} ], None)]()
  return (%0)
"""
    ops = list(only_method(parse_torchscript(text)).body.block.ops)
    for op in ops[:3]:
        assert isinstance(op, ts.NodeOp) and op.kind.data == "prim::Constant"
        assert op.node_attrs is not None and isinstance(op.node_attrs.data["value"], OpaqueAttr)
    assert canonical(round_trip(text)) == canonical(text)


def test_attributes_become_properties_or_attrs() -> None:
    text = """graph(%x : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu)):
  %1 : Tensor = prim::profile[profiled_type=Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu), seen_none=0](%x)
  %2 : Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu), %3 : bool = prim::TypeCheck[types=[Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu)]](%x)
  %4 : Tensor, %5 : Tensor = prim::ConstantChunk[chunks=2, dim=1](%1)
  %6 : Tensor = aten::custom[f=0.5, s="x", l=[1, 2], b=True, t={3}, ty=Float(2)](%4)
   = prim::profile()
  return (%6)
"""
    ops = list(only_method(parse_torchscript(text)).body.block.ops)
    profile, check, chunk, custom, bare = ops[:5]
    assert isinstance(profile, prim.ProfileOp)
    assert profile.profiled_type == ts.parse_ts_type("Float(4, 5, strides=[5, 1], requires_grad=0, device=cpu)")
    assert profile.seen_none == IntegerAttr(0, 64)
    assert isinstance(check, prim.TypeCheckOp) and len(check.types.data) == 1
    assert isinstance(chunk, prim.ConstantChunkOp) and chunk.chunks == IntegerAttr(2, 64)
    assert isinstance(custom, ts.NodeOp) and custom.node_attrs is not None
    attrs = custom.node_attrs.data
    assert attrs["f"] == FloatAttr(0.5, 64) and attrs["s"] == StringAttr("x") and attrs["b"] == IntegerAttr(1, 1)
    assert attrs["l"] == ArrayAttr([IntegerAttr(1, 64), IntegerAttr(2, 64)])
    assert isinstance(attrs["t"], ts.TensorValueAttr)
    assert attrs["ty"] == ts.parse_ts_type("Float(2)")
    assert isinstance(bare, prim.ProfileOp) and not bare.results
    assert canonical(round_trip(text)) == canonical(text)


def test_locations_and_scopes() -> None:
    text = """graph(%x : Tensor):
  %1 : int = prim::Constant[value=1]() # models.py:3:4
  %2 : Tensor = aten::add(%x, %x, %1), scope: __module.layer1/__module.layer1.0 # torch/nn/functional.py:2898:0
  %3 : Tensor = aten::neg(%2) # a comment that is not a location
  return (%3)
"""
    const, add, neg, _ = only_method(parse_torchscript(text)).body.block.ops
    assert const.location == FileLineColLoc(StringAttr("models.py"), *map(_int_attr, (3, 4)))
    assert isinstance(add.location, NameLoc) and add.location.desc.data == "__module.layer1/__module.layer1.0"
    assert add.location.location == FileLineColLoc(StringAttr("torch/nn/functional.py"), *map(_int_attr, (2898, 0)))
    assert not isinstance(neg.location, FileLineColLoc | NameLoc)
    assert canonical(round_trip(text)) == canonical(text.replace(" # a comment that is not a location", ""))


def _int_attr(v: int) -> Any:
    from xdsl.dialects.builtin import IntAttr

    return IntAttr(v)


NESTED = """graph(%x : Float(*, *),
      %y : Float(*, *)):
  %z : Float(*, *) = prim::DifferentiableGraph_0(%x, %y)
  %w : Float(*, *) = prim::FusionGroup_1(%z)
  return (%w)
with prim::DifferentiableGraph_0 = graph(%0 : Float(*, *),
      %1 : Float(*, *)):
  %2 : Float(*, *) = prim::FusionGroup_0(%0, %1)
  %3 : Float(*, *) = prim::FusionGroup_1(%2)
  return (%3, %2)
with prim::FusionGroup_0 = graph(%0 : Float(*, *),
      %1 : Float(*, *)):
  %c : int = prim::Constant[value=1]()
  %2 : Float(*, *) = aten::add(%0, %1, %c)
  return (%2)
with prim::FusionGroup_1 = graph(%0 : Float(*, *)):
  %1 : Float(*, *) = aten::relu(%0)
  return (%1)
with prim::FusionGroup_1 = graph(%0 : Float(*, *)):
  %1 : Float(*, *) = aten::neg(%0)
  return (%1)
"""


def test_nested_subgraphs_bind_to_their_graph() -> None:
    method = only_method(parse_torchscript(NESTED))
    dg, fg, _ = method.body.block.ops
    assert isinstance(dg, prim.DifferentiableGraphOp) and isinstance(fg, prim.FusionGroupOp)
    inner = list(dg.subgraph.block.ops)
    assert isinstance(inner[0], prim.FusionGroupOp) and isinstance(inner[1], prim.FusionGroupOp)
    kinds = [[o.kind.data for o in f.subgraph.block.ops if isinstance(o, ts.NodeOp)] for f in (*inner[:2], fg)]
    assert kinds == [["aten::add"], ["aten::relu"], ["aten::neg"]]
    assert canonical(round_trip(NESTED)) == canonical(NESTED)


def test_unknown_subgraph_kinds_and_suffixed_kinds() -> None:
    text = """graph(%x : Tensor):
  %1 : Tensor = prim::FallbackGraph_0(%x)
  %2 : Tensor = aten::foo_2(%1)
  return (%2)
with prim::FallbackGraph_0 = graph(%0 : Tensor):
  %1 : Tensor = aten::neg(%0)
  return (%1)
"""
    fallback, foo, _ = only_method(parse_torchscript(text)).body.block.ops
    assert isinstance(fallback, ts.NodeOp) and fallback.kind.data == "prim::FallbackGraph"
    assert fallback.node_attrs is not None and "Subgraph" in fallback.node_attrs.data
    assert isinstance(foo, ts.NodeOp) and foo.kind.data == "aten::foo_2"  # no `with`: an ordinary kind
    assert canonical(round_trip(text)) == canonical(text)


def test_several_graphs_become_named_methods() -> None:
    module = parse_torchscript(
        "# m.forward\ngraph(%x : Tensor):\n  return (%x)\n\n# m.helper\ngraph(%y : int):\n  return (%y)\n"
    )
    assert [op.sym_name.data for op in module.ops] == ["forward", "helper"]  # pyright: ignore[reportAttributeAccessIssue] - both top-level ops are ts.method


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line", "col", "message"),
    [
        ("graph(%x : Tensor):\n  %y : Tensor = aten::neg(%z)\n  return (%y)\n", 2, 27, "use of undefined value %z"),
        ("graph(%x : Tensor):\n  %x : Tensor = aten::neg(%x)\n  return (%x)\n", 2, 3, "value %x is defined twice"),
        ("graph(%x : Float(2, foo=1)):\n  return (%x)\n", 1, 24, "unexpected 'foo' in tensor type"),
        ("graph(%x : Float(2, strides=[1, 2, 3])):\n  return (%x)\n", 1, 12, "strides of Float"),
        (
            "graph(%c : bool):\n  %y : int = prim::If(%c)\n    block0():\n      %a : int = prim::Constant[value=1]()\n"
            "    block1():\n      -> (%a)\n  return (%y)\n",
            5,
            5,
            "block0 of prim::If ends without '-> (...)'",
        ),
        (
            "graph(%c : bool):\n  %y : int = prim::If(%c)\n    block0():\n      -> (%c, %c)\n    block1():\n"
            "      -> (%c)\n  return (%y)\n",
            4,
            7,
            "block0 of prim::If yields 2 values but the node has 1 outputs",
        ),
        ("graph(%x : Tensor):\n  %y : Tensor = neg(%x)\n  return (%y)\n", 2, 17, "expected a node kind"),
        ("graph(%x : Tensor):\n  %y : Tensor = aten::neg(%x)\n", 3, 1, "graph ends without 'return (...)'"),
        ('graph():\n  %s : str = prim::Constant[value="abc]()\n  return (%s)\n', 2, 35, "unterminated string"),
        ("graph(%x : int):\n  %y : int = prim::If(%x)\n    block0():\n      -> (%x)\n    block1():\n      -> (%x)\n"
         "  return (%y)\n", 2, 3, "condition must be a bool"),
        ("graph(%x : Tensor):\n  %y : Tensor = prim::FusionGroup_0(%x)\n  return (%y)\n", 2, 17,
         "no 'with prim::FusionGroup_0 = graph(...)' section"),
        ("graph(%x : Tensor):\n  return (%x)\nwith prim::FusionGroup_0 = graph(%y : Tensor):\n  return (%y)\n", 3, 1,
         "names no node"),
        ("graph(%x : Tensor):\n  %y : Tensor = prim::FusionGroup_0(%x)\n  return (%y)\n"
         "with prim::FusionGroup_0 = graph(%a : Tensor, %b : Tensor):\n  return (%a)\n", 4, 28,
         "takes 2 inputs but the node passes 1"),
        ("graph(%x : Tensor):\n  %y : Tensor = aten::neg(%x) extra\n  return (%y)\n", 2, 31, "expected a node"),
    ],
)
def test_errors_are_located(text: str, line: int, col: int, message: str) -> None:
    with pytest.raises(TorchScriptParseError) as info:
        parse_torchscript(text, "bad.txt")
    e = info.value
    assert message in e.message
    assert (e.line, e.col) == (line, col), f"{e.line}:{e.col}: {e.message}"


# ---------------------------------------------------------------------------
# Value spellings against torch
# ---------------------------------------------------------------------------


def test_float_spelling() -> None:
    cases = [(0.0, "0."), (-0.0, "-0."), (2.0, "2."), (1e9, "1000000000."), (1e10, "10000000000"), (0.5, "0.5"),
             (0.1, "0.10000000000000001"), (1e20, "1e+20"), (1e-5, "1.0000000000000001e-05"), (math.inf, "inf"),
             (-math.inf, "-inf"), (math.nan, "nan")]
    for value, text in cases:
        assert format_float(value) == text
    assert format_string("a\"b\\c'\n\x01\x7f") == '"a\\"b\\\\c\\\'\\n\\001\\177"'


def test_tensor_spelling() -> None:
    def fmt(scalar: str, shape: list[int], values: list[float]) -> str:
        return format_tensor(ts.TensorValueAttr(scalar, shape, tensor_bytes(values, scalar)))

    assert fmt("Float", [3], [1, 2, 3]) == " 1  2  3 [ CPUFloatType{3} ]"
    assert fmt("Float", [2], [-100.5, 0.25]) == "-100.5000    0.2500 [ CPUFloatType{2} ]"
    assert fmt("Float", [2], [0.001, 0.002]) == "0.001 *  1.0000  2.0000 [ CPUFloatType{2} ]"
    assert fmt("Long", [2, 2, 2], list(range(1, 9))) == (
        "(1,.,.) =   1  2   3  4  (2,.,.) =   5  6   7  8 [ CPULongType{2,2,2} ]"
    )
    assert fmt("Float", [0], []) == "[ CPUFloatType{0} ]"
    assert fmt("Float", [], [1 / 3]) == "{0.333333}"
    assert fmt("Bool", [1], [1]) == "{1}"
    assert fmt("Float", [11], list(range(11))) == "<Tensor>"
    wide = [0.5] + [k * 1e12 for k in range(1, 10)]
    text = fmt("Float", [1, 10], wide)
    assert text == (
        "Columns 1 to 6 5.0000e-01  1.0000e+12  2.0000e+12  3.0000e+12  4.0000e+12  5.0000e+12  "
        "Columns 7 to 10 6.0000e+12  7.0000e+12  8.0000e+12  9.0000e+12 [ CPUFloatType{1,10} ]"
    )
    dump = f"graph():\n  %0 : Tensor = prim::Constant[value={text}]()\n  return (%0)\n"
    (const, _) = only_method(parse_torchscript(dump)).body.block.ops
    assert isinstance(const, prim.ConstantOp) and isinstance(const.value, ts.TensorValueAttr)
    np.testing.assert_allclose(np.frombuffer(const.value.data.data, "<f4"), wide, rtol=1e-4)
    assert round_trip(dump) == dump
    scaled = "(1,.,.) =  0.0001 *   4.7457  (2,.,.) =  100000 *  -3.2122 [ CPUDoubleType{2,1,1} ]"  # 1e5 * 4 decimals: integral
    dump = f"graph():\n  %0 : Tensor = prim::Constant[value={scaled}]()\n  return (%0)\n"
    (const, _) = only_method(parse_torchscript(dump)).body.block.ops
    assert isinstance(const, prim.ConstantOp) and isinstance(const.value, ts.TensorValueAttr)
    np.testing.assert_allclose(np.frombuffer(const.value.data.data, "<f8"), [4.7457e-4, -3.2122e5], rtol=1e-12)
    assert round_trip(dump) == dump


def test_torch_reads_what_we_print() -> None:
    t = _torch()
    readable = 0
    for path in DUMPS:
        text = path.read_text()
        try:
            theirs = t._C.parse_ir(text)
        except RuntimeError:
            continue  # torch's IR parser cannot read everything torch prints (`with` sections, `=` nodes, ...)
        readable += 1
        ours = t._C.parse_ir(round_trip(text))
        assert canonical(str(ours)) == canonical(str(theirs)), path.name
    assert readable >= 10



def _torch() -> Any:
    return pytest.importorskip("torch")


def _constant_text(value: Any) -> str:
    """str() of a graph holding one torch constant."""
    t = _torch()
    g = t._C.Graph()
    g.registerOutput(g.insertConstant(value))
    return str(g)


def test_constant_spelling_matches_torch() -> None:
    t = _torch()
    rng = random.Random(0)
    dtypes = [t.float32, t.float64, t.int64, t.int32, t.bool, t.bfloat16, t.float16, t.uint8]
    texts: list[str] = []
    for _ in range(150):
        dtype = rng.choice(dtypes)
        shape = [rng.randint(1, 3) for _ in range(rng.randint(0, 4))]
        while math.prod(shape) > 10:
            shape.pop()
        scale = rng.choice([1.0, 1e-4, 1e6, 1e11])
        vals = [rng.choice([round(rng.uniform(-20, 20)), rng.uniform(-1, 1) * scale]) for _ in range(math.prod(shape))]
        tensor = t.tensor(vals, dtype=t.float64).reshape(shape)
        tensor = tensor > 0 if dtype is t.bool else tensor.clamp(-1e4, 1e4).to(dtype) if dtype in (
            t.int32, t.uint8, t.float16) else tensor.to(dtype)
        texts.append(_constant_text(tensor))
    for v in [0.1, 1e10, -0.0, 1e-300, 2.0**53, "q\"\\\n\x7f", 3 - 4j, [1.5, 2.0], (1, "a", 2.5), [True, False]]:
        texts.append(_constant_text(v))
    for text in texts:  # printing our reading of torch's text gives torch's text back
        assert round_trip(text) == text
    # and from exact data, our layout is torch's
    for _ in range(300):
        dtype = rng.choice([t.float32, t.float64, t.int64])
        shape = [rng.randint(1, 3) for _ in range(rng.randint(1, 4))]
        while math.prod(shape) > 10:
            shape.pop()
        scale = rng.choice([1.0, 1e-4, 1e6, 1e11])
        tensor = (t.randn(shape, dtype=t.float64, generator=t.Generator().manual_seed(rng.randint(0, 10**6)))
                  * scale).to(dtype)
        text = _constant_text(tensor).splitlines()[1]
        want = text[text.index("value=") + 6 : text.rindex("]()")]
        name = {t.float32: "Float", t.float64: "Double", t.int64: "Long"}[dtype]
        flat = [float(x) for x in tensor.reshape(-1).tolist()]
        assert format_tensor(ts.TensorValueAttr(name, shape, tensor_bytes(flat, name))) == want


# ---------------------------------------------------------------------------
# Dumps torch writes in-process
# ---------------------------------------------------------------------------


def models() -> Any:
    _torch()
    import ts_text_models

    return ts_text_models


@contextmanager
def fuser(*, legacy: bool = False, texpr: bool = False) -> Iterator[None]:
    C = _torch()._C
    saved = (C._jit_can_fuse_on_cpu(), C._jit_can_fuse_on_cpu_legacy(), C._jit_texpr_fuser_enabled(),
             C._jit_get_te_must_use_llvm_cpu())
    C._jit_override_can_fuse_on_cpu(texpr or legacy)
    C._jit_override_can_fuse_on_cpu_legacy(legacy)
    C._jit_set_texpr_fuser_enabled(texpr)
    C._jit_set_te_must_use_llvm_cpu(False)
    try:
        yield
    finally:
        C._jit_override_can_fuse_on_cpu(saved[0])
        C._jit_override_can_fuse_on_cpu_legacy(saved[1])
        C._jit_set_texpr_fuser_enabled(saved[2])
        C._jit_set_te_must_use_llvm_cpu(saved[3])


def _torch_dumps() -> dict[str, Callable[[], str]]:
    def scripted(name: str) -> Callable[[], str]:
        return lambda: str(_torch().jit.script(getattr(models(), name)).graph)

    def lstm_args() -> list[Any]:
        t = _torch()
        g = t.Generator().manual_seed(0)
        return [t.randn(*s, generator=g) for s in ((3, 10), (3, 20), (3, 20), (80, 10), (80, 20), (80,), (80,))]

    def traced_lstm() -> Any:
        return _torch().jit.trace(models().lstm_cell, tuple(lstm_args()))

    def fused_legacy() -> str:
        g = traced_lstm().graph.copy()
        with fuser(legacy=True):
            _torch()._C._jit_pass_fuse(g, False)
        text = str(g)
        assert "prim::FusionGroup_0" in text
        return text

    def fused_texpr() -> str:
        g = traced_lstm().graph.copy()
        with fuser(texpr=True):
            _torch()._C._jit_pass_fuse_tensorexprs(g)
        text = str(g)
        assert "prim::TensorExprGroup_0" in text
        return text

    def traced_module() -> str:
        t = _torch()
        m = t.jit.trace(models().Net().eval(), t.randn(1, 1, 5, 5))
        return str(m.graph) + "\n" + str(m.inlined_graph)

    def scripted_module() -> str:
        m = _torch().jit.script(models().Counter())
        text = str(m.graph)
        assert "prim::SetAttr" in text and "prim::CallMethod" in text
        return text

    def profiled(texpr: bool, grad: bool) -> Callable[[], str]:
        def make() -> str:
            t = _torch()
            fn = t.jit.script(models().pointwise)
            g = t.Generator().manual_seed(1)
            args = [t.randn(4, 5, generator=g).requires_grad_(grad) for _ in range(2)]
            texts: list[str] = []
            with fuser(texpr=texpr):
                old = t._C._jit_set_num_profiled_runs(1)
                try:
                    for _ in range(3):
                        fn(*args)
                        texts.append(str(t.jit.last_executed_optimized_graph()))
                finally:
                    t._C._jit_set_num_profiled_runs(old)
            return "\n".join(texts)

        return make

    return {
        "lstm_cell": scripted("lstm_cell"),
        "if_else": scripted("if_else"),
        "for_loop": scripted("for_loop"),
        "while_continue": scripted("while_continue"),
        "traced_lstm": lambda: str(traced_lstm().graph),
        "fusion_group": fused_legacy,
        "tensorexpr_group": fused_texpr,
        "traced_module": traced_module,
        "scripted_module": scripted_module,
        "profiled_nograd_texpr": profiled(True, False),
        "profiled_grad": profiled(False, True),
    }


TORCH_DUMPS = _torch_dumps()


def _graphs(text: str) -> list[str]:
    """Split several `str(graph)` texts (each with its `with` sections) joined by blank lines."""
    return [g for g in re.split(r"\n(?=graph\()", text) if g.strip()]


@pytest.mark.parametrize("name", sorted(TORCH_DUMPS))
def test_torch_dump_round_trips(name: str) -> None:
    t = _torch()
    for text in _graphs(TORCH_DUMPS[name]()):
        text = text.rstrip("\n") + "\n"
        module = parse_torchscript(text, f"{name}.txt")
        module.verify()
        ours = print_torchscript(module)
        assert canonical(ours) == canonical(text)
        try:
            theirs = t._C.parse_ir(text)
        except RuntimeError:
            continue  # torch's IR parser cannot read everything torch prints (e.g. `with` sections)
        assert canonical(str(t._C.parse_ir(ours))) == canonical(str(theirs))


# ---------------------------------------------------------------------------
# Live ScriptModules
# ---------------------------------------------------------------------------


def _live_module() -> Any:
    return _torch().jit.script(models().Stateful())


def _slots(m: ts.ScriptModuleOp) -> dict[str, ts.SlotOp]:
    return {s.sym_name.data: s for s in m.slots()}


def test_live_module_import(tmp_path: pathlib.Path) -> None:
    from xdsl_exir.frontends.torchscript_live import import_script_module

    t = _torch()
    scripted = _live_module()
    module = import_script_module(scripted)
    (top,) = module.ops
    assert isinstance(top, ts.ScriptModuleOp)
    assert top.sym_name.data == "Stateful" and top.class_name.data == scripted._c._type().qualified_name()
    slots = _slots(top)
    assert slots["bf"].kind.data == "buffer"
    assert slots["bf"].slot_type == ts.parse_ts_type("BFloat16(2, strides=[1], requires_grad=0, device=cpu)")
    assert slots["bf"].value == ts.TensorValueAttr("BFloat16", [2], bytes.fromhex("c03f10c0"))
    assert slots["steps"].slot_type == ts.TSTensorType("Long", [], None, False, "cpu")  # 0-d
    assert slots["count"].value == IntegerAttr(3, 64) and slots["count"].slot_type == ts.TSIntType()
    assert slots["names"].value == ArrayAttr([StringAttr("a"), StringAttr("b")])
    assert slots["pair"].slot_type == ts.TSTupleType(ts.TSIntType(), ts.TSFloatType())
    assert slots["flag"].value == IntegerAttr(1, 1)
    lin = next(s for s in top.submodules() if s.sym_name.data == "lin")
    weight = _slots(lin)["weight"]
    assert weight.kind.data == "parameter"
    assert weight.slot_type == ts.parse_ts_type("Float(2, 3, strides=[3, 1], requires_grad=1, device=cpu)")
    assert isinstance(weight.value, ts.TensorValueAttr)
    np.testing.assert_array_equal(
        np.frombuffer(weight.value.data.data, "<f4").reshape(2, 3), scripted.lin.weight.detach().numpy()
    )
    assert [m.sym_name.data for m in top.methods()] == ["forward", "other"]
    forward = top.method("forward")
    assert forward is not None and forward.schema is not None
    assert forward.schema.data == str(scripted.forward.schema)
    kinds = {type(op) for op in forward.body.walk()}
    assert {prim.GetAttrOp, prim.SetAttrOp, prim.CallMethodOp} <= kinds
    assert canonical(print_torchscript(ModuleOp([forward.clone()]))) == canonical(str(scripted.graph))

    # through .mlir text and exir-opt
    out = tmp_path / "m.mlir"
    from io import StringIO

    buf = StringIO()
    print_module(module, buf, context().loaded_dialects)  # tensor data is in the resources section
    src = tmp_path / "src.mlir"
    src.write_text(buf.getvalue())
    assert run([str(src), "-o", str(out)]) == 0
    again = ResourceParser(context(), out.read_text()).parse_module()
    (top2,) = again.ops
    assert isinstance(top2, ts.ScriptModuleOp)
    # (the dump spelling of a 0-d type also reads as unknown rank: compare spellings)
    assert {k: (v.kind, ts.ts_type_str(v.slot_type), v.value) for k, v in _slots(top2).items()} == {
        k: (v.kind, ts.ts_type_str(v.slot_type), v.value) for k, v in slots.items()
    }
    assert [s.sym_name.data for s in top2.submodules()] == ["lin", "sub"]
    printed = tmp_path / "m.txt"
    assert run([str(out), "--emit", "torchscript", "-o", str(printed)]) == 0
    text = printed.read_text()
    assert text.startswith("# Stateful.forward\ngraph(%self : __torch__.")
    assert "# Stateful.lin.forward\n" in text and "# Stateful.sub.forward\n" in text
    assert t is not None


def test_live_function_and_trace_import() -> None:
    from xdsl_exir.frontends.torchscript_live import import_script_module

    t = _torch()
    fn = t.jit.script(models().if_else)
    (method,) = import_script_module(fn).ops
    assert isinstance(method, ts.MethodOp) and method.sym_name.data == "if_else"
    assert method.schema is not None and method.schema.data == "if_else(Tensor a, Tensor b, bool c) -> Tensor"
    traced = t.jit.trace(t.nn.Sequential(t.nn.Linear(3, 2), t.nn.ReLU()), t.ones(1, 3))
    (top,) = import_script_module(traced).ops
    assert isinstance(top, ts.ScriptModuleOp)
    assert [s.sym_name.data for s in top.submodules()] == ["0", "1"]
    fwd = top.method("forward")
    assert fwd is not None and fwd.arg_types[1] == ts.parse_ts_type("Float(1, 3, strides=[3, 1], requires_grad=0, device=cpu)")


def test_live_import_refuses_unsupported_attributes() -> None:
    from xdsl_exir.frontends.torchscript_live import TorchScriptImportError, import_script_module

    t = _torch()
    with pytest.raises(TorchScriptImportError, match="attribute 'table' .* holds a dict"):
        import_script_module(t.jit.script(models().WithDict()))
    with pytest.raises(TorchScriptImportError, match="expected a torch.jit.ScriptModule"):
        import_script_module(t.nn.Linear(2, 2))


# ---------------------------------------------------------------------------
# exir-opt
# ---------------------------------------------------------------------------


def run_code(args: list[str]) -> int:
    try:
        return run(args)
    except SystemExit as e:  # exir-opt exits on errors
        return int(e.code or 0)


def test_exir_opt_reads_and_writes_dumps(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "seed.dump"  # not .txt: chosen by content
    src.write_text("# a comment first\n" + SEED_IF)
    assert detect_frontend(str(src), src.read_bytes()) == "torchscript"
    assert run([str(src), "--emit", "torchscript"]) == 0
    assert canonical(capsys.readouterr().out) == canonical(SEED_IF)
    bad = tmp_path / "bad.txt"
    bad.write_text("graph(%x : Tensor):\n  %y : Tensor = aten::neg(%q)\n  return (%y)\n")
    assert run_code([str(bad)]) == 1
    err = capsys.readouterr().err
    assert err == f"exir-opt: error: {bad}:2:27: use of undefined value %q\n"


def test_emit_torchscript_needs_graphs(capsys: pytest.CaptureFixture[str], tmp_path: pathlib.Path) -> None:
    src = tmp_path / "empty.mlir"
    src.write_text("builtin.module {}\n")
    assert run_code([str(src), "--emit", "torchscript"]) == 1
    assert "prints ts.method and ts.module ops" in capsys.readouterr().err


def test_parse_cost_is_linear_in_nodes() -> None:
    """Reading a straight-line graph costs the same number of calls per node, however long it is."""

    def dump(n: int) -> str:
        lines = ["graph(%x.1 : Float(3, 20, strides=[20, 1], requires_grad=0, device=cpu)):",
                 "  %c : int = prim::Constant[value=1]()"]
        prev = "x.1"
        for i in range(n):
            lines.append(f"  %v{i} : Float(3, 20, strides=[20, 1], requires_grad=0, device=cpu) = "
                         f"aten::add(%{prev}, %x.1, %c) # models.py:{i + 1}:4")
            prev = f"v{i}"
        lines.append(f"  return (%{prev})\n")
        return "\n".join(lines)

    texts = {n: dump(n) for n in (200, 400, 600, 800)}
    counts = assert_linear(lambda n: parse_torchscript(texts[n]), 200)
    assert (counts[1] - counts[0]) / 200 < 1000  # a few hundred calls a node: no per-node re-reading
