"""
Third-party modules loaded on first use rather than on `import`.

sympy takes a few tenths of a second to import and is only needed when a program
has symbolic sizes, yet the dialects name it everywhere (`SymSize = int |
sympy.Expr`). `lazy("sympy")` returns a module object made by the standard
library's `importlib.util.LazyLoader` and registered in `sys.modules`: binding it
costs nothing, and the first attribute read (`sympy.Integer`) runs the real
import, after which the object is the ordinary, fully loaded module. A module
that names sympy imports `sympy` under `TYPE_CHECKING` (so pyright types it as
usual) and binds the lazy object at run time (`utils/symbolic.py` does it once
for all), and touches sympy only inside functions. A plain `import sympy`
statement loads it (the import system reads the module's `__spec__`).
`is_loaded` tells whether the import has happened, so a test can check that a
static-shape program never needed it.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

__all__ = ["is_loaded", "lazy"]


def lazy(name: str) -> ModuleType:
    """The module `name`, imported when one of its attributes is first read."""
    module = sys.modules.get(name)
    if module is not None:
        return module
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        raise ModuleNotFoundError(f"No module named '{name}'", name=name)
    loader = importlib.util.LazyLoader(spec.loader)
    spec.loader = loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    loader.exec_module(module)
    return module


def is_loaded(name: str) -> bool:
    """Whether `name` has really been imported (not merely bound lazily)."""
    module = sys.modules.get(name)
    # a lazy module is of LazyLoader's own ModuleType subclass until its first attribute read
    return module is not None and type(module) is ModuleType
