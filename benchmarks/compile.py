"""
Whole models compiled by IREE against torch eager, onnxruntime and our numpy
interpreter, all on the same number of threads (one by default).

Usage:
    env -u OPENBLAS_CORETYPE .venv/bin/python benchmarks/compile.py [--reps N] [--models a,b] [--quick]
        [--threads N] [--iree-flags "--flag1 --flag2"] [--lowering NAME=0|1] [--no-tuned]
        [--variant="--flag MODULE.ATTR=V data_tiling=0|1 threads=N" ...] [--clock wall|cpu]
        [--no-cold] [--no-numpy] [--settle SHARE]

Each `--variant` adds an IREE column compiled with those iree-compile flags,
lowering switches and `IreeOptions` fields (`IREE*1`, `IREE*2`, ...; one is
`IREE*`, as `--iree-flags`/`--lowering` give); write it with `=`, as its words
start with dashes. `--clock cpu` times the CPU time of this process instead of
wall time: at one thread, on a machine other work loads, it leaves out the time
spent waiting for a core (at two threads it adds up both threads' time, so the
wall clock stays the default).

onnxruntime is the optional extra `bench` (`pip install 'xdsl-exir[bench]'`).

(`OPENBLAS_CORETYPE` is unset by the caller: it must not reach numpy's BLAS.)

Models, with random weights, built here (`scripts/gen_zoo.py`'s classes where
they fit) or taken from the zoo as they are:

- `resnet18`     ResNet-18 at full width (64/128/256/512, fc 1000), 1x3x64x64;
- `transformer`  4 post-norm encoder layers (width 256, 4 heads, FFN 1024, GELU
                 erf, explicit q/k/v linears), batch 4, seq 128;
- `llama`        a LLaMA decoder block (RMSNorm, rotary, causal attention,
                 SiLU-gated MLP with 768 hidden), width 256, 4 heads, 1x128;
- `mobilenet`    MobileNet-v1 (depthwise 3x3 + pointwise 1x1 blocks, 32 -> 1024
                 channels, fc 1000), 1x3x64x64;
- `regnet`, `efficientnet`, `mobilenetv3`, `squeezenet`, `shufflenet`,
  `densenet`, `vit`: RegNet-X-400MF, EfficientNet-B0, MobileNetV3-small,
  SqueezeNet 1.1, ShuffleNetV2 1.0x, DenseNet-121 and ViT-tiny as
  `benchmarks/architectures.py` defines them, 1x3x64x64;
- `mlp`, `cnn_bn`, `resnet_blocks`, `attention`: `tests/zoo/<name>.core.pt2`
  with `<name>.inputs.npz`;
- `conv3x3`, `conv1x1`, `convdw`, `convgroup`, `convstem`: one convolution
  each (`SINGLE_CONVS`), and `dw3`, `dw3s2`, `dw5`, `dw5s2`, `dw5small`, `pw`,
  `se`, `fire`, `maxpool`: one layer each of EfficientNet-B0 and SqueezeNet,
  and `fc1gelu`, ViT-tiny's fc1 with its GELU: the heaviest dispatches of
  their IREE profiles (`LAYERS`); run only when
  named: flag and lowering choices are tried on these first.

Each model is exported (`torch.export.export(...).run_decompositions()`) and
saved to a temporary `.pt2`. Then, per model:

- IREE: compile time without the cache (`use_cache=False`: import, lowering,
  printing and `iree-compile`), the cold first call (a fresh `compile_program`
  plus one call) with a warm on-disk cache and without one. Both cold figures
  are taken in this already-warm Python process (imports done).
- Outputs checked against torch eager first (rtol 1e-4, atol 1e-5) for IREE,
  onnxruntime and the interpreter; the maximum errors are printed.
- Steady state: the runners -- IREE, torch eager (`model(*args)` under
  `torch.inference_mode()`), onnxruntime's CPU provider on the legacy
  `torch.onnx.export(..., dynamo=False)` graph, and `ProgramRunner` on
  `load_pt2` -- interleaved, each round in a new (seeded) order, each
  sample a batch of calls of at least a few milliseconds, median per call,
  each sample after a quarter as many untimed calls of its runner (`--settle`:
  the previous runner's spinning threads are done by then).
  The interpreter is left out of the steady state for a model whose first call
  takes more than 5 s; its one-call time is shown with a `*`.

Everything runs on `--threads` threads (default 1): torch intra-op threads,
onnxruntime intra-op threads (inter-op 1), IREE's `local-sync` driver for one
thread, else `local-task` with that many workers (but a program of fewer than
`runtime.CALLER_BELOW_FLOPS` flops runs on the calling thread), and the BLAS under numpy
(environment set before numpy loads). The report ends with the geometric means
of IREE/eager and IREE/onnxruntime over the models both ran. The machine has 2 cores shared with other
work, so figures are noisy; ratios are between runners measured in the same
interleaved run, never against stored numbers, and nothing here asserts a time.

A model that fails anywhere (no lowering to linalg yet, an export failure)
reports the one-line error under its row and the run continues.

IREE flags (iree-base-compiler 3.13, measured on an AMD EPYC with AVX-512 by
compiling a second column, IREE*, next to the defaults in the same interleaved
run with `--iree-flags "..."`). The defaults of `IreeOptions` come from these
measurements: with IREE's plain flags, `linalg.conv_2d_nchw_fchw` is the slow
part of every CNN, and

- `--iree-global-opt-use-im2col-for-convs`: ResNet-18 2.5-2.7x faster,
  MobileNet 1.5-2.3x, no change on the models without convolutions: always on;
- `--iree-opt-data-tiling` on top: ResNet-18 another 1.2x, MobileNet 1.2x, but
  the transformer 35-40% slower (23 -> 32 ms): on for programs that have a
  convolution (`IreeOptions.data_tiling`, None = that rule);
- converting convolutions to channels-last
  (`--iree-preprocessing-pass-pipeline=builtin.module(util.func(iree-preprocessing-convert-conv-to-channels-last))`):
  ResNet-18 1.7x, MobileNet 2x; no better than im2col with or without it;
  computing depthwise convolutions channels-last in the lowering did not help
  either, nor did MLIR's named depthwise ops, NCHW or channels-last, written by
  hand: 1.4-5x the time of the tap-wise generic the lowering emits, one
  convolution at a time (`conv_pool._DEPTHWISE_GENERIC`);
- grouped convolutions (RegNet-X's, 16 channels a group): the named
  `linalg.conv_2d_ngchw_gfchw` takes 4-11x the time of im2col columns and a
  batched contraction, whatever the flags, and splitting by group is no faster
  than the latter: the lowering emits it (`--lowering
  conv_pool._GROUPED_IM2COL=0` compares the two on whole models);
- `--iree-llvmcpu-enable-ukernels=all`, `--iree-opt-level=O3`,
  `--iree-dispatch-creation-enable-aggressive-fusion`: within noise (< 5%) on
  every model; `--iree-dispatch-creation-experimental-set-data-tiling-ops=matmul,convolution`
  is refused by iree-compile.

Channels-last, measured again on an Intel Xeon (Emerald Rapids, AVX-512) at one
thread, `--clock cpu`, machine load 16-21 on 2 cores (ms per call; the default
is im2col, with data tiling where a convolution is):

| one convolution              | default | no im2col | CL, no im2col | CL   | eager | ORT   |
|------------------------------|---------|-----------|---------------|------|-------|-------|
| dense 3x3 64->64 at 32x32    | 3.34    | 2.13      | 1.25          | 2.47 | 1.18  | 0.978 |
| 1x1 128->256 at 16x16        | 0.379   | 0.364     | 0.354         | 0.366| 0.237 | 0.208 |
| grouped 3x3, 8 groups, 16x16 | 0.962   | 0.661     | 0.667         | 0.679| 0.702 | 0.183 |
| stem 3x3/2 3->32 at 64x64    | 0.0855  | 0.308     | 0.0665        | 0.0824| 0.0855| 0.0343|

(CL: `--iree-preprocessing-pass-pipeline=builtin.module(util.func(iree-preprocessing-convert-conv-to-channels-last))`;
the depthwise generic is untouched by these flags, its spread, 0.47-0.69, is the
noise.) On whole models the lone-convolution gain does not carry over: ResNet-18
12.1 ms by default, 22.4 with CL and no im2col, 245 with the transpose
propagation flags added (`--iree-opt-aggressively-propagate-transposes
--iree-global-opt-propagate-transposes-through-conv
--iree-global-opt-enable-sink-transpose-through-pad`); MobileNet-v1 3.43 -> 3.69
and RegNet-X 5.46 -> 6.05 with CL (a control column, the defaults compiled
twice: 3.60 and 5.30). The lowering's own channels-last form
(`--lowering conv_pool._CHANNELS_LAST=1`): ResNet-18 10.5 -> 11.3, MobileNet-v1
4.25 -> 4.48, RegNet-X 4.58 -> 4.13 (within the control's spread). The defaults
stay.

(`benchmarks/dispatches.py MODEL` lists a model's time per dispatch in one command.)

Where the time of the CNNs went, per dispatch (`iree-benchmark-module
--print_device_statistics` on the module `compile_program` builds, weights
embedded): in EfficientNet-B0, 53% in the depthwise convolutions' tap-wise
generics, which IREE compiled to scalar code (MLIR's vectorizer takes only
projected-permutation indexing maps; the weight was read at constant taps,
`(c, 0, i, j)`, and a strided tap is a strided slice), 41% in matrix products
(the 1x1 convolutions, the classifier); in SqueezeNet, the im2col gathers
`--iree-global-opt-use-im2col-for-convs` makes of the 3x3 convolutions (not
vectorized either), max pooling, the classifier's 1000x512 weight and the 3x3
products. Single layers, ms per call at one thread (CPU time, load 11-15 on 2
cores; `--models dw3,...`, `LAYERS`):

| layer                                 | before | weight per tap | + stride phases | eager | ORT   |
|---------------------------------------|--------|----------------|-----------------|-------|-------|
| depthwise 3x3, 144 ch at 16x16 (+BN, SiLU) | 0.611 | 0.093     |                 | 0.194 | 0.046 |
| depthwise 3x3/2, 96 ch at 32x32       | 0.578  | 0.428          | 0.235           | 0.280 | 0.057 |
| depthwise 5x5, 240 ch at 8x8          | 0.446  | 0.080          |                 | 0.164 | 0.029 |
| depthwise 5x5/2, 144 ch at 16x16      | 0.292  | 0.265          | 0.100           | 0.157 | 0.026 |
| depthwise 5x5, 672 ch at 4x4          | 0.493  | 0.177          |                 | 0.264 | 0.040 |

(`conv_pool._TAP_WEIGHT_SLICES`, `conv_pool._STRIDE_PHASES`, both on; each step
measured against the one before in its own interleaved run.) What
did not win: the channels-last tap-wise generic between transposes
(`conv_pool._DEPTHWISE_NHWC`: the transposes cost more than the contiguous
channels save, 0.09 -> 0.20 ms at stride 1); max pooling as the elementwise
maximum of its taps (as fast as `linalg.pooling_nchw_max`, 0.065-0.071 ms);
dense convolutions as one matrix product over columns copied from their taps
(`conv_pool._DENSE_TAPS_IM2COL`: SqueezeNet's fire module 0.136 -> 0.100 ms and
DenseNet-121 18.8 -> 14.2, but ResNet-18 and SqueezeNet unchanged and a lone
3x3 without data tiling slower; now on, see below); `--iree-llvmcpu-experimental-vectorize-to-transfer-gather`
(RegNet-X 0.82x, 0.95x over six CNNs, experimental: off). Grouped convolutions'
columns copied tap by tap (`conv_pool._GROUPED_TAPS`): RegNet-X 4.37 -> 3.98
ms, on.

RegNet-X-400MF's 22 grouped 3x3 convolutions (16 channels a group), per
dispatch (`iree-benchmark-module --device_profiling_mode=host-execution`,
`iree-profile dispatch`, the module `compile_program` builds with the weights
embedded, least time of each dispatch over some 2,600 calls, one thread, load
3.6-5.7; onnxruntime: `SessionOptions.enable_profiling`, least time of each
node over 300 runs). They are not where RegNet-X loses: about 335 us a call in
IREE (products 209, the packing of their columns 47, the copies into the
columns about 80, ten `slow_memcpy` dispatches a convolution) against
382 in onnxruntime's 22 nodes (its convolutions carry the batch norm and ReLU
too); 14.9 us against 16 for each of the twelve at 2x2. IREE's products are
`batch_mmt4d` with vector tiles of 4 positions by 16 filters at 2x2
(`25x16x4x144`, 10.7 us) and 16 by 16 above (`--iree-hal-dump-executable-configurations-to`),
IREE itself putting the positions on the narrow side; the weights' reordering and
packing run once, in the module's initializer (`iree-compile --compile-to=stream`:
`encode_25x16x144` under `util.initializer`, weights as parameters). The whole
call's dispatches sum to 1.33 ms (onnxruntime's nodes 1.46), its matrix products
(the 1x1 convolutions, the stem, the classifier) 0.91, `400x4x400` 0.63 of it
(onnxruntime's 1x1 convolutions 0.94); but a call
took 2.05 ms of CPU time (`iree-benchmark-module`, median) over 378 dispatches,
about 200 of them the grouped convolutions' copies, and onnxruntime's 74 nodes
1.84 ms at least (its profile's `model_run`, wall time). Forms tried to remove those copies or speed the products, none kept
(whole models one thread, `--clock cpu`, interleaved against the default):

- the columns as one elementwise generic choosing among the nine taps by the tap
  index (378 -> 180 dispatches a call): IREE fuses it into the packing, but
  vectorizes along the output row (2 wide at 2x2) and writes through a
  `map_store` scatter: 19.5 us a convolution at 2x2 where the copies and the
  packing took about 4. RegNet-X 3.78 -> 3.98 and 3.00 -> 3.97 ms, convgroup 0.407 ->
  0.469 and 0.237 -> 0.284 (load 3.0-4.2);
- the same columns laid out `[N, G, OH, OW, taps, C]`, positions as the
  product's rows (vectors along the 16 channels): 12.6 us at 2x2; RegNet-X 3.82
  against 3.78, convgroup 0.820 against 0.407;
- nine batched products, one per tap, each on its tap slice and accumulating
  onto the previous (no columns): RegNet-X 3.82 against 3.00, convgroup 0.294
  against 0.237;
- the products untiled: `25x16x4x144` 15.6 us against 10.7 + 1.5 of packing;
  `--iree-llvmcpu-enable-ukernels=mmt4d`: the same per-dispatch times;
- `linalg.batch_matmul`: xDSL 0.74 has no such op, and IREE already data-tiles the
  contraction generic as `batch_mmt4d` with the positions as rows.

The columns of a dense or grouped convolution as one generic
(`conv_pool._WINDOW_COLUMNS`, `linalg_lowering.columns`), where the tap copies
made ten `slow_memcpy` dispatches a convolution. Kept form: a generic over the
columns `[N, G, C, kh, kw, OH, OW]` (the taps before the channels when
grouped) reading the input with `tensor.extract` at `[n, g*C + c, clamped row,
ow + j*e]`, which MLIR's vectorizer reads contiguously along `ow`, and an int8
mask `[kh, OH]` (1 where the row is inside the input) selecting it or 0: the
rows' padding folded in, the width's a `tensor.pad` of its own. Per dispatch
(least time, us, one thread, load 4-6; copies / generic):

| layer                               | tap copies (+ pad)  | generic (+ width pad) |
|-------------------------------------|---------------------|-----------------------|
| dense 3x3 64->64 at 32x32           | 9 x 12.4-14 (+ 14)  | 112 (+ 14)            |
| dense 3x3 128->32 at 16x16          | 9 x 4.4-6.8 (+ 6)   | 62 (+ 6)              |
| dense 3x3 128->32 at 8x8            | 9 x 0.9-1.1 (+ 1.3) | 11.7 (+ 1.3)          |
| dense 3x3 128->32 at 4x4            | 9 x 0.3-0.5 (+ 0.3) | 5.9 (+ 0.5)           |
| grouped 3x3 128 in 8 groups, 16x16  | 9 x 3.5-3.9 (+ 5)   | 30 (+ 5)              |

Each convolution is 4 dispatches instead of 12 (pad, columns, packing,
product): DenseNet-121 878 -> 414 a call, its copies 736 us against the
generics' 677 and the width pads' 98; RegNet-X 374 -> 230, its 18 column
generics 178 us against 53 of copies (the stride-2 ones keep the copies). The
generic's vectors are as wide as the output row (4 lanes at 4x4, 2 at 2x2),
hence its cost on small layers. Whole models,
one thread, CPU time, interleaved (`--variant "conv_pool._WINDOW_COLUMNS=0"`,
15 samples, ms, generic / copies):

| model        | run 1 (load 5.5-6.2) | run 2 (load 5.9-7.5) | run 3 (load 4-6) |
|--------------|----------------------|----------------------|------------------|
| DenseNet-121 | 9.02 / 9.75          | 9.78 / 10.1          | 8.78 / 8.92      |
| SqueezeNet   | 1.17 / 1.41          | 1.40 / 1.52          |                  |
| RegNet-X     | 3.43 / 3.46          | 4.51 / 4.85          | 5.77 / 5.63      |
| ResNet-18    | 10.8 / 10.8          | 8.35 / 8.29          |                  |

At two threads (wall clock, load 4.8-6.4, eager itself thrashing): DenseNet-121
15.3 / 16.2, SqueezeNet 6.40 / 7.45, RegNet-X 14.0 / 17.3, ResNet-18 30.8 /
26.9. The other CNNs have no such convolution (strided stems, depthwise and
1x1 ones), and the lone `conv3x3` / `convgroup` read 1.45 / 1.67 and 0.384 /
0.375 ms. Measured and not kept:

- the generic without the mask, over the padded input: IREE 3.13's dimension
  collapsing merged its seven loops into one (with only the output's map every
  loop is collapsible, linalg.index included), the last index became a
  remainder and the read a gather: 1,047 us for the 64->64 layer at 32x32
  against 116 for the copies; the loops permuted against the output's map
  collapsed the same way;
- that form with `--iree-llvmcpu-experimental-vectorize-to-transfer-gather`:
  iree-compile failed (LLVM translation of an `unrealized_conversion_cast`);
- the mask as i1: unpacked bit by bit into a vector mask each row, 27.8 us at
  8x8 against 11.7 as int8 compared with 0;
- the width's padding folded too: the vectorizer reads the last index
  contiguously only when it is `linalg.index` plus invariant terms through
  `arith.addi` (no clamp), and a read outside the tensor is undefined, so it
  stays a pad;
- the columns fused into the product's packing: IREE keeps the packing
  (`encode`) its own dispatch after the generic, as after the copies.

Data tiling, measured again on the Xeon (one thread, `--clock cpu`, load 2-10 on
2 cores, ms per call; `--variant="data_tiling=0 --iree-global-opt-data-tiling"`
and the like). IREE 3.13 has two data-tiling paths: `--iree-opt-data-tiling`
picks the one that starts at dispatch creation, `--iree-global-opt-data-tiling`
the one that starts at global optimization.

| model        | no DT (transformers) / dispatch DT (CNNs) | global DT | global DT + mmt4d ukernel | dispatch DT | eager | ORT  |
|--------------|------|------|------|------|------|------|
| transformer  | 70.5 | 56.8 | 50.2 | 74.4 | 42.5 | 45.3 |
| llama        | 5.21 | 3.37 | 2.83 | 2.87 | 4.34 | 3.29 |
| vit          | 7.73 | 7.04 | 6.69 | 7.08 | 11.1 | 5.17 |
| resnet18     | 13.0 | 12.1 | 12.7 | 12.9 | 18.5 | 7.75 |
| regnet       | 4.35 | 4.21 | 4.60 | 4.41 | 18.5 | 3.25 |
| efficientnet | 4.27 | 4.39 | 4.59 | 4.33 | 14.1 | 3.60 |
| mobilenetv3  | 0.958| 1.03 | 0.969| 1.03 | 6.33 | 0.908|
| squeezenet   | 1.91 | 1.85 | 1.51 | 1.48 | 3.67 | 0.651|
| shufflenet   | 1.11 | 1.42 | 1.52 | 1.19 | 8.40 | 1.56 |
| densenet     | 12.3 | 12.2 | 12.1 | 13.6 | 22.4 | 7.07 |

(For the CNNs and ViT the first and the "dispatch DT" columns are the same
flags compiled twice: their spread, up to 1.3x on SqueezeNet, is the noise.)
The dispatch path leaves the encoder as it was: it fuses the packing of the
output projection's input into the `attn @ v` contraction, which then takes
9.7 ms a layer instead of 1.2 (`iree-benchmark-module
--device_profiling_mode=host-execution` and `iree-profile dispatch`); the
global path packs it in a dispatch of its own, and its matrix products run
at about 105 GFLOP/s instead of 61-65 (the
feed-forward ones). `IreeOptions.data_tiling_flags` takes the
global path with the mmt4d microkernel for programs of matrix products alone
and the dispatch path for programs with a convolution. The global path packs
the weights a module reads by reference into a copy at load time (`pack`
dispatches in an initializer, `iree-compile --compile-to=stream`), which
`tests/test_bundle.py` rules out, unless const-expr hoisting is off
(`--iree-opt-const-expr-hoisting=false`): then they are packed on each call,
at no measured cost (encoder 40.5 -> 40.9 ms, LLaMA 2.62 -> 2.65, against 59.2
and 4.52 without data tiling). So the default turned data tiling on for a
program with a convolution or a matrix product of 64 rows or more; with it,
against `--variant="data_tiling=0"` in the same run: encoder 62.5 -> 55.6 ms,
LLaMA 4.32 -> 2.87, the zoo's mlp and attention (fewer rows) unchanged. The
rule by rows alone is now one by rows and weight size, measured below.

Data tiling for narrow products (`--models lin<rows>_<in>x<out>,llama1,llama17,...`:
one `nn.Linear` on that many rows, `NARROW_ROWS` x `NARROW_WEIGHTS`, and the
LLaMA block at 1 and 17 tokens, width 256 and, `w`, 1024 with 2816 hidden; one
thread, `--clock cpu`, 11 interleaved samples, load 2.8-3.6 on 2 cores, ms).
Columns: none (`data_tiling=0`), the global path with its weights packed on each
call (`data_tiling=1`, the one a program of products takes), the dispatch path
(`data_tiling=0 --iree-opt-data-tiling`) and the global path with const-expr
hoisting (`data_tiling=0 --iree-global-opt-data-tiling
--iree-llvmcpu-enable-ukernels=mmt4d`); the last two pack each weight once, into
a copy at load time (`iree-compile --compile-to=stream` on a 4096x4096
parameter: the dispatch path's `_encoding_0_encode_4096x4096xf32` and the
hoisted global path's `pack` dispatch sit in a `util.initializer`; with
`--iree-opt-const-expr-hoisting=false` both move into `forward`, on every call).

| product                  | none  | global, per call | dispatch, load time | global, load time | eager | ORT   |
|--------------------------|-------|------------------|---------------------|-------------------|-------|-------|
| 192x768, 1 row           | 0.031 | 0.068            | 0.026               | 0.026             | 0.033 | 0.021 |
| 192x768, 17 rows         | 0.416 | 0.212            | 0.141               | 0.150             | 0.100 | 0.069 |
| 192x768, 32 rows         | 0.196 | 0.218            | 0.147               | 0.156             | 0.145 | 0.113 |
| 768x768, 1 row           | 0.165 | 0.535            | 0.150               | 0.163             | 0.184 | 0.159 |
| 768x768, 17 rows         | 1.14  | 0.832            | 0.430               | 0.442             | 0.374 | 0.202 |
| 768x768, 63 rows         | 1.56  | 1.65             | 1.17                | 1.23              | 0.987 | 0.926 |
| 768x3072, 1 row          | 0.651 | 2.39             | 0.629               | 0.660             | 0.609 | 0.561 |
| 768x3072, 17 rows        | 4.57  | 3.59             | 1.93                | 1.85              | 1.46  | 0.767 |
| 768x3072, 32 rows        | 2.60  | 3.40             | 1.82                | 1.78              | 1.96  | 1.38  |
| 4096x4096, 1 row         | 6.01  | 31.0             | 7.86                | 7.37              | 5.48  | 6.07  |
| 4096x4096, 8 rows        | 6.60  | 62.9             | 10.5                | 11.1              | 14.9  | 7.62  |
| 4096x4096, 17 rows       | 41.8  | 78.6             | 25.2                | 26.8              | 14.0  | 9.08  |
| 4096x4096, 63 rows       | 35.8  | 91.2             | 46.7                | 46.4              | 23.3  | 19.3  |
| LLaMA d256, 1 token      | 0.281 | 0.540            | 0.230               | 0.240             | 0.754 | 0.304 |
| LLaMA d256, 17 tokens    | 2.27  | 1.30             | 1.04                | 0.969             | 1.38  | 0.530 |
| LLaMA d1024, 1 token     | 3.79  | 15.3             | 6.11                | 5.71              | 5.03  | 4.35  |
| LLaMA d1024, 17 tokens   | 26.3  | 24.9             | 15.3                | 13.1              | 11.1  | 6.20  |

At one to eight rows a product is bound by reading its weight and the packing
on each call is a second pass (2-10x slower); the hoisted paths are even at
1-8 rows on the small weights and slower on the large one (4096x4096 on 8 rows
10.5 against 6.6). Where data tiling gains, it is IREE's tiling of the untiled
product: its vector tile takes the rows' largest divisor up to 8
(`--iree-hal-dump-executable-configurations-to`: `[1, 16]` for 17 and 31 rows,
`[3, 16]` for 33, `[7, 16]` for 63, `[8, 16]` for 32, 64 and 128), so 17 rows
read the weight 17 times, 32 rows 4 times; 32 rows take less time than 17.
In a second sweep on 768x768 (none / global per call): 9 rows 0.45 / 0.45,
16 0.40 / 0.41, 24 0.50-0.59 / 0.50, 31 2.25 / 0.89, 33 1.51 / 1.53, 48 1.01 /
1.06, 56 1.26 / 1.30, 96 1.84 / 1.46-1.66, 128 2.94 / 2.67-2.77, 256 4.87 /
3.86; 768x3072 at 128 rows 11.8 / 10.8-12.7, 4096x4096 at 128 rows 71.9 / 138-151.
So `IreeOptions.auto_data_tiling` takes data tiling where the untiled product
reads its weight 12 times or more (`targets.iree.weight_passes`: 17 or 31
rows, 96, 128 and up; not 32, 63 or 64) and no product's weight has more than
1024x2816 elements. The same run as a check (default / none / global per call):
ViT's fc1 + GELU 0.144 / 0.285 / 0.136, 768x768 on 17 rows 1.01 / 1.41 / 1.10,
on 31 rows 1.12 / 2.21 / 0.818, on 64 rows (off) 1.33 / 1.28 / 1.27, on 96
2.49 / 2.38 / 2.17 (12 passes, on: even here), 4096x4096 on 17 rows (off) 42.2 /
42.2 / 78.2 and on 128 86.2 / 87.7 / 179, the LLaMA block at 17 tokens 1.30 /
2.14 / 1.22, at 128 4.55 / 5.38 / 4.08, the encoder 63.8 / 79.2 / 61.6, the
zoo's mlp 0.015 / 0.014 / 0.017. Rows between, in a third run (default / none
/ global per call): 768x768 on 13 rows 0.80 / 1.15 / 0.74, on 19 1.11 / 1.50 /
0.95, on 25 (5 passes, off) 0.60 / 0.61 / 0.76, on 104 (13 passes) 2.24 / 2.51
/ 2.20; 192x768 on 13 rows 0.151 / 0.282 / 0.140; 768x3072 on 23 rows 4.43 /
6.95 / 3.67. Not done: the load-time paths, faster on 17
to 128 rows (4096x4096 on 17 rows 25 ms against 42), copy every packed weight,
which the weights read by reference rule out. A product of a large weight on
17 rows took 3x eager (42 against 14 ms) while its rows were tiled one at a
time: the lowering now cuts such rows into bands (below).

Narrow products cut into row bands (`matmul.row_bands`: `mm`/`addmm` on 11-62
static rows, or more with a weight too large for data tiling, whose weight
passes the bands at least halve, cut at the largest
multiple of 8, 17 = 16 + 1, each band a `linalg.matmul` with its rows' bias,
inserted into one result; `--variant "matmul._SPLIT_ROWS=0"` keeps them whole,
`=16` cuts at multiples of 16). One thread, `--clock cpu`, interleaved, ms
(split / whole / cut at 16 where it differs / eager / ORT):

| product (load)                     | split | whole | at 16 | eager | ORT   |
|------------------------------------|-------|-------|-------|-------|-------|
| 4096x4096, 17 rows (2.3-3.4)       | 12.5  | 27.8  |       | 12.0  | 7.04  |
| 4096x4096, 31 rows (4.6-4.7)       | 18.4  | 51.4  | 20.3  | 15.6  | 11.1  |
| 768x3072, 17 rows (4.6-4.7)        | 1.64  | 3.79  |       | 1.38  | 0.719 |
| 768x768, 13 rows (4.6-4.7)         | 0.324 | 0.590 | 0.563 | 0.415 | 0.193 |
| 768x768, 17 rows (2.3-3.4)         | 0.435 | 0.715 |       | 0.387 | 0.176 |
| 768x768, 31 rows (2.3-3.4)         | 0.730 | 0.756 | 0.698 | 0.497 | 0.308 |
| 768x768, 33 rows (4.6-4.7)         | 0.709 | 0.911 |       | 0.521 | 0.309 |
| 192x768, 13 / 17 / 23 rows (6.5-6.9) | 0.087 / 0.122 / 0.145 | 0.123 / 0.196 / 0.209 | | 0.083 / 0.098 / 0.112 | 0.056 / 0.068 / 0.084 |
| 192x768, 29 / 31 / 33 / 39 rows (6.5-6.9) | 0.157 / 0.156 / 0.179 / 0.183 | 0.143 / 0.150 / 0.241 / 0.185 | | 0.10-0.12 | 0.073-0.097 |
| fc1 + GELU, 17 rows (2.3-3.4)      | 0.114 | 0.143 |       | 0.097 | 0.053 |
| LLaMA block, 17 tokens (2.3-3.4)   | 0.653 | 0.816 |       | 0.864 | 0.340 |
| ViT-tiny (3.3-4.7)                 | 6.18  | 7.53  |       | 12.7  | 5.02  |

Whole, these products (but 4096x4096's) took the global data-tiling path, 17
rows padded to 32; split, every band reads the weight 8 times or fewer and
data tiling stays off (`auto_data_tiling`), which is right for them: the
bands data-tiled (`data_tiling=1`, each band packing the weight on each call)
took 0.670 ms on 768x768 at 17 rows, 50.3 on 4096x4096, 0.683 on the LLaMA
block, and 0.108 on fc1 + GELU (even). ViT-tiny, whose patch convolution keeps the dispatch data
tiling path on (weights packed at load time), gains with it on (6.18 against
7.20 split without data tiling). In a second run (load 6-8, split / padded /
whole): ViT-tiny 6.96 / 8.53 / 8.73, fc1 + GELU 0.150 / 0.179 / 0.202, the
LLaMA block at 17 tokens 0.924 / 1.22 / 1.47. Split, the GELU after fc1 is a
dispatch of its own (the bands are written into one result by
`flow.tensor.update`, then the elementwise dispatch reads it), which still
wins. A third run (11 samples, load 5.5-8.0, split / whole / ORT): ViT-tiny
5.22 / 6.28 / 4.39, the LLaMA block at 17 tokens 0.924 / 1.24 / 0.595 and at
width 1024 (`llama17w`, 1024x2816 weights, data-tiled whole) 10.3 / 22.1 /
6.51, 768x768 on 17 rows 0.553 / 1.01 / 0.275, 4096x4096 15.1 / 32.6 / 9.18,
fc1 + GELU 0.162 / 0.150 / 0.055; fc1 + GELU again (31 samples, load 7.8-8.0)
0.132 / 0.191 / 0.064 (split and data-tiled 0.130). Where the bands save less than half the passes the split is even or
loses a few percent, so those rows stay whole: 768x768 on 9 rows (8 + 1, 3
passes against 2) 0.372 split / 0.352 whole, 25 rows (24 + 1) 0.666 / 0.670,
63 rows (56 + 7) 1.16 / 1.12. From 64 rows on, whole: data tiling takes 96
rows and more, and split bands each pack the weight (192x768 on 197 rows as
192 + 5 1.14 against 0.75 whole, 768x768 on 100 rows 1.84 / 1.78 and on 197
4.75 / 4.78, on 97 rows 1.52 / 1.59), and 4096x4096 on 100 rows (no data
tiling, 25 passes against 13) gained nothing (80.0 split / 76.5 whole); but a
weight too large for data tiling (`matmul.DATA_TILING_MAX_WEIGHT`) is cut at
any row count where its passes halve: 4096x4096 on 97 rows 236 whole / 66.8
as 96 + 1, on 197 rows 491 / 147 as 192 + 5 (eager 34.9 and 63.7, ORT 34.5
and 69.4; load 5.3-5.6). Not kept: padding the rows to a
multiple of 8 with zero rows (one product on 24 rows for 17, sliced back):
even with the split on 13, 23, 29, 31 and 39 rows of 768x768 (0.48-0.95 ms
both), behind it on 17 rows (0.554 / 0.506) and on 192x768 (13 rows 0.101 /
0.087, 17 rows 0.149 / 0.122, 33 rows 0.214 / 0.179), on ViT-tiny (above) and
the LLaMA block. Cutting at multiples of 16 instead of 8 differs from it only
where the rest is above 8 rows (31 as 16 + 15: within noise). The ten models,
split / whole (`--variant "matmul._SPLIT_ROWS=0"`, 7 samples, load 5.0-7.8):
ViT-tiny 5.33 / 6.35 ms (ORT 4.73, IREE/ORT 1.13 / 1.34); the nine others
have no product cut (the same program twice: spread up to 15%, SqueezeNet 1.93
/ 1.68, DenseNet-121 10.5 / 9.40); IREE/ORT geometric mean 1.31 / 1.29.

Dense convolutions (one group, batch of one, kernel above 1x1), measured on the
Xeon (one thread, `--clock cpu`, load 6-12 on 2 cores). Per dispatch
(`iree-benchmark-module --dispatch_statistics` on the module and parameters
`compile_program` builds), IREE's own im2col (`--iree-global-opt-use-im2col-for-convs`)
of the named op spends 40% of a 3x3 64->64 at 32x32 in its column gather
(`generic_64x3x3x32x32`, not vectorized) and 14% of ResNet-18 in such gathers;
its products run `[F, C*kh*kw] x [C*kh*kw, OH*OW]` without data tiling (no
`mmt4d` dispatch under `--iree-opt-data-tiling`). The deep layers are bound by
reading their weights: 512->512 at 2x2 (`conv3x3deep`, 9.4 MB of weights) runs
at 12-13 GB/s, ORT 0.58-0.67 ms against IREE 0.70-0.98. The lowering's own
im2col, columns copied tap by tap into `[C, kh*kw, OH, OW]` so that the weight
is read as stored (`conv_pool._DENSE_TAPS_IM2COL`, now on), against the named
op, one interleaved run each (ms):

| model / layer                 | named op | tap columns | eager | ORT   |
|-------------------------------|----------|-------------|-------|-------|
| DenseNet-121                  | 15.5     | 12.1        | 29.3  | 8.44  |
| SqueezeNet 1.1                | 1.80     | 1.41        | 4.50  | 0.729 |
| ResNet-18                     | 9.55     | 9.38        | 12.4  | 5.30  |
| 3x3 64->64 at 32x32           | 1.68     | 1.44        | 0.732 | 0.622 |
| fire module at 15x15          | 0.155    | 0.106       | 0.149 | 0.0741|
| 3x3 256->256 at 4x4           | 0.375    | 0.340       | 0.443 | 0.256 |
| 3x3 512->512 at 2x2           | 0.797    | 0.804       | 1.69  | 0.579 |
| stem 3x3/2 3->32 at 64x64     | 0.0806   | 0.0819      | 0.124 | 0.0330|

(An earlier form copied the columns as `[kh*kw, C, OH, OW]` and reordered the
weight to match: a weight computed on each call, or copied at load time when
IREE hoists it. A program whose only convolutions are dense ones must keep the
flags of a program with a convolution: its product counted as a wide matrix
product, it took the global data-tiling path, whose per-call packing of the
weight made 512->512 at 2x2 4.4 ms and 256->256 at 4x4 1.37; so the product is
marked, `conv_products.IM2COL_MARK`.) Tried and
not kept, one layer at a time: `--iree-dispatch-creation-experimental-set-data-tiling-ops=convolution`
(a 3x3 64->64 at 32x32 2.50 -> 3.37 ms, the deeper ones unchanged); the global
data-tiling path with the mmt4d microkernel for convolution programs (the
weight packed on each call: 512->512 at 2x2 0.98 -> 3.86 ms); the 1x1
classifier of SqueezeNet (`matmul_1000x9x512`, 28% of its time) as a
contraction over the reduction dim of both operands (the weight's rows times the
transposed input's: 0.315 -> 0.256 ms by hand, but 512x4608 by 4 0.71 -> 0.85, so
not pursued), or with its output transposed (2x slower); a split-K form (the
product's reduction cut into 16-lane partial sums, then summed) 10-80x slower.

The ten models with the tap columns against the named op in one interleaved run
(one thread, CPU time, load 5-9 on 2 cores; ms; ViT's 16x16 patches keep the
named op, more than `conv_pool._MAX_TAPS` taps, and the transformer and the
LLaMA block have no convolution: those three columns are the same program
compiled twice, their spread, up to 6%, is the noise):

| model        | tap columns | named op | eager | ORT   | IREE/ORT | IREE/eager |
|--------------|-------------|----------|-------|-------|----------|------------|
| RegNet-X     | 3.78        | 3.69     | 13.0  | 2.61  | 1.45     | 0.29       |
| EfficientNet | 4.58        | 4.57     | 14.7  | 3.77  | 1.22     | 0.31       |
| MobileNetV3  | 2.00        | 2.00     | 9.98  | 2.11  | 0.95     | 0.20       |
| SqueezeNet   | 2.12        | 2.06     | 4.56  | 0.873 | 2.42     | 0.46       |
| ShuffleNetV2 | 1.86        | 1.73     | 10.8  | 1.88  | 0.99     | 0.17       |
| ResNet-18    | 9.93        | 10.6     | 14.1  | 6.12  | 1.62     | 0.71       |
| DenseNet-121 | 12.5        | 15.2     | 26.7  | 8.43  | 1.48     | 0.47       |
| ViT-tiny     | 8.90        | 9.18     | 13.8  | 6.13  | 1.45     | 0.65       |
| encoder      | 59.3        | 55.9     | 43.7  | 47.3  | 1.25     | 1.36       |
| LLaMA block  | 4.20        | 4.05     | 4.34  | 3.37  | 1.25     | 0.97       |

Geometric means IREE/ORT 1.36 with the tap columns, 1.37 without; IREE/eager
0.46 both. SqueezeNet's figure moves most from run to run: in three other runs
the tap columns took it 1.80 -> 1.41, 1.94 -> 1.66 and 1.51 -> 1.02 ms (25
samples); ShuffleNetV2 1.32 -> 1.26 in the last. The one shape that loses is a
stem of three input channels (3->32 at 64x64: 0.057 -> 0.064, 0.0685 -> 0.0797
ms in two runs, unchanged in a third), a few hundredths of a millisecond. Where
SqueezeNet's time goes now, per dispatch: the 1x1 classifier
(`matmul_1000x9x512`) 17%, the products of its last fire modules (9 output
positions: `256x9x576`, `192x9x432`) 20%, the first ones' (`64x225x144`,
`128x49x288`) 22%, max pooling (`pooling_nchw_max`, 3 dispatches) 17%. The
narrow products are vectorized along their 9, 49 or 225 output positions
(vector tiles `[8, 9]` for the classifier); padded by hand to a multiple of 16
positions the `64x225x144` product ran about 25% faster, `1000x9x512` within
noise, but padded in the lowering (zero columns, a padded accumulator, a slice
of the product) SqueezeNet took 1.71 -> 1.96 ms and the fire module 0.115 ->
0.124 (25 samples): not kept. ResNet-18's time is now mostly its last two stages' products, more than
half of it: `512x4x4608` (vector tiles `[8, 4]`, 4 of 16 lanes) and
`256x16x2304` (`[8, 16]`).

Max pooling and the narrow products, per dispatch (`iree-benchmark-module
--device_profiling_mode=host-execution`, `iree-profile dispatch`: the least
time of each dispatch over some 400 calls, one thread, the Xeon, load 3-7).
`linalg.pooling_nchw_max` is vectorized 8 channels by 5 output columns, the
columns read with a stride: SqueezeNet's three pools took 76.5, 40.6 and 21.3
us (138 of its 727). As the elementwise maximum of the window taps read from
the input's stride phases (`conv_pool._MAX_POOL_TAPS`, now on) the first pool,
compiled alone, took 23 us (its -inf pad 8, the phases' transpose 6.5, the
maximum 8.5) against 44.6 as the named op; with it SqueezeNet went 1.84 -> 1.55 and 1.57 -> 1.23 ms in two interleaved
runs (CPU time), ResNet-18 11.2 -> 10.5 and 10.6 -> 10.5, ShuffleNetV2 1.61 ->
1.59, DenseNet-121 11.4 -> 12.6 and 12.7 -> 12.3 (named -> taps; its pool 47.7
us named, 45.2 as taps: noise), the lone pool 0.096 -> 0.099 ms. Not kept:
`linalg.pooling_nhwc_max` between transposes (IREE fused all three into one
dispatch, 119 us), the columns of the window gathered first and the rows taken
as strided slices (51 us), the taps as strided slices of the input (107 us).
The ten models in one run, taps against the named op (`--variant
"conv_pool._MAX_POOL_TAPS=0"`, one thread, CPU time, load 3.7-6.8; ms):
SqueezeNet 1.10 / 1.46 (ORT 0.615), ResNet-18 8.45 / 8.87, ShuffleNetV2 1.31 /
1.16, DenseNet-121 13.5 / 13.1, ViT-tiny (no pool) 6.19 / 6.67; the models
without a pool, the same program compiled twice, spread up to 17% (RegNet-X
3.72 / 3.19); IREE/ORT geometric mean 1.39 / 1.40. ShuffleNetV2's pool alone,
per dispatch: 32.6 us named, 16.1 as taps.

The narrow products under dispatch data tiling are `mmt4d` with 16x16 tiles:
`matmul_1000x9x512`, SqueezeNet's classifier, pads its 9 output positions to
16. Computing the product transposed, `[P, K] x [K, F]` with the weight a
transposed constant (folded at compile time, or hoisted to load time for a
parameter) and the result transposed back, or as a contraction over the
reduction dim of both operands, one `linalg.matmul` of each form by hand with
the weight a constant (least CPU time of `iree-benchmark-module` runs, us,
stored / transposed / both K-major): 1000x9x512 157-170 / 159-160 / 156-171;
512x4x4608 469-560 / 492-515 / 461-485; 256x9x576 65 / 49; 64x225x144 92 /
74; 128x49x288 48 / 56; 256x16x2304 196 / 194; 192x9x432 29 / 28: no form
wins across shapes or runs, so the product keeps its form.

The CNNs' products against onnxruntime, layer by layer (ResNet-18 and
DenseNet-121 at 1x3x64x64, one thread; IREE: `iree-benchmark-module
--device_profiling_mode=host-execution` and `iree-profile dispatch` on the
module `compile_program` builds, weights embedded, least time of each dispatch
over 200-300 calls; onnxruntime: `SessionOptions.enable_profiling`, one
intra-op thread, least time of each node over 300 runs; the Xeon, load 3-5.6;
us). IREE's tiled column is dispatch data tiling as it was for convolution
programs, untiled is the same product without data tiling:

| product (filters x positions x reduction), layer         | tiled    | untiled | ORT node |
|----------------------------------------------------------|----------|---------|----------|
| ResNet `512x4x4608` x3, layer4 3x3 512->512 at 2x2       | 882-939  | 570-615 | 410-415  |
| ResNet `512x4x2304`, layer4.0 conv1 (stride 2)           | 446-452  | 296-325 | 229      |
| ResNet `256x16x2304` x3, layer3 3x3 at 4x4               | 286-332  | 157-188 | 184-188  |
| ResNet `128x64x1152` x3, layer2 3x3 at 8x8               | 173-187  | 167-174 | 126-127  |
| ResNet `256x16x1152`, layer3.0 conv1                      | 134-168  | 88-112  | 94       |
| ResNet `64x256x576` x4, layer1 3x3 at 16x16              | 141-147  | 151-156 | 117-118  |
| ResNet classifier `1x1000x512`                           | 130-136  | 234-257 | 86       |
| ResNet stem `64x1024x147` (7x7/2)                        | 127-135  | 154-156 | 128      |
| ResNet `512x4x256`, layer4 downsample (named 1x1)        | 49-53    | 60-62   | 32       |
| DenseNet `32x256x1152` x6, block 1 3x3 at 16x16          | 155-160  | 157-206 | 140-142  |
| DenseNet `32x64x1152` x12, block 2 3x3 at 8x8            | 45-48    | 41-43   | 42-45    |
| DenseNet `32x16x1152` x24, block 3 3x3 at 4x4            | 19-23    | 12-17   | 21-23    |
| DenseNet `32x4x1152` x16, block 4 3x3 at 2x2             | 13-16    | 11-15   | 13-14    |
| DenseNet `512x16x1024`, transition 3 (named 1x1)         | 277-343  | 165-235 | 170      |
| DenseNet classifier `1x1000x1024`                        | 270-367  | 433-545 | 200      |

Summed over a call: ResNet-18 5.7-6.2 ms of dispatches tiled, 4.6-4.7
untiled, onnxruntime's nodes 3.3; DenseNet-121 7.2 / 6.4 / 5.7 (its 631
copies, the im2col taps and the concatenations as `slow_memcpy` dispatches of
about 1 us, take 0.6 ms, and the per-call
packing of the tiled products' columns, 60 `encode` dispatches, 0.6 ms). So a
product over few positions is neither at memory bandwidth nor padded (512x4x4608
reads 9.4 MB: 10 GB/s tiled, 15.7 untiled, onnxruntime 22.7): IREE's narrow
encoding already takes 4x16 tiles for 4 positions
(`--iree-hal-dump-executable-configurations-to`: `mmt4d` of `1x4608x4x1` by
`32x4608x16x1`, `vector_common_parallel = [1, 1, 0, 4, 16, 0]`), whose loop
streams one 16-filter tile of the packed weight at a time with four
accumulators (the assembly: one 64-byte load and four broadcast FMAs a
step), where the untiled product (`[8, 4]` vector tiles, 16 of the reduction
at a time) reads eight weight rows at once; the 512x4x256 product, whose
weight fits in L2, runs at the same 10 GB/s tiled. The mmt4d microkernel
(`--iree-llvmcpu-enable-ukernels=mmt4d`) changed nothing (882-904 us).
IREE's data-tiling hint (`targets.iree.data_tiling_hints`) now leaves a
convolution's product of at most 16 positions (and more filters than
positions) untiled and keeps the others tiled; a split of the reduction into
two dims (`[F, C, taps] x [C, taps, P]`) does not escape data tiling, IREE
collapses it first. Whole models, one thread, CPU time, interleaved (9-15
samples, medians, ms):

- no data tiling at all in convolution programs (`--variant="data_tiling=0"`):
  ResNet-18 8.68 -> 5.82, SqueezeNet 1.34 -> 1.08, DenseNet-121 9.55 -> 8.43
  (load 5), but MobileNet-v1 2.14 -> 2.65, RegNet-X 3.66 -> 4.44,
  EfficientNet-B0 4.03 -> 4.49, MobileNetV3 1.51 -> 1.79, ShuffleNetV2 1.45
  -> 1.84, ViT-tiny 6.26 -> 6.54 (load 4.5-5.6): not kept;
- the hint on every product of at most 16 positions, whatever its depth,
  against tiling as before (load 6.4-7.3): ResNet-18 8.51 -> 6.95 and 8.32 ->
  5.87, SqueezeNet 1.27 -> 1.20 and 1.75 -> 1.89, DenseNet-121 9.42 -> 10.1;
  with the 1x1 convolutions marked (`conv_pool._POINTWISE_MATMUL=1`) too:
  ResNet-18 6.75 and 5.99, SqueezeNet 0.93 and 1.68, DenseNet-121 10.7,
  EfficientNet-B0 3.30 -> 4.15 (per dispatch, its 1x1 products over 4
  positions and a short reduction lost untiled: `1152x4x192` 49-53 -> 80-85
  us, `1280x4x320` 88-98 -> 136-179, and at 1152 deep the squeeze-excitation
  gate fused into `320x4x1152` made it 86 -> 487): so the hint leaves tiled
  what is under 2048 deep (`targets.iree._UNTILED_DEPTH`);
- the rule kept (at most 16 positions, more filters than positions, 2048
  deep or more: in these models only ResNet-18's last two stages) with the 1x1
  convolutions marked, against tiling as before (`--variant
  "xdsl_exir.targets.iree._UNTILED_COLUMNS=0 conv_pool._POINTWISE_MATMUL=0"`,
  load 4-6): ResNet-18 9.52 -> 7.13 (onnxruntime 5.94), the others, whose
  programs the hint leaves alone, differing only by the marked 1x1 products:
  RegNet-X 3.00 -> 3.10, EfficientNet-B0 3.36 -> 3.39, MobileNetV3 0.843 ->
  1.21, SqueezeNet 0.942 -> 0.952, ShuffleNetV2 1.27 -> 1.35, DenseNet-121
  10.0 -> 11.6, ViT-tiny 5.14 -> 4.93, the encoder and the LLaMA block (the
  same program twice) 55.6 -> 50.0 and 2.70 -> 2.66; in an earlier run (the
  rule at 1024 deep) MobileNetV3 1.64 -> 1.34. The marked 1x1 products are
  not kept (`conv_pool._POINTWISE_MATMUL`);
- the rule kept, 1x1 convolutions named, against tiling as before and against
  the marked 1x1 products (load 4-6): ResNet-18 8.14 -> 6.18, marked 5.77
  (onnxruntime 5.20); MobileNetV3 0.868 -> 0.854, marked 0.880; DenseNet-121
  12.6 -> 12.7, marked 12.3 (the same programs but for the marked products:
  the noise, which the run before shows at up to 1.4x on MobileNetV3);
- single layers (`conv3x3deep`, `conv3x3mid`: programs whose only product is
  such a one, compiled without data tiling, `targets.iree.compile_text`), in
  three runs (load 0.7-1.6): 3x3 512->512 at 2x2 0.985 -> 0.980, 0.957 ->
  1.26, 0.869 -> 0.988 (onnxruntime 0.66-0.75), 3x3 256->256 at 4x4 0.297 ->
  0.237, 0.470 -> 0.445, 0.360 -> 0.333 (onnxruntime 0.25-0.39): alone, the
  deep layer's weight stays in the cache between calls, where the tiled form
  streams well; in the whole model it does not;
- the ten models, the rule as kept against none (`--variant
  "xdsl_exir.targets.iree._UNTILED_COLUMNS=0"`, 9 samples, load 0.3-1.7, ms,
  IREE/onnxruntime in brackets): ResNet-18 10.7 -> 8.75 (1.47 -> 1.20); the
  other nine are the same program twice (no product 2048 deep over at most
  16 positions): RegNet-X 4.56 / 4.75, EfficientNet-B0 5.13 / 5.13,
  MobileNetV3 1.27 / 1.22, SqueezeNet 1.48 / 1.47, ShuffleNetV2 1.07 / 1.08,
  DenseNet-121 10.7 / 10.1, ViT-tiny 6.25 / 6.45, LLaMA block 4.40 / 4.60 and
  the encoder 46.0 / 65.3 (the noise of this run); geometric means IREE/ORT
  1.26 / 1.28, that noise included.

What is left of ResNet-18's gap, per dispatch untiled against onnxruntime's
nodes: the three `512x4x4608` (570-615 against 410-415 us: IREE reads the
weight at 15.7 GB/s, onnxruntime at 22.7), `512x4x2304` (296-325 / 229), the
classifier (130-136 / 86), `128x64x1152` x3 (167-187 / 126-127) and
`64x256x576` x4 (141-147 / 117-118).

ResNet-18 again, on the AMD EPYC (Zen 4, one thread, load 1.5-5): its
dispatches sum to 4.31 ms a call (least time of each, 150 dispatches), 4.00
of it the 21 products; onnxruntime's nodes 5.3 ms in the same hour. The 3x3
products of layers 1-3 run at 102-113 GFLOP/s (about the core's 16 FMAs a
cycle), even with or faster than onnxruntime's nodes (`64x256x576` 167 / 168,
`128x64x1152` 175 / 188, `256x16x2304` 183-188 / 284-288 us); the last stage
reads its weights from memory (46 MB of weights against a 32 MB L3):
`512x4x4608` 475-499 us (19.4 GB/s; numpy sums 48 MB at 26 GB/s on this core;
onnxruntime 722-753), `512x4x2304` 260. Those of at most 4 positions now run
transposed (`targets.iree._TRANSPOSED_COLUMNS`): 416-423 and 229 us, the
whole model 4.76 -> 4.34 and 4.69 -> 4.44 ms in two interleaved runs
(onnxruntime 5.69, 5.73; DenseNet-121 7.74 -> 7.31 and 6.51 / 6.53). What the
rest costs: the columns generics 134 us (13), the packing of the tiled
products' columns 87 (13), 94 copy dispatches of 44 (the stride-2
convolutions' taps: the stem's 49, 9 for each 3x3/2), the max pool's
transpose back 21 against onnxruntime's pool of 10, the layer-4 downsample
with its two batch norms, residual add and ReLU fused, 66 against 32. Not
kept: the strided convolutions' columns as one generic over the width's
phases (stride phases split by strided slices: IREE folds a transpose into
the generic's `tensor.extract`, which then gathers, 57.8 us for the stem's
columns), 150 -> 82 dispatches a call and the dispatches' sum +16 us (with /
without, one interleaved run):
ResNet-18 4.74 / 4.73 ms, RegNet-X 1.54 / 1.38, DenseNet-121 6.48 / 6.60.

ViT-tiny at 64x64 (17 tokens), per dispatch: 94% in the linear layers'
products (`matmul_17x768x192` with the erf GELU fused, 163 us a layer against
77 for the product alone; `17x192x768` 136; `17x576x192` 99); 17 rows pad to
32 in the 16-row tiles. `attn @ v` (`matmul_like_17x3x64x17`, the batch
contraction of `matmul.py`'s bmm) is 4.8 us a layer, 1% of the model: it is
not where ViT loses to onnxruntime, and it is left as a batch contraction (not
cut into row bands). The products now run as 16 + 1 rows (`matmul.row_bands`,
above): ViT-tiny 7.53 -> 6.18 ms and 8.73 -> 6.96 in two runs. Per dispatch
(`iree-benchmark-module --device_profiling_mode=host-execution`, `iree-profile
dispatch`, least time, weights embedded, one thread, load 7-8; us a layer,
whole / split 16 + 1): fc1 with its GELU 134 / 78.0 + 10.4 + 6.1 (the GELU now
a dispatch of its own), fc2 117 / 79.4 + 11.9, qkv 83.8 / 57.8 + 7.5, the
output projection 28.1 / 19.5 + 2.5; the whole call's dispatches 4.89 /
3.83 ms. The 1-row bands are 9% of the split model.

ViT-tiny's fc1 and its erf GELU (`--models fc1gelu`: `Linear(192, 768)` and
`GELU()` on 1x17x192; alone it is a program of one 17-row product, which takes
no data tiling, 0.40 ms against 0.15-0.17 with `--iree-opt-data-tiling`, the
path ViT takes for its patch convolution: so the layer is measured with that
flag; it now takes the global path by default, 17 rows being 17 passes over
the weight untiled, see above). In IREE's dispatch (`--iree-hal-dump-executable-files-to`) the bias and
the GELU are the epilogue of the `mmt4d` product, on its 16x16 tiles, so on 32
padded rows (24576 values for 13056); the product stays `mmt4d` (data tiling is
not stopped) and the epilogue is vectorized (16 lanes): IREE's expansion of
`math.erf` is three intervals of rational functions, per vector a division and
18 selects of coefficients, with spills. Per call, one thread, CPU time, medians
of 15 and 31 interleaved `iree-benchmark-module` samples (two loads; us):

| fc1 + GELU                                   | loaded | quieter |
|----------------------------------------------|--------|---------|
| the product and bias alone (GELU removed)    | 128    | 101     |
| erf GELU fused, `math.erf`                   | 149    | 106     |
| erf GELU fused, two polynomials (`erf_f32`)  | 145    | 106     |
| erf GELU in a dispatch of its own            | 139    | 102     |

(Its own dispatch: `util.optimization_barrier` written by hand between the
product and the GELU. In another loaded run the erf replaced by a multiply, a
floor for any erf, took 132 against 155 fused and 129 without the GELU.) In `compile.py` on the layer (25-41 samples, ms;
`erf_f32` / `math.erf`, `--variant "... pointwise._ERF_ARITH=0"`): 0.153 /
0.161, 0.165 / 0.166, with the mmt4d microkernel 0.162 / 0.169; eager
0.12-0.14, onnxruntime 0.078-0.081. On whole models, four interleaved runs
(21 samples, ms, `erf_f32` / `math.erf`): ViT-tiny 6.36 / 6.76, 7.30 / 7.36,
7.13 / 7.15, 8.11 / 7.84; the encoder 49.3 / 45.7, 44.8 / 46.3, 63.2 / 62.9,
61.4 / 63.0; EfficientNet-B0 (no GELU: the same program twice, the noise) 4.59
/ 4.29. So the erf GELU costs 5-26 us of the layer, not the 86 of the
per-dispatch profile above, and is not where ViT loses: the product on 17 rows
padded to 32 is (onnxruntime's whole layer takes 0.08 ms). `erf_f32` (float32
erf as two polynomials, 19 multiply-adds a vector, no division) is as fast or
up to 5% faster on the layer and within noise on the models; it is kept for
that and for its accuracy (2 of 440k float32 values in [-8, 8] beyond 2.4e-7
of torch's erf, both subnormal results IREE flushes, against 26). Not done:
keeping the GELU out of the product's dispatch, the one form measured that
wins (3-10 us) needs IREE's `util` dialect in the lowered program, which the
lowering's other consumers (the interpreter of the lowered program) lack; the
tanh form was not tried (torch's erf GELU has other numerics).

Two threads (`--threads 2`: torch and onnxruntime on 2 intra-op threads, IREE
on `local-task` with 2 workers; the Xeon's 2 cores, which other work loaded
to 2-7 throughout). IREE on 2 workers against IREE on the calling thread in
the same run (`--variant="threads=1"`: `local-sync`; wall time, 15 samples,
load 7 -> 2 over the run, ms):

| model        | 2 workers | caller | eager | ORT  | 2 workers/ORT | caller/ORT |
|--------------|-----------|--------|-------|------|---------------|------------|
| RegNet-X     | 20.2      | 3.65   | 375   | 14.6 | 1.39          | 0.25       |
| EfficientNet | 15.2      | 11.0   | 105   | 15.6 | 0.97          | 0.70       |
| MobileNetV3  | 5.78      | 2.30   | 743   | 1.95 | 2.96          | 1.18       |
| SqueezeNet   | 13.3      | 5.70   | 127   | 1.31 | 10.2          | 4.34       |
| ShuffleNetV2 | 7.78      | 1.61   | 2442  | 7.25 | 1.07          | 0.22       |
| ResNet-18    | 41.9      | 39.1   | 1065  | 24.8 | 1.69          | 1.58       |
| DenseNet-121 | 46.1      | 47.6   | 691   | 41.0 | 1.12          | 1.16       |
| ViT-tiny     | 28.7      | 23.2   | 157   | 20.8 | 1.38          | 1.12       |
| encoder      | 228       | 287    | 2130  | 302  | 0.75          | 0.95       |
| LLaMA block  | 23.1      | 22.4   | 335   | 23.9 | 0.97          | 0.94       |

Geometric means IREE/ORT 1.56 on 2 workers, 0.90 on the calling thread; only
the encoder gains from the second worker. (Eager at 2 threads on a loaded
machine is 10-100x its one-thread time: its OpenMP threads meet at every op.
Left as a user would run it; runs without eager in the rotation moved IREE
within its run-to-run spread.) Why the workers lose, measured per hypothesis
(`iree-benchmark-module` on the module `compile_program` builds, weights
embedded, variants interleaved; SqueezeNet, 144 dispatches a call, most under
50 us at one thread):

- the task system's cost per dispatch: one worker (`local-task
  --task_topology_group_count=1`) took 2.88 ms of CPU time a call against
  1.29 on the calling thread (`local-sync`), about 11 us a dispatch; two
  workers 1.7 (`iree-benchmark-module`) to 5.4 ms (called from Python) of
  CPU time against 1.2-2.0. The caller only waits (no flag makes it work
  beside the workers), and on a loaded machine a dispatch ends only when both
  workers have had a core: called from Python, median wall time 1.4-3.8 ms on
  the caller against 2.5-13.9 on 2 workers (ten runs), best decile 1.7-1.9
  against 1.8-5.6 (four runs);
- workers spinning between dispatches instead of parking
  (`--task_worker_spin_us`): median 1.61 ms at 0 us, 2.49 at 50, 4.63 at 500
  (CPU time 1.74, 2.37, 3.38); 20 us within noise in the Python runs: off;
- workers pinned to the two cores (`--task_topology_cpu_ids=0,1`): 3.4-3.8
  ms against 1.3-2.7 unpinned: off;
- the compiler told of 2 threads instead of its default 8
  (`--iree-llvmcpu-number-of-threads=2`, fewer and larger workgroups): 14
  paired medians over five runs, 0.52-1.92x, geometric mean 0.96: noise, not
  kept; `--iree-dispatch-creation-enable-aggressive-fusion` leaves the count
  of dispatches as it is (SqueezeNet 144, MobileNetV3 112).

So `local-task` stays the runtime for 2 threads or more (`runtime.task_device_flags`:
the worker count only); a caller on a machine whose cores other work holds
gets a faster call from `threads=1`. Each worker count in a process now gets
its own device (`runtime._task_device`): IREE reads the task flags once per
driver and `iree.runtime.Config` hands out the first device of a name, so a
column for another thread count used to run on the first one's workers.

The runtime's work per dispatch, from the compiler's side: `--variant`
columns of one interleaved run each, five models. One thread, CPU time, 9
samples, load 2.7 -> 5.2 (ms):

| model        | default | memoization | indirect | both | favor=debug | favor=max-concurrency | eager | ORT  |
|--------------|---------|-------------|----------|------|-------------|-----------------------|-------|------|
| LLaMA block  | 2.70    | 2.73        | 2.54     | 2.68 | 2.51        | 2.88                  | 3.17  | 2.35 |
| MobileNetV3  | 1.00    | 1.02        | 1.05     | 1.06 | 1.01        | 1.03                  | 7.77  | 1.00 |
| SqueezeNet   | 1.35    | 1.38        | 1.66     | 1.57 | 1.29        | 1.31                  | 4.58  | 0.729|
| ShuffleNetV2 | 1.55    | 1.85        | 1.71     | 1.55 | 1.55        | 1.59                  | 14.4  | 1.93 |
| mlp (us)     | 9.8     | 9.5         | 10.0     | 9.5  | 9.2         | 9.3                   | 39.3  | 9.8  |
| geo. mean/default | 1  | 1.04        | 1.06     | 1.04 | 0.97        | 1.01                  |       |      |

IREE 3.13 already memoizes each function's command buffer (recorded once in
`__forward_memoize_apply`, replayed by `hal.device.queue.execute.indirect`
with the call's buffers bound to it; `--compile-to=vm` shows both), so
`--iree-hal-memoization` and `--iree-hal-indirect-command-buffers` give
byte-identical modules: those columns are the default's own spread, 0.97-1.06.
The other execution models do not run here: `async-external` gives `forward`
a wait and a signal fence to take (another calling convention), `host-only`
refuses the program's constants, and `inline-static`/`inline-dynamic` need
the `hal_loader`/`hal_inline` modules, which IREE's Python runtime does not
register. `--iree-scheduling-optimize-bindings`: within noise on the mlp.

Two threads, wall time, 9 samples, load 5.3 -> 8.3 (ms; the caller is
`threads=1` in the same run, `local-sync`):

| model        | 2 workers | caller | memoization off | favor=debug | favor=max-concurrency | eager | ORT  |
|--------------|-----------|--------|-----------------|-------------|-----------------------|-------|------|
| LLaMA block  | 17.2      | 6.11   | 13.9            | 13.0        | 10.2                  | 266   | 2.96 |
| MobileNetV3  | 3.28      | 2.46   | 4.15            | 1.74        | 2.00                  | 49.0  | 3.10 |
| SqueezeNet   | 8.07      | 6.69   | 8.45            | 12.0        | 16.0                  | 617   | 4.07 |
| ShuffleNetV2 | 5.58      | 2.51   | 3.09            | 2.49        | 2.32                  | 370   | 1.81 |
| mlp (us)     | 53.8      | 13.4   | 61.4            | 49.4        | 50.1                  | 50.6  | 16.0 |
| geo. mean/2 workers | 1  | 0.48   | 0.93            | 0.75        | 0.77                  |       |      |

Repeated (11 samples, load 5.7 -> 8.0; LLaMA block, MobileNetV3, SqueezeNet,
ShuffleNetV2): 2 workers 15.7, 11.1, 20.3, 15.9; favor=debug 20.0, 11.1,
8.09, 4.99; favor=max-concurrency 12.0, 7.99, 2.57, 9.45 (geometric means
0.63 and 0.45 of the default). Both opposite favors beating the default in
both runs points at the rotation rather than the flags: the default column
is the one that follows onnxruntime's (wrapping round), and onnxruntime's
and torch's 2-thread pools spin-wait after their work, holding the cores
the next column needs. With IREE columns only (11 samples, load 6-7):
SqueezeNet 2 workers 3.43, favor=debug 2.66, max-concurrency 2.80, caller
1.75; ShuffleNetV2 1.48, 1.49, 4.01, 1.11; MobileNetV3 5.45, 3.72, 2.36,
1.25: no favor wins throughout, and the caller wins all three. Not kept.

Worker spin (`--task_worker_spin_us`) measured again, with the caller and
onnxruntime (2 intra-op threads) in the same rotation; eleven models, 11
samples each, wall time, load 5-8 through both runs (ms; the first run is the
first five columns, the second the last six):

| model        | caller | 2 workers | spin 20 | spin 200 | ORT  | caller | 2 workers | spin 10 | spin 20 | spin 50 | ORT  |
|--------------|--------|-----------|---------|----------|------|--------|-----------|---------|---------|---------|------|
| mlp          | 0.0593 | 2.74      | 0.252   | 1.8      | 0.0388 | 0.0254 | 0.035   | 0.167   | 0.208   | 0.457   | 0.0119 |
| SqueezeNet   | 8.4    | 10.8      | 12      | 12.2     | 3.26 | 11.2   | 4.03      | 3.19    | 2.57    | 4       | 3.36 |
| MobileNetV3  | 6.21   | 4.25      | 4.76    | 3.84     | 2.63 | 3.52   | 4.62      | 4.21    | 2.41    | 2       | 3.24 |
| ShuffleNetV2 | 2.96   | 7.27      | 3.71    | 5.73     | 2.57 | 6.85   | 11        | 11.4    | 8.47    | 6.67    | 12.3 |
| LLaMA block  | 3.38   | 15.5      | 12.9    | 14.6     | 9.43 | 12.8   | 11.7      | 12.1    | 14.5    | 12.8    | 4.18 |
| ResNet-18    | 33.2   | 36.9      | 28.7    | 31.9     | 18.2 | 32.5   | 25.5      | 28.2    | 25.9    | 26.6    | 20.5 |
| RegNet-X     | 8.52   | 10.8      | 3.94    | 11.4     | 6.63 | 11.3   | 16.2      | 8.55    | 10.9    | 11.3    | 2.7  |
| EfficientNet | 16.1   | 15.6      | 17.7    | 17.1     | 12   | 15     | 17.3      | 20.3    | 14.1    | 13.7    | 16.7 |
| DenseNet-121 | 29.1   | 38.4      | 25.7    | 27.9     | 15.3 | 33.5   | 42.1      | 39      | 28      | 24.1    | 19.6 |
| ViT-tiny     | 17.8   | 23.8      | 16.7    | 20.4     | 18.3 | 23.5   | 15.1      | 10.5    | 23.8    | 8.45    | 17   |
| encoder      | 151    | 123       | 109     | 99.1     | 149  | 233    | 153       | 157     | 148     | 144     | 229  |
| geo. mean/2 workers | 0.54 | 1     | 0.63    | 0.88     | 0.41 | 1.04   | 1         | 1.05    | 1.01    | 0.96    | 0.65 |

Every column gave the caller's outputs bit for bit (same executables, same
workgroups). At this load the figures do not repeat: which of the caller and
the workers wins a model changes between the two runs (SqueezeNet, the
LLaMA block, ViT, MobileNetV3), and so do the geometric means (caller/workers
0.54, then 1.04; spinning 20 us 0.63, then 1.01). So nothing changed: no
spin, no compiler flag. A choice per program between the workers and the
caller was not built either: from work per dispatch it would be a threshold
fitted to this load, and measured on a program's first calls it would keep
what one minute of load decided, as the run-to-run swings above show;
`threads=2` still means 2 workers, and `threads=1` is the faster call where
other work holds the cores.

The spread itself, measured: each IREE column twice under two names, with
onnxruntime in the rotation (11 samples, wall time, load 3.9 -> 5.4, ms;
2 workers, caller, 2 workers again, caller again, ORT): SqueezeNet 5.40,
1.18, 3.41, 2.33, 1.98; ShuffleNetV2 5.46, 2.42, 5.09, 2.75, 3.64;
MobileNetV3 9.95, 1.60, 8.01, 3.44, 3.72; LLaMA block 7.07, 3.06, 7.98,
4.17, 6.70. One program's two columns differ by up to 2.2x at this load, so
differences under that are not findings here; the caller beat the workers
in all eight pairs.

DenseNet-121 against onnxruntime per dispatch (1x3x64x64, one thread; IREE:
`iree-benchmark-module --device_profiling_mode=host-execution` and
`iree-profile dispatch` on the module `compile_program` builds, weights
embedded, the least time of each dispatch over 300 calls; onnxruntime:
`SessionOptions.enable_profiling`, the least time of each node over 300 runs;
the two taken one after the other, load 4.4-4.5; us a call, summed by kind):

| kind                                          | IREE dispatches | IREE  | ORT nodes | ORT  |
|-----------------------------------------------|-----------------|-------|-----------|------|
| 1x1 bottleneck products (BN + ReLU epilogue)  | 58              | 2790  | 58        | 2283 |
| 3x3 products                                  | 58              | 2194  | 58        | 2304 |
| packing of the 3x3 products' columns          | 58              | 555   |           |      |
| copies into the 3x3 columns (and their pads)  | 631             | 541   |           |      |
| BN + ReLU over the concatenation (prologues)  | 61              | 190   | 62        | 614  |
| transitions' 1x1 products                     | 3               | 598   | 3         | 418  |
| transitions' average pooling                  | 3               | 81    | 3         | 18   |
| concatenations                                | (57 copies)     |       | 58        | 311  |
| classifier, stem, max pool, final mean        | 7               | 518   | 5         | 462  |
| sum                                           | 879             | 7468  | 247       | 6410 |

A call took 12.4 ms of CPU time in `iree-benchmark-module` (onnxruntime's
least `model_run` 8.2): the kernels' least times differ by 1.06 ms, the rest is
outside them (879 dispatches against 247 nodes, the copies and fills between
them, kernels slower in a whole call than at their best). Each dense layer's
batch norm and ReLU over the whole concatenation is one elementwise dispatch
that also writes the packed operand of the 1x1 product after it (IREE fuses the
data-tiling pack into it), 190 us for all against onnxruntime's 614 (it runs
them as depthwise convolutions): not a loss. The concatenations are
`flow.tensor.update`s: each layer's new features are written in place by the
3x3 product, but the earlier ones are copied into the next concatenation
(`iree-compile --compile-to=stream`: 57 `stream.cmd.copy`, 2.9 MB a call, the
O(n^2) copies; not dispatches), about what onnxruntime's concat nodes cost
(311 us); a concatenation written in place would need the block's buffer
threaded through its layers (the earlier features read as a slice of it): not
built. The 1x1 products are `mmt4d` on 16x16 tiles, 1.22x onnxruntime's
nodes; their least times move by up to 2.5x between two profiles of the same
module under load (`128x256x224` 280 and 111 us), so no form was tried on
them. Two forms were built for the rest:

- the 3x3 products (32 filters, 1152 deep) untiled: data-tiled, their columns
  are packed on every call by a dispatch of their own (`32x256x1152`: 66-76
  us of packing for a 155-167 us product); untiled they take about the same
  time or less and the packing goes (`targets.iree._UNTILED_FILTERS`: products
  of at most 32 filters and 1024 deep or more get no data-tiling hint). In the
  same profile afterwards (load 6-7; us, tiled + packing / untiled): `32x256x1152`
  x6 1004 + 436 / 960, `32x64x1152` x12 623 + 102 / 522, `32x16x1152` x24
  578 + 44 / 368, `32x4x1152` x16 284 + 15 / 222. As IREE's im2col of the named
  1x1 convolutions drops the hint, those run untiled in such a program too;
  with them as marked, tiled products (`conv_pool._POINTWISE_MATMUL=1`) DenseNet
  took 13.4 against 13.2 ms (load 3.4-6.6), so they stay named;
- each transition's average pooling before its 1x1 convolution, both linear
  (`conv_pool._POOL_BEFORE_POINTWISE`): the products on a quarter of the
  positions, the pooling on twice the channels (us, before / after):
  `128x256x256` 135 / `128x64x256` 52, `256x64x512` 188 / `256x16x512` 75,
  `512x16x1024` 374 / `512x4x1024` 164, the three poolings 83 / 156.

Whole models, one thread, CPU time, interleaved (15 samples; ms; both forms /
neither / the untiled products alone):

| run (load)   | DenseNet-121         | ORT  | others (same programs: the run's noise)             |
|--------------|----------------------|------|-----------------------------------------------------|
| 1 (3.4-6.6)  | 13.2 / 14.1 / 13.2   | 9.39 | (the pooled form not yet active in this run)         |
| 2 (4-8)      | 8.77 / 10.2 / 8.88   | 7.77 | ResNet-18 8.28 / 8.73 / 8.16, SqueezeNet 1.23 / 1.58 / 1.71 |
| 3 (4.4-7.3)  | 13.4 / 13.2 / 13.7   | 9.76 | ResNet-18 8.22 / 7.95 / 7.98, EfficientNet-B0 4.75 / 4.16 / 4.23, MobileNetV3 1.10 / 1.57 / 1.33 |

A fourth run, DenseNet-121 alone (21 samples, load 6 -> 1; both forms / the
untiled products alone / the pooled form alone): 9.13 / 9.14 / 11.2, ORT 7.16.
The untiled products gained in runs 1, 2 and 4 (IREE/onnxruntime 1.32 -> 1.14
in run 2, 1.56 -> 1.28 in run 4) and lost 4% in run 3, where programs compiled
twice differed by up to 14% (EfficientNet-B0, MobileNetV3-small: the same
text, checked); the pooled form gained 1-2% in runs 2 and 3 and nothing in run
4, within the noise: kept for the transitions' products above (330 us of
dispatches a call), `--variant "conv_pool._POOL_BEFORE_POINTWISE=0"` to
compare it again. Lost and changed:
the untiled rule at any depth also took the stems of 16-32 filters (27 deep),
and with them every named 1x1 convolution of those programs, untiled:
RegNet-X 5.10 -> 5.83 ms, EfficientNet-B0 4.94 -> 5.45, MobileNetV3-small
1.17 -> 1.55 (run 2), hence the depth of 1024
(`targets.iree._UNTILED_FILTERS_DEPTH`), after which the six other models'
programs are the ones they were (run 3). Not done: the concatenations in
place (above), and average pooling in float32 (its sum is float64 for every
float, `linalg_lowering.core.accumulator`: 81 us for three pools against
onnxruntime's 18).

SqueezeNet 1.1 against onnxruntime, per dispatch, with the 3x3 columns still
copied tap by tap (before `conv_pool._WINDOW_COLUMNS`; 1x3x64x64, one thread;
`iree-benchmark-module --device_profiling_mode=host-execution` and `iree-profile
dispatch` on the module `compile_program` builds, weights embedded, least time
of each dispatch over 400 calls, load 1.8; onnxruntime's nodes with
`SessionOptions.enable_profiling`, least of 300 runs; us a call):

| what                                            | IREE dispatches | IREE us | ORT nodes | ORT us |
|-------------------------------------------------|-----------------|---------|-----------|--------|
| convolution products (bias, ReLU fused)          | 26              | 550     | 26 Conv   | 642    |
| im2col tap copies, the 3x3s' zero pads          | 90              | 37      |           |        |
| packing of product operands (`encode`)          | 23              | 28      |           |        |
| max pooling: -inf pads, phase transposes, maxima | 9 (+3 fills)    | 77      | 3 MaxPool | 24     |
| fire concatenations                             | 0               | 0       | 8 Concat  | 59     |
| mean over the classifier's 9 positions          | 1               | 7       | 1         | 18     |
| stem's phase transpose                          | 1               | 1.3     |           |        |
| sum                                             | 150             | 700     | 39        | 755    |

The kernels are not where SqueezeNet loses: their least times sum to about
onnxruntime's (whose nodes also pay its profiler), the classifier `1000x9x512`
152 against 130. The call is: 0.95-1.0 ms of CPU time in
`iree-benchmark-module` (the same from Python: the module's own call and
`compile_program`'s read 1.39 / 1.43 ms against onnxruntime's 0.745 in one
interleaved run, so the caller adds nothing), about 300 us of it beyond the
dispatches' sum, 2 us each for 150 dispatches against onnxruntime's 39 nodes.
Of the leads: the fire modules' concatenations cost nothing, IREE writes both
expand products in place (`--compile-to=flow`: 16 `flow.tensor.update`,
`--compile-to=stream`: no copy left); each 3x3's zero pad is a copy dispatch
and a fill of its own, with the nine tap copies (the columns' work, not
changed here); each pool was three dispatches: a -inf pad (a copy and a fill)
that only rounds the input up to the stride for its phases (none of the
three pools' windows reaches past its input: 31, 15 and 7 are exact ceil-mode
extents), the phases' transpose, and the maximum, which took 28-35 us for
the first pool, 9.6 without data tiling, because IREE fuses the packing of
the next product's operand into it (an `iree_linalg_ext.map_store` over 15-wide
rows, one workgroup per channel; 64, 128 and 256 workgroups for the three pools).
Without data tiling (another profile, load 3.7) the products took 828 us and the
pools' maxima 23: the whole call the same (1.48 / 1.59 ms, `iree-benchmark-module`).

Max pooling from the input moved channels-last (`conv_pool._MAX_POOL_CHANNELS_LAST`,
now on): one transpose to NHWC (which IREE fuses into the first pool's producer,
the stem's product), the taps as slices strided along rows and columns, the
maximum vectorized along the channels, no pad where no window reaches past the
input. The three pools: 77 -> 27 us, 150 -> 146 dispatches, the whole call's
dispatches 706 -> 648 us (same profile, load 6). Whole models, against the
phase form (`--variant "conv_pool._MAX_POOL_CHANNELS_LAST=0"`, one thread, CPU
time, 11 samples, ms; models without a max pool are the same program twice:
the run's noise):

| model (its max pools)                      | run 1 (load 5-7) | run 2 (load 4-6) | ORT (runs 1, 2) |
|--------------------------------------------|------------------|------------------|-----------------|
| SqueezeNet (three 3x3/2 ceil mode)         | 1.21 / 1.37      | 1.00 / 1.00      | 0.732, 0.593    |
| ShuffleNetV2 (3x3/2, padded)               | 0.956 / 1.43     | 0.917 / 0.888    | 1.13, 1.04      |
| ResNet-18 (3x3/2, padded)                  | 6.74 / 6.90      | 6.46 / 6.52      | 5.85, 5.28      |
| DenseNet-121 (3x3/2, padded)               | 10.6 / 11.0      | 9.36 / 9.89      | 7.60, 6.75      |
| RegNet-X (none: noise)                     | 4.46 / 4.20      | 4.03 / 3.97      |                 |
| EfficientNet-B0 (none)                     | 3.68 / 3.40      | 4.80 / 4.83      |                 |
| MobileNetV3-small (none)                   | 1.09 / 1.17      | 1.75 / 1.71      |                 |

and in two runs of the single layers (load 4-7): SqueezeNet 1.04 / 1.25 and
2.44 / 2.76, the lone pool (`maxpool`) 0.064 / 0.095 and 0.059 / 0.084, the
fire module (no pool: noise) 0.154 / 0.152 and 0.142 / 0.127.

Measured on SqueezeNet and not kept (least times per dispatch as above):

- the phases gathered by one generic reading the unpadded input with clamped
  indices (`tensor.extract`, no pad): 52 us against 17 for the pad and the
  transpose;
- the pad as a -inf fill and a `tensor.insert_slice`: the same copy dispatch
  (IREE writes a strided region by a copy, not in place);
- the maximum over flattened rows of the phases (taps as 1-D slices of
  `[C, 2, 2, 17*16]`, one garbage column sliced off): 9 more dispatches;
- the phases channels-last (`[N, 2, 2, H/2, W/2, C]`, the maxima vectorized along
  the channels): the maxima 44 -> 21 us but the transposes 16 -> 21, the pads kept;
- `--iree-dispatch-creation-enable-fuse-padding-into-linalg-consumer-ops`:
  the same 150 dispatches; `--iree-dispatch-creation-enable-fuse-padding-into-linalg-producer-ops`
  and `--iree-flow-enable-pad-handling` are refused by iree-compile on this program;
- `--iree-llvmcpu-number-of-threads=1` for programs run on one thread (IREE
  distributes for 8 threads by default; with 1, most products are one
  workgroup, 1158 -> 796 workgroups a call, and their least times per dispatch
  5-30% lower in one profile): on whole models mixed, SqueezeNet 2.18 -> 1.88
  (before the form above), 1.04 -> 1.51, 1.21 -> 0.952, 2.44 -> 2.42, 1.00 ->
  0.864; the fire module 0.228 -> 0.193, 0.154 -> 0.155, 0.142 -> 0.110; the
  other CNNs within 8% either way (EfficientNet-B0 3.68 -> 3.40 and 4.80 ->
  4.55, RegNet-X 4.46 -> 4.27 and 4.03 -> 4.13). Not changed: one loss of 45%
  in five SqueezeNet runs, and a module per thread count is a design question for
  `targets.iree` (the modules are compiled once for every count today).

EfficientNet-B0 against onnxruntime per dispatch (1x3x64x64, one thread;
`iree-benchmark-module --device_profiling_mode=host-execution`, `iree-profile
dispatch`, least times over 600-900 calls; onnxruntime's nodes with
`SessionOptions.enable_profiling`, least of 300 runs; load 3-5; us a call): the
kernels sum to 1,732 in 166 dispatches against 2,229 in 235 nodes; matrix
products 1,064 (the classifier `1x1000x1280` 165, onnxruntime's Gemm 163)
against about 1,150 of 1x1 convolutions; the depthwise convolutions with their
batch norm and SiLU 505 against 218 of depthwise nodes and 245 of SiLU, the
loss in the small ones: 5x5 at 2x2 (1152 channels) 46.6 x3 against 24, 5x5 at
4x4 (672) 47.3 x2 against 14, 5x5 at 4x4 (480) 33.9 against 11, 5x5 at 8x8
(240) 32 against 14, their generic vectorized along output rows 2 or 4 wide
(`vector_common_parallel = [1, 1, 16]` on `[C, 4, 4]`). RegNet-X today:
1,243 us in 230 dispatches, onnxruntime's 74 nodes 1,481 (`model_run` 1.80
ms); whole models, interleaved: RegNet-X 1.87 ms / onnxruntime 2.25,
EfficientNet-B0 2.42 / 2.41.

A float32 depthwise kernel cropped to the taps that read some input element
(`conv_pool._LIVE_TAPS`, now on): at 2x2 with a 5x5 kernel and padding 2, 16 of
the 25 taps read padding alone; the three such convolutions of EfficientNet-B0
46.9 -> 22.5 us each per dispatch, its depthwise dispatches 506 -> 431 us a
call. Whole models, one thread, CPU time, interleaved (`--variant
"conv_pool._LIVE_TAPS=0"`, 11-15 samples, ms, cropped / every tap):
EfficientNet-B0 2.19 / 2.18, 2.38 / 2.29, 2.29 / 2.41 (onnxruntime 2.58, 2.63,
2.49), MobileNetV3-small 0.565 / 0.597, 0.497 / 0.551, 0.390 / 0.414
(onnxruntime 0.740, 0.547, 0.391). Measured and not kept:

- the channels-last depthwise generic (`conv_pool._DEPTHWISE_NHWC`) on outputs
  under 8 wide only: IREE fuses the transpose back to NCHW into the generic
  and iterates in its order, 0.0616 -> 0.0999 ms on the 672-channel 5x5 at 4x4
  (`dw5small`), and `--iree-opt-aggressively-propagate-transposes` (with the
  conv and pad propagation flags) did not move it: EfficientNet-B0 2.26-2.53
  -> 2.66-3.21 ms; with `util.optimization_barrier` after the generic (a mark
  the IREE target turned into the barrier in the text) and the weight
  transposed to `[kh, kw, C]` (IREE folds it; sliced `[C]` from the stored
  weight each tap is a stride-25 gather, 226 us), the layer took 0.058 ->
  0.045 ms (the generic 47 -> 18.5 us, plus 3 and 7 us of transposes) and the
  per-dispatch sum of EfficientNet-B0's depthwise work 490 -> 382 us, but whole
  models lost (`--variant "conv_pool._DEPTHWISE_NHWC_BELOW=0"`, 11 samples, ms,
  channels-last / NCHW): EfficientNet-B0 2.50 / 2.31, MobileNetV3-small 0.518 /
  0.453, ShuffleNetV2 0.529 / 0.484, MobileNet-v1 1.63 / 1.56 (20 more
  dispatches in EfficientNet-B0);
- the taps as 1-D windows of each channel's padded rows laid end to end (one
  row of padding more, the garbage columns sliced off): each tap became a copy
  dispatch and the generic still ran on `[C, 4, 4]`, `dw5small` 0.058 -> 0.20 ms.

The strided depthwise convolutions still lose most against onnxruntime per
dispatch (us, the pad's copy + the phases' transpose + the tap generic, against
its node): 96 channels 3x3/2 at 32x32 8.2 + 31.9 + 14.7 against 11, 144
channels 5x5/2 at 16x16 3.1 + 11.0 + 19.5 against 11; the transposes deinterleave
an innermost dim of 2 (`transpose_96x17x2x17x2`). Their strided taps read
directly instead (`--variant "conv_pool._STRIDE_PHASES=0"`, one thread, CPU
time, 11 samples, load 2-4, ms, phases / direct): EfficientNet-B0 2.07 / 2.39,
MobileNetV3-small 0.381 / 0.450, `dw3s2` 0.094 / 0.207, `dw5s2` 0.066 / 0.156
(onnxruntime 2.23, 0.359, 0.038, 0.025): the phases stay.

The transformers against onnxruntime per dispatch (one thread; IREE:
`iree-benchmark-module --device_profiling_mode=host-execution`, `iree-profile
dispatch`, the module `compile_program` builds with the weights embedded, least
time of each dispatch; onnxruntime: `SessionOptions.enable_profiling`, least time
of each node over 40-300 runs; load 2-5; us a call, summed by kind):

| kind                                   | encoder IREE | encoder ORT | LLaMA IREE | LLaMA ORT |
|----------------------------------------|--------------|-------------|------------|-----------|
| linear layers' products                | 27393        | 30121       | 1850       | 1967      |
| `q @ k^T`, `attn @ v`                  | 2292 (was 4077) | 2902     | 143        | 163       |
| softmax (max, exp, sum, scale)         | 960 (was 1269)  | 403      | 54 (was 76) | 27       |
| weights packed on each call            | 1181         |             | 119-231    |           |
| activations packed, unpacked           | 798          | 1100        | 26         | 77        |
| biases, norms, GELU/SiLU, rotary, mask | 2430         | 6516        | 109        | 185       |
| sum                                    | 35054        | 41042       | 2301       | 2419      |

The products run at 118 GFLOP/s (the mmt4d microkernel on 16x16 tiles), about
onnxruntime's; IREE loses on the softmax and on packing the weights on each call
(`targets.iree.data_tiling_flags`: no load-time copy of a weight read by
reference; onnxruntime's transposes, reshapes, splits and concatenations are
counted as the packing, its fused norms and activations as the epilogues). The encoder's `attn @ v` ran untiled, 732 against 285 us a layer,
until IREE's transpose propagation was turned off on the global data-tiling path
(`targets.iree.KEEP_TRANSPOSES_FLAG`); the softmax now writes its exponentials
once (`linalg_lowering.reductions._EXP_ONCE`). Whole models, one thread, CPU
time, interleaved, ms (IREE / the variant / eager / ORT):

| model       | propagation off / on (run 1) | exp once / twice (run 2) | (run 3)                  |
|-------------|------------------------------|--------------------------|--------------------------|
| encoder     | 38.3 / 40.1 / 45.0 / 42.7    | 39.2 / 39.1 / 45.9 / 43.0 | 38.0 / 38.8 / 45.0 / 42.9 |
| LLaMA block | 2.67 / 2.62 / 3.54 / 2.39    | 3.32 / 3.16 / 4.34 / 3.01 | 2.91 / 2.94 / 4.06 / 2.63 |
| ViT-tiny    | 3.17 / 3.20 / 7.95 / 3.52    | 3.49 / 3.74 / 10.1 / 4.00 | 3.28 / 3.48 / 8.64 / 3.98 |

IREE/onnxruntime: encoder 0.89-0.91, LLaMA block 1.10-1.12, ViT-tiny 0.82-0.90.
At two workers (`iree-benchmark-module --device=local-task`, wall time, load 3,
three pairs) the encoder took 40.5-40.9 ms with the propagation off against
41.2-42.8 with it on.
What is left of the LLaMA block's gap is its weights' packing: compiled with
const-expr hoisting (each weight packed once into a copy at load time) the block
took 2.29 / 2.45 / 2.47 ms of CPU time against 2.48 / 2.72 / 2.73 (three pairs,
`iree-benchmark-module`), the encoder 36.2 / 37.9 against 38.2 / 37.5; that copy
is what the weights read by reference rule out (`tests/test_bundle.py`), so it is
not taken. Measured and not kept: the dispatch-creation data-tiling path for the
LLaMA block (with the flags above: 2.80 / 2.66 against 2.70 / 2.58 ms); the
softmax's sum in float32 (the encoder's sum-and-scale dispatch 261 -> 241 us: not
worth torch's accuracy at any length, `linalg_lowering.core.accumulator`).

SqueezeNet 1.1 against onnxruntime per layer today (1x3x64x64, one thread;
IREE: least time of each dispatch over 1,400 calls of the module
`compile_program` builds, weights embedded, `iree-profile dispatch`;
onnxruntime: least time of each node over 300 runs, `enable_profiling`; us a
call; on a quiet machine the call took 0.67 ms of CPU time in
`iree-benchmark-module`, 0.69 from Python, onnxruntime's 0.448):

| layers (3x3 expand product)             | IREE dispatches | IREE | ORT nodes | ORT |
|-----------------------------------------|-----------------|------|-----------|-----|
| stem 3x3/2 (`64x961x27`)                | 13              | 39   | 1         | 37  |
| three max pools                         | 5               | 28   | 3         | 12  |
| fires 3, 4 at 15x15 (`64x225x144`)      | 16              | 117  | 8         | 119 |
| fires 6, 7 at 7x7 (`128x49x288`)        | 16              | 119  | 8         | 98  |
| fires 9, 10 at 3x3 (`192x9x432`)        | 16              | 65   | 8         | 53  |
| fires 11, 12 at 3x3 (`256x9x576`)       | 16              | 113  | 8         | 82  |
| classifier 1x1 (`1000x9x512`)           | 1               | 142  | 1         | 85  |
| mean (and onnxruntime's output reorder) | 1               | 5    | 2         | 11  |
| sum                                     | 82              | 626  | 39        | 497 |

The call's time outside its dispatches' least times is about 45 us, 0.5 us a
dispatch: on one thread fewer dispatches would not close the gap. The gap is the
products of 9 and 49 output positions: IREE's data tiling transposes a narrow
N to a narrow M and rounds it up to a power of two for its tile (IREE's
`chooseMatmulTile`: 9 -> 16, 49 -> 64 in 16-row tiles), so a 9-position product
computes 16 and runs at 65 GFLOP/s where the 225-position ones run at 105 (the
FMA peak; onnxruntime's even there), while onnxruntime's NCHWc kernels put the
filters on the vector lanes and loop over any number of positions (the
classifier 142 against 85 us, the 3x3 expands at 3x3 41 / 23 against 26 / 15).
Kept since: the 9 positions split 8 + 1 (`conv_products._LAST_POSITION_APART`),
an 8-column product and a matrix-vector generic from zeros, the bias added after
it from the bias vector, and a 3x3 convolution's last column read as its window
of the padded input. The first try below lost because IREE packed the
accumulator's strided column into the matrix-vector dispatch (155 us for the
classifier's against 34 from zeros) and fused the im2col columns' generic into
the fires' (535-1,237 us against 5-9). Per dispatch (least times, us): the
classifier 142 -> 85 + 34, the fires' `256x9x576` 40.7 -> 23.9 + 9.1 and
`192x9x432` 22.9 -> 14.9 + 5.0; the call 0.677 -> 0.644 ms here (21
interleaved samples, one thread, CPU time; `--variant
"conv_products._LAST_POSITION_APART=0"`; onnxruntime 0.456).

Tried on the lowered text, none kept (least times per dispatch):

- the positions split 8 + 1, an 8-column product (IREE's 8x32 tile, full) and a
  matrix-vector product: alone `1000x9x512` 141 -> 76 + 33 us, `256x9x576` 40 ->
  26 + 11; in SqueezeNet the matrix-vector products took 155 us (classifier)
  and 535-1,237 (fires) data-tiled, 166-182 and 17-23 untiled with every other
  product hinted, the call 0.71 -> 0.78-5.0 ms; as a `math.fma` reduction
  generic iree-compile failed (write affecting operations on global resources
  outside a workgroup distributed context); 49 as 48 + 1 failed to compile (a
  79,872-byte stack allocation in `matmul_128x48x288`), again with the form kept;
- `linalg.mmt4d` written with 9-row tiles (filters on 16 or 32 lanes): 4.8 ms
  (scalar code); the same as a generic 159-163 us against 141; the positions as
  3 batches of 3 (weight broadcast): collapsed back to 9 by IREE, or, batch
  outermost, untiled, 264 us;
- the product transposed, `[P, K] x [K, F]`, untiled: alone `49x128x288` 30.7
  against 40.9 us, in SqueezeNet 39.7 (the 1x1s as hinted products,
  `conv_pool._POINTWISE_MATMUL`); 9 rows 66-198 us;
- the first max pool's result channels-last, the next squeeze a contraction of
  the transposed operand: 13.4 -> 13.2 us (the dispatch is the next product's
  packing, which IREE fuses into it as a `map_store` scatter); a
  `util.optimization_barrier` after each pool, so that the packing is a dispatch
  of its own: the three pools with their packings 24.1 -> 19.6 us in 3 more
  dispatches, the call 0.706 -> 0.701 ms (`iree-benchmark-module`);
- the 9-position products left untiled and computed transposed
  (`targets.iree._UNTILED_DEPTH=512 _TRANSPOSED_COLUMNS=9`), and the
  49-position ones too (`_UNTILED_COLUMNS=64 _TRANSPOSED_COLUMNS=64`), whole
  models (one thread, CPU time, 9 interleaved samples, quiet; default / 9 / 49
  too, ms): SqueezeNet 0.708 / 0.783 / 0.784 (onnxruntime 0.469), ResNet-18
  4.57 / 4.42 / 5.11, DenseNet-121 6.18 / 6.16 / 6.24.

DenseNet-121's dense blocks with their concatenations in place (each block's
buffer threaded through its layers, the earlier features read as a slice at
offset 0, on the lowered text): `stream.cmd.copy` 57 -> 3 a call (2.9 MB), the
call 6.69 / 7.29 ms of CPU time (least / median of 10 alternations,
`iree-benchmark-module`, load 5) against 6.66 / 7.22: not measurable, not built.
Its transition pools as taps: `conv_pool._AVG_POOL_TAPS`. Whole models the
same hour (one thread, CPU time, 9 interleaved samples; IREE / ORT, ms):
SqueezeNet 0.902 / 0.562 (1.60) at load 3-5 and 0.677 / 0.451 (1.50) at load
1.5-3, DenseNet-121 7.20 / 6.87 and 6.56 / 6.38, ResNet-18 4.74 / 5.62.

DenseNet-121's 1x1 convolutions as marked products (`conv_pool._POINTWISE_MATMUL=1`):
named, they run untiled in its program, which has hints (IREE's im2col drops
them), 26 GFLOP/s at 2x2. Per dispatch (least times, us): its 1x1 products at
4 / 16 / 64 / 256 positions 627 / 862 / 707 / 571 -> 509 / 759 / 604 / 515, their
batch-norm prologues 610 -> 728, the other small dispatches 146 -> 44, 355 -> 307
dispatches, 5,927 -> 5,614 us in all; the call 7.09 -> 6.66 ms
(`iree-benchmark-module`, one pair). Whole models, two runs (one thread, CPU
time, 9 interleaved samples; named / marked, ms; the models with no 1x1
convolution of one group, or with no hint, are near the same program twice):

| model           | run 1 (load 2-3) | run 2 (load 2.3-3) | ORT (runs 1, 2) |
|-----------------|------------------|--------------------|-----------------|
| DenseNet-121    | 7.08 / 6.38      | 6.41 / 6.44        | 7.13, 6.85      |
| RegNet-X        | 2.15 / 1.96      | 1.63 / 1.78        | 2.33, 1.68      |
| EfficientNet-B0 | 1.85 / 1.79      | 2.16 / 2.47        | 1.95, 2.30      |
| ResNet-18       | 4.81 / 4.65      | 5.13 / 5.16        | 5.93, 6.55      |
| MobileNetV3     | 0.394 / 0.387    | 0.404 / 0.401      | 0.364, 0.386    |
| SqueezeNet      | 0.694 / 0.692    | 0.684 / 0.677      | 0.466, 0.455    |
| ShuffleNetV2    | 0.498 / 0.496    | 0.494 / 0.508      | 0.665, 0.686    |
| ViT-tiny        |                  | 3.74 / 3.72        | 4.44            |

Mixed, as before (the default's DenseNet moved 7.08 -> 6.41 between the runs,
the marked form's not): not flipped; the per-dispatch gain is DenseNet's alone,
and a form for hinted programs only would need the lowering to know the
target's hints.
"""

