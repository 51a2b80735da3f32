"""Tests for the pure-Python FunctionSchema parser and printer.

Hand-picked schemas pin down the behaviour users rely on (aliasing and
mutation queries, defaults, printing quirks); when torch is installed, every
registered schema is round-tripped and checked against torch's own parse.
"""

from __future__ import annotations

from typing import Any

import pytest
from call_counting import assert_linear, calls_made

from xdsl_exir.utils.function_schema import (
    WILDCARD,
    AliasInfo,
    Argument,
    FunctionSchema,
    Return,
    SchemaParseError,
    SchemaType,
    TypeKind,
    format_default_value,
    parse_default_value,
    parse_schema,
    parse_type,
)

ADD = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"
ADD_ = "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)"
ADD_OUT = (
    "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)"
)
MAX_DIM = (
    "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)"
)
SPLIT = "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]"
VIEW = "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)"


# ---------------------------------------------------------------------------
# Round trips of hand-picked schemas (strings exactly as torch prints them)
# ---------------------------------------------------------------------------

CANONICAL = [
    ADD,
    ADD_,
    ADD_OUT,
    MAX_DIM,
    SPLIT,
    VIEW,
    "prim::TupleUnpack(Any tup) -> ...",
    "aten::list.t(t[] l) -> t[]",
    "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
    "SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
    "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
    "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
    "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
    "Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor",
    "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
    "ScalarType? dtype=None) -> Tensor",
    "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)",
    "aten::strip(str self, str chars=\" \\n\\t\\f\\v\") -> str",
    "aten::replace(str self, str old, str new, int max=-1) -> str",
    "aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor",
    "aten::dict.str(Dict(str, t) self) -> Dict(str, t)",
    "aten::items.str(Dict(str, t) self) -> ((str, t)[])",
    "aten::popitem.str(Dict(str, t)(a!) self) -> ((str, t))",
    "aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)",
    "aten::wait(Future(t) self) -> t",
    "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor",
    "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()",
    "aten::__getitem__.t(t[](a) list, int idx) -> t(*)",
    "prim::IfThenElse(bool cond, Any(a) x, Any(b) y) -> Any(b|a)",
    "aten::has_torch_function(...) -> bool",
    "aten::percentFormat(str self, ...) -> str",
    "aten::rand(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
    "Device? device=None, bool? pin_memory=None) -> Tensor",
    "aten::bernoulli.p(Tensor self, float p=0.5, *, Generator? generator=None) -> Tensor",
    "aten::align_to(Tensor(a) self, str[] names) -> Tensor(a)",
    "quantized::conv2d_prepack(Tensor weight, Tensor? bias, int[] stride, int[] padding, "
    "int[] dilation, int groups) -> __torch__.torch.classes.quantized.Conv2dPackedParamsBase",
    "aten::cudnn_affine_grid_generator(Tensor theta, int N, int C, int H, int W) -> Tensor grid",
    "aten::stft(Tensor self, int n_fft, int? hop_length=None, int? win_length=None, "
    "Tensor? window=None, bool normalized=False, bool? onesided=None, "
    "bool? return_complex=None, bool? align_to_window=None) -> Tensor",
    "aten::_assert_async.msg(Tensor self, str assert_msg) -> ()",
    "f(Union(int, str) u, (Tensor, Tensor) tt, Future(t) f, RRef(t) r, Await(t) w) -> Tensor",
    "f(Tensor(a)[]? x, Tensor[](a)? y, int[1]? z=None, Tensor?[]? w=None) -> ()",
    "f(Storage s, Stream st, Device d, Layout l, bool[3] mask, Tensor(*) x) -> Tensor(*)",
    "f(Scalar a=0.+2.j, complex b=0.-1.5j, float c=1e+20, float d=100000000000000000.) -> ()",
    "f(str a=\"\\\"\\'\\\\\", str b=\"\\001\") -> ()",
    "f(*, Tensor x) -> (Tensor, ...)",
    "f(int[][2] z, int?[]? w) -> Tensor[](a)?",
]


@pytest.mark.parametrize("text", CANONICAL)
def test_canonical_schemas_round_trip(text: str) -> None:
    assert str(parse_schema(text)) == text


