// Max pooling of static sizes whose indices nothing reads is the elementwise
// maximum of its window taps (conv_pool._MAX_POOL_TAPS), read from the input moved
// channels-last (conv_pool._MAX_POOL_CHANNELS_LAST): one transpose to NHWC, a -inf
// tensor.pad only where the windows reach past the input (torch's padding, a last
// ceil-mode window), each tap a slice strided along the rows and columns and
// contiguous along the channels, and one generic over (n, oh, ow, c) that writes
// the NCHW result and keeps, tap by tap in window order, `tap > best` or a NaN tap,
// as torch's CPU kernel does (equal zeros keep the first's sign).
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
// The ceil-mode windows read exactly the 7x7 input: no pad, no phases.
// CHECK-NOT:     tensor.pad %x
// CHECK:         %[[EMPTY:.*]] = tensor.empty() : tensor<1x7x7x2xf32>
// CHECK-NEXT:    %[[LAST:.*]] = linalg.transpose ins(%x{{ ?}}:{{ ?}}tensor<1x2x7x7xf32>) outs(%[[EMPTY]]{{ ?}}:{{ ?}}tensor<1x7x7x2xf32>) permutation = [0, 2, 3, 1]
// Tap (i, j) starts at row i, column j, and steps two rows and two columns.
// CHECK-NEXT:    %[[T00:.*]] = tensor.extract_slice %[[LAST]][0, 0, 0, 0] [1, 3, 3, 2] [1, 2, 2, 1] : tensor<1x7x7x2xf32> to tensor<1x3x3x2xf32>
// CHECK-NEXT:    %[[T01:.*]] = tensor.extract_slice %[[LAST]][0, 0, 1, 0] [1, 3, 3, 2] [1, 2, 2, 1]
// CHECK-NEXT:    %[[T02:.*]] = tensor.extract_slice %[[LAST]][0, 0, 2, 0] [1, 3, 3, 2] [1, 2, 2, 1]
// CHECK-NEXT:    %[[T10:.*]] = tensor.extract_slice %[[LAST]][0, 1, 0, 0] [1, 3, 3, 2] [1, 2, 2, 1]
// CHECK-COUNT-4: tensor.extract_slice %[[LAST]]
// CHECK-NEXT:    %[[T22:.*]] = tensor.extract_slice %[[LAST]][0, 2, 2, 0] [1, 3, 3, 2] [1, 2, 2, 1]
// CHECK-NEXT:    %[[OUT:.*]] = tensor.empty() : tensor<1x2x3x3xf32>
// The taps are read as they lie, (n, oh, ow, c); the result is written NCHW.
// CHECK-NEXT:    %[[CEIL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, {{.*}}, affine_map<(d0, d1, d2, d3) -> (d0, d3, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[T00]], %[[T01]], %[[T02]], %[[T10]], {{.*}}, %[[T22]] : {{.*}}) outs(%[[OUT]] : tensor<1x2x3x3xf32>) {
// CHECK-NEXT:    ^bb0(%[[A0:.*]]: f32, %[[A1:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT:      %[[GT:.*]] = arith.cmpf ogt, %[[A1]], %[[A0]] : f32
// CHECK-NEXT:      %[[PICK:.*]] = arith.select %[[GT]], %[[A1]], %[[A0]] : f32
// CHECK-NEXT:      %[[NAN:.*]] = arith.cmpf uno, %[[A1]], %[[A1]] : f32
// CHECK-NEXT:      %{{.*}} = arith.select %[[NAN]], %[[A1]], %[[PICK]] : f32
// CHECK-COUNT-28:  arith.
// CHECK-NEXT:      linalg.yield
// CHECK-NEXT:    } -> tensor<1x2x3x3xf32>
// CHECK-NOT:     linalg.pooling_nchw_max
// torch's padding of one before; after it, the windows' extent 7 is the padded input's: -inf before only.
// CHECK:         %[[YLAST:.*]] = linalg.transpose ins(%y{{ ?}}:{{ ?}}tensor<1x2x6x6xf32>) outs(%{{.*}}{{ ?}}:{{ ?}}tensor<1x6x6x2xf32>) permutation = [0, 2, 3, 1]
// CHECK-NEXT:    %[[PAD:.*]] = tensor.pad %[[YLAST]] low[0, 1, 1, 0] high[0, 0, 0, 0] {
// CHECK:           arith.constant 0xff800000 : f32
// CHECK:         } : tensor<1x6x6x2xf32> to tensor<1x7x7x2xf32>
// CHECK-NEXT:    tensor.extract_slice %[[PAD]][0, 0, 0, 0] [1, 3, 3, 2] [1, 2, 2, 1]
// CHECK:         %[[PADDED:.*]] = linalg.generic
// CHECK-NOT:     linalg.pooling_nchw_max
// CHECK:         func.return %[[CEIL]], %[[PADDED]] : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>
