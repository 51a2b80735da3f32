"""
Targets of xdsl-exir: what `exir-opt --emit FORMAT` (or `-t FORMAT`) writes.

* `fx`: the FX graph text torch prints for the program (`fx_text`);
* `python`: a standalone numpy module computing the program (`python_source`);
* `torchscript-python`: TorchScript programs as torch's Python printer writes
  them (`ScriptModule.code`, `torchscript_python`);
* `torchscript`: TorchScript graphs as torch prints them (`str(graph)`, `torchscript_dump_printer`).

Each is an xDSL `Target`, registered by name with a factory that imports its
module only when the target is used.
"""

from collections.abc import Callable

from xdsl.utils.target import Target


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


def get_all_targets() -> dict[str, Callable[[], type[Target]]]:
    """Target name -> factory of its `Target` class (xDSL's registration shape)."""
    return {
        "fx": get_fx_target,
        "python": get_python_target,
        "torchscript-python": get_torchscript_python_target,
        "torchscript": get_torchscript_target,
    }
