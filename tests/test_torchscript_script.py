"""
The script frontend (Python source -> TorchScript IR) and the passes it runs,
`convert-to-ssa` and `exit-transform`.

Structure is checked against torch's own graphs: the dumps of
`tests/torchscript/dumps` (parsed with our dump reader, so no torch is
needed) and, when torch is installed, `torch.jit.script(f).graph` for the
functions of this file. Results are checked with the TorchScript
interpreter against the fixtures' recorded outputs and against torch eager.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp
from xdsl.ir import Block, Operation

from xdsl_exir.dialects.prim import (
    BreakStmtOp,
    ConstantOp,
    ContinueStmtOp,
    LoadOp,
    LoopContinuationOp,
    LoopOp,
    PrimOp,
    ReturnOp,
    ReturnStmtOp,
    StoreOp,
)
from xdsl_exir.dialects.ts import MethodOp, NodeOp
from xdsl_exir.frontends.torchscript_dump_reader import parse_torchscript
from xdsl_exir.frontends.torchscript_script import ScriptError, cleanup_graph, script, script_file, script_source
from xdsl_exir.interpreters.ts_runner import TorchScriptRunner
from xdsl_exir.targets.torchscript_dump_printer import print_torchscript
from xdsl_exir.transforms.convert_to_ssa import ConvertToSSAPass
from xdsl_exir.transforms.exit_transform import ExitTransformPass

try:  # the functions below are also compiled by torch when it is there
    import torch
    from torch import Tensor
except ImportError:  # pragma: no cover - the frontend itself never needs torch
    torch = None

pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated:DeprecationWarning")

TS = Path(__file__).parent / "torchscript"
MODELS = (TS / "models.py").read_text()
MANIFEST = json.loads((TS / "manifest.json").read_text())
UNSUPPORTED = {"fork_wait": "torch.jit.fork is not supported", "with_stmt": "undefined value Counter"}
SCRIPTED = [
    e for e in MANIFEST if e["kind"] == "script" and "function" in e and set(e["dumps"]) == {"graph"}
]


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def kind(op: Operation) -> str:
    return op.kind.data if isinstance(op, NodeOp) else op.KIND  # pyright: ignore[reportAttributeAccessIssue] - every other op here is a prim op, which has KIND


def tree(block: Block) -> list[tuple[str, int, list[Any]]]:
    """Node kinds per block (constants left out: pooling orders them freely), outputs, nested blocks."""
    return [
        (kind(op), len(op.results), [tree(r.block) for r in op.regions])
        for op in block.ops
        if not isinstance(op, ReturnOp | ConstantOp)
    ]


def torch_tree(block: Any) -> list[tuple[str, int, list[Any]]]:
    return [
        (n.kind(), n.outputsSize(), [torch_tree(b) for b in n.blocks()])
        for n in block.nodes()
        if n.kind() != "prim::Constant"
    ]


def nodes(block: Block) -> list[Operation]:
    """Non-constant ops in dump order."""
    out: list[Operation] = []
    for op in block.ops:
        if isinstance(op, ReturnOp | ConstantOp):
            continue
        out.append(op)
        for r in op.regions:
            out += nodes(r.block)
    return out


def constants(block: Block) -> list[tuple[str, str]]:
    return sorted(
        (str(op.value) if op.value is not None else f"name={op.fn_name}", str(op.results[0].type))
        for op in block.walk()
        if isinstance(op, ConstantOp)
    )


def graph(module: ModuleOp, name: str | None = None) -> Block:
    methods = [op for op in module.ops if isinstance(op, MethodOp)]
    method = methods[0] if name is None else next(m for m in methods if m.sym_name.data == name)
    return method.body.block


def flatten(value: Any, out: list[np.ndarray]) -> list[np.ndarray]:
    if isinstance(value, tuple | list):
        for v in value:
            flatten(v, out)
    elif torch is not None and isinstance(value, torch.Tensor):
        out.append(value.detach().numpy())
    else:
        out.append(np.asarray(value))
    return out


def assert_same_values(got: list[np.ndarray], want: list[np.ndarray]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        assert g.shape == w.shape
        if w.dtype.kind in "biuf":
            np.testing.assert_allclose(g.astype(np.float64), w.astype(np.float64), rtol=1e-5, atol=1e-6)
        else:
            assert g.tolist() == w.tolist()


# ---------------------------------------------------------------------------
# The fixtures of tests/torchscript: torch's dumps and recorded outputs
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("entry", SCRIPTED, ids=lambda e: e["name"])
def test_models_match_torch_dumps(entry: dict[str, Any]) -> None:
    """Node for node, torch's graph: kinds, block structure, constants and source locations."""
    name = entry["function"]
    if name in UNSUPPORTED:
        with pytest.raises(ScriptError, match=UNSUPPORTED[name]):
            script_source(MODELS, name, "models.py")
        return
    ours = script_source(MODELS, name, "models.py")
    ours.verify()
    dump = parse_torchscript((TS / entry["dumps"]["graph"]).read_text(), name)
    mine, theirs = graph(ours, name), graph(dump)
    assert tree(mine) == tree(theirs)
    assert constants(mine) == constants(theirs)
    located = 0
    for a, b in zip(nodes(mine), nodes(theirs), strict=True):
        # (`<string>` locations are inside TorchScript's own builtins, `x.shape` and the like.)
        if isinstance(b.location, FileLineColLoc) and b.location.filename.data == "models.py":
            assert isinstance(a.location, FileLineColLoc), kind(a)
            assert (a.location.line.data, a.location.column.data) == (b.location.line.data, b.location.column.data), (
                f"{kind(a)} at {a.location}, torch says {b.location}"
            )
            located += 1
    assert located > 0


