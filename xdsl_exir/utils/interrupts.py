"""
Ctrl-C in the tools, from the first line of the package on.

A console script (`exir-opt`, `exir-run`) imports `xdsl_exir` before anything
of its own, and the package's import loads xDSL: a second of start-up on an
idle machine, many under load. A Ctrl-C there would print a `KeyboardInterrupt`
traceback from inside an import. So the package's `__init__` calls
`quiet_start_up` first: when the process is one of the tools, SIGINT ends it at
once, quietly, with exit code 130 (nothing is written yet); the tool's `run`
then calls `accept_interrupts`, from which on Ctrl-C raises `KeyboardInterrupt`
and the tool cleans up and says "interrupted".

A process started with SIGINT ignored (a background job of a non-interactive
shell, which must survive the Ctrl-C meant for its foreground) keeps it
ignored throughout, as POSIX programs and Python itself do; taking SIGINT over
part way through would make a Ctrl-C lost in start-up and honoured in a parse.
Only the standard library is imported here.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

INTERRUPTED = 130
"""The exit code of a run ended by Ctrl-C (128 + SIGINT), as shells report it."""

TOOL_NAMES = ("exir-opt", "exir-run")


def _interrupted_while_starting(signum: int, frame: FrameType | None) -> None:
    sys.stderr.write(f"{os.path.basename(sys.argv[0])}: interrupted\n")
    os._exit(INTERRUPTED)  # nothing to clean up yet


def _may_take_sigint() -> bool:
    return threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGINT) not in (
        signal.SIG_IGN,
        None,  # a handler installed outside Python: not ours to replace
    )


def quiet_start_up() -> None:
    """In a tool's process: Ctrl-C from now until `accept_interrupts` exits quietly with 130."""
    if sys.argv and os.path.basename(sys.argv[0]) in TOOL_NAMES and _may_take_sigint():
        signal.signal(signal.SIGINT, _interrupted_while_starting)


def accept_interrupts() -> None:
    """From now on Ctrl-C raises `KeyboardInterrupt` (the tool's `run` reports it)."""
    if threading.current_thread() is threading.main_thread():
        if signal.getsignal(signal.SIGINT) is _interrupted_while_starting:
            signal.signal(signal.SIGINT, signal.default_int_handler)
