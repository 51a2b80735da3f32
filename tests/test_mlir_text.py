"""
Reading and printing MLIR text: weights as `dense_resource` blobs, elided
weights, pytree specs, and a read whose cost is linear in the text (checked by
counting parses and calls, never by the clock; speed is `benchmarks/read_text.py`).
"""

from __future__ import annotations

import gc
import io
import json
import re
import sys

import numpy as np
import pytest
from call_counting import assert_linear
from xdsl.context import Context
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.parser import Parser
from xdsl.utils.exceptions import ParseError

import xdsl_exir.dialects.aten as aten_dialect
from xdsl_exir.dialects.aten import Aten, aten_op_class
from xdsl_exir.dialects.exir import (
    DenseBlobAttr,
    DType,
    Exir,
    GraphOp,
    InputKind,
    InputSpecAttr,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    ResourceBlobAttr,
    StateOp,
    TensorType,
    blob_data,
    blob_from_array,
)
from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.interpreters.program import load_state
from xdsl_exir.utils.mlir_parser import (
    ELIDED,
    ResourceParser,
    blob_bytes,
    blob_hex,
    print_module,
)
from xdsl_exir.utils.symbolic import make_symbol
from xdsl_exir.utils.tensor_data import TensorDataError


def context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Exir, Aten):
        ctx.load_dialect(dialect)
    return ctx


def program(steps: int, weight: np.ndarray | None = None) -> ModuleOp:
    """`steps` rounds of linear -> relu -> view on a symbolic batch, with one weight as state."""
    linear = aten_op_class("aten.linear.default")
    relu = aten_op_class("aten.relu.default")
    view = aten_op_class("aten.view.default")
    assert linear and relu and view
    w = np.arange(16, dtype=np.float32).reshape(4, 4) if weight is None else weight
    wt = TensorType([4, 4], DType.float32)
    xt = TensorType([make_symbol("s0"), 4], DType.float32)
    block = Block(arg_types=[wt, xt])
    block.args[0].name_hint, block.args[1].name_hint = "p_w", "x"
    cur: SSAValue = block.args[1]
    for _ in range(steps):
        ops = [linear.build(cur, block.args[0])]
        ops.append(relu.build(ops[-1]))
        ops.append(view.build(ops[-1], [-1, 4]))
        block.add_ops(ops)
        cur = ops[-1].results[0]
    block.add_op(OutputOp([cur]))
    graph = GraphOp("forward", [wt, xt], [cur.type], Region(block))
    state = StateOp("w", wt, blob_from_array(w, DType.float32))
    return ModuleOp(
        [
            ProgramOp(
                [InputSpecAttr(InputKind.parameter, "p_w", "w"), InputSpecAttr(InputKind.user_input, "x")],
                [OutputSpecAttr(OutputKind.user_output, "out")],
                [state, graph],
                in_spec=json.dumps([1, _tuple([_tuple([_LEAF]), _dict([], [])])]),
                out_spec=json.dumps([1, _tuple([_LEAF])]),
            )
        ]
    )


_LEAF = {"type": None, "context": None, "children_spec": []}


def _tuple(children: list[dict[str, object]]) -> dict[str, object]:
    return {"type": "builtins.tuple", "context": "null", "children_spec": children}


def _dict(keys: list[object], children: list[dict[str, object]]) -> dict[str, object]:
    return {"type": "builtins.dict", "context": json.dumps(keys), "children_spec": children}


def text_of(module: ModuleOp, elide: int | None = None) -> str:
    out = io.StringIO()
    print_module(module, out, context().loaded_dialects, elide)
    return out.getvalue()


def read(text: str) -> tuple[ModuleOp, ResourceParser]:
    parser = ResourceParser(context(), text, "m.mlir")
    module = parser.parse_module()
    module.verify()
    return module, parser


def state_of(module: ModuleOp) -> StateOp:
    prog = next(iter(module.ops))
    assert isinstance(prog, ProgramOp)
    return prog.state()["w"]


