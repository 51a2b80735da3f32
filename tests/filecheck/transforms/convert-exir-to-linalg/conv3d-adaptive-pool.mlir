// 3-D convolutions have no named linalg op in xDSL: each is the sum, over the
// taps of its leading (depth) kernel dim, of 2-D convolutions of weight[:, :, k]
// with the depth positions k * dilation + od * stride, depth folded into the
// batch (a dim-moving generic, a strided extract_slice, collapse_shape); each
// tap accumulates onto the previous one's result, the first onto the bias.
// Several groups are im2col columns and a batched contraction; the high side is padded or cropped
// to what the windows read.
// Adaptive average pooling with uneven windows sums along one pooled dim at a
// time (a contraction with a 0/1 window-membership matrix), then divides by
// each box's element count. 3-D max pooling is the 2-D windowed generic with
// one more window dim.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">, <user_input "bias">] outputs [<user_output "y">] {
    exir.graph @forward(%x: !exir.tensor<[s0, 4, 5, 6, 7], float32>, %weight: !exir.tensor<[6, 2, 3, 3, 3], float32>, %bias: !exir.tensor<[6], float32>) -> !exir.tensor<[s0, 6, 5, 2, 7], float32> {
      %y = aten.convolution.default(%x, %weight, %bias, [1, 2, 1], [1, 0, 2], [1, 1, 2], false, [0, 0, 0], 2) : (!exir.tensor<[s0, 4, 5, 6, 7], float32>, !exir.tensor<[6, 2, 3, 3, 3], float32>, !exir.tensor<[6], float32>) -> !exir.tensor<[s0, 6, 5, 2, 7], float32>
      exir.output %y : !exir.tensor<[s0, 6, 5, 2, 7], float32>
    }
  }
}


// CHECK-LABEL: func.func @forward(%x: tensor<?x4x5x6x7xf32> {{.*}}, %weight: tensor<6x2x3x3x3xf32> {{.*}}, %bias: tensor<6xf32> {{.*}})
// CHECK:         %[[PADDED:.*]] = tensor.pad %x low[0, 0, 1, 0, 2] high[0, 0, 1, 0, 2] {
// CHECK:         } : tensor<?x4x5x6x7xf32> to tensor<?x4x7x6x11xf32>
// CHECK:         %[[READ:.*]] = tensor.extract_slice %[[PADDED]][0, 0, 0, 0, 0] [%{{.*}}, 4, 7, 5, 11] [1, 1, 1, 1, 1] : tensor<?x4x7x6x11xf32> to tensor<?x4x7x5x11xf32>
// CHECK:         %[[INIT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1)>, {{.*}}} ins(%bias : tensor<6xf32>)
// CHECK:         %[[DEPTH_FIRST:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>], {{.*}}} ins(%[[READ]] : tensor<?x4x7x5x11xf32>) outs(%{{.*}} : tensor<?x7x4x5x11xf32>)
// CHECK:         %[[INIT_MOVED:.*]] = linalg.generic {{.*}} ins(%[[INIT]] : tensor<?x6x5x2x7xf32>) outs(%{{.*}} : tensor<?x5x6x2x7xf32>)
// CHECK:         %[[ACC0:.*]] = tensor.collapse_shape %[[INIT_MOVED]] {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] : tensor<?x5x6x2x7xf32> into tensor<?x6x2x7xf32>
// CHECK:         %[[X0:.*]] = tensor.extract_slice %[[DEPTH_FIRST]][0, 0, 0, 0, 0] [%{{.*}}, 5, 4, 5, 11] [1, 1, 1, 1, 1] : tensor<?x7x4x5x11xf32> to tensor<?x5x4x5x11xf32>
// CHECK:         %[[W0:.*]] = tensor.extract_slice %weight[0, 0, 0, 0, 0] [6, 2, 1, 3, 3] [1, 1, 1, 1, 1]
// CHECK:         %[[COLS0:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, ((d5 * 2) + d3), (d6 + (d4 * 2)))>, {{.*}} outs(%{{.*}} : tensor<?x2x2x3x3x2x7xf32>)
// CHECK:         %[[C0:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>, {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x3x18xf32>, tensor<?x2x18x14xf32>) outs(%{{.*}} : tensor<?x2x3x14xf32>)
// CHECK:         %[[ACC1:.*]] = tensor.collapse_shape %{{.*}} {{.*}} into tensor<?x6x2x7xf32>
// CHECK:         %[[X1:.*]] = tensor.extract_slice %[[DEPTH_FIRST]][0, 1, 0, 0, 0] [%{{.*}}, 5, 4, 5, 11] [1, 1, 1, 1, 1]
// CHECK:         %[[W1:.*]] = tensor.extract_slice %weight[0, 0, 1, 0, 0] [6, 2, 1, 3, 3] [1, 1, 1, 1, 1]
// CHECK:         %{{.*}} = tensor.expand_shape %[[ACC1]]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>,
// CHECK:         tensor.extract_slice %[[DEPTH_FIRST]][0, 2, 0, 0, 0] [%{{.*}}, 5, 4, 5, 11] [1, 1, 1, 1, 1]
// CHECK:         %[[C2:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d4)>,
// CHECK-NOT:     linalg.conv_2d
// CHECK:         %[[UNFOLDED:.*]] = tensor.expand_shape %{{.*}} {{\[}}[0 : i64, 1 : i64], [2 : i64], [3 : i64], [4 : i64]] output_shape [%{{.*}}, 5, 6, 2, 7] : tensor<?x6x2x7xf32> into tensor<?x5x6x2x7xf32>
// CHECK:         %[[Y:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d2, d1, d3, d4)>, {{.*}}} ins(%[[UNFOLDED]] : tensor<?x5x6x2x7xf32>) outs(%{{.*}} : tensor<?x6x5x2x7xf32>)
// CHECK:         func.return %[[Y]] : tensor<?x6x5x2x7xf32>

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">] outputs [<user_output "y">] {
    exir.graph @forward(%x: !exir.tensor<[1, 3, 4, 5, 5], float32>, %weight: !exir.tensor<[4, 3, 2, 3, 3], float32>) -> !exir.tensor<[1, 4, 3, 2, 2], float32> {
      %y = aten.convolution.default(%x, %weight, none, [1, 2, 2], [0, 0, 0], [1, 1, 1], false, [0, 0, 0], 1) : (!exir.tensor<[1, 3, 4, 5, 5], float32>, !exir.tensor<[4, 3, 2, 3, 3], float32>) -> !exir.tensor<[1, 4, 3, 2, 2], float32>
      exir.output %y : !exir.tensor<[1, 4, 3, 2, 2], float32>
    }
  }
}

