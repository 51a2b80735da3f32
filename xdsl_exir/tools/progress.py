"""
A progress line on stderr for what takes a while (imports, loading, pipelines, runs).

Quick steps print nothing: the line appears after a second, is redrawn in place
with the seconds spent, and is erased when the step ends. Nothing at all is
written when stderr is not a terminal (a log, a pipe, a test) or when
`EXIR_NO_PROGRESS` is set. Standard library only, so the command lines can use
it before their heavy imports.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["progress"]

_PROGRESS_DELAY = 1.0
"""Seconds before a step shows its progress line: quick steps print nothing."""


_steps: list[str] = []
"""The labels of the steps under way, outermost first: nested steps (a pipeline while
loading) share the outermost step's line, which shows the innermost label."""


@contextmanager
def progress(label: str, stream: Any = None) -> Iterator[None]:
    """
    `label` and the seconds spent on it, redrawn on one line of stderr while the
    step lasts longer than a second; erased when it ends. Nothing at all when
    stderr is not a terminal (a log, a pipe, a test) or `EXIR_NO_PROGRESS` is set.
    """
    out = sys.stderr if stream is None else stream
    if os.environ.get("EXIR_NO_PROGRESS") or not _is_terminal(out):
        yield
        return
    _steps.append(label)
    if len(_steps) > 1:  # the outer step's line shows this one
        try:
            yield
        finally:
            _steps.pop()
        return
    done = threading.Event()
    start = time.monotonic()
    shown = [False]

    def draw() -> None:
        if done.wait(_PROGRESS_DELAY):
            return
        while not done.is_set():
            current = _steps[-1] if _steps else label
            out.write(f"\r\x1b[2K{current} ... {time.monotonic() - start:.1f} s")
            out.flush()
            shown[0] = True
            done.wait(0.2)

    thread = threading.Thread(target=draw, name="exir-progress", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        _steps.clear()
        if shown[0]:
            out.write("\r\x1b[2K")
            out.flush()


def _is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False
