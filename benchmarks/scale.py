"""
Memory and time of a large model through each step, against the size of its
weights, and its numbers against eager PyTorch: a LLaMA-style decoder (RMSNorm,
causal attention with grouped key/value heads, SwiGLU feed-forward, untied
output head; no positional encoding) built here with random weights in the
chosen dtype, saved with `torch.export.save`, then, each step in a fresh
process so that its peak RSS is its own:

* `build`: the model built, exported and saved (not a target; the weights'
  size is its report);
* `import`: `load_pt2` of the archive (by path: its weights mapped, not read);
* `exir-opt`: `exir-opt m.pt2 -o m.mlir` (the text with the weights in hex);
* `eager`: `torch.export.load(m.pt2).module()`, the reference (`--check`);
* `interpreter`: `xdsl_exir.load(m.pt2)` called on the numpy interpreter;
* `iree-compile`: lowering and iree-compile with the weights by reference (IREE
  named parameters, the backend's default), into an empty cache: the cache
  entry's size is reported;
* `iree-inline`: the same with every weight embedded in the module (the old
  form; its cache entry holds the weights), into another empty cache;
* `iree-call`: `compile_program` on the cached module (import, lowering, load,
  the weights handed to IREE from the mapped archive) and the calls;
* `bundle`: `exir-opt m.pt2 --emit iree-bundle -o DIR` (from the cache), the
  artifact's size;
* `bundle-run`: `xdsl_exir.runtime.load(DIR)` (files hashed) and the calls, with
  numpy and IREE's runtime only;
* `bundle-exir-run`: `exir-run DIR --inputs prompt.npz -o out.npz`, one call.

Every step that calls the model makes `--calls N` greedy steps on a sliding
window: the prompt is `--seq` random tokens, each call's last-position argmax
is the next token, and the window moves on by one (the program's sizes stay
static). The first call's time and the fastest later one (`steady`) are given.
With `--check`, the `eager` step runs first (unless `--workdir` holds its
results from an earlier run), and each backend's first logits and its tokens
are compared with eager's: float32 within rtol 1e-4 (atol 1e-5 for the logits
near zero, as `tests/test_generation.py`); bfloat16/float16 differences are
reported, not judged, as their rounding after each operator lets two correct
implementations part by more than any useful tolerance. Eager's results
are written to a file first, so no process holds eager and ours together.

The peak RSS is the child's `ru_maxrss` (`resource.getrusage(RUSAGE_CHILDREN)`
read by a wrapper process that runs only that child). The target of issue 23
is a peak at most 1.5 times the weight bytes at every step, and a cache entry
of at most 50 MB.

Run (the acceptance rows of issue 23, on a 2-core 24 GB machine):

    python benchmarks/scale.py --size 1.1b --check \\
        --steps import,exir-opt,eager,interpreter,iree-compile,iree-call,bundle,bundle-run,bundle-exir-run
    python benchmarks/scale.py --size 1.1b --dtype bfloat16 --check --steps ...   (the same steps)

`--size tiny|100m|374m|1.1b|3b`, `--seq N` (16), `--calls N` (16 with `--check`,
else 4). `--workdir DIR` keeps the archive, the cache, the artifact and eager's
results there, so a later run with other `--steps` reuses them (the archive is
rebuilt only if absent); without it everything is in a temporary directory,
removed at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np


@dataclass(frozen=True)
class Shape:
    dim: int
    layers: int
    ffn: int
    heads: int
    kv_heads: int
    vocab: int = 32000


SIZES = {
    "tiny": Shape(dim=128, layers=2, ffn=352, heads=4, kv_heads=2, vocab=1000),  # for trying the script
    "100m": Shape(dim=768, layers=8, ffn=2048, heads=12, kv_heads=4),
    "374m": Shape(dim=1024, layers=24, ffn=2816, heads=16, kv_heads=16),
    "1.1b": Shape(dim=2048, layers=22, ffn=5632, heads=32, kv_heads=4),  # TinyLlama's shape
    "3b": Shape(dim=3200, layers=26, ffn=8640, heads=32, kv_heads=32),  # OpenLLaMA 3B's shape
}


def build_and_save(shape: Shape, seq: int, dtype: str, path: Path) -> int:
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
            x = self.embed(tokens)
            mask = torch.full((t, t), float("-inf"), dtype=x.dtype).triu(1)
            for blk in self.blocks:
                x = blk(x, mask)
            return self.head(self.norm(x))

    torch.manual_seed(0)
    default = torch.get_default_dtype()
    # Built in its dtype (a 3B model in bfloat16 is never 12 GB of float32 first).
    torch.set_default_dtype(getattr(torch, dtype))
    try:
        model = Decoder(shape).eval()
    finally:
        torch.set_default_dtype(default)
    with torch.no_grad():
        # Linear weights of std 0.5 / sqrt(fan-in), embeddings of std 1, norms of 1:
        # the logits spread over a few units, so the greedy token stands apart
        # from the next ones as in a trained model (std 0.02 everywhere, norms
        # included, squeezed them into a few hundredths).
        for name, p in model.named_parameters():
            if name == "embed.weight":
                p.normal_(0.0, 1.0)
            elif p.dim() == 2:
                p.normal_(0.0, 0.5 / p.shape[1] ** 0.5)
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

_BUILD = r"""
import json, sys
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import scale
size, seq, dtype, pt2, out = sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
weights = scale.build_and_save(scale.SIZES[size], seq, dtype, Path(pt2))
json.dump({"weights": weights}, open(out, "w"))
"""

_IMPORT = r"""
import sys
from xdsl_exir.frontends.pt2 import load_pt2
module = load_pt2(sys.argv[1])
"""

# The greedy loop every calling step shares: `call(window)` gives the logits
# [1, seq, vocab] (any dtype); the first call's logits (float32), the tokens and
# each call's time go to OUT.npz / OUT.json.
_GREEDY = r"""
import json, sys, time
import numpy as np

