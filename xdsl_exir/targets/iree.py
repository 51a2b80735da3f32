"""
Native code through IREE: compile the upstream-dialect form of a program and run
it on numpy arrays.

`compile_program("m.pt2")` (or a module / `exir.program`) lowers the program
(`to-core-aten`, then `convert-exir-to-linalg`), compiles the MLIR text with
IREE's compiler for the host CPU by default, and returns a `CompiledProgram`:
call it with the user inputs, get the user outputs, with the same input and
range checks as the numpy interpreter (it is a `ProgramRunner` whose graph runs
in IREE) and buffers that persist across calls.

Compiled modules are cached on disk, keyed by the SHA-256 of the lowered text,
the IREE compiler version, the compile flags and the host CPU, in
`$EXIR_IREE_CACHE`, else `$XDG_CACHE_HOME/xdsl-exir/iree`, else
`~/.cache/xdsl-exir/iree`; deleting that directory clears it. Each entry ends
with the SHA-256 of the module, so a damaged one is recompiled, not loaded; one
IREE cannot load is recompiled too. A module compiled with data tiling that
iree-compile refuses is compiled again without it (a note on stderr). A
failure gives iree-compile's first error line.

Weights of at least `IreeOptions.parameters_from_bytes` bytes (64 KiB by
default) are not compiled into the module: the lowering reads each as an IREE
named parameter (`#stream.parameter.named<"model"::"<state name>">`), and the
runtime hands IREE the program's own weights for them, through a
`ParameterIndex` of buffers (`add_buffer`) and the `io_parameters` module
(`create_io_parameters_module`). The weights of a `.pt2` are memory-mapped
from the archive and aligned there, so IREE imports them without a copy and
nothing is written; the compiled module, and its cache key, do not depend on
the weights, so a program retrained or reloaded with other weights reuses the
cached module, and a large model's module stays small.

`--max-tensor-bytes` holds here too: every tensor the program creates is
checked before compiling when its size is static, and before each call when
the inputs' sizes decide it. `compile_lowered` compiles a module already in
upstream dialects (`exir-run m.linalg.mlir --backend iree`).

IREE is the optional extra `iree` (`pip install 'xdsl-exir[iree]'`); this module
imports it only when a program is compiled.
"""

from __future__ import annotations

import io
import math
import os
import pathlib
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib.metadata import version
from typing import Any, cast

import numpy as np
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, ModuleOp
from xdsl.dialects.builtin import TensorType as BuiltinTensorType
from xdsl.ir import Attribute, Operation
from xdsl.utils.exceptions import ParseError

from xdsl_exir.dialects.exir import DType, InputKind, OutputKind, ProgramOp, SymIntType, TensorType, blob_data, is_blob
from xdsl_exir.dialects.registry import get_all_dialects
from xdsl_exir.dialects.stream import parameter_keys, parameters_refused
from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.compiler import InterpreterError
from xdsl_exir.interpreters.program import ProgramRunner, find_program
from xdsl_exir.interpreters.upstream.program import LoweredProgram
from xdsl_exir.interpreters.upstream.values import UnsupportedTypeError, type_info
from xdsl_exir.runtime import DirectCall, Spec, cpu_workers, open_module
from xdsl_exir.semantics.kernels import numpy_dtype
from xdsl_exir.targets.iree_cache import (
    CompileResult,
    cache_key,
    default_cache_dir,
    drop_cached,
    read_cached,
    write_cached,
)
from xdsl_exir.transforms.convert_exir_to_linalg import ConvertExirToLinalgPass, function_arguments
from xdsl_exir.transforms.decompose import ToCoreAtenPass
from xdsl_exir.transforms.flop_count import program_flops
from xdsl_exir.transforms.linalg_lowering.conv_products import IM2COL_MARK
from xdsl_exir.transforms.linalg_lowering.matmul import DATA_TILING_MAX_WEIGHT, weight_passes
from xdsl_exir.utils.diagnostics import locate
from xdsl_exir.utils.dtypes import is_low_precision
from xdsl_exir.utils.limits import check_tensor_bytes, tensor_bytes_limit
from xdsl_exir.utils.mlir_parser import ResourceParser, print_module
from xdsl_exir.utils.multiverse import multiverse
from xdsl_exir.utils.symbolic import sympy
from xdsl_exir.utils.tensor_data import TensorDataError, storage_dtype

INSTALL_HINT = (
    "the IREE backend needs the 'iree' extra: pip install 'xdsl-exir[iree]' "
    "(iree-base-compiler and iree-base-runtime)"
)

TARGET_DEVICES: dict[str, tuple[str, ...]] = {
    "cpu": ("--iree-hal-target-device=local", "--iree-hal-local-target-device-backends=llvm-cpu"),
    "cuda": ("--iree-hal-target-device=cuda",),
    "rocm": ("--iree-hal-target-device=hip",),
    "vulkan": ("--iree-hal-target-device=vulkan",),
}
"""Compile flags per target device; only `cpu` is tested here."""

RUNTIME_DRIVERS = {"cpu": "local-task", "cuda": "cuda", "rocm": "hip", "vulkan": "vulkan"}


class IreeError(InterpreterError):
    """IREE is missing, refused the module, or failed at run time."""


