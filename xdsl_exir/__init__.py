"""PyTorch's Export IR and TorchScript IR as xDSL dialects."""

from typing import Any

from xdsl_exir.utils.interrupts import quiet_start_up

quiet_start_up()  # first: a Ctrl-C while xDSL loads ends a tool quietly (see the module)

from xdsl_exir.utils.op_registry import register_kernel  # noqa: E402 - after the Ctrl-C handler

__version__ = "0.1.0"

try:
    from xdsl_exir.utils import xdsl_fixes
except ModuleNotFoundError as e:  # a compiled artifact's runtime (`xdsl_exir.runtime`) runs without xDSL
    if e.name != "xdsl" and not (e.name or "").startswith("xdsl."):
        raise
else:
    xdsl_fixes.apply()  # fixes of the pinned xDSL every user of these dialects needs (see the module)

_API = ("CompiledProgram", "ExirError", "Profile", "Program", "compile", "load", "parse")
"""
The Python API (`xdsl_exir/api.py`, whose `__all__` is the stable surface), also
reachable here: `xdsl_exir.load("m.pt2")`. Not in this `__all__`: a star import
would load it all.
"""

__all__ = ["__version__", "register_kernel"]


def __getattr__(name: str) -> Any:
    # PEP 562: the API (and the dialects, kernels and sympy behind it) is imported on
    # first use, so `import xdsl_exir` stays cheap.
    if name in _API:
        from xdsl_exir import api

        return getattr(api, name)
    raise AttributeError(f"module 'xdsl_exir' has no attribute '{name}'")
