"""
`--list-passes` with a downstream package that adds a pass through xDSL's
`xdsl.universe` entry point: the pass is listed under that distribution's
name, with its description and options, not among xDSL's own passes.

The package is a real distribution on the import path (a `.dist-info` folder
with an `entry_points.txt`), found by `importlib.metadata` as an installed one
would be, and `exir-opt` runs in a subprocess that sees it.
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import textwrap

PLUGIN = '''
from dataclasses import dataclass

from xdsl.dialects.builtin import IntegerAttr
from xdsl.passes import ModulePass
from xdsl.universe import Universe
from xdsl.utils.target import Target


@dataclass(frozen=True)
class CountOps(ModulePass):
    """Counts the ops of the module (a downstream example pass)."""

    name = "demo-count-ops"

    verbose: bool = False

    def apply(self, ctx, op):
        op.attributes["demo.ops"] = IntegerAttr(sum(1 for _ in op.walk()), 64)


@dataclass(frozen=True)
class OpNames(Target):
    name = "demo-op-names"

    def emit(self, ctx, module, output):
        output.write(f"{module.attributes['demo.ops'].value.data} ops\\n")
        for op in module.walk():
            output.write(op.name + "\\n")


def _count_ops():
    return CountOps


def _op_names():
    return OpNames


DEMO_UNIVERSE = Universe(all_passes={"demo-count-ops": _count_ops}, all_targets={"demo-op-names": _op_names})
'''


def _install_plugin(root: pathlib.Path) -> None:
    (root / "demo_exir_plugin").mkdir()
    (root / "demo_exir_plugin" / "__init__.py").write_text(PLUGIN)
    info = root / "demo_exir_plugin-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: demo-exir-plugin\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent(
            """\
            [xdsl.universe]
            demo = demo_exir_plugin:DEMO_UNIVERSE
            """
        )
    )


INPUT = pathlib.Path(__file__).parent / "filecheck" / "frontends" / "inputs" / "tiny_core.pt2"


def _exir_opt(extra_path: pathlib.Path | None, *args: str) -> str:
    env = dict(os.environ)
    if extra_path is not None:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(extra_path), env.get("PYTHONPATH", "")) if p)
    result = subprocess.run(
        [sys.executable, "-m", "xdsl_exir.tools.exir_opt", *args],
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_plugin_passes_are_grouped_under_their_distribution(tmp_path: pathlib.Path) -> None:
    _install_plugin(tmp_path)
    text = _exir_opt(tmp_path, "--list-passes")
    head, _, stock = text.partition("xDSL's passes")
    ours, _, plugin = head.partition("Passes of demo-exir-plugin")
    assert "optimize-inference" in ours and "demo-count-ops" not in ours
    assert "    demo-count-ops           Counts the ops of the module (a downstream example pass)." in plugin
    assert "      verbose: true or false = false" in plugin
    assert "demo-count-ops" not in stock and "apply-pdl" in stock


def test_without_plugins_only_ours_and_xdsls_are_listed() -> None:
    text = _exir_opt(None, "--list-passes")
    assert text.count("Passes of ") == 1  # xdsl-exir's; xDSL's own entry point is not a plugin
    assert "Passes of xdsl " not in text


def test_plugin_pass_and_target_run(tmp_path: pathlib.Path) -> None:
    """What the README promises: `-p` and `--emit` take the plugin's pass and target."""
    _install_plugin(tmp_path)
    text = _exir_opt(tmp_path, str(INPUT), "-p", "demo-count-ops", "--emit", "demo-op-names")
    count, _, names = text.partition(" ops\n")
    assert names.splitlines()[:2] == ["builtin.module", "exir.program"]
    assert int(count) == len(names.splitlines())
