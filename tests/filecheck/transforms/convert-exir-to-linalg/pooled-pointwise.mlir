// Average pooling of full windows over a 1x1 convolution nothing else reads (DenseNet's
// transition) is the convolution of the pooled input: the 2x2 mean of the 8x8 input first
// (its window taps summed in float64, rounded once), then the named 1x1 convolution at 4x4; the convolution
// at 8x8 is not left in the lowered program. A convolution read twice keeps its form.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">] outputs [<user_output "pool">] {
    exir.graph @forward(%x: !exir.tensor<[1, 8, 8, 8], float32>, %weight: !exir.tensor<[4, 8, 1, 1], float32>) -> !exir.tensor<[1, 4, 4, 4], float32> {
      %conv = aten.convolution.default(%x, %weight, none, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : (!exir.tensor<[1, 8, 8, 8], float32>, !exir.tensor<[4, 8, 1, 1], float32>) -> !exir.tensor<[1, 4, 8, 8], float32>
      %pool = aten.avg_pool2d.default(%conv, [2, 2], [2, 2]) : (!exir.tensor<[1, 4, 8, 8], float32>) -> !exir.tensor<[1, 4, 4, 4], float32>
      exir.output %pool : !exir.tensor<[1, 4, 4, 4], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(%x: tensor<1x8x8x8xf32> {{.*}}, %weight: tensor<4x8x1x1xf32> {{.*}}) -> (tensor<1x4x4x4xf32> {{.*}})
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         %[[T0:.*]] = tensor.extract_slice %x[0, 0, 0, 0] [1, 8, 4, 4] [1, 1, 2, 2] : tensor<1x8x8x8xf32> to tensor<1x8x4x4xf32>
// CHECK-COUNT-3: tensor.extract_slice %x
// CHECK:         %[[MEAN:.*]] = linalg.generic {{.*}} ins(%[[T0]], {{.*}} : {{.*}}) outs(%{{.*}} : tensor<1x8x4x4xf32>)
// CHECK-COUNT-4:   arith.addf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      arith.divf %{{.*}}, %{{.*}} : f64
// CHECK-NEXT:      arith.truncf %{{.*}} : f64 to f32
// CHECK:         %[[INIT:.*]] = linalg.fill {{.*}} outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK-NEXT:    %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%[[MEAN]], %weight : tensor<1x8x4x4xf32>, tensor<4x8x1x1xf32>) outs(%[[INIT]] : tensor<1x4x4x4xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
// CHECK:         func.return %[[CONV]] : tensor<1x4x4x4xf32>

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "weight">] outputs [<user_output "pool">, <user_output "conv">] {
    exir.graph @forward(%x: !exir.tensor<[1, 8, 8, 8], float32>, %weight: !exir.tensor<[4, 8, 1, 1], float32>) -> (!exir.tensor<[1, 4, 4, 4], float32>, !exir.tensor<[1, 4, 8, 8], float32>) {
      %conv = aten.convolution.default(%x, %weight, none, [1, 1], [0, 0], [1, 1], false, [0, 0], 1) : (!exir.tensor<[1, 8, 8, 8], float32>, !exir.tensor<[4, 8, 1, 1], float32>) -> !exir.tensor<[1, 4, 8, 8], float32>
      %pool = aten.avg_pool2d.default(%conv, [2, 2], [2, 2]) : (!exir.tensor<[1, 4, 8, 8], float32>) -> !exir.tensor<[1, 4, 4, 4], float32>
      exir.output %pool, %conv : !exir.tensor<[1, 4, 4, 4], float32>, !exir.tensor<[1, 4, 8, 8], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nchw_fchw {{.*}} ins(%x, %weight : tensor<1x8x8x8xf32>, tensor<4x8x1x1xf32>)
// CHECK:         tensor.extract_slice %[[CONV]][0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 2, 2]
// CHECK:         linalg.generic {{.*}} outs(%{{.*}} : tensor<1x4x4x4xf32>)
// CHECK-NOT:     linalg.conv_2d_nchw_fchw