// One group: the named conv_2d_nchw_fchw per depth tap, zeros as the first accumulator.
// CHECK-LABEL: func.func @forward(%x: tensor<1x3x4x5x5xf32> {{.*}}, %weight: tensor<4x3x2x3x3xf32> {{.*}})
// CHECK-NOT:     tensor.pad
// CHECK:         %[[ZEROS:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<1x4x3x2x2xf32>)
// CHECK:         %[[XT:.*]] = linalg.generic {{.*}} ins(%x : tensor<1x3x4x5x5xf32>) outs(%{{.*}} : tensor<1x4x3x5x5xf32>)
// CHECK:         %[[ZT:.*]] = linalg.generic {{.*}} ins(%[[ZEROS]] : tensor<1x4x3x2x2xf32>) outs(%{{.*}} : tensor<1x3x4x2x2xf32>)
// CHECK:         %[[ACC:.*]] = tensor.collapse_shape %[[ZT]] {{.*}} into tensor<3x4x2x2xf32>
// CHECK:         %[[X0:.*]] = tensor.collapse_shape %{{.*}} {{.*}} : tensor<1x3x3x5x5xf32> into tensor<3x3x5x5xf32>
// CHECK:         %[[W0:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0 : i64], [1 : i64], [2 : i64, 3 : i64], [4 : i64]] : tensor<4x3x1x3x3xf32> into tensor<4x3x3x3xf32>
// CHECK-NEXT:    %[[C0:.*]] = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>} ins(%[[X0]], %[[W0]] : tensor<3x3x5x5xf32>, tensor<4x3x3x3xf32>) outs(%[[ACC]] : tensor<3x4x2x2xf32>)
// CHECK:         %[[C1:.*]] = linalg.conv_2d_nchw_fchw {{.*}} outs(%[[C0]] : tensor<3x4x2x2xf32>)
// CHECK-NEXT:    %{{.*}} = tensor.expand_shape %[[C1]] {{.*}} output_shape [1, 3, 4, 2, 2]
// CHECK:         %[[Y:.*]] = linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x3x2x2xf32>)
// CHECK:         func.return %[[Y]] : tensor<1x4x3x2x2xf32>

// -----

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "y">] {
    exir.graph @forward(%x: !exir.tensor<[2, 3, 3, 5, 5], float32>) -> !exir.tensor<[2, 3, 2, 3, 2], float32> {
      %y = aten._adaptive_avg_pool3d.default(%x, [2, 3, 2]) : (!exir.tensor<[2, 3, 3, 5, 5], float32>) -> !exir.tensor<[2, 3, 2, 3, 2], float32>
      exir.output %y : !exir.tensor<[2, 3, 2, 3, 2], float32>
    }
  }
}

