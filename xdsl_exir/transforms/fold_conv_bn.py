"""
`fold-conv-bn`: fold inference batch norm into the convolution before it.

In eval mode a batch norm is a per-channel affine map, so a convolution
followed by it equals one convolution with rescaled weights (torch.fx: Practical Program Capture and Transformation, §8):

    s  = gamma / sqrt(running_var + eps)
    W' = W * s            (per output channel)
    b' = (b - running_mean) * s + beta

computed in the weights' dtype as torch's `fuse_conv_bn_weights` does. The
folded weights become new `exir.state`s; the batch norm disappears and state
no longer read is dropped from the program and its signature.

Two levels: ATen (`convolution` / `conv1d..3d` then
`_native_batch_norm_legit_no_training`, `native_batch_norm` or `batch_norm`
with `training=False`) in the entry graph of an exported program, whose
parameters are placeholders mapped to state by the signature; and FX
(`fx.call_module` of a `Conv{1,2,3}d` then of a `BatchNorm{1,2,3}d` in eval
mode), whose state the module ops name directly. A pair is folded only when
the convolution's result has no other user, every tensor involved is program
state with data, and (FX) neither module is used anywhere else.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import ArrayAttr, BoolAttr, DictionaryAttr, ModuleOp, StringAttr
from xdsl.ir import BlockArgument, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from xdsl_exir.dialects import fx
from xdsl_exir.dialects.aten import AtenOp
from xdsl_exir.dialects.exir import (
    STATE_INPUT_KINDS,
    DenseBlobAttr,
    GetAttrOp,
    GraphOp,
    InputKind,
    ProgramOp,
    StateOp,
    TensorType,
    array_from_blob,
    blob_from_array,
)
from xdsl_exir.semantics.inference import bind_arguments
from xdsl_exir.transforms.program_state import (
    add_state_input,
    remove_state_input,
    state_referenced,
    symbol_of,
    unique_state_name,
)

_CONVS = frozenset({"aten.convolution.default", "aten.conv1d.default", "aten.conv2d.default", "aten.conv3d.default"})
_BATCH_NORMS = frozenset(
    {"aten._native_batch_norm_legit_no_training.default", "aten.native_batch_norm.default", "aten.batch_norm.default"}
)
_FX_CONVS = frozenset(f"torch.nn.modules.conv.Conv{n}d" for n in (1, 2, 3))
_FX_BATCH_NORMS = frozenset(f"torch.nn.modules.batchnorm.BatchNorm{n}d" for n in (1, 2, 3))


def fold_weights(
    w: np.ndarray,
    b: np.ndarray | None,
    mean: np.ndarray,
    var: np.ndarray,
    gamma: np.ndarray | None,
    beta: np.ndarray | None,
    eps: float,
) -> tuple[np.ndarray, np.ndarray]:
    """The folded (weight, bias), in the weight's dtype (torch's fuse_conv_bn_weights)."""
    dt = w.dtype
    b_ = np.zeros(w.shape[0], dt) if b is None else b
    gamma_ = np.ones(w.shape[0], dt) if gamma is None else gamma
    beta_ = np.zeros(w.shape[0], dt) if beta is None else beta
    rsqrt = (1 / np.sqrt(var.astype(dt) + dt.type(eps))).astype(dt)
    scale = (gamma_.astype(dt) * rsqrt).astype(dt)
    w2 = (w * scale.reshape((-1,) + (1,) * (w.ndim - 1))).astype(dt)
    b2 = ((b_.astype(dt) - mean.astype(dt)) * rsqrt * gamma_.astype(dt) + beta_.astype(dt)).astype(dt)
    return w2, b2


def _state_array(state: StateOp) -> np.ndarray | None:
    t = state.state_type
    if not isinstance(t, TensorType) or not isinstance(state.value, DenseBlobAttr) or not t.is_static():
        return None
    return array_from_blob(state.value, t)


# ---------------------------------------------------------------------------
# ATen level
# ---------------------------------------------------------------------------


class _AtenFolder:
    """Folds conv + batch norm pairs of a program's entry graph, keeping the signature in step."""

    def __init__(self, program: ProgramOp, graph: GraphOp) -> None:
        self.program = program
        self.graph = graph
        self.block = graph.body.block
        self.touched: list[BlockArgument] = []

    def state_of(self, value: object) -> np.ndarray | None:
        """The data of a placeholder that the signature maps to program state."""
        if not isinstance(value, BlockArgument) or value.block is not self.block:
            return None
        spec = self.program.inputs.data[value.index]
        target = spec.target_name
        if spec.input_kind not in STATE_INPUT_KINDS or target is None:
            return None
        state = self.program.state().get(target)
        return _state_array(state) if state is not None else None

    def fold(self, bn: AtenOp) -> bool:
        bound = bind_arguments(bn.SCHEMA, bn.get_args(), bn.get_kwargs())
        if bn.name != "aten._native_batch_norm_legit_no_training.default" and bound["training"] is not False:
            return False
        if any(r.uses for r in bn.results[1:]):
            return False
        conv = bound["input"]
        if not isinstance(conv, SSAValue) or not isinstance(conv.owner, AtenOp) or conv.owner.name not in _CONVS:
            return False
        conv_op = conv.owner
        if not conv.has_one_use():
            return False
        cargs = bind_arguments(conv_op.SCHEMA, conv_op.get_args(), conv_op.get_kwargs())
        if cargs.get("transposed", False) is not False:
            return False
        w = self.state_of(cargs["weight"])
        if w is None or w.dtype.kind != "f":
            return False
        arrays: dict[str, np.ndarray | None] = {}
        conv_bias = cargs.get("bias")
        b = None if conv_bias is None else self.state_of(conv_bias)
        if conv_bias is not None and b is None:
            return False
        for name in ("weight", "bias", "running_mean", "running_var"):
            v = bound[name]
            arrays[name] = None if v is None else self.state_of(v)
            if v is not None and arrays[name] is None:
                return False
        mean, var = arrays["running_mean"], arrays["running_var"]
        if mean is None or var is None:
            return False
        w2, b2 = fold_weights(w, b, mean, var, arrays["weight"], arrays["bias"], float(cast(float, bound["eps"])))
        new_w = self.add_state(cast(SSAValue, cargs["weight"]), w2, "folded_weight")
        new_b = self.add_state(cast(SSAValue, cargs["weight"]), b2, "folded_bias")

        # the convolution with the folded state
        args = list(conv_op.get_args())
        kwargs = dict(conv_op.get_kwargs())
        args[1] = new_w
        if len(args) > 2:
            args[2] = new_b
        elif "bias" in kwargs:
            kwargs["bias"] = new_b
        else:
            args.append(new_b)
        new_conv = type(conv_op).build(*args, result_types=list(conv_op.result_types), **kwargs)
        new_conv.attributes.update(conv_op.attributes)
        Rewriter.insert_op(new_conv, InsertPoint.before(conv_op))
        new_conv.results[0].name_hint = conv_op.results[0].name_hint
        bn.results[0].replace_all_uses_with(new_conv.results[0])
        self.touched += [
            v for v in (cargs["weight"], conv_bias, *(bound[n] for n in arrays)) if isinstance(v, BlockArgument)
        ]
        Rewriter.erase_op(bn)
        Rewriter.erase_op(conv_op)
        return True

    def add_state(self, like: SSAValue, data: np.ndarray, suffix: str) -> BlockArgument:
        """A new parameter placeholder (after the other parameters) holding `data`."""
        spec = self.program.inputs.data[cast(BlockArgument, like).index]
        base = f"{spec.target_name}_{suffix}" if spec.target_name else suffix
        name = unique_state_name(self.program, base.rsplit(".", 1)[0] + "." + suffix if "." in base else base)
        t = cast(TensorType, like.type)
        new_type = TensorType(list(data.shape), t.element_dtype)
        specs = list(self.program.inputs.data)
        # torch's order: tokens, parameters, buffers, constants, user inputs
        params = [i for i, s in enumerate(specs) if s.input_kind == InputKind.parameter]
        index = params[-1] + 1 if params else next(
            (i for i, s in enumerate(specs) if s.input_kind != InputKind.token), len(specs)
        )
        taken = {s.arg_name.data for s in specs}
        arg_name = "p_" + name.replace(".", "_")
        while arg_name in taken:
            arg_name += "_"
        return add_state_input(self.program, self.graph, name, InputKind.parameter, new_type, data, index, arg_name)

    def drop_unused(self) -> None:
        """Remove the placeholders (and state) that folding left unused."""
        for arg in sorted(set(self.touched), key=lambda a: -a.index):
            if not arg.uses:
                remove_state_input(self.program, self.graph, arg)


