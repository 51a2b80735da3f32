"""What the names of a script mean before any source is read: the modules the
frontend knows (`torch`, `torch.nn.functional`, `math`, ...), their conventional
aliases, the typing names, dtype/layout/memory-format constants, Python
builtins and the exceptions a script may raise.

Kept apart so that name resolution (`source`) and the SugaredValues that
desugar attribute lookups (`sugared`) read the same tables.
"""

from __future__ import annotations

import math

from xdsl.ir import Attribute

from xdsl_exir.dialects.ts import DTYPE_CODES, TSBoolType, TSComplexType, TSFloatType, TSIntType, TSStrType

MODULES = {
    "torch",
    "torch.nn",
    "torch.nn.functional",
    "torch.jit",
    "torch.linalg",
    "torch.fft",
    "torch.special",
    "math",
    "typing",
}
DEFAULT_ALIASES = {"torch": "torch", "F": "torch.nn.functional", "math": "math", "nn": "torch.nn"}
TYPING_NAMES = {"List", "Dict", "Tuple", "Optional", "Union", "Any", "Final"}

DTYPES: dict[str, int] = {d.name: i for i, d in enumerate(DTYPE_CODES) if d is not None}
DTYPES.update(
    {"float": 6, "double": 7, "half": 5, "long": 4, "int": 3, "short": 2, "cfloat": 9, "cdouble": 10, "chalf": 8}
)
LAYOUTS = {"strided": 0, "sparse_coo": 1, "sparse_csr": 2}
MEMORY_FORMATS = {"contiguous_format": 0, "preserve_format": 1, "channels_last": 2, "channels_last_3d": 3}
MATH_CONSTANTS = {"pi": math.pi, "e": math.e, "inf": math.inf, "nan": math.nan, "tau": math.tau}

EXCEPTIONS = {
    "Exception", "ValueError", "RuntimeError", "TypeError", "IndexError", "KeyError", "AssertionError",
    "NotImplementedError", "ZeroDivisionError", "StopIteration", "ArithmeticError", "AttributeError",
    "OverflowError", "LookupError", "ImportError",
}

PY_BUILTINS = {
    "len": "aten::len", "abs": "prim::abs", "min": "prim::min", "max": "prim::max", "print": "prim::Print",
    "list": "aten::list", "sorted": "aten::sorted", "round": "aten::round", "divmod": "aten::divmod",
    "pow": "aten::pow", "ord": "aten::ord", "chr": "aten::chr", "hash": "aten::hash", "all": "aten::all",
    "any": "aten::any", "sum": "aten::sum", "hex": "aten::hex", "oct": "aten::oct", "bin": "aten::bin",
}
CASTS: dict[str, tuple[Attribute, str]] = {
    "int": (TSIntType(), "aten::Int"),
    "float": (TSFloatType(), "aten::Float"),
    "bool": (TSBoolType(), "aten::Bool"),
    "str": (TSStrType(), "aten::str"),
    "complex": (TSComplexType(), "aten::Complex"),
}
_UNSUPPORTED_BUILTINS = {
    "getattr", "hasattr", "setattr", "super", "type", "open", "iter", "next", "map", "filter", "vars",
    "globals", "locals", "eval", "exec", "id", "callable", "set", "frozenset", "dict", "tuple", "object",
}
