"""
Targets of xdsl-exir: what `exir-opt --emit FORMAT` (or `-t FORMAT`) writes.

* `mlir`: MLIR text, xDSL's target with the weights' resources one a line and
  mlir-opt's option to elide large ones (`mlir_text`); `exir-opt` puts it in
  place of xDSL's (a universe may not define a target twice);
* `fx`: the FX graph text torch prints for the program (`fx_text`);
* `python`: a standalone numpy module computing the program (`python_source`);
* `torchscript-python`: TorchScript programs as torch's Python printer writes
  them (`ScriptModule.code`, `torchscript_python`);
* `torchscript`: TorchScript graphs as torch prints them (`str(graph)`, `torchscript_dump_printer`);
* `dot` / `svg`: a picture of the program at any stage, as Graphviz text or
  rendered by Graphviz's `dot` (`dot`);
* `iree-bundle`: a compiled artifact, a directory that `xdsl_exir.runtime.load`
  and `exir-run` run without the compiler (`iree_bundle`; `-o DIR` names it).

Each is an xDSL `Target`, registered by name with a factory that imports its
module only when the target is used.
"""

from collections.abc import Callable

from xdsl.utils.target import Target


def get_mlir_target() -> type[Target]:
    from xdsl_exir.targets.mlir_text import MLIRTarget

    return MLIRTarget


def get_fx_target() -> type[Target]:
    from xdsl_exir.targets.fx_text import FxTarget

    return FxTarget


def get_python_target() -> type[Target]:
    from xdsl_exir.targets.python_source import PythonTarget

    return PythonTarget


def get_torchscript_python_target() -> type[Target]:
    from xdsl_exir.targets.torchscript_python import TorchScriptPythonTarget

    return TorchScriptPythonTarget


def get_torchscript_target() -> type[Target]:
    from xdsl_exir.targets.torchscript_dump_printer import TorchScriptTarget

    return TorchScriptTarget


def get_dot_target() -> type[Target]:
    from xdsl_exir.targets.dot import DotTarget

    return DotTarget


def get_svg_target() -> type[Target]:
    from xdsl_exir.targets.dot import SvgTarget

    return SvgTarget


def get_iree_bundle_target() -> type[Target]:
    from xdsl_exir.targets.iree_bundle import IreeBundleTarget

    return IreeBundleTarget


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Target name -> factory of its `Target` class (xDSL's registration shape)."""
    return {
        "fx": get_fx_target,
        "python": get_python_target,
        "torchscript-python": get_torchscript_python_target,
        "torchscript": get_torchscript_target,
        "dot": get_dot_target,
        "svg": get_svg_target,
        "iree-bundle": get_iree_bundle_target,
    }
