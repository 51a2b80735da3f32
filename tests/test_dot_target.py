"""
`--emit dot` / `--emit svg` (issue 15, item 1): pictures of every stage.

The dot text itself is checked with FileCheck (`tests/filecheck/targets/dot/`);
here: every zoo program at every stage gives a well-formed graph with one node
per op, collapsing by module keeps every op in some box, op families, and the
svg path (rendered when Graphviz's `dot` is installed, a one-line diagnostic
when it is not, and a diagnostic when `dot` fails or hangs).
"""

from __future__ import annotations

import os
import pathlib
import re
import shutil
import stat

import pytest
from pass_harness import ZOO, apply, load_zoo, parse, zoo_models
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation

from xdsl_exir.dialects.aten import aten_op_class
from xdsl_exir.targets.dot import FAMILY_COLOURS, op_family, to_dot
from xdsl_exir.tools.exir_opt import run


def exir_opt(args: list[str]) -> int:
    """exir-opt's exit code (a diagnostic ends the run with SystemExit)."""
    try:
        return run(args)
    except SystemExit as e:
        return int(e.code or 0)

STAGES = ("", "optimize-inference", "convert-exir-to-linalg")
TERMINATORS = frozenset({"exir.output", "prim.Return", "func.return", "scf.yield", "linalg.yield", "tensor.yield"})
NOT_DRAWN = frozenset({"exir.state", "exir.program", "exir.graph", "func.func", "builtin.module"})


def _drawn_ops(module: ModuleOp) -> list[Operation]:
    """The ops the picture has one node for (payloads of linalg ops are in their label)."""
    out: list[Operation] = []

    def visit(op: Operation) -> None:
        if op.name not in NOT_DRAWN and op.name not in TERMINATORS:
            out.append(op)
        if op.name.startswith("linalg.") or op.name == "tensor.pad":
            return
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    visit(inner)

    for op in module.ops:
        visit(op)
    return out


def _check_well_formed(text: str) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Nodes (id -> attributes) and edges; every edge joins declared nodes, braces balance."""
    assert text.startswith("digraph G {\n") and text.endswith("}\n")
    assert text.count("{") == text.count("}")
    nodes = dict(re.findall(r"^\s*(n\d+) \[(.*)\];$", text, re.M))
    edges = re.findall(r"^\s*(n\d+) -> (n\d+)", text, re.M)
    for src, dst in edges:
        assert src in nodes and dst in nodes, (src, dst)
    return nodes, edges


def _stage(name: str, stage: str) -> ModuleOp:
    module = load_zoo(name, "core")
    return apply(module, stage) if stage else module


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("name", [m["name"] for m in zoo_models()])
def test_every_zoo_stage_is_drawn(name: str, stage: str) -> None:
    try:
        module = _stage(name, stage)
    except Exception as e:  # the lowering's business, tested with it
        pytest.skip(f"{stage} does not take {name}: {e}")
    text = to_dot(module)
    assert to_dot(module) == text  # deterministic
    nodes, edges = _check_well_formed(text)
    boxes = [n for n, attrs in nodes.items() if "shape=box," in attrs]
    assert len(boxes) == len(_drawn_ops(module))
    assert edges
    # Every family drawn is in the legend, and only those.
    used = {f for f, colour in FAMILY_COLOURS.items() if any(f'fillcolor="{colour}"' in nodes[b] for b in boxes)}
    legend = set(re.findall(r'legend_\w+ \[label="([^"]+)"', text))
    assert used <= legend


@pytest.mark.parametrize("depth", [1, 2])
@pytest.mark.parametrize("name", ["resnet18", "transformer_encoder", "llama_block", "cnn_bn"])
def test_collapse_keeps_every_op_in_one_box(name: str, depth: int) -> None:
    module = load_zoo(name, "core")
    full = _drawn_ops(module)
    text = to_dot(module, collapse_depth=depth)
    nodes, _ = _check_well_formed(text)
    boxed = sum(int(n) for n in re.findall(r'label="[^"]*\\n(\d+) ops?\b[^"]*", shape=box3d', "\n".join(nodes.values())))
    singles = [n for n, attrs in nodes.items() if "shape=box," in attrs]
    assert boxed + len(singles) == len(full)
    assert boxed > 0
    assert len(nodes) < len(_drawn_ops(module)) + 10  # far fewer nodes than ops and weights


def test_collapse_depth_follows_the_module_stack() -> None:
    module = load_zoo("resnet18", "core")
    one = to_dot(module, collapse_depth=1)
    two = to_dot(module, collapse_depth=2)
    assert 'label="layer1\\nSequential\\n' in one and "layer1.0" not in one
    assert 'label="layer1.0\\nBasicBlock\\n' in two and 'label="layer1\\nSequential' not in two


@pytest.mark.parametrize(
    "op,family",
    [
        ("aten.add.Tensor", "pointwise"),
        ("aten.mm.default", "matmul / conv"),
        ("aten.convolution.default", "matmul / conv"),
        ("aten.sum.dim_IntList", "reduction / norm"),
        ("aten._softmax.default", "reduction / norm"),
        ("aten.view.default", "view / copy"),
        ("aten.cat.default", "view / copy"),
        ("aten.full.default", "creation"),
    ],
)
def test_aten_families(op: str, family: str) -> None:
    cls = aten_op_class(op)
    assert cls is not None
    assert op_family(cls.create()) == family


def test_ts_node_family_without_an_overload() -> None:
    module = parse(
        """
