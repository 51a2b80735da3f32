"""
The tools' promise under hostile and careless input, fuzzed.

`exir-opt` and `exir-run` promise that bad input of any kind ends in one
diagnostic paragraph on stderr and exit code 1: never a Python traceback, never
an "internal error", never a half-written `-o`, in bounded time and memory.
Here a few hundred inputs are generated under a fixed seed, each case from its
own `random.Random(f"{SEED}/{category}/{index}")`, so a failure reproduces
alone (`pytest -k 'pt2-17'`):

- `pt2`: `tests/zoo` archives with flipped bytes, truncated, with mutated JSON
  (hostile values anywhere in `model.json` and the weights config), dropped,
  added or rewritten entries, recompressed, with short or long storages;
- `mlir`: textual IR from `examples/` and `tests/filecheck/` with deleted,
  repeated, swapped or truncated text, garbage tokens, huge numbers, deep nesting;
- `torchscript`: the dumps of `tests/torchscript/dumps/`, mutated the same way;
- `script`: Python sources for the script frontend (`.py`), mutated the same way
  and run with `--timeout` (a mutated loop bound may never end);
- `npz`: bad `--inputs` files (pickles, lying headers, zip bombs, wrong keys,
  dtypes and shapes, flipped bytes);
- `output`: `-o` targets that cannot be written;
- `pipeline`: pass pipelines with typos, wrong option types and broken syntax;
- `options`: every pass and output format of this project with hostile option
  values (numbers past any width, shapes and ranges that do not parse or do not
  fit, file names that cannot be written), unknown and repeated options;
- `resources`: weights in `dialect_resources` with duplicate keys, a second
  section, bad hex, blobs shorter, longer or far larger than their type, lying
  alignment words, missing keys; read, lowered to linalg and run;
- `api`: each public function of `xdsl_exir.api` with a hostile argument (it
  returns, or raises `ExirError` or `TypeError` in one paragraph);
- `iree`: `--backend iree` on programs that create tensors past
  `--max-tensor-bytes` (refused before IREE is asked).

`scripts/fuzz_hostile.py` runs the same generators on another seed and many
more cases (about 10,000, an hour), including IREE cases that compile (a
corrupted cache entry, an unusable device, wrong inputs, `iree-bundle` options).

A case may also stay valid (a flipped byte in a timestamp): then the exit code
is 0 and the output must be sound (printed IR parses again; an npz loads
without pickles). Most cases run in-process through the tools' `run(argv)`;
a few run as real processes, for the exit codes a shell sees and for Ctrl-C.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import re
import resource
import signal
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np
import pytest

from xdsl_exir.tools import exir_opt, exir_run

ROOT = Path(__file__).resolve().parents[1]
SEED = 13
MAX_SECONDS = 15.0
"""Per case, a guard against hangs (a case that runs past it fails), not a speed check: the
slowest honest case takes well under a second."""
LIMIT = "64M"
"""`--max-tensor-bytes` for the fuzzed runs: a mutated size may not cost the machine."""

CASES: dict[str, int] = {
    "pt2": 110,
    "mlir": 100,
    "torchscript": 70,
    "script": 40,
    "npz": 40,
    "output": 16,
    "pipeline": 70,
    "options": 40,
    "resources": 40,
    "api": 30,
    "iree": 3,
}

ZOO_MODELS = ("mlp", "cond", "while_loop", "map", "buffer_mutation", "nested_io", "embedding", "int_ops")
"""Small zoo programs whose archives are mutated (named, so the cases do not move when the zoo grows)."""

HOSTILE_NUMBERS = ["0", "-1", "2147483648", "9223372036854775808", "100000000000", "40000", "9" * 30, "9" * 5000]

GARBAGE = [
    "{", "}", "(", ")", "[", "]", "<", ">", '"', "'", "%", "@", "^bb0:", "\x00", "\u00e9", "\n\n",
    "9" * 5000, "-1", "1e309", "nan", "#", "!exir.tensor<[", "loc(", "->", ",", ":", "//", "\\",
    "dense<", "0x", "=", "block0(", "prim::If(", "aten::", "graph(", "\t",
]  # fmt: skip


# ---------------------------------------------------------------------------
# Running a tool and checking the promise
# ---------------------------------------------------------------------------


class CaseTimeout(BaseException):
    """A case ran past `MAX_SECONDS` (a BaseException: the tools catch Exception)."""


@contextmanager
def time_bound(seconds: float) -> Iterator[None]:
    def on_alarm(signum: int, frame: FrameType | None) -> None:
        raise CaseTimeout(f"the case ran longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@dataclass
class Result:
    rc: int
    out: str
    err: str


def invoke(tool: str, argv: list[str]) -> Result:
    """Run a tool in-process; anything but a return or SystemExit escapes (and fails the test)."""
    main = exir_opt.run if tool == "exir-opt" else exir_run.run
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err), time_bound(MAX_SECONDS):
        try:
            rc = main(argv)
        except SystemExit as e:
            rc = e.code if isinstance(e.code, int) else 1
    return Result(rc, out.getvalue(), err.getvalue())


def check_promise(tool: str, result: Result, output: Path | None, must_fail: bool = False) -> None:
    """Exit 1 with one diagnostic paragraph and no output, or exit 0 with a sound output."""
    err = result.err
    assert "Traceback (most recent call last)" not in err, err
    assert "internal error" not in err, err
    assert result.rc in (0, 1), (result.rc, err)
    if output is not None:
        leftovers = [p.name for p in output.parent.iterdir() if p.name.startswith(".exir-")]
        assert not leftovers, leftovers
    if result.rc == 1:
        assert err.startswith(f"{tool}: error: "), err
        assert "\n\n" not in err.strip(), f"not one paragraph:\n{err}"
        assert sum(line.startswith(f"{tool}: error:") for line in err.splitlines()) == 1, err
        assert output is None or not output.exists(), "an output was written on failure"
        return
    assert not must_fail, f"expected a refusal, got exit 0; stderr: {err}"
    assert f"{tool}: error" not in err, err
    if output is None:
        return
    assert output.exists()
    if tool == "exir-run":
        with np.load(output, allow_pickle=False) as data:
            assert all(re.fullmatch(r"out\d+", k) for k in data.files)
            for k in data.files:
                data[k]
    elif output.suffix == ".mlir":
        again = invoke("exir-opt", [str(output), "--from", "mlir", "-o", str(output.with_suffix(".again.mlir"))])
        assert again.rc == 0, f"exir-opt's output does not parse again:\n{again.err}"


# ---------------------------------------------------------------------------
# Mutations
# ---------------------------------------------------------------------------


def mutate_text(rng: random.Random, text: str, nest: Callable[[str, int], str] | None = None) -> str:
    """One to three careless or hostile edits of a text."""
    for _ in range(rng.randint(1, 3)):
        kind = rng.choice(["delete", "insert", "insert", "number", "number", "line", "line", "truncate", "name", "name", "nest"])
        i = rng.randrange(len(text) + 1)
        if kind == "delete":
            text = text[:i] + text[i + rng.randint(1, 40) :]
        elif kind == "insert":
            text = text[:i] + rng.choice(GARBAGE) + text[i:]
        elif kind == "number" and (numbers := list(re.finditer(r"\d+", text))):
            m = rng.choice(numbers)
            text = text[: m.start()] + rng.choice(HOSTILE_NUMBERS) + text[m.end() :]
        elif kind == "line":
            lines = text.split("\n")
            a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
            how = rng.choice(["drop", "repeat", "swap"])
            if how == "drop":
                del lines[a]
            elif how == "repeat":
                lines.insert(a, lines[b])
            else:
                lines[a], lines[b] = lines[b], lines[a]
            text = "\n".join(lines)
        elif kind == "truncate":
            text = text[:i]
        elif kind == "name" and (names := list(re.finditer(r"[%@]?[A-Za-z_][\w.:]*", text))):
            m, other = rng.choice(names), rng.choice(names)
            text = text[: m.start()] + other.group(0) + text[m.end() :]
        elif kind == "nest" and nest is not None:
            text = nest(text, rng.choice([3, 3, 150, 600]))
    return text


def nest_mlir(text: str, depth: int) -> str:
    return '"test.op"() ({\n' * depth + text + "\n}) : () -> ()" * depth


HOSTILE_JSON: list[Any] = [
    None, True, -1, 0, 2**63, 10**30, 1e308, -1e308, "", "x" * 2000, "9" * 5000, [], {}, [[[[]]]],
    {"as_tensor": {"name": "nowhere"}}, {"as_int": 10**20}, ["a", 1, None],
]  # fmt: skip
HUGE_INT = "__HUGE_INT__"


def json_paths(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(value, dict):
        for k, v in value.items():
            yield from json_paths(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from json_paths(v, (*path, i))


def mutate_json(rng: random.Random, data: bytes) -> bytes:
    """A hostile value, a deleted key or a moved subtree somewhere in a JSON document."""
    doc = json.loads(data)
    paths = [p for p in json_paths(doc) if p]
    for _ in range(rng.randint(1, 2)):
        path = rng.choice(paths)
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        how = rng.random()
        if how < 0.15 and isinstance(parent, dict):
            parent.pop(path[-1], None)
        elif how < 0.3:
            donor = doc
            for key in rng.choice(paths):
                donor = donor[key]
            parent[path[-1]] = copy.deepcopy(donor)
        elif how < 0.35:
            parent[path[-1]] = HUGE_INT
        elif how < 0.4:
            parent[path[-1]] = [[[[0]]]]  # replaced by deep nesting below
        else:
            parent[path[-1]] = rng.choice(HOSTILE_JSON)
        paths = [p for p in json_paths(doc) if p]
    text = json.dumps(doc)
    text = text.replace(f'"{HUGE_INT}"', "9" * 5000).replace("[[[[0]]]]", "[" * 3000 + "]" * 3000)
    return text.encode()


@cache
def zoo_archive(model: str, kind: str) -> tuple[bytes, dict[str, bytes]]:
    data = (ROOT / "tests" / "zoo" / f"{model}.{kind}.pt2").read_bytes()
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        entries = {i.filename: z.read(i.filename) for i in z.infolist()}
    return data, entries


def rezip(entries: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, content in entries.items():
            z.writestr(name, content)
    return out.getvalue()


def mutate_pt2(rng: random.Random) -> bytes:
    data, original = zoo_archive(rng.choice(ZOO_MODELS), rng.choice(["core", "train"]))
    entries = dict(original)
    root = next(iter(entries)).split("/", 1)[0] + "/"

    def named(suffix: str) -> str:
        return next(n for n in entries if n.endswith(suffix))

    kind = rng.choice(["flip", "truncate", "json", "json", "json", "json-text", "config", "entries", "compress", "storage"])
    if kind == "flip":
        raw = bytearray(data)
        for _ in range(rng.randint(1, 8)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        return bytes(raw)
    if kind == "truncate":
        return data[: rng.randrange(len(data))]
    if kind == "json":
        entries[named("models/model.json")] = mutate_json(rng, entries[named("models/model.json")])
    elif kind == "json-text":
        name = named(rng.choice(["models/model.json", "model_weights_config.json"]))
        entries[name] = mutate_text(rng, entries[name].decode()).encode("utf-8", "surrogatepass")
    elif kind == "config":
        name = named("model_weights_config.json")
        config = json.loads(entries[name])
        if config["config"]:
            meta = config["config"][rng.choice(sorted(config["config"]))]["tensor_meta"]
            field = rng.choice(["sizes", "strides", "storage_offset", "dtype"])
            if field in ("sizes", "strides") and meta[field]:
                meta[field][rng.randrange(len(meta[field]))] = {"as_int": rng.choice([0, -1, 10**6, 10**12, 2**62])}
            elif field == "storage_offset":
                meta[field] = {"as_int": rng.choice([-1, 3, 10**9])}
            else:
                meta[field] = rng.choice([0, 14, 99, -1, 9])
        entries[name] = json.dumps(config).encode()
    elif kind == "entries":
        how = rng.choice(["drop", "odd", "many", "format", "version", "byteorder"])
        if how == "drop":
            entries.pop(rng.choice(sorted(entries)))
        elif how == "odd":
            entries[rng.choice(["/etc/x", f"{root}../up", "other/x", f"{root}a\\..\\b", "C:/x"])] = b"x"
        elif how == "many":
            entries.update({f"{root}extra/e{i}": b"" for i in range(rng.choice([1200, 5000]))})
        else:
            entry = {"format": "archive_format", "version": "archive_version", "byteorder": "byteorder"}[how]
            name = root + entry
            if rng.random() < 0.4:
                entries.pop(name, None)
            else:
                entries[name] = rng.choice([b"", b"pt", b"1", b"big", b"middle", b"\xff\xfe", b"0" * 100])
    elif kind == "compress":
        return rezip(entries, rng.choice([zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA]))
    else:  # storage
        weights = [n for n in entries if "/data/weights/weight_" in n or "/data/constants/tensor_" in n]
        if weights:
            name = rng.choice(weights)
            cut = rng.randrange(len(entries[name]) + 1)
            entries[name] = entries[name][:cut] if rng.random() < 0.5 else entries[name] + bytes(rng.randint(1, 9))
    return rezip(entries)


@cache
def text_sources(kind: str) -> list[Path]:
    if kind == "mlir":
        found = [*ROOT.glob("examples/*.mlir"), *ROOT.glob("tests/filecheck/**/*.mlir")]
        return sorted(p for p in found if p.stat().st_size < 20_000)
    if kind == "script":
        code = (ROOT / "tests" / "torchscript" / "dumps").glob("*.code.txt")
        return sorted([*ROOT.glob("tests/filecheck/frontends/script/inputs/*.py"), *code])
    dumps = (ROOT / "tests" / "torchscript" / "dumps").glob("*.txt")
    return sorted(p for p in dumps if not p.name.endswith(".code.txt"))  # graphs, not Python source


_TS_INPUTS: dict[str, Any] = {
    "Tensor": np.ones((2, 3), np.float32),
    "int": np.asarray(2),
    "float": np.asarray(0.5),
    "bool": np.asarray(True),
}


def ts_inputs(text: str) -> dict[str, Any]:
    """Inputs for the parameters of the first `graph(...)` of a dump, by their printed types."""
    m = re.search(r"graph\((.*?)\):", text, re.DOTALL)
    types = re.findall(r":\s*([A-Za-z]+)", m.group(1)) if m else []
    return {f"arg{i}": _TS_INPUTS.get(t, _TS_INPUTS["Tensor"]) for i, t in enumerate(types)}


def npz_bytes(**arrays: Any) -> bytes:
    out = io.BytesIO()
    np.savez(out, **arrays)
    return out.getvalue()


def npy_header(shape: tuple[int, ...], descr: str = "<f4", fortran: bool = False) -> bytes:
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, {"descr": descr, "fortran_order": fortran, "shape": shape})
    return out.getvalue()


def zip_of(members: dict[str, bytes], compression: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression) as z:
        for name, content in members.items():
            z.writestr(name, content)
    return out.getvalue()


def zip_bomb_npz() -> bytes:
    """An `.npy` of 64 MiB of zeros, deflated to ~65 kB (a 1000:1 ratio)."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z, z.open("arg0.npy", "w") as f:
        f.write(npy_header((1 << 24,)))
        chunk = bytes(1 << 22)
        for _ in range(16):
            f.write(chunk)
    return out.getvalue()


