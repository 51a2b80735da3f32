"""
Generate the TorchScript regression fixtures in `tests/torchscript/`.

For every case this writes

- `dumps/<case>.<graph>.txt` (or `dumps/<case>.txt` for a single graph): `str(graph)`
  of a `torch.jit.script` / `torch.jit.trace` object, a method of a scripted module,
  or a graph after a fuser / profiling / autodiff pass,
- `dumps/<case>[.<method>].code.txt`: the TorchScript Python printer's `.code` of
  scripted and traced objects,
- `data/<case>[_<variant>].npz`: inputs `arg0 ..` (Python scalars as 0-d int64 /
  float64 / bool arrays), torch.jit's pytree-flattened outputs `out0 ..` and, for
  modules, the parameters and buffers as `state.<qualified.name>`,

plus `manifest.json` describing all of it. The functions and modules come from
`tests/torchscript/models.py`, loaded under the file name `models.py` so that source
locations in the dumps read `# models.py:LINE:COL`; torch's own sources (nn.Linear, ...)
are reported relative to site-packages (`# torch/nn/modules/linear.py:...`).

Run with torch 2.13 installed: `python scripts/gen_torchscript_dumps.py`. The output
is byte-stable (fixed seeds; `.npz` zip entries with fixed timestamps).
"""

from __future__ import annotations

import io
import json
import linecache
import os
import pathlib
import re
import sys
import types
import warnings
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "torchscript"
TORCH_SITE = pathlib.Path(torch.__file__).resolve().parents[1]
MODELS_NAME = "models.py"


# ---------------------------------------------------------------------------
# Loading models.py under a relative file name
# ---------------------------------------------------------------------------


def load_models() -> types.ModuleType:
    """Import `models.py` with `__file__` and code file names equal to `models.py`.

    The source is registered in `linecache` under that name, so `inspect` (which
    torch.jit.script uses to find the source) and the tracer's Python stack both
    report `models.py`, never a path of this machine.
    """
    src = (OUT / MODELS_NAME).read_text()
    lines = src.splitlines(keepends=True)
    # mtime None: `linecache.checkcache` leaves the entry alone.
    linecache.cache[MODELS_NAME] = (len(src), None, lines, MODELS_NAME)
    mod = types.ModuleType("models")
    mod.__file__ = MODELS_NAME
    sys.modules["models"] = mod
    # dont_inherit: no `from __future__ import annotations` leaking in from this file.
    exec(compile(src, MODELS_NAME, "exec", dont_inherit=True), mod.__dict__)
    return mod


_ABS_PATH = re.compile(r"(?<![\w.])/(?:[\w.+-]+/)+[\w.+-]+")


def sanitize(text: str) -> str:
    """Make file names in `# file:line:col` comments relative; refuse other paths."""
    text = text.replace(str(TORCH_SITE) + os.sep, "")
    text = text.replace(str(ROOT) + os.sep, "")
    text = text.replace(str(OUT) + os.sep, "")
    for bad in _ABS_PATH.findall(text):
        raise AssertionError(f"machine path left in a dump: {bad}")
    return text


# ---------------------------------------------------------------------------
# Data
# ---------------------------------------------------------------------------


def to_numpy(v: Any) -> np.ndarray:
    if isinstance(v, torch.Tensor):
        return v.detach().cpu().contiguous().numpy().copy()
    if isinstance(v, bool):
        return np.array(v, dtype=np.bool_)
    if isinstance(v, int):
        return np.array(v, dtype=np.int64)
    if isinstance(v, float):
        return np.array(v, dtype=np.float64)
    raise TypeError(f"cannot store {type(v).__name__} in an npz")


def flatten(v: Any) -> list[Any]:
    if isinstance(v, (tuple, list)):
        return [leaf for item in v for leaf in flatten(item)]
    if isinstance(v, dict):
        return [leaf for item in v.values() for leaf in flatten(item)]
    return [v]