def test_weights_print_as_dense_resource_and_read_back() -> None:
    weight = np.array([[1.5, -2.0, 0.0, 3.25]] * 4, dtype=np.float32)
    text = text_of(program(2, weight))
    key = re.search(r"exir.state @w : !exir.tensor<\[4, 4\], float32> = dense_resource<([\w.]+)>", text)
    assert key is not None
    assert f'      {key.group(1)}: "{blob_hex(weight.tobytes())}"' in text
    assert blob_hex(b"\x01")[:10] == "0x10000000", "a 4-byte little-endian alignment word comes first"
    stored = Builtin.get_interface(OpAsmDialectInterface)
    assert stored is not None
    candidates = [key.group(1), *(f"{key.group(1)}_{i}" for i in range(50))]
    before = stored.build_resources(candidates)
    module, _ = read(text)
    value = state_of(module).value
    assert isinstance(value, DenseBlobAttr) and value.data == weight.tobytes()
    assert stored.build_resources(candidates) == before, "the copy read into the module leaves the process-wide storage"
    assert text_of(module) == text


def test_unreferenced_resource_entries_leave_the_process_wide_storage() -> None:
    """Entries of a file's section that nothing refers to are not kept: reading the file again and again stays flat."""
    weight = np.array([1.0, 2.0], dtype=np.float32)
    text = text_of(program(2, weight))
    marker = "    builtin: {\n"
    assert marker in text
    unused = "".join(f'      unused{i}: "0x1000000000000000",\n' for i in range(50))
    text = text.replace(marker, marker + unused, 1)
    stored = Builtin.get_interface(OpAsmDialectInterface)
    assert stored is not None
    candidates = [f"unused{i}{suffix}" for i in range(50) for suffix in ("", *(f"_{n}" for n in range(5)))]
    before = stored.build_resources(candidates)
    for _ in range(5):
        module, _ = read(text)
        value = state_of(module).value
        assert isinstance(value, DenseBlobAttr) and value.data == weight.tobytes()
    assert stored.build_resources(candidates) == before, "unused entries stayed in the process-wide storage"


def test_old_inline_blob_form_still_reads() -> None:
    text = text_of(program(1)).split("{-#")[0]
    old = re.sub(
        r"dense_resource<[\w.]+>", '#exir.blob<"0x' + np.ones(16, np.float32).tobytes().hex().upper() + '">', text
    )
    module, _ = read(old)
    value = state_of(module).value
    assert isinstance(value, DenseBlobAttr) and value.data == np.ones(16, np.float32).tobytes()


def test_elided_weights_read_but_do_not_run() -> None:
    text = text_of(program(1), elide=16)
    assert re.search(rf'      w(_[0-9]+)?: "{ELIDED}"', text)
    module, _ = read(text)
    state = state_of(module)
    assert isinstance(state.value, ResourceBlobAttr)
    assert "dense_resource<" in text_of(module) and ELIDED in text_of(module)
    with pytest.raises(TensorDataError, match="elided"):
        blob_data(state.value)
    prog = next(iter(module.ops))
    assert isinstance(prog, ProgramOp)
    with pytest.raises(InterpreterError, match="state @w: the data of resource '.*' is not in the text"):
        load_state(prog)


def test_weights_are_decoded_when_first_used() -> None:
    weight = np.linspace(-1, 1, 16, dtype=np.float32).reshape(4, 4)
    text = text_of(program(1, weight))
    alone = sys.getrefcount(text)
    module = read(text)[0]  # the parser (and its lexer) gone
    value = state_of(module).value
    assert isinstance(value, DenseBlobAttr)
    assert not value.decoded, "reading leaves the weights' hex undecoded"
    assert sys.getrefcount(text) > alone, "the file's text itself is kept, not a copy of its hex"
    assert value == DenseBlobAttr(weight.tobytes()) and hash(value) == hash(DenseBlobAttr(weight.tobytes()))
    assert value.decoded and value.data == weight.tobytes()
    gc.collect()
    assert sys.getrefcount(text) == alone, "once decoded, the text is let go"
    prog = next(iter(module.ops))
    assert isinstance(prog, ProgramOp)
    np.testing.assert_array_equal(load_state(prog)["w"], weight)


