"""
The cleanup passes: canonicalization (stock `canonicalize` with the aten and
TorchScript peepholes), `constant-propagation`, `constant-pooling`, `inline`.
Each must keep what the program computes (`pass_harness.assert_preserves`).
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from xdsl.utils.exceptions import PassFailedException

sys.path.insert(0, str(Path(__file__).parent))
import pass_harness

DUMPS = Path(__file__).parent / "torchscript" / "dumps"
ZOO = [m["name"] for m in pass_harness.zoo_models()]


@pytest.mark.parametrize("ir", ["train", "core"])
@pytest.mark.parametrize("name", ZOO)
@pytest.mark.parametrize("pipeline", ["canonicalize", "constant-propagation", "constant-pooling"])
def test_zoo_preserved(name: str, ir: str, pipeline: str) -> None:
    pass_harness.assert_preserves(pass_harness.load_zoo(name, ir), pipeline, seeds=(0,))


def test_zoo_canonicalize_changes_attention() -> None:
    """Not a no-op: the core attention model loses its identity views and copies."""
    module = pass_harness.load_zoo("attention", "core")
    after = pass_harness.assert_preserves(module, "canonicalize", seeds=(0,))
    assert sum(1 for _ in after.walk()) < sum(1 for _ in module.walk())


def _dump(name: str):
    from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

    path = DUMPS / name
    return parse_torchscript(path.read_text(), path.name)


# TorchScript dumps that run on random inputs (full types).
TS_RUNNABLE = [
    "fuse_lstm_cell.traced.txt",
    "fuse_lstm_cell.fused.txt",
    "trace_mlp.txt",
]


@pytest.mark.parametrize("dump", TS_RUNNABLE)
@pytest.mark.parametrize(
    "pipeline", ["canonicalize", "constant-propagation", "constant-pooling", "inline", "inline,canonicalize"]
)
def test_torchscript_dumps_preserved(dump: str, pipeline: str) -> None:
    module = _dump(dump)
    try:
        pass_harness.random_flat_inputs(module, 0)
    except Exception as e:  # pragma: no cover - a fixture without full types
        pytest.skip(f"{dump} does not run on random inputs: {e}")
    pass_harness.assert_preserves(module, pipeline, seeds=(0,))


def test_inline_fusion_group_removes_it() -> None:
    module = _dump("fuse_lstm_cell.fused.txt")
    after = pass_harness.assert_preserves(module, "inline{kinds=FusionGroup}", seeds=(0,))
    assert not [o for o in after.walk() if o.name == "prim.FusionGroup"]
    assert [o for o in module.walk() if o.name == "prim.FusionGroup"]


def test_inline_bad_kind() -> None:
    with pytest.raises(PassFailedException, match="unknown kind"):
        pass_harness.apply(_dump("trace_mlp.txt"), "inline{kinds=Bogus}")


def test_constant_propagation_bad_option() -> None:
    with pytest.raises(PassFailedException, match="max-elements"):
        pass_harness.apply(_dump("trace_mlp.txt"), "constant-propagation{max-elements=-1}")


def _kinds(graph_text: str) -> list[str]:
    """Node kinds in order (`prim::GetAttr`, `aten::linear`, ...) of a dump."""
    import re

    return re.findall(r"= ([a-z]+::[A-Za-z_]+)", graph_text)


def test_inline_matches_torch_inlined_graph() -> None:
    """`inline` on the live ComposedModule gives the node kinds of torch's `m.inlined_graph`."""
    torch = pytest.importorskip("torch")
    sys.path.insert(0, str(Path(__file__).parent / "torchscript"))
    import models  # pyright: ignore[reportMissingImports] - tests/torchscript is put on sys.path just above

    from xdsl_exir.dialects.ts import MethodOp, ScriptModuleOp
    from xdsl_exir.frontends.torchscript_live import import_script_module
    from xdsl_exir.targets.torchscript_dump_printer import format_graph

    torch.manual_seed(0)
    scripted = torch.jit.script(models.ComposedModule())
    module = import_script_module(scripted)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    after = pass_harness.assert_preserves(module, "inline", inputs=[[x]])
    top = next(o for o in after.walk() if isinstance(o, ScriptModuleOp))
    forward = next(m for m in top.methods() if isinstance(m, MethodOp) and m.sym_name.data == "forward")
    ours = [k for k in _kinds(format_graph(forward)) if k != "prim::Constant"]
    want = [k for k in _kinds(str(scripted.inlined_graph)) if k != "prim::Constant"]
    assert ours == want


SIGNED_ZERO_AND_NAN = """graph(%x : float):
  %a : float = prim::Constant[value=-0.]()
  %b : float = prim::Constant[value=0.]()
  %n1 : float = prim::Constant[value=nan]()
  %n2 : float = prim::Constant[value=nan]()
  %r1 : float = aten::mul(%x, %a)
  %r2 : float = aten::mul(%x, %b)
  %r3 : float = aten::mul(%x, %n1)
  %r4 : float = aten::mul(%x, %n2)
  return (%r1, %r2, %r3, %r4)
"""


def _float_constants(values: list[float]) -> list[str]:
    return [repr(v) for v in values]


def test_constant_pooling_compares_floats_as_torch_does() -> None:
    """
    torch's ConstantPooling compares constants with `==`: `-0.` and `0.` are
    one constant (the first one met), a `nan` equals no other. The script
    frontend's old copy keyed on the printed value, the pass on the
    attribute; both kept `-0.` apart and merged the `nan`s.
    """
    from xdsl_exir.dialects.prim import ConstantOp
    from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript

    after = pass_harness.apply(parse_torchscript(SIGNED_ZERO_AND_NAN), "constant-pooling")
    ours = [op.value.value.data for op in after.walk() if isinstance(op, ConstantOp)]  # pyright: ignore[reportAttributeAccessIssue, reportOptionalMemberAccess] - the constants under test are floats
    assert _float_constants(ours) == ["-0.0", "nan", "nan"]
    torch = pytest.importorskip("torch")
    g = torch._C.Graph()
    x = g.addInput("x")
    x.setType(torch._C.FloatType.get())
    for value in (-0.0, 0.0, float("nan"), float("nan")):
        mul = g.create("aten::mul", [x, g.insertConstant(value)])
        g.insertNode(mul)
        g.registerOutput(mul.output())
    torch._C._jit_pass_constant_pooling(g)
    theirs = [n.output().toIValue() for n in g.nodes() if n.kind() == "prim::Constant"]
    assert sorted(_float_constants(theirs)) == sorted(_float_constants(ours))
