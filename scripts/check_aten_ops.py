"""
Check `xdsl_exir/dialects/aten_ops.txt` against the rule its header states.

The list is every core-tagged overload, the pre-decomposition operators
torch.export emits for common models, and their in-place and out= variants
(`op_registry.selection_violations` says exactly what is checked). Adding an
operator means adding its functional overload by hand; `--fix` then adds what
the rule implies (core overloads after a torch update, and the variants of
every listed overload) to the sorted first block. No torch needed: the tags and
schemas come from `torch_schemas.txt`.

    python scripts/check_aten_ops.py          # --check: exit 1 and list the violations
    python scripts/check_aten_ops.py --fix    # add what is missing, then check again
"""

from __future__ import annotations

import argparse
import pathlib
import sys

from xdsl_exir.utils.op_registry import all_operators, functional_variant, selection_violations

LIST = pathlib.Path(__file__).resolve().parents[1] / "xdsl_exir/dialects/aten_ops.txt"


def _names(text: str) -> list[str]:
    return [s for line in text.splitlines() if (s := line.strip()) and not s.startswith("#")]


def _missing(listed: set[str]) -> set[str]:
    """Core overloads and variants of listed ones that are not listed, to a fixed point."""
    ops = all_operators()
    aten = [n for n in ops if n.startswith("aten.")]
    wanted = set(listed) | {n for n in aten if "core" in ops[n].tags}
    while True:
        more = {n for n in aten if n not in wanted and functional_variant(n, mutable=True) in wanted}
        if not more:
            return wanted - listed
        wanted |= more


def _fix(text: str) -> str:
    """`text` with the missing names merged into its first block of names, which stays sorted."""
    lines = text.splitlines()
    add = sorted(_missing(set(_names(text))))
    if not add:
        return text
    start = next(i for i, line in enumerate(lines) if line and not line.startswith("#"))
    end = next((i for i in range(start, len(lines)) if not lines[i] or lines[i].startswith("#")), len(lines))
    block = sorted(set(lines[start:end]) | set(add))
    return "\n".join(lines[:start] + block + lines[end:]) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--check", action="store_true", help="report violations of the rule (the default)")
    mode.add_argument("--fix", action="store_true", help="add the overloads the rule requires")
    args = parser.parse_args(argv)
    text = LIST.read_text()
    if args.fix:
        fixed = _fix(text)
        if fixed != text:
            LIST.write_text(fixed)
            print(f"added {len(_names(fixed)) - len(_names(text))} overloads to {LIST.name}")
        text = fixed
    problems = selection_violations(_names(text))
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"{LIST.name}: {len(problems)} violations of its selection rule", file=sys.stderr)
        return 1
    print(f"{LIST.name}: {len(_names(text))} overloads satisfy the selection rule")
    return 0


if __name__ == "__main__":
    sys.exit(main())
