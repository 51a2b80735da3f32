// 2-D average pooling of static sizes without padding whose windows are all full is one
// elementwise generic over its window taps (conv_pool._AVG_POOL_TAPS): each tap a slice of
// the input strided by the pool's stride, added in window order to a float64 sum started
// from 0 (as the window reduction adds them), then divided once by the window's size (or
// the divisor) and rounded to the result's dtype. Padded pools and ceil-mode pools with a
// partial window keep the window reduction.
// RUN: exir-opt %s -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "mean">, <user_output "divided">, <user_output "padded">, <user_output "ceil">] {
    exir.graph @forward(%x: !exir.tensor<[1, 2, 4, 6], float32>, %y: !exir.tensor<[1, 1, 5, 5], float64>) -> (!exir.tensor<[1, 2, 2, 3], float32>, !exir.tensor<[1, 1, 3, 3], float64>, !exir.tensor<[1, 2, 3, 4], float32>, !exir.tensor<[1, 1, 3, 3], float64>) {
      %mean = aten.avg_pool2d.default(%x, [2, 2], [2, 2]) : (!exir.tensor<[1, 2, 4, 6], float32>) -> !exir.tensor<[1, 2, 2, 3], float32>
      %divided = aten.avg_pool2d.default(%y, [3, 3], [1, 1], [0, 0], false, true, 5) : (!exir.tensor<[1, 1, 5, 5], float64>) -> !exir.tensor<[1, 1, 3, 3], float64>
      %padded = aten.avg_pool2d.default(%x, [2, 2], [2, 2], [1, 1]) : (!exir.tensor<[1, 2, 4, 6], float32>) -> !exir.tensor<[1, 2, 3, 4], float32>
      %ceil = aten.avg_pool2d.default(%y, [2, 2], [2, 2], [0, 0], true) : (!exir.tensor<[1, 1, 5, 5], float64>) -> !exir.tensor<[1, 1, 3, 3], float64>
      exir.output %mean, %divided, %padded, %ceil : !exir.tensor<[1, 2, 2, 3], float32>, !exir.tensor<[1, 1, 3, 3], float64>, !exir.tensor<[1, 2, 3, 4], float32>, !exir.tensor<[1, 1, 3, 3], float64>
    }
  }
}

// CHECK-LABEL: func.func @forward
// Tap (i, j) starts at row i, column j, and steps two rows and two columns.
// CHECK-NEXT:    %[[T00:.*]] = tensor.extract_slice %x[0, 0, 0, 0] [1, 2, 2, 3] [1, 1, 2, 2] : tensor<1x2x4x6xf32> to tensor<1x2x2x3xf32>
// CHECK-NEXT:    %[[T01:.*]] = tensor.extract_slice %x[0, 0, 0, 1] [1, 2, 2, 3] [1, 1, 2, 2]
// CHECK-NEXT:    %[[T10:.*]] = tensor.extract_slice %x[0, 0, 1, 0] [1, 2, 2, 3] [1, 1, 2, 2]
// CHECK-NEXT:    %[[T11:.*]] = tensor.extract_slice %x[0, 0, 1, 1] [1, 2, 2, 3] [1, 1, 2, 2]
// CHECK-NEXT:    %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK-NEXT:    %[[FOUR:.*]] = arith.constant 4.000000e+00 : f64
// CHECK-NEXT:    %[[OUT:.*]] = tensor.empty() : tensor<1x2x2x3xf32>
// CHECK-NEXT:    %[[MEAN:.*]] = linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[T00]], %[[T01]], %[[T10]], %[[T11]] : {{.*}}) outs(%[[OUT]] : tensor<1x2x2x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %[[A2:.*]]: f32, %[[A3:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[E0:.*]] = arith.extf %[[A0]] : f32 to f64
// CHECK-NEXT:      %[[S0:.*]] = arith.addf %[[E0]], %[[ZERO]] : f64
// CHECK-NEXT:      %[[E1:.*]] = arith.extf %[[A1]] : f32 to f64
// CHECK-NEXT:      %[[S1:.*]] = arith.addf %[[E1]], %[[S0]] : f64
// CHECK-NEXT:      %[[E2:.*]] = arith.extf %[[A2]] : f32 to f64
// CHECK-NEXT:      %[[S2:.*]] = arith.addf %[[E2]], %[[S1]] : f64
// CHECK-NEXT:      %[[E3:.*]] = arith.extf %[[A3]] : f32 to f64
// CHECK-NEXT:      %[[S3:.*]] = arith.addf %[[E3]], %[[S2]] : f64
// CHECK-NEXT:      %[[Q:.*]] = arith.divf %[[S3]], %[[FOUR]] : f64
// CHECK-NEXT:      %[[R:.*]] = arith.truncf %[[Q]] : f64 to f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<1x2x2x3xf32>
// A float64 input of overlapping 3x3 windows, stride 1, divided by divisor_override (5).
// CHECK-NEXT:    %[[Y00:.*]] = tensor.extract_slice %y[0, 0, 0, 0] [1, 1, 3, 3] [1, 1, 1, 1] : tensor<1x1x5x5xf64> to tensor<1x1x3x3xf64>
// CHECK-COUNT-8: tensor.extract_slice %y
// CHECK-NEXT:    %[[FIVE:.*]] = arith.constant 5.000000e+00 : f64
// CHECK:         %[[DIVIDED:.*]] = linalg.generic {{.*}} ins(%[[Y00]], {{.*}}) outs(%{{.*}} : tensor<1x1x3x3xf64>) {
// CHECK-NOT:       arith.extf
// CHECK-COUNT-9:   arith.addf
// CHECK-NEXT:      %[[YQ:.*]] = arith.divf %{{.*}}, %[[FIVE]] : f64
// CHECK-NEXT:      linalg.yield %[[YQ]] : f64
// Padded: the window reduction over the zero-padded input.
// CHECK:         tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK:         %[[PADDED_SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>
// CHECK:         %[[PADDED:.*]] = linalg.generic {{.*}} ins(%[[PADDED_SUM]] : tensor<1x2x3x4xf64>) outs(%{{.*}} : tensor<1x2x3x4xf32>)
// Ceil mode: the last window of each row is partial, so its count varies.
// CHECK:         tensor.pad %y low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK:         %[[CEIL_SUM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, ((d2 * 2) + d4), ((d3 * 2) + d5))>
// CHECK:         %[[CEIL:.*]] = linalg.generic {{.*}} ins(%[[CEIL_SUM]] : tensor<1x1x3x3xf64>)
// CHECK:           arith.minsi
// CHECK:         func.return %[[MEAN]], %[[DIVIDED]], %[[PADDED]], %[[CEIL]]