def test_a_bad_character_in_a_weight_is_reported_where_it_is_used() -> None:
    text = text_of(program(1))
    hex_text = blob_hex(np.arange(16, dtype=np.float32).tobytes())
    bad = text.replace(hex_text, hex_text[:-2] + "ZZ")
    module, _ = read(bad)  # the head is checked at the read, the data when decoded
    state = state_of(module)
    assert isinstance(state.value, DenseBlobAttr)
    line = bad[: bad.index(hex_text[:-2])].count("\n") + 1
    with pytest.raises(TensorDataError, match=rf"m.mlir:{line}:\d+: resource '[\w.]+': malformed hex"):
        blob_data(state.value)
    prog = next(iter(module.ops))
    assert isinstance(prog, ProgramOp)
    with pytest.raises(InterpreterError, match="state @w: m.mlir:.*malformed hex"):
        load_state(prog)
    with pytest.raises(ParseError, match="alignment"):
        read(text.replace(hex_text, "0x03000000" + hex_text[10:]))


def test_blob_text_is_checked() -> None:
    assert blob_bytes("0x08000000AABB") == b"\xaa\xbb"
    for bad in ("AABB", "0x0800", "0x03000000AA", "0x08000000ZZ"):
        with pytest.raises(ValueError):
            blob_bytes(bad)


@pytest.mark.parametrize(
    "spec",
    [
        [1, _tuple([_tuple([_LEAF, _LEAF]), _dict([], [])])],
        [1, _dict(["a", 3], [_LEAF, {"type": "builtins.list", "context": "null", "children_spec": [_LEAF]}])],
        [1, {"type": "collections.OrderedDict", "context": json.dumps(["k"]), "children_spec": [_LEAF]}],
        [1, {"type": "my.Node", "context": None, "children_spec": [_tuple([])]}],
        [1, _tuple([])],
    ],
)
def test_pytree_specs_print_as_structures_and_read_back(spec: list[object]) -> None:
    module = program(1)
    prog = next(iter(module.ops))
    assert isinstance(prog, ProgramOp)
    prog.in_spec = type(prog.in_spec)(json.dumps(spec)) if prog.in_spec is not None else None
    text = text_of(module)
    assert ' in_spec "[1, ' not in text, "printed as the JSON string, not as a structure"
    again, _ = read(text)
    prog_again = next(iter(again.ops))
    assert isinstance(prog_again, ProgramOp) and prog_again.in_spec is not None
    assert prog_again.in_spec.data == json.dumps(spec)


def test_pytree_spec_syntax() -> None:
    text = text_of(program(1))
    assert " in_spec ((*), {}) out_spec (*) {" in text
    # Text this syntax cannot give back exactly stays the JSON string it is.
    odd = '[1, {"type":null,"context":null,"children_spec":[]}]'
    module = program(1)
    prog = next(iter(module.ops))
    assert isinstance(prog, ProgramOp)
    prog.out_spec = type(prog.out_spec)(odd) if prog.out_spec is not None else None
    again, _ = read(text_of(module))
    prog_again = next(iter(again.ops))
    assert isinstance(prog_again, ProgramOp) and prog_again.out_spec is not None
    assert prog_again.out_spec.data == odd


def test_reading_is_linear_in_the_text() -> None:
    """Each distinct type and signature is parsed once, whatever the size; calls grow by the same step."""
    texts = {steps: text_of(program(steps)) for steps in (10, 20, 40, 80)}
    misses = set()
    for steps, text in texts.items():
        _, parser = read(text)
        misses.add(parser.cache_misses)
        assert parser.cache_hits >= 3 * steps
    assert len(misses) == 1, f"types parsed again as the program grows: {misses}"
    steps_of = {1: 10, 2: 20, 3: 30, 4: 40}
    texts.update({steps: text_of(program(steps)) for steps in steps_of.values() if steps not in texts})
    counts = assert_linear(lambda k: ResourceParser(context(), texts[steps_of[k]], "m.mlir").parse_module(), 1)
    per_op = (counts[1] - counts[0]) / (3 * 10)
    assert per_op < 600, f"{per_op:.0f} calls per op"


