"""
Weights by reference on the IREE path (issue 23): `convert-exir-to-linalg
{parameters-from-bytes=N}` reads each weight of at least N bytes as an IREE
named parameter instead of embedding it; the IREE backend does so from 64 KiB
and hands IREE the program's own (memory-mapped) weights at run time. Checked:
the lowered text, its round trip, equal numbers to the embedded form on zoo
models (buffers, bfloat16 and float16, convolutions, control flow), a compiled
module and cache entry that do not grow with the weights, and one cached module
serving two programs that differ only in their weights.
"""

from __future__ import annotations

import io
import pathlib
from typing import Any

import numpy as np
import pytest
from tool_calls import exir_run
from xdsl.dialects.builtin import Builtin, ModuleOp

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.targets.iree import lowering_context
from xdsl_exir.transforms.convert_exir_to_linalg import ConvertExirToLinalgPass
from xdsl_exir.utils.mlir_parser import ResourceParser, print_module

ROOT = pathlib.Path(__file__).resolve().parents[1]
ZOO = ROOT / "tests" / "zoo"


def _text(module: ModuleOp) -> str:
    out = io.StringIO()
    print_module(module, out, [Builtin])
    return out.getvalue()


def _lowered(name: str, parameters_from_bytes: int) -> ModuleOp:
    module = load_pt2(ZOO / f"{name}.core.pt2")
    ConvertExirToLinalgPass(parameters_from_bytes=parameters_from_bytes).apply(lowering_context(), module)
    return module


def test_large_weights_become_named_parameters() -> None:
    text = _text(_lowered("mlp", 1024))
    # fc1.weight (2048 bytes), fc2.weight (4096) and fc3.weight (1024) are parameters; the biases (128) stay inline
    for key, shape in (("fc1.weight", "32x16"), ("fc2.weight", "32x32"), ("fc3.weight", "8x32")):
        assert (
            f'ml_program.global private @param.{key}(#stream.parameter.named<"model"::"{key}"> : tensor<{shape}xf32>)'
            in text
        )
        assert f"ml_program.global_load_const @param.{key} : tensor<{shape}xf32>" in text
        assert f"dense_resource<{key}>" not in text
    assert "dense_resource<fc1.bias>" in text and "param.fc1.bias" not in text
    reread = ResourceParser(lowering_context(), text, "m.mlir").parse_module()
    again = _text(reread)
    assert [ln for ln in again.splitlines() if "ml_program" in ln] == [ln for ln in text.splitlines() if "ml_program" in ln]
    assert "ml_program" not in _text(_lowered("mlp", -1))  # the pass's default embeds every weight



@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> str:
    pytest.importorskip("iree.compiler")
    pytest.importorskip("iree.runtime")
    return str(tmp_path_factory.mktemp("iree_cache"))


def _inputs(name: str) -> list[np.ndarray]:
    with np.load(ZOO / f"{name}.inputs.npz", allow_pickle=False) as data:
        return [data[k] for k in sorted(data.files, key=lambda k: int(k[3:]))]