@dataclass(frozen=True)
class IreeOptions:
    """How to compile and run: device, host CPU tuning, threads, cache."""

    device: str = "cpu"
    target_cpu: str = "host"
    target_triple: str | None = None
    """LLVM's target triple for the CPU (`aarch64-unknown-linux-gnu`); None: the host's. For saved artifacts."""
    threads: int | None = None
    """The most threads a call uses (CPU); None every core, as eager PyTorch does. A program
    of fewer flops than `runtime.CALLER_BELOW_FLOPS` runs on the calling thread."""
    data_tiling: bool | None = None
    """IREE's data tiling; None turns it on for programs with a convolution, or with a matrix product
    whose rows IREE would otherwise tile narrowly and no large weight (`auto_data_tiling`;
    `data_tiling_flags` says which of IREE's two paths)."""
    extra_flags: tuple[str, ...] = ()
    cache_dir: str | None = None
    use_cache: bool = True
    parameters_from_bytes: int = 64 * 1024
    """Weights of at least this many bytes are IREE parameters, outside the compiled module; -1 embeds all."""

    def compile_flags(self, text: str = "", *, data_tiling: bool | None = None) -> list[str]:
        """The flags for `text`; `data_tiling` overrides the option (the retry without it)."""
        if self.device not in TARGET_DEVICES:
            raise IreeError(f"unknown IREE device '{self.device}' (known: {', '.join(TARGET_DEVICES)})")
        flags = list(TARGET_DEVICES[self.device])
        if self.device == "cpu":
            flags.append(f"--iree-llvmcpu-target-cpu={self.target_cpu}")
            if self.target_triple:
                flags.append(f"--iree-llvmcpu-target-triple={self.target_triple}")
            # Convolutions as im2col + matmul: 1.5-2.7x faster on the CNNs of
            # benchmarks/compile.py, no change elsewhere (data tiling: see
            # `data_tiling_flags`).
            flags.append("--iree-global-opt-use-im2col-for-convs")
            # No channels-last conversion: IREE's own (the preprocessing pass
            # iree-preprocessing-convert-conv-to-channels-last, with or without
            # im2col, with or without the transpose-propagation flags) and the
            # lowering's (conv_pool._CHANNELS_LAST) speed a lone 3x3 convolution
            # up to 2.7x, but whole models not: ResNet-18 1.1-1.9x slower (20x
            # with aggressive transpose propagation), MobileNet and RegNet-X
            # 5-10% slower (benchmarks/compile.py --variant, one thread).
            # --iree-llvmcpu-experimental-vectorize-to-transfer-gather vectorizes
            # the windowed reads of im2col columns: RegNet-X 0.82x the time,
            # ResNet-18 0.96x, four other CNNs within noise (0.95x geometric
            # mean, one thread, AVX-512 Xeon): left off, as IREE calls it
            # experimental and 5% does not pay for the risk of a miscompile.
            if data_tiling is None:
                data_tiling = self.auto_data_tiling(text)
            if data_tiling:
                flags.extend(self.data_tiling_flags(text))
        # Nothing set for the runtime's work per dispatch: IREE 3.13 already records each
        # function's command buffer once and replays it with the call's buffers bound
        # (--iree-hal-memoization and --iree-hal-indirect-command-buffers are its defaults),
        # and neither partitioning favor nor another execution model won or loads here
        # (benchmarks/compile.py, "Two threads").
        # float64 programs stay float64 (IREE demotes them to float32 by default).
        flags.append("--iree-input-demote-f64-to-f32=false")
        return flags + list(self.extra_flags)

    def auto_data_tiling(self, text: str) -> bool:
        """
        Whether data tiling is on for `text`: the option or, when unset, whether
        the lowered program has a convolution (a named one, or the marked
        product of a dense one's im2col columns), or else a `linalg.matmul` that
        reads its right operand at least `_DATA_TILING_PASSES` times without
        data tiling (`weight_passes`) and no `linalg.matmul` whose right operand
        has more than `DATA_TILING_MAX_WEIGHT` elements.

        Such programs take the global path, which packs every weight on each
        call (`data_tiling_flags`): one more pass over each weight, paid back
        only where the product without data tiling makes many. IREE 3.13 tiles
        an untiled product's rows by their largest divisor up to 8 (17 rows: 1
        at a time, 17 passes; 64: 8 at a time, 8 passes), against 16-row tiles
        on rows padded to 16 with data tiling. Measured with
        benchmarks/compile.py (`lin<rows>_<in>x<out>`, one thread, CPU time,
        interleaved, ms; none / global path):

        - 1 to 8 rows lose 2-10x (the packing costs more than the product:
          Linear(768, 3072) on 1 row 0.65 / 2.39, Linear(4096, 4096) 6.0 / 31);
        - 13, 17, 19, 23 and 31 rows (as many passes) gain 1.3-2.5x: Linear(768,
          768) on 13 rows 1.15 / 0.74, on 17 1.14 / 0.83, on 31 2.25 / 0.89,
          Linear(192, 768) on 17 rows 0.42 / 0.21, Linear(768, 3072) on 17 rows
          4.57 / 3.59; the LLaMA block at 17 tokens 2.27 / 1.30;
        - 25, 32, 33, 48, 56, 63 and 64 rows (4-11 passes) are even or lose up
          to 30% (Linear(768, 3072) on 32 rows 2.60 / 3.40, Linear(768, 768) on
          25 rows 0.61 / 0.76); 96 and 104 (12, 13 passes) gain 10-20%, 128 and
          256 rows 6-21% on Linear(768, 768);
        - the packing outgrows the gain with the weight: Linear(4096, 4096) (64
          MiB) loses 2-3x at every row count measured (17 rows 42 / 78-79, 128
          rows 72-88 / 138-179), Linear(768, 3072) is even at 128 rows (11.8-12.3
          / 10.8-12.7), the LLaMA block of width 1024 (1024x2816 weights, 11 MiB)
          gains 5-11% at 17 tokens (26.3 / 24.9, 25.6 / 22.8) and is 4x slower at
          1 (3.8 / 15.3).

        The lowering now cuts such products below 64 rows into bands that IREE
        tiles well (`linalg_lowering.matmul.row_bands`: 17 rows as 16 + 1, 3
        passes), which then keep data tiling off: untiled bands beat the tiled
        whole (Linear(768, 768) on 17 rows 0.72 -> 0.44 ms; the bands data-tiled
        0.67, as each packs the weight).

        The dispatch-creation path (or the global path with const-expr
        hoisting) was faster still on 17-128 rows (Linear(4096, 4096) on 17 rows
        25 ms) and near even on 1-8, but only because it packs each weight once
        into a copy at load time (`iree-compile --compile-to=stream`: the
        weight's encoding dispatch in an initializer), which the weights read by
        reference rule out (`data_tiling_flags`).
        """
        if self.data_tiling is not None:
            return self.data_tiling
        if _CONVOLUTION.search(text) is not None:
            return True
        # a marked product is a convolution's, which returned above
        products = [(int(rows), int(k) * int(n)) for _, rows, k, n in _PRODUCT.findall(text)]
        if any(weight > DATA_TILING_MAX_WEIGHT for _, weight in products):
            return False
        return any(weight_passes(rows) >= _DATA_TILING_PASSES for rows, _ in products)

    @staticmethod
    def data_tiling_flags(text: str) -> list[str]:
        """
        IREE's data-tiling path for `text`. IREE 3.13 has two: the one
        `--iree-opt-data-tiling` picks (from dispatch creation) and
        `--iree-global-opt-data-tiling` (from global optimization). Measured
        with benchmarks/compile.py (one thread, CPU time, interleaved, an
        AVX-512 Xeon), against no data tiling:

        - programs of matrix products and no convolution take the global path
          with the mmt4d microkernel: the 4-layer encoder 70 -> 50 ms, the
          LLaMA block 5.2 -> 2.8 ms (the global path without the microkernel
          57 and 3.4 ms). The dispatch-creation path left the encoder as it
          was (76 -> 78-86 ms): it fuses the packing of the output
          projection's input into the attention's `attn @ v` contraction,
          which then ran 8x slower (1.2 -> 9.7 ms a layer). Without
          `--iree-opt-const-expr-hoisting=false` the global path packs every
          weight read by reference into a copy at load time (a `pack`
          dispatch in an initializer, `iree-compile --compile-to=stream`),
          where such weights are read in place (a language model's would take
          twice their memory, tests/test_bundle.py); with it, the weights are
          packed on each call, at no measured cost (encoder 40.5 -> 40.9 ms,
          LLaMA 2.62 -> 2.65, against 59.2 and 4.52 without data tiling, one
          interleaved run);
        - programs with a convolution keep the dispatch-creation path (ResNet-18
          1.2x, MobileNet 1.2x faster than no data tiling); the global path was
          within noise on ResNet-18, RegNet-X, EfficientNet-B0, MobileNetV3
          and SqueezeNet, and ShuffleNetV2 1.11 -> 1.42 ms. With const-expr
          hoisting on, as here, that path too packs each weight read by
          reference into a copy at load time (`--compile-to=stream` on a 3x3
          512->512 convolution: its 512x4608 parameter's `_encode_` dispatch
          sits in the initializer, after the parameter load); with hoisting
          off it would pack them on each call (see `auto_data_tiling`). Their
          products over few output positions and a long reduction run untiled
          (`data_tiling_hints`, applied by `compile_text`), and so read their
          weights in place.
        """
        if _CONVOLUTION.search(text) is not None:
            return [DATA_TILING_FLAG]
        flags = [GLOBAL_DATA_TILING_FLAG, "--iree-llvmcpu-enable-ukernels=mmt4d", "--iree-opt-const-expr-hoisting=false"]
        return flags if _PROPAGATE_TRANSPOSES else [*flags, KEEP_TRANSPOSES_FLAG]


