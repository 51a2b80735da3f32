"""
The command-line tools called in the test process; tests import this module, it is
not a test.

`exir_opt(...)` and `exir_run(...)` call the tool's `run(argv)` with its standard
streams captured, and answer as `subprocess.run` would: the exit code and the text
a process would give, without an interpreter's start and the tool's imports (1.5-2 s
of CPU each). A test whose subject is the process itself (the console script's exit
status, stdin, what a fresh interpreter imports, an environment without a module, a
limit that would otherwise be tried on the test process) starts a real one.
"""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from collections.abc import Callable, Iterator, Mapping, Sequence

from xdsl_exir.tools import exir_opt as exir_opt_tool
from xdsl_exir.tools import exir_run as exir_run_tool


def in_process(
    tool: Callable[[Sequence[str]], int], args: Sequence[str], env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`tool(args)` here, its streams captured; `env` are variables set for the call only."""
    out, err = io.StringIO(), io.StringIO()
    with _environment(env or {}), contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = tool(list(args))
        except SystemExit as e:  # as the interpreter maps it
            code = e.code if isinstance(e.code, int) else int(e.code is not None)
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())


def exir_opt(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`exir-opt ARGS`, in this process."""
    return in_process(exir_opt_tool.run, args, env)


def exir_run(*args: str, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`exir-run ARGS`, in this process."""
    return in_process(exir_run_tool.run, args, env)


@contextlib.contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
