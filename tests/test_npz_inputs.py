"""
`.npz` inputs through `utils/npz.py`: the archive `np.savez()` writes for a
program without inputs (an empty zip, only its end-of-central-directory record)
is read as no arrays, and `exir-run` runs a zero-input program from it.
"""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from tool_calls import exir_run

from xdsl_exir.utils.npz import NpzError, read_npz


def test_empty_savez_reads_as_no_arrays(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "empty.npz"
    np.savez(path)
    assert path.read_bytes()[:4] == b"PK\x05\x06"
    assert read_npz(str(path)) == {}


@pytest.mark.parametrize("data", [b"PK\x05\x06", b"PK\x05\x06" + b"\0" * 10, b"PK\x01\x02"])
def test_truncated_or_foreign_archives_are_refused(tmp_path: pathlib.Path, data: bytes) -> None:
    path = tmp_path / "bad.npz"
    path.write_bytes(data)
    with pytest.raises(NpzError, match="bad.npz"):
        read_npz(str(path))


def test_exir_run_zero_input_program_from_empty_npz(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "const.py"
    src.write_text("def f() -> int:\n    return 6 * 7\n")
    inputs = tmp_path / "empty.npz"
    np.savez(inputs)
    result = exir_run(str(src), "--from", "script", "--inputs", str(inputs))
    assert result.returncode == 0, result.stderr
    assert "42" in result.stdout
