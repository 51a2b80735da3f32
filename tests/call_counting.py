"""
Cost checks that do not read a clock.

A test that asserts "this takes under N seconds" fails on a loaded machine and passes a
quadratic algorithm on a fast one. Counting the calls an algorithm makes is exact and
repeatable: `calls_made(fn)` is the number of Python and builtin function calls made while
`fn` runs, and `assert_linear(run, sizes)` checks that the count grows by the same amount for
each equal step in the input size (a cost of a + b·n, nothing quadratic). Speed itself is
measured in `benchmarks/`. Tests import this module; it is not a test.
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable
from types import FrameType


def calls_made(fn: Callable[[], object]) -> int:
    """The number of function calls (Python and builtin) made while `fn()` runs."""
    count = 0

    def profile(frame: FrameType, event: str, arg: object) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    # Off while counting: the cyclic collector would run finalizers of earlier garbage at
    # unpredictable moments.
    gc_was_enabled = gc.isenabled()
    gc.disable()
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(previous)
        if gc_was_enabled:
            gc.enable()
    return count


def assert_linear(run: Callable[[int], object], step: int, steps: int = 3) -> list[int]:
    """
    Check that `run(n)` makes a number of calls linear in `n`: run it for n = step, 2·step, …,
    (steps + 1)·step and require every increment to be the same. Runs the largest size once
    first, so that caches filled on first use do not count. Returns the counts, for messages.
    """
    run((steps + 1) * step)
    counts = [calls_made(lambda k=k: run(k * step)) for k in range(1, steps + 2)]
    increments = [b - a for a, b in zip(counts, counts[1:])]
    assert len(set(increments)) == 1, f"calls for {step}, {2 * step}, ... items: {counts} (increments {increments})"
    return counts