def write_npz(path: pathlib.Path, arrays: dict[str, np.ndarray]) -> None:
    """`np.savez`'s format (uncompressed, no pickles) with fixed zip timestamps."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as zf:
        for key, arr in arrays.items():
            if arr.dtype.kind not in "biuf":
                raise TypeError(f"{path.name}: {key} has dtype {arr.dtype}")
            data = io.BytesIO()
            np.lib.format.write_array(data, np.array(arr, order="C"), allow_pickle=False)
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = 0o644 << 16
            zf.writestr(info, data.getvalue())
    with np.load(io.BytesIO(buf.getvalue()), allow_pickle=False) as back:
        for key, arr in arrays.items():
            assert back[key].dtype == arr.dtype and np.array_equal(back[key], arr, equal_nan=True)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(buf.getvalue())


def module_state(m: torch.nn.Module) -> dict[str, np.ndarray]:
    state = {f"state.{k}": to_numpy(v) for k, v in m.named_parameters()}
    state.update({f"state.{k}": to_numpy(v) for k, v in m.named_buffers()})
    return dict(sorted(state.items()))


# ---------------------------------------------------------------------------
# Cases
# ---------------------------------------------------------------------------


@dataclass
class Case:
    name: str
    kind: str
    notes: str
    function: str | None = None
    module: str | None = None
    dumps: dict[str, str] = field(default_factory=dict)
    code: dict[str, str] = field(default_factory=dict)
    data: dict[str, str] = field(default_factory=dict)
    inputs: int = 0
    parse_ir: dict[str, str] = field(default_factory=dict)

    def manifest(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "kind": self.kind}
        if self.function is not None:
            out["function"] = self.function
        if self.module is not None:
            out["module"] = self.module
        out["dumps"] = self.dumps
        if self.code:
            out["code"] = self.code
        out["data"] = self.data
        out["inputs"] = self.inputs
        out["torch_parse_ir"] = self.parse_ir
        out["notes"] = self.notes
        return out


class Generator:
    def __init__(self) -> None:
        self.cases: list[Case] = []
        self.written: set[pathlib.Path] = set()

    def _write(self, rel: str, text: str) -> str:
        path = OUT / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        assert path not in self.written, rel
        self.written.add(path)
        path.write_text(text)
        return rel

    def add(self, case: Case) -> Case:
        assert all(c.name != case.name for c in self.cases), case.name
        self.cases.append(case)
        return case

    def dump(self, case: Case, graphs: dict[str, Any], single: str | None = None) -> None:
        """Write each graph's `str()`; `single` names the graph written as `<case>.txt`."""
        for gname, graph in graphs.items():
            text = sanitize(str(graph))
            if gname == single:
                rel = f"dumps/{case.name}.txt"
            else:
                rel = f"dumps/{case.name}.{gname}.txt"
            case.dumps[gname] = self._write(rel, text)
            case.parse_ir[gname] = check_parse_ir(text)

    def code(self, case: Case, codes: dict[str, str]) -> None:
        for mname, text in codes.items():
            suffix = "" if mname == "forward" and len(codes) == 1 or mname == "" else f".{mname}"
            rel = f"dumps/{case.name}{suffix}.code.txt"
            case.code[mname or "function"] = self._write(rel, sanitize(text))

    def data(
        self,
        case: Case,
        variant: str,
        args: Sequence[Any],
        outputs: Any,
        state: dict[str, np.ndarray] | None = None,
    ) -> None:
        arrays = {f"arg{i}": to_numpy(a) for i, a in enumerate(args)}
        arrays.update({f"out{i}": to_numpy(o) for i, o in enumerate(flatten(outputs))})
        arrays.update(state or {})
        rel = f"data/{case.name}{'_' + variant if variant else ''}.npz"
        assert OUT / rel not in self.written, rel
        self.written.add(OUT / rel)
        write_npz(OUT / rel, arrays)
        case.data[variant or "default"] = rel
        case.inputs = len(args)

    def write_manifest(self) -> None:
        text = json.dumps([c.manifest() for c in self.cases], indent=2) + "\n"
        (OUT / "manifest.json").write_text(text)


