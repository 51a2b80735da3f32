"""
Pre-started tool processes for lit: each `RUN` line's `exir-opt` is a fork of one.

Most of a `RUN` line's time was the start of its tools: a fresh `exir-opt`
spends about 0.4 s of CPU importing xDSL, numpy and the package before it reads
its input (0.5 s more for sympy when sizes are symbolic), `filecheck` about
0.07 s, and the suite starts some 500 of them. So `start` (called by
`lit.cfg.py`) starts one server per console script, which runs that script's
own import (`from xdsl_exir.tools.exir_opt import main`) and then the modules
in `ON_DEMAND`, and puts shims for those tools first on the tests' `PATH`. A
shim (`tool_client.py`) hands its argument list, working directory,
environment, umask and standard streams (the file descriptors themselves) to
its server; the server forks, and the child makes itself that process
(streams, directory, environment, `sys.argv`, `sys.path[0]` of the console
script) and runs `sys.exit(main())` at the top level of this module, as the
script would: the same exit code, the same uncaught-exception report, the same
interpreter exit. The shim exits with the child's status (or dies of the
child's signal) and forwards SIGINT, SIGTERM and SIGHUP to it.

What differs from a fresh process: the child shares its server's hash seed,
and finds imported what its server imported (the console script's import,
`ON_DEMAND`, the few standard-library modules of this file), under the same
environment, which lit fixes for every test (a `RUN` line that sets a
`PYTHON...` variable, which an interpreter reads as it starts, gets a fresh
process). A console script's own start (the `xdsl_exir` package's import,
what `--help` loads, the entry points) is checked by the pytest tests that
start the tools as subprocesses (`tests/test_tools.py`). `EXIR_LIT_FRESH_PROCESSES=1` turns the servers off:
every `RUN` line then starts its tools afresh.

The servers end when lit does (they watch a pipe that only lit's processes
hold) and remove their directory; lit waits for them, so that `time lit`
counts the CPU time of every tool run. A shim whose server is gone runs the
real tool.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import io
import json
import os
import select
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

TOOLS = {
    "exir-opt": "xdsl_exir.tools.exir_opt",
    "exir-run": "xdsl_exir.tools.exir_run",
    "xdsl-opt": "xdsl.tools.xdsl_opt",
    "filecheck": "filecheck.main",
}
"""Each served console script and the module whose `main` it calls (its `[project.scripts]` entry)."""

ON_DEMAND = {
    "exir-opt": ("sympy", "xdsl_exir.dialects.exir", "xdsl_exir.dialects.aten", "xdsl_exir.dialects.ts"),
    "exir-run": ("sympy", "xdsl_exir.dialects.exir", "xdsl_exir.dialects.aten", "xdsl_exir.dialects.ts"),
}
"""
Modules most runs of the tool import on demand, imported by its server after the
tool's own: sympy (0.5 s of CPU time; the package binds it lazily, and only
`lazy_modules.is_loaded` can tell the difference) and the dialects' definitions
(their import registers nothing: a context loads a dialect by name when the
input names it, served or not).
"""

CLIENT = Path(__file__).with_name("tool_client.py")
HEADER = 8
"""Bytes of the request's length prefix."""


def start(config: Any) -> None:
    """
    From `lit.cfg.py`: start the servers of the tools the tests' `PATH` finds in
    this interpreter's own scripts folder, and put their shims first on that
    `PATH`. Tools found elsewhere, or a platform without `fork` and descriptor
    passing, keep their ordinary processes.
    """
    if os.environ.get("EXIR_LIT_FRESH_PROCESSES") or not hasattr(socket, "send_fds") or not hasattr(os, "fork"):
        return
    env = dict(config.environment)
    path = env.get("PATH", "")
    scripts = Path(sys.executable).parent
    served = [tool for tool in TOOLS if (found := shutil.which(tool, path=path)) and Path(found).parent == scripts]
    if not served:
        return
    folder = Path(tempfile.mkdtemp(prefix="exir-lit-tools-"))
    if os.statvfs(folder).f_flag & os.ST_NOEXEC:  # the shims could not run from there
        folder.rmdir()
        return
    # The servers exit when this pipe's write end closes: lit's process holds it until it ends.
    lifeline_read, lifeline_write = os.pipe()
    servers: list[subprocess.Popen[bytes]] = []
    for tool in served:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        address = str(folder / f"{tool}.sock")
        listener.bind(address)
        listener.listen(64)
        server = subprocess.Popen(
            [sys.executable, __file__, tool, str(listener.fileno()), str(lifeline_read), str(folder)],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            pass_fds=(listener.fileno(), lifeline_read),
            start_new_session=True,  # a Ctrl-C at lit's terminal reaches the shims, which forward it
        )
        servers.append(server)
        listener.close()  # the server holds it now: once that one is gone, connecting fails at once
        shim = folder / tool
        shim.write_text(
            "#!/bin/sh\nexec "
            + " ".join(shlex.quote(str(word)) for word in (sys.executable, "-I", "-S", CLIENT, address, scripts / tool))
            + ' "$@"\n',
            encoding="utf-8",
        )
        shim.chmod(0o755)
    os.close(lifeline_read)
    config.environment["PATH"] = f"{folder}{os.pathsep}{path}"

    def stop() -> None:
        # lit's worker processes (forks of this one) hold the write end too; they have ended by now
        os.close(lifeline_write)
        for server in servers:  # waited for, so that their CPU time counts in lit's
            server.wait()

    atexit.register(stop)