def greedy(call, prompt_path, out, calls, info):
    window = np.load(prompt_path)["arg0"]
    tokens, gaps, times, first = [], [], [], None
    for _ in range(calls):
        t = time.perf_counter()
        logits = call(window)
        times.append(time.perf_counter() - t)
        logits = np.asarray(logits).astype(np.float32)
        if first is None:
            first = logits
        last = logits[0, -1]
        tokens.append(int(last.argmax()))
        top2 = np.partition(last, -2)[-2:]
        gaps.append(float(top2[1] - top2[0]))  # how far the greedy token stands above the next
        window = np.concatenate([window[:, 1:], np.array([[tokens[-1]]], dtype=np.int64)], axis=1)
    np.savez(out + ".npz", logits=first, tokens=np.array(tokens, dtype=np.int64), gaps=np.array(gaps))
    info["first call"] = times[0]
    if len(times) > 1:
        info["steady call"] = min(times[1:])
    json.dump(info, open(out + ".json", "w"))

def first_output(value):
    while isinstance(value, (list, tuple)):
        value = value[0]
    return value
"""

_EAGER = _GREEDY + r"""
import torch
pt2, prompt, out, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t = time.perf_counter()
module = torch.export.load(pt2).module()
info = {"load": time.perf_counter() - t}
def call(window):
    with torch.no_grad():
        return first_output(module(torch.from_numpy(window))).float().numpy()
