"""The passes of xdsl-exir, registered lazily by name."""

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


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> factory; a pass's module is imported only when first used."""
    return {
        "verify-export-ir": get_verify_export_ir,
        "torchscript-to-exir": get_torchscript_to_exir,
        "convert-to-ssa": get_convert_to_ssa,
        "exit-transform": get_exit_transform,
    }