def check_parse_ir(text: str) -> str:
    """What `torch._C.parse_ir(text, parse_tensor_constants=True)` makes of a dump.

    "ok", "ok, `with` subgraphs ignored" (the parser stops after the main graph's
    `return`; subgraph nodes come back without their subgraph), or "error: " with
    torch's message and the dump line it points at.
    """
    try:
        torch._C.parse_ir(text, parse_tensor_constants=True)
    except Exception as e:
        lines = str(e).strip().splitlines() or [type(e).__name__]
        msg = lines[0].removesuffix(" here:").split(";")[0]
        for prev, line in zip(lines, lines[1:]):
            if "<--- HERE" in line:
                col = line.index("~")
                msg += f" at `{prev[max(0, col - 40):col + 40].strip()}`"
                break
        return f"error: {msg}"
    return "ok, `with` subgraphs ignored" if "\nwith " in text else "ok"


def graphs_of_function(fn: Any) -> dict[str, Any]:
    graphs = {"graph": fn.graph}
    # `inlined_graph` is a renumbered copy; only keep it when there was a call to inline.
    if re.search(r"prim::Call(Function|Method)", str(fn.graph)):
        graphs["inlined"] = fn.inlined_graph
    return graphs


def method_graphs(m: torch.jit.ScriptModule, prefix: str = "") -> dict[str, Any]:
    """`forward` and every other compiled method of `m` and its submodules."""
    out: dict[str, Any] = {}
    for mname in sorted(m._c._method_names()):
        out[f"{prefix}{mname}"] = m._c._get_method(mname).graph
    for sname, sub in m.named_children():
        out.update(method_graphs(sub, f"{prefix}{sname}."))
    return out


def method_codes(m: torch.jit.ScriptModule, prefix: str = "") -> dict[str, str]:
    out: dict[str, str] = {}
    for mname in sorted(m._c._method_names()):
        out[f"{prefix}{mname}"] = m._c._get_method(mname).code
    for sname, sub in m.named_children():
        out.update(method_codes(sub, f"{prefix}{sname}."))
    return out


