"""`exir-dce` and `exir-cse`: results unchanged on the zoo and TorchScript fixtures; mutation respected."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from pass_harness import apply, assert_preserves, load_zoo, parse, zoo_models
from xdsl.ir import Block

from xdsl_exir.dialects.ts import MethodOp, NodeOp
from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

MODELS = [m["name"] for m in zoo_models()]
TS = Path(__file__).parent / "torchscript"


def _count(module: object, name: str) -> int:
    return sum(1 for op in module.walk() if op.name == name)  # pyright: ignore[reportAttributeAccessIssue] - a ModuleOp, typed object so tests can pass any IR


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("ir", ["train", "core"])
def test_zoo_results_unchanged(name: str, ir: str) -> None:
    assert_preserves(load_zoo(name, ir), "exir-cse,exir-dce", seeds=(0,))


@pytest.mark.parametrize(
    "case,data",
    [("lstm_cell", "lstm_cell"), ("inplace_ops", "inplace_ops"), ("list_ops", "list_ops"), ("nested_control", "nested_control")],
)
def test_torchscript_fixtures_unchanged(case: str, data: str) -> None:
    module = parse_torchscript((TS / "dumps" / f"{case}.txt").read_text())
    npz = np.load(TS / "data" / f"{data}.npz")
    inputs = [npz[k] if npz[k].shape or npz[k].dtype.kind == "f" else npz[k].item() for k in sorted(k for k in npz if k.startswith("arg"))]
    assert_preserves(module, "exir-cse,exir-dce", inputs=[inputs])


T = "!exir.tensor<[4], float32>"

GRAPH = f"""
builtin.module {{
  exir.program inputs [<user_input "x">] outputs [<user_output "s">] {{
    exir.graph @forward(%x: {T}) -> ({T}) {{
      %a = aten.relu.default(%x) : ({T}) -> {T}
      %b = aten.relu.default(%x) : ({T}) -> {T}
      %dead = aten.neg.default(%x) : ({T}) -> {T}
      %t = aten.clone.default(%x) : ({T}) -> {T}
      %t2 = aten.add_.Tensor(%t, %a) : ({T}, {T}) -> {T}
      %u = aten.clone.default(%x) : ({T}) -> {T}
      %u2 = aten.mul_.Tensor(%u, %b) : ({T}, {T}) -> {T}
      %w = aten.add_.Tensor(%x, %b) : ({T}, {T}) -> {T}
      %c = aten.relu.default(%x) : ({T}) -> {T}
      %r = exir.call_function "aten.rand_like.default"(%x) : ({T}) -> {T}
      %s0 = aten.add.Tensor(%c, %u) : ({T}, {T}) -> {T}
      %s = aten.add.Tensor(%s0, %b) : ({T}, {T}) -> {T}
      exir.output %s : {T}
    }}
  }}
}}
"""


def test_dce_keeps_observable_writes_and_random_ops() -> None:
    module = parse(GRAPH)
    after = apply(module, "exir-dce")
    names = [op.results[0].name_hint for op in after.walk() if op.name.startswith(("aten.", "exir.call")) and op.results]
    # neg is dead; the write into the dead clone %t goes with it; the write into the
    # live clone %u and into the input %x stay; the random op stays (generator state).
    assert "dead" not in names and "t" not in names and "t2" not in names
    assert {"u", "u2", "w", "r"} <= set(names)


DEAD_OUTPUTS = """graph(%x : Tensor, %c : bool, %n : int):
  %one : int = prim::Constant[value=1]()
  %true : bool = prim::Constant[value=1]()
  %a : Tensor, %b : Tensor = prim::If(%c)
    block0():
      %p : Tensor = aten::add(%x, %x, %one)
      %q : Tensor = aten::mul(%x, %x)
      -> (%p, %q)
    block1():
      %r : Tensor = aten::neg(%x)
      -> (%r, %x)
  %y : Tensor, %z : Tensor, %w : Tensor = prim::Loop(%n, %true, %a, %x, %x)
    block0(%i : int, %acc : Tensor, %unused : Tensor, %kept : Tensor):
      %next : Tensor = aten::add(%acc, %x, %one)
      %waste : Tensor = aten::relu(%x)
      %still : Tensor = aten::relu(%kept)
      -> (%true, %next, %waste, %still)
  return (%y)
"""


def _tree(ops: list[tuple[str, int, list[Any]]]) -> list[tuple[str, int, list[Any]]]:
    return [op for op in ops if op[0] != "prim::Constant"]


def _our_tree(block: Block) -> list[tuple[str, int, list[Any]]]:
    return _tree([
        (op.kind.data if isinstance(op, NodeOp) else op.name.replace("prim.", "prim::"), len(op.results),
         [_our_tree(r.block) for r in op.regions])
        for op in block.ops if op.name != "prim.Return"
    ])  # fmt: skip


def test_dce_drops_dead_if_outputs_and_loop_carried_values_like_torch() -> None:
    """
    TorchScript's dead code elimination (`_jit_pass_dce`) also drops unused
    `prim::If` outputs and loop-carried values the loop body does not read,
    and what computed them; the script frontend relies on it (it runs
    `exir-dce`). A carried value the body reads stays.
    """
    module = apply(parse_torchscript(DEAD_OUTPUTS), "exir-dce")
    method = next(op for op in module.walk() if isinstance(op, MethodOp))
    ours = _our_tree(method.body.block)
    assert ours == [
        ("prim::If", 1, [[("aten::add", 1, [])], [("aten::neg", 1, [])]]),
        ("prim::Loop", 2, [[("aten::add", 1, []), ("aten::relu", 1, [])]]),
    ]
    torch = pytest.importorskip("torch")
    theirs = torch._C.parse_ir(DEAD_OUTPUTS)
    torch._C._jit_pass_dce(theirs)

    def torch_tree(block: Any) -> list[tuple[str, int, list[Any]]]:
        return _tree([(n.kind(), n.outputsSize(), [torch_tree(b) for b in n.blocks()]) for n in block.nodes()])

    assert ours == torch_tree(theirs)


def test_cse_does_not_merge_across_a_write() -> None:
    module = parse(GRAPH)
    after = apply(module, "exir-cse")
    # %b merges into %a; %c reads %x after the in-place add into %x and stays.
    assert _count(after, "aten.relu.default") == 2


def test_cse_does_not_merge_values_written_later_or_random_ops() -> None:
    text = f"""
builtin.module {{
  exir.graph @g(%x: {T}) -> ({T}, {T}, {T}, {T}) {{
    %a = aten.clone.default(%x) : ({T}) -> {T}
    %b = aten.clone.default(%x) : ({T}) -> {T}
    %w = aten.add_.Tensor(%b, 1.0) : ({T}) -> {T}
    %r1 = exir.call_function "aten.rand_like.default"(%x) : ({T}) -> {T}
    %r2 = exir.call_function "aten.rand_like.default"(%x) : ({T}) -> {T}
    exir.output %a, %b, %r1, %r2 : {T}, {T}, {T}, {T}
  }}
}}
"""
    after = apply(parse(text), "exir-cse")
    assert _count(after, "aten.clone.default") == 2
    assert sum(1 for op in after.walk() if op.name == "exir.call_function") == 2


def test_cse_is_scoped_by_regions() -> None:
    module = load_zoo("cond", "train")
    after = assert_preserves(module, "exir-cse,exir-dce")
    assert _count(after, "exir.cond") == _count(module, "exir.cond")