def test_printing_is_linear() -> None:
    modules = {k: program(20 * k) for k in (1, 2, 3, 4)}
    assert_linear(lambda k: text_of(modules[k]), 1, steps=3)


@pytest.mark.parametrize(
    "call",
    [
        "(%x, [-1, 32], 1.5, -2, true, none, dim = 1, keepdim = false)",
        "(%x, [], 1.0e-05, alpha = -3)",
        "(%x, [%x, 2], torch.float16)",  # not simple: the general parser
        '(%x, "s", inf, -inf, nan, device("cpu"))',
        "( %x ,[ 1 ,2 ] , name=2)",
    ],
)
def test_simple_calls_read_as_the_general_parser_reads_them(call: str) -> None:
    text = (
        'exir.program inputs [<user_input "x">] outputs [<user_output "r">] {\n'
        "  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>) {\n"
        f'    %r = exir.call_function "my.op"{call} : '
        + "("
        + ", ".join(["!exir.tensor<[2], float32>"] * call.count("%x"))
        + ") -> !exir.tensor<[2], float32>\n"
        "    exir.output %r : !exir.tensor<[2], float32>\n  }\n}\n"
    )
    fast, _ = read(text)
    slow = Parser(context(), text).parse_module()
    fast_call = next(op for op in fast.walk() if op.name == "exir.call_function")
    slow_call = next(op for op in slow.walk() if op.name == "exir.call_function")
    assert fast_call.properties == slow_call.properties
    assert str(fast) == str(slow)


@pytest.mark.parametrize(
    ("call", "message"),
    [("(%x, alpha = 1, alpha = 2)", "given twice"), ("(alpha = 1, %x)", "positional argument after keyword")],
)
def test_simple_call_errors_are_the_general_parsers(call: str, message: str) -> None:
    text = (
        'exir.program inputs [<user_input "x">] outputs [<user_output "r">] {\n'
        "  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>) {\n"
        f'    %r = exir.call_function "my.op"{call} : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>\n'
        "    exir.output %r : !exir.tensor<[2], float32>\n  }\n}\n"
    )
    with pytest.raises(ParseError, match=message):
        ResourceParser(context(), text).parse_module()


def test_a_call_is_verified_once_per_signature(monkeypatch: pytest.MonkeyPatch) -> None:
    """Verifying a read program checks each distinct (op, arguments, types) once, not once a line."""
    checked: list[str] = []
    original = aten_dialect.AtenOp.bound_arguments

    def counting(self: aten_dialect.AtenOp) -> object:
        checked.append(self.name)
        return original(self)

    monkeypatch.setattr(aten_dialect.AtenOp, "bound_arguments", counting)
    monkeypatch.setattr(aten_dialect, "_VERIFIED", set())
    for steps in (5, 50):
        checked.clear()
        read(text_of(program(steps)))
        assert len(checked) <= 4, f"{len(checked)} schema checks for {3 * steps} calls"


def test_attribute_dictionaries_read_as_the_general_parser_reads_them() -> None:
    """The text caches and the string-array fast path give what xDSL's parser gives."""
    attrs = (
        '{nn_module_stack = [["L__self__", "", "torch.nn.Linear"], ["L__self__fc", "fc", "x.y"]], '
        'torch_fn = ["linear_1", "builtin.linear"], empty = [], mixed = [["a"], "b", 1], '
        'escaped = ["q\\22uote"], nested = {inner = ["s"]}}'
    )
    lines = "\n".join(
        f'    %r{i} = exir.call_function "my.op"(%x) {attrs} : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>'
        for i in range(3)
    )
    text = (
        'exir.program inputs [<user_input "x">] outputs [<user_output "r2">] {\n'
        "  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>) {\n"
        f"{lines}\n    exir.output %r2 : !exir.tensor<[2], float32>\n  }}\n}}\n"
    )
    fast, parser = read(text)
    slow = Parser(context(), text).parse_module()
    fast_ops = [op for op in fast.walk() if op.name == "exir.call_function"]
    slow_ops = [op for op in slow.walk() if op.name == "exir.call_function"]
    assert [op.attributes for op in fast_ops] == [op.attributes for op in slow_ops]
    assert parser.cache_hits >= 2


