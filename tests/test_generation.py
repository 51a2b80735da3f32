"""
Greedy generation with a KV cache (`benchmarks/llm.py`'s decoder at a small
size): the prefill program (prompt length dynamic) and the decode program (cache
length dynamic, the cache as inputs and outputs), exported from one module, run a
16-token greedy loop on the interpreter and on IREE, and give eager's tokens (in
bfloat16 too). The logits and caches of the first steps are
compared too, closer than a token can.
"""

from __future__ import annotations

import importlib.util
import pathlib
import sys
from typing import Any

import numpy as np
import pytest

torch = pytest.importorskip("torch")

ROOT = pathlib.Path(__file__).resolve().parents[1]
STEPS = 16


def _llm() -> Any:
    module = sys.modules.get("llm_benchmark")
    if module is None:
        spec = importlib.util.spec_from_file_location("llm_benchmark", ROOT / "benchmarks" / "llm.py")
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["llm_benchmark"] = module
        spec.loader.exec_module(module)
    return module


llm = _llm()
CONFIG = llm.Config(vocab=128, dim=32, layers=2, heads=4, kv_heads=2, ffn=64, max_seq=32)


@pytest.fixture(scope="module")
def model() -> tuple[Any, Any, Any, Any]:
    prefill, decode = llm.build(CONFIG)
    pre_ep, dec_ep = llm.export(prefill, decode, CONFIG)
    return prefill, decode, pre_ep, dec_ep


def _prompt(n: int = 7) -> np.ndarray:
    return np.random.default_rng(3).integers(0, CONFIG.vocab, (1, n), dtype=np.int64)


def test_programs_share_one_parameter_set(model: tuple[Any, Any, Any, Any]) -> None:
    _, _, pre_ep, dec_ep = model
    pre, dec = pre_ep.state_dict, dec_ep.state_dict
    assert set(pre) == set(dec) and len(pre) == 3 + 9 * CONFIG.layers
    assert all(pre[name] is dec[name] or torch.equal(pre[name], dec[name]) for name in pre)


def _check(backend: str, model: tuple[Any, Any, Any, Any], **options: Any) -> None:
    prefill, decode, pre_ep, dec_ep = model
    eager = llm.eager_steps(prefill, decode)
    ours = llm.exir_steps(pre_ep, dec_ep, backend, **options)
    prompt = _prompt()
    # The first two steps value by value: logits, and caches of length 7 then 8.
    want, got = eager[0](prompt), ours[0](prompt)
    token = np.array([[int(want[0].argmax())]], dtype=np.int64)
    want, got = [*want, *eager[1](token, want[1], want[2])], [*got, *ours[1](token, got[1], got[2])]
    for w, g in zip(want, got, strict=True):
        assert g.shape == tuple(w.shape) and g.dtype == np.float32
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-4, atol=1e-5)
    assert got[4].shape[3] == prompt.shape[1] + 1
    # Then the whole loop: the same tokens, every one of them.
    assert llm.generate(*ours, prompt, STEPS) == llm.generate(*eager, prompt, STEPS)


def test_interpreter_generates_eagers_tokens(model: tuple[Any, Any, Any, Any]) -> None:
    _check("interpreter", model)


def test_iree_generates_eagers_tokens(model: tuple[Any, Any, Any, Any], tmp_path: pathlib.Path) -> None:
    pytest.importorskip("iree.runtime")
    _check("iree", model, cache_dir=str(tmp_path))


def test_decode_refuses_a_cache_beyond_the_exported_range(model: tuple[Any, Any, Any, Any]) -> None:
    import xdsl_exir

    _, _, _, dec_ep = model
    decode = xdsl_exir.compile(dec_ep, backend="interpreter")
    kv = np.zeros((CONFIG.layers, 1, CONFIG.kv_heads, CONFIG.max_seq, CONFIG.head_dim), np.float32)
    with pytest.raises(xdsl_exir.ExirError, match=str(CONFIG.max_seq - 1)):
        decode(np.zeros((1, 1), np.int64), kv, kv)


@pytest.mark.parametrize("backend", ["interpreter", "iree"])
def test_bfloat16_decoder_generates_eagers_tokens(backend: str, tmp_path: pathlib.Path) -> None:
    """
    The decoder as LLMs ship (`.to(torch.bfloat16)`): weights, caches and logits in
    bfloat16; on IREE the weights are bf16 parameters read in place.
    """
    options: dict[str, Any] = {}
    if backend == "iree":
        pytest.importorskip("iree.runtime")
        options = {"cache_dir": str(tmp_path), "parameters_from_bytes": 0}
    prefill, decode = llm.build(CONFIG, "bfloat16")
    pre_ep, dec_ep = llm.export(prefill, decode, CONFIG)
    eager = llm.eager_steps(prefill, decode)
    ours = llm.exir_steps(pre_ep, dec_ep, backend, **options)
    logits, k, _ = ours[0](_prompt())
    assert logits.dtype == k.dtype == np.dtype("bfloat16")
    assert llm.generate(*ours, _prompt(), STEPS) == llm.generate(*eager, _prompt(), STEPS)