def fresh(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A new function object with `fn`'s code.

    `torch.jit.script` caches compiled functions per Python function object, and with
    them their graph executors; profiling cases need an executor nobody ran before.
    """
    copy = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__, fn.__defaults__)
    copy.__module__, copy.__qualname__ = fn.__module__, fn.__qualname__
    return copy


def randn(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    return torch.randn(*shape, dtype=dtype)


# ---------------------------------------------------------------------------
# Fuser switches
# ---------------------------------------------------------------------------


class FuserState:
    """Set the CPU fuser / executor flags for a block, then restore them."""

    def __init__(self, *, legacy: bool = False, texpr: bool = False) -> None:
        self.legacy, self.texpr = legacy, texpr

    def __enter__(self) -> None:
        C = torch._C
        self.saved = (
            C._jit_can_fuse_on_cpu(),
            C._jit_can_fuse_on_cpu_legacy(),
            C._jit_texpr_fuser_enabled(),
            C._jit_get_te_must_use_llvm_cpu(),
        )
        C._jit_override_can_fuse_on_cpu(self.texpr or self.legacy)
        C._jit_override_can_fuse_on_cpu_legacy(self.legacy)
        C._jit_set_texpr_fuser_enabled(self.texpr)
        # No LLVM in the CPU wheels: let the TE fuser use its interpreter backend.
        C._jit_set_te_must_use_llvm_cpu(False)

    def __exit__(self, *exc: object) -> None:
        C = torch._C
        can_cpu, can_legacy, texpr, llvm = self.saved
        C._jit_override_can_fuse_on_cpu(can_cpu)
        C._jit_override_can_fuse_on_cpu_legacy(can_legacy)
        C._jit_set_texpr_fuser_enabled(texpr)
        C._jit_set_te_must_use_llvm_cpu(llvm)


# ---------------------------------------------------------------------------
# Case definitions
# ---------------------------------------------------------------------------


def lstm_inputs() -> list[torch.Tensor]:
    torch.manual_seed(1)
    return [randn(3, 10), randn(3, 20), randn(3, 20), randn(80, 10) * 0.3,
            randn(80, 20) * 0.3, randn(80) * 0.1, randn(80) * 0.1]


def script_function(
    gen: Generator,
    models: types.ModuleType,
    fname: str,
    runs: dict[str, Sequence[Any]],
    notes: str,
    case_name: str | None = None,
) -> tuple[Case, Any]:
    fn = torch.jit.script(getattr(models, fname))
    case = gen.add(Case(case_name or fname, "script", notes, function=fname))
    gen.dump(case, graphs_of_function(fn), single="graph")
    gen.code(case, {"": fn.code})
    for variant, args in runs.items():
        gen.data(case, variant, args, fn(*args))
    return case, fn


def seed_cases(gen: Generator, models: types.ModuleType) -> None:
    script_function(gen, models, "lstm_cell", {"": lstm_inputs()},
                    "JIT overview LSTM cell; chunk -> ListUnpack, TupleConstruct output")

    torch.manual_seed(2)
    a, b = randn(2, 3), randn(2, 3)
    script_function(gen, models, "if_else", {"true": [a, b, True], "false": [a, b, False]},
                    "prim::If on a bool argument; data per branch")
    pos, neg = torch.ones(2, 3), -torch.ones(2, 3)
    script_function(gen, models, "if_else_tensor", {"true": [a, b, pos], "false": [a, b, neg]},
                    "prim::If on a tensor predicate (aten::gt + aten::Bool); data per branch")

    torch.manual_seed(3)
    script_function(gen, models, "for_loop", {"": [torch.rand(3, 2) * 0.5 + 0.5]},
                    "prim::Loop with a max trip count from aten::size")
    script_function(gen, models, "while_continue",
                    {"i0": [randn(2, 2), 0], "i3": [randn(2, 2), 3], "i7": [randn(2, 2), 7]},
                    "while loop with continue (exit transform: prim::Loop with a condition)")

    # Scripted module with CallMethod / GetAttr, nn.Linear and a custom submodule.
    torch.manual_seed(4)
    m = torch.jit.script(models.ComposedModule().eval())
    case = gen.add(Case("module_callmethod", "script_module",
                        "prim::CallMethod to submodules, prim::GetAttr of parameters, "
                        "buffers and int/float attributes; 'inlined' is m.inlined_graph",
                        module="ComposedModule"))
    graphs = method_graphs(m)
    graphs["inlined"] = m.inlined_graph
    gen.dump(case, graphs)
    gen.code(case, method_codes(m))
    x = randn(2, 3)
    gen.data(case, "", [x], m(x), module_state(m))

    seed = torch.jit.script(models.SeedModule())
    case = gen.add(Case("seed_module", "script_module",
                        "JIT overview ScriptModule example: int and float arguments, prim::If; "
                        "data per branch", module="SeedModule"))
    gen.dump(case, method_graphs(seed))
    gen.code(case, method_codes(seed))
    x = randn(2, 2)
    gen.data(case, "y3", [x, 3, 0.5], seed(x, 3, 0.5), module_state(seed))
    gen.data(case, "y1", [x, 1, 0.5], seed(x, 1, 0.5), module_state(seed))


def trace_cases(gen: Generator, models: types.ModuleType) -> None:
    torch.manual_seed(5)
    args = [randn(2, 4), randn(4, 5), randn(5), randn(5, 3), randn(3)]
    t = torch.jit.trace(models.mlp, tuple(args))
    case = gen.add(Case("trace_mlp", "trace", "torch.jit.trace of a function: full tensor types, "
                        "slice/cat/view, softmax", function="mlp"))
    gen.dump(case, {"graph": t.graph}, single="graph")
    gen.code(case, {"": t.code})
    gen.data(case, "", args, t(*args))

    x = randn(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.jit.trace(models.traced_consts, (x,))
    case = gen.add(Case("trace_consts", "trace", "traced tensor constants (prim::Constant "
                        "value={2.5} and <Tensor>), dtype/device constants, float64 output",
                        function="traced_consts"))
    gen.dump(case, {"graph": t.graph}, single="graph")
    gen.code(case, {"": t.code})
    gen.data(case, "", [x], t(x))

    torch.manual_seed(6)
    cnn = models.SmallCNN().eval()
    with torch.no_grad():
        cnn.bn.running_mean.copy_(torch.randn(2) * 0.1)
        cnn.bn.running_var.copy_(torch.rand(2) + 0.5)
        cnn.bn.weight.copy_(torch.rand(2) + 0.5)
        cnn.bn.bias.copy_(torch.randn(2) * 0.1)
    x = randn(1, 1, 4, 4)
    t = torch.jit.trace(cnn, (x,))
    case = gen.add(Case("trace_cnn", "trace_module", "torch.jit.trace of a module (conv2d, "
                        "batch_norm eval, relu, max_pool2d, flatten, linear): GetAttr on %self, "
                        "CallMethod to traced submodules; 'inlined' is traced.inlined_graph",
                        module="SmallCNN"))
    graphs = method_graphs(t)
    graphs["inlined"] = t.inlined_graph
    gen.dump(case, graphs)
    gen.code(case, method_codes(t))
    gen.data(case, "", [x], t(x), module_state(t))


def fusion_cases(gen: Generator, models: types.ModuleType) -> None:
    args = lstm_inputs()
    expected = models.lstm_cell(*args)
    traced = torch.jit.trace(models.lstm_cell, tuple(args))

    with FuserState(legacy=True):
        g = traced.graph.copy()
        torch._C._jit_pass_fuse(g, False)
    case = gen.add(Case("fuse_lstm_cell", "fuse",
                        "legacy fuser: torch._C._jit_pass_fuse on the traced LSTM cell graph "
                        "(complete types) with _jit_override_can_fuse_on_cpu_legacy(True); "
                        "prim::FusionGroup subgraphs", function="lstm_cell"))
    gen.dump(case, {"traced": traced.graph, "fused": g})
    gen.data(case, "", args, expected)

    with FuserState(texpr=True):
        g = traced.graph.copy()
        torch._C._jit_pass_fuse_tensorexprs(g)
    case = gen.add(Case("texpr_lstm_cell", "tensorexpr",
                        "torch._C._jit_pass_fuse_tensorexprs on the traced LSTM cell graph: "
                        "prim::TypeCheck + prim::If(TensorExprGroup, FallbackGraph)",
                        function="lstm_cell"))
    gen.dump(case, {"fused": g}, single="fused")
    gen.data(case, "", args, expected)

    # Script + shape analysis + fusion, starting from the scripted graph.
    scripted = torch.jit.script(models.pointwise)
    torch.manual_seed(7)
    x, y = randn(4, 5), randn(4, 5)
    g = scripted.graph.copy()
    torch._C._jit_pass_complete_shape_analysis(g, (x, y), False)
    shaped = g.copy()
    with FuserState(texpr=True):
        torch._C._jit_pass_fuse_tensorexprs(g)
    case = gen.add(Case("texpr_pointwise", "tensorexpr",
                        "scripted graph after _jit_pass_complete_shape_analysis ('shaped') and "
                        "then _jit_pass_fuse_tensorexprs ('fused')", function="pointwise"))
    gen.dump(case, {"shaped": shaped, "fused": g})
    gen.data(case, "", [x, y], scripted(x, y))

    # Autodiff subgraphs directly from the pass.
    g = scripted.graph.copy()
    torch._C._jit_pass_create_autodiff_subgraphs(g, 1)
    case = gen.add(Case("autodiff_pointwise", "autodiff",
                        "torch._C._jit_pass_create_autodiff_subgraphs(graph, 1) on the scripted "
                        "graph: prim::DifferentiableGraph subgraph", function="pointwise"))
    gen.dump(case, {"graph": g}, single="graph")
    gen.data(case, "", [x, y], scripted(x, y))

    # Profiling executor: run and read the graphs it executes.
    profiled_cases(gen, models)


def profiled_cases(gen: Generator, models: types.ModuleType) -> None:
    torch.manual_seed(8)
    xs = randn(4, 5), randn(4, 5)
    for variant, requires_grad, texpr in (
        ("grad", True, False),
        ("grad_texpr", True, True),
        ("nograd_texpr", False, True),
    ):
        fn = torch.jit.script(fresh(models.pointwise))
        args = [a.clone().requires_grad_(requires_grad) for a in xs]
        graphs: dict[str, Any] = {}
        with FuserState(texpr=texpr):
            torch._C._jit_set_num_profiled_runs(1)
            out = fn(*args)
            graphs["profiling"] = torch.jit.last_executed_optimized_graph()
            for _ in range(2):
                out = fn(*args)
            graphs["optimized"] = torch.jit.last_executed_optimized_graph()
            graphs["graph_for"] = fn.graph_for(*args)
        case = gen.add(Case(f"profiled_{variant}", "profiled",
                            f"profiling executor, inputs requires_grad={requires_grad}, "
                            f"TE fuser {'on' if texpr else 'off'} on CPU: "
                            "'profiling' = last_executed_optimized_graph() after 1 run, "
                            "'optimized' = after 3 runs, 'graph_for' = fn.graph_for(*inputs)",
                            function="pointwise"))
        gen.dump(case, graphs)
        gen.data(case, "", [a.detach() for a in args], out)


    # Two profiling runs on different sizes: profiled types with unknown dims, Float(*, 5, ...).
    fn = torch.jit.script(fresh(models.pointwise))
    runs = {"rows4": [randn(4, 5), randn(4, 5)], "rows3": [randn(3, 5), randn(3, 5)]}
    case = gen.add(Case("profiled_dynamic", "profiled",
                        "profiling executor with _jit_set_num_profiled_runs(2), inputs of two "
                        "sizes (4x5, then 3x5): 'profiling' = last_executed_optimized_graph() "
                        "after both runs, profiled_type=Float(*, 5, ...)", function="pointwise"))
    torch._C._jit_set_num_profiled_runs(2)
    try:
        for variant, args in runs.items():
            gen.data(case, variant, args, fn(*args))
        gen.dump(case, {"profiling": torch.jit.last_executed_optimized_graph()})
    finally:
        torch._C._jit_set_num_profiled_runs(1)


def other_cases(gen: Generator, models: types.ModuleType) -> None:
    torch.manual_seed(10)
    S = script_function
    S(gen, models, "list_ops", {"": [randn(2, 3), 3]},
      "List[Tensor]/List[int], append in a loop, len, indexing, for over a list, aten::cat")
    S(gen, models, "tuple_ops", {"": [randn(2, 2), randn(2, 2)]},
      "TupleConstruct/TupleUnpack/TupleIndex, nested tuple output")
    S(gen, models, "dict_ops", {"": [randn(2, 2), randn(2, 2)]},
      "Dict[str, Tensor]: DictConstruct, _set_item, keys, __getitem__, __contains__, len")
    S(gen, models, "early_return", {"true": [randn(2, 2), True], "false": [randn(2, 2), False]},
      "return inside an if (exit transform); data per branch")
    S(gen, models, "while_break", {"": [randn(2, 2), 3]}, "while True with break")
    S(gen, models, "raise_check", {"": [randn(2, 2), 3]},
      "prim::RaiseException in a branch; data takes the non-raising path (n<0 raises)")
    S(gen, models, "scalar_ops", {"": [7, 3, 2.5]},
      "int/float/bool scalar arithmetic: floordiv, remainder, pow, casts, max/min, abs")
    S(gen, models, "item_ops", {"": [randn(3, 4)]},
      "aten::Int, aten::Float, item (Scalar), size/dim")
    S(gen, models, "fork_wait", {"": [randn(2, 3)]},
      "torch.jit.fork/wait: prim::fork with a subgraph attribute, aten::wait, Future[Tensor]")
    try:
        S(gen, models, "with_stmt", {"": [randn(2, 2)]},
          "with over a scripted class: prim::Enter/prim::Exit, prim::CreateObject, "
          "prim::SetAttr, __torch__.models.Counter")
    except Exception as e:
        print(f"with_stmt skipped: {e}", file=sys.stderr)
    S(gen, models, "optional_refine", {"pos": [randn(2, 2), 2], "neg": [randn(2, 2), -1]},
      "torch.jit.annotate(Optional[int], None), `is not None` refinement (prim::unchecked_cast)")
    S(gen, models, "string_ops", {"n2": [randn(2, 2), 2], "n5": [randn(2, 2), 5]},
      "str constants, aten::add.str, aten::str, aten::format, aten::eq.str, len(str)")
    S(gen, models, "call_other", {"": [randn(2, 2)]},
      "calls another scripted function: prim::CallFunction in 'graph', inlined in 'inlined'")
    S(gen, models, "int_tensor_ops", {"": [torch.arange(12, dtype=torch.int64).view(4, 3) - 4]},
      "int64 tensors: floor_divide, remainder, arange, zeros with dtype")
    S(gen, models, "double_ops", {"": [randn(3, 3, dtype=torch.float64)]},
      "float64 tensors: exp/mean keepdim, to(float32), where")
    S(gen, models, "tensor_creation", {"": [randn(6)]},
      "ones/full/zeros with dtype and device constants, view/reshape/t, stack, shape[0]")
    S(gen, models, "nested_control", {"": [randn(2, 2), 5]},
      "for with nested if and while (nested blocks)")
    S(gen, models, "loop_return", {"n5": [randn(2, 2), 5], "n1": [randn(2, 2), 1]},
      "return inside a for loop: loop gets a condition and prim::Uninitialized carries; "
      "n5 returns from inside the loop, n1 after it")
    S(gen, models, "else_return", {"true": [randn(2, 2), True], "false": [randn(2, 2), False]},
      "return in the else branch only: prim::Uninitialized for y on the returning path")
    S(gen, models, "optional_tensor", {"": [randn(2, 2), randn(2, 2)]},
      "Optional[Tensor] argument (Tensor?), `is None` refinement; data passes a tensor "
      "(None cannot be stored in an npz)")
    S(gen, models, "inplace_ops", {"": [randn(3, 2)]},
      "in-place add_/mul_ and index assignment (aten::select + aten::copy_/fill_)")

    # Constant propagation: list and tensor constants in a scripted graph.
    fn = torch.jit.script(models.tensor_creation)
    g = fn.graph.copy()
    torch._C._jit_pass_constant_propagation(g)
    case = gen.add(Case("constprop_tensor_creation", "constprop",
                        "torch._C._jit_pass_constant_propagation on the tensor_creation graph: "
                        "int[] constants (value=[2, 3]) and folded tensor constants",
                        function="tensor_creation"))
    gen.dump(case, {"graph": g}, single="graph")
    x = randn(6)
    gen.data(case, "", [x], fn(x))

    # Frozen module: parameters become tensor constants.
    torch.manual_seed(4)
    scripted = torch.jit.script(models.ComposedModule().eval())
    state = module_state(scripted)
    m = torch.jit.freeze(scripted)
    case = gen.add(Case("module_frozen", "frozen",
                        "torch.jit.freeze of the scripted ComposedModule: parameters and "
                        "buffers as prim::Constant[value=<Tensor>] (state: the module before freezing)",
                        module="ComposedModule"))
    gen.dump(case, {"forward": m.graph}, single="forward")
    x = randn(2, 3)
    gen.data(case, "", [x], m(x), state)


def main() -> None:
    os.chdir(OUT)  # nothing relative is read from here; it just keeps cwd stable
    torch.manual_seed(0)
    torch.set_num_threads(1)
    models = load_models()
    for sub in ("dumps", "data"):
        d = OUT / sub
        if d.exists():
            for f in d.iterdir():
                f.unlink()
    gen = Generator()
    seed_cases(gen, models)
    trace_cases(gen, models)
    fusion_cases(gen, models)
    other_cases(gen, models)
    gen.write_manifest()
    total = sum(p.stat().st_size for p in OUT.rglob("*") if p.is_file())
    print(f"{len(gen.cases)} cases, {len(gen.written)} files, {total} bytes in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