DATA_TILING_FLAG = "--iree-opt-data-tiling"
GLOBAL_DATA_TILING_FLAG = "--iree-global-opt-data-tiling"
KEEP_TRANSPOSES_FLAG = "--iree-global-opt-propagate-transposes=false"
"""IREE's global transpose propagation off, on the global data-tiling path (`data_tiling_flags`).
It folds the transpose after a batch contraction into the contraction's output map: an encoder's
`(attn @ v).transpose(1, 2)` became one generic writing `[batch, tokens, heads, dims]`, which is
no batch matmul to the global path, so it ran untiled (`matmul_like_4x128x4x64x128`, 732 us a
layer against 285 as `batch_mmt4d` with the transpose a dispatch of its own; per dispatch,
`iree-benchmark-module --device_profiling_mode=host-execution`, one thread). The encoder's
dispatches summed 37.1 -> 35.1 ms a call; `benchmarks/compile.py`, one thread, CPU time, 11
interleaved samples, off / on (ms): encoder 38.3 / 40.1 (onnxruntime 42.7), LLaMA block 2.67 /
2.62, ViT-tiny 3.20 / 3.17 (a program with a convolution: unchanged), the zoo's attention 0.0085 /
0.0084 (no data tiling: unchanged)."""
_PROPAGATE_TRANSPOSES = False
"""Whether the global data-tiling path leaves IREE's transpose propagation on (`KEEP_TRANSPOSES_FLAG`;
`--variant "xdsl_exir.targets.iree._PROPAGATE_TRANSPOSES=1"` compares the two)."""
_CONVOLUTION = re.compile(rf"\blinalg\.conv_\d|[{{ ]{re.escape(IM2COL_MARK)}[,}}]")
"""A named convolution in the lowered text, or the marked matrix product of a dense one's im2col
columns (`conv_products.IM2COL_MARK`; the depthwise and grouped forms are generics)."""
DATA_TILING_HINT = "iree.opt.data_tiling"
"""IREE's mark of an op to data-tile on the dispatch-creation path: in a program where some op
carries it, IREE 3.13 data-tiles those ops alone (its `iree-dispatch-creation-annotate-data-tiling-hints`
pass, which marks every matrix product, leaves such a program as it is)."""
_UNTILED_COLUMNS = 16
"""The most result columns of a convolution's product (its output positions) at which IREE ran it
faster untiled than data-tiled (`data_tiling_hints`; 0 hints nothing)."""
_UNTILED_DEPTH = 2048
"""The least reduction size (channels x taps) of such a product left untiled (`data_tiling_hints`):
below it the weight is small and the tiles win or are even, and an untiled product recomputes an
elementwise producer IREE fuses into it once per row tile (EfficientNet-B0's 1x1 `320x4x1152`
after its squeeze-excitation gate, a sigmoid per element: 86 us tiled, 487 untiled)."""
_UNTILED_FILTERS = 32
"""The most filters (rows) of a convolution's product of a reduction of at least
`_UNTILED_FILTERS_DEPTH` left untiled whatever its positions (`data_tiling_hints`; 0: none for
this reason): data-tiled, its columns (reduction x positions, larger than its weight) are packed
on every call, a dispatch of its own that costs a third to a half of the product (DenseNet-121's
3x3 products, 32 filters, 1152 = 128 channels x 9 taps deep: `32x256x1152` 155 us with 66-76 of
packing)."""
_UNTILED_FILTERS_DEPTH = 1024
"""The least reduction of the few-filter products left untiled (`_UNTILED_FILTERS`): the stems of
few filters (27 deep: RegNet-X's, EfficientNet-B0's, MobileNetV3's and ShuffleNetV2's, 16-32
filters) stay tiled, since once one product is left untiled every named convolution of the
program runs untiled too (IREE's im2col drops the hint), and those models' 1x1 convolutions lost
by it (one thread, CPU time, interleaved, load 4-6; ms, the rule at any depth / none): RegNet-X
5.83 / 5.10, EfficientNet-B0 5.45 / 4.94, MobileNetV3-small 1.55 / 1.17."""
_PRODUCT = re.compile(r"linalg\.matmul(?: \{([^}\n]*)\})? ins\(%[\w.]+, %[\w.]+ : tensor<(\d+)x(\d+)x\w+>, tensor<\d+x(\d+)x\w+>\)")
"""A static `linalg.matmul` in the lowered text: its attributes, rows, reduction size and columns
(the weight of a linear layer is reduction size x columns); a product of dynamic shape is not
matched."""


def data_tiling_hints(text: str) -> str | None:
    """
    `text` for the dispatch-creation data-tiling path (programs with a
    convolution) with IREE's hint (`DATA_TILING_HINT`) on every static
    `linalg.matmul` but the convolutions' products (`conv_products.IM2COL_MARK`)
    of at most `_UNTILED_COLUMNS` output positions, more filters than
    positions and a reduction of at least `_UNTILED_DEPTH`, and those of at
    most `_UNTILED_FILTERS` filters and a reduction of at least
    `_UNTILED_FILTERS_DEPTH` (DenseNet-121's 3x3 products), so that these run
    untiled; `text` as it is when it has none, and None when it has no other
    product (a program IREE would data-tile whole for want of a hint: compile
    it without data tiling).

    Data-tiled, IREE 3.13 computes such a product (ResNet-18's last stage,
    `512x4x4608`: 512 filters, 4 positions, 4608 = 512 channels x 9 taps) as
    `mmt4d` on 4x16 tiles, one 16-filter tile of the packed weight streamed at
    a time with four accumulators; untiled, on 8x4 tiles reading eight weight
    rows at once. Per dispatch in the whole model (`iree-benchmark-module
    --device_profiling_mode=host-execution`, `iree-profile dispatch`, least
    time, one thread, the Xeon, load 3-5; us, tiled / untiled / onnxruntime's
    node): `512x4x4608` 885-924 / 570-615 / 410-415, `512x4x2304` 446 / 296-325
    / 229, `256x16x2304` 286-325 / 157-188 / 184-188, DenseNet-121's
    `512x16x1024` 277 / 165-172 / 170 and `32x16x1152` 19 / 12-13 (left tiled:
    shorter than `_UNTILED_DEPTH`); wider
    products gain from the tiles (the classifier `1x1000x512` 131-135 / 234-256,
    the stem `64x1024x147` 128-135 / 154-156, `64x256x576` 141-147 / 152-156),
    and so do narrow ones of a short reduction, whose weight is small
    (EfficientNet-B0's 1x1 `1152x4x192` 49-53 / 80-85, `1280x4x320` 88-98 /
    136-179, ResNet's `512x4x256` 49-53 / 60-62), and those whose input is an
    elementwise chain IREE fuses into the untiled product (`_UNTILED_DEPTH`).
    Whole ResNet-18 (`benchmarks/compile.py`, one thread, CPU time,
    interleaved, load 4-6; ms): 9.52 -> 7.13 and 8.14 -> 6.18 (onnxruntime
    5.94 and 5.20); the other CNNs there have no such product. The hint also keeps the weights of the untiled products
    where they are read by reference, not packed into a copy at load time.
    What the hint cannot reach stays untiled in such a program: named
    convolutions (IREE's own im2col drops the attribute) and contraction
    generics. The untiled products of at most `_TRANSPOSED_COLUMNS` positions
    are computed transposed (`_transposed_product`).
    """
    narrow = hinted = False

    def hint(m: re.Match[str]) -> str:
        nonlocal narrow, hinted
        attrs, rows, depth, cols = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        conv = attrs is not None and IM2COL_MARK in attrs.split(", ")
        if conv and ((rows > cols and cols <= _UNTILED_COLUMNS and depth >= _UNTILED_DEPTH) or (rows <= _UNTILED_FILTERS and depth >= _UNTILED_FILTERS_DEPTH)):
            narrow = True
            return m.group(0)
        hinted = True
        marks = f"{{{attrs}, {DATA_TILING_HINT}}}" if attrs else f"{{{DATA_TILING_HINT}}}"
        return f"linalg.matmul {marks} ins(" + m.group(0).split(" ins(", 1)[1]

    out = _PRODUCT.sub(hint, text)
    if not narrow:
        return text
    return _NARROW_PRODUCT.sub(_transposed_product, out) if hinted else None


