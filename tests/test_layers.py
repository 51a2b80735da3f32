"""
The layers of xdsl-exir point one way (the design brief's "Layers point one way"):

    core (`utils/`) <- dialects <- semantics <- analysis <- interpreters <- transforms <- frontends, targets <- tools

A module may import its own layer and the layers below it; `frontends` and `targets` sit
side by side and do not import each other. The checks read every module's imports with
`ast`, at the top and inside functions alike (and `importlib.import_module` of a literal
name): an import inside a function still makes the importing module depend on the imported
one, it only hides the dependency until run time.
The few imports that may point up or sit inside a function are listed below, each with
its reason, and each entry must still be needed (a stale entry fails too).

Besides the direction, the modules' imports must not form a cycle: with the listed lazy
imports left out, the import graph is acyclic, so no module relies on an import inside a
function (or on import order) to load. Counting the imports inside functions as well, no
circle of modules holds more than four (the canonicalization traits' imports of their
patterns listed apart): the registries of dialects, passes and targets live in modules of
their own, not in the package `__init__` files every module of a package loads.

The semantics layer (inference rules, numpy kernels, decomposition rules) sits above the
dialects, whose ops and types it builds and reads, and below the analyses and passes, which
consult it. The `aten` dialect asks it for result types through the one listed lazy import
of its rules, as the dialect's canonicalization trait imports its patterns.

The interpreters sit below the passes, as in xDSL, whose constant folding pass imports its
interpreter: a pass may run the program (`constant-propagation` folds with the interpreter's
kernels and node compiler, so folding cannot disagree with running; calibration runs the
observed program), while running a program needs no pass.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = "xdsl_exir"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE

LAYERS: dict[str, int] = {
    "utils": 0,
    "dialects": 1,
    "semantics": 2,
    "analysis": 3,
    "interpreters": 4,
    "transforms": 5,
    "frontends": 6,
    "targets": 6,
    "tools": 7,
}
"""Sub-package -> its height; a module imports only from its own height and below."""

TOP_MODULES: dict[str, str] = {
    PACKAGE: "utils",  # `xdsl_exir/__init__.py` applies the xDSL fixes of the core and nothing else
    f"{PACKAGE}.universe": "tools",  # the `xdsl.universe` entry point names every dialect, pass and target
    f"{PACKAGE}.api": "tools",  # the Python API does what the tools do, through them
    f"{PACKAGE}.runtime": "utils",  # a compiled artifact's runtime: numpy and IREE's runtime, nothing of ours above the core
}
"""Modules outside the sub-packages, and the layer each belongs to."""

SIDE_BY_SIDE: frozenset[frozenset[str]] = frozenset({frozenset({"frontends", "targets"})})
"""Layers of one height that must not import each other."""

OPTIONAL_DEPENDENCIES: tuple[str, ...] = ("torch", "iree", "onnx", "onnxruntime")
"""Heavy optional dependencies: imported inside the functions that need them, so the core never loads them."""

ALLOWED_LAZY: dict[tuple[str, str, str], str] = {
    # Lazy registration: a registry names every dialect, pass and target by a factory that
    # imports its module on first use, as xDSL's own registries do.
    **{
        (f"{PACKAGE}.dialects.registry", f"get_{name}", f"{PACKAGE}.dialects.{module}"): "lazy dialect registration"
        for name, module in (
            ("exir", "exir"), ("aten", "aten"), ("fx", "fx"), ("ts", "ts"), ("prim", "prim"), ("stream", "stream")
        )
    },
    **{
        (f"{PACKAGE}.targets.registry", f"get_{name}_target", f"{PACKAGE}.targets.{module}"): "lazy target registration"
        for name, module in (
            ("mlir", "mlir_text"),
            ("fx", "fx_text"),
            ("python", "python_source"),
            ("torchscript_python", "torchscript_python"),
            ("torchscript", "torchscript_dump_printer"),
            ("dot", "dot"),
            ("svg", "dot"),
            ("iree_bundle", "iree_bundle"),
        )
    },
    # Canonicalization patterns: the dialects' canonicalization traits import their patterns on
    # first use, as xDSL's dialects do; the patterns use the alias analysis, a layer above.
    **{
        (f"{PACKAGE}.dialects.{dialect}", f"{trait}.{method}", f"{PACKAGE}.transforms.canonicalization_patterns.{module}"): (
            "canonicalization patterns, imported by the trait on first use"
        )
        for dialect, trait, module, method in (
            ("aten", "AtenCanonicalization", "aten", "get_patterns"),
            ("aten", "AtenCanonicalization", "aten", "get_canonicalization_patterns"),
            ("ts.ops", "TSCanonicalization", "prim", "get_canonicalization_patterns"),
        )
    },
    # The aten dialect's result-type inference: the rules are operator semantics, imported by
    # the dialect on first use as its canonicalization patterns are.
    (f"{PACKAGE}.dialects.aten", "_result_type_rules", f"{PACKAGE}.semantics.inference"): (
        "result-type inference rules, imported by the dialect on first use"
    ),
    # The tools load the reader of the input format they are given, the TorchScript runner and
    # the IREE backend only when a run needs them: each costs a few tenths of a second at start.
    **{
        (f"{PACKAGE}.tools.exir_opt", f"ExirOptMain.register_all_frontends.{function}", f"{PACKAGE}.frontends.{module}"): (
            "lazy frontend registration: only the input's reader is loaded"
        )
        for function, module in (
            ("parse_pt2", "pt2"),
            ("parse_torchscript", "torchscript_dump_reader"),
            ("parse_script", "torchscript_script"),
        )
    },
    (f"{PACKAGE}.tools.run_program", "_run_torchscript", f"{PACKAGE}.interpreters.ts_runner"): (
        "the TorchScript runner, loaded for TorchScript inputs only"
    ),
    (f"{PACKAGE}.tools.run_program", "_is_torchscript", f"{PACKAGE}.interpreters.ts_runner"): (
        "the TorchScript runner, loaded for TorchScript inputs only"
    ),
    (f"{PACKAGE}.tools.run_program", "_program_runner", f"{PACKAGE}.targets.iree"): (
        "the IREE backend (and the linalg lowering it imports), loaded for --backend iree only"
    ),
    (f"{PACKAGE}.semantics.kernels", "_KernelTable.table", f"{PACKAGE}.semantics.kernels.derived"): (
        "the derived kernel table (and the decomposition rules and aten dialect behind its decomposition "
        "kernels), built by the first lookup that needs more than a hand-written kernel"
    ),
    (f"{PACKAGE}.semantics.kernels.decomposed", "_compile", f"{PACKAGE}.interpreters.compiler"): (
        "the interpreter's graph compiler, which runs a decomposed op's graph, loaded by the first such "
        "kernel when nothing has loaded the interpreter yet (it registers itself with the kernel table)"
    ),
    (f"{PACKAGE}.tools.run_program", "execute", f"{PACKAGE}.tools.profiler"): (
        "the profiler (and the flop count and aten dialect it imports), loaded for --profile and --trace only"
    ),
    (f"{PACKAGE}.tools.exir_run", "_run", f"{PACKAGE}.tools.run_program"): (
        "exir-run's work, loaded once the arguments are parsed: --help and --version start at once"
    ),
    (PACKAGE, "__getattr__", f"{PACKAGE}.api"): (
        "the Python API re-exported at the top on first use (PEP 562), so `import xdsl_exir` stays cheap"
    ),
    (f"{PACKAGE}.api", "_import_exported_program", f"{PACKAGE}.frontends.torch_live"): (
        "the live torch importer (and torch), loaded for a live ExportedProgram only"
    ),
    **{
        (f"{PACKAGE}.api", function, f"{PACKAGE}.targets.iree"): (
            "the IREE backend (and the linalg lowering it imports), loaded by compile() on first use"
        )
        for function in ("_iree_available", "_iree_compile")
    },
    (f"{PACKAGE}.api", "_save_bundle", f"{PACKAGE}.targets.iree_bundle"): (
        "the compiled-artifact writer (and IREE), loaded by CompiledProgram.save() only"
    ),
}
"""
(importing module, enclosing function, imported module) -> why this import may sit inside a
function (and, where it points up, against the layers). The pass registry's factories of
passes in `transforms/` are matched by `_is_pass_factory` instead of one entry per pass.
"""

ALLOWED_ACROSS: dict[tuple[str, str], str] = {
    (f"{PACKAGE}.targets.iree", f"{PACKAGE}.frontends.pt2"): (
        "the IREE backend's one-call API, compile_program('m.pt2'), reads the archive it is given"
    ),
}
"""(importing module, imported module) -> why this import between side-by-side layers is right."""


@dataclass(frozen=True)
class Import:
    """One imported module, as one module's source names it."""

    importer: str
    imported: str
    line: int
    function: str | None
    """The enclosing function's qualified name, None at module level."""
    type_checking: bool
    """Inside `if TYPE_CHECKING:` (never executed, so never part of a cycle)."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES: dict[str, Path] = {_module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def _resolve(name: str) -> str:
    """The module an imported name lives in: `a.b.C` -> `a.b` when `a.b` is a module of ours."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