def _fixture_runs() -> list[tuple[str, str, str]]:
    return [
        (e["function"], key, path)
        for e in SCRIPTED
        if e["function"] not in UNSUPPORTED
        for key, path in e.get("data", {}).items()
    ]


@pytest.mark.parametrize(("name", "key", "data"), _fixture_runs(), ids=lambda v: str(v))
def test_models_run_like_torch(name: str, key: str, data: str) -> None:
    """The compiled graphs compute what torch.jit computed for the fixtures."""
    module = script_source(MODELS, name, "models.py")
    recorded = np.load(TS / data)
    args = [recorded[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in recorded.files))]
    outs = [recorded[f"out{i}"] for i in range(sum(k.startswith("out") for k in recorded.files))]
    assert_same_values(TorchScriptRunner(module, entry=name).run_flat(args), outs)


def test_called_functions_are_methods_of_the_module() -> None:
    module = script_source(MODELS, "call_other", "models.py")
    assert [m.sym_name.data for m in module.ops if isinstance(m, MethodOp)] == ["call_other", "helper_scale"]
    fn = next(op for op in graph(module).ops if isinstance(op, ConstantOp) and op.fn_name is not None)
    assert fn.fn_name is not None and fn.fn_name.data == "helper_scale"
    assert sum(kind(op) == "prim::CallFunction" for op in graph(module).ops) == 2