from __future__ import annotations

import os
import sys


def _threads_arg(argv: list[str]) -> int:
    """`--threads N` read before numpy loads (its BLAS reads the environment once)."""
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            return int(argv[i + 1])
        if a.startswith("--threads="):
            return int(a.split("=", 1)[1])
    return 1


THREADS = _threads_arg(sys.argv[1:])
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = str(THREADS)  # before numpy (and torch) load their BLAS

import argparse
import contextlib
import dataclasses
import gc
import importlib
import math
import pathlib
import random
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import torch

# torch's own pytree deprecation, printed by export/save of every model
warnings.filterwarnings("ignore", message=".*LeafSpec.*", category=FutureWarning)
import torch.utils._pytree as pytree
from torch import nn

ROOT = pathlib.Path(__file__).resolve().parent.parent
ZOO = ROOT / "tests" / "zoo"
sys.path.insert(0, str(ROOT / "scripts"))

import gen_zoo

sys.path.insert(0, str(ROOT / "benchmarks"))
import architectures as arch

from xdsl_exir.frontends.pt2 import load_pt2
from xdsl_exir.interpreters.program import ProgramRunner
from xdsl_exir.targets.iree import CompiledProgram, IreeOptions, compile_program

RTOL, ATOL = 1e-4, 1e-5
NUMPY_LIMIT_S = 5.0