def lying_directory_npz() -> bytes:
    """The central directory claims a small size for an entry that inflates to much more."""
    data = bytearray(zip_of({"arg0.npy": npy_header((4, 16)) + bytes(1 << 20)}, zipfile.ZIP_DEFLATED))
    at = data.rindex(b"PK\x01\x02")
    data[at + 24 : at + 28] = (npy_header((4, 16)).__len__() + 256).to_bytes(4, "little")
    return bytes(data)


GOOD = np.random.default_rng(0).standard_normal((4, 16)).astype(np.float32)

BAD_NPZ: list[Callable[[], bytes]] = [
    lambda: b"",
    lambda: b"PK\x03\x04",
    lambda: b"not a zip at all",
    lambda: npz_bytes(arg0=np.array([object()], dtype=object)),
    lambda: npz_bytes(arg0=GOOD.astype(np.float64)),
    lambda: npz_bytes(arg0=GOOD[:, :8]),
    lambda: npz_bytes(arg0=GOOD, arg1=GOOD),
    lambda: npz_bytes(x=GOOD),
    lambda: npz_bytes(),
    lambda: npz_bytes(arg0=np.float32(1.0)),
    lambda: npz_bytes(arg0=GOOD.astype(np.complex64)),
    lambda: npz_bytes(arg0=np.zeros((4, 16), "U3")),
    lambda: zip_of({"arg0.npy": npy_header((10**12,))}),
    lambda: zip_of({"arg0.npy": npy_header((100000000000, 100000000000))}),
    lambda: zip_of({"arg0.npy": npy_header((4, 16))}),
    lambda: zip_of({"arg0.npy": npy_header((4, 16)) + bytes(4 * 64 + 7)}),
    lambda: zip_of({"arg0.npy": npy_header((-4, 16))}),
    lambda: zip_of({"arg0.npy": npy_header((4, 16), "|O")}),
    lambda: zip_of({"arg0.npy": b"\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'"}),
    lambda: zip_of({"arg0.npy": b"\x93NUMPY\x09\x00"}),
    lambda: zip_of({"arg0.npy": b"\x93NUMPY\x01\x00" + len(h := b"{" * 3000).to_bytes(2, "little") + h}),
    lambda: zip_of({"arg0.npy": npy_header((4, 16)).replace(b"(4, 16)", b"(4, " + b"9" * 5000 + b")")}),
    lambda: zip_of({"arg0.npy": GOOD.tobytes()}),
    lambda: zip_of({"arg0": b"raw"}),
    lambda: zip_of({"../arg0.npy": npy_header((4, 16)) + GOOD.tobytes()}),
    lambda: zip_of({"arg0.npy": npy_header((4, 16)) + GOOD.tobytes(), "notes.txt": b"hi"}),
    zip_bomb_npz,
    lying_directory_npz,
]


# ---------------------------------------------------------------------------
# The cases
# ---------------------------------------------------------------------------


def case_ids() -> list[tuple[str, int]]:
    return [(category, i) for category, n in CASES.items() for i in range(n)]


@pytest.mark.parametrize("category, index", case_ids(), ids=[f"{c}-{i}" for c, i in case_ids()])
def test_hostile_input(category: str, index: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)  # a pipeline may name a report file
    rng = random.Random(f"{SEED}/{category}/{index}")
    CASE_BUILDERS[category](rng, tmp_path)


def pt2_case(rng: random.Random, tmp: Path) -> None:
    src = tmp / "m.pt2"
    src.write_bytes(mutate_pt2(rng))
    if rng.random() < 0.25:
        out = tmp / "out.npz"
        argv = [str(src), "--random-inputs", "0", "--max-tensor-bytes", LIMIT, "-o", str(out)]
        check_promise("exir-run", invoke("exir-run", argv), out)
    else:
        out = tmp / "out.mlir"
        check_promise("exir-opt", invoke("exir-opt", [str(src), "--max-tensor-bytes", LIMIT, "-o", str(out)]), out)


def text_case(kind: str) -> Callable[[random.Random, Path], None]:
    def build(rng: random.Random, tmp: Path) -> None:
        source = rng.choice(text_sources(kind))
        text = mutate_text(rng, source.read_text(), nest_mlir if kind == "mlir" else None)
        src = tmp / {"mlir": "m.mlir", "torchscript": "m.txt", "script": "m.py"}[kind]
        src.write_text(text, errors="surrogatepass")
        if rng.random() < 0.3:
            out = tmp / "out.npz"
            if kind == "torchscript":
                (tmp / "in.npz").write_bytes(npz_bytes(**ts_inputs(text)))
                feed = ["--inputs", str(tmp / "in.npz")]
            else:
                feed = ["--random-inputs", "0"]
            argv = [str(src), *feed, "--max-tensor-bytes", LIMIT, "--timeout", "5", "-o", str(out)]
            check_promise("exir-run", invoke("exir-run", argv), out)
        else:
            out = tmp / "out.mlir"
            argv = [str(src), "--from", kind, "--max-tensor-bytes", LIMIT, "-o", str(out)]
            check_promise("exir-opt", invoke("exir-opt", argv), out)

    return build


def npz_case(rng: random.Random, tmp: Path) -> None:
    index = int(rng.random() * 10**9) % (2 * len(BAD_NPZ))
    if index < len(BAD_NPZ):
        data, must_fail = BAD_NPZ[index](), True
    else:  # flipped bytes of a good file: refused, or still good
        raw = bytearray(npz_bytes(arg0=GOOD))
        for _ in range(rng.randint(1, 4)):
            raw[rng.randrange(len(raw))] = rng.randrange(256)
        data, must_fail = bytes(raw), False
    inputs = tmp / "in.npz"
    inputs.write_bytes(data)
    out = tmp / "out.npz"
    program = str(ROOT / "tests" / "zoo" / "mlp.core.pt2")
    result = invoke("exir-run", [program, "--inputs", str(inputs), "--max-tensor-bytes", LIMIT, "-o", str(out)])
    check_promise("exir-run", result, out, must_fail)


def output_case(rng: random.Random, tmp: Path) -> None:
    (tmp / "dir").mkdir()
    (tmp / "file").write_text("x")
    target = rng.choice(["dir", "missing/out", "file/out", "", "dir/", "missing/deeper/out"])
    out = tmp / target if target else Path("")
    if rng.random() < 0.5:
        argv = [str(ROOT / "examples" / "mlp.mlir"), "-o", str(out) if target else ""]
        result, tool = invoke("exir-opt", argv), "exir-opt"
    else:
        argv = [str(ROOT / "tests" / "zoo" / "mlp.core.pt2"), "--random-inputs", "0", "-o", str(out) if target else ""]
        result, tool = invoke("exir-run", argv), "exir-run"
    check_promise(tool, result, None, must_fail=True)
    assert not (tmp / "missing").exists()
    assert (tmp / "file").read_text() == "x" and list((tmp / "dir").iterdir()) == []


PIPELINES = [
    "exir-cse",
    "exir-dce",
    "exir-cse,exir-dce",
    "flop-count{mode=torch report=none}",
    "flop-count{mode=all report=none}",
    "unroll-loops{factor=4}",
    "constant-propagation{max-elements=16}",
    "constant-pooling",
    "fuse-pointwise{min-size=2}",
    "replace-activation{from_=relu to=gelu}",
    "verify-export-ir",
    "decompose,exir-dce",
    "to-core-aten",
    "functionalize",
    "shape-propagation",
    "fold-conv-bn",
    "recompose-safe-softmax",
    "insert-observers",
    "quantize",
    "optimize-inference",
    "batch-mm{min-leaves=2}",
    "list-peepholes",
    "lower-tuples",
    "torchscript-to-exir",
    "convert-to-ssa,exit-transform",
    "builtin.module(exir-cse,exir-dce)",
    "inline{kinds=call}",
]
PIPELINE_PROGRAMS = [
    "examples/mlp.mlir",
    "tests/zoo/mlp.core.pt2",
    "tests/zoo/cond.train.pt2",
    "tests/zoo/buffer_mutation.train.pt2",
    "tests/zoo/cnn_bn.train.pt2",
    "tests/zoo/while_loop.core.pt2",
    "tests/torchscript/dumps/lstm_cell.txt",
    "tests/torchscript/dumps/list_ops.txt",
    "tests/torchscript/dumps/nested_control.txt",
]
PIPELINE_GARBAGE = ["{", "}", ",", "=", "(", ")", " ", '"', "-", "_", "x", "1", "true", "false", "\\", "\n", "builtin.module("]


def mutate_pipeline(rng: random.Random, spec: str) -> str:
    for _ in range(rng.choice([0, 1, 1, 1, 2])):
        i = rng.randrange(len(spec) + 1)
        how = rng.choice(["typo", "typo", "drop", "insert", "value", "value", "swap"])
        if how == "typo" and spec:
            j = rng.randrange(len(spec))
            spec = spec[:j] + rng.choice("abcdefghijklmnopqrstuvwxyz-") + spec[j + 1 :]
        elif how == "drop":
            spec = spec[:i] + spec[i + rng.randint(1, 4) :]
        elif how == "insert":
            spec = spec[:i] + rng.choice(PIPELINE_GARBAGE) + spec[i:]
        elif how == "value" and (values := list(re.finditer(r"=([\w.]+)", spec))):
            m = rng.choice(values)
            new = rng.choice(["true", "1.5", "-3", '"x"', "", "none", "9" * 40, "a,b"])
            spec = spec[: m.start(1)] + new + spec[m.end(1) :]
        elif how == "swap" and len(spec) > 2:
            j = rng.randrange(len(spec) - 1)
            spec = spec[:j] + spec[j + 1] + spec[j] + spec[j + 2 :]
    return spec


def pipeline_case(rng: random.Random, tmp: Path) -> None:
    spec = mutate_pipeline(rng, rng.choice(PIPELINES))
    program = str(ROOT / rng.choice(PIPELINE_PROGRAMS))
    if rng.random() < 0.25 and program.endswith(".pt2"):
        out = tmp / "out.npz"
        argv = [program, f"--passes={spec}", "--random-inputs", "0", "--max-tensor-bytes", LIMIT, "-o", str(out)]
        check_promise("exir-run", invoke("exir-run", argv), out)
    else:
        out = tmp / "out.mlir"
        argv = [program, f"--pass-pipeline={spec}", "--max-tensor-bytes", LIMIT, "-o", str(out)]
        result = invoke("exir-opt", argv)
        check_promise("exir-opt", result, out)
        if result.rc == 1 and "unknown pass" in result.err:
            assert "pass pipeline:1:" in result.err


# -- pass and target options ---------------------------------------------------

OPTION_VALUES: dict[str, list[str]] = {
    "int": ["0", "-1", "1", "2", "64", "2147483648", "9223372036854775808", "9" * 40, "-" + "9" * 40, "1.5", "true", '"3"', "none", ""],
    "bool": ["true", "false", "1", "0", '"true"', "none", "yes"],
    "str": ['""', '"x"', "x", "1", "none", '"' + "x" * 3000 + '"', '"a b"', '"\\00"', '"\u00e9"', '"../x"', '"/dev/full"', "true"],
    "list": ['"aten.linear.default"', '"aten::linear"', '"bogus"', '""', '"aten.linear.default","aten.mm.default"', "[]", "linear", "1", '"aten."', '"aten.linear.nope"'],
}  # fmt: skip
"""Hostile option values by the option's type (as `-p` spells them)."""

