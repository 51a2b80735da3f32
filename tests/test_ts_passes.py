"""TorchScript passes of the JIT Technical Overview: unroll-loops, batch-mm, lower-tuples, list-peepholes.

Each is checked for semantic preservation on the interpreter and, where torch
has the pass, against torch's own result on the same graph (node kinds)."""

from __future__ import annotations

from collections import Counter
from typing import List

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import pass_harness as ph  # noqa: E402 - after pytest.importorskip, so the module skips without torch

from xdsl_exir.dialects.ts import NodeOp  # noqa: E402 - after pytest.importorskip, so the module skips without torch
from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript  # noqa: E402 - after pytest.importorskip, so the module skips without torch


def kinds(module: object) -> Counter[str]:
    """Node kinds of the IR as TorchScript names them (constants left out)."""
    out: Counter[str] = Counter()
    for o in module.walk():  # pyright: ignore[reportAttributeAccessIssue] - a ModuleOp, typed object so tests can pass any IR
        if isinstance(o, NodeOp):
            out[o.kind.data] += 1
        elif o.name.startswith("prim.") and o.name not in ("prim.Constant", "prim.Return"):
            out["prim::" + o.name[5:]] += 1
    return out


def torch_kinds(g: "torch._C.Graph") -> Counter[str]:
    out: Counter[str] = Counter()

    def walk(block: "torch._C.Block") -> None:
        for n in block.nodes():
            if n.kind() != "prim::Constant":
                out[n.kind()] += 1
            for b in n.blocks():
                walk(b)

    walk(g.block())
    return out


def f32(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).random(shape).astype(np.float32)


# -- unroll-loops -------------------------------------------------------------


@torch.jit.script
def _loops(x: torch.Tensor, n: int) -> torch.Tensor:
    y = x
    for i in range(3):
        y = y * 2 + i
    for j in range(n):
        y = y + j
    for k in range(100):
        y = y - 0.5
    return y


@pytest.mark.parametrize("n", [0, 5, 8, 19, -2])
def test_unroll_preserves(n: int) -> None:
    m = parse_torchscript(str(_loops.graph), "loops")
    ph.assert_preserves(m, "unroll-loops", inputs=[[f32(3), np.array(n)]])
    ph.assert_preserves(m, "unroll-loops{factor=3 max-trip-count=2}", inputs=[[f32(3), np.array(n)]])


def test_unroll_matches_torch() -> None:
    m = ph.apply(parse_torchscript(str(_loops.graph), "loops"), "unroll-loops")
    g = _loops.graph.copy()
    torch._C._jit_pass_loop_unrolling(g)
    ours, theirs = kinds(m), torch_kinds(g)
    # Same loops (2 unrolled + 2 epilogues) and the same tensor arithmetic.
    for k in ("prim::Loop", "aten::mul", "aten::sub", "aten::__round_to_zero_floordiv"):
        assert ours[k] == theirs[k], k
    # torch counts the fully unrolled loop with a carried counter (int adds); we use constants.
    assert ours["aten::add"] <= theirs["aten::add"]


def test_unroll_leaves_while_loops() -> None:
    @torch.jit.script
    def w(x: torch.Tensor) -> torch.Tensor:
        i = 0
        while i < 3:
            x = x + 1
            i += 1
        return x

    m = parse_torchscript(str(w.graph), "w")
    after = ph.assert_preserves(m, "unroll-loops", inputs=[[f32(2)]])
    assert kinds(after)["prim::Loop"] == 1


# -- batch-mm -----------------------------------------------------------------


@torch.jit.script
def _mm_tree(a1: torch.Tensor, b1: torch.Tensor, a2: torch.Tensor, b2: torch.Tensor, a3: torch.Tensor, b3: torch.Tensor) -> torch.Tensor:
    return torch.mm(a1, b1) + torch.mm(a2, b2) + torch.mm(a3, b3)


def test_batch_mm_tree_reduce() -> None:
    m = parse_torchscript(str(_mm_tree.graph), "mm")
    xs = [f32(*s, seed=i) for i, s in enumerate([(4, 3), (3, 5), (4, 2), (2, 5), (4, 6), (6, 5)])]
    after = ph.assert_preserves(m, "batch-mm", inputs=[xs], rtol=1e-5, atol=1e-5)
    assert kinds(after) == Counter({"aten::mm": 1, "aten::cat": 2, "prim::ListConstruct": 2})
    # too few leaves: unchanged
    assert kinds(ph.apply(m, "batch-mm{min-leaves=4}")) == kinds(m)


def test_batch_mm_keeps_shared_products() -> None:
    @torch.jit.script
    def g(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        p = torch.mm(a, b)
        return p + torch.mm(b, a) + p

    m = parse_torchscript(str(g.graph), "g")
    after = ph.assert_preserves(m, "batch-mm", inputs=[[f32(3, 3), f32(3, 3, seed=1)]])
    assert kinds(after)["aten::mm"] == 2  # %p has two uses: not a tree leaf


# -- lower-tuples ---------------------------------------------------------------

_IF_TUPLE = """graph(%x : Tensor, %c : bool):
  %one : int = prim::Constant[value=1]()
  %zero : int = prim::Constant[value=0]()
  %t : (Tensor, Tensor) = prim::If(%c)
    block0():
      %a : Tensor = aten::add(%x, %x, %one)
      %t1 : (Tensor, Tensor) = prim::TupleConstruct(%a, %x)
      -> (%t1)
    block1():
      %t2 : (Tensor, Tensor) = prim::TupleConstruct(%x, %x)
      -> (%t2)
  %u : Tensor, %v : Tensor = prim::TupleUnpack(%t)
  %s : Tensor = prim::TupleIndex(%t, %zero)
  %w : Tensor = aten::mul(%u, %v)
  %r : Tensor = aten::add(%w, %s, %one)
  return (%r)
"""


@pytest.mark.parametrize("c", [True, False])
def test_lower_tuples(c: bool) -> None:
    m = parse_torchscript(_IF_TUPLE, "t")
    after = ph.assert_preserves(m, "lower-tuples", inputs=[[f32(3), np.array(c)]])
    g = torch.parse_ir(_IF_TUPLE)
    torch._C._jit_pass_lower_all_tuples(g)
    assert kinds(after) == torch_kinds(g)
    assert not any("Tuple" in k for k in kinds(after))


# -- list-peepholes -------------------------------------------------------------


@torch.jit.script
def _lists(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    l = [x, y]
    a, b = l
    m = l + [a]
    k: List[torch.Tensor] = [x]
    k.append(y)
    return l[1] + len(m) + m[-1] + b + len(k) + k[0]


def test_list_peepholes_match_torch() -> None:
    m = parse_torchscript(str(_lists.graph), "lists")
    after = ph.assert_preserves(m, "list-peepholes", inputs=[[f32(3), f32(3, seed=1)]])
    g = _lists.graph.copy()
    torch._C._jit_pass_peephole_list_idioms(g)
    torch._C._jit_pass_dce(g)
    assert kinds(after) == torch_kinds(g)
    # the mutated list k keeps its len and getitem
    assert kinds(after)["aten::len"] == 1 and kinds(after)["aten::__getitem__"] == 1


def test_bad_options() -> None:
    from xdsl.utils.exceptions import PassFailedException, VerifyException

    m = parse_torchscript(str(_loops.graph), "loops")
    with pytest.raises((VerifyException, PassFailedException), match="factor"):
        ph.apply(m, "unroll-loops{factor=0}")
    with pytest.raises((VerifyException, PassFailedException), match="min-leaves"):
        ph.apply(m, "batch-mm{min-leaves=1}")