# (input, what torch prints for it): defaults are printed from their value.
NORMALISED = [
    ("f(float a=1e-05) -> ()", "f(float a=1.0000000000000001e-05) -> ()"),
    (
        "f(float a=1.0, float b=1, float c=.5) -> ()",
        "f(float a=1., float b=1., float c=0.5) -> ()",
    ),
    (
        "f(float a=-0.0, float b=1e17, float c=1e19) -> ()",
        "f(float a=0., float b=100000000000000000., float c=1e+19) -> ()",
    ),
    (
        "f(Scalar a=1e3, Scalar b=2, float? c=1) -> ()",
        "f(Scalar a=1000., Scalar b=2, float? c=1) -> ()",
    ),
    (
        "f(int[2] a=[3,3], int[1] b=3, int[] c=[0,1]) -> ()",
        "f(int[2] a=3, int[1] b=[3], int[] c=[0, 1]) -> ()",
    ),
    (
        "f(SymInt[2] a=1, bool[3] b=True) -> ()",
        "f(SymInt[2] a=[1, 1], bool[3] b=[True, True, True]) -> ()",
    ),
    (
        "f(float[] a=[1,2], float[2] b=1.5) -> ()",
        "f(float[] a=[1., 2.], float[2] b=[1.5, 1.5]) -> ()",
    ),
    (
        "f(ScalarType a=long, MemoryFormat b=contiguous_format, Layout c=strided, int d=Mean)"
        " -> ()",
        "f(ScalarType a=4, MemoryFormat b=0, Layout c=0, int d=1) -> ()",
    ),
    (
        "f(ScalarType? a=bfloat16, ScalarType b=half) -> ()",
        "f(ScalarType? a=15, ScalarType b=5) -> ()",
    ),
    ('f(Device a="cuda:0") -> ()', "f(Device a=cuda:0) -> ()"),
    ("f(str a='it\"s', str b=\"\\101\") -> ()", 'f(str a="it\\"s", str b="A") -> ()'),
    ("f(Scalar a=2j, Scalar b=-0j) -> ()", "f(Scalar a=0.+2.j, Scalar b=0.+0.j) -> ()"),
    # Layout: whitespace, single results, '*' with nothing after it.
    (" aten::f ( Tensor  x ,Tensor y )->( Tensor ) ", "aten::f(Tensor x, Tensor y) -> Tensor"),
    ("f(Tensor x) -> (Tensor y)", "f(Tensor x) -> Tensor y"),
    ("f(Tensor x) -> (...)", "f(Tensor x) -> ..."),
    ("f(Tensor x, *) -> ()", "f(Tensor x) -> ()"),
    ("f(Tensor x, *, ...) -> ()", "f(Tensor x, ...) -> ()"),
    (
        "f(int?? x, int [ 2 ] ? y, Tensor ( a! ) [ ] z) -> ()",
        "f(int? x, int[2]? y, Tensor(a!)[] z) -> ()",
    ),
    ("f(DeviceIndex i) -> ()", "f(int i) -> ()"),
]


@pytest.mark.parametrize(("text", "printed"), NORMALISED)
def test_printing_normalises_like_torch(text: str, printed: str) -> None:
    assert str(parse_schema(text)) == printed
    # The canonical form is a fixed point.
    assert str(parse_schema(printed)) == printed


# ---------------------------------------------------------------------------
# Structure
# ---------------------------------------------------------------------------


def test_add_structure_and_names() -> None:
    schema = parse_schema(ADD)
    assert schema.namespace == "aten"
    assert schema.name == "add"
    assert schema.overload_name == "Tensor"
    assert schema.qualified_name == "aten::add"
    assert schema.full_name == "aten::add.Tensor"
    assert schema.op_name == "aten.add.Tensor"
    assert [a.name for a in schema.arguments] == ["self", "other", "alpha"]
    assert [a.kwarg_only for a in schema.arguments] == [False, False, True]
    assert [a.name for a in schema.positional_arguments] == ["self", "other"]
    alpha = schema.argument("alpha")
    assert alpha.type == SchemaType.base("Scalar")
    assert alpha.default == "1"
    assert alpha.default_value == 1
    assert schema.returns == (Return(SchemaType.base("Tensor")),)
    assert not schema.is_vararg and not schema.is_varret
    with pytest.raises(KeyError):
        schema.argument("beta")