@pytest.mark.parametrize(
    "name", ["cnn_bn", "buffer_mutation", "half_precision", "cond"]
)
def test_numbers_equal_the_embedded_weights(name: str, cache: str) -> None:
    from xdsl_exir.targets.iree import IreeOptions, compile_program

    runs: dict[int, list[Any]] = {}
    for threshold in (-1, 0):
        compiled = compile_program(
            ZOO / f"{name}.core.pt2", IreeOptions(parameters_from_bytes=threshold, threads=1, cache_dir=cache)
        )
        assert bool(compiled.parameters) == (threshold == 0)
        args = _inputs(name)
        runs[threshold] = compiled(*args) + compiled(*args)  # twice: buffers written by the first call
    for a, b in zip(runs[-1], runs[0], strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


def _linear_pt2(path: pathlib.Path, n: int, seed: int, dtype: str = "float32") -> tuple[np.ndarray, np.ndarray]:
    torch = pytest.importorskip("torch")
    torch.manual_seed(seed)
    model = torch.nn.Linear(n, n).to(getattr(torch, dtype)).eval()
    torch.export.save(torch.export.export(model, (torch.zeros(2, n, dtype=getattr(torch, dtype)),)), str(path))
    return model.weight.detach().float().numpy(), model.bias.detach().float().numpy()


def test_module_and_cache_entry_do_not_hold_the_weights(tmp_path: pathlib.Path, cache: str) -> None:
    from xdsl_exir.targets.iree import IreeOptions, cache_path, compile_program

    n = 256  # a 256 KiB weight
    w1, b1 = _linear_pt2(tmp_path / "a.pt2", n, 0)
    w2, b2 = _linear_pt2(tmp_path / "b.pt2", n, 1)
    options = IreeOptions(threads=1, cache_dir=cache)
    first = compile_program(tmp_path / "a.pt2", options)
    assert list(first.parameters) == ["weight"]  # the bias (2 KiB) is under the 64 KiB default
    entry = cache_path(first.compile.key, options)
    assert entry.stat().st_size < w1.nbytes / 10, (entry.stat().st_size, w1.nbytes)
    assert len(first.text) < w1.nbytes / 10
    embedded = compile_program(tmp_path / "a.pt2", IreeOptions(threads=1, cache_dir=cache, parameters_from_bytes=-1))
    assert len(embedded.compile.vmfb) > w1.nbytes  # the same program with its weights inside
    # other weights, same program: with every weight by reference (the bias too), the
    # cached module serves it, with its own weights
    every = IreeOptions(threads=1, cache_dir=cache, parameters_from_bytes=0)
    third = compile_program(tmp_path / "a.pt2", every)
    second = compile_program(tmp_path / "b.pt2", every)
    assert second.compile.from_cache and second.compile.key == third.compile.key
    x = np.random.default_rng(0).standard_normal((2, n)).astype(np.float32)
    for compiled, w, b in ((first, w1, b1), (second, w2, b2), (third, w1, b1), (embedded, w1, b1)):
        np.testing.assert_allclose(compiled(x)[0], x @ w.T + b, rtol=1e-4, atol=1e-4)


def test_bfloat16_and_float16_weights(tmp_path: pathlib.Path, cache: str) -> None:
    from xdsl_exir.targets.iree import IreeOptions, compile_program
    from xdsl_exir.utils.dtypes import DType, cast_array

    for dtype in ("bfloat16", "float16"):
        path = tmp_path / f"{dtype}.pt2"
        _linear_pt2(path, 64, 0, dtype)
        x = cast_array(np.random.default_rng(1).standard_normal((2, 64)).astype(np.float32), DType(dtype))
        outs = []
        for threshold in (-1, 0):
            compiled = compile_program(path, IreeOptions(threads=1, cache_dir=cache, parameters_from_bytes=threshold))
            assert bool(compiled.parameters) == (threshold == 0)
            outs.append(compiled(x)[0])
        assert outs[0].dtype == outs[1].dtype == x.dtype
        np.testing.assert_array_equal(outs[0].astype(np.float32), outs[1].astype(np.float32))


def test_a_lowered_module_with_parameters_is_refused(cache: str) -> None:
    from xdsl_exir.targets.iree import IreeError, IreeOptions, compile_lowered

    with pytest.raises(IreeError, match=r"reads 3 weights as IREE named parameters \(fc1.weight, fc2.weight, fc3.weight"):
        compile_lowered(_lowered("mlp", 1024), IreeOptions(cache_dir=cache))


def test_exir_run_refuses_a_lowered_module_with_parameters(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.linalg.mlir"
    path.write_text(_text(_lowered("mlp", 1024)))
    done = exir_run(str(path), "--random-inputs", "0")
    assert done.returncode == 1 and done.stderr.count("\n") == 1, done.stderr
    assert "reads 3 weights as IREE named parameters (fc1.weight, fc2.weight, fc3.weight)" in done.stderr