// 3 -> 2 (windows [0, 2) and [1, 3)), 5 -> 3 (lengths 2, 3, 2), 5 -> 2 (lengths 3, 3):
// the counts are 2 * {2, 3, 2} * 3. The sums and the division are in float64
// (every float sum accumulates in float64), the quotient rounded once.
// CHECK-LABEL: func.func @forward(%x: tensor<2x3x3x5x5xf32> {{.*}})
// CHECK:         %[[X64:.*]] = linalg.generic {{.*}} ins(%x : tensor<2x3x3x5x5xf32>) outs(%{{.*}} : tensor<2x3x3x5x5xf64>)
// CHECK:           arith.extf
// CHECK:         %[[M0:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<2x3xf64>
// CHECK:         %[[S0:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d5, d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[X64]], %[[M0]] : tensor<2x3x3x5x5xf64>, tensor<2x3xf64>) outs(%{{.*}} : tensor<2x3x2x5x5xf64>)
// CHECK:         %[[M1:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 1.000000e+00, 0.000000e+00, 0.000000e+00, 0.000000e+00], [0.000000e+00, 1.000000e+00, 1.000000e+00, 1.000000e+00, 0.000000e+00], [0.000000e+00, 0.000000e+00, 0.000000e+00, 1.000000e+00, 1.000000e+00]]> : tensor<3x5xf64>
// CHECK:         %[[S1:.*]] = linalg.generic {{.*}} ins(%[[S0]], %[[M1]] : tensor<2x3x2x5x5xf64>, tensor<3x5xf64>) outs(%{{.*}} : tensor<2x3x2x3x5xf64>)
// CHECK:         %[[S2:.*]] = linalg.generic {{.*}} ins(%[[S1]], %{{.*}} : tensor<2x3x2x3x5xf64>, tensor<2x5xf64>) outs(%{{.*}} : tensor<2x3x2x3x2xf64>)
// CHECK:         %[[COUNTS:.*]] = arith.constant dense<{{\[\[\[}}1.200000e+01, 1.200000e+01], [1.800000e+01, 1.800000e+01], [1.200000e+01, 1.200000e+01]], {{.*}}> : tensor<2x3x2xf64>
// CHECK:         %[[AVG:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d2, d3, d4)>, {{.*}}} ins(%[[S2]], %[[COUNTS]] : tensor<2x3x2x3x2xf64>, tensor<2x3x2xf64>)
// CHECK:           arith.divf {{.*}} : f64
// CHECK:           arith.truncf
// CHECK:         func.return %[[AVG]] : tensor<2x3x2x3x2xf32>

// -----

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "v">, <user_output "i">] {
    exir.graph @forward(%x: !exir.tensor<[1, 2, 4, 4, 4], float32>) -> (!exir.tensor<[1, 2, 2, 2, 2], float32>, !exir.tensor<[1, 2, 2, 2, 2], int64>) {
      %v, %i = aten.max_pool3d_with_indices.default(%x, [2, 2, 2], [2, 2, 2]) : (!exir.tensor<[1, 2, 4, 4, 4], float32>) -> (!exir.tensor<[1, 2, 2, 2, 2], float32>, !exir.tensor<[1, 2, 2, 2, 2], int64>)
      exir.output %v, %i : !exir.tensor<[1, 2, 2, 2, 2], float32>, !exir.tensor<[1, 2, 2, 2, 2], int64>
    }
  }
}

// 3-D max pooling with indices: one generic over (n, c, *out, *window), the flat
// index row-major over the unpadded input (((d * 4) + h) * 4 + w).
// CHECK-LABEL: func.func @forward(%x: tensor<1x2x4x4x4xf32> {{.*}})
// CHECK:         %[[FOUR:.*]] = arith.constant 4 : index
// CHECK:         %[[WINDOW:.*]] = tensor.empty() : tensor<2x2x2xf32>
// CHECK-NEXT:    %{{.*}}, %{{.*}} = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, ((d2 * 2) + d5), ((d3 * 2) + d6), ((d4 * 2) + d7))>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d5, d6, d7)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d3, d4)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%x, %[[WINDOW]] : tensor<1x2x4x4x4xf32>, tensor<2x2x2xf32>)
// CHECK:           %[[ROW:.*]] = arith.muli %{{.*}}, %[[FOUR]] : index
// CHECK-NEXT:      %[[DH:.*]] = arith.addi %[[ROW]], %{{.*}} : index
// CHECK:           %[[PLANE:.*]] = arith.muli %[[DH]], %[[FOUR]] : index
// CHECK-NEXT:      %[[FLAT:.*]] = arith.addi %[[PLANE]], %{{.*}} : index
// CHECK-NEXT:      %{{.*}} = arith.index_cast %[[FLAT]] : index to i64
// CHECK:           linalg.yield %{{.*}}, %{{.*}} : f32, i64