def test_op_name_default_overload_and_no_namespace() -> None:
    relu = parse_schema("aten::relu(Tensor self) -> Tensor")
    assert relu.overload_name == ""
    assert relu.op_name == "aten.relu.default"
    assert relu.qualified_name == "aten::relu"
    bare = parse_schema("f.ov(int x) -> int")
    assert bare.namespace == "" and bare.qualified_name == "f"
    assert bare.op_name == "f.ov"
    assert str(bare) == "f.ov(int x) -> int"


def test_named_returns() -> None:
    schema = parse_schema(MAX_DIM)
    assert [(r.name, str(r.type)) for r in schema.returns] == [
        ("values", "Tensor"),
        ("indices", "Tensor"),
    ]
    assert schema.argument("keepdim").default_value is False


def test_varargs_and_varret() -> None:
    unpack = parse_schema("prim::TupleUnpack(Any tup) -> ...")
    assert unpack.is_varret and unpack.returns == ()
    assert not unpack.is_vararg
    fmt = parse_schema("aten::percentFormat(str self, ...) -> str")
    assert fmt.is_vararg and len(fmt.arguments) == 1
    mixed = parse_schema("f(...) -> (Tensor, ...)")
    assert mixed.is_vararg and mixed.is_varret and len(mixed.returns) == 1
    assert str(mixed) == "f(...) -> (Tensor, ...)"


def test_empty_returns() -> None:
    schema = parse_schema("aten::_assert_async.msg(Tensor self, str assert_msg) -> ()")
    assert schema.returns == () and not schema.is_varret
    assert str(schema).endswith("-> ()")


def test_type_tree_shapes() -> None:
    t = parse_type("Tensor(a)[]")
    assert t.kind is TypeKind.LIST and t.alias is None and t.size is None
    assert t.element == SchemaType.base("Tensor", AliasInfo.of("a"))

    t = parse_type("t[](a!)")
    assert t.kind is TypeKind.LIST
    assert t.alias == AliasInfo.of("a", is_write=True)
    assert t.element == SchemaType.base("t")

    t = parse_type("int[1]?")
    assert t.is_optional and t.element.is_list and t.element.size == 1
    assert str(t) == "int[1]?"

    t = parse_type("Tensor?[]")
    assert t.is_list and t.element.is_optional and t.element.element.is_base("Tensor")

    t = parse_type("Dict(str, Tensor)")
    assert t.kind is TypeKind.GENERIC and t.name == "Dict"
    assert t.elements == (SchemaType.base("str"), SchemaType.base("Tensor"))

    t = parse_type("(Tensor, int[])")
    assert t.kind is TypeKind.TUPLE and len(t.elements) == 2
    assert parse_type("()").elements == ()

    t = parse_type("Union(int, str, NoneType)")
    assert t.kind is TypeKind.GENERIC and [e.name for e in t.elements] == ["int", "str", "NoneType"]

    t = parse_type("__torch__.torch.classes.rnn.CellParamsBase[]")
    assert t.element.name == "__torch__.torch.classes.rnn.CellParamsBase"

    t = parse_type("Future(t)")
    assert t.name == "Future" and t.elements == (SchemaType.base("t"),)

    assert parse_type("Tensor(a -> *)").alias == AliasInfo(("a",), (WILDCARD,))
    assert str(parse_type("Tensor(*)")) == "Tensor(*)"
    assert parse_type("int??") == parse_type("int?")


def test_constructed_schema_prints() -> None:
    tensor = SchemaType.base("Tensor")
    schema = FunctionSchema(
        "mylib",
        "scale_",
        "",
        (
            Argument("self", SchemaType.base("Tensor", AliasInfo.of("a", is_write=True))),
            Argument("factor", SchemaType.base("float"), "2", kwarg_only=True),
        ),
        (Return(SchemaType.base("Tensor", AliasInfo.of("a", is_write=True))),),
    )
    assert str(schema) == "mylib::scale_(Tensor(a!) self, *, float factor=2.) -> Tensor(a!)"
    assert schema.is_inplace and schema.op_name == "mylib.scale_.default"
    reparsed = parse_schema(str(schema))
    assert str(reparsed) == str(schema)
    assert reparsed.argument("factor").default == "2."  # the text as printed
    assert reparsed.argument("factor").default_value == schema.argument("factor").default_value
    with pytest.raises(ValueError):
        keyword_then_positional = (Argument("a", tensor, kwarg_only=True), Argument("b", tensor))
        FunctionSchema("x", "y", "", keyword_then_positional)


