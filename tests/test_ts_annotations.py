"""
TorchScript types have two spellings in torch, and one implementation each
here: `str()` in graph dumps (`ts_type_str`: `()`, `Scalar`, `int[]`) and
`annotation_str` in code and in a dump's `annotate(...)` constants
(`ts_annotation_str`: `Tuple[()]`, `number`, `List[int]`). Both checked
against torch 2.13 on every type form.
"""

from __future__ import annotations

import pytest

from xdsl_exir.dialects.ts import parse_ts_type, ts_annotation_str, ts_type_str
from xdsl_exir.targets.torchscript_python import annotation_str

torch = pytest.importorskip("torch")
C = torch._C

INT, FLOAT, STR, BOOL = C.IntType.get(), C.FloatType.get(), C.StringType.get(), C.BoolType.get()
TENSOR, NUMBER, NONE = C.TensorType.get(), C.NumberType.get(), C.NoneType.get()
TYPES = [
    INT, FLOAT, STR, BOOL, TENSOR, NUMBER, NONE, C.DeviceObjType.get(), C.ComplexType.get(), C.AnyType.get(),
    C.TupleType([]),
    C.TupleType([INT, FLOAT]),
    C.ListType(C.TupleType([])),
    C.ListType(NUMBER),
    C.OptionalType(C.DictType(STR, TENSOR)),
    C.ListType(C.OptionalType(C.TupleType([]))),
    C.UnionType([INT, STR]),
    C.TupleType([C.ListType(INT), C.OptionalType(NUMBER), C.TupleType([])]),
    C.DictType(INT, C.ListType(C.TupleType([TENSOR]))),
]


@pytest.mark.parametrize("t", TYPES, ids=[t.annotation_str for t in TYPES])
def test_both_spellings_match_torch(t: object) -> None:
    ours = parse_ts_type(t.str())  # pyright: ignore[reportAttributeAccessIssue] - a torch JIT type
    assert ts_type_str(ours) == t.str()  # pyright: ignore[reportAttributeAccessIssue] - a torch JIT type
    assert ts_annotation_str(ours) == t.annotation_str  # pyright: ignore[reportAttributeAccessIssue] - a torch JIT type
    assert annotation_str(ours) == t.annotation_str  # pyright: ignore[reportAttributeAccessIssue] - a torch JIT type


def test_function_types_are_named_as_code_names_them() -> None:
    from xdsl_exir.dialects.ts import TSFunctionType

    f = TSFunctionType("helper")
    assert ts_type_str(f) == "Function"
    assert ts_annotation_str(f) == "helper"
    assert annotation_str(f) == "__torch__.helper"