greedy(call, prompt, out, calls, info)
"""

_INTERPRETER = _GREEDY + r"""
import xdsl_exir
pt2, prompt, out, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t = time.perf_counter()
program = xdsl_exir.load(pt2)
info = {"load": time.perf_counter() - t}
greedy(lambda window: first_output(program(window)), prompt, out, calls, info)
"""

_IREE_COMPILE = r"""
import json, os, sys
from xdsl_exir.targets.iree import IreeOptions, lower_for_iree, compile_text
pt2, cache, out, threshold = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
options = IreeOptions(cache_dir=cache, parameters_from_bytes=threshold)
lowered = lower_for_iree(pt2, options)
result = compile_text(lowered.text, options)
size = sum(os.path.getsize(os.path.join(cache, f)) for f in os.listdir(cache))
json.dump({"cache entry": size, "text": len(lowered.text), "parameters": len(lowered.parameters)}, open(out + ".json", "w"))
"""

_IREE_CALL = _GREEDY + r"""
from xdsl_exir.targets.iree import IreeOptions, compile_program
pt2, prompt, out, calls, cache = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
t = time.perf_counter()
compiled = compile_program(pt2, IreeOptions(cache_dir=cache))
info = {"load": time.perf_counter() - t}
assert compiled.compile.from_cache
greedy(lambda window: first_output(compiled(window)), prompt, out, calls, info)
"""

_BUNDLE_RUN = _GREEDY + r"""
bundle, prompt, out, calls = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
t = time.perf_counter()
import xdsl_exir.runtime as rt
f = rt.load(bundle)
info = {"load": time.perf_counter() - t}
greedy(lambda window: first_output(f(window)), prompt, out, calls, info)
"""

CALLING = ("eager", "interpreter", "iree-call", "bundle-run")


def _tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def measure(cmd: list[str]) -> tuple[float, int, int]:
    """Seconds, peak RSS in bytes and exit status of `cmd`, run alone in a fresh wrapper."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, *cmd], capture_output=True, text=True, check=True)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    if r["rc"] != 0:
        sys.stderr.write(out.stderr[-2000:])
    return r["s"], r["rss"], r["rc"]