# ---------------------------------------------------------------------------
# Defaults
# ---------------------------------------------------------------------------


def test_default_source_text_and_values() -> None:
    schema = parse_schema(
        "f(int[2] stride=1, int[] dims=[0, 1], float eps=1e-05, str mode=\"mean\", "
        "ScalarType dtype=long, MemoryFormat fmt=contiguous_format, Tensor? w=None, "
        "str s='a\\tb', int n=-1, bool b=True, Device d=\"cpu\", Scalar c=1j, int[] e=[])"
        " -> ()"
    )
    values = {a.name: (a.default, a.default_value) for a in schema.arguments}
    assert values == {
        "stride": ("1", [1, 1]),
        "dims": ("[0, 1]", [0, 1]),
        "eps": ("1e-05", 1e-05),
        "mode": ('"mean"', "mean"),
        "dtype": ("long", 4),
        "fmt": ("contiguous_format", 0),
        "w": ("None", None),
        "s": ("'a\\tb'", "a\tb"),
        "n": ("-1", -1),
        "b": ("True", True),
        "d": ('"cpu"', "cpu"),
        "c": ("1j", 1j),
        "e": ("[]", []),
    }
    assert type(schema.argument("eps").default_value) is float
    assert schema.argument("stride").has_default


def test_default_value_is_not_shared_mutable_state() -> None:
    arg = parse_schema("f(int[] dims=[0, 1]) -> ()").arguments[0]
    arg.default_value.append(5)  # pyright: ignore[reportAttributeAccessIssue, reportOptionalMemberAccess] - the list default under test
    assert arg.default_value == [0, 1]


def test_default_value_typing_follows_the_argument_type() -> None:
    float_t = parse_type("float")
    assert parse_default_value("1", float_t) == 1.0
    assert type(parse_default_value("1", float_t)) is float
    assert type(parse_default_value("1", parse_type("float?"))) is int  # as in torch
    assert type(parse_default_value("1.5", parse_type("int"))) is float
    assert parse_default_value("[1, 2]", parse_type("float[]")) == [1.0, 2.0]
    assert parse_default_value("3", parse_type("int[3]")) == [3, 3, 3]
    assert format_default_value([3, 3], parse_type("int[2]")) == "3"
    assert format_default_value([3, 3], parse_type("SymInt[2]")) == "[3, 3]"
    assert format_default_value([3, 3], parse_type("int[2]?")) == "[3, 3]"
    assert format_default_value("x\n", parse_type("str")) == '"x\\n"'


def test_argument_without_default() -> None:
    arg = parse_schema(ADD).arguments[0]
    assert not arg.has_default and arg.default is None
    with pytest.raises(ValueError):
        _ = arg.default_value


# ---------------------------------------------------------------------------
# Alias and mutation queries
# ---------------------------------------------------------------------------


def test_functional_add() -> None:
    schema = parse_schema(ADD)
    assert schema.is_functional
    assert not schema.is_mutable and not schema.is_inplace and not schema.is_out
    assert schema.written_arguments == ()
    assert schema.alias_sets() == {}
    assert schema.aliases_of_return(0) == ()
    assert schema.return_alias_map() == {}


def test_inplace_add_writes_self_and_returns_it() -> None:
    schema = parse_schema(ADD_)
    assert schema.is_inplace and schema.is_mutable
    assert not schema.is_functional and not schema.is_out
    assert [a.name for a in schema.written_arguments] == ["self"]
    self_arg = schema.argument("self")
    assert self_arg.is_write and not self_arg.is_out
    assert self_arg.alias_info == AliasInfo(("a",), ("a",), True)
    assert [a.name for a in schema.aliases_of_return(0)] == ["self"]
    assert schema.return_alias_map() == {0: (0,)}
    alias_set = schema.alias_sets()["a"]
    assert alias_set.arguments == (0,) and alias_set.returns == (0,) and alias_set.is_written
    assert schema.returns[0].is_write