OPTION_SPECIALS: dict[str, list[str]] = {
    "input_types": [
        '"x=f32[2, 3]"', '"x=f32[100000, 100000]"', '"x=f32[-1]"', '"x=f32[s0]"', '"x=q8[2]"', '"x=f32["', '"=f32[2]"',
        '"x=f32[2];x=f32[3]"', '"x=f32[' + "9" * 40 + ']"', '"' + ";".join(f"a{i}=f32[2]" for i in range(300)) + '"',
        '"x=c64[2]"', '"x=bool[]"', '"x=f32[2,3];hx=f32[2,20];cx=f32[2,20]"', '"x:f32[2]"', '"x=f32[s0*s1]"',
    ],
    "input_values": ['"flag=false"', '"n=3"', '"n=99999999999"', '"n=-1"', '"flag=maybe"', '"x=1.5"', '"n=1e400"', '"n="', '"=1"', '"n=3;n=4"'],
    "ranges": ['"s0=[1, 64]"', '"s0=[64, 1]"', '"s0=[-5, 3]"', '"s0=[1"', '"s1=[0, inf]"', '"s0=[nan, 1]"', '"s0=[1, 99999999999999999999]"', '"s0"', '"s0=[inf, inf]"'],
    "kinds": ['"calls"', '"FusionGroup"', '"bogus"', '""', '"calls,calls"', '"calls,,x"'],
    "mode": ["torch", "all", "bogus", '""', "TORCH"],
    "report": ["none", "stderr", "stdout", '"report.json"', '"missing/report.json"', '"/dev/full"', '""', '"."'],
    "from_": ["relu", "gelu", "sigmoid", "tanh", "silu", "bogus", '""', "hardswish"],
    "to": ["relu", "gelu", "mish", "bogus", '""', "silu"],
    "dialect": ["export", "core", "bogus", '""'],
    "entry": ["forward", "lstm_cell", "bogus", '""', "none", '"__init__"'],
    "parameter_scope": ["model", '""', '"a b"', "bogus", '"\u00e9"'],
    "device": ["cpu", "cuda", "bogus", '""', "vulkan"],
    "target_cpu": ["host", "bogus", '""', "generic"],
    "target_triple": ['""', "bogus", '"x86_64-unknown-linux-gnu"'],
}  # fmt: skip
"""Values that reach an option's own grammar (shapes, ranges, enums, file names)."""

TS_PASSES = ("torchscript-to-exir", "convert-to-ssa", "exit-transform", "unroll-loops", "batch-mm", "lower-tuples", "list-peepholes", "inline")
OPTION_TARGETS = ("dot", "svg", "fx", "python", "mlir", "torchscript", "torchscript-python")
"""Output formats fuzzed with options (`iree-bundle` compiles, so it is the `iree` category's)."""


@cache
def our_passes() -> dict[str, list[tuple[str, str]]]:
    """Each pass of this project by name, with its options (field name, value kind)."""
    import dataclasses

    from xdsl_exir.transforms.registry import get_all_passes

    def kind(t: Any) -> str:
        t = str(t)
        return "list" if "tuple" in t else "bool" if t == "bool" else "int" if t == "int" else "str"

    return {
        name: [(f.name, kind(f.type)) for f in dataclasses.fields(make())]
        for name, make in sorted(get_all_passes().items())
    }


@cache
def target_options() -> dict[str, list[tuple[str, str]]]:
    import dataclasses

    from xdsl.targets import get_all_targets as stock_targets

    from xdsl_exir.targets.registry import get_all_targets

    targets = {**stock_targets(), **get_all_targets()}
    found: dict[str, list[tuple[str, str]]] = {}
    for name in (*OPTION_TARGETS, "iree-bundle"):
        cls = targets[name]()
        fields = dataclasses.fields(cls) if dataclasses.is_dataclass(cls) else ()
        found[name] = [(f.name, "int" if str(f.type) == "int" else "str") for f in fields]
    return found


def option_spec(rng: random.Random, name: str, options: list[tuple[str, str]]) -> str:
    """`name{opt=value ...}` with hostile values, sometimes an unknown, repeated or misspelled option."""
    chosen: list[str] = []
    for _ in range(rng.choice([0, 1, 1, 2, 3])):
        if options and rng.random() < 0.85:
            field, kind = rng.choice(options)
            values = OPTION_SPECIALS.get(field) if rng.random() < 0.7 else None
            value = rng.choice(values or OPTION_VALUES[kind])
            spelled = field.replace("_", "-") if rng.random() < 0.9 else field
            if spelled == "from-":
                spelled = "from"
        else:
            spelled, value = rng.choice(["x", "bogus-option", "min_size", "", "-"]), rng.choice(OPTION_VALUES["int"])
        chosen.append(f"{spelled}={value}" if rng.random() < 0.95 else spelled)
    if chosen and rng.random() < 0.1:
        chosen.append(chosen[0])
    return f"{name}{{{' '.join(chosen)}}}" if chosen or rng.random() < 0.2 else name


OPTION_PROGRAMS = ("examples/mlp.mlir", "tests/zoo/mlp.core.pt2", "tests/zoo/cnn_bn.train.pt2", "tests/zoo/while_loop.core.pt2")
TS_PROGRAMS = ("tests/torchscript/dumps/lstm_cell.txt", "tests/torchscript/dumps/nested_control.txt", "tests/torchscript/dumps/list_ops.txt")


def options_case(rng: random.Random, tmp: Path) -> None:
    if rng.random() < 0.3:  # an output format's options
        name = rng.choice(OPTION_TARGETS)
        spec = option_spec(rng, name, target_options()[name])
        program = str(ROOT / rng.choice(OPTION_PROGRAMS + TS_PROGRAMS[:1]))
        out = tmp / "out.txt"
        result = invoke("exir-opt", [program, "--emit", spec, "--max-tensor-bytes", LIMIT, "-o", str(out)])
        check_promise("exir-opt", result, None)
        assert result.rc == 0 or not out.exists(), "an output was written on failure"
        assert "Warning" not in result.err, result.err
        return
    passes = our_passes()
    name = rng.choice(sorted(passes))
    spec = option_spec(rng, name, passes[name])
    if rng.random() < 0.3:
        spec = ",".join([spec, rng.choice(["exir-dce", "exir-cse", "verify-export-ir"])][:: rng.choice([1, -1])])
    ts = name in TS_PASSES if rng.random() < 0.85 else name not in TS_PASSES
    program = str(ROOT / rng.choice(TS_PROGRAMS if ts else OPTION_PROGRAMS))
    if program.endswith(".pt2") and rng.random() < 0.3:
        out = tmp / "out.npz"
        argv = [program, "-p", spec, "--random-inputs", "0", "--max-tensor-bytes", LIMIT, "--timeout", "5", "-o", str(out)]
        check_promise("exir-run", invoke("exir-run", argv), out)
        return
    out = tmp / "out.mlir"
    argv = [program, "-p", spec, "--max-tensor-bytes", LIMIT, "--timeout", "5", "-o", str(out)]
    check_promise("exir-opt", invoke("exir-opt", argv), out)


# -- resources (dense_resource blobs) ---------------------------------------------

RESOURCE_SHAPES = ["[2]", "[2]", "[2]", "[2]", "[]", "[0]", "[3]", "[1]", "[2, 1]", "[100000, 100000]", "[4611686018427387904]"]
RESOURCE_DTYPES = ["float32"] * 5 + ["int8", "int64", "bool", "float16", "bfloat16", "float64", "uint8"]
ALIGN_WORDS = ["10000000", "04000000", "01000000", "00000000", "03000000", "FFFFFFFF", "00001000", "1000"]


RESOURCE_ITEMSIZE = {"float32": 4, "int8": 1, "int64": 8, "bool": 1, "float16": 2, "bfloat16": 2, "float64": 8, "uint8": 1}