_TRANSPOSED_COLUMNS = 4
"""The most output positions of an untiled convolution's product (`data_tiling_hints`) computed
transposed (`_transposed_product`; 0: none). Per dispatch in ResNet-18 (`iree-benchmark-module
--device_profiling_mode=host-execution`, least time, one thread, the AMD EPYC; us, as it was /
transposed): `512x4x4608` 475-499 / 416-423, `512x4x2304` 260 / 229 (its weight read at 19.4 ->
22.5 GB/s; numpy sums 48 MB at 26 GB/s on this core). The whole call (C harness, CPU time, three
interleaved pairs, ms): 4.98 / 4.74, 5.22 / 4.61, 5.09 / 4.48; transposed at 16 positions too
(`256x16x2304` x3) 5.08, 4.93, 4.67: so those stay as they are. `benchmarks/compile.py`, one thread,
CPU time, 15 interleaved samples, two runs (`--variant "xdsl_exir.targets.iree._TRANSPOSED_COLUMNS=0"`,
ms, transposed / as it was): ResNet-18 4.34 / 4.76 and 4.44 / 4.69 (onnxruntime 5.69, 5.73),
DenseNet-121 (its block 4's `32x4x1152` x16) 7.31 / 7.74 and 6.53 / 6.51."""
_NARROW_PRODUCT = re.compile(
    rf"^(\s*)(%[\w.]+) = linalg\.matmul \{{{re.escape(IM2COL_MARK)}\}} ins\((%[\w.]+), (%[\w.]+) : "
    r"tensor<(\d+)x(\d+)x(f\w+)>, tensor<\d+x(\d+)x\w+>\) outs\((%[\w.]+) : [^)\n]*\) -> [^\n]*$",
    re.M,
)
"""A convolution's product the hint left untiled, as a whole line: its indent, result, weight,
columns, rows, reduction size, float element type, columns' width and accumulator."""
TRANSPOSED_PRODUCT = f"attrs = {{{IM2COL_MARK}}}"
"""How `_transposed_product`'s contraction is marked (still read as a convolution, `_CONVOLUTION`);
`compile_text` compiles a program with one with IREE's transpose propagation off."""


def _transposed_product(m: re.Match[str]) -> str:
    """
    A narrow untiled product `W [F, K] x columns [K, P]` (`_TRANSPOSED_COLUMNS`) as
    `columns^T [P, K] x W^T`, a contraction generic over `(p, f, k)` whose operands both run
    along the reduction, between transposes of the columns, the accumulator and the result.
    IREE 3.13 then streams the weight faster (`_TRANSPOSED_COLUMNS`), provided its transpose
    propagation is off (`KEEP_TRANSPOSES_FLAG`): on, it folds the result's transpose into the
    contraction's output map, which then ran 1.6-5.9x slower than the plain product. The
    contraction is no `linalg.matmul`, so IREE's data tiling leaves it alone too.
    """
    ind, r, w, c, f, k, el, p, acc = m.groups()
    if int(p) > _TRANSPOSED_COLUMNS or int(f) <= int(p):
        return m.group(0)
    n = "%exir_t" + r[1:].replace(".", "_")
    fk, kp, fp, pf, pk = (f"tensor<{a}x{b}x{el}>" for a, b in ((f, k), (k, p), (f, p), (p, f), (p, k)))
    maps = "affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>"
    return "\n".join(
        ind + line
        for line in (
            f"{n}_c0 = tensor.empty() : {pk}",
            f"{n}_c = linalg.transpose ins({c} : {kp}) outs({n}_c0 : {pk}) permutation = [1, 0]",
            f"{n}_a0 = tensor.empty() : {pf}",
            f"{n}_a = linalg.transpose ins({acc} : {fp}) outs({n}_a0 : {pf}) permutation = [1, 0]",
            f'{n}_t = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", "parallel", "reduction"]}} '
            f"ins({n}_c, {w} : {pk}, {fk}) outs({n}_a : {pf}) {TRANSPOSED_PRODUCT} {{",
            f"^bb0({n}_x: {el}, {n}_y: {el}, {n}_z: {el}):",
            f"  {n}_m = arith.mulf {n}_x, {n}_y : {el}",
            f"  {n}_s = arith.addf {n}_z, {n}_m : {el}",
            f"  linalg.yield {n}_s : {el}",
            f"}} -> {pf}",
            f"{n}_r0 = tensor.empty() : {fp}",
            f"{r} = linalg.transpose ins({n}_t : {pf}) outs({n}_r0 : {fp}) permutation = [1, 0]",
        )
    )


_DATA_TILING_PASSES = 12
"""The passes over a product's weight (`weight_passes`) from which its packing on each call paid."""


def _import_iree() -> tuple[Any, Any]:
    try:
        import iree.compiler as compiler
        import iree.runtime as runtime
    except ImportError:
        raise IreeError(INSTALL_HINT) from None
    return compiler, runtime


def iree_available() -> bool:
    try:
        _import_iree()
    except IreeError:
        return False
    return True


# -- lowering -------------------------------------------------------------------


def lowering_context() -> Context:
    ctx = Context()
    for name, factory in get_all_dialects().items():
        ctx.register_dialect(name, factory)
    for name, factory in multiverse().all_dialects.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


def to_core(module: ModuleOp) -> ModuleOp:
    """A copy of the module in core ATen IR (`to-core-aten`), the lowering's input."""
    core = module.clone()
    ToCoreAtenPass().apply(lowering_context(), core)
    return core