def test_out_variant() -> None:
    schema = parse_schema(ADD_OUT)
    assert schema.is_out and schema.is_mutable and not schema.is_inplace
    assert [a.name for a in schema.out_arguments] == ["out"]
    assert schema.argument("out").is_out
    assert [a.name for a in schema.aliases_of_return(0)] == ["out"]


def test_view_aliases_without_writing() -> None:
    schema = parse_schema(VIEW)
    assert not schema.is_mutable and not schema.is_functional
    assert [a.name for a in schema.aliases_of_return(0)] == ["self"]
    assert not schema.alias_sets()["a"].is_written


def test_split_self_enters_wildcard_and_result_elements_alias_self() -> None:
    schema = parse_schema(SPLIT)
    self_info = schema.argument("self").alias_info
    assert self_info is not None
    assert self_info.before_set == ("a",) and self_info.after_set == (WILDCARD,)
    assert self_info.enters_wildcard and not self_info.is_wildcard and not self_info.is_write
    assert [a.name for a in schema.wildcard_arguments] == ["self"]
    assert schema.wildcard_returns == ()
    assert [a.name for a in schema.aliases_of_return(0)] == ["self"]
    # torch's argument-level view: a container annotation holding ``(a)``.
    ret_info = schema.returns[0].alias_info
    assert ret_info == AliasInfo((), (), False, (AliasInfo.of("a"),))
    assert ret_info.symbols == frozenset({"a"})


def test_list_element_write_propagates_to_container() -> None:
    schema = parse_schema(
        "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()"
    )
    assert schema.is_inplace and schema.argument("self").is_write
    explicit = parse_schema("f(Tensor(a!)[](b) x, Tensor(a)[](b!) y) -> ()")
    assert not explicit.argument("x").is_write  # the container's own annotation wins
    assert explicit.argument("y").is_write


def test_wildcard_result() -> None:
    schema = parse_schema("aten::__getitem__.t(t[](a) list, int idx) -> t(*)")
    assert [str(r) for r in schema.wildcard_returns] == ["t(*)"]
    assert schema.returns[0].alias_info == AliasInfo((WILDCARD,), (WILDCARD,))
    assert schema.aliases_of_return(0) == ()


def test_container_written_and_element_enters_wildcard() -> None:
    schema = parse_schema("aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)")
    assert [a.name for a in schema.written_arguments] == ["self"]
    assert [a.name for a in schema.wildcard_arguments] == ["el"]
    assert not schema.is_inplace  # name has no trailing underscore
    assert schema.return_alias_map() == {0: (0,)}


def test_multiple_alias_sets() -> None:
    schema = parse_schema("prim::IfThenElse(bool cond, Any(a) x, Any(b) y) -> Any(b|a)")
    assert [a.name for a in schema.aliases_of_return(0)] == ["x", "y"]
    info = schema.returns[0].alias_info
    assert info is not None and set(info.before_set) == {"a", "b"}
    assert str(info) == "(b|a)"


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "column", "fragment"),
    [
        ("aten::f", 7, "only an operator name"),
        ("aten::f(Tensor x)", 17, "'->'"),
        ("f(Tensor) -> ()", 8, "argument name"),
        ("f(..., Tensor x) -> ()", 7, "'...'"),
        ("f(Tensor x=None, Tensor y) -> ()", 17, "without a default"),
        ("f(Tensor(a -> b!) x) -> ()", 15, "alias annotation"),
        ("f(Tensor?(a) x) -> ()", 9, "before '?'"),
        ("f(int a=0x10) -> ()", 8, "malformed number"),
        ('f(str a="\\x01") -> ()', 9, "escape"),
        ('f(str a="abc) -> ()', 8, "unterminated"),
        ("f(int a=99999999999999999999) -> ()", 8, "64 bits"),
        ("f(int a=foo) -> ()", 8, "invalid default"),
        ("f(Dict x) -> ()", 7, "'('"),
        ("f(Tensor x) -> Tensor y, Tensor z", 23, "end of input"),
        ("f(int[] c=[1,]) -> ()", 13, "default value"),
        ("f(*, *, Tensor x) -> ()", 5, "'*'"),
        ("f(Tensor x) -> (..., Tensor)", 19, "last result"),
        ("f(Tensor x) $", 12, "unexpected character"),
    ],
)
def test_parse_errors(text: str, column: int, fragment: str) -> None:
    with pytest.raises(SchemaParseError) as info:
        parse_schema(text)
    assert info.value.column == column
    assert fragment in info.value.message
    assert info.value.text == text
    assert isinstance(info.value, ValueError)


