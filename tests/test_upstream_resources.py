"""
`exir-run` on lowered MLIR (xDSL's interpreter of func/linalg) reads a
`dense_resource` blob only when it holds every element of its type: a blob of
one element is no splat (MLIR's dense_resource has no splat form), and bad hex
is refused in one line, not as an internal error.
"""

from __future__ import annotations

import pathlib
import re

import pytest
from xdsl.dialect_interfaces.op_asm import OpAsmDialectInterface
from xdsl.dialects.builtin import Builtin

from xdsl_exir.tools.exir_opt import run as exir_opt
from xdsl_exir.tools.exir_run import run as exir_run

T = "!exir.tensor<[2], float32>"
PROGRAM = f"""exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">] outputs [<user_output "out">] {{
  exir.state @w : {T} = dense_resource<w>
  exir.graph @forward(%p_w: {T}, %x: {T}) -> ({T}) {{
    %out = aten.add.Tensor(%p_w, %x) : ({T}, {T}) -> {T}
    exir.output %out : {T}
  }}
}}
{{-#
  dialect_resources: {{
    builtin: {{
      w: "0x100000000000803F00000040"
    }}
  }}
#-}}
"""
BLOB = "0x100000000000803F00000040"


@pytest.mark.parametrize(
    ("blob", "message"),
    [
        (BLOB, None),
        ("0x100000000000803F", "its data is 4 bytes, but a float32 tensor of sizes [2] holds 8 bytes"),
        ("0x100000000000803F0000004000000000", "its data is 12 bytes, but a float32 tensor of sizes [2] holds 8 bytes"),
        ("0x1000000000GG803F00000040", "malformed hex"),
    ],
)
def test_lowered_resources_are_read_whole(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str], blob: str, message: str | None
) -> None:
    src = tmp_path / "m.mlir"
    src.write_text(PROGRAM)
    lowered = tmp_path / "low.mlir"
    assert exir_opt([str(src), "-p", "convert-exir-to-linalg", "-o", str(lowered)]) == 0
    text = lowered.read_text()
    assert BLOB in text
    bad = tmp_path / "bad.mlir"
    bad.write_text(text.replace(BLOB, blob))
    out = tmp_path / "out.npz"
    capsys.readouterr()
    try:
        rc = exir_run([str(bad), "--random-inputs", "0", "-o", str(out)])
    except SystemExit as e:  # a refusal exits, as the command does
        rc = e.code
    err = capsys.readouterr().err
    if message is None:
        assert rc == 0 and out.exists()
        return
    assert rc == 1 and not out.exists()
    assert message in err and "internal error" not in err
    assert err.count("\n") == 1, err


def test_a_refused_resource_is_located_and_named_as_the_file_writes_it(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """
    The refusal points at the constant that reads the blob, and names its key as the
    file writes it, though the process's resource storage renamed it: a read of the file
    finds its key `w` declared already (by the lowering) and declares its own `w_0`.
    """
    src = tmp_path / "m.mlir"
    src.write_text(PROGRAM)
    lowered = tmp_path / "low.mlir"
    assert exir_opt([str(src), "-p", "convert-exir-to-linalg", "-o", str(lowered)]) == 0
    text = lowered.read_text()
    found = re.search(r"arith\.constant dense_resource<(\w+)>", text)
    assert found is not None
    key = found.group(1)  # `w`, or `w_0`... where the process already holds a `w` of other data
    bad = tmp_path / "bad.mlir"
    bad.write_text(text.replace(BLOB, "0x100000000000803F"))
    line = text[: found.start()].count("\n") + 1
    storage = Builtin.get_interface(OpAsmDialectInterface)
    assert storage is not None
    for _ in range(2):
        capsys.readouterr()
        with pytest.raises(SystemExit) as e:
            exir_run([str(bad), "--random-inputs", "0", "-o", str(tmp_path / "out.npz")])
        err = capsys.readouterr().err
        assert e.value.code == 1 and err.count("\n") == 1, err
        assert re.search(
            rf"bad\.mlir:{line}:\d+: 'arith\.constant' \(%\w+\) in @forward: dense_resource<{key}>: its data is 4 bytes", err
        ), err
        assert storage.lookup(key), "the storage holds the key, so the next read of the file declares another"
