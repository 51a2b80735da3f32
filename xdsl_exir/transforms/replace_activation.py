"""
`replace-activation{from=relu to=gelu}`: swap one activation function for another.

Figure 2 of torch.fx: Practical Program Capture and Transformation rewrites every `torch.relu` of a traced module into
`torch.nn.functional.gelu`. The same swap applies at every level the IR
carries: aten ops (`aten.relu.default` -> `aten.gelu.default`, in-place
`relu_` -> `gelu_` when it exists), `exir.call_function` targets, `fx.call_method`
names and `fx.call_module` activation modules (class and configuration). One
table lists each activation's spellings, so adding one is one line.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Self

from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
)
from xdsl.utils.arg_spec import ArgSpec
from xdsl.utils.exceptions import DiagnosticException

from xdsl_exir.dialects import fx
from xdsl_exir.dialects.aten import AtenOp, aten_op_class
from xdsl_exir.dialects.exir import CallFunctionOp, encode_arg


@dataclass(frozen=True)
class Activation:
    """The spellings of one elementwise activation in each IR level."""

    aten: str
    """Base aten name: `relu` (ops `aten.relu.default`, `aten.relu_.default`)."""
    functions: tuple[str, ...]
    """call_function targets; the first is used when writing one."""
    module: str
    """The `torch.nn` module class."""
    module_config: tuple[tuple[str, object], ...] = ()
    method: str | None = None


_NN = "torch.nn.modules.activation."
ACTIVATIONS: dict[str, Activation] = {
    "relu": Activation("relu", ("torch.relu", "torch.nn.functional.relu"), f"{_NN}ReLU", (("inplace", False),), "relu"),
    "gelu": Activation("gelu", ("torch._C._nn.gelu", "torch.nn.functional.gelu"), f"{_NN}GELU", (("approximate", "none"),)),
    "sigmoid": Activation("sigmoid", ("torch.sigmoid", "torch.nn.functional.sigmoid"), f"{_NN}Sigmoid", (), "sigmoid"),
    "tanh": Activation("tanh", ("torch.tanh", "torch.nn.functional.tanh"), f"{_NN}Tanh", (), "tanh"),
    "silu": Activation("silu", ("torch.nn.functional.silu",), f"{_NN}SiLU", (("inplace", False),)),
    "hardswish": Activation("hardswish", ("torch._C._nn.hardswish", "torch.nn.functional.hardswish"), f"{_NN}Hardswish", (("inplace", False),)),
    "mish": Activation("mish", ("torch.nn.functional.mish",), f"{_NN}Mish", (("inplace", False),)),
}


class ReplaceActivation(RewritePattern):
    """Rewrite one op spelling `src` into the same op spelling `dst`."""

    def __init__(self, src: Activation, dst: Activation) -> None:
        self.src = src
        self.dst = dst

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> None:
        if isinstance(op, AtenOp):
            self._aten(op, rewriter)
        elif isinstance(op, CallFunctionOp) and op.target.data in self.src.functions:
            # only the input carries over (`inplace=` and the like are the source's own options)
            new = CallFunctionOp.create(
                operands=list(op.operands),
                result_types=list(op.result_types),
                properties={
                    "target": StringAttr(self.dst.functions[0]),
                    "args": ArrayAttr(op.args.data[:1]),
                    "kwargs": DictionaryAttr({}),
                },
                attributes=dict(op.attributes),
            )
            rewriter.replace(op, new)
        elif isinstance(op, fx.CallMethodOp) and self.src.method is not None and op.target.data == self.src.method:
            if self.dst.method is not None:
                new = op.clone()
                new.properties["target"] = StringAttr(self.dst.method)
            else:  # no tensor method: call the function instead
                new = CallFunctionOp.create(
                    operands=list(op.operands),
                    result_types=list(op.result_types),
                    properties={"target": StringAttr(self.dst.functions[0]), "args": op.args, "kwargs": op.kwargs},
                    attributes=dict(op.attributes),
                )
            rewriter.replace(op, new)
        elif isinstance(op, fx.CallModuleOp) and op.module_class.data == self.src.module:
            new = op.clone()
            new.properties["module"] = StringAttr(self.dst.module)
            config = {k: v for k, v in op.config.data.items() if k == "training"}
            config.update({k: encode_arg(v, []) for k, v in self.dst.module_config})
            new.properties["config"] = DictionaryAttr(config)
            rewriter.replace(op, new)

    def _aten(self, op: AtenOp, rewriter: PatternRewriter) -> None:
        for suffix in ("", "_"):
            if op.name != f"aten.{self.src.aten}{suffix}.default":
                continue
            cls = aten_op_class(f"aten.{self.dst.aten}{suffix}.default")
            if cls is None or len(op.get_args()) != 1 or op.get_kwargs():
                return
            new = cls.build(*op.get_args(), result_types=list(op.result_types))
            new.attributes.update(op.attributes)
            rewriter.replace(op, new)


@dataclass(frozen=True)
class ReplaceActivationPass(ModulePass):
    """Replace activation `from` by activation `to` (relu, gelu, sigmoid, tanh, silu, hardswish, mish)."""

    name = "replace-activation"

    from_: str = "relu"
    to: str = "gelu"

    @classmethod
    def from_spec(cls, spec: ArgSpec) -> Self:
        """Accept the option as `from` (a Python keyword, hence the field `from_`)."""
        params = {("from_" if k == "from" else k): v for k, v in spec.parameters.items()}
        return super().from_spec(ArgSpec(spec.name, params))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        known = ", ".join(ACTIVATIONS)
        for option, value in (("from", self.from_), ("to", self.to)):
            if value not in ACTIVATIONS:
                raise DiagnosticException(
                    f"replace-activation: {option}={value} is not a known activation (known: {known})"
                )
        pattern = ReplaceActivation(ACTIVATIONS[self.from_], ACTIVATIONS[self.to])
        PatternRewriteWalker(GreedyRewritePatternApplier([pattern]), apply_recursively=False).rewrite_module(op)