def test_frontend_needs_no_torch() -> None:
    code = (
        "import sys; sys.modules['torch'] = None\n"
        "from pathlib import Path\n"
        "from xdsl_exir.frontends.torchscript_script import script_source\n"
        f"src = Path({str(TS / 'models.py')!r}).read_text()\n"
        "m = script_source(src, 'lstm_cell', 'models.py')\n"
        "assert 'torch' not in sys.modules or sys.modules['torch'] is None\n"
        "print(len(list(m.walk())))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) > 20


# ---------------------------------------------------------------------------
# Functions of this file, against live torch
# ---------------------------------------------------------------------------


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


def seed_if(a, b, c: bool):
    d = a + b
    if c:
        e = d + d
    else:
        e = b + d
    return e


def seed_for(x):
    z = x
    for i in range(x.size(0)):
        z = z * z
    return z


def seed_while_continue(i: int):
    while i < 5:
        if i == 3:
            i += 1
            continue
        i += 2
    return i


def seed_raise(i: int) -> float:
    if i < 0:
        raise Exception("Negative input")
    else:
        return float(i) * 0.5
    print(i)  # unreachable


def early_return(x, flag: bool):
    if flag:
        return x * 2.0
    y = x + 1.0
    return y * y


def while_break(x, n: int):
    i = 0
    while True:
        if i >= n:
            break
        x = x + float(i)
        i += 1
    return x, i


def loops(x, n: int):
    acc = x
    for i in range(n):
        if i % 2 == 0:
            continue
        j = 0
        while True:
            j += 1
            if j > i:
                break
            acc = acc + float(j)
    for t in (1, 2.5):
        acc = acc * t
    return acc


def search(xs: List[int], target: int) -> int:
    i = 0
    while i < len(xs):
        if xs[i] == target:
            return i
        i += 1
    return -1


def raise_in_loop(x, n: int):
    for i in range(n):
        if i > 3:
            raise RuntimeError("too many")
        x = x + 1.0
    return x


def indexing(x):
    y = x[1:3, :2]
    z = x[0]
    w = x[:, 1]
    v = x[..., 0]
    u = x[None, 1]
    x[0, 0] = 5.0
    x[1] += 2.0
    return y, z, w, v, u, x


def containers(x):
    d: Dict[str, Tensor] = {"a": x, "b": x * 2.0}
    acc = torch.zeros_like(x)
    for k, v in d.items():
        acc = acc + v
    total = 0
    for i, k in enumerate(d.keys()):
        total += i
    s = 0
    for n, val in zip(["p", "qq"], [1, 2]):
        s += val + len(n)
    t = (x, 3)
    a, b = t
    return acc, total, s, a * b, t[1] + 1


def augmented(x, l: List[int]):
    y = x.clone()
    y += 1.0
    y *= 2.0
    l += [4]
    l[0] += 10
    n = 3
    n -= 1
    return y, l, n


def conditions(x, a: int, b: int, o: Optional[int]):
    t = x if a > b else -x
    c = a > 0 and b > 0 or not a == b
    d = 0 < a < 10
    if o is not None and o > 2:
        e = o
    else:
        e = -1
    return t, c, d, e, 2 * x, 1 - x


def scalar_math(a: int, b: int, c: float):
    return a // b, a % b, a ** 2, float(a) / c, int(c * 3.0), max(a, b), abs(-a), min(c, 1.0), -c


def helper(x, k: float = 2.0, shift: int = 1):
    return x * k + shift


def calls(x):
    return helper(x), helper(x, 3.0), helper(x, shift=5)


def views(x):
    a = x.view(-1)
    b = x.view(3, 2)
    c = torch.zeros(2, 3)
    d = x.reshape([6]).sum(0)
    e = x.permute(1, 0)
    m, idx = torch.max(x, 1)
    return a, b, c, d, e, m, idx


def refinement(x, y: Optional[Tensor], flag: bool):
    o = torch.jit.annotate(Optional[Tensor], None)
    if flag:
        o = x * 2.0
    r: List[Tensor] = []
    if o is not None:
        r.append(o)
    if y is None:
        return len(r), x
    return len(r), x + y


def asserts(x, n: int):
    assert n > 0, "n must be positive"
    return x * float(n)


def strings(n: int, s: str):
    t = f"n={n} s={s}"
    return t, s + "!", len(t), s == t, "{}-{}".format(s, n)


def comprehension(x, n: int):
    a = [i * 2 for i in range(n)]
    c = [x * float(v) for v in a]
    return a, torch.stack(c, 0)


def pair(x):
    return x + 1.0, x * 2.0


def use_pair(x):
    a, b = pair(x)
    c = pair(a)
    return a + b + c[0]


def optional_default(x, k: Optional[int] = None):
    if k is None:
        k = 2
    return x * k


def while_and(x, n: int):
    i = 0
    while i < n and bool(x.sum() > 0):
        x = x - 1.0
        i += 1
    return x, i


def nested_return(x, n: int):
    for i in range(n):
        for j in range(n):
            if i * j == 6:
                return x * float(i + j)
    return x


def list_methods(xs: List[int]):
    ys = list(xs)
    last = ys.pop()
    ys.insert(0, last)
    ys.append(7)
    return ys, last, len(ys) == 0, ys.index(7)


def counting(keys: List[str]):
    d: Dict[str, int] = {}
    for k in keys:
        if k in d:
            d[k] = d[k] + 1
        else:
            d[k] = 1
    return d.get("a", 0), len(d)


def tensor_methods(x, y):
    z = torch.cat([x, y], dim=1)
    return z, z.shape[0], z.size(), z.float(), z.long(), z.to(torch.float64)


def ternary_refinement(x, y: Optional[Tensor]):
    z = y if y is not None else x
    return z * 2.0


X = np.arange(6, dtype=np.float32).reshape(2, 3) / 4.0

LIVE_CASES: list[tuple[Callable[..., Any], tuple[Any, ...]]] = [
    (lstm_cell, (np.ones((2, 3), np.float32), np.ones((2, 4), np.float32) * 0.5, np.ones((2, 4), np.float32),
                 np.full((16, 3), 0.1, np.float32), np.full((16, 4), -0.2, np.float32),
                 np.linspace(-1, 1, 16).astype(np.float32), np.linspace(1, -1, 16).astype(np.float32))),
    (seed_if, (X, X + 1, True)),
    (seed_if, (X, X + 1, False)),
    (seed_for, (X,)),
    (seed_while_continue, (0,)),
    (seed_while_continue, (4,)),
    (seed_raise, (3,)),
    (early_return, (X, True)),
    (early_return, (X, False)),
    (while_break, (X, 3)),
    (loops, (X, 5)),
    (search, ([3, 5, 7], 7)),
    (search, ([3, 5, 7], 4)),
    (raise_in_loop, (X, 3)),
    (indexing, (np.arange(12, dtype=np.float32).reshape(3, 4),)),
    (containers, (X,)),
    (augmented, (X, [1, 2, 3])),
    (conditions, (X, 3, 2, 5)),
    (conditions, (X, 1, 2, None)),
    (scalar_math, (7, -2, 1.5)),
    (calls, (X,)),
    (views, (X,)),
    (refinement, (X, X, True)),
    (refinement, (X, None, False)),
    (asserts, (X, 2)),
    (strings, (4, "hi")),
    (comprehension, (X, 4)),
    (use_pair, (X,)),
    (optional_default, (X, None)),
    (optional_default, (X, 3)),
    (while_and, (X, 10)),
    (nested_return, (X, 4)),
    (nested_return, (X, 2)),
    (list_methods, ([1, 2, 3],)),
    (counting, (["a", "b", "a"],)),
    (tensor_methods, (X, X)),
    (ternary_refinement, (X, None)),
    (ternary_refinement, (X, X + 1)),
]

def _copy(v: Any) -> Any:
    return v.copy() if isinstance(v, np.ndarray) else (list(v) if isinstance(v, list) else v)


@pytest.mark.parametrize(("fn", "args"), LIVE_CASES, ids=lambda v: getattr(v, "__name__", ""))
def test_functions_run(fn: Callable[..., Any], args: tuple[Any, ...]) -> None:
    """Compiled with `script(fn)`, the graph verifies and runs like the Python function (torch eager)."""
    pytest.importorskip("torch")
    module = script(fn)
    module.verify()
    got = TorchScriptRunner(module, entry=fn.__name__).run([_copy(a) for a in args])
    want = fn(*[torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else _copy(a) for a in args])
    assert_same_values(flatten(got, []), flatten(want, []))


@pytest.mark.parametrize(
    "fn", sorted({fn for fn, _ in LIVE_CASES}, key=lambda f: f.__name__), ids=lambda f: f.__name__
)
def test_functions_match_torch_script(fn: Callable[..., Any]) -> None:
    """The graph has torch.jit.script's nodes, blocks and outputs (constants aside)."""
    pytest.importorskip("torch")
    ours = graph(script(fn))
    theirs = torch.jit.script(fn).graph
    assert tree(ours) == torch_tree(theirs.block())


def dead_write(x):
    y = torch.zeros(3)
    y.add_(1.0)  # no one reads y: torch's dead code elimination drops the write with it
    return x


def signed_zero(x: float):
    return x * -0.0, x * 0.0


def test_cleanups_are_the_stock_passes_and_agree_with_torch() -> None:
    """
    The frontend's dead code elimination is `exir-dce` and its pooling
    `constant-pooling`. Where its own copies differed from torch they now
    agree: a write into a fresh tensor nothing reads is dead (the old copy
    kept every in-place node), and `-0.` pools with `0.` into one constant
    because torch's ConstantPooling compares constants with `==`.
    """
    torch_ = pytest.importorskip("torch")
    for fn in (dead_write, signed_zero):
        ours = graph(script(fn))
        theirs = torch_.jit.script(fn).graph
        assert tree(ours) == torch_tree(theirs.block()), fn.__name__
        n_ours = sum(isinstance(op, ConstantOp) for op in ours.walk())
        n_theirs = sum(n.kind() == "prim::Constant" for n in theirs.nodes())
        assert n_ours == n_theirs, fn.__name__
    assert tree(graph(script(dead_write))) == []


def test_raise_runs_like_torch() -> None:
    module = script(seed_raise)
    with pytest.raises(Exception, match="Negative input"):
        TorchScriptRunner(module, entry="seed_raise").run([-1])
    with pytest.raises(Exception, match="too many"):
        TorchScriptRunner(script(raise_in_loop), entry="raise_in_loop").run([X, 6])
    with pytest.raises(Exception, match="n must be positive"):
        TorchScriptRunner(script(asserts), entry="asserts").run([X, 0])


# ---------------------------------------------------------------------------
# The passes, one at a time
# ---------------------------------------------------------------------------

PIPELINE = [
    "lstm_cell", "if_else", "for_loop", "while_continue", "early_return", "while_break",
    "raise_check", "loop_return", "else_return", "nested_control", "optional_refine", "list_ops", "dict_ops",
]


@pytest.mark.parametrize("name", PIPELINE)
def test_passes_one_at_a_time(name: str) -> None:
    """ssa=False gives the Store/Load form; the two passes then give what ssa=True gives."""
    module = script_source(MODELS, name, "models.py", ssa=False)
    module.verify()
    ops = list(module.walk())
    assert any(isinstance(op, StoreOp) for op in ops) and any(isinstance(op, LoadOp) for op in ops)
    assert any(isinstance(op, ReturnStmtOp) for op in ops)
    assert all(op.cond_block is not None for op in ops if isinstance(op, LoopOp))

    ctx = Context()
    ConvertToSSAPass().apply(ctx, module)
    module.verify()
    ops = list(module.walk())
    assert not any(isinstance(op, StoreOp | LoadOp | BreakStmtOp | ContinueStmtOp) for op in ops)
    assert all(op.cond_block is None for op in ops if isinstance(op, LoopOp))

    ExitTransformPass().apply(ctx, module)
    module.verify()
    assert not any(isinstance(op, ReturnStmtOp | LoopContinuationOp) for op in module.walk())

    # The frontend's cleanups change the form, not the results.
    entries = [e for e in SCRIPTED if e["function"] == name]
    runs = [np.load(TS / p) for e in entries for p in e.get("data", {}).values()]
    for recorded in runs:
        args = [recorded[f"arg{i}"] for i in range(sum(k.startswith("arg") for k in recorded.files))]
        before = TorchScriptRunner(module, entry=name).run_flat(args)
        assert_same_values(before, [recorded[f"out{i}"] for i in range(len(before))])
    for method in module.ops:
        assert isinstance(method, MethodOp)
        cleanup_graph(method.body.block)
    assert print_torchscript(module) == print_torchscript(script_source(MODELS, name, "models.py"))


def test_continue_inlines_the_loop_condition() -> None:
    module = script_source(MODELS, "while_continue", "models.py", ssa=False)
    ConvertToSSAPass().apply(Context(), module)
    (cont,) = [op for op in module.walk() if isinstance(op, LoopContinuationOp)]
    cond = cont.operands[0].owner
    assert isinstance(cond, NodeOp) and cond.kind.data == "aten::lt"  # `i < 5`, cloned in place
    loop = next(op for op in module.walk() if isinstance(op, LoopOp))
    start = loop.operands[1].owner
    assert isinstance(start, NodeOp) and start.kind.data == "aten::lt" and start.parent_block() is graph(module)


# ---------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------

ERRORS = [
    ("def f(x):\n    yield x\n", "'yield' is not supported in TorchScript", 2, 4),
    ("def f(x, c: bool):\n    y = 1\n    if c:\n        y = x\n    return y\n",
     "variable 'y' previously had type 'int' but is now being assigned to a value of type 'Tensor'", 4, 8),
    ("def f(x, c: bool):\n    if c:\n        y = 1\n    else:\n        y = x\n    return y\n",
     "type mismatch: y is set to type 'int' in the true branch and type 'Tensor' in the false branch", 6, 11),
    ("def f(x):\n    return x + 'a'\n", "no overload of aten::add accepts (Tensor, str)", 2, 11),
    ("def f(x):\n    return z\n", "undefined value z", 2, 11),
    ("def f(x):\n    break\n", "'break' outside loop", 2, 4),
    ("def f(x, c: bool):\n    if c:\n        y = x\n    return y\n", "y is not defined in the false branch", 4, 11),
    ("def f(x, c: bool):\n    if c:\n        return x\n    return 1\n",
     "previous return statement returned a value of type 'Tensor'", 4, 4),
    ("def f(x, n: int):\n    for i in range(n):\n        y = x\n    return y\n", "undefined value y", 4, 11),
    ("def f(x):\n    t = (x, 1)\n    return t[2]\n", "tuple index 2 out of range", 3, 13),
    ("def f(x):\n    with x:\n        pass\n", "'with' statements are not supported", 2, 4),
    ("def f(x):\n    return lambda: x\n", "lambda functions are not supported", 2, 11),
    ("def f(*xs):\n    return 1\n", "plain positional parameters only", 1, 0),
    ("def f(x, c: bool) -> int:\n    if c:\n        return 1\n", "does not return along all paths", 1, 0),
    ("def f(x):\n    return f(x)\n", "recursive calls are not supported", 2, 11),
    ("def f(x):\n    return x +\n", "invalid Python", 2, 14),
    ("def f(x):\n    try:\n        pass\n    except Exception:\n        pass\n", "'try' statements are not", 2, 4),
    ("def f(x, l: List[int]):\n    for v in l:\n        x = v\n    return x\n",
     "previously had type 'Tensor' but is now being assigned to a value of type 'int'", 3, 8),
    ("import torch\ndef f(x):\n    return torch.frobnicate(x)\n", "unknown operator aten::frobnicate", 3, 11),
]


@pytest.mark.parametrize(("source", "message", "line", "col"), ERRORS, ids=[e[1][:30] for e in ERRORS])
def test_errors(source: str, message: str, line: int, col: int) -> None:
    with pytest.raises(ScriptError) as info:
        script_source(source, "f", "bad.py")
    err = info.value
    assert message in err.message
    assert (err.line, err.col) == (line, col)
    assert str(err).startswith(f"bad.py:{line}:{col}: ")


def test_locations_follow_the_original_text() -> None:
    """A function indented in its file keeps its columns; `first_line` shifts lines."""
    source = "    def f(x):\n        return x + 1.0\n"
    module = script_source(source, "f", "m.py", first_line=10)
    add = next(op for op in graph(module).ops if isinstance(op, NodeOp))
    assert isinstance(add.location, FileLineColLoc)
    assert (add.location.filename.data, add.location.line.data, add.location.column.data) == ("m.py", 11, 15)


def test_script_file_compiles_every_function() -> None:
    source = "import torch\n\ndef a(x):\n    return torch.relu(x)\n\ndef b(x):\n    return a(x) * 2.0\n"
    module = script_file(source, "two.py")
    assert [m.sym_name.data for m in module.ops if isinstance(m, MethodOp)] == ["a", "b"]
    with pytest.raises(ScriptError, match="defines no function"):
        script_file("x = 1\n", "none.py")


def test_loop_condition_block_verifies() -> None:
    """The frontend's loop form: the condition block yields one bool."""
    from xdsl.utils.exceptions import VerifyException

    module = script_source("def f(i: int):\n    while i < 3:\n        i += 1\n    return i\n", "f", ssa=False)
    module.verify()
    loop = next(op for op in module.walk() if isinstance(op, LoopOp))
    assert loop.cond_block is not None
    term = loop.cond_block.block.last_op
    assert isinstance(term, PrimOp)
    term.operands = (loop.operands[0],)  # an int instead of the condition
    with pytest.raises(VerifyException, match="condition block must yield a bool"):
        loop.verify()