def lower_to_upstream(module: ModuleOp, parameters_from_bytes: int = -1) -> ModuleOp:
    """
    A copy of a core-ATen module lowered by `convert-exir-to-linalg`; weights of at
    least `parameters_from_bytes` bytes become named parameters (-1: none).
    """
    lowered = module.clone()
    ConvertExirToLinalgPass(parameters_from_bytes=parameters_from_bytes).apply(lowering_context(), lowered)
    return lowered


def named_parameters(lowered: ModuleOp, program: ProgramOp) -> dict[str, memoryview | bytes]:
    """
    The data of each named parameter of `lowered`, from the state of `program`
    it was lowered from: the blob's own memory (a mapped archive's pages), not a copy.
    """
    states = program.state()
    out: dict[str, memoryview | bytes] = {}
    for key in parameter_keys(lowered):
        state = states.get(key)
        if state is None or not is_blob(state.value):
            raise IreeError(f"the lowered module reads parameter '{key}', which the program holds no data for")
        try:
            out[key] = blob_data(cast(Any, state.value))
        except TensorDataError as e:
            raise IreeError(f"state @{key}: {e}") from None
    return out


def print_mlir(module: ModuleOp) -> str:
    """MLIR text with the weights' `dialect_resources` section, as `iree-compile` reads it."""
    out = io.StringIO()
    print_module(module, out, [Builtin])
    return out.getvalue()


# -- compiling, with the cache --------------------------------------------------


def iree_compiler_version() -> str:
    """The version of the installed IREE compiler (what a saved artifact's runtime must match)."""
    compiler, _ = _import_iree()
    return _compiler_version(compiler)


def _compiler_version(compiler: Any) -> str:
    try:
        return version("iree-base-compiler")
    except Exception:
        return str(getattr(compiler, "__version__", "unknown"))


_NOISE = ("Error invoking IREE compiler tool", "Error code:", "Diagnostics:", "Invoked with:", "Please report issues")


def first_error(message: str) -> str:
    """
    The line of an iree-compile failure a person needs: its first `error:`
    diagnostic; for a crash, the signal and the first IREE frame of the
    backtrace (the pass that crashed), with the last diagnostic before it.
    `<stdin>:L:C` locations refer to the lowered module's text.
    """
    lines = [ln.strip() for ln in message.splitlines() if ln.strip()]
    for ln in lines:
        if "error:" in ln:
            return ln
    code = next((ln for ln in lines if ln.startswith("Error code:")), None)
    if code is not None and (m := re.search(r"-?\d+", code)) and int(m.group()) < 0:
        frame = next((ln for ln in lines if ln.startswith("#") and "iree_compiler" in ln), None)
        where = ""
        if frame is not None and (f := re.search(r"(mlir::iree_compiler::[\w:]+)", frame)):
            where = f" in {f.group(1)}"
        last = [p for ln in lines if (p := re.match(r"<stdin>:(\d+):\d+: ", ln))]
        tail = f", after a diagnostic at line {last[-1].group(1)} of the lowered module" if last else ""
        return f"iree-compile crashed (signal {-int(m.group())}){where}{tail}"
    rest = [ln for ln in lines if not ln.startswith(_NOISE) and not ln.startswith("#")]
    return rest[0] if rest else (lines[0] if lines else "iree-compile failed")


def hinted_text(text: str, flags: list[str]) -> tuple[str, list[str]]:
    """`text` and its compile `flags` with `data_tiling_hints` applied where `flags` data-tile on
    the dispatch-creation path: no data tiling where there is nothing to hint, and IREE's
    transpose propagation off where a product was transposed (`_transposed_product`)."""
    if DATA_TILING_FLAG not in flags:
        return text, flags
    hinted = data_tiling_hints(text)
    if hinted is None:
        return text, [f for f in flags if f != DATA_TILING_FLAG]
    if TRANSPOSED_PRODUCT in hinted and KEEP_TRANSPOSES_FLAG not in flags:
        flags = [*flags, KEEP_TRANSPOSES_FLAG]
    return hinted, flags


def compile_text(text: str, options: IreeOptions = IreeOptions()) -> CompileResult:
    """
    Compile MLIR text to an IREE VM flatbuffer, through the on-disk cache.

    When data tiling was turned on by the heuristic and the compile fails, the
    module is compiled again without it (IREE 3.13 refuses some models only
    with it on), and a line on stderr says so; the module is cached under the
    key of the options asked for, so the next run does not fail again.
    """
    compiler, _ = _import_iree()
    text, flags = hinted_text(text, options.compile_flags(text))
    key = cache_key(text, flags, _compiler_version(compiler))
    cache = pathlib.Path(options.cache_dir) if options.cache_dir else default_cache_dir()
    path = cache / f"{key}.vmfb"
    if options.use_cache and path.is_file() and (cached := read_cached(path)) is not None:
        return CompileResult(cached, True, key)
    try:
        vmfb = _compile(compiler, text, flags)
    except IreeError as e:
        if not {DATA_TILING_FLAG, GLOBAL_DATA_TILING_FLAG} & set(flags) or options.data_tiling is not None:
            raise
        print(
            f"note: iree-compile failed with data tiling on ({e.message.removeprefix(_REFUSED)}); "
            "compiling again without it",
            file=sys.stderr,
        )
        vmfb = _compile(compiler, text, options.compile_flags(text, data_tiling=False))
    if options.use_cache:
        write_cached(cache, path, vmfb)
    return CompileResult(vmfb, False, key)


_REFUSED = "iree-compile refused the lowered module: "


def _compile(compiler: Any, text: str, flags: Sequence[str]) -> bytes:
    try:
        return cast(bytes, compiler.compile_str(text, extra_args=list(flags)))
    except Exception as e:
        raise IreeError(_REFUSED + first_error(str(e))) from None


def cache_path(key: str, options: IreeOptions) -> pathlib.Path:
    """Where the module of `key` is cached."""
    cache = pathlib.Path(options.cache_dir) if options.cache_dir else default_cache_dir()
    return cache / f"{key}.vmfb"


def check_device(options: IreeOptions) -> None:
    """
    Refuse, before compiling, a device whose runtime driver cannot start here
    (no CUDA library, no GPU): IREE's own message ("Could not create device.
    Exception for last tried follows.") names neither.
    """
    if options.device == "cpu":
        return
    _, runtime = _import_iree()
    name = RUNTIME_DRIVERS.get(options.device)
    if name is None:
        options.compile_flags()  # names the known devices
        return
    try:
        driver = runtime.get_driver(name)
        driver.create_default_device()
    except Exception as e:
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        reason = re.sub(r"^.*?(UNAVAILABLE|NOT_FOUND|INTERNAL|FAILED_PRECONDITION); ", "", reason)
        raise IreeError(
            f"IREE device '{options.device}' is unavailable on this machine (IREE's '{name}' driver: {reason}); "
            "run where its driver and a device are installed, or use --iree-device cpu (the default)"
        ) from None


# -- running --------------------------------------------------------------------


@dataclass
class _Slot:
    """A placeholder the compiled function takes, and how its array is passed."""

    placeholder: int
    dtype: DType | None


