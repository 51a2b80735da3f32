"""
Weights by reference (issue 23): a `.pt2` imported from its path maps the
archive and its states are views of the map, giving the same program, the same
arrays and the same printed text as an import of the archive's bytes; the
weights are not copied on import, nor turned into one hex string when printed.
"""

from __future__ import annotations

import io
import mmap
import struct
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import Builtin, ModuleOp

from xdsl_exir.dialects.exir import DenseBlobAttr, ProgramOp, blob_data
from xdsl_exir.frontends.pt2 import Pt2Error, load_pt2
from xdsl_exir.interpreters.program import load_state
from xdsl_exir.utils.mlir_parser import print_module
from xdsl_exir.utils.safe_zip import CheckedZip, ZipRefused

ZOO = Path(__file__).parent / "zoo"
ARCHIVES = sorted(p for p in ZOO.glob("*.pt2") if p.stat().st_size < 4 << 20)


def _program(module: ModuleOp) -> ProgramOp:
    return next(op for op in module.walk() if isinstance(op, ProgramOp))


def _text(module: ModuleOp) -> str:
    out = io.StringIO()
    print_module(module, out, [Builtin])
    return out.getvalue()


def _mapped_root(array: np.ndarray) -> object:
    """What an array's memory finally belongs to (following numpy bases and memoryviews)."""
    base: object = array
    while isinstance(base, np.ndarray) and base.base is not None:
        base = base.base
    while isinstance(base, memoryview):
        base = base.obj
    return base


@pytest.mark.parametrize("path", ARCHIVES, ids=[p.name for p in ARCHIVES])
def test_mapped_import_equals_bytes_import(path: Path) -> None:
    from_bytes = load_pt2(path.read_bytes(), path.name)
    mapped = load_pt2(path)
    assert _text(mapped) == _text(from_bytes)  # byte-identical text, weights included
    expected, got = load_state(_program(from_bytes)), load_state(_program(mapped))
    assert expected.keys() == got.keys()
    for name, array in expected.items():
        assert got[name].dtype == array.dtype and got[name].shape == array.shape, name
        assert np.array_equal(got[name], array, equal_nan=True), name


def _save_linear(tmp_path: Path, n: int) -> tuple[Path, np.ndarray]:
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    model = torch.nn.Linear(n, n).eval()
    with torch.no_grad():
        model.weight[0, :4] = torch.tensor([float("nan"), float("inf"), -float("inf"), -0.0])
    path = tmp_path / "linear.pt2"
    torch.export.save(torch.export.export(model, (torch.zeros(2, n),)), str(path))
    return path, model.weight.detach().numpy().copy()


def test_states_are_views_of_the_mapped_archive(tmp_path: Path) -> None:
    path, weight = _save_linear(tmp_path, 512)
    program = _program(load_pt2(path))
    state = load_state(program)
    w = state["weight"]
    assert np.array_equal(w, weight, equal_nan=True)
    assert np.signbit(w[0, 3])
    assert isinstance(_mapped_root(w), mmap.mmap)
    assert not w.flags.writeable
    value = program.state()["weight"].value
    assert isinstance(value, DenseBlobAttr)
    data = blob_data(value)
    assert isinstance(data, memoryview) and isinstance(data.obj, mmap.mmap)
    assert np.shares_memory(w, np.frombuffer(data, dtype=np.uint8))


def test_import_does_not_copy_the_weights(tmp_path: Path) -> None:
    path, weight = _save_linear(tmp_path, 2048)  # 16 MiB of weights
    tracemalloc.start()
    try:
        module = load_pt2(path)
        load_state(_program(module))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < weight.nbytes / 8, f"import allocated {peak} bytes for {weight.nbytes} bytes of weights"


def test_printing_a_mapped_weight_makes_no_whole_hex_copy(tmp_path: Path) -> None:
    path, weight = _save_linear(tmp_path, 2048)
    module = load_pt2(path)

    class Sink(io.TextIOBase):
        """A stream that keeps only the length of what it is given."""

        length = 0

        def write(self, s: str) -> int:
            self.length += len(s)
            return len(s)

    sink = Sink()
    tracemalloc.start()
    try:
        print_module(module, sink, [Builtin])
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert sink.length > 2 * weight.nbytes  # the hex was written
    assert peak < weight.nbytes / 2, f"printing allocated {peak} bytes for {weight.nbytes} bytes of weights"


def _rewrite(src: Path, dst: Path, compression: int) -> None:
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", compression) as zout:
        for info in zin.infolist():
            zout.writestr(info.filename, zin.read(info))


