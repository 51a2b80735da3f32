"""
Tools of xdsl-exir.

Ctrl-C: the package's `__init__` makes SIGINT end a tool quietly with exit
code 130 while it starts (`xdsl_exir.utils.interrupts`); each tool's `run`
then hands Ctrl-C back to Python (`accept_interrupts`) and turns the
`KeyboardInterrupt` into the same one-line message after cleaning up.
"""

from __future__ import annotations

import argparse
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType

from xdsl_exir.utils.interrupts import INTERRUPTED as INTERRUPTED  # the tools' import place
from xdsl_exir.utils.interrupts import accept_interrupts as accept_interrupts


def seconds(text: str) -> float:
    """argparse type of both tools' `--timeout`: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not 0 < value < 1e9:
        raise argparse.ArgumentTypeError(f"not a positive number of seconds: {text!r}")
    return value


class RunTimeout(BaseException):
    """
    Raised by the `--timeout` alarm. A BaseException, so that no `except
    Exception` on the way (kernels and passes wrap their failures) mistakes it
    for an error of the program.
    """


class TimeoutUnavailable(Exception):
    """`--timeout` where no SIGALRM timer can serve (not POSIX, or not the main thread)."""


@contextmanager
def time_limit(limit: float | None) -> Iterator[None]:
    """Raise `RunTimeout` in the main thread after `limit` seconds (a SIGALRM timer); both tools' `--timeout`."""
    if limit is None:
        yield
        return
    if not hasattr(signal, "setitimer") or threading.current_thread() is not threading.main_thread():
        raise TimeoutUnavailable("--timeout needs a POSIX system and must run in the main thread")

    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise RunTimeout()

    previous = signal.signal(signal.SIGALRM, on_alarm)
    outer, outer_interval = signal.setitimer(signal.ITIMER_REAL, limit)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # a caller's timer (a test harness, say) keeps running
            signal.setitimer(signal.ITIMER_REAL, max(outer - (time.monotonic() - start), 1e-3), outer_interval)
