"""
Tools of xdsl-exir.

A console script imports this package before the heavy modules (xDSL, numpy,
the dialects): a Ctrl-C while they load would print a `KeyboardInterrupt`
traceback. So when the process is one of our tools, SIGINT first ends it
quietly with exit code 130; each tool's `run` then hands Ctrl-C back to
Python (`accept_interrupts`) and turns the `KeyboardInterrupt` into the same
one-line message after cleaning up.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

INTERRUPTED = 130
"""The exit code of a run ended by Ctrl-C (128 + SIGINT), as shells report it."""

_TOOL_NAMES = ("exir-opt", "exir-run")


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    sys.stderr.write(f"{os.path.basename(sys.argv[0])}: interrupted\n")
    os._exit(INTERRUPTED)  # nothing to clean up yet


def accept_interrupts() -> None:
    """From now on Ctrl-C raises `KeyboardInterrupt` (the tool's `run` reports it)."""
    if threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
            signal.signal(signal.SIGINT, signal.default_int_handler)


if os.path.basename(sys.argv[0]) in _TOOL_NAMES and threading.current_thread() is threading.main_thread():
    signal.signal(signal.SIGINT, _interrupted_while_starting)
