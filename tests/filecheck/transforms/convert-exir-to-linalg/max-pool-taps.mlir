// Max pooling of static sizes whose indices nothing reads is the elementwise
// maximum of its window taps (conv_pool._MAX_POOL_TAPS): the input, padded in one
// tensor.pad with -inf where torch pads and up to a multiple of the stride (which
// no tap reads), is split into its stride phases (a reshape and one transpose),
// each tap is a unit-stride slice of a phase, and one generic keeps, tap by tap in window order, `tap > best` or a NaN
// tap, as torch's CPU kernel does (equal zeros keep the first's sign).
// RUN: exir-opt %s -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "ceil">, <user_output "padded">] {
    exir.graph @forward(%x: !exir.tensor<[1, 2, 7, 7], float32>, %y: !exir.tensor<[1, 2, 6, 6], float32>) -> (!exir.tensor<[1, 2, 3, 3], float32>, !exir.tensor<[1, 2, 3, 3], float32>) {
      %ceil, %i = aten.max_pool2d_with_indices.default(%x, [3, 3], [2, 2], [0, 0], [1, 1], true) : (!exir.tensor<[1, 2, 7, 7], float32>) -> (!exir.tensor<[1, 2, 3, 3], float32>, !exir.tensor<[1, 2, 3, 3], int64>)
      %padded, %j = aten.max_pool2d_with_indices.default(%y, [3, 3], [2, 2], [1, 1]) : (!exir.tensor<[1, 2, 6, 6], float32>) -> (!exir.tensor<[1, 2, 3, 3], float32>, !exir.tensor<[1, 2, 3, 3], int64>)
      exir.output %ceil, %padded : !exir.tensor<[1, 2, 3, 3], float32>, !exir.tensor<[1, 2, 3, 3], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward
// The ceil-mode windows read exactly the 7x7 input: padded to 8x8 for the phases only.
// CHECK:         %[[EVEN:.*]] = tensor.pad %x low[0, 0, 0, 0] high[0, 0, 1, 1] {
// CHECK:           %[[NEG_INF:.*]] = arith.constant 0xff800000 : f32
// CHECK-NEXT:      tensor.yield %[[NEG_INF]] : f32
// CHECK-NEXT:    } : tensor<1x2x7x7xf32> to tensor<1x2x8x8xf32>
// CHECK-NEXT:    %[[SPLIT:.*]] = tensor.expand_shape %[[EVEN]] {{.*}} output_shape [1, 2, 4, 2, 4, 2] : tensor<1x2x8x8xf32> into tensor<1x2x4x2x4x2xf32>
// CHECK:         %[[PHASES:.*]] = linalg.transpose ins(%[[SPLIT]]{{ ?}}:{{ ?}}tensor<1x2x4x2x4x2xf32>) outs(%{{.*}}{{ ?}}:{{ ?}}tensor<1x2x2x2x4x4xf32>) permutation = [0, 1, 3, 5, 2, 4]
// Tap (0, 0) is phase (0, 0) from (0, 0); tap (0, 2) is phase (0, 0) one column on; tap (2, 2) one row and one column on.
// CHECK-NEXT:    %[[T00:.*]] = tensor.extract_slice %[[PHASES]][0, 0, 0, 0, 0, 0] [1, 2, 1, 1, 3, 3] [1, 1, 1, 1, 1, 1] : tensor<1x2x2x2x4x4xf32> to tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[T01:.*]] = tensor.extract_slice %[[PHASES]][0, 0, 0, 1, 0, 0] [1, 2, 1, 1, 3, 3]
// CHECK-NEXT:    %[[T02:.*]] = tensor.extract_slice %[[PHASES]][0, 0, 0, 0, 0, 1] [1, 2, 1, 1, 3, 3]
// CHECK-COUNT-5: tensor.extract_slice %[[PHASES]]
// CHECK-NEXT:    %[[T22:.*]] = tensor.extract_slice %[[PHASES]][0, 0, 0, 0, 1, 1] [1, 2, 1, 1, 3, 3]
// CHECK-NEXT:    %[[OUT:.*]] = tensor.empty() : tensor<1x2x3x3xf32>
// CHECK-NEXT:    %[[CEIL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[T00]], %[[T01]], %[[T02]], {{.*}}, %[[T22]] : {{.*}}) outs(%[[OUT]] : tensor<1x2x3x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[A1]], %[[A0]] : f32
// CHECK-NEXT:      %[[PICK:.*]] = arith.select %[[GT]], %[[A1]], %[[A0]] : f32
// CHECK-NEXT:      %[[NAN:.*]] = arith.cmpf uno, %[[A1]], %[[A1]] : f32
// CHECK-NEXT:      %{{.*}} = arith.select %[[NAN]], %[[A1]], %[[PICK]] : f32
// CHECK-COUNT-28:  arith.
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    } -> tensor<1x2x3x3xf32>
// CHECK-NOT:     linalg.pooling_nchw_max
// torch's padding of one before, and after it the windows' extent 7 rounded up to 8, in one -inf pad.
// CHECK:         %[[PAD:.*]] = tensor.pad %y low[0, 0, 1, 1] high[0, 0, 1, 1] {
// CHECK:           arith.constant 0xff800000 : f32
// CHECK:         } : tensor<1x2x6x6xf32> to tensor<1x2x8x8xf32>
// CHECK-NEXT:    tensor.expand_shape %[[PAD]]
// CHECK-SAME:    into tensor<1x2x4x2x4x2xf32>
// CHECK:         %[[PADDED:.*]] = linalg.generic
// CHECK-NOT:     linalg.pooling_nchw_max
// CHECK:         func.return %[[CEIL]], %[[PADDED]] : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
