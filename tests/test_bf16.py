"""
bfloat16 and float16 models as LLMs ship them (`model.to(torch.bfloat16)`, then
`torch.export`): weights, inputs, outputs and activations in the low-precision
dtype, on the interpreter and on IREE, against torch eager.

- Node by node: every operator of a LLaMA-style block (RMSNorm, rotary positions,
  grouped-query attention written out and through `scaled_dot_product_attention`,
  SwiGLU), in the exported and the core ATen program, gets the node's own eager
  inputs and must give eager's result bit for bit; the matmul family may differ
  by one ulp (float32 accumulation order), and `rsqrt` (and `rms_norm`, which
  uses it) by one ulp in a few values (torch's vectorised kernel uses an
  approximate reciprocal square root; ours is correctly rounded).
- Attention: torch's CPU flash-attention kernel rounds the unnormalised
  probabilities to the input dtype before their product with the values; the
  kernel does too, so short sequences agree bit for bit.
- Whole programs: the block on both backends, and the zoo's models cast to
  float16 on the interpreter, within torch's own default relative tolerance for the
  dtype (`torch.testing.assert_close`: bfloat16 1.6e-2, float16 1e-3), and as absolute
  tolerance the same relative to the output's largest value.

The default run takes the prefill program and the sdpa block, and five zoo models
on the interpreter; `EXIR_FP16_ZOO_SWEEP=1` adds the decode program and runs every
zoo model on both backends.
"""

from __future__ import annotations

import copy
import importlib.util
import math
import os
import pathlib
import sys
from typing import Any

import ml_dtypes
import numpy as np
import pytest

from xdsl_exir.semantics import kernels as K
from xdsl_exir.utils.dtypes import dtype_of

torch = pytest.importorskip("torch")
pytree = pytest.importorskip("torch.utils._pytree")

ROOT = pathlib.Path(__file__).resolve().parents[1]
DTYPES = ["bfloat16", "float16"]
ULP = {"bfloat16": 2.0**-7, "float16": 2.0**-10}
TOL = {"bfloat16": {"rtol": 1.6e-2, "atol": 1e-5}, "float16": {"rtol": 1e-3, "atol": 1e-5}}
ONE_ULP = {
    "aten.mm.default", "aten.bmm.default", "aten.addmm.default", "aten.linear.default",
    "aten.rsqrt.default", "aten.rms_norm.default",
}


def _load(name: str, path: pathlib.Path) -> Any:
    module = sys.modules.get(name)
    if module is None:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return module


llm = _load("llm_benchmark", ROOT / "benchmarks" / "llm.py")
CONFIG = llm.Config(vocab=64, dim=32, layers=1, heads=4, kv_heads=2, ffn=48, max_seq=16)


class SdpaBlock(torch.nn.Module):
    """A LLaMA block as Hugging Face's sdpa attention writes it: GQA through `enable_gqa`."""

    def __init__(self, dim: int = 32, heads: int = 4, kv: int = 2, ffn: int = 48) -> None:
        super().__init__()
        nn = torch.nn
        self.h, self.kv, self.hd = heads, kv, dim // heads
        self.n1, self.n2 = nn.RMSNorm(dim, eps=1e-5), nn.RMSNorm(dim, eps=1e-5)
        self.q, self.k = nn.Linear(dim, dim, bias=False), nn.Linear(dim, kv * self.hd, bias=False)
        self.v, self.o = nn.Linear(dim, kv * self.hd, bias=False), nn.Linear(dim, dim, bias=False)
        self.g, self.u = nn.Linear(dim, ffn, bias=False), nn.Linear(dim, ffn, bias=False)
        self.d = nn.Linear(ffn, dim, bias=False)

    def forward(self, x: Any) -> Any:
        b, t, c = x.shape
        h = self.n1(x)
        q = self.q(h).view(b, t, self.h, self.hd).transpose(1, 2)
        k = self.k(h).view(b, t, self.kv, self.hd).transpose(1, 2)
        v = self.v(h).view(b, t, self.kv, self.hd).transpose(1, 2)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        x = x + self.o(y.transpose(1, 2).reshape(b, t, c))
        h = self.n2(x)
        return x + self.d(torch.nn.functional.silu(self.g(h)) * self.u(h))


def _programs(dtype: str) -> dict[str, tuple[Any, tuple[Any, ...]]]:
    """The modules of the block tests and their inputs, in `dtype`."""
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(0)
    prefill, decode = llm.build(CONFIG, dtype)
    sdpa = SdpaBlock().eval().to(dt)
    kv = torch.randn(CONFIG.layers, 1, CONFIG.kv_heads, 5, CONFIG.head_dim, generator=gen).to(dt)
    return {
        "prefill": (prefill, (torch.randint(0, CONFIG.vocab, (1, 6), generator=gen),)),
        "decode": (decode, (torch.randint(0, CONFIG.vocab, (1, 1), generator=gen), kv, kv.flip(3))),
        "sdpa_block": (sdpa, (torch.randn(2, 6, 32, generator=gen).to(dt),)),
    }