def _fold_aten(program: ProgramOp) -> int:
    graph = program.entry
    if graph is None or len(program.inputs.data) != len(graph.body.block.args):
        return 0
    folder = _AtenFolder(program, graph)
    bns = [op for op in graph.body.block.ops if isinstance(op, AtenOp) and op.name in _BATCH_NORMS]
    count = sum(folder.fold(bn) for bn in bns)
    if count:
        folder.drop_unused()
    return count


# ---------------------------------------------------------------------------
# FX level
# ---------------------------------------------------------------------------


def _module_users(program: ProgramOp, target: str) -> int:
    """How many ops call the module `target` or read its state."""
    n = 0
    prefix = target + "."
    for op in program.walk():
        if isinstance(op, fx.CallModuleOp) and op.target.data == target:
            n += 1
        elif isinstance(op, fx.GetAttrOp | GetAttrOp) and (symbol_of(op) or "").startswith(prefix):
            n += 1
    return n


def _fold_fx(program: ProgramOp) -> int:
    count = 0
    states = program.state
    for bn in [op for op in program.walk() if isinstance(op, fx.CallModuleOp)]:
        if bn.module_class.data not in _FX_BATCH_NORMS or len(bn.operands) != 1:
            continue
        cfg = bn.get_config()
        if cfg.get("training") is not False or cfg.get("track_running_stats") is False:
            continue
        conv = bn.operands[0]
        conv_op = conv.owner
        if not isinstance(conv_op, fx.CallModuleOp) or conv_op.module_class.data not in _FX_CONVS:
            continue
        if not conv.has_one_use() or conv_op.get_config().get("transposed", False) is not False:
            continue
        ctarget, btarget = conv_op.target.data, bn.target.data
        if _module_users(program, ctarget) != 1 or _module_users(program, btarget) != 1:
            continue
        st = states()
        local = {s.data for s in conv_op.state.data}

        def data(name: str) -> np.ndarray | None:
            s = st.get(name)
            return None if s is None else _state_array(s)

        w = data(f"{ctarget}.weight")
        b = data(f"{ctarget}.bias") if "bias" in local else None
        mean, var = data(f"{btarget}.running_mean"), data(f"{btarget}.running_var")
        bn_local = {s.data for s in bn.state.data}
        gamma = data(f"{btarget}.weight") if "weight" in bn_local else None
        beta = data(f"{btarget}.bias") if "bias" in bn_local else None
        if w is None or mean is None or var is None or ("bias" in local and b is None) or w.dtype.kind != "f":
            continue
        w2, b2 = fold_weights(w, b, mean, var, gamma, beta, float(cast(float, cfg.get("eps", 1e-5))))
        wstate = st[f"{ctarget}.weight"]
        dtype = cast(TensorType, wstate.state_type).element_dtype
        wstate.value = blob_from_array(w2, dtype)
        if "bias" in local:
            st[f"{ctarget}.bias"].value = blob_from_array(b2, dtype)
        else:
            Rewriter.insert_op(
                StateOp(f"{ctarget}.bias", TensorType([b2.shape[0]], dtype), blob_from_array(b2, dtype)),
                InsertPoint.after(wstate),
            )
            conv_op.state = ArrayAttr([*conv_op.state.data, StringAttr("bias")])
            if "bias" in conv_op.config.data:
                conv_op.config = DictionaryAttr({**conv_op.config.data, "bias": BoolAttr.from_bool(True)})
        bn.results[0].replace_all_uses_with(conv_op.results[0])
        Rewriter.erase_op(bn)
        for name in bn.state_names():
            if not state_referenced(program, name) and name in st:
                Rewriter.erase_op(st[name])
        count += 1
    return count


@dataclass(frozen=True)
class FoldConvBNPass(ModulePass):
    """Fold eval-mode batch norm into the preceding convolution (ATen and FX call_module levels)."""

    name = "fold-conv-bn"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for program in [p for p in op.walk() if isinstance(p, ProgramOp)]:
            _fold_aten(program)
            _fold_fx(program)

