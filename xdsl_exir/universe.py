"""
The `xdsl.universe` entry point: makes every dialect and pass of xdsl-exir
and the `fx` / `python` targets available to the stock `xdsl-opt` (and to anything
using xDSL's Multiverse; the tools read that once per process, `utils.multiverse`).
"""

from xdsl.universe import Universe

from xdsl_exir.dialects.registry import get_all_dialects
from xdsl_exir.targets.registry import get_all_targets
from xdsl_exir.transforms.registry import get_all_passes

EXIR_UNIVERSE = Universe(
    all_dialects=get_all_dialects(), all_passes=get_all_passes(), all_targets=get_all_targets()
)