class _ImportCollector(ast.NodeVisitor):
    def __init__(self, module: str) -> None:
        self.module = module
        self.is_package = MODULES[module].name == "__init__.py"
        self.scopes: list[str] = []
        self.function_depth = 0
        self.type_checking = 0
        self.imports: list[Import] = []

    def _add(self, node: ast.stmt | ast.expr, name: str) -> None:
        self.imports.append(
            Import(
                self.module,
                name,
                node.lineno,
                ".".join(self.scopes) if self.function_depth else None,
                self.type_checking > 0,
            )
        )

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.scopes.append(node.name)
        self.generic_visit(node)
        self.scopes.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        self.scopes.append(node.name)
        self.function_depth += 1
        self.generic_visit(node)
        self.function_depth -= 1
        self.scopes.pop()

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_If(self, node: ast.If) -> None:
        if "TYPE_CHECKING" in ast.unparse(node.test):
            self.type_checking += 1
            for stmt in node.body:
                self.visit(stmt)
            self.type_checking -= 1
            for stmt in node.orelse:
                self.visit(stmt)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._add(node, alias.name)

    def visit_Call(self, node: ast.Call) -> None:
        # `importlib.import_module("xdsl_exir.x")` with a literal name is an import too (a hidden one);
        # computed names (the registries' `f"{__name__}.{family}"`) cannot be read and are not counted.
        func = node.func
        if (
            isinstance(func, ast.Attribute)
            and func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            self._add(node, node.args[0].value)
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.module.split(".")
            if not self.is_package:
                base.pop()
            base = base[: len(base) - node.level + 1]
            source = ".".join([*base, *([node.module] if node.module else [])])
        else:
            source = node.module or ""
        for alias in node.names:
            # `from pkg import module` imports that module; `from module import name` the module
            submodule = f"{source}.{alias.name}"
            self._add(node, submodule if submodule in MODULES else source)


def _all_imports() -> Iterator[Import]:
    for module, path in MODULES.items():
        collector = _ImportCollector(module)
        collector.visit(ast.parse(path.read_text(), str(path)))
        yield from collector.imports


@functools.cache
def imports() -> list[Import]:
    """Every import of the package; parsed on first use, not at collection (each pytest worker collects this file)."""
    return list(_all_imports())


@functools.cache
def ours() -> list[Import]:
    """The imports of the package's own modules."""
    return [i for i in imports() if i.imported == PACKAGE or i.imported.startswith(PACKAGE + ".")]


def _layer(module: str) -> str:
    if module in TOP_MODULES:
        return TOP_MODULES[module]
    return module.split(".")[1]


def _is_pass_factory(i: Import) -> bool:
    """`transforms/registry.py`'s `get_<pass>` factories, which import each pass of `transforms/` on first use."""
    return (
        i.importer == f"{PACKAGE}.transforms.registry"
        and i.function is not None
        and i.function.startswith("get_")
        and _layer(_resolve(i.imported)) == "transforms"
    )


def _allowed_lazy(i: Import) -> str | None:
    """Why the function-level import `i` may stay (None: it should move to the top)."""
    if i.function is None:
        return None
    if i.imported.split(".")[0] in OPTIONAL_DEPENDENCIES:
        return "optional heavy dependency"
    if _is_pass_factory(i):
        return "lazy pass registration"
    return ALLOWED_LAZY.get((i.importer, i.function, _resolve(i.imported)))


def _points_up(i: Import) -> bool:
    """Whether `i` imports a layer above the importer's, or a side-by-side one (listed exceptions aside)."""
    a, b = _layer(i.importer), _layer(_resolve(i.imported))
    if LAYERS[b] > LAYERS[a]:
        return True
    return a != b and frozenset({a, b}) in SIDE_BY_SIDE and (i.importer, _resolve(i.imported)) not in ALLOWED_ACROSS


def test_every_module_has_a_layer() -> None:
    unknown = [m for m in MODULES if m not in TOP_MODULES and m.split(".")[1] not in LAYERS]
    assert not unknown, f"modules outside the layers (add them to LAYERS or TOP_MODULES): {unknown}"


def test_imports_point_down() -> None:
    """No module imports a layer above its own (or a side-by-side one), except the listed lazy imports."""
    wrong = [
        f"{i.importer}:{i.line} ({_layer(i.importer)}) imports {_resolve(i.imported)} ({_layer(_resolve(i.imported))})"
        for i in ours()
        if _points_up(i) and _allowed_lazy(i) is None
    ]
    assert not wrong, "imports against the layers:\n" + "\n".join(wrong)


def test_imports_inside_functions_are_the_listed_ones() -> None:
    """
    An import inside a function hides a dependency (and often a cycle) until run time; it
    is kept only for an optional heavy dependency or a listed reason.
    """
    hidden = [
        f"{i.importer}:{i.line} in {i.function}() imports {i.imported}"
        for i in imports()
        if i.function is not None and not i.type_checking and _allowed_lazy(i) is None
    ]
    assert not hidden, "imports inside functions (move them to the top, or list why they cannot):\n" + "\n".join(
        hidden
    )


def test_torch_stays_above_the_core() -> None:
    """The design brief: the core, dialects, passes and interpreter never import torch; only importers of live torch objects do."""
    wrong = [
        f"{i.importer}:{i.line} imports {i.imported}"
        for i in imports()
        if i.imported.split(".")[0] == "torch" and LAYERS[_layer(i.importer)] < LAYERS["frontends"]
    ]
    assert not wrong, "torch imported below the frontends:\n" + "\n".join(wrong)


def test_listed_exceptions_exist() -> None:
    """Each listed exception still names an import, so the lists cannot outlive their reasons."""
    present = {(i.importer, i.function, _resolve(i.imported)) for i in ours() if i.function is not None}
    stale = [key for key in ALLOWED_LAZY if key not in present]
    across = {(i.importer, _resolve(i.imported)) for i in ours()}
    stale += [key for key in ALLOWED_ACROSS if key not in across]
    assert not stale, f"listed exceptions that no longer exist: {stale}"


def _graph_of(left_out: Callable[[Import, str], bool]) -> dict[str, set[str]]:
    """
    Module -> the modules it loads: its imports (but `if TYPE_CHECKING:` ones and those
    `left_out(import, resolved target)` names) and the parent packages each import loads.
    """
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for i in ours():
        target = _resolve(i.imported)
        if i.type_checking or left_out(i, target):
            continue
        parts = target.split(".")
        for n in range(1, len(parts) + 1):
            dep = ".".join(parts[:n])
            # a package being loaded is already (partly) loaded for its own submodules
            if dep in MODULES and dep != i.importer and not i.importer.startswith(dep + "."):
                graph[i.importer].add(dep)
    return graph


def _import_graph() -> dict[str, set[str]]:
    """Module -> the modules loading it loads: its imports and their parent packages, lazy ones left out."""
    return _graph_of(lambda i, _target: _allowed_lazy(i) is not None)


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def test_no_import_cycles() -> None:
    graph = _import_graph()
    cycles = _cycles(graph)
    described = [
        " <-> ".join(c) + "\n    " + "\n    ".join(f"{m} -> {sorted(graph[m] & set(c))}" for m in c) for c in cycles
    ]
    assert not cycles, "import cycles:\n" + "\n".join(described)


MAX_CIRCLE = 4
"""The most modules one import circle may hold, counting the imports inside functions."""

CIRCLE_EXCEPTIONS: dict[tuple[str, str], str] = {
    # A dialect's canonicalization trait imports its patterns on first use (xDSL's idiom, and
    # the listed exception); the patterns rewrite the dialect's ops and ask the alias
    # analysis, which reads the aten, prim and ts ops, so trait and patterns form one circle
    # of eight modules (aten, ts, ts.ops, prim, both pattern modules, the alias and overload
    # analyses) that nothing else can break without moving the patterns into the dialects.
    (f"{PACKAGE}.dialects.aten", f"{PACKAGE}.transforms.canonicalization_patterns.aten"): (
        "the aten dialect's canonicalization trait imports its patterns on first use"
    ),
    (f"{PACKAGE}.dialects.ts.ops", f"{PACKAGE}.transforms.canonicalization_patterns.prim"): (
        "the ts dialect's canonicalization trait imports its patterns on first use"
    ),
    # The graph compiler registers itself with the kernel table as it loads (so the kernels do
    # not depend on it); a decomposed op's kernel called before anything loaded the interpreter
    # loads it on first use, so `run_kernel` works on its own as it did before the semantics move.
    (f"{PACKAGE}.semantics.kernels.decomposed", f"{PACKAGE}.interpreters.compiler"): (
        "a decomposed op's kernel loads the interpreter's graph compiler on first use"
    ),
}
"""
(importing module, imported module) -> why this import, though it closes a circle larger
than MAX_CIRCLE, is left out of the count.
"""


def _full_import_graph() -> dict[str, set[str]]:
    """
    Module -> the modules it may load, at the top or inside a function (the listed circle
    exceptions and `if TYPE_CHECKING:` left out), with the parent packages an import loads.
    """
    return _graph_of(lambda i, target: (i.importer, target) in CIRCLE_EXCEPTIONS)


def test_import_circles_are_small() -> None:
    """
    Counting the imports inside functions too, no circle of modules is larger than
    MAX_CIRCLE: a lazy import keeps a module from loading another too early, but the two still
    depend on each other, and a large circle means no part of it can be read or tested alone.
    """
    graph = _full_import_graph()
    large = sorted((c for c in _cycles(graph) if len(c) > MAX_CIRCLE), key=len, reverse=True)
    described = [
        f"{len(c)} modules:\n    " + "\n    ".join(f"{m} -> {sorted(graph[m] & set(c))}" for m in c) for c in large
    ]
    assert not large, f"import circles of more than {MAX_CIRCLE} modules:\n" + "\n".join(described)


def test_circle_exceptions_exist() -> None:
    """Each listed circle exception still names an import."""
    present = {(i.importer, _resolve(i.imported)) for i in ours() if not i.type_checking}
    stale = [key for key in CIRCLE_EXCEPTIONS if key not in present]
    assert not stale, f"listed circle exceptions that no longer exist: {stale}"


STAR_PACKAGES: dict[str, frozenset[str]] = {
    f"{PACKAGE}.semantics.inference": frozenset({"core"}),
    f"{PACKAGE}.semantics.decompositions": frozenset({"core", "keep", "pattern"}),
    f"{PACKAGE}.semantics.kernels": frozenset({"core", "registry", "dtypes", "derived", "decomposed"}),
    f"{PACKAGE}.transforms.linalg_lowering": frozenset({"core", "state", "scalar", "float64_math", "windows", "columns", "conv_products", "variants", "refusals"}),
}
"""Family packages -> the modules of it a family may import: its core (and data tables), never a sibling family.
The kernel package's `derived` and `decomposed` build the table from every family's kernels (they import
families, and no family imports them). The lowering package's infrastructure (`state`, `scalar`, `float64_math`,
`windows`, `columns`, `conv_products`, `variants`, `refusals`) imports no family either."""


def test_family_packages_are_star_shaped() -> None:
    """A family module shares through its package's core, so a reader of one family needs no other."""
    wrong = [
        f"{i.importer}:{i.line} imports {_resolve(i.imported)}"
        for i in ours()
        for package, shared in STAR_PACKAGES.items()
        if i.importer.startswith(package + ".")
        and i.importer.rpartition(".")[2] not in shared
        and _resolve(i.imported).startswith(package + ".")
        and _resolve(i.imported).rpartition(".")[2] not in shared
    ]
    assert not wrong, "a family importing a sibling family (move the helper to the core):\n" + "\n".join(wrong)


@pytest.mark.parametrize(
    ("importer", "imported", "up"),
    [
        (f"{PACKAGE}.utils.symbolic", f"{PACKAGE}.dialects.exir", True),
        (f"{PACKAGE}.dialects.aten", f"{PACKAGE}.utils.op_registry", False),
        (f"{PACKAGE}.frontends.pt2", f"{PACKAGE}.targets.fx_text", True),
        (f"{PACKAGE}.targets.fx_text", f"{PACKAGE}.interpreters.program", False),
        (f"{PACKAGE}.tools.exir_opt", f"{PACKAGE}.targets", False),
        (PACKAGE, f"{PACKAGE}.dialects.exir", True),
    ],
)
def test_direction_rule(importer: str, imported: str, up: bool) -> None:
    """The rule itself, on made-up imports."""
    assert _points_up(Import(importer, imported, 1, None, False)) is up


def test_cycle_finder() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


MAX_MODULE_LINES = 1200
"""A module a reader can hold: past this, split it by what its parts are about."""

PRIVATE_API_GATEWAYS: frozenset[str] = frozenset({"utils/xdsl_compat.py", "frontends/torch_compat.py"})
"""The only modules that may reach into xDSL's or torch's private API (each access there names
the upstream change that would remove it); the package's own helpers are public where shared."""


def test_no_module_is_too_long() -> None:
    long = {
        str(p.relative_to(ROOT)): n
        for p in ROOT.rglob("*.py")
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


def test_private_usage_goes_through_the_gateways() -> None:
    suppressing = {
        str(p.relative_to(ROOT)) for p in ROOT.rglob("*.py") if "reportPrivateUsage" in p.read_text(encoding="utf-8")
    }
    assert suppressing <= PRIVATE_API_GATEWAYS, (
        f"private-usage suppressions outside the gateways: {suppressing - PRIVATE_API_GATEWAYS}"
    )