TORCH_ENUMS = (torch.dtype, torch.memory_format, torch.layout, torch.device)  # casts and copies: nothing to compute


def _np(v: Any) -> Any:
    if isinstance(v, torch.Tensor):
        if v.dtype == torch.bfloat16:
            return v.detach().float().numpy().astype(ml_dtypes.bfloat16)
        return v.detach().numpy().copy()
    if isinstance(v, list | tuple):
        return type(v)(_np(x) for x in v)
    return v


def _ulps(got: np.ndarray, want: Any, dtype: str) -> float:
    """The largest difference in ulps of the dtype at the wanted value's magnitude."""
    g, w = got.astype(np.float64), want.double().numpy()
    both_nan = np.isnan(g) & np.isnan(w)
    d = np.where(both_nan, 0.0, np.abs(g - w))
    if not d.size:
        return 0.0
    unit = np.maximum(2.0 ** np.floor(np.log2(np.maximum(np.abs(w), 2.0**-14))), 2.0**-14) * ULP[dtype]
    return float(np.max(d / unit))


SWEEP = os.environ.get("EXIR_FP16_ZOO_SWEEP") == "1"
BLOCKS = ["prefill", "decode", "sdpa_block"] if SWEEP else ["prefill", "sdpa_block"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ir", ["export", "core"])
@pytest.mark.parametrize("name", BLOCKS)
def test_every_node_computes_as_torch(name: str, ir: str, dtype: str) -> None:
    module, args = _programs(dtype)[name]
    ep = torch.export.export(module, args)
    if ir == "core":
        ep = ep.run_decompositions()
    checked: dict[str, float] = {}
    loose: dict[str, bool] = {}

    class Check(torch.fx.Interpreter):
        def call_function(self, target: Any, a: Any, kw: Any) -> Any:
            out = super().call_function(target, a, kw)
            if not hasattr(target, "_overloadname") or not isinstance(out, torch.Tensor):
                return out
            op = f"{target._schema.name.replace('::', '.')}.{target._overloadname}"
            if not out.is_floating_point() or op not in K.KERNELS or any(isinstance(v, TORCH_ENUMS) for v in kw.values()):
                return out
            got = K.run_kernel(op, _np(list(a)), {k: _np(v) for k, v in kw.items()}, [dtype_of(_np(out))])
            got = np.asarray(got[0] if isinstance(got, tuple | list) else got)
            assert got.shape == tuple(out.shape) and got.dtype == _np(out).dtype, op
            if out.dtype == torch.float32:
                # a float32 step of the core program (torch's decompositions upcast softmax,
                # sigmoid and attention): libm against torch's vectorised math, and float32
                # sums in another order, within 64 float32 ulps of the largest value
                scale = max(float(out.abs().max()), 2.0**-126) * 2.0**-23 * 64
                ulps, loose[op] = float(np.max(np.abs(got - out.numpy()), initial=0.0)) / scale, True
            else:
                ulps = _ulps(got.astype(np.float32), out.float(), str(out.dtype).removeprefix("torch."))
            checked[op] = max(checked.get(op, 0.0), ulps)
            return out

    with torch.no_grad():
        Check(ep.module()).run(*args)
    assert len(checked) >= 8, checked
    wrong = {op: u for op, u in checked.items() if u > (1.0 if op in ONE_ULP or op in loose else 0.0)}
    assert not wrong, f"ulps from eager: {wrong}"


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(
    ("q_len", "kv_len", "causal", "mask"), [(8, 8, True, False), (6, 9, False, True), (5, 5, False, False)]
)
def test_attention_rounds_probabilities_as_torch(q_len: int, kv_len: int, causal: bool, mask: bool, dtype: str) -> None:
    dt = getattr(torch, dtype)
    gen = torch.Generator().manual_seed(q_len * kv_len)
    q, k, v = (torch.randn(2, 3, n, 16, generator=gen).to(dt) for n in (q_len, kv_len, kv_len))
    m = torch.randn(q_len, kv_len, generator=gen).to(dt) if mask else None
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=m, is_causal=causal)
    got = K.run_kernel(
        "aten.scaled_dot_product_attention.default", [_np(q), _np(k), _np(v), _np(m), 0.0, causal], {}, [dtype_of(_np(want))]
    )
    assert isinstance(got, np.ndarray) and got.dtype == _np(want).dtype
    np.testing.assert_array_equal(got.astype(np.float32), want.float().numpy())


