"""
The dialects of xdsl-exir, registered lazily by name. The registry is a module of its own,
not the package's `__init__`, because every dialect module loads its package first: factories
in the package would make each dialect depend, through them, on every other.
"""

from collections.abc import Callable

from xdsl.ir import Dialect


def get_exir() -> Dialect:
    from xdsl_exir.dialects.exir import Exir

    return Exir


def get_aten() -> Dialect:
    from xdsl_exir.dialects.aten import Aten

    return Aten


def get_fx() -> Dialect:
    from xdsl_exir.dialects.fx import FX

    return FX


def get_ts() -> Dialect:
    from xdsl_exir.dialects.ts import TS

    return TS


def get_prim() -> Dialect:
    from xdsl_exir.dialects.prim import Prim

    return Prim


def get_stream() -> Dialect:
    from xdsl_exir.dialects.stream import Stream

    return Stream


def get_all_dialects() -> dict[str, Callable[[], Dialect]]:
    """Name -> factory; a dialect's module is imported only when first used."""
    return {"exir": get_exir, "aten": get_aten, "fx": get_fx, "ts": get_ts, "prim": get_prim, "stream": get_stream}
