"""
TorchScript: reading dumps and running graphs, each as a ratio against torch
measured in the same run.

1. Reading a graph dump: `parse_torchscript` (text -> verified ts/prim IR)
   against `torch._C.parse_ir` on the same text, a chain of N pointwise
   nodes (N = 1000 and 5000, to show the growth per node).
2. Running: the JIT Technical Overview's LSTM cell (a scripted function's dump) in
   `TorchScriptRunner` against the scripted function in torch.jit, on the same
   inputs (3x10 / 3x20 and 64x256 / 64x512), and the legacy-fuser
   `prim::FusionGroup` form of it against its unfused dump in our runner.

Run: `python benchmarks/torchscript.py` (needs the torch extra for the peers).
Both sides run single-threaded; timings are interleaved and reported as medians.
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before numpy and torch load their BLAS

import sys
import warnings
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from run_programs import compare

from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript
from xdsl_exir.interpreters.ts_runner import TorchScriptRunner

DUMPS = Path(__file__).parent.parent / "tests" / "torchscript" / "dumps"


def chain_dump(n: int) -> str:
    """A graph of `n` pointwise nodes on two inputs, as torch prints it."""
    lines = ["graph(%x : Float(4, 16, strides=[16, 1], requires_grad=0, device=cpu),",
             "      %y : Float(4, 16, strides=[16, 1], requires_grad=0, device=cpu)):",
             "  %one : int = prim::Constant[value=1]()"]
    prev, other = "%x", "%y"
    kinds = ("aten::add(%s, %s, %%one)", "aten::mul(%s, %s)", "aten::sub(%s, %s, %%one)")
    for i in range(n):
        call = kinds[i % 3] % (prev, other)
        lines.append(f"  %v{i} : Float(4, 16, strides=[16, 1], requires_grad=0, device=cpu) = {call}")
        prev, other = f"%v{i}", prev
    lines.append(f"  return ({prev})")
    return "\n".join(lines) + "\n"


def bench_parse() -> None:
    print("reading a dump (text -> IR), per node")
    for n in (1000, 5000):
        text = chain_dump(n)
        ours, peer = compare(
            [lambda: parse_torchscript(text, "chain.txt"), lambda: torch._C.parse_ir(text)], repeat=5
        )
        print(f"  {n:5d} nodes: ours {ours / n * 1e6:6.1f} us/node, torch._C.parse_ir {peer / n * 1e6:6.1f}"
              f" us/node, ratio {ours / peer:5.2f}x")


def lstm_cell(x, hx, cx, w_ih, w_hh, b_ih, b_hh):
    gates = x.mm(w_ih.t()) + hx.mm(w_hh.t()) + b_ih + b_hh
    ingate, forgetgate, cellgate, outgate = gates.chunk(4, 1)
    ingate = torch.sigmoid(ingate)
    forgetgate = torch.sigmoid(forgetgate)
    cellgate = torch.tanh(cellgate)
    outgate = torch.sigmoid(outgate)
    cy = (forgetgate * cx) + (ingate * cellgate)
    hy = outgate * torch.tanh(cy)
    return hy, cy


def bench_run() -> None:
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        scripted = torch.jit.script(lstm_cell)
    runner = TorchScriptRunner(parse_torchscript(str(scripted.graph), "lstm_cell.txt"))
    print("running the JIT Technical Overview's LSTM cell, per call")
    rng = np.random.default_rng(0)
    for batch, inp, hid in ((3, 10, 20), (64, 256, 512)):
        arrays = [rng.standard_normal(s).astype(np.float32) for s in (
            (batch, inp), (batch, hid), (batch, hid), (4 * hid, inp), (4 * hid, hid), (4 * hid,), (4 * hid,))]
        tensors = [torch.from_numpy(a) for a in arrays]
        got = runner.run_flat(arrays)
        want = scripted(*tensors)
        assert all(np.allclose(g, w.numpy(), rtol=1e-4, atol=1e-5) for g, w in zip(got, want))
        with torch.no_grad():
            ours, peer = compare([lambda: runner.run_flat(arrays), lambda: scripted(*tensors)], repeat=9, number=5)
        print(f"  batch {batch:3d}, hidden {hid:3d}: ours {ours * 1e6:8.1f} us, torch.jit {peer * 1e6:8.1f} us,"
              f" ratio {ours / peer:5.2f}x")
    fused = TorchScriptRunner(parse_torchscript((DUMPS / "fuse_lstm_cell.fused.txt").read_text(), "fused.txt"))
    plain = TorchScriptRunner(parse_torchscript((DUMPS / "fuse_lstm_cell.traced.txt").read_text(), "traced.txt"))
    inputs = fused.random_flat_inputs(0)
    a, b = compare([lambda: fused.run_flat(inputs), lambda: plain.run_flat(inputs)], repeat=9, number=20)
    print(f"  torch's FusionGroup dump {a * 1e6:6.1f} us vs the unfused traced dump {b * 1e6:6.1f} us"
          f" (ratio {a / b:4.2f}x; the group runs as one compiled function)")


if __name__ == "__main__":
    bench_parse()
    bench_run()