TUNED_FLAGS: tuple[str, ...] = ()
"""IREE flags of a second column ("IREE* ms"), none by default: the defaults are the tuned set."""

OPTION_FIELDS = ("data_tiling", "threads")
"""`IreeOptions` fields a `--variant` may set (`data_tiling=0`; `threads=1`: that column on the
calling thread in a run of `--threads 2`, interleaved with the others, each count its own device)."""


@dataclass(frozen=True)
class Alternative:
    """What an extra IREE column ("IREE*", or "IREE*1", "IREE*2"... with several) changes:
    extra flags, lowering switches (`conv_pool._GROUPED_IM2COL=0`: a module attribute of
    `transforms.linalg_lowering`, or of any module named in full, `xdsl_exir.targets.iree._UNTILED_COLUMNS=0`)
    and `IreeOptions` fields (`data_tiling=0`)."""

    flags: tuple[str, ...] = ()
    lowering: tuple[tuple[str, int], ...] = ()
    options: tuple[tuple[str, int], ...] = ()

    def __bool__(self) -> bool:
        return bool(self.flags or self.lowering or self.options)

    def describe(self) -> str:
        return " ".join([*self.flags, *(f"{k}={v}" for k, v in (*self.lowering, *self.options))])

    @staticmethod
    def parse(text: str) -> Alternative:
        """`--variant`'s words: `--flag`s for iree-compile, `MODULE.ATTR=V` lowering
        switches, `data_tiling=0|1` or `threads=N` for those `IreeOptions` fields."""
        flags: list[str] = []
        lowering: list[tuple[str, int]] = []
        options: list[tuple[str, int]] = []
        for word in text.split():
            if word.startswith("-"):
                flags.append(word)
            elif word.split("=", 1)[0] in OPTION_FIELDS:
                key, value = word.split("=", 1)
                options.append((key, int(value)))
            elif "." in word.split("=", 1)[0] and "=" in word:
                key, value = word.split("=", 1)
                lowering.append((key, int(value)))
            else:
                known = ", ".join(OPTION_FIELDS)
                raise SystemExit(f"--variant: '{word}' is neither a --flag, MODULE.ATTR=V nor one of {known}")
        return Alternative(tuple(flags), tuple(lowering), tuple(options))

    def iree_options(self, base: IreeOptions) -> IreeOptions:
        """`base` with this column's flags and option fields."""
        options = dataclasses.replace(base, extra_flags=(*base.extra_flags, *self.flags))
        for key, value in self.options:
            options = dataclasses.replace(options, **{key: value if key == "threads" else bool(value)})
        return options

    @contextlib.contextmanager
    def switched(self) -> Iterator[None]:
        """The lowering switches set for the duration (the lowering runs in this process)."""
        saved: list[tuple[Any, str, Any]] = []
        try:
            for name, value in self.lowering:
                mod_name, attr = name.rsplit(".", 1)
                full = mod_name if mod_name.startswith("xdsl_exir.") else f"xdsl_exir.transforms.linalg_lowering.{mod_name}"
                mod = importlib.import_module(full)
                if not hasattr(mod, attr):
                    raise SystemExit(f"--lowering: {mod.__name__} has no {attr}")
                saved.append((mod, attr, getattr(mod, attr)))
                setattr(mod, attr, type(getattr(mod, attr))(value))
            yield
        finally:
            for mod, attr, old in reversed(saved):
                setattr(mod, attr, old)


