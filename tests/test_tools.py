"""exir-opt as a program: exit codes, diagnostics, outputs, xdsl-opt integration."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from xdsl_exir.tools.exir_opt import detect_frontend, run

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "mlp.mlir"


def exir_opt(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xdsl_exir.tools.exir_opt", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_example_runs_and_output_parses_back(tmp_path: pathlib.Path) -> None:
    out = tmp_path / "out.mlir"
    assert run([str(EXAMPLE), "-p", "verify-export-ir", "-o", str(out)]) == 0
    text = out.read_text()
    assert "exir.program" in text
    again = tmp_path / "again.mlir"
    assert run([str(out), "-o", str(again)]) == 0
    assert again.read_text() == text


@pytest.mark.parametrize(
    "content",
    [
        b"\x00\x01\x02\xff",
        b"exir.program inputs [<user_input> outputs [] {",
        b"exir.graph @g() -> () {",
        b"exir.graph @g(%x: !exir.tensor<[s0 floordiv], float32>) -> () { exir.output }",
        "exir.graph @g(%x: !exir.tensor<[\u00e9], float32>) -> () {}".encode(),
    ],
)
def test_bad_input_gives_located_diagnostic(tmp_path: pathlib.Path, content: bytes) -> None:
    src = tmp_path / "bad.mlir"
    src.write_bytes(content)
    out = tmp_path / "out.mlir"
    result = exir_opt(str(src), "-o", str(out))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert result.stderr.startswith(f"exir-opt: error: {src}:")
    assert not out.exists()


def test_frontend_detection() -> None:
    assert detect_frontend("m.mlir", b"") == "mlir"
    assert detect_frontend("m.pt2", b"") == "pt2"
    assert detect_frontend(None, b"PK\x03\x04rest") == "pt2"
    assert detect_frontend("dump", b"  graph(%x : Tensor):") == "torchscript"
    assert detect_frontend(None, b"builtin.module {}") == "mlir"


def test_truncated_archive_is_a_diagnostic(tmp_path: pathlib.Path) -> None:
    src = tmp_path / "model.pt2"
    src.write_bytes(b"PK\x03\x04")
    result = exir_opt(str(src))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "exir-opt: error:" in result.stderr
    assert "model.pt2" in result.stderr


def test_stock_xdsl_opt_sees_dialect_and_pass() -> None:
    from xdsl.universe import Universe

    multiverse = Universe.get_multiverse()
    assert "exir" in multiverse.all_dialects
    assert "verify-export-ir" in multiverse.all_passes
    result = subprocess.run(
        [str(pathlib.Path(sys.executable).parent / "xdsl-opt"), str(EXAMPLE), "-p", "verify-export-ir"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "exir.program" in result.stdout
