"""
Every fact the project holds about one ATen overload, each with its `file:line`.

    python scripts/op_card.py aten.addmm.default [aten.relu.default ...]

prints the overload's schema and torch's tags for it, whether the aten dialect
lists it, its result-type inference rule, its numpy kernel, its decomposition
(or why it stays in core IR), its lowering to linalg (or the documented
refusal), its status in the coverage list, and the lines of the tests that name
it. An in-place or `out=` variant also names the functional overload it is
typed and run through.

Everything is found through the registries at run time (the rule tables, and
`inspect` for where a function is defined), never through module paths written
here, so the card stays right when a family moves. A function built by a
factory (a table's kernel, a `CALLS` entry) is shown where it is defined and
where the overload is registered: the first line of the registering package
that quotes the overload's name (or its short name, for a family table keyed
by it).
"""

from __future__ import annotations

import argparse
import inspect
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from types import ModuleType

from xdsl_exir.interpreters import aten_coverage
from xdsl_exir.semantics import decompositions, kernels
from xdsl_exir.semantics.inference import core as inference
from xdsl_exir.transforms import linalg_lowering
from xdsl_exir.utils import op_registry

ROOT = Path(__file__).resolve().parents[1]
TESTS = ROOT / "tests"
DATA = Path(str(files("xdsl_exir.dialects")))
"""Where `op_registry` reads the schema list and the aten dialect's selection."""


@dataclass(frozen=True)
class Fact:
    """One line of the card: what, where (`path:line`, or "" when nothing is defined), and a note."""

    what: str
    where: str
    note: str


def _show(path: str | Path, line: int) -> str:
    p = Path(path).resolve()
    try:
        p = p.relative_to(ROOT)
    except ValueError:
        pass
    return f"{p}:{line}"


def _source_lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []


def _package_modules(package: ModuleType) -> list[ModuleType]:
    """The loaded modules of `package` (a package's module), itself first."""
    prefix = package.__name__ + "."
    return [package, *[m for name, m in sorted(sys.modules.items()) if m is not None and name.startswith(prefix)]]


def _quoted(modules: Iterable[ModuleType], *texts: str) -> str | None:
    """`path:line` of the first line quoting one of `texts` in `modules`' sources (module by module, each text in order)."""
    for m in modules:
        path = getattr(m, "__file__", None)
        lines = _source_lines(Path(path)) if path else []
        for text in texts:
            needle = f'"{text}"'
            for i, line in enumerate(lines, 1):
                if needle in line:
                    return _show(path, i)
    return None


def _defined(fn: Callable[..., object]) -> tuple[str, str]:
    """(`path:line` of `fn`'s definition, decorators included; its qualified name)."""
    target = inspect.unwrap(fn)
    path = inspect.getsourcefile(target)
    _, line = inspect.getsourcelines(target)
    return _show(path or "?", line), getattr(target, "__qualname__", repr(target))


def _function_fact(what: str, fn: Callable[..., object], name: str) -> Fact:
    where, qualname = _defined(fn)
    note = qualname
    module = inspect.getmodule(inspect.unwrap(fn))
    if ("<locals>" in qualname or "<lambda>" in qualname) and module is not None:
        registered = _quoted([module], name, name.split(".")[1])
        if registered is not None and registered != where:
            note += f", registered at {registered}"
    return Fact(what, where, note)


def _text_line(path: Path, predicate: Callable[[str], bool]) -> int | None:
    for i, line in enumerate(_source_lines(path), 1):
        if predicate(line):
            return i
    return None


def schema_facts(name: str) -> list[Fact]:
    entry = op_registry.lookup(name)
    if entry is None:
        return [Fact("schema", "", "not an overload of the schema list")]
    schemas = DATA / "torch_schemas.txt"
    line = _text_line(schemas, lambda s: s.startswith(entry.schema_text + " ") or s == entry.schema_text)
    out = [Fact("schema", _show(schemas, line) if line else "", entry.schema_text)]
    out.append(Fact("tags", "", ", ".join(sorted(entry.tags)) or "(none)"))
    listed = DATA / "aten_ops.txt"
    line = _text_line(listed, lambda s: s.split("#")[0].strip() == name)
    out.append(
        Fact("aten dialect", _show(listed, line) if line else "", "listed" if line else "not listed: no aten op")
    )
    return out


def variant_facts(name: str) -> list[Fact]:
    functional = op_registry.functional_variant(name)
    if functional is None:
        return []
    return [Fact("variant of", "", f"{functional} (typed from its alias annotations, run by the functional's kernel)")]