def test_a_signature_split_over_lines_is_not_taken_for_another() -> None:
    """A cache keyed by a line's text must not serve a signature that goes on past the line."""
    t2, t3 = "!exir.tensor<[2], float32>", "!exir.tensor<[3], float32>"
    text = (
        'exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "b">] {\n'
        f"  exir.graph @forward(%x: {t2}, %y: {t3}) -> ({t3}) {{\n"
        f'    %a = exir.call_function "my.op"(%x, %x) : ({t2},\n        {t2}) -> {t2}\n'
        f'    %b = exir.call_function "my.op"(%x, %y) : ({t2},\n        {t3}) -> {t3}\n'
        f"    exir.output %b : {t3}\n  }}\n}}\n"
    )
    module, _ = read(text)
    calls = [op for op in module.walk() if op.name == "exir.call_function"]
    assert [str(op.result_types[0]) for op in calls] == [t2, t3]


_TS_MODULE = """ts.module @m class "__torch__.M" {
  ts.slot parameter @weight : !ts.tensor<Float(2)> = #ts.tensor_value<Float, [2], #exir.blob<"0x0000803F00000040">>
  ts.method @forward attributes {schema = "forward(__torch__.M self) -> Tensor"} {
  ^bb0(%self: !ts.class<"__torch__.M">):
    %t = prim.Constant() {value = #ts.tensor_value<Long, [], #exir.blob<"0x0200000000000000">>} : () -> !ts.tensor
    prim.Return(%t) : (!ts.tensor) -> ()
  }
}
"""


def ts_text(module: ModuleOp, ctx: Context, elide: int | None = None) -> str:
    out = io.StringIO()
    print_module(module, out, ctx.loaded_dialects, elide)
    return out.getvalue()


def test_torchscript_tensor_data_prints_as_dense_resource() -> None:
    from xdsl_exir.dialects.registry import get_all_dialects
    from xdsl_exir.dialects.ts import SlotOp, TensorValueAttr

    ctx = Context()
    ctx.load_dialect(Builtin)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    text = ts_text(ResourceParser(ctx, _TS_MODULE).parse_module(), ctx)
    # the key is the slot's name; xDSL's process-wide blob storage suffixes it when an
    # earlier module of this process declared the same key
    assert "#exir.blob" not in text
    assert re.search(r"= #ts\.tensor_value<Float, \[2\], dense_resource<weight(_[0-9]+)*>>", text)
    assert re.search(r'weight(_[0-9]+)*: "0x100000000000803F00000040"', text)
    module = ResourceParser(ctx, text).parse_module()
    slot = next(op for op in module.walk() if isinstance(op, SlotOp))
    assert isinstance(slot.value, TensorValueAttr)
    assert slot.value.known and not slot.value.data.decoded, "read, not decoded"
    np.testing.assert_array_equal(slot.value.to_array(), np.array([1.0, 2.0], np.float32))
    # equal up to the key suffix the process-wide storage may add on reading a key it holds
    assert re.sub(r"(weight|tensor)(_[0-9]+)+", r"\1", ts_text(module, ctx)) == re.sub(r"(weight|tensor)(_[0-9]+)+", r"\1", text)
    elided = ts_text(ResourceParser(ctx, text).parse_module(), ctx, elide=16)
    assert f'weight: "{ELIDED}"' in elided or re.search(rf'weight(_[0-9]+)+: "{ELIDED}"', elided)
    module = ResourceParser(ctx, elided).parse_module()
    again = ts_text(module, ctx)  # under a renamed key when the storage holds the name already, as states are
    assert re.sub(r"(weight|tensor)(_[0-9]+)+", r"\1", again) == re.sub(r"(weight|tensor)(_[0-9]+)+", r"\1", elided)
    slot = next(op for op in module.walk() if isinstance(op, SlotOp))
    assert isinstance(slot.value, TensorValueAttr)
    with pytest.raises(TensorDataError, match="elided"):
        slot.value.to_array()