def compare(work: Path, name: str, dtype: str) -> str:
    """How a backend's first logits and greedy tokens compare with eager's."""
    want, got = np.load(work / "eager.npz"), np.load(work / f"{name}.npz")
    if name == "bundle-exir-run":
        logits, tokens = got["out0"].astype(np.float32), None
    else:
        logits, tokens = got["logits"], got["tokens"]
    ref = want["logits"]
    if logits.shape != ref.shape:
        return f"logits of shape {list(logits.shape)}, eager's {list(ref.shape)}"
    diff = np.abs(logits.astype(np.float64) - ref)
    scale = float(np.abs(ref).max())
    parts = [f"logits max |diff| {diff.max():.2g} ({diff.max() / scale:.2g} of the largest {scale:.3g})"]
    if dtype == "float32":
        ok = bool(np.all(diff <= 1e-4 * np.abs(ref) + 1e-5))
        parts.append(f"rtol 1e-4 atol 1e-5 {'PASS' if ok else 'FAIL'}")
    if tokens is not None:
        same = int(np.sum(tokens == want["tokens"][: len(tokens)]))
        first_off = next((i for i, (a, b) in enumerate(zip(tokens, want["tokens"])) if a != b), None)
        differs = ""
        if first_off is not None:
            differs = f" (first differs at step {first_off}"
            if "gaps" in want.files:
                differs += f", where eager's two best logits are {want['gaps'][first_off]:.2g} apart"
            differs += ")"
        parts.append(f"tokens {same}/{len(tokens)} as eager's{differs}")
    return ", ".join(parts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", choices=sorted(SIZES), default="100m")
    ap.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    ap.add_argument("--seq", type=int, default=16, help="sequence length of the exported program (the window)")
    ap.add_argument("--steps", default="import,exir-opt,interpreter,eager")
    ap.add_argument("--check", action="store_true", help="compare each backend with eager (runs eager first)")
    ap.add_argument("--calls", type=int, default=None, help="greedy steps per calling step (16 with --check, else 4)")
    ap.add_argument("--workdir", default=None, help="keep the archive, cache and artifact there for later runs")
    args = ap.parse_args()
    calls = args.calls if args.calls is not None else (16 if args.check else 4)
    steps = args.steps.split(",")
    if args.check and "eager" in steps:
        steps.insert(0, steps.pop(steps.index("eager")))
    bin_dir = Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="scale-") as tmp:
        work = Path(args.workdir) if args.workdir else Path(tmp)
        work.mkdir(parents=True, exist_ok=True)
        stem = f"{args.size}-{args.dtype}-{args.seq}"
        pt2, info_path = work / f"{stem}.pt2", work / f"{stem}.json"
        bundle, cache = work / f"{stem}.bundle", work / f"{stem}.cache"
        prompt = work / "prompt.npz"
        np.savez(prompt, arg0=np.random.default_rng(0).integers(0, SIZES[args.size].vocab, (1, args.seq), dtype=np.int64))
        if not (pt2.is_file() and info_path.is_file()):
            s, rss, rc = measure([sys.executable, "-c", _BUILD, str(Path(__file__).parent), args.size, str(args.seq),
                                  args.dtype, str(pt2), str(info_path)])  # fmt: skip
            if rc != 0:
                sys.exit("building the model failed")
            print(f"{args.size} {args.dtype}: built and saved in {s:.0f} s, peak RSS {rss / 1e9:.2f} GB")
        weights = json.loads(info_path.read_text())["weights"]
        print(f"{args.size} {args.dtype}: {weights / 1e9:.3f} GB of weights, archive {pt2.stat().st_size / 1e9:.3f} GB; "
              f"{calls} greedy calls of {args.seq} tokens")  # fmt: skip
        common = [str(prompt), ""]
        commands = {
            "import": [sys.executable, "-c", _IMPORT, str(pt2)],
            "exir-opt": [str(bin_dir / "exir-opt"), str(pt2), "-o", str(work / "m.mlir")],
            "eager": [sys.executable, "-c", _EAGER, str(pt2), *common, str(calls)],
            "interpreter": [sys.executable, "-c", _INTERPRETER, str(pt2), *common, str(calls)],
            "iree-compile": [sys.executable, "-c", _IREE_COMPILE, str(pt2), str(cache), "", str(64 * 1024)],
            "iree-inline": [sys.executable, "-c", _IREE_COMPILE, str(pt2), str(work / "inline-cache"), "", "-1"],
            "iree-call": [sys.executable, "-c", _IREE_CALL, str(pt2), *common, str(calls), str(cache)],
            "bundle": [str(bin_dir / "exir-opt"), str(pt2), "--emit", "iree-bundle", "-o", str(bundle)],
            "bundle-run": [sys.executable, "-c", _BUNDLE_RUN, str(bundle), *common, str(calls)],
            "bundle-exir-run": [str(bin_dir / "exir-run"), str(bundle), "--inputs", str(prompt), "-o", ""],
        }
        os.environ["EXIR_IREE_CACHE"] = str(cache)  # exir-opt --emit iree-bundle reads the module compiled above
        if args.check and "eager" not in steps and not (work / "eager.npz").is_file():
            steps.insert(0, "eager")  # (a --workdir keeps eager's results from an earlier run)
        print("| step | time | peak RSS | RSS / weights | notes |")
        print("|---|---|---|---|---|")
        for name in steps:
            if name not in commands:
                sys.exit(f"unknown step {name!r} (known: {', '.join(commands)})")
            cmd = list(commands[name])
            out = str(work / name)
            if "" in cmd:  # where the step writes its results
                cmd[cmd.index("")] = out + (".npz" if name == "bundle-exir-run" else "")
            for stale in (Path(out + ".npz"), Path(out + ".json")):
                stale.unlink(missing_ok=True)
            if name in ("iree-compile", "iree-inline"):
                shutil.rmtree(cache if name == "iree-compile" else work / "inline-cache", ignore_errors=True)
            if name == "exir-opt":
                (work / "m.mlir").unlink(missing_ok=True)
            s, rss, rc = measure(cmd)
            notes: list[str] = [] if rc == 0 else [f"exit status {rc}"]
            if rc == 0 and Path(out + ".json").is_file():
                info = json.loads(Path(out + ".json").read_text())
                notes += [
                    f"{k} {v / 1e6:.1f} MB" if k in ("cache entry", "text") else f"{k} {v:.2f} s" if isinstance(v, float) else f"{k} {v}"
                    for k, v in info.items()
                ]
            if rc == 0 and name == "bundle":
                notes.append(f"artifact {_tree_bytes(bundle) / 1e9:.3f} GB")
            if rc == 0 and name == "exir-opt":
                notes.append(f"text {(work / 'm.mlir').stat().st_size / 1e9:.2f} GB")
                (work / "m.mlir").unlink()
            if rc == 0 and args.check and name in (*CALLING, "bundle-exir-run") and name != "eager":
                notes.append(compare(work, name, args.dtype))
            print(f"| {name} | {s:.1f} s | {rss / 1e9:.2f} GB | {rss / weights:.2f}x | {'; '.join(notes)} |", flush=True)


if __name__ == "__main__":
    os.environ.setdefault("OMP_NUM_THREADS", "2")
    main()
