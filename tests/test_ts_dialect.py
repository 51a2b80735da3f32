"""
The ts dialect's types and TorchScript overload resolution.

Type spellings are checked on every type annotation in the torch 2.13 dumps
of tests/torchscript; overload choices against the schema torch itself
attached to every node of the scripted fixtures.
"""

from __future__ import annotations

import importlib.util
import linecache
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest
from xdsl.ir import Attribute

from xdsl_exir.analysis.overload_resolution import OverloadError, resolve_node
from xdsl_exir.dialects.ts import (
    TSAnyType,
    TSBoolType,
    TSClassType,
    TSDictType,
    TSFloatType,
    TSFunctionType,
    TSIntType,
    TSListType,
    TSNoneType,
    TSNumberType,
    TSOpaqueType,
    TSOptionalType,
    TSStrType,
    TSTensorType,
    TSTupleType,
    TSTypeError,
    is_subtype,
    join_types,
    parse_ts_type,
    parse_ts_type_prefix,
    ts_annotation_str,
    ts_type_str,
)

FIXTURES = Path(__file__).parent / "torchscript"
DUMPS = sorted((FIXTURES / "dumps").glob("*.txt"))
GRAPH_DUMPS = [p for p in DUMPS if not p.name.endswith(".code.txt")]


# ---------------------------------------------------------------------------
# Spellings
# ---------------------------------------------------------------------------

_ANNOTATION = re.compile(r"%[\w.]+ : ")


def _annotations(text: str) -> list[tuple[int, str]]:
    """(offset, rest of line) after every `%value : ` in a dump."""
    return [(m.end(), text) for m in _ANNOTATION.finditer(text)]


@pytest.mark.parametrize("path", GRAPH_DUMPS, ids=lambda p: p.name)
def test_every_type_in_the_dumps_prints_back(path: Path) -> None:
    text = path.read_text()
    seen = 0
    for start, _ in _annotations(text):
        t, end = parse_ts_type_prefix(text, start)
        assert ts_type_str(t) == text[start:end].strip(), f"{path.name}:{text.count(chr(10), 0, start) + 1}"
        seen += 1
    assert seen > 0


@pytest.mark.parametrize(
    "spelling",
    [
        "Tensor",
        "Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)",
        "Float(*, *)",
        "Float(*, 5, strides=[5, 1], requires_grad=0, device=cpu)",
        "Tensor(requires_grad=0)",
        "Long(requires_grad=0, device=cpu)",
        "Double(4, device=cuda:0)",
        "int[]",
        "int[]?",
        "Tensor?",
        "(Tensor, int)",
        "((Tensor, Tensor), str[])",
        "Dict(str, Tensor)",
        "Future[Tensor]",
        "Union(int, str)",
        "__torch__.models.ComposedModule",
        "__torch__.torch.nn.modules.linear.___torch_mangle_2.Linear",
        "NoneType",
        "Device",
        "Scalar",
        "Function",
        "Any",
    ],
)
def test_spelling_round_trips(spelling: str) -> None:
    assert ts_type_str(parse_ts_type(spelling)) == spelling


def test_refinements_are_read_into_fields() -> None:
    t = parse_ts_type("Float(2, *, strides=[3, 1], requires_grad=1, device=cpu)")
    assert isinstance(t, TSTensorType)
    assert (t.scalar_type, t.shape, t.stride_list, t.grad, t.device_name) == ("Float", (2, None), (3, 1), True, "cpu")
    assert not t.is_complete()
    assert parse_ts_type("Float(2, 3, device=cpu)").is_complete()  # pyright: ignore[reportAttributeAccessIssue] - a tensor type, typed Attribute
    # The JIT Technical Overview's old spelling of an unrefined tensor, and the Python annotation forms.
    assert parse_ts_type("List[Optional[int]]") == TSListType(TSOptionalType(TSIntType()))
    assert parse_ts_type("Tuple[Tensor, float]") == TSTupleType(TSTensorType(), TSFloatType())


@pytest.mark.parametrize("bad", ["Float(2, strides=[1, 1])", "Dict(str)", "int[", "Float(2, colour=red)", "(int, "])
def test_bad_spellings_are_refused(bad: str) -> None:
    with pytest.raises((TSTypeError, Exception)):
        t = parse_ts_type(bad)
        t.verify()


def test_annotation_spelling() -> None:
    t = parse_ts_type("Dict(str, (Tensor, int[]?))")
    assert ts_annotation_str(t) == "Dict[str, Tuple[Tensor, Optional[List[int]]]]"


# ---------------------------------------------------------------------------
# Subtyping
# ---------------------------------------------------------------------------