def load_forward(
    vmfb: bytes,
    options: IreeOptions,
    parameters: dict[str, Any] | None = None,
    function: str = "forward",
    flops: int | None = None,
) -> tuple[Any, Any]:
    """
    The IREE context holding a compiled module, and its `forward` function (or the
    function named `function`, in a module compiled from several programs).
    `parameters` (key -> buffer) are the named parameters the module reads:
    they are added to a `ParameterIndex` as they are (IREE imports a buffer
    aligned to 64 bytes, as a `.pt2`'s storages are, and copies any other
    once) and served by an `io_parameters` module (`runtime.open_module`, which
    a saved artifact's loader uses too). `flops`, a call's count when known,
    lets a small program run on the calling thread (`runtime.CALLER_BELOW_FLOPS`).
    """
    _, runtime = _import_iree()
    try:
        index = None
        if parameters:
            index = runtime.ParameterIndex()
            for key, data in parameters.items():
                index.add_buffer(key, data)
        threads = options.threads if options.device == "cpu" else None
        return open_module(vmfb, RUNTIME_DRIVERS[options.device], threads, index, function, flops)
    except Exception as e:
        raise IreeError(f"IREE could not load the compiled module: {e}") from None


def _check_result(op: Operation, sizes: list[int], itemsize: int) -> None:
    """`check_tensor_bytes` for an op's result, located only when it fails (most never do)."""
    if min(sizes, default=0) < 0 or math.prod(sizes) * itemsize > tensor_bytes_limit():
        check_tensor_bytes(f"{locate(op)}: its result", sizes, itemsize)


class _SizeCheck:
    """
    `--max-tensor-bytes` for the tensors a program creates, which IREE would
    otherwise allocate whatever their size (`zeros(100000, 100000)` asks for
    40 GB): every op result of a static type is checked before compiling, one
    of symbolic sizes before each call whose input sizes decide it.
    """

    def __init__(self, program: ProgramOp) -> None:
        entry = program.entry
        assert entry is not None
        self._inputs = list(entry.body.block.args)
        self.symbolic: list[tuple[Operation, list[sympy.Expr], int]] = []
        self._checked: set[tuple[tuple[sympy.Symbol, int], ...]] = set()
        for op in entry.walk():
            for r in op.results:
                t = r.type
                if not isinstance(t, TensorType):
                    continue
                try:
                    itemsize = storage_dtype(t.element_dtype).itemsize
                except TensorDataError:
                    continue  # a dtype the lowering refuses anyway
                if t.is_static():
                    _check_result(op, [int(x) for x in t.sizes], itemsize)
                else:
                    self.symbolic.append((op, [sympy.sympify(x) for x in t.sizes], itemsize))

    def check(self, args: Sequence[Any]) -> None:
        """Check the symbolic sizes the placeholders' values decide (each set of values once)."""
        if not self.symbolic:
            return
        env: dict[sympy.Symbol, int] = {}
        for ph, value in zip(self._inputs, args):
            t = ph.type
            if isinstance(t, TensorType) and isinstance(value, np.ndarray):
                for size, actual in zip(t.sizes, value.shape):
                    if isinstance(size, sympy.Symbol):
                        env[size] = int(actual)
            elif isinstance(t, SymIntType) and isinstance(t.value, sympy.Symbol) and isinstance(value, int | np.integer):
                env[t.value] = int(value)
        key = tuple(sorted(env.items(), key=lambda kv: str(kv[0])))
        if key in self._checked:
            return
        subs = {k: sympy.Integer(v) for k, v in env.items()}
        for op, sizes, itemsize in self.symbolic:
            values = [x.xreplace(subs) for x in sizes]
            if all(isinstance(v, sympy.Integer) for v in values):
                _check_result(op, [int(cast(sympy.Integer, v)) for v in values], itemsize)
        self._checked.add(key)


