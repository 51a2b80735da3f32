"""
Memory and time of a large model through each step, against the size of its
weights: a LLaMA-style decoder (RMSNorm, rotary-free causal attention with
grouped key/value heads, SwiGLU feed-forward, untied output head) built here
with random weights, saved with `torch.export.save` to a temporary directory,
then, each step in a fresh process so that its peak RSS is its own:

* `import`: `load_pt2` of the archive (by path: its weights mapped, not read);
* `exir-opt -o`: `exir-opt m.pt2 -o m.mlir` (the text with the weights in hex);
* `interpreter`: `exir-run m.pt2 --random-inputs 0`;
* `eager`: `torch.export.load(m.pt2).module()` called once;
* `iree-compile`: lowering and iree-compile with the weights by reference (IREE
  named parameters, the backend's default), into an empty cache: the cache
  entry's size is reported;
* `iree-inline`: the same with every weight embedded in the module (the old
  form; its cache entry holds the weights), into another empty cache;
* `iree-call`: `compile_program` on the cached module (import, lowering, load,
  the weights handed to IREE from the mapped archive) and the first and a
  steady call (the fastest of three), with their own times;
* `bundle`: `exir-opt m.pt2 --emit iree-bundle` (from the cache), the
  artifact's size;
* `bundle-run`: `xdsl_exir.runtime.load` of that artifact (files hashed) and
  one call, with numpy and IREE's runtime only.

The peak RSS is the child's `ru_maxrss` (`resource.getrusage(RUSAGE_CHILDREN)`
read by a wrapper process that runs only that child). The target of issue 23
is a peak at most 1.5 times the weight bytes at every step.

Run: `python benchmarks/scale.py [--size 100m|374m|1.1b] [--seq N] [--steps a,b]`
(the IREE steps: `--steps iree-compile,iree-call,bundle,bundle-run`).
Nothing is written outside the temporary directory, which is removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Shape:
    dim: int
    layers: int
    ffn: int
    heads: int
    kv_heads: int
    vocab: int = 32000


SIZES = {
    "100m": Shape(dim=768, layers=8, ffn=2048, heads=12, kv_heads=4),
    "374m": Shape(dim=1024, layers=24, ffn=2816, heads=16, kv_heads=16),
    "1.1b": Shape(dim=2048, layers=22, ffn=5632, heads=32, kv_heads=4),  # TinyLlama's shape
}


def build_and_save(shape: Shape, seq: int, path: Path) -> int:
    """Save the decoder's exported program at `path`; return its weight bytes."""
    import torch
    from torch import nn

    class RMSNorm(nn.Module):
        def __init__(self, dim: int) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(dim))

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-5) * self.weight

    class Block(nn.Module):
        def __init__(self, s: Shape) -> None:
            super().__init__()
            self.s = s
            hd = s.dim // s.heads
            self.norm1, self.norm2 = RMSNorm(s.dim), RMSNorm(s.dim)
            self.q = nn.Linear(s.dim, s.heads * hd, bias=False)
            self.k = nn.Linear(s.dim, s.kv_heads * hd, bias=False)
            self.v = nn.Linear(s.dim, s.kv_heads * hd, bias=False)
            self.o = nn.Linear(s.heads * hd, s.dim, bias=False)
            self.gate = nn.Linear(s.dim, s.ffn, bias=False)
            self.up = nn.Linear(s.dim, s.ffn, bias=False)
            self.down = nn.Linear(s.ffn, s.dim, bias=False)

        def forward(self, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
            s = self.s
            b, t, _ = x.shape
            hd = s.dim // s.heads
            h = self.norm1(x)
            q = self.q(h).view(b, t, s.heads, hd).transpose(1, 2)
            k = self.k(h).view(b, t, s.kv_heads, hd).transpose(1, 2)
            v = self.v(h).view(b, t, s.kv_heads, hd).transpose(1, 2)
            rep = s.heads // s.kv_heads
            k = k.repeat_interleave(rep, dim=1)
            v = v.repeat_interleave(rep, dim=1)
            att = (q @ k.transpose(-1, -2)) / (hd**0.5) + mask
            y = (att.softmax(-1) @ v).transpose(1, 2).reshape(b, t, s.dim)
            x = x + self.o(y)
            h = self.norm2(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))

    class Decoder(nn.Module):
        def __init__(self, s: Shape) -> None:
            super().__init__()
            self.embed = nn.Embedding(s.vocab, s.dim)
            self.blocks = nn.ModuleList(Block(s) for _ in range(s.layers))
            self.norm = RMSNorm(s.dim)
            self.head = nn.Linear(s.dim, s.vocab, bias=False)

        def forward(self, tokens: torch.Tensor) -> torch.Tensor:
            t = tokens.shape[1]
            mask = torch.full((t, t), float("-inf")).triu(1)
            x = self.embed(tokens)
            for blk in self.blocks:
                x = blk(x, mask)
            return self.head(self.norm(x))

    torch.manual_seed(0)
    with torch.no_grad():
        model = Decoder(shape).eval()
        for p in model.parameters():
            p.normal_(0.0, 0.02)
        tokens = torch.zeros(1, seq, dtype=torch.int64)
        ep = torch.export.export(model, (tokens,))
    torch.export.save(ep, str(path))
    return sum(p.numel() * p.element_size() for p in model.parameters())


_MEASURE = r"""
import json, resource, subprocess, sys, time
t = time.perf_counter()
rc = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
t = time.perf_counter() - t
print(json.dumps({"rc": rc, "s": t, "rss": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}))
"""

