"""
Greedy generation with a KV cache: a small LLaMA-style decoder (RMSNorm, rotary
positions, grouped key/value heads, SwiGLU, untied head) with random weights,
exported as two programs over one set of parameters:

* `prefill(tokens[1, T]) -> (logits[1, vocab], k[layers, 1, kv, T, hd], v[...])`,
  T dynamic: the prompt in one call, the keys and values of every position out;
* `decode(token[1, 1], k[layers, 1, kv, L, hd], v[...]) -> (logits, k', v')`, L
  dynamic: one token attending to the cache and itself; the caches grow to L + 1.

The cache travels as inputs and outputs (the functional form `torch.export` gives
a KV cache; the same program serves every cache length in the exported range).
The greedy loop (`generate`) is one function over any pair of callables, so eager
torch, the interpreter and IREE run the same loop on the same prompt. Both
programs come from one module, so their parameters are the same tensors under
the same names.

The benchmark times, interleaved and on one thread, the prefill of a prompt and
`--steps` decode steps for eager torch, IREE, the interpreter (`--interpreter`)
and onnxruntime (when the venv has it: the same two programs through
`torch.onnx.export`, dynamic axes included), prints tokens/s and the ratios to
eager from the same run, checks that every backend generated eager's tokens, and
gives the process's peak RSS. Nothing is asserted about time.

Run: `python benchmarks/llm.py [--size tiny|small] [--dtype float32|bfloat16|float16]
[--prompt 32] [--steps 16] [--rounds 3]`.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Config:
    vocab: int = 256
    dim: int = 64
    layers: int = 2
    heads: int = 4
    kv_heads: int = 2
    ffn: int = 160
    max_seq: int = 64

    @property
    def head_dim(self) -> int:
        return self.dim // self.heads


SIZES = {
    "tiny": Config(),
    "small": Config(vocab=4096, dim=512, layers=4, heads=8, kv_heads=2, ffn=1408, max_seq=256),
}


def build(config: Config, dtype: str = "float32", seed: int = 0) -> Any:
    """The decoder with random weights (std 0.5 / sqrt(fan-in): logits spread enough to rank)."""
    import torch
    from torch import nn

    class RMSNorm(nn.Module):
        def __init__(self, dim: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight

    def rotate(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        half = x.shape[-1] // 2
        return x * cos + torch.cat((-x[..., half:], x[..., :half]), dim=-1) * sin

    class Block(nn.Module):
        def __init__(self, c: Config) -> None:
            super().__init__()
            self.c = c
            hd = c.head_dim
            self.norm1, self.norm2 = RMSNorm(c.dim), RMSNorm(c.dim)
            self.q = nn.Linear(c.dim, c.heads * hd, bias=False)
            self.k = nn.Linear(c.dim, c.kv_heads * hd, bias=False)
            self.v = nn.Linear(c.dim, c.kv_heads * hd, bias=False)
            self.o = nn.Linear(c.heads * hd, c.dim, bias=False)
            self.gate = nn.Linear(c.dim, c.ffn, bias=False)
            self.up = nn.Linear(c.dim, c.ffn, bias=False)
            self.down = nn.Linear(c.ffn, c.dim, bias=False)

        def forward(
            self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, mask: torch.Tensor | None,
            k_past: torch.Tensor | None, v_past: torch.Tensor | None,
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            c = self.c
            b, t, _ = x.shape
            hd = c.head_dim
            h = self.norm1(x)
            q = rotate(self.q(h).view(b, t, c.heads, hd).transpose(1, 2), cos, sin)
            k = rotate(self.k(h).view(b, t, c.kv_heads, hd).transpose(1, 2), cos, sin)
            v = self.v(h).view(b, t, c.kv_heads, hd).transpose(1, 2)
            if k_past is not None and v_past is not None:
                k = torch.cat((k_past, k), dim=2)
                v = torch.cat((v_past, v), dim=2)
            # Grouped heads: the `rep` query heads of a key/value head are stacked as
            # rows, [b, kv, rep * t, hd], so the cache is used as it is (neither
            # repeated nor copied; repeating it makes torch.export guard on its length).
            rep = c.heads // c.kv_heads
            att = (q.reshape(b, c.kv_heads, rep * t, hd) @ k.transpose(-1, -2)) / (hd**0.5)
            if mask is not None:
                att = (att.view(b, c.kv_heads, rep, t, t) + mask).view(b, c.kv_heads, rep * t, t)
            y = (att.softmax(-1) @ v).view(b, c.heads, t, hd).transpose(1, 2).reshape(b, t, c.dim)
            x = x + self.o(y)
            h = self.norm2(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h)), k, v

    class Decoder(nn.Module):
        def __init__(self, c: Config) -> None:
            super().__init__()
            self.c = c
            self.embed = nn.Embedding(c.vocab, c.dim)
            self.blocks = nn.ModuleList(Block(c) for _ in range(c.layers))
            self.norm = RMSNorm(c.dim)
            self.head = nn.Linear(c.dim, c.vocab, bias=False)
            hd = c.head_dim
            inv_freq = 1.0 / (10000.0 ** (torch.arange(0, hd, 2, dtype=torch.float32) / hd))
            freqs = torch.outer(torch.arange(c.max_seq, dtype=torch.float32), inv_freq)
            emb = torch.cat((freqs, freqs), dim=-1)
            self.register_buffer("cos", emb.cos(), persistent=False)
            self.register_buffer("sin", emb.sin(), persistent=False)

        def run(
            self, tokens: torch.Tensor, start: Any, caches: tuple[torch.Tensor, torch.Tensor] | None
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            t = tokens.shape[1]
            cos, sin = self.cos[start : start + t], self.sin[start : start + t]
            mask = None if caches is not None else torch.full((t, t), float("-inf"), dtype=cos.dtype).triu(1)
            x = self.embed(tokens)
            ks, vs = [], []
            for i, blk in enumerate(self.blocks):
                past = (caches[0][i], caches[1][i]) if caches is not None else (None, None)
                x, k, v = blk(x, cos, sin, mask, *past)
                ks.append(k)
                vs.append(v)
            logits = self.head(self.norm(x[:, -1]))
            return logits, torch.stack(ks), torch.stack(vs)

    class Prefill(nn.Module):
        def __init__(self, decoder: Decoder) -> None:
            super().__init__()
            self.decoder = decoder

        def forward(self, tokens: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return self.decoder.run(tokens, 0, None)

    class Decode(nn.Module):
        def __init__(self, decoder: Decoder) -> None:
            super().__init__()
            self.decoder = decoder

        def forward(
            self, token: torch.Tensor, k: torch.Tensor, v: torch.Tensor
        ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
            return self.decoder.run(token, k.shape[3], (k, v))

    gen = torch.Generator().manual_seed(seed)
    decoder = Decoder(config).eval()
    with torch.no_grad():
        for name, p in decoder.named_parameters():
            if name.endswith("norm1.weight") or name.endswith("norm2.weight") or name == "norm.weight":
                p.copy_(1.0 + 0.1 * torch.randn(p.shape, generator=gen))
            else:
                p.normal_(0.0, 0.5 / p.shape[-1] ** 0.5, generator=gen)
        decoder.embed.weight.normal_(0.0, 1.0, generator=gen)
    decoder = decoder.to(getattr(torch, dtype))
    return Prefill(decoder), Decode(decoder)


def export(prefill: Any, decode: Any, config: Config) -> tuple[Any, Any]:
    """Both programs, with the prompt length and the cache length dynamic."""
    import torch
    from torch.export import Dim

    c = config
    t = Dim.DYNAMIC(min=2, max=c.max_seq)
    cache = Dim.DYNAMIC(min=1, max=c.max_seq - 1)
    with torch.no_grad():
        pre = torch.export.export(prefill, (torch.zeros(1, 4, dtype=torch.int64),), dynamic_shapes=({1: t},))
        kv = torch.zeros(c.layers, 1, c.kv_heads, 4, c.head_dim, dtype=prefill.decoder.embed.weight.dtype)
        dec = torch.export.export(
            decode,
            (torch.zeros(1, 1, dtype=torch.int64), kv, kv.clone()),
            dynamic_shapes=(None, {3: cache}, {3: cache}),
        )
    return pre, dec


Step = Callable[..., Sequence[Any]]


def generate(prefill: Step, decode: Step, prompt: np.ndarray, steps: int) -> list[int]:
    """Greedy tokens after `prompt` ([1, T] int64): numpy or torch callables alike."""
    logits, k, v = prefill(prompt)
    tokens = [int(np.asarray(_float(logits)).argmax())]
    for _ in range(steps - 1):
        logits, k, v = decode(np.array([[tokens[-1]]], dtype=np.int64), k, v)
        tokens.append(int(np.asarray(_float(logits)).argmax()))
    return tokens


def _float(x: Any) -> Any:
    """Logits as float32 numpy (a torch tensor of any dtype, or an ml_dtypes array)."""
    if hasattr(x, "detach"):
        return x.detach().float().numpy()
    return np.asarray(x).astype(np.float32)


def eager_steps(prefill: Any, decode: Any) -> tuple[Step, Step]:
    """Eager torch behind the numpy-token interface of `generate`."""
    import torch

    def pre(tokens: np.ndarray) -> Sequence[Any]:
        with torch.no_grad():
            return prefill(torch.from_numpy(tokens))

    def dec(token: np.ndarray, k: Any, v: Any) -> Sequence[Any]:
        with torch.no_grad():
            return decode(torch.from_numpy(token), k, v)

    return pre, dec


def exir_steps(pre_ep: Any, dec_ep: Any, backend: str, **options: Any) -> tuple[Step, Step]:
    """Both programs compiled by xdsl-exir for `backend` (one thread; `options` are IREE's):
    numpy in, numpy out, the caches passed on as they come out."""
    import xdsl_exir

    pre = xdsl_exir.compile(pre_ep, backend=backend, threads=1, **options)
    dec = xdsl_exir.compile(dec_ep, backend=backend, threads=1, **options)
    return (lambda tokens: pre(tokens)), (lambda token, k, v: dec(token, k, v))


def onnx_steps(prefill: Any, decode: Any, config: Config, tmp: str) -> tuple[Step, Step] | str:
    """The two programs through torch.onnx.export and onnxruntime (one thread), or why not."""
    try:
        import onnxruntime as ort
    except ImportError:
        return "not installed"
    import torch

    c = config
    kv = torch.zeros(c.layers, 1, c.kv_heads, 4, c.head_dim, dtype=prefill.decoder.embed.weight.dtype)
    paths = [os.path.join(tmp, "prefill.onnx"), os.path.join(tmp, "decode.onnx")]
    try:
        with torch.no_grad():
            torch.onnx.export(
                prefill, (torch.zeros(1, 4, dtype=torch.int64),), paths[0], input_names=["tokens"],
                output_names=["logits", "k", "v"], dynamic_axes={"tokens": {1: "t"}, "k": {3: "t"}, "v": {3: "t"}},
                dynamo=False,
            )
            torch.onnx.export(
                decode, (torch.zeros(1, 1, dtype=torch.int64), kv, kv.clone()), paths[1],
                input_names=["token", "k_in", "v_in"], output_names=["logits", "k", "v"],
                dynamic_axes={"k_in": {3: "c"}, "v_in": {3: "c"}, "k": {3: "c1"}, "v": {3: "c1"}}, dynamo=False,
            )
    except Exception as e:  # the exporter's own refusal, reported as the result
        return f"export failed: {type(e).__name__}: {str(e).splitlines()[0][:200]}"
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    sp = ort.InferenceSession(paths[0], opts, providers=["CPUExecutionProvider"])
    sd = ort.InferenceSession(paths[1], opts, providers=["CPUExecutionProvider"])
    return (
        lambda tokens: sp.run(None, {"tokens": tokens}),
        lambda token, k, v: sd.run(None, {"token": token, "k_in": k, "v_in": v}),
    )


def _time(fn: Callable[[], Any]) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="small")
    ap.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    ap.add_argument("--prompt", type=int, default=32, help="prompt length (tokens)")
    ap.add_argument("--steps", type=int, default=16, help="generated tokens")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved timing rounds (the best is kept)")
    ap.add_argument("--interpreter", action="store_true", help="time the numpy interpreter too")
    args = ap.parse_args()

    import torch

    torch.set_num_threads(1)
    config = SIZES[args.size]
    if args.prompt + args.steps > config.max_seq:
        ap.error(f"--prompt + --steps must be at most {config.max_seq}")
    prefill, decode = build(config, args.dtype)
    n_params = sum(p.numel() for p in prefill.parameters())
    print(f"{args.size} decoder, {args.dtype}: {n_params / 1e6:.1f}M parameters, {config.layers} layers, "
          f"prompt {args.prompt}, {args.steps} steps, one thread")
    pre_ep, dec_ep = export(prefill, decode, config)
    prompt = np.random.default_rng(0).integers(0, config.vocab, (1, args.prompt), dtype=np.int64)
    backends: dict[str, tuple[Step, Step]] = {"eager": eager_steps(prefill, decode)}
    t = time.perf_counter()
    backends["iree"] = exir_steps(pre_ep, dec_ep, "iree")
    print(f"IREE: both programs compiled in {time.perf_counter() - t:.1f} s (cached modules are reused)")
    if args.interpreter:
        backends["interpreter"] = exir_steps(pre_ep, dec_ep, "interpreter")
    with tempfile.TemporaryDirectory(prefix="llm-") as tmp:
        ort_steps = onnx_steps(prefill, decode, config, tmp) if args.dtype == "float32" else "float32 only here"
        if isinstance(ort_steps, str):
            print(f"onnxruntime: {ort_steps}")
        else:
            backends["onnxruntime"] = ort_steps

        want = generate(*backends["eager"], prompt, args.steps)
        logits = _float(backends["eager"][0](prompt)[0])
        print(f"eager tokens: {want}; largest prompt logit {np.abs(logits).max():.3g}")
        for name, (pre, dec) in backends.items():
            got = generate(pre, dec, prompt, args.steps)
            error = np.abs(_float(pre(prompt)[0]) - logits).max()
            print(f"{name}: {'same tokens' if got == want else f'DIFFERENT tokens {got}'}, "
                  f"prompt logits within {error:.3g} of eager's")

        best: dict[str, list[float]] = {name: [float("inf"), float("inf")] for name in backends}
        for _ in range(args.rounds):
            for name, (pre, dec) in backends.items():
                out: list[Any] = []
                tp = _time(lambda: out.extend(pre(prompt)))
                _, k, v = out
                token = np.array([[1]], dtype=np.int64)

                def loop() -> None:
                    kk, vv = k, v
                    for _ in range(args.steps):
                        _, kk, vv = dec(token, kk, vv)

                td = _time(loop)
                best[name][0] = min(best[name][0], tp)
                best[name][1] = min(best[name][1], td)

    base = best["eager"]
    print()
    print("| backend | prefill tokens/s | x eager | decode tokens/s | x eager |")
    print("|---|---|---|---|---|")
    for name, (tp, td) in best.items():
        print(f"| {name} | {args.prompt / tp:,.0f} | {base[0] / tp:.2f} | {args.steps / td:,.1f} | {base[1] / td:.2f} |")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    print(f"\npeak RSS of this process (all backends): {rss / 1e6:.0f} MB; "
          f"weights {sum(p.numel() * p.element_size() for p in prefill.parameters()) / 1e6:.1f} MB")


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    main()
