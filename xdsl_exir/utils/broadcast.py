"""
Broadcasting of sizes that may be symbolic: the one implementation the
inference rules, the decompositions, the lowering and the TorchScript
builtins share (torch's rule, "Broadcasting semantics" in torch's notes).

Sizes are aligned from the right; two sizes agree when equal or when one is 1.
A symbol against a constant other than 1 takes the constant: torch.export
guards the symbol to it (it specializes the symbol, or refuses to export a
dimension marked dynamic), so a program torch exported never needs another
answer, and a run with another size fails in the kernel as torch's would. Two
different symbols cannot be decided without a guard torch would record: that is
`UndecidedBroadcast`, for the caller to refuse with the operator's name.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl_exir.utils.symbolic import SymSize, sympy

__all__ = ["BroadcastError", "UndecidedBroadcast", "broadcast_shapes", "same_size"]


class BroadcastError(ValueError):
    """Sizes that never broadcast (two constants, neither 1, that differ)."""


class UndecidedBroadcast(ValueError):
    """Two different symbolic sizes: whether they broadcast depends on values torch would guard."""


def same_size(a: SymSize, b: SymSize) -> bool:
    """`a == b` for ints and sympy expressions, without sympy's slow comparison against an int."""
    if a is b:
        return True
    if type(a) is int and type(b) is int:
        return a == b
    if type(a) is int or type(b) is int:
        return False  # normalized: a constant is never a non-constant expression
    return a == b or sympy.expand(a - b) == 0


def broadcast_shapes(*shapes: Sequence[SymSize]) -> list[SymSize]:
    """The broadcast of `shapes` (normalized sizes: plain ints for constants)."""
    rank = max((len(s) for s in shapes), default=0)
    out: list[SymSize] = [1] * rank
    for shape in shapes:
        offset = rank - len(shape)
        for i, s in enumerate(shape):
            cur = out[offset + i]
            if type(cur) is int and cur == 1:
                out[offset + i] = s
            elif (type(s) is int and s == 1) or same_size(cur, s):
                continue
            elif type(cur) is int and type(s) is int:
                raise BroadcastError(f"shapes {[list(x) for x in shapes]} do not broadcast")
            elif type(s) is int:
                out[offset + i] = s  # the symbol `cur` is guarded to the constant
            elif type(cur) is not int:
                raise UndecidedBroadcast(f"cannot decide whether {cur} and {s} broadcast")
    return out