def inference_facts(name: str) -> list[Fact]:
    rule = inference.rule_of(name)
    if rule is not None:
        return [_function_fact("inference", rule, name)]
    if inference.has_inference(name):
        return [Fact("inference", "", "from the schema's alias annotations (an in-place or out= variant)")]
    return [Fact("inference", "", "none")]


def kernel_facts(name: str) -> list[Fact]:
    kernel = kernels.KERNELS.get(name)
    if kernel is not None:
        return [_function_fact("kernel", kernel, name)]
    return [Fact("kernel", "", "none")]


def decomposition_facts(name: str) -> list[Fact]:
    out: list[Fact] = []
    rule = decompositions.RULES.get(name)
    if rule is not None:
        out.append(_function_fact("decomposition", rule, name))
    package = _package_modules(decompositions)
    for table, what in ((decompositions.KEEP_IN_CORE, "kept in core"), (decompositions.NOT_YET, "not decomposed yet")):
        if name in table:  # an entry quotes the full name, or the name within its namespace
            out.append(Fact(what, _quoted(package, name, name.partition(".")[2]) or "", table[name]))
    if name in op_registry.CORE_IR_EXTRAS:
        out.append(Fact("core IR extra", _quoted([op_registry], name) or "", "torch keeps it in core IR"))
    if not out:
        entry = op_registry.lookup(name)
        core = entry is not None and "core" in entry.tags
        out.append(Fact("decomposition", "", "none (a core overload)" if core else "none"))
    return out


def lowering_facts(name: str) -> list[Fact]:
    rule = linalg_lowering.rule_for(name)
    if rule is not None:
        return [_function_fact("lowering", rule, name)]
    refusal = linalg_lowering.refusal_for(name)
    if refusal is not None:
        return [Fact("lowering refused", _quoted(_package_modules(linalg_lowering), name) or "", refusal)]
    return [Fact("lowering", "", "none")]


def coverage_facts(name: str) -> list[Fact]:
    path = aten_coverage.COVERAGE_FILE
    line = _text_line(path, lambda s: s.split()[:1] == [name])
    listed = aten_coverage.read_coverage().get(name)
    computed = aten_coverage.status_of(name)
    note = listed if listed is not None else "not listed (a variant has its functional overload's status)"
    if listed is not None and listed != computed:
        note += f" (the code says: {computed}; run scripts/gen_aten_coverage.py)"
    return [Fact("coverage", _show(path, line) if line else "", note)]


def test_facts(name: str) -> list[Fact]:
    """
    The test files naming the overload (its full name, or `torch.ops.aten.foo.overload`):
    one line each, at the first mention, with how many lines mention it.
    """
    namespace, _, rest = name.partition(".")
    pattern = re.compile(rf"{re.escape(name)}(?![\w.])|torch\.ops\.{re.escape(namespace)}\.{re.escape(rest)}(?![\w.])")
    found = []
    for path in sorted(TESTS.rglob("*")):
        if path.suffix not in (".py", ".mlir") or {"__pycache__", "Output"} & set(path.parts):
            continue  # Output/: lit's scratch files
        hits = [(i, line) for i, line in enumerate(_source_lines(path), 1) if pattern.search(line)]
        if hits:
            first, text = hits[0]
            more = f"({len(hits)} lines) " if len(hits) > 1 else ""
            found.append(Fact("test", _show(path, first), more + text.strip()[:90]))
    return found or [Fact("test", "", "no test names it")]


def card(name: str) -> list[Fact]:
    """Every fact about overload `name` (`aten.foo.Tensor`), in the order of the contributor's steps."""
    return [
        *schema_facts(name),
        *variant_facts(name),
        *inference_facts(name),
        *kernel_facts(name),
        *decomposition_facts(name),
        *coverage_facts(name),
        *lowering_facts(name),
        *test_facts(name),
    ]


def render(name: str, facts: list[Fact]) -> str:
    width = max(len(f.what) for f in facts)
    lines = [name]
    for f in facts:
        where = f"{f.where}  " if f.where else ""
        lines.append(f"  {f.what:<{width}}  {where}{f.note}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip() if __doc__ else None)
    parser.add_argument("overloads", nargs="+", help="full overload names, such as aten.add.Tensor")
    args = parser.parse_args(argv)
    status = 0
    for i, name in enumerate(args.overloads):
        if op_registry.lookup(name) is None:
            print(
                f"op_card: {name} is not an overload of the schema list (write the full name: aten.add.Tensor)",
                file=sys.stderr,
            )
            status = 1
            continue
        if i:
            print()
        print(render(name, card(name)))
    return status


if __name__ == "__main__":
    sys.exit(main())