def resource_program(rng: random.Random) -> tuple[str, str | None]:
    """
    A program with one weight in `dialect_resources`, broken in one to three
    ways; and what makes it unreadable for certain (`malformed`: any reading
    refuses it) or unusable (`size`: its bytes do not fill its type, which a
    run or the lowering refuses), or None where no rule is known to be broken.
    """
    shape, dtype = "[2]", "float32"
    key, ref = "w", "w"
    data = "0000803F00000040"  # [1.0, 2.0]
    align = "10000000"
    entries: list[tuple[str, str]] = []
    sections = 1
    dialect = "builtin"
    inline = False
    extra = ""
    for _ in range(rng.randint(1, 3)):
        how = rng.choice([
            "shape", "dtype", "dup-key", "second-section", "hex-space", "hex-odd", "hex-char", "no-0x", "empty",
            "short", "long", "huge", "align", "missing-key", "key-chars", "dialect", "inline", "many-keys", "garbage",
        ])  # fmt: skip
        if how == "shape":
            shape = rng.choice(RESOURCE_SHAPES)
        elif how == "dtype":
            dtype = rng.choice(RESOURCE_DTYPES)
        elif how == "dup-key":
            entries.append((key, "0x10000000" + rng.choice(["00004040000080C0", "00", ""])))
        elif how == "second-section":
            sections = 2
        elif how == "hex-space":
            i = rng.randrange(len(data) + 1)
            data = data[:i] + rng.choice([" ", "\t", "\\n", "_"]) + data[i:]
        elif how == "hex-odd":
            data = data[:-1]
        elif how == "hex-char" and data:
            i = rng.randrange(len(data))
            data = data[:i] + rng.choice("gGzZ-+x\u00e9") + data[i + 1 :]
        elif how == "no-0x":
            align = "x" + align if rng.random() < 0.5 else "0X" + align
        elif how == "empty":
            align, data = rng.choice([("", ""), (align, "")])
        elif how == "short":
            data = data[: rng.randrange(len(data) + 1) // 2 * 2]
        elif how == "long":
            data += "00" * rng.choice([1, 4, 8, 1000])
        elif how == "huge":
            data = "00" * rng.choice([1 << 16, 1 << 20, 1 << 22])
        elif how == "align":
            align = rng.choice(ALIGN_WORDS)
        elif how == "missing-key":
            ref = rng.choice(["v", "w2", "W"])
        elif how == "key-chars":
            key = ref = rng.choice(['"w x"', '"\u00e9"', '"w\\00"', "w.w", '""', "_", "w" * 300])
        elif how == "dialect":
            dialect = rng.choice(["exir", "nonsense", '"builtin"', "builtin.x"])
        elif how == "inline":
            inline = True
        elif how == "many-keys":
            entries += [(f"unused{i}", "0x1000000000000000") for i in range(rng.choice([10, 3000]))]
        else:
            extra = rng.choice(["{", "}", ",", "#-}", "{-#", ":", '"', "dialect_resources: {}"])
    t = f"!exir.tensor<{shape}, {dtype}>"
    value = f'#exir.blob<"0x{data}">' if inline else f"dense_resource<{ref}>"
    program = (
        f'exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">] outputs [<user_output "out">] {{\n'
        f"  exir.state @w : {t} = {value}\n"
        f"  exir.graph @forward(%p_w: {t}, %x: {t}) -> ({t}) {{\n"
        f"    %out = aten.add.Tensor(%p_w, %x) : ({t}, {t}) -> {t}\n"
        f"    exir.output %out : {t}\n  }}\n}}\n"
    )
    blob = f"0x{align}{data}" if not align.startswith(("x", "0X")) else f"{align}{data}"
    body = ",\n".join(f'      {k}: "{v}"' for k, v in [(key, blob), *entries])
    section = f"{{-#\n  dialect_resources: {{\n    {dialect}: {{\n{body}\n    }}\n  }}\n#-}}\n"
    if extra:
        i = rng.randrange(len(section) + 1)
        section = section[:i] + extra + section[i:]
    keys = [key] + [k for k, _ in entries]
    hex_ok = re.fullmatch(r"([0-9A-Fa-f]{2})*", data) is not None
    numel = 1
    for size in json.loads(shape):
        numel *= size
    broken: str | None = None
    if inline:
        if not hex_ok:
            broken = "malformed"
        elif len(data) // 2 != numel * RESOURCE_ITEMSIZE[dtype]:
            broken = "size"
    elif dialect == "builtin" and not extra:
        if len(set(keys)) < len(keys) or sections > 1 or not hex_ok or ref != key:
            broken = "malformed"
        elif align in ("00000000", "03000000", "FFFFFFFF") or align.startswith(("x", "0X")):
            broken = "malformed"
        elif len(align) == 8 and len(data) // 2 != numel * RESOURCE_ITEMSIZE[dtype]:
            broken = "size"
    return program + "\n" + section * sections, broken


def resources_case(rng: random.Random, tmp: Path) -> None:
    src = tmp / "m.mlir"
    text, broken = resource_program(rng)
    src.write_text(text)
    how = rng.choice(["read", "lower", "lower", "run", "run"])
    must_fail = broken == "malformed" or (broken == "size" and how != "read")
    if how == "run":
        out = tmp / "out.npz"
        argv = [str(src), "--random-inputs", "0", "--max-tensor-bytes", LIMIT, "-o", str(out)]
        check_promise("exir-run", invoke("exir-run", argv), out, must_fail)
        return
    out = tmp / "out.mlir"
    lower = ["-p", "convert-exir-to-linalg"] if how == "lower" else []
    argv = [str(src), *lower, "--max-tensor-bytes", LIMIT, "-o", str(out)]
    check_promise("exir-opt", invoke("exir-opt", argv), out, must_fail)


# -- the Python API's arguments --------------------------------------------------


def api_values(tmp: Path) -> list[Any]:
    """Arguments no function of the API takes in that place (and a few it does)."""
    return [
        None, 0, -1, 3, 1.5, float("nan"), True, "x", "", b"x", b"", [], {}, (), object(), 10**30,
        np.ones(0, np.float32), np.ones((2, 2), np.float32), np.array(["a"]), np.float32(1.0),
        np.ones(2, np.float64), np.full(2, np.nan, np.float32), np.ones(2, np.float32)[::-1], np.ones(4, np.float32)[::2],
        [1.0, 2.0], [[1.0], [2.0, 3.0]], {"x": np.ones(2, np.float32)}, (np.ones(2, np.float32),),
        "exir.program", str(tmp), str(tmp / "missing.pt2"), tmp, API_PROGRAM[:60], API_PROGRAM.replace("relu", "rleu"),
        str(ROOT / "tests" / "torchscript" / "dumps" / "lstm_cell.txt"), "mlp", "interpreter", "cse,dce", "{", "fx", "dot{collapse-depth=x}",
    ]  # fmt: skip


def api_calls() -> list[tuple[str, Callable[..., Any]]]:
    """(what, call taking the hostile value and the program, compiled program and profile)."""
    import xdsl_exir.api as exir

    x = np.ones(2, np.float32)
    zoo = str(ROOT / "tests" / "zoo" / "mlp.core.pt2")
    return [
        ("parse(v)", lambda v, p, c, f: exir.parse(v)),
        ("parse(format=v)", lambda v, p, c, f: exir.parse(API_PROGRAM, format=v)),
        ("parse(name=v)", lambda v, p, c, f: exir.parse(API_PROGRAM, name=v)),
        ("parse(entry=v)", lambda v, p, c, f: exir.parse(API_PROGRAM, entry=v)),
        ("load(v)", lambda v, p, c, f: exir.load(v)),
        ("load(format=v)", lambda v, p, c, f: exir.load(zoo, format=v)),
        ("load(bytes, format=v)", lambda v, p, c, f: exir.load(API_PROGRAM.encode(), format=v)),
        ("load(entry=v)", lambda v, p, c, f: exir.load(zoo, entry=v)),
        ("Program(v)", lambda v, p, c, f: repr(exir.Program(v))),
        ("emit(v)", lambda v, p, c, f: p.emit(v)),
        ("emit(debuginfo=v)", lambda v, p, c, f: p.emit("mlir", debuginfo=v)),
        ("emit(generic=v)", lambda v, p, c, f: p.emit("mlir", generic=v)),
        ("apply(v)", lambda v, p, c, f: p.apply(v)),
        ("run(v)", lambda v, p, c, f: p.run(v)),
        ("run(x=v)", lambda v, p, c, f: p.run(x=v)),
        ("run(x, v)", lambda v, p, c, f: p.run(x, v)),
        ("run_flat(v)", lambda v, p, c, f: p.run_flat(v)),
        ("run_flat([v])", lambda v, p, c, f: p.run_flat([v])),
        ("profile(v)", lambda v, p, c, f: p.profile(v)),
        ("profile(runs=v)", lambda v, p, c, f: p.profile(x, runs=v)),
        ("table(limit=v)", lambda v, p, c, f: f.table(limit=v)),
        ("compile(v)", lambda v, p, c, f: p.compile("interpreter" if v is None else v)),
        ("compile(threads=v)", lambda v, p, c, f: p.compile("interpreter", threads=v)),
        ("compile(pipeline=v)", lambda v, p, c, f: p.compile("interpreter", pipeline=v)),
        ("compile(device=v)", lambda v, p, c, f: p.compile("interpreter", device=v)),
        ("exir.compile(v)", lambda v, p, c, f: exir.compile(v, backend="interpreter")),
        ("exir.compile(p, v)", lambda v, p, c, f: exir.compile(p, v, backend="interpreter")),
        ("compiled(v)", lambda v, p, c, f: c(v)),
        ("compiled.save(v)", lambda v, p, c, f: c.save(v)),
    ]


def api_case(rng: random.Random, tmp: Path) -> None:
    """
    A public function of the API with a hostile argument: it returns, or raises
    `ExirError` or `TypeError` with one paragraph and no "internal error".
    """
    import xdsl_exir.api as exir

    p = exir.parse(API_PROGRAM)
    compiled = p.compile("interpreter")
    prof = p.profile(np.ones(2, np.float32))
    what, call = rng.choice(api_calls())
    value = rng.choice(api_values(tmp))
    with time_bound(MAX_SECONDS):
        try:
            call(value, p, compiled, prof)
        except (exir.ExirError, TypeError) as e:
            text = str(e)
            assert text and "internal error" not in text and "Traceback" not in text, f"{what} with {value!r}: {text}"
            assert "\n\n" not in text.strip(), f"{what} with {value!r}: not one paragraph:\n{text}"
        except Exception as e:
            raise AssertionError(f"{what} with {value!r}: leaked {type(e).__name__}: {e}") from e


# -- IREE on hostile programs ----------------------------------------------------

HUGE_CREATIONS = [
    ('exir.call_function "aten.zeros.default"([100000, 100000])', "[100000, 100000]"),
    ('exir.call_function "aten.full.default"([100000, 100000], 1.5)', "[100000, 100000]"),
    ('exir.call_function "aten.ones.default"([4611686018427387904])', "[4611686018427387904]"),
    ('exir.call_function "aten.empty.memory_format"([65536, 65536])', "[65536, 65536]"),
    ('exir.call_function "aten.arange.default"(10000000000)', "[10000000000]"),
    ('exir.call_function "aten.randn.default"([30000, 30000])', "[30000, 30000]"),
]


def created_program(creation: str, shape: str) -> str:
    t = f"!exir.tensor<{shape}, float32>" if "arange" not in creation else f"!exir.tensor<{shape}, int64>"
    x = "!exir.tensor<[2], float32>"
    return (
        f'exir.program inputs [<user_input "x">] outputs [<user_output "r">] {{\n'
        f"  exir.graph @forward(%x: {x}) -> {t} {{\n"
        f"    %r = {creation} : () -> {t}\n"
        f"    exir.output %r : {t}\n  }}\n}}\n"
    )


def iree_case(rng: random.Random, tmp: Path, compiles: bool = False) -> None:
    """
    `exir-run --backend iree` on a program that creates a tensor over the limit,
    or holds a weight its blob does not fill: refused before IREE is asked. With
    `compiles` (the wide campaign only: each takes seconds), also programs that
    reach IREE: a corrupted cache entry, an unusable device, wrong inputs.
    """
    cache_dir = tmp / "iree-cache"
    src = tmp / "m.mlir"
    extra: list[str] = []
    must_fail = False
    kind = rng.choice(["create", "create", "resource", "cache", "device", "inputs", "bundle"]) if compiles else "create"
    if kind == "create":
        src.write_text(created_program(*rng.choice(HUGE_CREATIONS)))
        must_fail = True
    elif kind == "resource":
        text, broken = resource_program(rng)
        src.write_text(text)
        must_fail = broken is not None
    else:
        src = ROOT / "tests" / "zoo" / rng.choice(["mlp.core.pt2", "while_loop.core.pt2", "embedding.core.pt2"])
    if kind == "cache":  # compile once, corrupt what the cache holds, run again: recompiled, not failing
        first = invoke("exir-run", [str(src), "--random-inputs", "0", "--backend", "iree", "--iree-cache-dir", str(cache_dir)])
        check_promise("exir-run", first, None)
        for entry in [p for p in cache_dir.rglob("*") if p.is_file()]:
            how = rng.choice(["truncate", "garbage", "empty", "flip"])
            data = entry.read_bytes()
            if how == "truncate":
                entry.write_bytes(data[: len(data) // 2])
            elif how == "garbage":
                entry.write_bytes(b"not a module" * 10)
            elif how == "empty":
                entry.write_bytes(b"")
            elif data:
                raw = bytearray(data)
                raw[rng.randrange(len(raw))] ^= 0xFF
                entry.write_bytes(bytes(raw))
    elif kind == "device":
        extra = ["--iree-device", rng.choice(["cuda", "rocm", "vulkan", "bogus", "", "cpu:9"])]
    elif kind == "inputs":
        (tmp / "in.npz").write_bytes(rng.choice(BAD_NPZ)())
        extra = ["--inputs", str(tmp / "in.npz")]
    if kind == "bundle":
        name = "iree-bundle"
        spec = option_spec(rng, name, target_options()[name])
        out = tmp / "bundle"
        result = invoke("exir-opt", [str(src), "--emit", spec, "--max-tensor-bytes", LIMIT, "-o", str(out)])
        check_promise("exir-opt", result, None)
        assert result.rc == 0 or not out.exists(), "an output was written on failure"
        return
    if kind != "inputs":
        extra = [*extra, "--random-inputs", "0"]
    out = tmp / "out.npz"
    argv = [str(src), *extra, "--backend", "iree", "--iree-cache-dir", str(cache_dir), "--max-tensor-bytes", LIMIT, "-o", str(out)]
    check_promise("exir-run", invoke("exir-run", argv), out, must_fail)


CASE_BUILDERS: dict[str, Callable[[random.Random, Path], None]] = {
    "pt2": pt2_case,
    "mlir": text_case("mlir"),
    "torchscript": text_case("torchscript"),
    "script": text_case("script"),
    "npz": npz_case,
    "output": output_case,
    "pipeline": pipeline_case,
    "options": options_case,
    "resources": resources_case,
    "api": api_case,
    "iree": iree_case,
}


# ---------------------------------------------------------------------------
# Fixed cases: what the issue reproduced, and what only a real process shows
# ---------------------------------------------------------------------------


def test_exir_opt_timeout(tmp_path: Path) -> None:
    """`exir-opt --timeout` stops a long pass with a diagnostic and writes nothing."""
    loops = ["graph(%x.1 : Float(2, strides=[1], requires_grad=0, device=cpu)):",
             "  %n : int = prim::Constant[value=100]()", "  %t : bool = prim::Constant[value=1]()",
             "  %one : int = prim::Constant[value=1]()", "  %y : Tensor = prim::Loop(%n, %t, %x.1)",
             "    block0(%i : int, %a : Tensor):", "      %b : Tensor = prim::Loop(%n, %t, %a)",
             "        block0(%j : int, %c : Tensor):", "          %d : Tensor = aten::add(%c, %x.1, %one)",
             "          -> (%t, %d)", "      -> (%t, %b)", "  return (%y)"]  # fmt: skip
    src = tmp_path / "loops.txt"
    src.write_text("\n".join(loops) + "\n")
    out = tmp_path / "out.mlir"
    r = invoke("exir-opt", [str(src), "-p", "torchscript-to-exir", "--timeout", "0.05", "-o", str(out)])
    check_promise("exir-opt", r, out, must_fail=True)
    assert "timed out after 0.05 s (--timeout)" in r.err


def test_call_function_enums_are_checked(tmp_path: Path) -> None:
    """
    An exir.call_function's enum torch would refuse is refused by its op
    verifier: on reading, so by verify-export-ir, exir-run and the lowering
    alike (each computed the default silently); the values torch takes pass.
    """
    t = "!exir.tensor<[2], float32>"
    cases = {
        '"aten.div.Tensor_mode"(%x, %x, rounding_mode = "bogus")': "rounding_mode='bogus' is not one of None, 'trunc', 'floor'",
        '"aten.gelu.default"(%x, approximate = "fast")': "approximate='fast' is not one of 'none', 'tanh'",
        '"aten.div.Tensor_mode"(%x, %x, rounding_mode = "floor")': None,
        '"aten.div.Tensor_mode"(%x, %x, rounding_mode = none)': None,
        '"aten.gelu.default"(%x, approximate = "tanh")': None,
    }
    for call, message in cases.items():
        src = tmp_path / "m.mlir"
        src.write_text(
            f'exir.program inputs [<user_input "x">] outputs [<user_output "r">] {{\n'
            f"  exir.graph @forward(%x: {t}) -> {t} {{\n    %r = exir.call_function {call} : ({t}) -> {t}\n"
            f"    exir.output %r : {t}\n  }}\n}}\n".replace(f"({t}) -> {t}\n", f"({', '.join([t] * call.count('%x'))}) -> {t}\n")
        )
        for tool, argv in (
            ("exir-opt", ["-p", "verify-export-ir"]),
            ("exir-opt", ["-p", "convert-exir-to-linalg"]),
            ("exir-run", ["--random-inputs", "0"]),
        ):
            r = invoke(tool, [str(src), *argv])
            if message is None:
                assert r.rc == 0, (call, r.err)
            else:
                assert r.rc == 1 and message in r.err and "m.mlir:3:" in r.err, (call, tool, r.err)
    loss = tmp_path / "loss.mlir"
    s = "!exir.tensor<[], float32>"
    loss.write_text(
        f'exir.program inputs [<user_input "x">] outputs [<user_output "r">] {{\n'
        f"  exir.graph @forward(%x: {t}) -> {s} {{\n"
        f'    %r = exir.call_function "aten.mse_loss.default"(%x, %x, 5) : ({t}, {t}) -> {s}\n'
        f"    exir.output %r : {s}\n  }}\n}}\n"
    )
    r = invoke("exir-opt", [str(loss), "-p", "verify-export-ir"])
    assert r.rc == 1 and "reduction=5 is not one of 0, 1, 2" in r.err, r.err


def test_torchscript_enums_are_checked_when_run(tmp_path: Path) -> None:
    """A TorchScript graph's enums are values of the run: checked there (the mean of no reduction was silent)."""
    head = "graph(%x.1 : Float(2, strides=[1], requires_grad=0, device=cpu)):\n"
    cases = {
        '  %m : str = prim::Constant[value="bogus"]()\n  %y : Tensor = aten::div(%x.1, %x.1, %m)\n': "rounding_mode='bogus'",
        '  %m : str = prim::Constant[value="fast"]()\n  %y : Tensor = aten::gelu(%x.1, %m)\n': "approximate='fast'",
        "  %m : int = prim::Constant[value=5]()\n  %y : Tensor = aten::mse_loss(%x.1, %x.1, %m)\n": "reduction=5",
        '  %m : str = prim::Constant[value="floor"]()\n  %y : Tensor = aten::div(%x.1, %x.1, %m)\n': None,
    }
    inputs = tmp_path / "in.npz"
    inputs.write_bytes(npz_bytes(arg0=np.ones(2, np.float32)))
    for body, phrase in cases.items():
        src = tmp_path / "g.txt"
        src.write_text(head + body + "  return (%y)\n")
        r = invoke("exir-run", [str(src), "--inputs", str(inputs)])
        if phrase is None:
            assert r.rc == 0, r.err
        else:
            assert r.rc == 1 and phrase in r.err and "as torch requires" in r.err, (body, r.err)


def test_torchscript_module_calls_are_located_at_the_users_line() -> None:
    """
    An op of a scripted `nn.Linear`, inlined by torchscript-to-exir, is located
    at the user's call of the module, not at `torch/nn/modules/linear.py`
    (where no frame is outside torch, all are kept).
    """
    torch = pytest.importorskip("torch")
    import inspect

    import xdsl_exir.api as exir
    from xdsl_exir.frontends.torchscript_live import import_script_module
    from xdsl_exir.utils.diagnostics import format_location

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, x):  # unannotated: TorchScript reads it as a Tensor
            y = self.lin(x)
            return torch.relu(y)

    first = inspect.getsourcelines(Model)[1]
    module = import_script_module(torch.jit.script(Model()))
    program = exir.load(module).apply('torchscript-to-exir{input-types="x=f32[4,3]"}')
    where = {op.name: format_location(op.location) for op in program.module.walk() if op.name.startswith("aten.")}
    assert where["aten.linear.default"] == f"{__file__}:{first + 6}:16", where
    assert where["aten.relu.default"] == f"{__file__}:{first + 7}:19", where
    lin = torch.jit.script(torch.nn.Linear(3, 2))
    alone = exir.load(import_script_module(lin)).apply('torchscript-to-exir{input-types="input=f32[4,3]"}')
    (linear,) = [op for op in alone.module.walk() if op.name == "aten.linear.default"]
    assert "torch/nn/modules/linear.py" in (format_location(linear.location) or "")


def test_torchscript_run_directly_locates_a_failing_module_call_at_the_users_line(tmp_path: Path) -> None:
    """
    A TorchScript module run as it is (no torchscript-to-exir) that fails inside
    an `nn.Linear` reports the user's `self.lin(x)`, its call site, not
    `torch/nn/modules/linear.py`; through the API and through exir-run on the
    module's MLIR text alike. A traced module records no call site, only the
    submodule's scope, which the message names.
    """
    torch = pytest.importorskip("torch")
    import inspect

    import xdsl_exir.api as exir
    from xdsl_exir.frontends.torchscript_live import import_script_module

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = torch.nn.Linear(3, 2)

        def forward(self, x):  # unannotated: TorchScript reads it as a Tensor
            y = self.lin(x)
            return torch.relu(y)

    call = f"{__file__}:{inspect.getsourcelines(Model)[1] + 6}:16: "
    wrong = np.ones((4, 5), np.float32)
    scripted = torch.jit.script(Model())
    program = exir.load(import_script_module(scripted))
    with pytest.raises(exir.ExirError) as e:
        program.run(wrong)
    assert str(e.value).startswith(call) and "in the call made here" in str(e.value), str(e.value)
    assert "torch/nn" not in str(e.value)
    right = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_allclose(program.run(right), scripted(torch.from_numpy(right)).detach().numpy(), rtol=1e-6)
    src = tmp_path / "m.mlir"
    src.write_text(program.to_mlir(debuginfo=True))
    inputs = tmp_path / "in.npz"
    np.savez(inputs, arg0=wrong)
    out = tmp_path / "out.npz"
    r = invoke("exir-run", [str(src), "--inputs", str(inputs), "-o", str(out)])
    check_promise("exir-run", r, out, must_fail=True)
    assert r.err.startswith(f"exir-run: error: {call}"), r.err
    traced = exir.load(import_script_module(torch.jit.trace(Model(), torch.ones(4, 3))))
    with pytest.raises(exir.ExirError, match=r"^__module\.lin at .*torch/nn/modules/linear\.py:\d+:0: "):
        traced.run(wrong)


def test_resource_rules(tmp_path: Path) -> None:
    """What issue 25 found in dialect_resources is refused, located, with the rule it breaks."""
    base = (ROOT / "tests" / "filecheck" / "dialects" / "exir" / "resources.mlir").read_text()
    blob = '"0x1000000000004040000080C0"'
    cases = {
        "duplicate key": (base.replace(f"w: {blob}", f'w: {blob},\n      w: "0x10000000000000000000803F"'), [], "resource 'w' is given twice"),
        "second section": (base + base[base.index("{-#") : base.index("#-}") + 3] + "\n", [], "a second dialect_resources section"),
        "space in hex": (base.replace(blob, '"0x10000000 00004040000080C0"'), [], "malformed hex data"),
        "missing key": (base.replace("dense_resource<w>", "dense_resource<v>"), [], "resource 'v' has no entry"),
        "tab in an inline blob": (base.replace('"0x0000803F00000040"', '"0x0000803F\t00000040"'), [], "malformed hex data"),
        "short, lowered": (base.replace(blob, '"0x1000000000004040"'), ["-p", "convert-exir-to-linalg"], "its data is 4 bytes"),
        "huge type, lowered": (
            base.replace("[2], float32", "[100000, 100000], float32"),
            ["-p", "convert-exir-to-linalg"],
            "holds 40000000000 bytes",
        ),
    }
    for name, (text, argv, phrase) in cases.items():
        src = tmp_path / "r.mlir"
        src.write_text(text)
        out = tmp_path / "out.mlir"
        r = invoke("exir-opt", [str(src), *argv, "-o", str(out)])
        check_promise("exir-opt", r, out, must_fail=True)
        assert phrase in r.err and r.err.count(f"{src}:") == 1 and "elided" not in r.err, (name, r.err)


def test_every_reader_refuses_a_missized_blob_in_the_same_words(tmp_path: Path) -> None:
    """
    A weight's bytes are checked against its type by one function: the interpreter,
    the linalg lowering, the Python emitter, the lowered-MLIR reader and the API refuse
    a short, long, empty or one-element (splat-looking) blob alike, located, in one line.
    """
    import xdsl_exir.api as exir

    base = (ROOT / "tests" / "filecheck" / "dialects" / "exir" / "resources.mlir").read_text()
    good = tmp_path / "good.mlir"
    good.write_text(base)
    lowered = tmp_path / "lowered.mlir"
    assert invoke("exir-opt", [str(good), "-p", "convert-exir-to-linalg", "-o", str(lowered)]).rc == 0
    assert "0x1000000000004040000080C0" in lowered.read_text()
    found = re.search(r"%p_w = arith\.constant dense_resource<(\w+)>", lowered.read_text())
    assert found is not None
    key = found.group(1)  # `w`, or `w_0`... where the process holds a `w` of other data
    for hex_data, nbytes in (("0x10000000", 0), ("0x1000000000004040", 4), ("0x1000000000004040000080C000000000", 12)):
        wording = f"its data is {nbytes} bytes, but a float32 tensor of sizes [2] holds 8 bytes"
        src = tmp_path / "w.mlir"
        src.write_text(base.replace('"0x1000000000004040000080C0"', f'"{hex_data}"'))
        low = tmp_path / "low.mlir"
        low.write_text(lowered.read_text().replace('"0x1000000000004040000080C0"', f'"{hex_data}"'))
        runs = {
            "interpreter": ("exir-run", [str(src)], r"state @w: "),
            "lowering": ("exir-opt", [str(src), "-p", "convert-exir-to-linalg"], r"state @w: "),
            "python": ("exir-opt", [str(src), "--emit", "python"], r"state @w: "),
            # at the constant that reads it, the key as the file writes it (which the
            # process's storage, holding that key from the reads before, declares anew)
            "lowered MLIR": (
                "exir-run",
                [str(low), "--random-inputs", "0"],
                rf"low\.mlir:\d+:\d+: 'arith\.constant' \(%p_w\) in @forward: dense_resource<{key}>: ",
            ),
        }
        for name, (tool, argv, prefix) in runs.items():
            out = tmp_path / ("out.npz" if tool == "exir-run" else "out.txt")
            r = invoke(tool, [*argv, "-o", str(out)])
            check_promise(tool, r, out, must_fail=True)
            assert re.search(prefix + re.escape(wording), r.err) and r.err.count("\n") == 1, (name, hex_data, r.err)
        with pytest.raises(exir.ExirError, match=re.escape(wording)):
            exir.load(src).run()


def test_a_directory_is_refused_as_a_directory(tmp_path: Path) -> None:
    """
    exir-opt, exir-run and `load()` say that a directory is one and what they read, in
    one sentence (`directory_given`); exir-run takes a compiled artifact's directory too,
    so one without a manifest is refused before its flags are judged against an artifact.
    """
    import xdsl_exir.api as exir
    from xdsl_exir.tools.exir_opt import PROGRAM_FILES

    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "mlp.mlir").write_text((ROOT / "examples" / "mlp.mlir").read_text())
    reads = f"{folder}: is a directory; %s reads a file ({PROGRAM_FILES})"
    out = tmp_path / "out.mlir"
    r = invoke("exir-opt", [str(folder), "-o", str(out)])
    check_promise("exir-opt", r, out, must_fail=True)
    assert reads % "exir-opt" + "; a compiled artifact's directory (--emit iree-bundle) runs with exir-run" in r.err, r.err
    for argv in ([], ["-p", "canonicalize"]):
        npz = tmp_path / "out.npz"
        r = invoke("exir-run", [str(folder), *argv, "-o", str(npz)])
        check_promise("exir-run", r, npz, must_fail=True)
        assert reads % "exir-run" + " or runs a compiled artifact's directory" in r.err, (argv, r.err)
        assert "holds a manifest.json; this one has none" in r.err and "-p" not in r.err, (argv, r.err)
    with pytest.raises(exir.ExirError) as e:
        exir.load(folder)
    assert str(e.value).startswith(reads % "load()" + " or takes an ExportedProgram"), str(e.value)


def test_torchscript_nodes_are_named_by_their_kind(tmp_path: Path) -> None:
    """A failing TorchScript node is named as its graph names it (`aten::linear`), not as the generic `ts.node` it is read into."""
    import xdsl_exir.api as exir

    dump = tmp_path / "linear.txt"
    dump.write_text(
        "graph(%x : Tensor, %w : Tensor):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %y : Tensor = aten::linear(%x, %w, %none)\n"
        "  return (%y)\n"
    )
    x, w = np.ones((2, 3), np.float32), np.ones((4, 5), np.float32)
    inputs = tmp_path / "in.npz"
    inputs.write_bytes(npz_bytes(arg0=x, arg1=w))
    out = tmp_path / "out.npz"
    r = invoke("exir-run", [str(dump), "--inputs", str(inputs), "-o", str(out)])
    check_promise("exir-run", r, out, must_fail=True)
    assert "'aten::linear' (%y) in @forward: " in r.err and "ts.node" not in r.err, r.err
    with pytest.raises(exir.ExirError, match=r"^'aten::linear' \(%y\) in @forward: "):
        exir.load(dump).run(x, w)


def test_usage_errors_exit_1() -> None:
    """A flag given a bad value is bad input like any other: exit 1, as the README says."""
    example = str(ROOT / "examples" / "mlp.mlir")
    for argv in (["--mlir-elide-resource-strings-if-larger", "x"], ["--max-tensor-bytes", "-1"], ["--no-such-flag"]):
        r = invoke("exir-opt", [example, *argv])
        assert r.rc == 1 and "exir-opt: error: " in r.err, (argv, r)
    model = str(ROOT / "tests" / "zoo" / "mlp.core.pt2")
    for argv in (["--random-inputs", "-1"], ["--random-inputs", "x"], ["--threads", "0"], ["--timeout", "nan"]):
        r = invoke("exir-run", [model, *argv])
        assert r.rc == 1 and "exir-run: error: " in r.err and "internal error" not in r.err, (argv, r)


def test_near_miss_pass_and_option_names_get_suggestions(tmp_path: Path) -> None:
    example = str(ROOT / "examples" / "mlp.mlir")
    r = invoke("exir-opt", [example, "-p", "optimise-inference"])
    assert r.rc == 1 and "did you mean 'optimize-inference'" in r.err
    r = invoke("exir-opt", [example, "-p", "flop-count{mod=all}"])
    assert r.rc == 1 and "has no option 'mod'; did you mean 'mode'?" in r.err
    r = invoke("exir-opt", [example, "-p", "flop-count{report=false}"])
    assert r.rc == 1 and "option 'report' of pass 'flop-count' takes a string, got false" in r.err
    r = invoke("exir-opt", [example, "--emit", "fxx"])
    assert r.rc == 1 and "did you mean 'fx'" in r.err and "torchscript" in r.err
    # Options are named as --list-passes spells them, and an unquoted dotted value says how to quote it.
    r = invoke("exir-opt", [example, "-p", "fuse-pointwise{min_sze=2}"])
    assert r.rc == 1 and "has no option 'min-sze'; did you mean 'min-size'? (its options: min-size)" in r.err
    r = invoke("exir-opt", [example, "-p", "decompose{legal-ops=aten.linear.default}"])
    assert r.rc == 1 and 'goes in quotes: legal-ops="aten.linear.default"' in r.err
    out = tmp_path / "o.mlir"
    r = invoke("exir-opt", [example, "--pass-pipeline", "builtin.module(exir-cse,exir-dce)", "-o", str(out)])
    assert r.rc == 0 and "exir.program" in out.read_text()


def test_refused_sizes_name_the_tensor_and_the_limit(tmp_path: Path) -> None:
    t = "!exir.tensor<[40000, 40000], float32>"
    src = tmp_path / "big.mlir"
    src.write_text(
        f'exir.program inputs [<user_input "x">] outputs [<user_output "x">] {{\n'
        f"  exir.graph @forward(%x: {t}) -> {t} {{\n    exir.output %x : {t}\n  }}\n}}\n"
    )
    r = invoke("exir-run", [str(src), "--random-inputs", "0", "--max-tensor-bytes", "1G"])
    assert r.rc == 1
    assert "random input 'x'" in r.err and "6400000000 bytes" in r.err and "--max-tensor-bytes" in r.err
    src.write_text(src.read_text().replace("40000, 40000", "100000000000, 100000000000"))
    r = invoke("exir-run", [str(src), "--random-inputs", "0"])
    assert r.rc == 1 and "more than numpy can represent" in r.err


def test_timeout_stops_a_run_that_loops_forever(tmp_path: Path) -> None:
    src = tmp_path / "loop.py"
    src.write_text("def f(n: int) -> int:\n    i = 0\n    while i >= 0:\n        i += 1\n    return i\n")
    out = tmp_path / "out.npz"
    r = invoke("exir-run", [str(src), "--random-inputs", "0", "--timeout", "0.5", "-o", str(out)])
    assert r.rc == 1 and "timed out after 0.5 s" in r.err and not out.exists()


def test_pt2_archive_rules(tmp_path: Path) -> None:
    _, entries = zoo_archive("mlp", "core")
    root = next(iter(entries)).split("/", 1)[0] + "/"
    cases = {
        "no byteorder": ({k: v for k, v in entries.items() if k != root + "byteorder"}, "missing entry 'byteorder'"),
        "version 1": ({**entries, root + "archive_version": b"1"}, "archive_version is '1'"),
        "30,000 extra entries": (
            {**entries, **{f"{root}extra/e{i}": b"" for i in range(30_000)}},
            "zip entries that the program does not refer to; more than 1000",
        ),
    }
    for name, (content, message) in cases.items():
        src = tmp_path / f"{name}.pt2"
        src.write_bytes(rezip(content))
        r = invoke("exir-opt", [str(src)])
        assert r.rc == 1 and message in r.err, (name, r.err)


def test_xdsl_fixes_hold(tmp_path: Path) -> None:
    """The holes the fuzzer found in xDSL itself (`utils/xdsl_fixes.py`) stay closed."""
    example = (ROOT / "examples" / "mlp.mlir").read_text()
    unclosed = tmp_path / "unclosed.mlir"
    unclosed.write_text('"exir.graph @g(%x: !exir.tensor<[2], float32>) -> () {\n  exir.output\n}\n')
    r = invoke("exir-opt", [str(unclosed)])
    assert r.rc == 1 and "before closing string literal" in r.err  # without the fix, it never returns
    accents = tmp_path / "accents.mlir"
    accents.write_text(example.replace('"mlp.py":14', '"jos\u00e9.py":14').replace("aten.abs.default", "aten.ab\u00e9"))
    first, second = tmp_path / "first.mlir", tmp_path / "second.mlir"
    assert invoke("exir-opt", [str(accents), "--print-debuginfo", "-o", str(first)]).rc == 0
    assert invoke("exir-opt", [str(first), "--print-debuginfo", "-o", str(second)]).rc == 0
    assert '"jos\\C3\\A9.py":14' in second.read_text() and '"aten.ab\\C3\\A9"' in second.read_text()
    for bomb, message in (
        ('"test.op"() {a = 1 : i100000000000} : () -> ()', "exceeds MLIR's limit"),
        ('"test.op"() {a = dense<1.0> : tensor<1000000000xf32>} : () -> ()', "the dense literal"),
    ):
        src = tmp_path / "bomb.mlir"
        src.write_text(bomb + "\n")
        r = invoke("exir-opt", [str(src), "--allow-unregistered-dialect"])
        assert r.rc == 1 and message in r.err and "bomb.mlir:1:" in r.err, r.err
    names = tmp_path / "names.mlir"
    names.write_text(
        "builtin.module {\n  ts.method @forward {\n  ^bb0(%x: !ts.tensor):\n"
        '    %_1 = prim.Constant() {value = 1 : i64} : () -> !ts.int\n'
        '    %_2 = prim.Constant() {value = 1 : i64} : () -> !ts.int\n'
        '    %_3 = ts.node "aten::add"(%_1, %_2) : (!ts.int, !ts.int) -> !ts.int\n'
        "    prim.Return(%_3) : (!ts.int) -> ()\n  }\n}\n"
    )
    for pipeline in ("constant-pooling", "constant-propagation", "exir-cse"):
        r = invoke("exir-opt", [str(names), "-p", pipeline, "-o", str(tmp_path / "out.mlir")])
        assert r.rc == 0, r.err


def tool_process(tool: str, *args: str, **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [str(Path(sys.executable).parent / tool), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_exit_codes_of_real_processes(tmp_path: Path) -> None:
    bad = tmp_path / "in.npz"
    bad.write_bytes(zip_of({"arg0.npy": npy_header((10**12,))}))
    runs = [
        tool_process("exir-opt", str(ROOT / "examples" / "mlp.mlir"), "-p", "flop-count mode=torch"),
        tool_process("exir-opt", str(ROOT / "examples" / "mlp.mlir"), "-o", str(tmp_path)),
        tool_process("exir-run", str(ROOT / "tests" / "zoo" / "mlp.core.pt2"), "--inputs", str(bad)),
    ]
    for proc in runs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 1, err
        assert "Traceback" not in err and "internal error" not in err and "\n\n" not in err.strip()


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})


def _wait_for_cpu(proc: subprocess.Popen[str], seconds: float) -> None:
    """
    Until `proc` has used `seconds` of CPU (a wall-clock sleep where /proc is
    missing): a point in its run that a loaded machine does not move, where a
    fixed sleep may still be in Python's start-up.
    """
    stat = Path(f"/proc/{proc.pid}/stat")
    if not stat.exists():
        time.sleep(seconds)
        return
    ticks = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        fields = stat.read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / ticks >= seconds:  # utime + stime
            return
        time.sleep(0.05)


def test_ctrl_c_ends_a_long_parse_cleanly(tmp_path: Path) -> None:
    t = "!exir.tensor<[4], float32>"
    head = 'exir.program inputs [<user_input "x">] outputs [<user_output "v99999">] {'
    lines = [head, f"exir.graph @forward(%x: {t}) -> {t} {{"]
    prev = "%x"
    for i in range(100_000):  # seconds to parse even when parsing gets much faster
        lines.append(f"  %v{i} = aten.relu.default({prev}) : ({t}) -> {t}")
        prev = f"%v{i}"
    lines += [f"  exir.output {prev} : {t}", "}", "}"]
    src = tmp_path / "chain.mlir"
    src.write_text("\n".join(lines) + "\n")
    out = tmp_path / "out.mlir"
    # SIGINT as a terminal leaves it: a harness that runs the tests with SIGINT ignored
    # (a background job) would pass that on, and the tool rightly keeps it ignored.
    proc = tool_process("exir-opt", str(src), "-o", str(out), preexec_fn=_default_sigint)
    _wait_for_cpu(proc, 1.5)  # past Python's start-up (the package's handler answers from there), in the parse
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err == "exir-opt: interrupted\n"
    assert not out.exists() and not [p for p in tmp_path.iterdir() if p.name.startswith(".exir-")]


# ---------------------------------------------------------------------------
# The Python API's arguments
# ---------------------------------------------------------------------------

API_PROGRAM = """exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    %r = aten.relu.default(%x) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}
"""


TS_PROGRAM = """graph(%x : Tensor):
  %r : Tensor = aten::relu(%x)
  return (%r)
"""


def api_wrong_arguments() -> list[tuple[str, Callable[[], Any], str]]:
    """(what, call, a phrase of the message): each call has a wrong argument."""
    import xdsl_exir.api as exir

    p = exir.parse(API_PROGRAM)
    x = np.ones(2, np.float32)
    return [
        ("parse(bytes)", lambda: exir.parse(b"exir.program"), "parse()'s text must be str, not bytes; load()"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("parse(None)", lambda: exir.parse(None), "parse()'s text must be str, not NoneType"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("parse(format=1)", lambda: exir.parse(API_PROGRAM, format=1), "format must be str, not int"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("load(entry=3)", lambda: exir.load(b"x", entry=3), "load()'s entry must be str or None, not int"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("load(None)", lambda: exir.load(None), "load() takes a path, bytes"),
        ("Program(None)", lambda: repr(exir.Program(None)), "Program()'s module must be ModuleOp, not NoneType"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("emit(None)", lambda: p.emit(None), "emit()'s target must be str, not NoneType"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("emit(bad option)", lambda: p.emit("dot{collapse-depth=x}"), "options of dot: collapse-depth"),
        ("emit(python{x=1})", lambda: p.emit("python{x=1}"), "it takes no options"),
        ("emit(debuginfo='a')", lambda: p.emit("mlir", debuginfo="a"), "debuginfo must be bool, not str"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("apply(None)", lambda: p.apply(None), "apply()'s pipeline must be str, not NoneType"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("profile(runs='a')", lambda: p.profile(x, runs="a"), "profile()'s runs must be int, not str"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("profile(runs=0)", lambda: p.profile(x, runs=0), "runs must be at least 1, got 0"),
        ("table(limit='a')", lambda: p.profile(x).table(limit="a"), "limit must be int or None, not str"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("run_flat(None)", lambda: p.run_flat(None), "run_flat()'s inputs must be list or tuple, not NoneType"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("run_flat([])", lambda: p.run_flat([]), "takes 1 user input (x), got 0"),
        ("run()", lambda: p.run(), "takes 1 user input (x), got 0"),
        ("run(x, x)", lambda: p.run(x, x), "takes 1 user input (x), got 2"),
        ("run(y=x)", lambda: p.run(y=x), "keyword arguments (y) need the input structure torch.export records"),
        ("run(x=x)", lambda: p.run(x=x), "has none: give its 1 user input (x) positionally"),
        ("load(directory)", lambda: exir.load(ROOT / "tests"), "tests: is a directory; load() reads a file (a torch.export .pt2"),
        ("load(bundle)", lambda: exir.load(str(ROOT / "tests")), "a compiled artifact's directory runs with xdsl_exir.runtime.load"),
        ("TorchScript run(x=x)", lambda: exir.parse(TS_PROGRAM, format="torchscript").run(x=x), "give its inputs (x) in that order"),
        ("run(list)", lambda: p.run([[1.0], [1.0, 2.0]]), "argument 0 is a list, and the program records no input"),
        ("run_flat(ragged)", lambda: p.run_flat([[1.0, [1.0, 2.0]]]), "got a list numpy cannot make an array of"),
        ("run(None)", lambda: p.run(None), "expected a float32 tensor, got NoneType"),
        ("run(str)", lambda: p.run("a"), "expected a float32 tensor, got numpy <U1"),
        ("run(shape)", lambda: p.run(np.ones(3, np.float32)), "dimension 0 must be 2"),
        ("compile(3)", lambda: exir.compile(3), "compile() takes an nn.Module"),
        ("compile(threads='a')", lambda: p.compile("interpreter", threads="a"), "threads must be int or None, not str"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("compile(threads=0)", lambda: p.compile("interpreter", threads=0), "threads must be at least 1, got 0"),
        ("compile(pipeline=array)", lambda: p.compile("interpreter", pipeline=x), "compile()'s pipeline must be str, not ndarray"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
        ("compile(backend=3)", lambda: p.compile(3), "backend must be str or None, not int"),  # pyright: ignore[reportArgumentType] - the wrong type is the test
    ]


def test_api_wrong_arguments_say_which() -> None:
    """
    Each public function of `xdsl_exir.api` given a wrong argument raises
    `ExirError` (a wrong value) or `TypeError` (a wrong type, as Python's own
    functions do) with one paragraph naming the argument: never another
    exception from deep inside, never "internal error".
    """
    from xdsl_exir.api import ExirError

    failures: list[str] = []
    for what, call, phrase in api_wrong_arguments():
        try:
            call()
        except (ExirError, TypeError) as e:
            text = str(e)
            if phrase not in text or "internal error" in text or "\n" in text:
                failures.append(f"{what}: {type(e).__name__}: {text}")
        except Exception as e:
            failures.append(f"{what}: leaked {type(e).__name__}: {e}")
        else:
            failures.append(f"{what}: no error")
    assert not failures, "\n".join(failures)


# ---------------------------------------------------------------------------
# xDSL's own passes and output formats on this project's dialects
# ---------------------------------------------------------------------------

STOCK_INPUTS = ("examples/mlp.mlir", "tests/torchscript/dumps/lstm_cell.txt")


def _stock_passes() -> list[str]:
    from xdsl.transforms import get_all_passes

    return sorted(get_all_passes())


def _stock_targets() -> list[str]:
    from xdsl.targets import get_all_targets

    return sorted(set(get_all_targets()) - {"mlir"})


@pytest.mark.parametrize("source", STOCK_INPUTS)
def test_stock_passes_refuse_in_one_line(source: str, tmp_path: Path) -> None:
    """Every xDSL pass on exir and TorchScript input: works, or one located line (never a dump)."""
    failures: list[str] = []
    for name in _stock_passes():
        out = tmp_path / f"{name}.mlir"
        result = invoke("exir-opt", [str(ROOT / source), "-p", name, "-o", str(out)])
        try:
            check_promise("exir-opt", result, out)
            assert result.rc == 0 or len(result.err.strip().splitlines()) <= 3, result.err  # a caret under the pipeline at most
        except AssertionError as e:
            failures.append(f"-p {name}: {e}")
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("source", STOCK_INPUTS)
def test_stock_targets_refuse_or_write_something(source: str, tmp_path: Path) -> None:
    """Every xDSL output format: text, or one line saying it does not take these dialects."""
    failures: list[str] = []
    for name in [*_stock_targets(), "python{x=1}", "mlir{bogus=1}", "torchscript{x=2}", "svg{timeout=9223372036854775808}"]:
        out = tmp_path / "out.txt"
        result = invoke("exir-opt", [str(ROOT / source), "--emit", name, "-o", str(out)])
        try:
            check_promise("exir-opt", result, None)
            assert result.rc == 1 or out.read_text().strip(), "exit 0 with an empty output"
            assert result.rc == 0 or not out.exists(), "an output was written on failure"
            assert "Warning" not in result.err, result.err
        except AssertionError as e:
            failures.append(f"--emit {name}: {e}")
        out.unlink(missing_ok=True)
    assert not failures, "\n".join(failures)


def test_an_ignored_sigint_stays_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    """
    A tool started with SIGINT ignored (a background job of a script) keeps it
    ignored, as POSIX programs do; one started with the default takes it over
    from the package's first line and hands it to Python in `run`.
    """
    from xdsl_exir.utils.interrupts import accept_interrupts, quiet_start_up

    monkeypatch.setattr(sys, "argv", ["/usr/bin/exir-opt"])
    previous = signal.getsignal(signal.SIGINT)
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        quiet_start_up()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        accept_interrupts()
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        quiet_start_up()
        handler = signal.getsignal(signal.SIGINT)
        assert callable(handler) and handler is not signal.default_int_handler
        accept_interrupts()
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, previous)


def test_memory_stayed_bounded() -> None:
    """Peak resident memory of this process (run after the cases): no case allocated what it claimed."""
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert peak_kib < 3 * 1024 * 1024, f"peak RSS {peak_kib / 1024:.0f} MiB"


# ---------------------------------------------------------------------------
# A TorchScript graph run on sizes other than its own
# ---------------------------------------------------------------------------

_F = "Float({}, requires_grad=0, device=cpu)"
_L = "Long({}, requires_grad=0, device=cpu)"
_CONV = (
    "  %0 : int = prim::Constant[value=0]()\n"
    "  %1 : int = prim::Constant[value=1]()\n"
    "  %s : int[] = prim::ListConstruct(%1, %1)\n"
    "  %p : int[] = prim::ListConstruct(%0, %0)\n"
)
_SIZE_CASES: dict[str, tuple[str, list[Any], list[Any], list[tuple[list[Any], str]]]] = {
    # name: (dump, right inputs, their outputs, [(wrong inputs, what the refusal says)])
    "view": (
        f"graph(%x : {_F.format(6)}):\n"
        "  %2 : int = prim::Constant[value=2]()\n"
        "  %3 : int = prim::Constant[value=3]()\n"
        "  %s : int[] = prim::ListConstruct(%2, %3)\n"
        "  %y : Tensor = aten::view(%x, %s) # model.py:5:8\n",
        [np.arange(6, dtype=np.float32)],
        [np.arange(6, dtype=np.float32).reshape(2, 3)],
        [([np.arange(8, dtype=np.float32)], "shape [2, 3] is invalid for 8 elements (self: float32[8])")],
    ),
    "gather": (
        f"graph(%x : {_F.format(3)}, %i : {_L.format(2)}):\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %f : bool = prim::Constant[value=0]()\n"
        "  %y : Tensor = aten::gather(%x, %0, %i, %f) # model.py:4:8\n",
        [np.array([1.0, 2.0, 3.0], np.float32), np.array([2, 0])],
        [np.array([3.0, 1.0], np.float32)],
        [
            ([np.ones(3, np.float32), np.array([0, 3])], "gather: index 3 is out of range for dimension 0 of size 3"),
            ([np.ones(3, np.float32), np.array([0, -1])], "gather: index -1 is out of range for dimension 0 of size 3"),
        ],
    ),
    "embedding": (
        f"graph(%w : {_F.format('3, 2')}, %i : {_L.format(2)}):\n"
        "  %m : int = prim::Constant[value=-1]()\n"
        "  %f : bool = prim::Constant[value=0]()\n"
        "  %y : Tensor = aten::embedding(%w, %i, %m, %f, %f) # model.py:4:8\n",
        [np.arange(6, dtype=np.float32).reshape(3, 2), np.array([2, 0])],
        [np.array([[4.0, 5.0], [0.0, 1.0]], np.float32)],
        [
            ([np.ones((3, 2), np.float32), np.array([3, 0])], "embedding: index 3 is out of range for dimension 0 of size 3"),
            ([np.ones((3, 2), np.float32), np.array([-1])], "embedding: index -1 is out of range for dimension 0 of size 3"),
        ],
    ),
    "index_select": (
        f"graph(%x : {_F.format('3, 2')}, %i : {_L.format(2)}):\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %y : Tensor = aten::index_select(%x, %1, %i) # model.py:3:8\n",
        [np.arange(6, dtype=np.float32).reshape(3, 2), np.array([1])],
        [np.array([[1.0], [3.0], [5.0]], np.float32)],
        [
            ([np.ones((3, 2), np.float32), np.array([2])], "index_select: index 2 is out of range for dimension 1 of size 2"),
            ([np.ones((3, 2), np.float32), np.array([0, -2])], "index_select: index -2 is out of range for dimension 1 of size 2"),
        ],
    ),
    "conv2d": (
        f"graph(%x : {_F.format('1, 3, 4, 4')}, %w : {_F.format('2, 3, 3, 3')}, %b : {_F.format(2)}):\n" + _CONV
        + "  %y : Tensor = aten::conv2d(%x, %w, %b, %s, %p, %s, %1) # model.py:6:8\n",
        [np.ones((1, 3, 4, 4), np.float32), np.ones((2, 3, 3, 3), np.float32), np.array([0.5, -1], np.float32)],
        [np.stack([np.full((2, 2), 27.5, np.float32), np.full((2, 2), 26.0, np.float32)])[None]],
        [
            ([np.ones((1, 2, 4, 4), np.float32), np.ones((2, 3, 3, 3), np.float32), np.ones(2, np.float32)],
             "input has 2 channels, weight expects 3"),
            ([np.ones((1, 3, 4, 4), np.float32), np.ones((2, 3, 3, 3), np.float32), np.ones(1, np.float32)],
             "convolution: a bias of sizes [1] for 2 output channels"),  # numpy would broadcast it
        ],
    ),
    "permute": (
        f"graph(%x : {_F.format('2, 3')}, %d : int[]):\n"
        "  %y : Tensor = aten::permute(%x, %d) # model.py:2:8\n",
        [np.arange(6, dtype=np.float32).reshape(2, 3), [1, 0]],
        [np.arange(6, dtype=np.float32).reshape(2, 3).T],
        [
            ([np.ones((2, 3), np.float32), np.array([0, 0])], "permute dims [0, 0] are not a permutation (self: float32[2, 3])"),
            ([np.ones((2, 3), np.float32), np.array([1, 1])], "permute dims [1, 1] are not a permutation"),
        ],
    ),
    "matmul": (
        f"graph(%x : {_F.format('2, 3')}, %w : {_F.format('3, 4')}):\n"
        "  %y : Tensor = aten::matmul(%x, %w) # model.py:2:8\n",
        [np.ones((2, 3), np.float32), np.ones((3, 4), np.float32)],
        [np.full((2, 4), 3.0, np.float32)],
        [([np.ones((2, 3), np.float32), np.ones((5, 4), np.float32)],
          "matmul: inner sizes 3 and 5 differ (self: float32[2, 3], other: float32[5, 4])")],
    ),
    "bmm": (
        f"graph(%x : {_F.format('2, 2, 3')}, %w : {_F.format('2, 3, 4')}):\n"
        "  %y : Tensor = aten::bmm(%x, %w) # model.py:2:8\n",
        [np.ones((2, 2, 3), np.float32), np.ones((2, 3, 4), np.float32)],
        [np.full((2, 2, 4), 3.0, np.float32)],
        [([np.ones((2, 2, 3), np.float32), np.ones((1, 3, 4), np.float32)], "bmm: batch sizes 2 and 1 differ")],
    ),
    "layer_norm": (
        f"graph(%x : {_F.format('1, 4')}, %w : {_F.format(4)}):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %eps : float = prim::Constant[value=0.]()\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %4 : int = prim::Constant[value=4]()\n"
        "  %n : int[] = prim::ListConstruct(%4)\n"
        "  %y : Tensor = aten::layer_norm(%x, %n, %w, %none, %eps, %t) # model.py:7:8\n",
        [np.array([[-1.0, 1.0, -1.0, 1.0]], np.float32), np.array([1.0, 2.0, 3.0, 4.0], np.float32)],
        [np.array([[-1.0, 2.0, -3.0, 4.0]], np.float32)],
        [
            ([np.ones((1, 4), np.float32), np.ones(1, np.float32)], "layer_norm: weight of sizes [1], but normalized_shape is [4]"),
            ([np.ones((1, 3), np.float32), np.ones(4, np.float32)],
             "layer_norm: normalized_shape [4] is not the input's last sizes (input [1, 3])"),
        ],
    ),
    "batch_norm": (
        f"graph(%x : {_F.format('1, 2, 2')}, %m : {_F.format(2)}, %v : {_F.format(2)}):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %f : bool = prim::Constant[value=0]()\n"
        "  %mom : float = prim::Constant[value=0.10000000000000001]()\n"
        "  %eps : float = prim::Constant[value=0.]()\n"
        "  %y : Tensor = aten::batch_norm(%x, %none, %none, %m, %v, %f, %mom, %eps, %f) # model.py:6:8\n",
        [np.array([[[1.0, 2.0], [3.0, 4.0]]], np.float32), np.array([1.0, 3.0], np.float32), np.array([1.0, 4.0], np.float32)],
        [np.array([[[0.0, 1.0], [0.0, 0.5]]], np.float32)],
        [([np.ones((1, 2, 2), np.float32), np.ones(1, np.float32), np.ones(2, np.float32)],
          "batch_norm: running_mean of sizes [1] for 2 channels")],
    ),
    "group_norm": (
        f"graph(%x : {_F.format('1, 2, 2')}, %w : {_F.format(2)}):\n"
        "  %none : NoneType = prim::Constant()\n"
        "  %t : bool = prim::Constant[value=1]()\n"
        "  %g : int = prim::Constant[value=2]()\n"
        "  %eps : float = prim::Constant[value=0.]()\n"
        "  %y : Tensor = aten::group_norm(%x, %g, %w, %none, %eps, %t) # model.py:6:8\n",
        [np.array([[[1.0, 3.0], [0.0, 4.0]]], np.float32), np.array([1.0, 2.0], np.float32)],
        [np.array([[[-1.0, 1.0], [-2.0, 2.0]]], np.float32)],
        [([np.ones((1, 2, 2), np.float32), np.ones(1, np.float32)], "group_norm: weight of sizes [1] for 2 channels")],
    ),
    "add_": (
        f"graph(%a : {_F.format('1, 3')}, %b : Tensor):\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %y : Tensor = aten::add_(%a, %b, %1) # model.py:3:8\n",
        [np.ones((1, 3), np.float32), np.arange(3, dtype=np.float32)],
        [np.array([[1.0, 2.0, 3.0]], np.float32)],
        [([np.ones((1, 3), np.float32), np.ones((2, 3), np.float32)],
          "output with shape [1, 3] doesn't match the broadcast shape [2, 3]")],
    ),
    "split_with_sizes": (
        f"graph(%x : {_F.format('3, 2')}):\n"
        "  %0 : int = prim::Constant[value=0]()\n"
        "  %1 : int = prim::Constant[value=1]()\n"
        "  %2 : int = prim::Constant[value=2]()\n"
        "  %s : int[] = prim::ListConstruct(%1, %2)\n"
        "  %y : Tensor[] = aten::split_with_sizes(%x, %s, %0) # model.py:6:8\n",
        [np.arange(6, dtype=np.float32).reshape(3, 2)],
        [np.array([[0.0, 1.0]], np.float32), np.array([[2.0, 3.0], [4.0, 5.0]], np.float32)],  # flattened
        [([np.ones((4, 2), np.float32)], "split sizes [1, 2] do not sum to 4")],
    ),
}


@pytest.mark.parametrize("name", sorted(_SIZE_CASES))
def test_torchscript_run_on_other_sizes_is_refused_by_the_operator(name: str, tmp_path: Path) -> None:
    """
    A TorchScript graph checks only its inputs' ranks (a traced graph's sizes are those
    it was traced at, a scripted one has none), so sizes that do not fit reach the
    operators: each refuses in one located paragraph naming the node's kind, its source
    line and why, through exir-run and the Python API alike, with nothing written. An
    index out of range, a bias of one element, a batch of one, a weight that is not the
    normalized shape are refused, never broadcast or taken from the end as numpy would.
    The same graph still runs on sizes that fit.
    """
    import xdsl_exir.api as exir

    body, good, expected, wrongs = _SIZE_CASES[name]
    dump = tmp_path / f"{name}.txt"
    dump.write_text(body + "  return (%y)\n")
    kind = re.search(r"= (aten::\w+)\(", body)
    line = re.search(r"# (model\.py:\d+:\d+)", body)
    assert kind is not None and line is not None
    program = exir.load(dump)
    got = program.run(*good)
    got = list(got) if isinstance(got, list | tuple) else [got]
    assert len(got) == len(expected)
    for g, want in zip(got, expected):
        np.testing.assert_allclose(g, want, rtol=1e-6)
    for args, text in wrongs:
        inputs = tmp_path / "in.npz"
        inputs.write_bytes(npz_bytes(**{f"arg{i}": a for i, a in enumerate(args)}))
        out = tmp_path / "out.npz"
        r = invoke("exir-run", [str(dump), "--inputs", str(inputs), "-o", str(out)])
        check_promise("exir-run", r, out, must_fail=True)
        head = f"exir-run: error: {line.group(1)}: '{kind.group(1)}' (%y) in @forward: "
        assert r.err.startswith(head) and text in r.err, (r.err, text)
        with pytest.raises(exir.ExirError) as e:
            program.run(*[[int(d) for d in a] if name == "permute" and i == 1 else a for i, a in enumerate(args)])
        assert f"exir-run: error: {e.value}" == r.err.strip(), (str(e.value), r.err)


def test_traced_graph_run_on_other_sizes_names_the_users_line() -> None:
    """A graph traced by torch at one size and run at another: its refusal points at the traced line."""
    torch = pytest.importorskip("torch")
    import inspect

    import xdsl_exir.api as exir
    from xdsl_exir.frontends.torchscript_live import import_script_module

    def flat_pairs(x, table, i):  # traced: the sizes of these inputs are baked into the graph
        return x.view(2, 3) + table[i].sum()

    line = inspect.getsourcelines(flat_pairs)[1] + 1
    traced = torch.jit.trace(flat_pairs, (torch.ones(6), torch.ones(4), torch.tensor([3])))
    program = exir.load(import_script_module(traced))
    x, table = np.arange(6, dtype=np.float32), np.arange(4, dtype=np.float32)
    want = traced(torch.from_numpy(x), torch.from_numpy(table), torch.tensor([3])).numpy()
    np.testing.assert_array_equal(program.run(x, table, np.array([3])), want)
    with pytest.raises(exir.ExirError, match=rf"^{re.escape(__file__)}:{line}:\d+: 'aten::view' .*: shape \[2, 3\] is invalid for 8 elements"):
        program.run(np.ones(8, np.float32), table, np.array([3]))
    with pytest.raises(Exception, match="out of bounds"):
        traced(torch.from_numpy(x), torch.from_numpy(table), torch.tensor([-5]))
    with pytest.raises(exir.ExirError, match=rf"^{re.escape(__file__)}:{line}:\d+: 'aten::index' .*: index -5 is out of range for dimension 0 of size 4$"):
        program.run(x, table, np.array([-5]))
    np.testing.assert_array_equal(program.run(x, table, np.array([-4])), want - 3)  # from the end, as in torch


@pytest.mark.parametrize("op", ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "embedding", "embedding_bag"])
def test_index_kernels_refuse_what_torch_refuses(op: str) -> None:
    """
    The kernels of the operators torch bounds-checks (every path runs them: Export IR,
    TorchScript, the emitted Python) refuse an index outside [0, size) as torch does,
    negative ones included, where numpy would take them from the end: a silent wrong
    answer before. The edge indices 0 and size - 1 still agree with torch.
    """
    torch = pytest.importorskip("torch")
    from xdsl_exir.semantics.kernels import KERNELS

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    ones = np.ones((1, 4), np.float32)
    calls: dict[str, tuple[str, Callable[[np.ndarray], dict[str, Any]], Callable[[Any], Any]]] = {
        "gather": ("aten.gather.default", lambda i: {"self": x, "dim": 0, "index": i},
                   lambda i: torch.gather(torch.from_numpy(x), 0, i)),
        "scatter": ("aten.scatter.src", lambda i: {"self": x, "dim": 0, "index": i, "src": ones},
                    lambda i: torch.from_numpy(x).scatter(0, i, torch.from_numpy(ones))),
        "scatter_add": ("aten.scatter_add.default", lambda i: {"self": x, "dim": 0, "index": i, "src": ones},
                        lambda i: torch.from_numpy(x).scatter_add(0, i, torch.from_numpy(ones))),
        "scatter_reduce": ("aten.scatter_reduce.two", lambda i: {"self": x, "dim": 0, "index": i, "src": ones, "reduce": "amax"},
                           lambda i: torch.from_numpy(x).scatter_reduce(0, i, torch.from_numpy(ones), "amax")),
        "index_select": ("aten.index_select.default", lambda i: {"self": x, "dim": 0, "index": i.reshape(-1)},
                         lambda i: torch.index_select(torch.from_numpy(x), 0, i.reshape(-1))),
        "embedding": ("aten.embedding.default", lambda i: {"weight": x, "indices": i},
                      lambda i: torch.nn.functional.embedding(i, torch.from_numpy(x))),
        "embedding_bag": ("aten._embedding_bag.default",
                          lambda i: {"weight": x, "indices": i.reshape(-1), "offsets": np.array([0])},
                          lambda i: torch.nn.functional.embedding_bag(i.reshape(-1), torch.from_numpy(x), torch.tensor([0]), mode="sum")),
    }
    name, kwargs, eager = calls[op]
    kernel = KERNELS[name]
    for rows in ([[0, 2, 2, 0]], [[2, 0, 1, 2]]):
        index = np.array(rows, np.int64)
        got = kernel(**kwargs(index))
        got = got[0] if isinstance(got, tuple) else got
        np.testing.assert_array_equal(got, eager(torch.from_numpy(index)).numpy())
    for bad in (-1, 3, -4):
        index = np.array([[0, bad, 1, 0]], np.int64)
        with pytest.raises((RuntimeError, IndexError)):
            eager(torch.from_numpy(index))
        with pytest.raises(IndexError, match=rf"index {bad} is out of range for dimension 0 of size 3"):
            kernel(**kwargs(index))


def test_gather_and_scatter_refuse_index_shapes_torch_refuses() -> None:
    """
    An index larger than `self` outside `dim`, with another number of dims, or larger
    than `src`: torch refuses each; numpy would read past the end or broadcast a
    smaller `src` (a silent wrong answer). Shapes torch accepts still agree with it.
    """
    torch = pytest.importorskip("torch")
    from xdsl_exir.semantics.kernels import KERNELS

    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    gather, scatter = KERNELS["aten.gather.default"], KERNELS["aten.scatter.src"]
    small = np.zeros((2, 3), np.int64)  # smaller than self outside dim 0: allowed
    np.testing.assert_array_equal(gather(self=x, dim=0, index=small), torch.gather(torch.from_numpy(x), 0, torch.from_numpy(small)).numpy())
    src = np.ones((2, 4), np.float32)
    want = torch.from_numpy(x).scatter(0, torch.from_numpy(small), torch.from_numpy(src)).numpy()
    np.testing.assert_array_equal(scatter(self=x, dim=0, index=small, src=src), want)
    for index in (np.zeros((2, 5), np.int64), np.zeros((3,), np.int64), np.zeros((1, 2, 2), np.int64)):
        with pytest.raises(RuntimeError):
            torch.gather(torch.from_numpy(x), 0, torch.from_numpy(index))
        with pytest.raises(ValueError, match=r"^gather: an index of sizes .* it must have as many dims and be no larger"):
            gather(self=x, dim=0, index=index)
    tiny = np.ones((1, 4), np.float32)
    with pytest.raises(RuntimeError):
        torch.from_numpy(x).scatter(0, torch.zeros(2, 4, dtype=torch.long), torch.from_numpy(tiny))
    with pytest.raises(ValueError, match=r"^scatter: an index of sizes \[2, 4\] for a src of sizes \[1, 4\]"):
        scatter(self=x, dim=0, index=np.zeros((2, 4), np.int64), src=tiny)


def test_decomposed_index_ops_assert_the_range_torch_checks() -> None:
    """
    index_add and index_copy become index_put, which takes a negative index from the
    end, and one_hot a comparison with every class, which gives a row of zeros for a
    class out of range: their decompositions assert the range torch checks, so the
    interpreter refuses what torch refuses (a silent wrong answer before), and agrees
    with torch at the edges of the range.
    """
    torch = pytest.importorskip("torch")
    from xdsl_exir.semantics.kernels import KERNELS
    from xdsl_exir.utils.diagnostics import InterpreterError

    x, src = np.arange(12, dtype=np.float32).reshape(3, 4), np.ones((2, 4), np.float32)
    calls: list[tuple[str, Callable[[np.ndarray], Any], Callable[[Any], Any]]] = [
        ("aten.index_add.default", lambda i: {"self": x, "dim": 0, "index": i, "source": src},
         lambda i: torch.from_numpy(x).index_add(0, i, torch.from_numpy(src))),
        ("aten.index_copy.default", lambda i: {"self": x, "dim": 0, "index": i, "source": src},
         lambda i: torch.from_numpy(x).index_copy(0, i, torch.from_numpy(src))),
        ("aten.one_hot.default", lambda i: {"self": i, "num_classes": 3},
         lambda i: torch.nn.functional.one_hot(i, 3)),
    ]
    for name, kwargs, eager in calls:
        kernel = KERNELS[name]
        good = np.array([2, 0])
        np.testing.assert_array_equal(kernel(**kwargs(good)), eager(torch.from_numpy(good)).numpy())
        for bad in (np.array([0, -1]), np.array([3, 0])):
            with pytest.raises((RuntimeError, IndexError)):
                eager(torch.from_numpy(bad))
            with pytest.raises(InterpreterError, match="runtime assertion failed: .* out of range"):
                kernel(**kwargs(bad))


def test_losses_refuse_a_target_batch_of_another_size() -> None:
    """
    nll_loss and cross_entropy gather the target's classes: a target batch smaller than
    the input's took the first rows (a silent wrong answer), a larger one was refused in
    gather's words. Each is refused as torch refuses it, comparing the batch sizes (the
    other sizes past 2-d, the size of a 1-d input's target); sizes that fit agree with torch.
    """
    torch = pytest.importorskip("torch")
    from xdsl_exir.semantics.kernels import KERNELS
    from xdsl_exir.utils.diagnostics import InterpreterError

    x = np.random.default_rng(0).standard_normal((3, 5)).astype(np.float32)
    x3 = np.random.default_rng(1).standard_normal((3, 5, 4)).astype(np.float32)
    aten = torch.ops.aten
    calls: list[tuple[str, Callable[[np.ndarray, np.ndarray], dict[str, Any]], Callable[[Any, Any], Any]]] = [
        ("aten.cross_entropy_loss.default", lambda s, t: {"self": s, "target": t}, aten.cross_entropy_loss),
        ("aten.nll_loss.default", lambda s, t: {"self": s, "target": t}, aten.nll_loss),
        ("aten.nll_loss_forward.default",
         lambda s, t: {"self": s, "target": t, "weight": None, "reduction": 1, "ignore_index": -100},
         lambda s, t: aten.nll_loss_forward(s, t, None, 1, -100)[0]),
    ]
    for name, kwargs, eager in calls:
        kernel = KERNELS[name]
        good = np.array([4, 0, 2])
        got = kernel(**kwargs(x, good))
        got = got[0] if isinstance(got, tuple) else got
        np.testing.assert_allclose(got, eager(torch.from_numpy(x), torch.from_numpy(good)).numpy(), rtol=1e-6)
        short = name.split(".")[1]
        for s, t, text in (
            (x, np.array([1, 2]), f"{short}: expected input batch_size (3) to match target batch_size (2)"),
            (x, np.array([1, 2, 0, 4]), f"{short}: expected input batch_size (3) to match target batch_size (4)"),
            (x[0], np.array([1, 2]), f"{short}: for 1D input, 1D target must have size 1, but got target size: 2"),
        ):
            with pytest.raises((RuntimeError, ValueError)):
                eager(torch.from_numpy(s), torch.from_numpy(t))
            with pytest.raises(InterpreterError, match=re.escape(text)):
                kernel(**kwargs(s, t))
    nd = KERNELS["aten.nll_loss_nd.default"]
    with pytest.raises(RuntimeError, match=re.escape("Expected target size [3, 4], got [3, 3]")):
        aten.nll_loss_nd(torch.from_numpy(x3), torch.zeros(3, 3, dtype=torch.long))
    with pytest.raises(InterpreterError, match=re.escape("nll_loss_nd: expected target size [3, 4], got [3, 3]")):
        nd(self=x3, target=np.zeros((3, 3), np.int64))