class IreeExecutor:
    """
    Runs a lowered program in IREE with `ProgramRunner`'s executor contract: it
    takes every placeholder's value and returns every graph output. `function`
    names the program's function in `vmfb` (`forward`, as the lowering names it;
    tests compile several programs to one module, renamed, to pay IREE's start once).
    """

    def __init__(
        self,
        program: ProgramOp,
        vmfb: bytes,
        options: IreeOptions = IreeOptions(),
        sizes: _SizeCheck | None = None,
        parameters: dict[str, Any] | None = None,
        function: str = "forward",
    ) -> None:
        _, runtime = _import_iree()
        entry = program.entry
        assert entry is not None
        types = entry.function_type.inputs.data
        self._slots = [
            _Slot(i, t.element_dtype if isinstance(t, TensorType) else None)
            for i in function_arguments(program)
            for t in (types[i],)
        ]
        # bfloat16 and float16 arrays cross IREE's runtime as they are (ml_dtypes' bfloat16 included).
        self._out_types: list[Attribute] = list(entry.function_type.outputs.data)
        self._sizes = sizes if sizes is not None else _SizeCheck(program)
        self._parameters = parameters  # the weights IREE reads stay alive as long as the module
        # a call's flops decide between the calling thread and the workers, so they are
        # counted only where there is that choice
        workers = cpu_workers(options.threads) if options.device == "cpu" else 0
        flops = program_flops(program) if workers > 1 else None
        self._ctx, self._fn = load_forward(vmfb, options, parameters, function, flops)
        self._runtime = runtime
        self._device = self._ctx.config.device
        self._device_name = options.device
        self._host_device = options.device == "cpu"
        # The pieces of a call taken apart once (`invoke`): iree.runtime's FunctionInvoker
        # re-derives them at every call, 10-15 us of Python per call of a small model.
        self._vm_context = self._ctx.vm_context
        self._vm_function = self._fn.vm_function
        self._list = runtime.VmVariantList
        self._view_type = runtime.HalBufferView
        self._order = [slot.placeholder for slot in self._slots]
        """Per function argument, the placeholder it takes."""
        self._in_order = self._order == list(range(len(self._order)))
        self._result_count = len(self._out_types)

    @property
    def static_sizes(self) -> bool:
        """Whether no tensor the program creates has a size its inputs decide (nothing to check per call)."""
        return not self._sizes.symbolic

    def __call__(self, *args: Any) -> list[Any]:
        self._sizes.check(args)
        return self.call_checked(args)

    def import_dlpack(self, capsule: Any) -> Any:
        """
        A tensor's DLPack capsule (`torch.utils.dlpack.to_dlpack`, a numpy array's
        `__dlpack__()`) as an IREE buffer view of the tensor's own memory, not
        copied; the view holds the tensor until IREE lets it go. IREE takes a
        C-contiguous tensor aligned to 64 bytes on the CPU and refuses any other
        (IreeError): the caller then hands it an aligned copy. Only a CPU device
        reads host memory.
        """
        if not self._host_device:
            raise IreeError(f"IREE device '{self._device_name}' does not read host memory in place")
        try:
            return self._device.from_dlpack_capsule(capsule)
        except Exception as e:
            raise IreeError(f"IREE cannot read the tensor in place: {e}") from None

    @property
    def views_callable(self) -> bool:
        """Whether `call_views` applies: every result is a tensor (no scalar to read back)."""
        return self._host_device and all(isinstance(t, TensorType) for t in self._out_types)

    @property
    def arguments(self) -> list[int]:
        """Per argument of the compiled function, in order, the placeholder it takes."""
        return list(self._order)

    def invoke(self, views: Sequence[Any]) -> Any:
        """
        Run on one IREE buffer view per function argument (`arguments`' order), each
        of the argument's dtype and static sizes (IREE's entry checks them again);
        return IREE's result list.
        """
        arguments = self._list(len(views))
        for view in views:
            arguments.push_ref(view)
        results = self._list(self._result_count)
        try:
            self._vm_context.invoke(self._vm_function, arguments, results)
        except Exception as e:
            raise IreeError(f"the compiled program failed: {e}") from None
        return results

    def check_results(self, results: Any) -> None:
        """That `invoke` gave as many results as the signature says (asked once per program by its callers)."""
        if len(results) != self._result_count:
            raise IreeError(f"the compiled program returned {len(results)} values, its signature {self._result_count}")

    def call_views(self, views: Sequence[Any]) -> list[Any]:
        """
        Run on one `import_dlpack` view per placeholder, of the placeholder's dtype
        and static sizes (the caller checked them; IREE checks them again), and
        return each result as a DLPack capsule of IREE's own buffer, which the
        consumer (`torch.from_dlpack`, `np.from_dlpack`) holds: no copy either way.
        The function writes none of its arguments, but the compiler may return one
        of them unchanged (an identity folded away): a result can then share an
        argument's memory, which a caller handing results out as new tensors must check.
        """
        results = self.invoke(views if self._in_order else [views[i] for i in self._order])
        self.check_results(results)
        get, view_type, capsule = results.get_as_object, self._view_type, self._device.create_dlpack_capsule
        return [capsule(get(i, view_type), 1, 0) for i in range(len(results))]

    def direct_call(self, arguments: Sequence[Spec], results: Sequence[Spec]) -> DirectCall | None:
        """
        The function's call prepared for arrays of these dtypes and sizes, one per
        argument in `arguments`' order, and tensor results of these (`runtime.DirectCall`);
        None where it does not apply (a device other than the CPU, a dtype IREE has no element type for).
        """
        if not self.views_callable:
            return None
        return DirectCall.prepare(self._runtime, self._ctx, self._fn, arguments, results, IreeError)

    def call_checked(self, args: Sequence[Any]) -> list[Any]:
        """Run on placeholders' values whose sizes were checked (`_SizeCheck`, or static types)."""
        call_args: list[Any] = []
        for slot in self._slots:
            value = args[slot.placeholder]
            if type(value) is np.ndarray:
                # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
                call_args.append(value if value.flags.c_contiguous else value.copy(order="C"))
            else:
                call_args.append(_scalar_arg(value))
        try:
            results = self._fn(*call_args)
        except Exception as e:
            raise IreeError(f"the compiled program failed: {e}") from None
        if not isinstance(results, tuple | list):
            results = (results,)
        out: list[Any] = []
        for r, t in zip(results, self._out_types):
            # `to_host` maps the buffer of a host-visible device (the CPU's): a writable view, no copy,
            # which keeps the mapping alive as long as the array.
            host = r.to_host() if hasattr(r, "to_host") else r
            if type(host) is not np.ndarray:
                host = np.asarray(host)
            if isinstance(t, TensorType):
                if t.element_dtype is DType.uint8 and host.dtype == np.int8:
                    host = host.view(np.uint8)
                out.append(host)
            else:
                out.append(host.item())  # a SymInt/float/bool output, as the interpreter gives it
        return out


def _scalar_arg(value: Any) -> Any:
    """A non-array placeholder value as IREE takes it: a 0-d tensor."""
    if isinstance(value, np.ndarray):
        return value if value.flags.c_contiguous else value.copy(order="C")
    if isinstance(value, bool | np.bool_):
        return np.asarray(bool(value))
    if isinstance(value, int | np.integer):
        return np.asarray(int(value), dtype=np.int64)
    return np.asarray(float(value), dtype=np.float64)


def _exactly(value: Any, dtype: np.dtype[Any], shape: tuple[int, ...]) -> bool:
    """Whether a value is a numpy array of exactly this dtype and these sizes (what a prepared call takes as it is)."""
    return type(value) is np.ndarray and value.shape == shape and (value.dtype is dtype or value.dtype == dtype)


@dataclass
class _FastPlan:
    """
    The checks of `ProgramRunner.run` compiled once for a program whose inputs and
    outputs all have static types and which mutates nothing: a call whose arrays
    have exactly the expected dtypes and shapes goes straight to IREE; any other
    call takes `ProgramRunner.run`, which converts what it may and refuses, located,
    what it must (so no check is lost, only its cost for the common case).

    Where every result is a tensor on the CPU, the call is `direct`
    (`runtime.DirectCall`: IREE's own function call with the work per argument and
    result decided here, results as numpy arrays over IREE's buffers); otherwise,
    or where IREE's results are found unlike the signature at the first call, it
    is `IreeExecutor.call_checked` after the same exact-type test (`__call__`).
    """

    executor: IreeExecutor
    runner: ProgramRunner
    placeholders: list[tuple[int, str]]
    """Per placeholder: (user input index, "") or (-1, its name in the state, read at each call)."""
    inputs: list[tuple[np.dtype[Any], tuple[int, ...]]]
    outputs: list[tuple[np.dtype[Any], tuple[int, ...]] | None]
    direct: DirectCall | None = None
    """The direct call, where it applies (every result a tensor, the user inputs the function's arguments in order)."""

    @staticmethod
    def build(runner: ProgramRunner) -> _FastPlan | None:
        executor = runner.graph
        program = runner.program
        entry = program.entry
        if not isinstance(executor, IreeExecutor) or entry is None or not executor.static_sizes:
            return None
        placeholders: list[tuple[int, str]] = []
        inputs: list[tuple[np.dtype[Any], tuple[int, ...]]] = []
        for spec, t in zip(program.inputs.data, entry.function_type.inputs.data):
            if spec.input_kind is InputKind.user_input:
                if not isinstance(t, TensorType) or not t.is_static() or is_low_precision(numpy_dtype(t.element_dtype)):
                    return None
                placeholders.append((len(inputs), ""))
                inputs.append((np.dtype(numpy_dtype(t.element_dtype)), tuple(int(x) for x in t.sizes)))
            elif spec.input_kind is InputKind.token or spec.target_name not in runner.state:
                return None
            else:
                placeholders.append((-1, spec.target_name))
        outputs: list[tuple[np.dtype[Any], tuple[int, ...]] | None] = []
        for spec, t in zip(program.outputs.data, entry.function_type.outputs.data):
            if spec.output_kind not in (OutputKind.user_output, OutputKind.loss_output):
                return None
            if isinstance(t, TensorType):
                if not t.is_static():
                    return None
                outputs.append((np.dtype(numpy_dtype(t.element_dtype)), tuple(int(x) for x in t.sizes)))
            else:
                outputs.append(None)
        if program.ranges() or len(outputs) != len(entry.function_type.outputs.data):
            return None
        plan = _FastPlan(executor, runner, placeholders, inputs, outputs)
        results = [o for o in outputs if o is not None]
        # (a program that mutates nothing takes its user inputs, in order; a scalar result is read back by call_checked)
        if len(results) == len(outputs) and [placeholders[p][0] for p in executor.arguments] == list(range(len(inputs))):
            plan.direct = executor.direct_call(inputs, results)
        return plan

    def __call__(self, user_inputs: Sequence[Any]) -> list[Any] | None:
        """The outputs through `call_checked`, or None where the call needs `ProgramRunner.run`'s conversions or refusals."""
        if len(user_inputs) != len(self.inputs):
            return None
        for value, (dtype, shape) in zip(user_inputs, self.inputs):
            if not _exactly(value, dtype, shape):
                return None
        state = self.runner.state
        args = [user_inputs[i] if i >= 0 else state[name] for i, name in self.placeholders]
        results = self.executor.call_checked(args)
        for value, want in zip(results, self.outputs):
            if want is not None and (value.dtype != want[0] or value.shape != want[1]):
                return None  # ProgramRunner.run reruns it and names the disagreeing output
        return results