ts.method @f {
^bb0(%x: !ts.tensor):
  %y = ts.node "aten::mul"(%x, %x) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  %z = ts.node "aten::matmul"(%y, %x) : (!ts.tensor, !ts.tensor) -> !ts.tensor
  prim.Return(%z) : (!ts.tensor) -> ()
}"""
    )
    mul, matmul, _ = list(next(iter(module.ops)).regions[0].block.ops)
    assert op_family(mul) == "pointwise"
    assert op_family(matmul) == "matmul / conv"


# ---------------------------------------------------------------------------
# svg
# ---------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_svg_is_rendered(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "cond.svg"
    args = [str(ZOO / "cond.core.pt2"), "-p", "optimize-inference", "--emit", "svg", "-o", str(out)]
    assert exir_opt(args) == 0
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    for label in ("addmm", "fusion_group", "cond", "pos.weight"):
        assert f">{label}</text>" in svg


def _fake_dot(tmp_path: pathlib.Path, script: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A `dot` on PATH that runs `script` instead of Graphviz."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dot = bin_dir / "dot"
    dot.write_text("#!/bin/sh\n" + script + "\n")
    dot.chmod(dot.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")


def test_svg_without_graphviz_says_how_to_install(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(shutil, "which", lambda *args, **kwargs: None)
    out = tmp_path / "m.svg"
    assert exir_opt([str(ZOO / "mlp.core.pt2"), "--emit", "svg", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "apt-get install graphviz" in err and "brew install graphviz" in err
    assert "Traceback" not in err
    assert not out.exists()  # nothing half-written


def test_svg_when_dot_fails(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _fake_dot(tmp_path, 'echo "Error: syntax error in line 1" >&2; exit 3', monkeypatch)
    out = tmp_path / "m.svg"
    assert exir_opt([str(ZOO / "mlp.core.pt2"), "--emit", "svg", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "dot failed (exit 3): Error: syntax error in line 1" in err
    assert not out.exists()


def test_svg_when_dot_hangs(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _fake_dot(tmp_path, "exec sleep 30", monkeypatch)
    out = tmp_path / "m.svg"
    assert exir_opt([str(ZOO / "mlp.core.pt2"), "--emit", "svg{timeout=1}", "-o", str(out)]) == 1
    err = capsys.readouterr().err
    assert "took longer than 1 s" in err and "collapse-depth" in err
    assert not out.exists()


def test_bad_options_are_diagnostics(capsys: pytest.CaptureFixture[str]) -> None:
    assert exir_opt([str(ZOO / "mlp.core.pt2"), "--emit", "dot{depth=1}"]) == 1
    assert "unknown option 'depth' (options of dot: collapse-depth)" in capsys.readouterr().err
    assert exir_opt([str(ZOO / "mlp.core.pt2"), "--emit", "dot{collapse-depth=-1}"]) == 1
    assert "collapse-depth must be 0 (off) or a module depth >= 1" in capsys.readouterr().err


TS_DUMPS = sorted(p.name for p in (ZOO.parent / "torchscript" / "dumps").glob("*.txt") if ".code." not in p.name)


@pytest.mark.parametrize("dump", TS_DUMPS)
def test_every_torchscript_dump_is_drawn(dump: str, tmp_path: pathlib.Path) -> None:
    out = tmp_path / "g.dot"
    source = ZOO.parent / "torchscript" / "dumps" / dump
    assert exir_opt([str(source), "--emit", "dot", "-o", str(out)]) == 0
    nodes, _ = _check_well_formed(out.read_text())
    assert any("shape=box," in attrs for attrs in nodes.values())


def test_control_characters_in_names_are_shown_not_written() -> None:
    """A NUL (or another control character) in a name would end Graphviz's string."""
    source = (ZOO.parent.parent / "examples" / "mlp.mlir").read_text()
    module = parse(source.replace('<user_input "x">', '<user_input "x\\00y\\1B">'))
    text = to_dot(module)
    assert "\x00" not in text and "\x1b" not in text
    assert 'label="x\\\\x00y\\\\x1b"' in text
