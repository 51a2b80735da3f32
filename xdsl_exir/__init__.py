"""PyTorch's Export IR and TorchScript IR as xDSL dialects."""

__version__ = "0.1.0"

from xdsl_exir.utils import xdsl_fixes

xdsl_fixes.apply()  # fixes of the pinned xDSL every user of these dialects needs (see the module)

from xdsl_exir.utils.op_registry import register_kernel  # noqa: E402 - after xdsl_fixes.apply(), which every import of the package needs first

__all__ = ["__version__", "register_kernel"]