SPEC_LISTS = [
    'inputs [<parameter "p_w" -> "fc.weight">, <buffer "b_n" -> "n" non_persistent>, <buffer "b_m" -> "m">, '
    '<constant_tensor "c_t" -> "t">, <user_input "x">] outputs [<buffer_mutation "add_1" -> "n">, <user_output "r">]',
    'inputs [ <user_input "x"> ,<parameter "p.w" -> "w"> ] outputs [<user_output "r">]',
    'inputs [] outputs [<user_output "r">]',
    'inputs [<user_input "x\\22q">] outputs [<user_output "r">]',  # an escape: the general parser
]


@pytest.mark.parametrize("specs", SPEC_LISTS)
def test_spec_lists_read_as_the_general_parser_reads_them(specs: str) -> None:
    """The signature's regex fast path gives the specs xDSL's parser gives."""
    text = (
        f"exir.program {specs} {{\n"
        "  exir.state @fc.weight : !exir.tensor<[2], float32>\n"
        "  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>) {\n"
        "    exir.output %x : !exir.tensor<[2], float32>\n  }\n}\n"
    )
    # Parsed only: most of these signatures do not match the one-placeholder graph, which
    # the program's verifier refuses; the readers are compared here, not the programs.
    fast = ResourceParser(context(), text, "m.mlir").parse_module()
    slow = Parser(context(), text).parse_module()
    fast_program = next(op for op in fast.walk() if isinstance(op, ProgramOp))
    slow_program = next(op for op in slow.walk() if isinstance(op, ProgramOp))
    assert fast_program.inputs == slow_program.inputs
    assert fast_program.outputs == slow_program.outputs
    assert len(fast_program.inputs.data) == specs.split("outputs")[0].count("<")


@pytest.mark.parametrize(
    ("specs", "message"),
    [
        ('inputs [<parameter "p_w">]', "needs state target"),
        ('inputs [<user_input "x" -> "w">]', "takes no state target"),
        ('inputs [<bogus "x">]', "bogus"),
        ('inputs [<user_input "x" non_persistent>]', "expected"),
        ('outputs [<buffer_mutation "a">]', "needs target"),
    ],
)
def test_spec_list_errors_are_the_general_parsers(specs: str, message: str) -> None:
    """Forms the fast path does not take are left to the general parser, diagnostics and all."""
    text = f"exir.program {specs} {{\n}}\n"
    errors: list[str] = []
    for parse in (lambda: read(text), lambda: Parser(context(), text, "m.mlir").parse_module()):
        with pytest.raises(Exception) as info:
            parse()
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert message in errors[0]


STATE_LINES = [
    "exir.state @fc.weight : !exir.tensor<[2], float32> = dense_resource<state_fast_a>",
    "exir.state @fc.weight:!exir.tensor<[2], float32> =dense_resource<state_fast_b> {note = 1 : i64}",
    'exir.state @"odd-name" : !exir.tensor<[2], float32> = dense_resource<state_fast_c>',
    "exir.state @fc.weight : !exir.tensor<[2], float32> = dense_resource<state_fast_d.x$1>",
    "exir.state @fc.weight : !exir.tensor<[2], float32>",
    "exir.state @fc.weight : !exir.tensor<[2], float32> = 3 : i64",
]