CNNS = (
    "resnet18", "mobilenet", "regnet", "efficientnet", "mobilenetv3", "squeezenet", "shufflenet", "densenet",
    "cnn_bn", "resnet_blocks",
)  # fmt: skip
LARGEST = ("resnet18", "transformer")
"""The two models with the most multiply-adds (transformer ~1.9 G, ResNet-18 at 64x64 ~0.15 G;
the LLaMA block ~0.13 G and MobileNet ~0.05 G)."""


# -- models ---------------------------------------------------------------------


class MobileNetV1(nn.Module):
    """MobileNet-v1 (width 1.0): a strided 3x3 stem, 13 depthwise-separable blocks, mean pooling, fc."""

    BLOCKS = (
        (32, 64, 1), (64, 128, 2), (128, 128, 1), (128, 256, 2), (256, 256, 1), (256, 512, 2),
        *[(512, 512, 1)] * 5, (512, 1024, 2), (1024, 1024, 1),
    )  # fmt: skip

    def __init__(self, gen: torch.Generator, classes: int = 1000) -> None:
        super().__init__()
        layers: list[nn.Module] = [gen_zoo._conv_bn_relu6(3, 32, 3, 2, 1, gen)]
        for cin, cout, stride in self.BLOCKS:
            layers.append(gen_zoo._conv_bn_relu6(cin, cin, 3, stride, cin, gen))  # depthwise
            layers.append(gen_zoo._conv_bn_relu6(cin, cout, 1, 1, 1, gen))  # pointwise
        self.features = nn.Sequential(*layers)
        self.fc = nn.Linear(1024, classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(self.features(x).mean(dim=(2, 3)))


def resnet18(gen: torch.Generator) -> nn.Module:
    model = gen_zoo.ResNet18(gen, widths=(64, 128, 256, 512))
    model.fc = nn.Linear(512, 1000)
    return model


def _randn(gen: torch.Generator, *shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=gen)


SINGLE_CONVS: tuple[tuple[str, str, tuple[int, int, int, int, int], tuple[int, ...]], ...] = (
    ("conv3x3", "dense 3x3 64->64 at 32x32", (64, 64, 3, 1, 1), (1, 64, 32, 32)),
    ("conv1x1", "1x1 128->256 at 16x16", (128, 256, 1, 1, 1), (1, 128, 16, 16)),
    ("convdw", "depthwise 3x3, 256 channels at 16x16", (256, 256, 3, 1, 256), (1, 256, 16, 16)),
    ("convgroup", "grouped 3x3, 128 channels in 8 groups at 16x16", (128, 128, 3, 1, 8), (1, 128, 16, 16)),
    ("convstem", "strided 3x3 stem 3->32 at 64x64", (3, 32, 3, 2, 1), (1, 3, 64, 64)),
    ("conv3x3mid", "dense 3x3 256->256 at 4x4", (256, 256, 3, 1, 1), (1, 256, 4, 4)),
    ("conv3x3deep", "dense 3x3 512->512 at 2x2", (512, 512, 3, 1, 1), (1, 512, 2, 2)),
)
"""One convolution each (name, label, (in, out, kernel, stride, groups), input shape), mid-network
shapes of the CNNs above: flag and lowering choices are measured on these before whole models."""


def _single_conv_case(name: str, label: str, conv: tuple[int, int, int, int, int], shape: tuple[int, ...]) -> Case:
    cin, cout, k, stride, groups = conv
    return Case(
        name,
        f"one {label} convolution",
        lambda g: nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups),
        lambda g: (_randn(g, *shape),),
        default=False,
    )