def test_attention_over_several_key_blocks_is_within_one_ulp() -> None:
    """Past 512 keys torch's kernel runs its online softmax over blocks; so does ours."""
    gen = torch.Generator().manual_seed(7)
    q, k, v = (torch.randn(1, 2, n, 8, generator=gen).bfloat16() for n in (3, 1100, 1100))
    want = torch.nn.functional.scaled_dot_product_attention(q, k, v)
    got = K.run_kernel("aten.scaled_dot_product_attention.default", [_np(q), _np(k), _np(v)], {}, [dtype_of(_np(want))])
    assert _ulps(np.asarray(got).astype(np.float32), want.float(), "bfloat16") <= 1.0


def _compare(got: Any, want: Any, dtype: str) -> float:
    """assert_close with torch's tolerance for the dtype, on every output; the largest absolute error."""
    worst = 0.0
    for g, w in zip(pytree.tree_leaves(got), pytree.tree_leaves(want), strict=True):
        if not isinstance(w, torch.Tensor):
            assert g == w
            continue
        g = torch.as_tensor(g) if not isinstance(g, torch.Tensor) else g
        assert g.dtype == w.dtype and g.shape == w.shape
        if not w.is_floating_point() or not w.numel():
            torch.testing.assert_close(g, w)
            continue
        # torch's rtol for the dtype, and as atol the same at the output's scale: one ulp
        # of difference inside the program moves a value near zero by more than its own ulp
        rtol = TOL[dtype]["rtol"]
        torch.testing.assert_close(g, w, rtol=rtol, atol=max(TOL[dtype]["atol"], rtol * float(w.float().abs().max())))
        if w.is_floating_point() and w.numel():
            worst = max(worst, (g.float() - w.float()).abs().max().item())
    return worst


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("backend", ["interpreter", "iree"])
def test_block_on_both_backends_matches_eager(backend: str, dtype: str, tmp_path: pathlib.Path) -> None:
    import xdsl_exir

    options: dict[str, Any] = {}
    if backend == "iree":
        pytest.importorskip("iree.runtime")
        options = {"cache_dir": str(tmp_path)}
    for name in BLOCKS[1:] if not SWEEP else BLOCKS:
        module, args = _programs(dtype)[name]
        with torch.no_grad():
            want = module(*args)
        compiled = xdsl_exir.compile(torch.export.export(module, args), backend=backend, **options)
        _compare(compiled(*args), want, dtype)


def _zoo() -> Any:
    return _load("gen_zoo", ROOT / "scripts" / "gen_zoo.py")


ZOO_DEFAULT = ["mlp", "resnet_blocks", "transformer_encoder", "gpt2_block", "llama_decoder_train"]
ZOO_EAGER_REFUSES = {"llama_block": "its causal mask is float32 whatever the model's dtype (eager raises)"}
ZOO_OTHER = {"custom_op": "its kernel is registered by the zoo tests"}


def _zoo_names() -> list[str]:
    names = [e.name for e in _zoo().ENTRIES] if SWEEP else ZOO_DEFAULT
    return [n for n in names if n not in ZOO_EAGER_REFUSES and n not in ZOO_OTHER]


@pytest.mark.parametrize("name", _zoo_names())
def test_zoo_model_in_float16(name: str, tmp_path: pathlib.Path) -> None:
    import xdsl_exir

    entry = {e.name: e for e in _zoo().ENTRIES}[name]
    gen = torch.Generator().manual_seed(0)
    model = entry.make(gen).eval().half()
    args = pytree.tree_map(lambda x: x.half() if isinstance(x, torch.Tensor) and x.is_floating_point() else x, entry.args(gen))
    ep = torch.export.export(copy.deepcopy(model), args, dynamic_shapes=entry.dynamic_shapes)
    with torch.no_grad():
        want = model(*args)
    backends = ["interpreter", "iree"] if SWEEP else ["interpreter"]
    for backend in backends:
        options = {"cache_dir": str(tmp_path)} if backend == "iree" else {}
        if backend == "iree" and importlib.util.find_spec("iree.runtime") is None:
            continue
        got = xdsl_exir.compile(ep, backend=backend, **options)(*args)
        assert math.isfinite(_compare(got, want, "float16"))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize(("shape", "out"), [((2, 4, 5, 5, 5), [2, 2, 2]), ((3, 4, 4, 6), [2, 3, 4])])
def test_adaptive_avg_pool3d_sums_in_the_dtype_as_torch(shape: tuple[int, ...], out: list[int], dtype: str) -> None:
    """torch's kernel has no float32 accumulator here: each addition and division is rounded."""
    gen = torch.Generator().manual_seed(len(shape))
    x = torch.randn(*shape, generator=gen).to(getattr(torch, dtype))
    x.view(-1)[3] = float("inf")
    want = torch.ops.aten._adaptive_avg_pool3d(x, out)
    got = K.run_kernel("aten._adaptive_avg_pool3d.default", [_np(x), out], {}, [dtype_of(_np(want))])
    assert isinstance(got, np.ndarray) and got.dtype == _np(want).dtype
    np.testing.assert_array_equal(got.astype(np.float32), want.float().numpy())