def _receive(conn: socket.socket) -> tuple[dict[str, Any], list[int]]:
    header, fds, _, _ = socket.recv_fds(conn, HEADER, 3)
    while len(header) < HEADER:  # a stream socket may cut the prefix short
        more = conn.recv(HEADER - len(header))
        if not more:
            raise EOFError
        header += more
    size = int.from_bytes(header, "big")
    data = bytearray()
    while len(data) < size:
        more = conn.recv(size - len(data))
        if not more:
            raise EOFError
        data += more
    return json.loads(data), fds


def _start_variables(env: Mapping[str, str]) -> dict[str, str]:
    """The environment an interpreter reads as it starts (`PYTHONWARNINGS`, `PYTHONHASHSEED`, ...)."""
    return {name: value for name, value in env.items() if name.startswith("PYTHON")}


def _reap(signum: int = 0, frame: object = None) -> None:
    """Wait for the handlers that have ended (waited for, their CPU time counts in lit's, as `time lit` reports)."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _serve(listener: socket.socket, lifeline: int) -> tuple[dict[str, Any], list[int]]:
    """
    Accept requests until lit ends (then wait for the last handlers and exit).
    Returns only in a request's child, with the request, for the top level to
    run the tool.
    """
    signal.signal(signal.SIGCHLD, _reap)
    while True:
        ready, _, _ = select.select([listener, lifeline], [], [])
        if lifeline in ready:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            with contextlib.suppress(ChildProcessError):
                while True:
                    os.wait()
            raise SystemExit(0)
        conn, _ = listener.accept()
        if os.fork() != 0:
            conn.close()
            continue
        # The handler: start the tool's child, then wait for it and report its status to the shim.
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        try:
            listener.close()
            os.close(lifeline)
            request, fds = _receive(conn)
            if _start_variables(request["env"]) != _start_variables(os.environ):
                os._exit(1)  # an interpreter started under these would differ from this one
            child = os.fork()
        except BaseException:
            os._exit(1)  # nothing ran: the shim, seeing no process id, runs the real tool
        if child == 0:
            conn.close()
            return request, fds
        try:
            for fd in fds:
                os.close(fd)
            conn.sendall(f"{child}\n".encode())
            _, status = os.waitpid(child, 0)
            conn.sendall(f"{os.waitstatus_to_exitcode(status)}\n".encode())
        finally:
            os._exit(0)


def _std_stream(fd: int, like: TextIO) -> io.TextIOWrapper:
    """A standard stream on `fd` as the interpreter's start makes it (line-buffered on a terminal, stderr always)."""
    raw = io.FileIO(fd, "r" if fd == 0 else "w", closefd=False)
    buffer = io.BufferedReader(raw) if fd == 0 else io.BufferedWriter(raw)
    line_buffering = fd == 2 or raw.isatty()
    return io.TextIOWrapper(buffer, like.encoding, like.errors, newline="\n", line_buffering=line_buffering)


def _become(request: dict[str, Any], fds: list[int], script: str) -> None:
    """In the request's child: take the shim's streams, directory, environment and arguments."""
    for target, fd in enumerate(fds):
        if fd != target:
            os.dup2(fd, target)
            os.close(fd)
    sys.stdin = sys.__stdin__ = _std_stream(0, sys.stdin)
    sys.stdout = sys.__stdout__ = _std_stream(1, sys.stdout)
    sys.stderr = sys.__stderr__ = _std_stream(2, sys.stderr)
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    sys.argv = [script, *request["args"]]


if __name__ == "__main__":
    tool, listener_fd, lifeline_fd, folder = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    script = str(Path(sys.executable).parent / tool)
    sys.path[0] = str(Path(script).parent)  # the console script's own first entry
    import importlib

    entry = importlib.import_module(TOOLS[tool]).main  # what the console script imports before `main()`
    for name in ON_DEMAND.get(tool, ()):
        importlib.import_module(name)
    sys.stdout.flush()
    sys.stderr.flush()
    gc.freeze()  # the import's objects: no collection in a child walks (and so copies) their pages
    try:
        request, fds = _serve(socket.socket(fileno=listener_fd), lifeline_fd)
    except SystemExit:
        if os.path.isdir(folder):
            shutil.rmtree(folder, ignore_errors=True)
        raise
    _become(request, fds, script)
    sys.exit(entry())