def _layer(make: Callable[[], nn.Module]) -> Callable[[torch.Generator], nn.Module]:
    """A layer factory whose batch norms get random statistics (`architectures.randomize_bns`)."""
    return lambda g: arch.randomize_bns(make(), g)


NARROW_ROWS = (1, 4, 8, 9, 13, 17, 23, 25, 29, 31, 32, 33, 39, 47, 63, 64, 96, 97, 100, 128, 197)
NARROW_WEIGHTS = ((192, 768), (768, 768), (768, 3072), (4096, 4096))
"""The narrow matrix products of `LAYERS` (`lin<rows>_<in>x<out>`: one `nn.Linear` on that many rows), a
decoder's one token to ViT-tiny's 17 and past the data-tiling threshold, with weights from ViT-tiny's to a
large language model's (64 MiB)."""

LAYERS: tuple[tuple[str, str, Callable[[torch.Generator], nn.Module], tuple[int, ...]], ...] = (
    ("dw3", "depthwise 3x3 + BN + SiLU, 144 channels at 16x16", _layer(lambda: arch.conv_bn(144, 144, 3, 1, 144, nn.SiLU)), (1, 144, 16, 16)),
    ("dw3s2", "depthwise 3x3/2 + BN + SiLU, 96 channels at 32x32", _layer(lambda: arch.conv_bn(96, 96, 3, 2, 96, nn.SiLU)), (1, 96, 32, 32)),
    ("dw5", "depthwise 5x5 + BN + SiLU, 240 channels at 8x8", _layer(lambda: arch.conv_bn(240, 240, 5, 1, 240, nn.SiLU)), (1, 240, 8, 8)),
    ("dw5s2", "depthwise 5x5/2 + BN + SiLU, 144 channels at 16x16", _layer(lambda: arch.conv_bn(144, 144, 5, 2, 144, nn.SiLU)), (1, 144, 16, 16)),
    ("dw5small", "depthwise 5x5 + BN + SiLU, 672 channels at 4x4", _layer(lambda: arch.conv_bn(672, 672, 5, 1, 672, nn.SiLU)), (1, 672, 4, 4)),
    ("pw", "1x1 + BN + SiLU, 320->1280 at 2x2", _layer(lambda: arch.conv_bn(320, 1280, 1, 1, 1, nn.SiLU)), (1, 320, 2, 2)),
    ("se", "squeeze-excitation, 672 channels at 4x4, squeeze 28", lambda g: arch.SqueezeExcite(672, 28, nn.SiLU, nn.Sigmoid), (1, 672, 4, 4)),
    ("fire", "SqueezeNet fire module 128 -> 16 -> 64 + 64 at 15x15", lambda g: arch.Fire(128, 16, 64, 64), (1, 128, 15, 15)),
    ("maxpool", "max pooling 3x3/2 (ceil mode), 64 channels at 31x31", lambda g: nn.MaxPool2d(3, 2, ceil_mode=True), (1, 64, 31, 31)),
    ("fc1gelu", "ViT-tiny fc1 + GELU (erf), 192->768 on 17 tokens", lambda g: nn.Sequential(nn.Linear(192, 768), nn.GELU()), (1, 17, 192)),
    *(
        (f"lin{rows}_{k}x{n}", f"Linear({k}, {n}) on {rows} rows", lambda g, k=k, n=n: nn.Linear(k, n), (1, rows, k))
        for k, n in NARROW_WEIGHTS
        for rows in NARROW_ROWS
    ),
    *(
        (f"llama{t}{tag}", f"LLaMA block d{d} ({h} hidden) at {t} tokens",
         lambda g, d=d, h=h: gen_zoo.LlamaBlock(g, dim=d, heads=4, hidden=h, max_seq=128), (1, t, d))
        for tag, d, h in (("", 256, 768), ("w", 1024, 2816))
        for t in (1, 17)
    ),  # fmt: skip
)
"""Single layers of EfficientNet-B0, SqueezeNet and ViT-tiny, the heaviest dispatches of their IREE profiles
(name, label, factory, input shape): lowering forms are compared on these, run only when named."""


