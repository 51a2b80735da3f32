// Convolution, pooling and reductions lowered to linalg on tensors. A conv with
// bias pads its input with tensor.pad, starts its accumulator from the bias
// broadcast along the channels and is the named linalg.conv_2d_nchw_fchw; max
// pooling of a symbolic batch whose indices nothing uses is linalg.pooling_nchw_max over -inf
// padding; a mean is a reduction generic then a division by the count; softmax
// subtracts the row maximum. Grouped convolutions are im2col columns and a
// batched contraction generic, depthwise ones are a generic
// with the window as reduction dims. max.dim keeps its dim through a constant-0
// output map and carries the index beside the value.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">, <user_input "bias">] outputs [<user_output "probs">] {
    exir.graph @forward(%x: !exir.tensor<[s0, 3, 8, 8], float32>, %weight: !exir.tensor<[4, 3, 3, 3], float32>, %bias: !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32> {
      %conv = aten.convolution.default(%x, %weight, %bias, [1, 1], [1, 1], [1, 1], false, [0, 0], 1) : (!exir.tensor<[s0, 3, 8, 8], float32>, !exir.tensor<[4, 3, 3, 3], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4, 8, 8], float32>
      %relu = aten.relu.default(%conv) : (!exir.tensor<[s0, 4, 8, 8], float32>) -> !exir.tensor<[s0, 4, 8, 8], float32>
      %pool, %indices = aten.max_pool2d_with_indices.default(%relu, [2, 2], [2, 2]) : (!exir.tensor<[s0, 4, 8, 8], float32>) -> (!exir.tensor<[s0, 4, 4, 4], float32>, !exir.tensor<[s0, 4, 4, 4], int64>)
      %mean = aten.mean.dim(%pool, [-1, -2]) : (!exir.tensor<[s0, 4, 4, 4], float32>) -> !exir.tensor<[s0, 4], float32>
      %probs = aten._softmax.default(%mean, 1, false) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
      exir.output %probs : !exir.tensor<[s0, 4], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(%x: tensor<?x3x8x8xf32> {{.*}}, %weight: tensor<4x3x3x3xf32> {{.*}}, %bias: tensor<4xf32> {{.*}}) -> (tensor<?x4xf32> {{.*}})
// CHECK:         %[[S0:.*]] = tensor.dim %x, %{{.*}} : tensor<?x3x8x8xf32>
// CHECK:         %[[PADDED:.*]] = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
// CHECK:           tensor.yield %{{.*}} : f32
// CHECK-NEXT:    } : tensor<?x3x8x8xf32> to tensor<?x3x10x10xf32>
// CHECK:         %[[EMPTY:.*]] = tensor.empty(%[[S0]]) : tensor<?x4x8x8xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<4xf32>) outs(%[[EMPTY]] : tensor<?x4x8x8xf32>)
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%[[PADDED]], %weight : tensor<?x3x10x10xf32>, tensor<4x3x3x3xf32>) outs(%[[INIT]] : tensor<?x4x8x8xf32>) -> tensor<?x4x8x8xf32>
// CHECK:         %[[RELU:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<?x4x8x8xf32>)
// CHECK:           arith.cmpf olt
// CHECK-NEXT:      arith.select
// CHECK:         %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:    %[[POOL_INIT:.*]] = linalg.fill ins(%[[NEG_INF]] : f32) outs(%{{.*}} : tensor<?x4x4x4xf32>)
// CHECK-NEXT:    %[[WINDOW:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK-NEXT:    %[[POOL:.*]] = linalg.pooling_nchw_max {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%[[RELU]], %[[WINDOW]] : tensor<?x4x8x8xf32>, tensor<2x2xf32>) outs(%[[POOL_INIT]] : tensor<?x4x4x4xf32>)
// Sums (the mean, the softmax denominator) accumulate in float64 and round once, as
// torch's CPU reductions are accurate at any length.
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction", "reduction"]} ins(%[[POOL]] : tensor<?x4x4x4xf32>) outs(%{{.*}} : tensor<?x4xf64>)
// CHECK:           arith.extf %{{.*}} : f32 to f64
// CHECK-NEXT:      arith.addf %{{.*}}, %{{.*}} : f64
// CHECK:         %[[COUNT:.*]] = arith.constant 1.600000e+01 : f64
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[SUM]] : tensor<?x4xf64>)
// CHECK:           arith.divf %{{.*}}, %[[COUNT]] : f64
// CHECK-NEXT:      arith.truncf %{{.*}} : f64 to f32
// CHECK:         %[[MAX:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%[[MEAN]] : tensor<?x4xf32>)
// CHECK:           arith.maximumf
// The exponentials once, as torch's kernel: written, summed, scaled by the sum's reciprocal.
// CHECK:         %[[EXP:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[MEAN]], %[[MAX]] : tensor<?x4xf32>, tensor<?xf32>)
// CHECK:           arith.subf
// CHECK-NEXT:      math.exp
// CHECK-NEXT:      linalg.yield
// CHECK:         %[[DENOM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[EXP]] : tensor<?x4xf32>)
// CHECK-NEXT:    ^{{.*}}(%[[E:.*]]: f32, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[WIDE:.*]] = arith.extf %[[E]] : f32 to f64
// CHECK-NEXT:      arith.addf %[[WIDE]], %[[ACC]] : f64
// CHECK:         %[[PROBS:.*]] = linalg.generic {{.*}} ins(%[[EXP]], %[[DENOM]] : tensor<?x4xf32>, tensor<?xf64>)
// CHECK-NOT:       math.exp
// CHECK:           arith.truncf
// CHECK:           %[[RECIPROCAL:.*]] = arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:      arith.mulf %{{.*}}, %[[RECIPROCAL]] : f32
// CHECK:         func.return %[[PROBS]] : tensor<?x4xf32>

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "dw">] outputs [<user_output "grouped">, <user_output "depthwise">] {
    exir.graph @forward(%x: !exir.tensor<[1, 4, 6, 6], float32>, %w: !exir.tensor<[6, 2, 3, 3], float32>, %dw: !exir.tensor<[4, 1, 3, 3], float32>) -> (!exir.tensor<[1, 6, 4, 4], float32>, !exir.tensor<[1, 4, 3, 3], float32>) {
      %grouped = aten.convolution.default(%x, %w, none, [1, 1], [0, 0], [1, 1], false, [0, 0], 2) : (!exir.tensor<[1, 4, 6, 6], float32>, !exir.tensor<[6, 2, 3, 3], float32>) -> !exir.tensor<[1, 6, 4, 4], float32>
      %depthwise = aten.convolution.default(%x, %dw, none, [2, 2], [1, 1], [1, 1], false, [0, 0], 4) : (!exir.tensor<[1, 4, 6, 6], float32>, !exir.tensor<[4, 1, 3, 3], float32>) -> !exir.tensor<[1, 4, 3, 3], float32>
      exir.output %grouped, %depthwise : !exir.tensor<[1, 6, 4, 4], float32>, !exir.tensor<[1, 4, 3, 3], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward
// The grouped one: im2col columns [n, g, kh*kw*c, oh*ow] copied tap by tap (a
// unit-stride slice of the input per tap, inserted at its place), contracted with
// the weight [g, f, kh*kw*c] (its taps moved ahead of its channels) onto the init.
// CHECK:         %[[T0:.*]] = tensor.extract_slice %x[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1] : tensor<1x4x6x6xf32> to tensor<1x4x4x4xf32>
// CHECK-COUNT-8: tensor.extract_slice %x
// CHECK:         %[[E0:.*]] = tensor.expand_shape %[[T0]] {{.*}} output_shape [1, 2, 1, 2, 4, 4] : tensor<1x4x4x4xf32> into tensor<1x2x1x2x4x4xf32>
// CHECK-NEXT:    tensor.insert_slice %[[E0]] into %{{.*}}[0, 0, 0, 0, 0, 0] [1, 2, 1, 2, 4, 4] [1, 1, 1, 1, 1, 1] : tensor<1x2x1x2x4x4xf32> into tensor<1x2x9x2x4x4xf32>
// CHECK:         %[[COLS6:.*]] = tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 8, 0, 0, 0]
// CHECK-NEXT:    %[[COLS:.*]] = tensor.collapse_shape %[[COLS6]] {{.*}} : tensor<1x2x9x2x4x4xf32> into tensor<1x2x18x16xf32>
// CHECK:         %[[WT:.*]] = linalg.transpose ins(%w:tensor<6x2x3x3xf32>) outs(%{{.*}}:tensor<6x3x3x2xf32>) permutation = [0, 2, 3, 1]
// CHECK-NEXT:    %[[W2:.*]] = tensor.collapse_shape %[[WT]] {{.*}} : tensor<6x3x3x2xf32> into tensor<6x18xf32>
// CHECK-NEXT:    %[[W:.*]] = tensor.expand_shape %[[W2]] {{.*}} : tensor<6x18xf32> into tensor<2x3x18xf32>
// CHECK-NEXT:    %[[INIT5:.*]] = tensor.expand_shape %{{.*}} : tensor<1x6x4x4xf32> into tensor<1x2x3x4x4xf32>
// CHECK-NEXT:    %[[INIT:.*]] = tensor.collapse_shape %[[INIT5]] {{.*}} : tensor<1x2x3x4x4xf32> into tensor<1x2x3x16xf32>
// CHECK-NEXT:    %[[G:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[W]], %[[COLS]] : tensor<2x3x18xf32>, tensor<1x2x18x16xf32>) outs(%[[INIT]] : tensor<1x2x3x16xf32>)
// CHECK:           arith.mulf
// CHECK-NEXT:      arith.addf
// CHECK:         %[[G5:.*]] = tensor.expand_shape %[[G]] {{.*}} : tensor<1x2x3x16xf32> into tensor<1x2x3x4x4xf32>
// CHECK-NEXT:    %[[GROUPED:.*]] = tensor.collapse_shape %[[G5]] {{\[}}[0 : i64], [1 : i64, 2 : i64], [3 : i64], [4 : i64]] : tensor<1x2x3x4x4xf32> into tensor<1x6x4x4xf32>
// The depthwise one, stride 2: the padded input's stride phases (a reshape and one
// transpose), a unit-stride slice of them per kernel tap, a [C] slice of the weight
// per tap, and one elementwise generic summing tap * weight onto the init.
// CHECK:         %[[PH6:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 4, 4, 2, 4, 2] : tensor<1x4x8x8xf32> into tensor<1x4x4x2x4x2xf32>
// CHECK:         %[[PH:.*]] = linalg.transpose ins(%[[PH6]]:tensor<1x4x4x2x4x2xf32>) outs(%{{.*}}:tensor<1x4x2x2x4x4xf32>) permutation = [0, 1, 3, 5, 2, 4]
// CHECK-NEXT:    %[[T0:.*]] = tensor.extract_slice %[[PH]][0, 0, 0, 0, 0, 0] [1, 4, 1, 1, 3, 3] [1, 1, 1, 1, 1, 1] : tensor<1x4x2x2x4x4xf32> to tensor<1x4x3x3xf32>
// CHECK-NEXT:    %[[T1:.*]] = tensor.extract_slice %[[PH]][0, 0, 0, 1, 0, 0] [1, 4, 1, 1, 3, 3]
// CHECK-NEXT:    %[[T2:.*]] = tensor.extract_slice %[[PH]][0, 0, 0, 0, 0, 1] [1, 4, 1, 1, 3, 3]
// CHECK-COUNT-6: tensor.extract_slice %[[PH]]
// CHECK-NEXT:    %[[W0:.*]] = tensor.extract_slice %dw[0, 0, 0, 0] [4, 1, 1, 1] [1, 1, 1, 1] : tensor<4x1x3x3xf32> to tensor<4xf32>
// CHECK-COUNT-8: tensor.extract_slice %dw
// CHECK-NEXT:    %[[DEPTHWISE:.*]] = linalg.generic {{{.*}}affine_map<(d0, d1, d2, d3) -> (d1)>{{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[T0]], %[[T1]], %[[T2]], {{.*}}, %[[W0]], {{.*}} : {{.*}})
// CHECK-NEXT:    ^bb0(%[[A0:[^:]*]]: f32,
// CHECK-COUNT-9:   arith.mulf
// CHECK:         func.return %[[GROUPED]], %[[DEPTHWISE]]

// -----

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "values">, <user_output "indices">] {
    exir.graph @forward(%x: !exir.tensor<[s0, 5], float32>) -> (!exir.tensor<[s0, 1], float32>, !exir.tensor<[s0, 1], int64>) {
      %values, %indices = aten.max.dim(%x, -1, true) : (!exir.tensor<[s0, 5], float32>) -> (!exir.tensor<[s0, 1], float32>, !exir.tensor<[s0, 1], int64>)
      exir.output %values, %indices : !exir.tensor<[s0, 1], float32>, !exir.tensor<[s0, 1], int64>
    }
  }
}

// CHECK-LABEL: func.func @forward(%x: tensor<?x5xf32> {{.*}})
// CHECK-DAG:     %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-DAG:     %[[NONE:.*]] = arith.constant 9223372036854775807 : i64
// CHECK:         %[[V:.*]], %[[I:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x5xf32>) outs(%{{.*}}, %{{.*}} : tensor<?x1xf32>, tensor<?x1xi64>) {
// CHECK-NEXT:    ^bb0(%[[VAL:.*]]: f32, %[[CUR:.*]]: f32, %[[CI:.*]]: i64):
// CHECK-NEXT:      %[[D:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[IDX:.*]] = arith.index_cast %[[D]] : index to i64
// CHECK:           %[[TAKE:.*]] = arith.select
// CHECK-NEXT:      %[[NV:.*]] = arith.select %[[TAKE]], %[[VAL]], %[[CUR]] : f32
// CHECK-NEXT:      %[[NI:.*]] = arith.select %[[TAKE]], %[[IDX]], %[[CI]] : i64
// CHECK-NEXT:      linalg.yield %[[NV]], %[[NI]] : f32, i64
// CHECK:         func.return %[[V]], %[[I]] : tensor<?x1xf32>, tensor<?x1xi64>