def test_parse_type_errors() -> None:
    with pytest.raises(SchemaParseError):
        parse_type("Tensor x")
    with pytest.raises(SchemaParseError):
        parse_type("Union()")
    with pytest.raises(SchemaParseError):
        parse_type("int[x]")


# ---------------------------------------------------------------------------
# Everything torch knows about
# ---------------------------------------------------------------------------


def _torch_schemas() -> list[Any]:
    torch = pytest.importorskip("torch")
    return list(torch._C._jit_get_all_schemas())


def _alias_triple(info: Any) -> tuple[bool, set[str], set[str]] | None:
    if info is None:
        return None
    return (info.is_write, set(info.before_set), set(info.after_set))


def test_all_torch_schemas_round_trip_exactly() -> None:
    texts = [str(s) for s in _torch_schemas()]
    assert len(texts) > 1000
    mismatches = [t for t in texts if str(parse_schema(t)) != t]
    assert mismatches == []


def test_all_torch_schemas_agree_with_torch_structure() -> None:
    torch = pytest.importorskip("torch")
    problems: list[str] = []
    for s in _torch_schemas():
        ours = parse_schema(str(s))
        if ours.qualified_name != s.name or ours.overload_name != s.overload_name:
            problems.append(f"{s}: name")
        if len(ours.arguments) != len(s.arguments) or len(ours.returns) != len(s.returns):
            problems.append(f"{s}: counts")
            continue
        if ours.is_mutable != s.is_mutable:
            problems.append(f"{s}: is_mutable")
        for a, b in zip(ours.arguments, s.arguments, strict=True):
            if (a.name, a.kwarg_only, a.size, a.has_default) != (
                b.name,
                b.kwarg_only,
                b.N,
                b.has_default_value(),
            ):
                problems.append(f"{s}: argument {a.name}")
            if (a.is_write, a.is_out) != (b.is_write, b.is_out):
                problems.append(f"{s}: write flags of {a.name}")
            if _alias_triple(a.alias_info) != _alias_triple(b.alias_info):
                problems.append(f"{s}: alias info of {a.name}")
            if a.has_default:
                expected = b.default_value
                if isinstance(expected, torch.device):
                    expected = str(expected)
                value = a.default_value
                if value != expected or type(value) is not type(expected):
                    problems.append(f"{s}: default of {a.name}: {value!r} != {expected!r}")
        for r, b in zip(ours.returns, s.returns, strict=True):
            if (r.name or "") != b.name:
                problems.append(f"{s}: name of return {r.name}")
            if _alias_triple(r.alias_info) != _alias_triple(b.alias_info):
                problems.append(f"{s}: alias info of return {r.name}")
    assert problems == []


def test_all_torch_schemas_parse_in_a_bounded_number_of_calls_per_character() -> None:
    """One scan and no backtracking: a handful of calls per character of every torch schema."""
    texts = [str(s) for s in _torch_schemas()]
    parse_schema(texts[0])
    worst = max(texts, key=lambda t: calls_made(lambda: parse_schema(t)) / len(t))
    per_char = calls_made(lambda: parse_schema(worst)) / len(worst)
    assert per_char < 8, f"{per_char:.1f} calls per character for {worst}"


def test_schema_parse_cost_is_linear_in_arguments() -> None:
    def parse(n: int) -> object:
        tensors = ", ".join(f"Tensor(a{i}!) t{i}" for i in range(n))
        options = ", ".join(f"int[2] k{i}=[1, 2], float? f{i}=None, str s{i}='x'" for i in range(n))
        return parse_schema(f"aten::f.overload({tensors}, *, {options}) -> (Tensor, Tensor[])")

    assert_linear(parse, 20)


@pytest.mark.parametrize(("text", "printed"), NORMALISED)
def test_normalised_printing_agrees_with_torch(text: str, printed: str) -> None:
    torch = pytest.importorskip("torch")
    assert str(torch._C.parse_schema(text)) == printed
