"""
The shim lit's `RUN` lines start in place of a served tool (`tool_server.py`).

`tool_client.py SOCKET SCRIPT ARGS...` sends its arguments, working directory,
environment, umask and standard streams to the server listening on SOCKET,
forwards SIGINT, SIGTERM and SIGHUP to the tool's process, and ends as that
process ended: its exit code, or killed by its signal. Where no server answers
(or it fails before starting the tool) it runs SCRIPT itself. It runs with
`python -I -S` and imports only what it needs from the standard library.
"""

import json
import os
import signal
import socket
import sys

HEADER = 8  # as tool_server.HEADER


def _lines(conn: socket.socket) -> list[str]:
    """The server's replies so far, up to the end of the connection: the tool's process id, then its status."""
    data = b""
    while True:
        more = conn.recv(64)
        if not more:
            return data.decode().split()
        data += more


def main() -> None:
    address, script, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    umask = os.umask(0o022)  # reading the umask means setting it
    os.umask(umask)
    request = json.dumps({"args": args, "cwd": os.getcwd(), "env": dict(os.environ), "umask": umask}).encode()
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        conn.connect(address)
        socket.send_fds(conn, [len(request).to_bytes(HEADER, "big")], [0, 1, 2])
        conn.sendall(request)
    except OSError:
        conn.close()
        os.execv(script, [script, *args])
    child: list[int] = []

    def forward(signum: int, frame: object) -> None:
        if child:
            os.kill(child[0], signum)

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, forward)
    data = b""
    while b"\n" not in data:
        more = conn.recv(64)
        if not more:  # the server started nothing
            conn.close()
            os.execv(script, [script, *args])
        data += more
    child.append(int(data.split(b"\n", 1)[0]))
    replies = (data.split(b"\n", 1)[1].decode().split()) + _lines(conn)
    if not replies:
        sys.stderr.write(f"{os.path.basename(script)}: lit's tool server lost the process it started\n")
        os._exit(1)
    status = int(replies[0])
    if status >= 0:
        os._exit(status)
    signal.signal(-status, signal.SIG_DFL)
    os.kill(os.getpid(), -status)
    os._exit(128 - status)


main()
