"""
Reading and printing the MLIR text of Export IR programs: microseconds per op at
1k, 10k and 50k ops, so that a read which is not linear in the size shows as a
growing figure; and, with torch installed, a 12-layer transformer encoder read
from its `.mlir` against the same model read from its `.pt2` (the peer), both to
a verified module, interleaved in one run; then both again with every weight's
bytes asked for once (what loading the state for a first run adds: a `.mlir`
read leaves the weights' hex undecoded until then, a `.pt2` read copies them).

Each chain program is built in-process (linear, relu, add, view and softmax calls
on a symbolic batch and a static one, as `build_graph.py` builds), printed as the
`mlir` target prints (weights in the resources section), then read back with the
parser `exir-opt` uses and verified. Times are this process's CPU time (other load
on a shared machine does not count), the best of a few repetitions, single-threaded.

Run: `python benchmarks/read_text.py [n_ops ...] [--no-model]`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from io import BytesIO, StringIO

from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.ir import Block, Region, SSAValue

from xdsl_exir.dialects.aten import aten_op_class
from xdsl_exir.dialects.exir import (
    DenseBlobAttr,
    DType,
    GraphOp,
    InputKind,
    InputSpecAttr,
    OutputKind,
    OutputOp,
    OutputSpecAttr,
    ProgramOp,
    StateOp,
    TensorType,
    blob_data,
    blob_from_array,
)
from xdsl_exir.dialects.registry import get_all_dialects
from xdsl_exir.utils.mlir_parser import ResourceParser, print_module
from xdsl_exir.utils.symbolic import make_symbol

FEATURES = 64
OPS_PER_STEP = 6


def context() -> Context:
    ctx = Context()
    ctx.load_dialect(Builtin)
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    return ctx


def build_program(n_ops: int) -> ModuleOp:
    """A program of about `n_ops` aten calls with two weights as state."""
    import numpy as np

    linear = aten_op_class("aten.linear.default")
    relu = aten_op_class("aten.relu.default")
    add = aten_op_class("aten.add.Tensor")
    view = aten_op_class("aten.view.default")
    softmax = aten_op_class("aten._softmax.default")
    assert linear and relu and add and view and softmax
    s0 = make_symbol("s0")
    wt = TensorType([FEATURES, FEATURES], DType.float32)
    bt = TensorType([FEATURES], DType.float32)
    in_types = [wt, bt, TensorType([s0, FEATURES], DType.float32), TensorType([32, FEATURES], DType.float32)]
    block = Block(arg_types=in_types)
    for arg, name in zip(block.args, ("p_w", "p_b", "x", "y")):
        arg.name_hint = name
    w, b = block.args[0], block.args[1]
    xs: list[SSAValue] = [block.args[2], block.args[3]]
    for step in range(max(1, n_ops // OPS_PER_STEP)):
        x = xs[step % 2]
        ops = [linear.build(x, w, b)]
        ops.append(relu.build(ops[-1]))
        ops.append(add.build(ops[-1], x))
        ops.append(view.build(ops[-1], [-1, FEATURES // 2]))
        ops.append(view.build(ops[-1], [-1, FEATURES]))
        ops.append(softmax.build(ops[-1], -1, False))
        block.add_ops(ops)
        xs[step % 2] = ops[-1].results[0]
    block.add_op(OutputOp(xs))
    graph = GraphOp("forward", in_types, [v.type for v in xs], Region(block))
    rng = np.random.default_rng(0)
    states = [
        StateOp("w", wt, blob_from_array(rng.standard_normal((FEATURES, FEATURES)).astype(np.float32), DType.float32)),
        StateOp("b", bt, blob_from_array(rng.standard_normal(FEATURES).astype(np.float32), DType.float32)),
    ]
    program = ProgramOp(
        [
            InputSpecAttr(InputKind.parameter, "p_w", "w"),
            InputSpecAttr(InputKind.parameter, "p_b", "b"),
            InputSpecAttr(InputKind.user_input, "x"),
            InputSpecAttr(InputKind.user_input, "y"),
        ],
        [OutputSpecAttr(OutputKind.user_output, "out0"), OutputSpecAttr(OutputKind.user_output, "out1")],
        [*states, graph],
    )
    return ModuleOp([program])


def print_text(ctx: Context, module: ModuleOp) -> str:
    out = StringIO()
    print_module(module, out, ctx.loaded_dialects)
    return out.getvalue()


def read_module(ctx: Context, text: str) -> ModuleOp:
    module = ResourceParser(ctx, text, "bench.mlir").parse_module()
    module.verify()
    return module


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def encoder_pt2() -> bytes:
    """A 12-layer transformer encoder (width 256, 4 heads, GELU; 9.5M weights) saved by torch.export."""
    import torch

    torch.manual_seed(0)
    layer = torch.nn.TransformerEncoderLayer(256, 4, 1024, batch_first=True, activation="gelu")
    model = torch.nn.TransformerEncoder(layer, 12, enable_nested_tensor=False).eval()
    program = torch.export.export(model, (torch.randn(2, 16, 256),))
    buffer = BytesIO()
    torch.export.save(program, buffer)
    return buffer.getvalue()


def compare_with_pt2(ctx: Context, repeat: int = 5) -> None:
    from xdsl_exir.frontends.pt2 import load_pt2

    def read_pt2() -> ModuleOp:
        module = load_pt2(data, "encoder.pt2")
        module.verify()
        return module

    def weights(module: ModuleOp) -> int:
        """Every weight's bytes asked for once, as loading the state for a first run does."""
        return sum(
            len(blob_data(op.value))
            for op in module.walk()
            if isinstance(op, StateOp) and isinstance(op.value, DenseBlobAttr)
        )

    data = encoder_pt2()
    module = read_pt2()
    text = print_text(ctx, module)
    n_ops = sum(1 for _ in module.walk())
    t_pt2, t_mlir = float("inf"), float("inf")
    t_pt2_w, t_mlir_w = float("inf"), float("inf")
    for _ in range(repeat):  # interleaved, so both see the same machine
        t_pt2 = min(t_pt2, best_of(1, read_pt2))
        t_mlir = min(t_mlir, best_of(1, lambda: read_module(ctx, text)))
        t_pt2_w = min(t_pt2_w, best_of(1, lambda: weights(read_pt2())))
        t_mlir_w = min(t_mlir_w, best_of(1, lambda: weights(read_module(ctx, text))))
    longest_op_line = max(len(line) for line in text.split("{-#")[0].splitlines())
    print(
        f"12-layer encoder ({n_ops} ops, {len(data) / 1e6:.1f} MB .pt2, {len(text) / 1e6:.1f} MB .mlir, "
        f"longest op line {longest_op_line} chars)\n"
        f"  read:                   .pt2 {t_pt2 * 1e3:.0f} ms, .mlir {t_mlir * 1e3:.0f} ms, "
        f"ratio {t_mlir / t_pt2:.2f}x\n"
        f"  read + weights' bytes:  .pt2 {t_pt2_w * 1e3:.0f} ms, .mlir {t_mlir_w * 1e3:.0f} ms, "
        f"ratio {t_mlir_w / t_pt2_w:.2f}x"
    )


def main(argv: list[str]) -> None:
    sizes = [int(a) for a in argv if not a.startswith("--")] or [1_000, 10_000, 50_000]
    ctx = context()
    print(f"{'ops':>8} {'print us/op':>12} {'read us/op':>11} {'MB':>6}")
    for n in sizes:
        module = build_program(n)
        n_ops = sum(1 for _ in module.walk())
        text = print_text(ctx, module)
        repeat = 3 if n <= 10_000 else 1
        t_print = best_of(repeat, lambda: print_text(ctx, module))
        t_read = best_of(repeat, lambda: read_module(ctx, text))
        again = print_text(ctx, read_module(ctx, text))
        assert again == text, "the text does not read back to itself"
        print(f"{n_ops:>8} {t_print / n_ops * 1e6:>12.1f} {t_read / n_ops * 1e6:>11.1f} {len(text) / 1e6:>6.2f}")
    if "--no-model" not in argv:
        try:
            import torch  # noqa: F401 - imported only to learn whether the torch peer can run
        except ImportError:
            print("12-layer encoder: skipped (needs torch)")
            return
        compare_with_pt2(ctx)


if __name__ == "__main__":
    main(sys.argv[1:])
