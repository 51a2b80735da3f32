"""The passes of xdsl-exir, registered lazily by name."""

from collections.abc import Callable

from xdsl.passes import ModulePass


def get_verify_export_ir() -> type[ModulePass]:
    from xdsl_exir.transforms.verify_export_ir import VerifyExportIRPass

    return VerifyExportIRPass


def get_all_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Name -> factory; a pass's module is imported only when first used."""
    return {"verify-export-ir": get_verify_export_ir}