@dataclass
class CompiledProgram:
    """A program compiled by IREE: `f(*user_inputs) -> [user outputs]` (flattened)."""

    runner: ProgramRunner
    text: str
    compile: CompileResult
    options: IreeOptions = field(default_factory=IreeOptions)
    parameters: dict[str, Any] = field(default_factory=lambda: {})
    """The named parameters the module reads (key -> the program's own buffer)."""

    def __post_init__(self) -> None:
        self._plan = _FastPlan.build(self.runner)
        self._direct = self._plan.direct if self._plan is not None else None

    @property
    def fast_plan(self) -> _FastPlan | None:
        """The checks prepared at load time (static user inputs, nothing mutated), or None."""
        return self._plan

    def __call__(self, *user_inputs: Any) -> list[Any]:
        direct = self._direct
        if direct is not None and (results := direct.call(user_inputs)) is not None:
            return results
        plan = self._plan
        if plan is not None and (direct is None or direct.refused) and (results := plan(user_inputs)) is not None:
            return results
        return self.runner.run(user_inputs)

    @property
    def user_input_names(self) -> list[str]:
        return self.runner.user_input_names


def _load(source: str | os.PathLike[str] | ModuleOp | ProgramOp) -> ModuleOp:
    if isinstance(source, ModuleOp):
        return source
    if isinstance(source, ProgramOp):
        module = ModuleOp([])
        module.body.block.add_op(source.clone())
        return module
    path = os.fspath(source)
    try:
        with open(path, "rb") as f:
            if f.read(4) == b"PK\x03\x04":
                # by path: the archive is mapped, its weights are not read (IREE is handed the pages)
                return load_pt2(path)
        data = pathlib.Path(path).read_bytes()
    except FileNotFoundError:
        raise IreeError(f"{path}: no such file") from None
    except OSError as e:
        raise IreeError(f"{path}: cannot read it ({e.strerror or e})") from None
    try:
        return ResourceParser(lowering_context(), data.decode(errors="replace"), path).parse_module()
    except ParseError as e:
        raise IreeError(
            f"{e.span.get_location()}: {e.msg.strip() or 'syntax error'} (compile_program reads Export IR text "
            "or a torch.export archive; lower a TorchScript dump to Export IR first with exir-opt -p torchscript-to-exir)"
        ) from None


@dataclass
class LoweredForIree:
    """A program in core ATen, its lowered text (weights by reference) and the weights that text reads."""

    program: ProgramOp
    text: str
    parameters: dict[str, Any]
    sizes: _SizeCheck


def lower_for_iree(source: str | os.PathLike[str] | ModuleOp | ProgramOp, options: IreeOptions) -> LoweredForIree:
    """`to-core-aten`, then `convert-exir-to-linalg` with the options' weights by reference, printed."""
    module = to_core(_load(source))
    program = find_program(module)
    sizes = _SizeCheck(program)
    lowered = lower_to_upstream(module, options.parameters_from_bytes)
    parameters = named_parameters(lowered, program)
    return LoweredForIree(program, print_mlir(lowered), parameters, sizes)


def compile_program(
    source: str | os.PathLike[str] | ModuleOp | ProgramOp,
    options: IreeOptions | None = None,
    **option_fields: Any,
) -> CompiledProgram:
    """
    Compile a program (a `.pt2` or `.mlir` path, a module, an `exir.program`) with
    IREE and return a callable on numpy arrays. Options as `IreeOptions` fields:
    `compile_program("m.pt2", threads=1)`.
    """
    options = options or IreeOptions(**option_fields)
    _import_iree()
    check_device(options)
    lowered = lower_for_iree(source, options)
    program, text, parameters, sizes = lowered.program, lowered.text, lowered.parameters, lowered.sizes
    result = compile_text(text, options)
    try:
        executor = IreeExecutor(program, result.vmfb, options, sizes, parameters)
    except IreeError:
        if not result.from_cache:
            raise
        # A cached module IREE cannot load (written by another build of IREE under the
        # same version string, say): compile it again rather than fail on it forever.
        drop_cached(cache_path(result.key, options))
        result = compile_text(text, options)
        executor = IreeExecutor(program, result.vmfb, options, sizes, parameters)
    return CompiledProgram(ProgramRunner(program, executor=executor), text, result, options, parameters)


def compile_lowered(module: ModuleOp, options: IreeOptions | None = None) -> LoweredProgram:
    """
    A module already in upstream dialects (`convert-exir-to-linalg`'s output,
    `func.func @forward` with `exir.kind`/`exir.name` attributes) compiled by
    IREE as it is, with exir-run's contract (`LoweredProgram`). Tensors of
    static types the module creates are checked against `--max-tensor-bytes`
    before compiling.
    """
    options = options or IreeOptions()
    _import_iree()
    check_device(options)
    program = LoweredProgram(module)  # checks the calling convention before compiling
    if keys := parameter_keys(module):
        raise IreeError(parameters_refused(keys, "IREE"))
    for op in program.function.walk():
        for r in op.results:
            t = r.type
            if isinstance(t, BuiltinTensorType) and all(d >= 0 for d in t.get_shape()):
                try:
                    width = type_info(t).width
                except UnsupportedTypeError:
                    continue  # iree-compile judges what the numpy model cannot hold
                _check_result(op, list(t.get_shape()), max(1, width // 8))
    text = print_mlir(module)
    result = compile_text(text, options)
    try:
        ctx, fn = load_forward(result.vmfb, options)
    except IreeError:
        if not result.from_cache:
            raise
        drop_cached(cache_path(result.key, options))
        result = compile_text(text, options)
        ctx, fn = load_forward(result.vmfb, options)

    def execute(args: Sequence[Any], _ctx: Any = ctx) -> list[Any]:  # the function lives as long as its context
        try:
            results = fn(*args)
        except Exception as e:
            raise IreeError(f"the compiled program failed: {e}") from None
        return list(results) if isinstance(results, tuple | list) else [results]

    program.executor = execute
    return program


def runner_for(module: ModuleOp, options: IreeOptions) -> ProgramRunner:
    """What `exir-run --backend iree` runs: the program's `ProgramRunner` on IREE."""
    return compile_program(module, options).runner
