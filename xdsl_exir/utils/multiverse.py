"""
xDSL's collection of every installed `xdsl.universe` (dialects, passes and
targets that installed packages declare), read once per `sys.path`.
"""

import sys

from xdsl.universe import Universe

_MULTIVERSES: dict[tuple[str, ...], Universe] = {}


def multiverse() -> Universe:
    """
    xDSL's `Universe.get_multiverse()` (the dialects, passes and targets every
    installed `xdsl.universe` entry point declares), read once per `sys.path`.
    xDSL reads the entry points again on each call, about 11 ms, and an
    `ExirOptMain` asks three times (dialects, passes, targets), a lowering to
    linalg once: a third of an in-process run on a small file. What is installed
    can change only with `sys.path` within a process, so the path is the key.
    """
    key = tuple(sys.path)
    found = _MULTIVERSES.get(key)
    if found is None:
        found = _MULTIVERSES[key] = Universe.get_multiverse()
    return found