def test_compressed_entries_are_inflated(tmp_path: Path) -> None:
    path, weight = _save_linear(tmp_path, 64)
    deflated = tmp_path / "deflated.pt2"
    _rewrite(path, deflated, zipfile.ZIP_DEFLATED)
    state = load_state(_program(load_pt2(deflated)))
    assert np.array_equal(state["weight"], weight, equal_nan=True)
    assert _text(load_pt2(deflated)) == _text(load_pt2(path))


def _two_entries() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        z.writestr("m/a", b"A" * 100)
        z.writestr("m/b", b"B" * 100)
    return out.getvalue()


def test_overlapping_entries_are_refused() -> None:
    data = bytearray(_two_entries())
    # Point the second central directory entry at the first entry's local header.
    second = data.rindex(b"PK\x01\x02")
    struct.pack_into("<I", data, second + 42, 0)
    with pytest.raises(ZipRefused, match="overlap|twice|differ"):
        zip_ = CheckedZip(bytes(data))
        zip_.read("m/b")


def test_entry_running_into_the_directory_is_refused() -> None:
    data = bytearray(_two_entries())
    second = data.rindex(b"PK\x01\x02")
    struct.pack_into("<I", data, second + 20, 10_000)  # compressed size of the last entry
    with pytest.raises(ZipRefused):
        CheckedZip(bytes(data))


def test_mapped_view_checks_local_header(tmp_path: Path) -> None:
    data = bytearray(_two_entries())
    data[data.index(b"PK\x03\x04", 1)] = ord("X")  # damage the second local header
    path = tmp_path / "bad.zip"
    path.write_bytes(bytes(data))
    with open(path, "rb") as f:
        zip_ = CheckedZip(f)
        assert zip_.map is not None
        assert bytes(zip_.view("m/a")) == b"A" * 100
        with pytest.raises(ZipRefused, match="local header"):
            zip_.view("m/b")


def test_crc_is_checked_when_mapped(tmp_path: Path) -> None:
    """A damaged weight would give wrong numbers without a word: mapped entries are checked too."""
    data = bytearray(_two_entries())
    start = data.index(b"A" * 100)
    data[start] = ord("Z")
    path = tmp_path / "crc.zip"
    path.write_bytes(bytes(data))
    with open(path, "rb") as f:
        zip_ = CheckedZip(f)
        with pytest.raises(ZipRefused, match="CRC"):
            zip_.view("m/a")
        with pytest.raises(ZipRefused, match="CRC"):
            zip_.check_crc("m/a")
        with pytest.raises(ZipRefused, match="CRC"):
            zip_.read("m/a")


def test_missing_path_is_a_diagnostic(tmp_path: Path) -> None:
    with pytest.raises(Pt2Error, match="cannot read it"):
        load_pt2(tmp_path / "absent.pt2")


def test_exir_opt_streams_o_and_writes_nothing_on_failure(tmp_path: Path) -> None:
    """`-o` is written through a temporary file beside it: the same text as stdout, nothing left on failure."""
    from xdsl_exir.tools.exir_opt import run

    src = ZOO / "mlp.core.pt2"
    out = tmp_path / "m.mlir"
    assert run([str(src), "-o", str(out)]) == 0
    assert out.read_text() == _text(load_pt2(src.read_bytes(), str(src))) + "\n"
    bad = tmp_path / "bad.pt2"
    bad.write_bytes(src.read_bytes()[:3000])
    with pytest.raises(SystemExit):
        run([str(bad), "-o", str(tmp_path / "never.mlir")])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.pt2", "m.mlir"]


def test_lowered_mapped_weights_are_read_by_the_upstream_interpreter(tmp_path: Path) -> None:
    """The linalg lowering's constants of mapped weights are views too; the upstream interpreter reads them."""
    from xdsl.dialects.builtin import DenseResourceAttr

    from xdsl_exir.interpreters.upstream.values import resource_array
    from xdsl_exir.tools.exir_opt import ExirOptMain
    from xdsl_exir.transforms.convert_exir_to_linalg import ConvertExirToLinalgPass
    from xdsl_exir.transforms.decompose import ToCoreAtenPass

    path, weight = _save_linear(tmp_path, 24)  # a size no other test uses: its resource is new here
    module = load_pt2(path)
    ctx = ExirOptMain(args=["--", "x"]).ctx
    ToCoreAtenPass().apply(ctx, module)
    ConvertExirToLinalgPass().apply(ctx, module)
    found = [
        resource_array(a)
        for op in module.walk()
        for a in [*op.properties.values(), *op.attributes.values()]
        if isinstance(a, DenseResourceAttr)
    ]
    assert any(a.shape == weight.shape and np.array_equal(a, weight, equal_nan=True) for a in found)
