"""PyTorch's Export IR and TorchScript IR as xDSL dialects."""

__version__ = "0.1.0"

from xdsl_exir.utils import xdsl_fixes

xdsl_fixes.apply()  # fixes of the pinned xDSL every user of these dialects needs (see the module)