@pytest.mark.parametrize("line", STATE_LINES)
def test_state_lines_read_as_the_general_parser_reads_them(line: str) -> None:
    """The `exir.state` fast path (bare name, resource handle) gives what xDSL's parser gives."""
    text = f"exir.program {{\n  {line}\n  exir.graph @forward() -> () {{\n    exir.output\n  }}\n}}\n"
    fast, parser = read(text)
    slow = Parser(context(), text).parse_module()
    fast_state = next(op for op in fast.walk() if isinstance(op, StateOp))
    slow_state = next(op for op in slow.walk() if isinstance(op, StateOp))
    assert fast_state.properties == slow_state.properties
    assert fast_state.attributes == slow_state.attributes
    if "dense_resource" in line:
        assert ("builtin", fast_state.properties["value"].data) in parser.dialect_resources


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("exir.state @fc-weight : !exir.tensor<[2], float32>", "Expected ':'"),
        ("exir.state @w : !exir.tensor<[2], float32> = dense_resource<0bad>", "resource handle"),
        ("exir.state @w : !exir.tensor<[2], float32> = dense_resource<a", "'>' expected"),
    ],
)
def test_state_line_errors_are_the_general_parsers(line: str, message: str) -> None:
    """State lines the fast path does not take keep the general parser's diagnostics."""
    text = f"exir.program {{\n  {line}\n}}\n"
    errors: list[str] = []
    for parse in (lambda: read(text), lambda: Parser(context(), text, "m.mlir").parse_module()):
        with pytest.raises(ParseError) as info:
            parse()
        errors.append(str(info.value))
    assert errors[0] == errors[1]
    assert message in errors[0]


@pytest.mark.parametrize(
    "attrs",
    [
        '{nn_module_stack = [["L__self__", "", "torch.nn.Linear"]], torch_fn = ["linear_1", "builtin.linear"]}',
        '{ a = [] ,b=["x = [\\"y\\"]"], c = [[], ["p, q"]] }',
        "{}",
        '{a = ["x"], a = ["y"]}',
    ],
)
def test_string_array_dictionaries_read_as_the_general_parser_reads_them(attrs: str) -> None:
    """The dictionary-of-string-arrays fast path gives what xDSL's parser gives, or its error."""
    text = (
        'exir.program inputs [<user_input "x">] outputs [<user_output "r">] {\n'
        "  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>) {\n"
        f'    %r = exir.call_function "my.op"(%x) {attrs} : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>\n'
        "    exir.output %r : !exir.tensor<[2], float32>\n  }\n}\n"
    )
    outcomes: list[object] = []
    for parse in (lambda: read(text)[0], lambda: Parser(context(), text, "m.mlir").parse_module()):
        try:
            module = parse()
        except ParseError as e:
            outcomes.append(str(e))
            continue
        outcomes.append(next(op.attributes for op in module.walk() if op.name == "exir.call_function"))
    assert outcomes[0] == outcomes[1]


def _resource_line(text: str) -> tuple[list[str], int]:
    lines = text.splitlines()
    return lines, next(i for i, line in enumerate(lines) if re.match(r'\s+w(_[0-9]+)?: "0x', line))


def test_a_resource_given_twice_is_refused_at_the_second() -> None:
    lines, i = _resource_line(text_of(program(1)))
    first = lines[i].rstrip(",") + ","
    twice = "\n".join([*lines[:i], first, lines[i].replace("0x10000000", "0x1000000000", 1), *lines[i + 1 :]])
    with pytest.raises(ParseError, match=r"resource 'w(_[0-9]+)?' is given twice in dialect_resources"):
        read(twice)


def test_a_second_resource_section_is_refused() -> None:
    text = text_of(program(1))
    with pytest.raises(ParseError, match="a second dialect_resources section"):
        read(text + '\n{-#\n  dialect_resources: {\n    builtin: {\n      other: "0x10000000"\n    }\n  }\n#-}\n')


def test_whitespace_inside_hex_is_malformed() -> None:
    """`bytes.fromhex` skips spaces; MLIR's blobs hold none, so a space means a damaged file."""
    lines, i = _resource_line(text_of(program(1)))
    lines[i] = lines[i][:-12] + " " + lines[i][-12:]
    module, _ = read("\n".join(lines))
    with pytest.raises(TensorDataError, match="malformed hex"):
        blob_data(state_of(module).value)


def test_a_missing_resource_is_not_called_elided() -> None:
    lines, i = _resource_line(text_of(program(1)))
    lines[i] = re.sub(r"^(\s+)w(_[0-9]+)?:", r"\1wrong_key:", lines[i])
    with pytest.raises(ParseError, match=r"resource 'w(_[0-9]+)?' has no entry in the file's dialect_resources section"):
        read("\n".join(lines))