def _layer_case(name: str, label: str, make: Callable[[torch.Generator], nn.Module], shape: tuple[int, ...]) -> Case:
    return Case(name, f"one {label}", make, lambda g: (_randn(g, *shape),), default=False)


@dataclass
class Case:
    name: str
    label: str
    make: Callable[[torch.Generator], nn.Module] | None = None
    args: Callable[[torch.Generator], tuple[torch.Tensor, ...]] | None = None
    zoo: bool = False
    default: bool = True
    """Run without `--models` (the single convolutions run only when named)."""


CASES = [
    Case("resnet18", "ResNet-18 1x3x64x64", resnet18, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case(
        "transformer",
        "4-layer encoder d256 4x128",
        lambda g: gen_zoo.TransformerEncoder(layers=4, dim=256, heads=4, ff=1024),
        lambda g: (_randn(g, 4, 128, 256),),
    ),
    Case(
        "llama",
        "LLaMA block d256 1x128",
        lambda g: gen_zoo.LlamaBlock(g, dim=256, heads=4, hidden=768, max_seq=128),
        lambda g: (_randn(g, 1, 128, 256),),
    ),
    Case("mobilenet", "MobileNet-v1 1x3x64x64", MobileNetV1, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("regnet", "RegNet-X-400MF 1x3x64x64", arch.regnet_x_400mf, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("efficientnet", "EfficientNet-B0 1x3x64x64", arch.efficientnet_b0, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("mobilenetv3", "MobileNetV3-small 1x3x64x64", arch.mobilenet_v3_small, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("squeezenet", "SqueezeNet 1.1 1x3x64x64", arch.squeezenet, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("shufflenet", "ShuffleNetV2 1.0x 1x3x64x64", arch.shufflenet_v2, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("densenet", "DenseNet-121 1x3x64x64", arch.densenet121, lambda g: (_randn(g, 1, 3, 64, 64),)),
    Case("vit", "ViT-tiny 1x3x64x64", lambda g: arch.vit_tiny(64), lambda g: (_randn(g, 1, 3, 64, 64),)),
    *(Case(n, f"zoo {n}", zoo=True) for n in ("mlp", "cnn_bn", "resnet_blocks", "attention")),
    *(_single_conv_case(*c) for c in SINGLE_CONVS),
    *(_layer_case(*c) for c in LAYERS),
]


def build(case: Case, tmp: pathlib.Path) -> tuple[nn.Module, tuple[torch.Tensor, ...], pathlib.Path]:
    """The eager model, its inputs, and the core-ATen `.pt2` the compilers take."""
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    if not case.zoo:
        assert case.make is not None and case.args is not None
        model = case.make(gen).eval()
        args = case.args(gen)
        ep = torch.export.export(model, args).run_decompositions()
        path = tmp / f"{case.name}.core.pt2"
        torch.export.save(ep, path)
        return model, args, path
    # The zoo archive as it is; eager is the zoo's own model class rebuilt from the
    # same seeds (checked against the zoo's expected outputs), else the archive's module.
    path = ZOO / f"{case.name}.core.pt2"
    with np.load(ZOO / f"{case.name}.inputs.npz") as f:
        args = tuple(torch.from_numpy(f[f"arg{i}"]) for i in range(len(f.files)))
    with np.load(ZOO / f"{case.name}.expected.npz") as f:
        expected = [f[f"out{i}"] for i in range(len(f.files))]
    entry = next(e for e in gen_zoo.ENTRIES if e.name == case.name)
    model = entry.make(gen).eval()
    with torch.inference_mode():
        got = _flat(model(*args))
    if len(got) != len(expected) or not all(np.allclose(g, w, rtol=1e-5, atol=1e-6) for g, w in zip(got, expected)):
        model = torch.export.load(path).module()
    return model, args, path


# -- runners ----------------------------------------------------------------------


def _flat(out: Any) -> list[np.ndarray]:
    return [np.asarray(t.detach().numpy() if isinstance(t, torch.Tensor) else t) for t in pytree.tree_leaves(out)]


def max_error(got: Sequence[Any], want: Sequence[np.ndarray]) -> tuple[float, bool]:
    """Largest absolute error over all outputs, and whether all are within RTOL/ATOL."""
    if len(got) != len(want):
        return math.inf, False
    worst, ok = 0.0, True
    for g, w in zip(got, want):
        g = np.asarray(g)
        if g.shape != w.shape:
            return math.inf, False
        diff = np.abs(g.astype(np.float64) - w.astype(np.float64))
        worst = max(worst, float(diff.max()) if diff.size else 0.0)
        ok = ok and bool(np.allclose(g, w, rtol=RTOL, atol=ATOL))
    return worst, ok


def ort_runner(model: nn.Module, args: tuple[torch.Tensor, ...], tmp: pathlib.Path) -> Callable[[], list[Any]]:
    import onnxruntime as ort

    path = tmp / "model.onnx"
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, str(path), dynamo=False)
    so = ort.SessionOptions()
    so.intra_op_num_threads = THREADS
    so.inter_op_num_threads = 1
    sess = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    feed = {i.name: a.numpy() for i, a in zip(sess.get_inputs(), args)}
    return lambda: sess.run(None, feed)


def one_line(e: BaseException) -> str:
    lines = [ln.strip() for ln in str(e).strip().splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[0] if lines else ''}"[:240]


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}
"""`--clock`: wall time, or the CPU time of this process. On a machine loaded by other work the
CPU time of a one-thread run is the steadier figure (time spent waiting for a core is not
counted); with several threads it adds up the threads' time, so it is not a latency."""
CLOCK = "wall"


def interleave(fns: dict[str, Callable[[], Any]], reps: int, sample_s: float) -> dict[str, float]:
    """Median seconds per call of each function, each round in a new order (seeded, so
    runs repeat): with a rotating start alone the order stayed fixed, so at two threads
    the same runner always followed onnxruntime, whose idle threads spin for a while
    after a call. Each sample is as many calls as fill `sample_s` (at least one), timed
    by `CLOCK`, after a quarter as many untimed calls of the same function (`SETTLE`):
    those take the tail of the previous runner's work (torch's and onnxruntime's pools
    spin-wait after a call and hold the cores) and leave each sample what the runner
    does alone, as a program calling only it would see."""
    clock = CLOCKS[CLOCK]
    number: dict[str, int] = {}
    for name, fn in fns.items():
        fn()  # warm-up
        _, t = timed(fn)
        number[name] = max(1, min(1000, int(sample_s / max(t, 1e-7))))
    names = list(fns)
    times: dict[str, list[float]] = {n: [] for n in names}
    gc.collect()
    order = random.Random(len(names) * 1000 + reps)
    for _ in range(reps):
        for name in order.sample(names, len(names)):
            fn, k = fns[name], number[name]
            for _ in range(math.ceil(k * SETTLE)):
                fn()
            t = clock()
            for _ in range(k):
                fn()
            times[name].append((clock() - t) / k)
    return {n: statistics.median(ts) for n, ts in times.items()}


SETTLE = 0.25
"""Untimed calls before each sample, as a share of the sample's calls (`interleave`; `--settle`)."""


class _Skipped(Exception):
    """A runner left out by an option."""


@dataclass
class Row:
    name: str
    label: str
    ms: dict[str, float] = field(default_factory=dict)
    numpy_one_call: float | None = None
    compile_s: float | None = None
    cold_cache_s: float | None = None
    cold_nocache_s: float | None = None
    errors: list[str] = field(default_factory=list)
    iree_ok: bool = False
    ort_note: str = ""


def bench(
    case: Case,
    tmp: pathlib.Path,
    reps: int,
    sample_s: float,
    tuned: Sequence[Alternative],
    cold: bool = True,
    numpy: bool = True,
) -> Row:
    row = Row(case.name, case.label)
    try:
        model, args, path = build(case, tmp)
    except Exception as e:
        row.errors.append(f"export: {one_line(e)}")
        return row
    np_args = [a.numpy() for a in args]
    with torch.inference_mode():
        want = _flat(model(*args))
    fns: dict[str, Callable[[], Any]] = {}
    checks: list[str] = []

    def check(name: str, got: Sequence[Any]) -> bool:
        err, ok = max_error(got, want)
        checks.append(f"{name} {err:.1e}{'' if ok else ' MISMATCH'}")
        return ok

    # IREE: no cache (compile time, cold), then a warm cache (cold).
    cache = tmp / f"cache-{case.name}"
    try:
        compiled, row.compile_s = timed(lambda: compile_program(path, IreeOptions(threads=THREADS, use_cache=False)))
        got, first = timed(lambda: compiled(*np_args))
        row.cold_nocache_s = row.compile_s + first
        row.iree_ok = check("IREE", got)
        if not row.iree_ok:
            row.errors.append("IREE: outputs differ from eager (not timed)")
        if cold:
            compile_program(path, IreeOptions(threads=THREADS, cache_dir=str(cache)))  # fills the cache
            t0 = time.perf_counter()
            warm = compile_program(path, IreeOptions(threads=THREADS, cache_dir=str(cache)))
            warm(*np_args)
            row.cold_cache_s = time.perf_counter() - t0
            assert warm.compile.from_cache, "the second compile_program missed the cache"
        if row.iree_ok:
            fns["IREE"] = lambda c=compiled: c(*np_args)
    except Exception as e:
        row.errors.append(f"IREE: {one_line(e)}")
    for col, alt in zip(variant_columns(tuned), tuned):
        if not row.iree_ok:
            break
        try:
            with alt.switched():
                tuned_prog: CompiledProgram = compile_program(path, alt.iree_options(IreeOptions(threads=THREADS, use_cache=False)))
            if check(col, tuned_prog(*np_args)):
                fns[col] = lambda c=tuned_prog: c(*np_args)
        except Exception as e:
            row.errors.append(f"{col}: {one_line(e)}")

    def eager() -> Any:
        with torch.inference_mode():
            return model(*args)

    fns["eager"] = eager
    try:
        ort_fn = ort_runner(model, args, tmp)
        if check("ORT", ort_fn()):
            fns["ORT"] = ort_fn
        else:
            row.ort_note = "mismatch"
    except Exception as e:
        row.errors.append(f"ORT: {one_line(e)}")
    try:
        if not numpy:
            raise _Skipped
        runner = ProgramRunner(load_pt2(path.read_bytes(), path.name))
        got, row.numpy_one_call = timed(lambda: runner.run(np_args))
        if check("numpy", got) and row.numpy_one_call <= NUMPY_LIMIT_S:
            fns["numpy"] = lambda: runner.run(np_args)
    except _Skipped:
        pass
    except Exception as e:
        row.errors.append(f"numpy: {one_line(e)}")
    print(f"  {case.name}: max |error| vs eager: {', '.join(checks) or '-'}", flush=True)
    torch.set_num_threads(THREADS)
    row.ms = {k: v * 1e3 for k, v in interleave(fns, reps, sample_s).items()}
    return row


# -- report ---------------------------------------------------------------------


def fmt(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def fmt_ms(x: float | None) -> str:
    """Three significant digits without an exponent: 0.0234, 2.31, 23.7, 321."""
    if x is None:
        return "-"
    return f"{x:.{min(4, max(0, 2 - math.floor(math.log10(x)))) if x > 0 else 2}f}"


def ratio(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else a / b


def variant_columns(tuned: Sequence[Alternative]) -> list[str]:
    """The extra IREE columns' names: "IREE*" alone, else "IREE*1", "IREE*2", ..."""
    return ["IREE*"] if len(tuned) == 1 else [f"IREE*{i + 1}" for i in range(len(tuned))]


def report(rows: list[Row], tuned: Sequence[Alternative], reps: int) -> None:
    extra = variant_columns(tuned)
    cols = ["model", "IREE ms"] + [f"{c} ms" for c in extra] + [
        "eager ms", "ORT ms", "numpy ms", "IREE/eager", "IREE/ORT", "numpy/IREE",
        "compile s", "cold (cache) s", "cold (no cache) s",
    ]  # fmt: skip
    table: list[list[str]] = []
    for r in rows:
        iree, eager, ort_ms = r.ms.get("IREE"), r.ms.get("eager"), r.ms.get("ORT")
        numpy_ms = r.ms.get("numpy")
        numpy_cell = fmt_ms(numpy_ms)
        if numpy_ms is None and r.numpy_one_call is not None and r.numpy_one_call > NUMPY_LIMIT_S:
            numpy_ms = r.numpy_one_call * 1e3
            numpy_cell = f"{numpy_ms:.0f}*"
        ort_cell = fmt_ms(ort_ms) if ort_ms is not None else ("n/a" if r.ort_note or any(e.startswith("ORT") for e in r.errors) else "-")
        cells = [r.name, fmt_ms(iree)] + [fmt_ms(r.ms.get(c)) for c in extra] + [
            fmt_ms(eager), ort_cell, numpy_cell,
            fmt(ratio(iree, eager)), fmt(ratio(iree, ort_ms)), fmt(ratio(numpy_ms, iree), 1),
            fmt(r.compile_s), fmt(r.cold_cache_s), fmt(r.cold_nocache_s),
        ]  # fmt: skip
        table.append(cells)
    widths = [max(len(c), *(len(t[i]) for t in table)) for i, c in enumerate(cols)]
    line = lambda cells: " | ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths)))  # noqa: E731 - a one-line formatter for the table below
    print()
    what = "wall time" if CLOCK == "wall" else "CPU time of the process"
    print(f"{THREADS} thread(s) each, median {what} per call of {reps} interleaved samples (2 shared cores: noisy)")
    print(line(cols))
    print("-+-".join("-" * w for w in widths))
    for r, cells in zip(rows, table):
        print(line(cells))
        for e in r.errors:
            print(f"    {r.name}: {e}")
    for col, alt in zip(extra, tuned):
        print(f"{col} = IREE with {alt.describe()}")
    if any(r.numpy_one_call and r.numpy_one_call > NUMPY_LIMIT_S for r in rows):
        print(f"* numpy: one call took > {NUMPY_LIMIT_S:.0f} s, so it is one untimed-loop call, not in the steady state")
    print_means(rows, tuned)
    print("\ntargets (IREE with the default flags" + ("; the variants on the lines below" if tuned else "") + "):")
    for col in ("IREE", *extra):
        print_targets(rows, col)


def geomean(values: Sequence[float]) -> float | None:
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def print_means(rows: list[Row], tuned: Sequence[Alternative]) -> None:
    """Geometric means of the IREE columns over eager and onnxruntime, over the models each pair ran."""
    print()
    extra = variant_columns(tuned)
    for col in ("IREE", *extra):
        for other in ("eager", "ORT"):
            pairs = [(r.name, r.ms[col] / r.ms[other]) for r in rows if col in r.ms and other in r.ms]
            worst = max(pairs, key=lambda p: p[1]) if pairs else None
            mean = geomean([v for _, v in pairs])
            where = f", worst {worst[0]} {worst[1]:.2f}" if worst else ""
            print(f"  geometric mean {col}/{other}: {fmt(mean)} over {len(pairs)} models{where}")
    for col in extra:
        pairs = [r.ms[col] / r.ms["IREE"] for r in rows if col in r.ms and "IREE" in r.ms]
        print(f"  geometric mean {col}/IREE: {fmt(geomean(pairs))} over {len(pairs)} models")


def print_targets(rows: list[Row], col: str) -> None:
    def target(title: str, names: Sequence[str], value: Callable[[Row], float | None], ok: Callable[[float], bool]) -> None:
        parts, met = [], True
        for n in names:
            r = next((r for r in rows if r.name == n), None)
            if r is None:
                continue
            v = value(r)
            parts.append(f"{n} {fmt(v)}" if v is not None else f"{n} not measured")
            met = met and v is not None and ok(v)
        if parts:
            print(f"  {col:5s} {title}: {'MET' if met else 'NOT MET'}  ({', '.join(parts)})")

    def numpy_speedup(r: Row) -> float | None:
        n = r.ms.get("numpy")
        if n is None and r.numpy_one_call is not None and r.numpy_one_call > NUMPY_LIMIT_S:
            n = r.numpy_one_call * 1e3
        return ratio(n, r.ms.get(col))

    target(
        "steady state <= 1.0x torch eager on every model",
        [r.name for r in rows], lambda r: ratio(r.ms.get(col), r.ms.get("eager")), lambda v: v <= 1.0,
    )  # fmt: skip
    target(
        "<= 1.5x onnxruntime on the CNNs and the transformer",
        [*CNNS, "transformer"], lambda r: ratio(r.ms.get(col), r.ms.get("ORT")), lambda v: v <= 1.5,
    )  # fmt: skip
    target(">= 3x faster than the numpy interpreter on the two largest", LARGEST, numpy_speedup, lambda v: v >= 3.0)


def main(argv: Sequence[str] | None = None) -> None:
    global CLOCK, SETTLE
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0].strip())
    parser.add_argument("--reps", type=int, default=None, help="interleaved samples per runner (default 15, --quick 3)")
    parser.add_argument("--models", default="", help=f"comma-separated subset of {','.join(c.name for c in CASES)}")
    parser.add_argument("--quick", action="store_true", help="few short samples: a smoke run")
    parser.add_argument("--iree-flags", default=None, help="extra IREE flags for a second IREE* column (default: none)")
    parser.add_argument("--no-tuned", action="store_true", help="no IREE* column")
    parser.add_argument(
        "--variant", action="append", default=[], metavar="WORDS",
        help="another IREE column (repeatable): --flags for iree-compile, MODULE.ATTR=V lowering switches, data_tiling=0|1, threads=N",
    )  # fmt: skip
    parser.add_argument("--no-cold", action="store_true", help="no cold-start figures (saves two compiles a model)")
    parser.add_argument("--no-numpy", action="store_true", help="leave the numpy interpreter out")
    parser.add_argument("--settle", type=float, default=SETTLE, help="untimed calls before each sample, as a share of its calls (0: none)")
    parser.add_argument("--threads", type=int, default=1, help="threads of every runner (read before numpy loads)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall", help="steady-state clock (cpu: steadier on a loaded machine at one thread)")
    parser.add_argument(
        "--lowering", action="append", default=[], metavar="MODULE.ATTR=VALUE",
        help="a lowering switch of the IREE* column, e.g. conv_pool._GROUPED_IM2COL=0 (repeatable)",
    )  # fmt: skip
    opts = parser.parse_args(argv)
    reps = opts.reps or (3 if opts.quick else 15)
    CLOCK, SETTLE = opts.clock, opts.settle
    sample_s = 0.002 if opts.quick else 0.02
    flags = () if opts.no_tuned else (tuple(opts.iree_flags.split()) if opts.iree_flags is not None else TUNED_FLAGS)
    lowering = tuple((k, int(v)) for k, v in (a.split("=", 1) for a in opts.lowering))
    first = Alternative(flags, () if opts.no_tuned else lowering)
    tuned = [a for a in (first, *(Alternative.parse(v) for v in opts.variant)) if a]
    wanted = [m for m in opts.models.split(",") if m]
    unknown = set(wanted) - {c.name for c in CASES}
    if unknown:
        parser.error(f"unknown models: {', '.join(sorted(unknown))}")
    torch.set_num_threads(THREADS)
    torch.set_num_interop_threads(1)
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="exir-bench-") as d:
        for case in CASES:
            if (wanted and case.name not in wanted) or (not wanted and not case.default):
                continue
            print(f"{case.name} ({case.label}) ...", flush=True)
            row = bench(case, pathlib.Path(d), reps, sample_s, tuned, not opts.no_cold, not opts.no_numpy)
            rows.append(row)
            # each model's figures at once, so that a long run interrupted keeps what it measured
            print(f"  {case.name}: " + ", ".join(f"{k} {fmt_ms(v)} ms" for k, v in row.ms.items()), flush=True)
    report(rows, tuned, reps)


if __name__ == "__main__":
    main()
