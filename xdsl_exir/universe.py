"""
The `xdsl.universe` entry point: makes every dialect and pass of xdsl-exir
and the `fx` / `python` targets available to the stock `xdsl-opt` (and to anything
using xDSL's Multiverse); and `multiverse()`, xDSL's collection of every
installed universe as the tools read it, once per process.
"""

import sys

from xdsl.universe import Universe

from xdsl_exir.dialects.registry import get_all_dialects
from xdsl_exir.targets.registry import get_all_targets
from xdsl_exir.transforms.registry import get_all_passes

EXIR_UNIVERSE = Universe(
    all_dialects=get_all_dialects(), all_passes=get_all_passes(), all_targets=get_all_targets()
)

_MULTIVERSES: dict[tuple[str, ...], Universe] = {}


def multiverse() -> Universe:
    """
    xDSL's `Universe.get_multiverse()` (the dialects, passes and targets every
    installed `xdsl.universe` entry point declares), read once per `sys.path`.
    xDSL reads the entry points again on each call, about 11 ms, and an
    `ExirOptMain` asks three times (dialects, passes, targets): a third of an
    in-process run on a small file. What is installed can change only with
    `sys.path` within a process, so the path is the key.
    """
    key = tuple(sys.path)
    found = _MULTIVERSES.get(key)
    if found is None:
        found = _MULTIVERSES[key] = Universe.get_multiverse()
    return found
