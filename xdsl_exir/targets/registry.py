"""
The targets of xdsl-exir, registered lazily by name (the package's docstring lists them).
The registry is a module of its own, not the package's `__init__`, because every target
module loads its package first: factories in the package would make each target depend,
through them, on every other.
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
