"""
`exir-dce` and `exir-cse` against torch.fx on the same large graphs, in one run.

The graph is a chain of pointwise ATen ops (relu, neg, sigmoid, add, mul) on
one input: about 30% of the nodes are dead (their results are never used) and
about 30% repeat an earlier node's target and arguments exactly. It is built
in process twice from one recipe: as our IR (an `exir.graph` of aten ops) and
as a `torch.fx.Graph` of `call_function` nodes on `torch.ops.aten` overloads.

Timed (construction excluded, fresh graph per repetition, repetitions
interleaved, medians, one thread on both sides):
* DCE: our `exir-dce` pass vs `torch.fx.Graph.eliminate_dead_code()`;
* CSE: our `exir-cse` pass vs `torch.fx.passes.dialect.common.cse_pass.CSEPass`
  on a `GraphModule` (which returns a new module).

Ratio = torch time / our time (> 1: we are faster). Per-node time shows
whether the cost grows linearly.

Run: `python benchmarks/dce_cse.py [sizes...]` (default 10000 50000).
"""

from __future__ import annotations

import gc
import random
import statistics
import sys
import time
from collections.abc import Callable

import torch
import torch.fx
from torch.fx.passes.dialect.common.cse_pass import CSEPass
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp

from xdsl_exir.dialects.aten import aten_op_class
from xdsl_exir.dialects.exir import DType, GraphOp, OutputOp, TensorType
from xdsl_exir.transforms.common_subexpression_elimination import ExirCSEPass
from xdsl_exir.transforms.dead_code_elimination import ExirDCEPass

UNARY = ("relu.default", "neg.default", "sigmoid.default")
BINARY = ("add.Tensor", "mul.Tensor")

Recipe = list[tuple[str, tuple[int, ...]]]
"""(overload, operand value indices); value 0 is the input, value i+1 is node i's result."""


def recipe(n: int, seed: int = 0) -> tuple[Recipe, int]:
    """The node list and the index of the value returned."""
    rng = random.Random(seed)
    nodes: Recipe = []
    live = [0]
    for _ in range(n):
        r = rng.random()
        if r < 0.3 and len(nodes) > 8:
            # A duplicate of a recent live node (same target, same operands).
            k = rng.randrange(max(0, len(nodes) - 8), len(nodes))
            nodes.append(nodes[k])
            live.append(len(nodes))
            continue
        cur = live[-1]
        if rng.random() < 0.5:
            node = (rng.choice(UNARY), (cur,))
        else:
            node = (rng.choice(BINARY), (cur, rng.choice(live[-16:])))
        nodes.append(node)
        if r < 0.6:
            continue  # dead: nothing uses it
        live.append(len(nodes))
    return nodes, live[-1]


def build_ours(nodes: Recipe, out: int) -> ModuleOp:
    t = TensorType([16], DType.float32)
    graph = GraphOp("g", [t], [t])
    block = graph.body.block
    classes = {name: aten_op_class(f"aten.{name}") for name in {*UNARY, *BINARY}}
    values = [block.args[0]]
    add = block.add_op
    for name, operands in nodes:
        cls = classes[name]
        assert cls is not None
        op = cls.build(*(values[i] for i in operands), result_types=[t])
        add(op)
        values.append(op.results[0])
    add(OutputOp([values[out]]))
    return ModuleOp([graph])


def build_fx(nodes: Recipe, out: int) -> torch.fx.Graph:
    g = torch.fx.Graph()
    targets = {name: getattr(getattr(torch.ops.aten, name.split(".")[0]), name.split(".")[1]) for name in {*UNARY, *BINARY}}
    values: list[torch.fx.Node] = [g.placeholder("x")]
    for name, operands in nodes:
        values.append(g.call_function(targets[name], tuple(values[i] for i in operands)))
    g.output(values[out])
    return g


def timed(setup: Callable[[], object], run: Callable[[object], object]) -> float:
    subject = setup()
    gc.collect()
    gc.disable()
    try:
        t0 = time.perf_counter()
        run(subject)
        return time.perf_counter() - t0
    finally:
        gc.enable()


def main(sizes: list[int]) -> None:
    torch.set_num_threads(1)
    ctx = Context()
    rows: list[tuple[str, int, float, float]] = []
    for n in sizes:
        nodes, out = recipe(n)
        reps = 5 if n <= 20000 else 3
        dce_ours: list[float] = []
        dce_fx: list[float] = []
        cse_ours: list[float] = []
        cse_fx: list[float] = []
        for _ in range(reps):
            dce_ours.append(timed(lambda: build_ours(nodes, out), lambda m: ExirDCEPass().apply(ctx, m)))  # pyright: ignore[reportArgumentType] - timed hands the built object over typed object; it is what the first lambda built
            dce_fx.append(timed(lambda: build_fx(nodes, out), lambda g: g.eliminate_dead_code()))  # pyright: ignore[reportAttributeAccessIssue] - timed hands the built object over typed object; it is the fx Graph
            cse_ours.append(timed(lambda: build_ours(nodes, out), lambda m: ExirCSEPass().apply(ctx, m)))  # pyright: ignore[reportArgumentType] - timed hands the built object over typed object; it is what the first lambda built
            cse_fx.append(
                timed(lambda: torch.fx.GraphModule(torch.nn.Module(), build_fx(nodes, out)), lambda gm: CSEPass()(gm))  # pyright: ignore[reportArgumentType] - timed hands the built object over typed object; it is what the first lambda built
            )
        rows.append(("dce", n, statistics.median(dce_ours), statistics.median(dce_fx)))
        rows.append(("cse", n, statistics.median(cse_ours), statistics.median(cse_fx)))
        # Sanity: both sides remove the same amount.
        m = build_ours(nodes, out)
        ExirDCEPass().apply(ctx, m)
        g = build_fx(nodes, out)
        g.eliminate_dead_code()
        ours_left = sum(1 for _ in m.walk()) - 3  # module, graph, output
        fx_left = len(g.nodes) - 2  # placeholder, output
        assert ours_left == fx_left, (ours_left, fx_left)
        m = build_ours(nodes, out)
        ExirCSEPass().apply(ctx, m)
        gm = CSEPass()(torch.fx.GraphModule(torch.nn.Module(), build_fx(nodes, out))).graph_module
        assert sum(1 for _ in m.walk()) - 3 == len(gm.graph.nodes) - 2
    print(f"{'pass':<5}{'nodes':>8}{'ours ms':>10}{'torch ms':>10}{'ratio':>8}{'ours us/node':>14}{'torch us/node':>15}")
    for name, n, ours, fx in rows:
        print(f"{name:<5}{n:>8}{ours * 1e3:>10.1f}{fx * 1e3:>10.1f}{fx / ours:>8.2f}{ours / n * 1e6:>14.2f}{fx / n * 1e6:>15.2f}")


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]] or [10000, 50000])
