"""
The passes of xdsl-exir, registered lazily by name. The registry is a module of its own,
not the package's `__init__`, because every pass module loads its package first: factories
in the package would make each pass depend, through them, on every other.
"""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_verify_export_ir() -> type[ModulePass]:
    from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

    return VerifyExportIRPass


def get_torchscript_to_exir() -> type[ModulePass]:
    from xdsl_exir.transforms.torchscript_to_exir import TorchScriptToExirPass

    return TorchScriptToExirPass


def get_convert_to_ssa() -> type[ModulePass]:
    from xdsl_exir.transforms.convert_to_ssa import ConvertToSSAPass

    return ConvertToSSAPass


def get_exit_transform() -> type[ModulePass]:
    from xdsl_exir.transforms.exit_transform import ExitTransformPass

    return ExitTransformPass


def get_insert_observers() -> type[ModulePass]:
    from xdsl_exir.transforms.quantization import InsertObserversPass

    return InsertObserversPass


def get_quantize() -> type[ModulePass]:
    from xdsl_exir.transforms.quantization import QuantizePass

    return QuantizePass


def get_unroll_loops() -> type[ModulePass]:
    from xdsl_exir.transforms.unroll_loops import UnrollLoopsPass

    return UnrollLoopsPass


def get_batch_mm() -> type[ModulePass]:
    from xdsl_exir.transforms.batch_mm import BatchMMPass

    return BatchMMPass


def get_lower_tuples() -> type[ModulePass]:
    from xdsl_exir.transforms.lower_tuples import LowerTuplesPass

    return LowerTuplesPass


def get_list_peepholes() -> type[ModulePass]:
    from xdsl_exir.transforms.list_peepholes import ListPeepholesPass

    return ListPeepholesPass


def get_shape_propagation() -> type[ModulePass]:
    from xdsl_exir.transforms.shape_propagation import ShapePropagationPass

    return ShapePropagationPass


def get_flop_count() -> type[ModulePass]:
    from xdsl_exir.transforms.flop_count import FlopCountPass

    return FlopCountPass


def get_convert_exir_to_linalg() -> type[ModulePass]:
    from xdsl_exir.transforms.convert_exir_to_linalg import ConvertExirToLinalgPass

    return ConvertExirToLinalgPass


def get_fuse_pointwise() -> type[ModulePass]:
    from xdsl_exir.transforms.fuse_pointwise import FusePointwisePass

    return FusePointwisePass


def get_fold_conv_bn() -> type[ModulePass]:
    from xdsl_exir.transforms.fold_conv_bn import FoldConvBNPass

    return FoldConvBNPass


def get_recompose_safe_softmax() -> type[ModulePass]:
    from xdsl_exir.transforms.recompose_safe_softmax import RecomposeSafeSoftmaxPass

    return RecomposeSafeSoftmaxPass


def get_replace_activation() -> type[ModulePass]:
    from xdsl_exir.transforms.replace_activation import ReplaceActivationPass

    return ReplaceActivationPass


def get_constant_propagation() -> type[ModulePass]:
    from xdsl_exir.transforms.constant_propagation import ConstantPropagationPass

    return ConstantPropagationPass


def get_constant_pooling() -> type[ModulePass]:
    from xdsl_exir.transforms.constant_pooling import ConstantPoolingPass

    return ConstantPoolingPass


def get_inline() -> type[ModulePass]:
    from xdsl_exir.transforms.inline import InlinePass

    return InlinePass


def get_exir_dce() -> type[ModulePass]:
    from xdsl_exir.transforms.dead_code_elimination import ExirDCEPass

    return ExirDCEPass


def get_exir_cse() -> type[ModulePass]:
    from xdsl_exir.transforms.common_subexpression_elimination import ExirCSEPass

    return ExirCSEPass


def get_functionalize() -> type[ModulePass]:
    from xdsl_exir.transforms.functionalize import FunctionalizePass

    return FunctionalizePass


def get_decompose() -> type[ModulePass]:
    from xdsl_exir.transforms.decompose import DecomposePass

    return DecomposePass


def get_to_core_aten() -> type[ModulePass]:
    from xdsl_exir.transforms.decompose import ToCoreAtenPass

    return ToCoreAtenPass


def get_optimize_inference() -> type[ModulePass]:
    from xdsl_exir.transforms.optimize_inference import OptimizeInferencePass

    return OptimizeInferencePass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> factory; a pass's module is imported only when first used."""
    return {
        "verify-export-ir": get_verify_export_ir,
        "torchscript-to-exir": get_torchscript_to_exir,
        "convert-to-ssa": get_convert_to_ssa,
        "exit-transform": get_exit_transform,
        "decompose": get_decompose,
        "to-core-aten": get_to_core_aten,
        "optimize-inference": get_optimize_inference,
        "exir-dce": get_exir_dce,
        "exir-cse": get_exir_cse,
        "functionalize": get_functionalize,
        "constant-propagation": get_constant_propagation,
        "constant-pooling": get_constant_pooling,
        "inline": get_inline,
        "convert-exir-to-linalg": get_convert_exir_to_linalg,
        "fuse-pointwise": get_fuse_pointwise,
        "fold-conv-bn": get_fold_conv_bn,
        "replace-activation": get_replace_activation,
        "recompose-safe-softmax": get_recompose_safe_softmax,
        "shape-propagation": get_shape_propagation,
        "flop-count": get_flop_count,
        "insert-observers": get_insert_observers,
        "quantize": get_quantize,
        "unroll-loops": get_unroll_loops,
        "batch-mm": get_batch_mm,
        "lower-tuples": get_lower_tuples,
        "list-peepholes": get_list_peepholes,
    }