F23 = parse_ts_type("Float(2, 3, strides=[3, 1], requires_grad=0, device=cpu)")
FSTAR = parse_ts_type("Float(*, *)")
D23 = parse_ts_type("Double(2, 3)")


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        (F23, TSTensorType(), True),
        (F23, FSTAR, True),
        (FSTAR, F23, False),
        (D23, FSTAR, False),
        (parse_ts_type("Float(2)"), FSTAR, False),  # rank differs
        (TSIntType(), TSNumberType(), True),
        (TSFloatType(), TSNumberType(), True),
        (TSBoolType(), TSIntType(), False),  # bool is not an int in TorchScript
        (TSIntType(), TSFloatType(), False),
        (TSNoneType(), TSOptionalType(TSTensorType()), True),
        (F23, TSOptionalType(TSTensorType()), True),
        (TSOptionalType(TSIntType()), TSIntType(), False),
        (TSOptionalType(TSIntType()), TSOptionalType(TSNumberType()), True),
        (TSTupleType(F23, TSIntType()), TSTupleType(TSTensorType(), TSNumberType()), True),  # tuples are covariant
        (TSTupleType(TSIntType()), TSTupleType(TSIntType(), TSIntType()), False),
        (TSListType(TSIntType()), TSListType(TSNumberType()), False),  # lists are invariant
        (TSListType(F23), TSListType(TSTensorType()), True),  # ... up to tensor refinements
        (TSDictType(TSStrType(), F23), TSDictType(TSStrType(), TSTensorType()), True),
        (TSClassType("__torch__.A"), TSClassType("__torch__.B"), False),
        (TSClassType("__torch__.A"), TSAnyType(), True),
    ],
)
def test_subtyping(a: Attribute, b: Attribute, expected: bool) -> None:
    assert is_subtype(a, b) is expected


def test_join() -> None:
    assert join_types(F23, D23) == parse_ts_type("Tensor(2, 3)")
    assert join_types(TSIntType(), TSNoneType()) == TSOptionalType(TSIntType())
    assert join_types(F23, parse_ts_type("Float(2, 4, device=cpu)")) == parse_ts_type("Float(2, *, device=cpu)")
    assert join_types(TSIntType(), TSStrType()) is None


# ---------------------------------------------------------------------------
# Overloads: our choice equals the schema torch attached to each node
# ---------------------------------------------------------------------------


def _load_models(torch: ModuleType) -> ModuleType:
    source = (FIXTURES / "models.py").read_text()
    linecache.cache["models.py"] = (len(source), None, source.splitlines(True), "models.py")
    spec = importlib.util.spec_from_loader("models", loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__file__ = "models.py"
    sys.modules["models"] = module
    exec(compile(source, "models.py", "exec", dont_inherit=True), module.__dict__)
    return module


def _walk(block: object):
    for node in block.nodes():  # pyright: ignore[reportAttributeAccessIssue] - a torch._C.Block, typed object
        yield node
        for b in node.blocks():
            yield from _walk(b)


# Torch tries overloads in registration order, which the schema list does not
# keep; where both accept a call and compute the same thing, either is right.
EQUIVALENT = {("aten::Float.int", "aten::Float.Scalar")}


def test_overloads_match_torch() -> None:
    torch = pytest.importorskip("torch")
    import json

    models = _load_models(torch)
    manifest = json.loads((FIXTURES / "manifest.json").read_text())
    checked = 0
    mismatches: list[str] = []
    for case in manifest:
        if case["kind"] != "script" or not case.get("function"):
            continue
        fn = torch.jit.script(getattr(models, case["function"]))
        for node in _walk(fn.graph):
            text = node.schema()
            if text == "(no schema)" or node.kind().startswith("prim::"):
                continue
            arg_types = [parse_ts_type(str(i.type())) for i in node.inputs()]
            want = text.split("(", 1)[0]
            try:
                got = resolve_node(node.kind(), arg_types).name
            except OverloadError as e:
                got = f"error: {e}"
            checked += 1
            if got != want and (got, want) not in EQUIVALENT:
                mismatches.append(f"{case['name']}: {node.kind()}({', '.join(map(ts_type_str, arg_types))}) -> {got}, torch {want}")
    assert checked > 100
    assert not mismatches, "\n".join(mismatches)


def test_unknown_and_unmatched_calls_are_reported() -> None:
    with pytest.raises(OverloadError, match="unknown operator aten::no_such_op"):
        resolve_node("aten::no_such_op", [TSTensorType()])
    with pytest.raises(OverloadError, match=r"no overload of aten::mm accepts \(Tensor, str\)"):
        resolve_node("aten::mm", [TSTensorType(), TSStrType()])


def test_result_types_bind_type_variables() -> None:
    r = resolve_node("aten::__getitem__", [TSListType(F23), TSIntType()])
    assert r.name == "aten::__getitem__.t" and r.result_types == (F23,)
    r = resolve_node("aten::__getitem__", [TSDictType(TSStrType(), TSListType(TSIntType())), TSStrType()])
    assert r.result_types == (TSListType(TSIntType()),)
    r = resolve_node("aten::sum", [TSTensorType(), TSListType(TSIntType()), TSBoolType()], kwarg_names=["keepdim"])
    assert r.name == "aten::sum.dim_IntList" and r.bindings == (0, 1, 2, None)
    r = resolve_node("aten::add", [TSTensorType(), TSFloatType(), TSIntType()])
    assert r.name == "aten::add.Scalar"
    r = resolve_node("aten::mul", [TSFloatType(), TSIntType()])
    assert r.name == "aten::mul.float_int" and r.result_types == (TSFloatType(),)


def test_named_types_compare_by_name() -> None:
    """Each named type declares its name as its parameter, so two names never compare or hash alike."""
    for cls in (TSClassType, TSFunctionType, TSOpaqueType):
        assert cls("__torch__.A") == cls("__torch__.A")
        assert cls("__torch__.A") != cls("__torch__.B")
        assert len({cls("__torch__.A"), cls("__torch__.B")}) == 2
    assert TSListType(TSIntType()) != TSListType(TSFloatType())
