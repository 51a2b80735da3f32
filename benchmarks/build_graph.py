"""
Build a 10k-op graph through the aten builders (result types inferred) and the
same graph with torch.fx, in one run, and print the times and their ratio.

Peers:
* `fx+fake`: `torch.fx.Graph.call_function` with `meta["val"]` computed by running
  each op on FakeTensors (what torch.export records): the fair comparison, since
  both sides then know every node's shape and dtype;
* `fx plain`: the Graph API alone, no shapes at all (a lower bound).

Run: `python benchmarks/build_graph.py [n_ops]`.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

from xdsl.dialects.test import TestOp
from xdsl.ir import Block, SSAValue

from xdsl_exir.dialects.aten import aten_op_class
from xdsl_exir.dialects.exir import DType, TensorType
from xdsl_exir.utils.symbolic import make_symbol

FEATURES = 64
OPS_PER_STEP = 6


def build_xdsl(n_ops: int) -> Block:
    """linear -> relu -> add -> view -> view -> softmax chains, symbolic and static batch."""
    linear = aten_op_class("aten.linear.default")
    relu = aten_op_class("aten.relu.default")
    add = aten_op_class("aten.add.Tensor")
    view = aten_op_class("aten.view.default")
    softmax = aten_op_class("aten._softmax.default")
    assert linear and relu and add and view and softmax
    s0 = make_symbol("s0")
    inputs = TestOp(
        result_types=[
            TensorType([s0, FEATURES], DType.float32),
            TensorType([32, FEATURES], DType.float32),
            TensorType([FEATURES, FEATURES], DType.float32),
            TensorType([FEATURES], DType.float32),
        ]
    )
    block = Block([inputs])
    xs: list[SSAValue] = [inputs.results[0], inputs.results[1]]
    w, b = inputs.results[2], inputs.results[3]
    add_op = block.add_op
    for step in range(n_ops // OPS_PER_STEP):
        x = xs[step % 2]
        op1 = linear.build(x, w, b)
        op2 = relu.build(op1)
        op3 = add.build(op2, x)
        op4 = view.build(op3, [-1, FEATURES // 2])
        op5 = view.build(op4, [-1, FEATURES])
        op6 = softmax.build(op5, -1, False)
        for op in (op1, op2, op3, op4, op5, op6):
            add_op(op)
        xs[step % 2] = op6.results[0]
    return block


def build_fx(n_ops: int, with_fake: bool) -> object:
    import torch
    import torch.fx
    from torch._subclasses.fake_tensor import FakeTensorMode
    from torch.fx.experimental.symbolic_shapes import (
        DimDynamic,
        ShapeEnv,
        StatelessSymbolicContext,
    )

    aten = torch.ops.aten
    g = torch.fx.Graph()
    mode = FakeTensorMode(shape_env=ShapeEnv())
    names = ("x_dyn", "x_static", "w", "b")
    placeholders = [g.placeholder(n) for n in names]
    if with_fake:
        dyn = StatelessSymbolicContext(
            dynamic_sizes=[DimDynamic.DYNAMIC, DimDynamic.STATIC]
        )
        placeholders[0].meta["val"] = mode.from_tensor(
            torch.empty(8, FEATURES), symbolic_context=dyn
        )
        placeholders[1].meta["val"] = mode.from_tensor(torch.empty(32, FEATURES))
        placeholders[2].meta["val"] = mode.from_tensor(torch.empty(FEATURES, FEATURES))
        placeholders[3].meta["val"] = mode.from_tensor(torch.empty(FEATURES))
    xs = [placeholders[0], placeholders[1]]
    w, b = placeholders[2], placeholders[3]

    def node(target: Callable[..., object], *args: object) -> torch.fx.Node:
        n = g.call_function(target, args)
        if with_fake:
            vals = [a.meta["val"] if isinstance(a, torch.fx.Node) else a for a in args]
            with mode:
                n.meta["val"] = target(*vals)
        return n

    for step in range(n_ops // OPS_PER_STEP):
        x = xs[step % 2]
        n1 = node(aten.linear.default, x, w, b)
        n2 = node(aten.relu.default, n1)
        n3 = node(aten.add.Tensor, n2, x)
        n4 = node(aten.view.default, n3, [-1, FEATURES // 2])
        n5 = node(aten.view.default, n4, [-1, FEATURES])
        n6 = node(aten._softmax.default, n5, -1, False)
        xs[step % 2] = n6
    return g


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    n_ops = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    build_xdsl(600)  # warm caches (schemas, attribute constants)
    ours = min(timed(lambda: build_xdsl(n_ops)) for _ in range(3))
    print(f"aten builders (inferred types): {ours:.3f} s for {n_ops} ops "
          f"({ours / n_ops * 1e6:.1f} us/op)")
    try:
        import torch  # noqa: F401 - imported only to learn whether the torch peer can run
    except ImportError:
        print("torch not installed: no comparison")
        return
    build_fx(600, True)
    fake = min(timed(lambda: build_fx(n_ops, True)) for _ in range(2))
    plain = min(timed(lambda: build_fx(n_ops, False)) for _ in range(3))
    print(f"torch.fx + FakeTensor meta:     {fake:.3f} s ({fake / n_ops * 1e6:.1f} us/op)")
    print(f"torch.fx plain Graph API:       {plain:.3f} s ({plain / n_ops * 1e6:.1f} us/op)")
    print(f"ratio aten / fx+fake:  {ours / fake:.2f}x")
    print(f"ratio aten / fx plain: {ours / plain:.2f}x")


if __name__ == "__main__":
    main()