_IMPORT = r"""
import sys
from xdsl_exir.frontends.pt2 import load_pt2
import inspect
if "bytes | str" in str(inspect.signature(load_pt2)):
    module = load_pt2(sys.argv[1])
else:  # an importer that takes only bytes
    with open(sys.argv[1], "rb") as f:
        module = load_pt2(f.read())
"""

_EAGER = r"""
import sys, torch
program = torch.export.load(sys.argv[1])
with torch.no_grad():
    program.module()(torch.zeros(1, int(sys.argv[2]), dtype=torch.int64))
"""


_IREE_COMPILE = r"""
import json, os, sys
from xdsl_exir.targets.iree import IreeOptions, lower_for_iree, compile_text
pt2, cache, out, threshold = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
options = IreeOptions(cache_dir=cache, parameters_from_bytes=threshold)
lowered = lower_for_iree(pt2, options)
result = compile_text(lowered.text, options)
size = sum(os.path.getsize(os.path.join(cache, f)) for f in os.listdir(cache))
json.dump({"cache entry": size, "text": len(lowered.text), "parameters": len(lowered.parameters)}, open(out, "w"))
"""

_IREE_CALL = r"""
import json, sys, time
import numpy as np
from xdsl_exir.targets.iree import IreeOptions, compile_program
pt2, cache, out, seq = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
compiled = compile_program(pt2, IreeOptions(cache_dir=cache))
assert compiled.compile.from_cache
tokens = np.zeros((1, seq), dtype=np.int64)
t = time.perf_counter(); compiled(tokens); first = time.perf_counter() - t
steady = []
for _ in range(3):
    t = time.perf_counter(); compiled(tokens); steady.append(time.perf_counter() - t)
json.dump({"first call": first, "steady call": min(steady)}, open(out, "w"))
"""

_BUNDLE_RUN = r"""
import json, sys, time
import numpy as np
t = time.perf_counter()
import xdsl_exir.runtime as rt
f = rt.load(sys.argv[1])
loaded = time.perf_counter() - t
t = time.perf_counter(); f(np.zeros((1, int(sys.argv[3])), dtype=np.int64)); call = time.perf_counter() - t
json.dump({"load": loaded, "first call": call}, open(sys.argv[2], "w"))
"""


def _tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def measure(cmd: list[str]) -> tuple[float, int, int]:
    """Seconds, peak RSS in bytes and exit status of `cmd`, run alone in a fresh wrapper."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if r["rc"] != 0:
        sys.stderr.write(out.stderr[-2000:])
    return r["s"], r["rss"], r["rc"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="100m")
    ap.add_argument("--seq", type=int, default=16, help="sequence length of the exported program")
    ap.add_argument("--steps", default="import,exir-opt,interpreter,eager")
    args = ap.parse_args()
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="scale-") as tmp:
        pt2 = Path(tmp) / "m.pt2"
        t = time.perf_counter()
        weights = build_and_save(SIZES[args.size], args.seq, pt2)
        print(f"{args.size}: {weights / 1e9:.3f} GB of weights, archive {pt2.stat().st_size / 1e9:.3f} GB, "
              f"built and saved in {time.perf_counter() - t:.0f} s")
        steps = {
            "import": [sys.executable, "-c", _IMPORT, str(pt2)],
            "exir-opt": [str(bin_dir / "exir-opt"), str(pt2), "-o", str(Path(tmp) / "m.mlir")],
            "interpreter": [str(bin_dir / "exir-run"), str(pt2), "--random-inputs", "0"],
            "eager": [sys.executable, "-c", _EAGER, str(pt2), str(args.seq)],
            "iree-compile": [sys.executable, "-c", _IREE_COMPILE, str(pt2), f"{tmp}/cache", f"{tmp}/compile.json", str(64 * 1024)],
            "iree-inline": [sys.executable, "-c", _IREE_COMPILE, str(pt2), f"{tmp}/inline", f"{tmp}/inline.json", "-1"],
            "iree-call": [sys.executable, "-c", _IREE_CALL, str(pt2), f"{tmp}/cache", f"{tmp}/call.json", str(args.seq)],
            "bundle": [str(bin_dir / "exir-opt"), str(pt2), "--emit", "iree-bundle", "-o", f"{tmp}/bundle"],
            "bundle-run": [sys.executable, "-c", _BUNDLE_RUN, f"{tmp}/bundle", f"{tmp}/run.json", str(args.seq)],
        }
        reports = {"iree-compile": "compile.json", "iree-inline": "inline.json", "iree-call": "call.json", "bundle-run": "run.json"}
        os.environ["EXIR_IREE_CACHE"] = f"{tmp}/cache"  # exir-opt --emit iree-bundle reads the module compiled above
        print("| step | time | peak RSS | RSS / weights |")
        print("|---|---|---|---|")
        for name in args.steps.split(","):
            s, rss, rc = measure(steps[name])
            status = "" if rc == 0 else f" (exit status {rc})"
            if rc == 0 and name in reports:
                info = json.loads((Path(tmp) / reports[name]).read_text())
                status += " (" + ", ".join(
                    f"{k} {v / 1e6:.1f} MB" if k in ("cache entry", "text") else f"{k} {v:.2f} s" if isinstance(v, float) else f"{k} {v}"
                    for k, v in info.items()
                ) + ")"
            if rc == 0 and name == "bundle":
                status += f" (artifact {_tree_bytes(Path(tmp) / 'bundle') / 1e9:.3f} GB)"
            print(f"| {name} | {s:.1f} s | {rss / 1e9:.2f} GB | {rss / weights:.2f}x{status} |", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
