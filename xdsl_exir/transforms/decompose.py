"""
`decompose`: lower every ATen operator outside the core opset to core ATen,
as `ExportedProgram.run_decompositions()` does, and the `to-core-aten`
pipeline around it.

The rules live in the `semantics/decompositions/` package, and the rewrite
that applies them in its `pattern` module. An op is rewritten when it is not
legal (the core-tagged overloads, the non-core ones torch's core IR keeps,
`decompositions.KEEP_IN_CORE`, plus the `legal-ops` option) and a rule
exists; rules may emit non-core ops, which are rewritten in turn until a
fixpoint. `exir.call_function "aten.*"` calls are handled like the aten ops
they name. `decompose` leaves an operator without a rule alone; `to-core-aten`
then refuses it by name, saying whether it has no rule or its rule does not
apply, and points at `aten_coverage.txt`.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriteWalker,
)
from xdsl.transforms.dead_code_elimination import DeadCodeElimination
from xdsl.utils.exceptions import PassFailedException, VerifyException

from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import CallFunctionOp
from xdsl_exir.semantics.decompositions import RULES, default_legal_ops
from xdsl_exir.semantics.decompositions.pattern import DecomposePattern
from xdsl_exir.transforms.functionalize import FunctionalizePass
from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass
from xdsl_exir.utils.diagnostics import locate
from xdsl_exir.utils.op_registry import CORE_IR_EXTRAS, lookup


@dataclass(frozen=True)
class DecomposePass(ModulePass):
    """Lowers non-core ATen operators to the core ATen opset (torch's `run_decompositions`)."""

    name = "decompose"

    legal_ops: tuple[str, ...] = ()
    """
    Extra overloads to keep; `aten.linear.default`, `aten::linear` and
    `torch.ops.aten.linear.default` all work. Quote them in a pipeline
    (`decompose{legal-ops="aten.linear.default","aten.gelu.default"}`): the
    pipeline syntax does not read dots in bare words.
    """

    def legal(self) -> frozenset[str]:
        extra: set[str] = set()
        for raw in self.legal_ops:
            text = raw.strip()
            if not text:
                continue
            cls = aten_op_class(text)
            entry = lookup(text) if cls is None else None
            if cls is None and entry is None:
                raise PassFailedException(
                    f"decompose: legal-ops names '{text}', which is not an ATen "
                    "overload (write it as aten.linear.default, aten::linear or "
                    "torch.ops.aten.linear.default)"
                )
            extra.add(cls.name if cls is not None else entry.op_name)  # pyright: ignore[reportOptionalMemberAccess] - entry is set whenever cls is None (refused above otherwise)
        return default_legal_ops() | extra

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        pattern = DecomposePattern(self.legal())
        PatternRewriteWalker(
            GreedyRewritePatternApplier([pattern], dce_enabled=False),
            apply_recursively=True,
        ).rewrite_module(op)


@dataclass(frozen=True)
class ToCoreAtenPass(ModulePass):
    """
    The `to-core-aten` pipeline: `functionalize` (as `run_decompositions`
    functionalizes), `decompose`, `dce`; then
    `verify-export-ir`: a program that obeyed its rules must still obey them
    (torch's own core IR breaks `no-promotion` on mixed int widths, so a
    program that already broke a rule is not held to it), and its `core-aten`
    rule always: an ATen operator left without a decomposition is an error
    naming it, not a silent non-core program.
    """

    name = "to-core-aten"

    legal_ops: tuple[str, ...] = ()

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        FunctionalizePass().apply(ctx, op)
        valid_before = self._verifies(ctx, op) is None
        DecomposePass(self.legal_ops).apply(ctx, op)
        DeadCodeElimination().apply(ctx, op)
        if valid_before and (error := self._verifies(ctx, op)) is not None:
            raise PassFailedException(f"to-core-aten produced invalid Export IR: {error}")
        self._refuse_leftovers(op)
        try:
            VerifyExportIRPass(dialect="core", legal_ops=self.legal_ops).check_core_aten(op)
        except VerifyException as e:
            raise PassFailedException(f"to-core-aten: {e}") from None

    def _refuse_leftovers(self, module: ModuleOp) -> None:
        """The first ATen call left outside core ATen, located, saying why decompose left it: no
        rule for the overload, or a rule that does not apply to these arguments."""
        legal = DecomposePass(self.legal_ops).legal() | CORE_IR_EXTRAS
        left: list[tuple[Operation, str]] = []
        for child in module.walk():
            if isinstance(child, AtenOp):
                name = child.name
            elif isinstance(child, CallFunctionOp) and (entry := lookup(child.target.data)) is not None:
                name = entry.op_name
            else:
                continue
            if name.startswith("aten.") and name not in legal:
                left.append((child, name))
        if not left:
            return
        first, name = left[0]
        if name in RULES:
            why = (
                "its decomposition does not apply to these arguments (a symbolic size, or a random "
                "or training-mode form), so it cannot be written in core ATen"
            )
        else:
            why = "it has no decomposition to core ATen yet"
        others = sorted({n for _, n in left[1:]} - {name})
        more = f"; also left: {', '.join(others)}" if others else ""
        raise PassFailedException(
            f"{locate(first)}: to-core-aten: '{name}' is not a core ATen operator and {why}{more}. "
            "xdsl_exir/dialects/aten_coverage.txt gives each overload's status; keep it with "
            f'to-core-aten{{legal-ops="{name}"}} if the target runs it'
        )

    @staticmethod
    def _verifies(ctx: Context, op: ModuleOp) -> str | None:
        """verify-export-ir's first complaint, None when the module obeys every rule."""
        try:
            VerifyExportIRPass().apply(ctx, op)
        except (VerifyException, PassFailedException) as e:
            return str(e)
        return None

__all__ = ["DecomposePass", "DecomposePattern", "ToCoreAtenPass"]
