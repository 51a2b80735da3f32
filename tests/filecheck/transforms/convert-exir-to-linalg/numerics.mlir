// Numerics of convert-exir-to-linalg that IREE and torch care about: float
// sums accumulate in f64 and round once; a long static trailing extent is
// summed in two levels through an expand_shape; a product with an empty
// contraction (K = 0) is its accumulator, no linalg.matmul; integer pow is
// square-and-multiply arithmetic, never math.ipowi.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "sum">] ranges [<s0 in [2, 16777216]>] {
    exir.graph @forward(%x: !exir.tensor<[s0], float32>) -> !exir.tensor<[], float32> {
      %sum = aten.sum.default(%x) : (!exir.tensor<[s0], float32>) -> !exir.tensor<[], float32>
      exir.output %sum : !exir.tensor<[], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f64
// CHECK:         linalg.fill ins(%[[ZERO]] : f64) outs(%{{.*}} : tensor<f64>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%x : tensor<?xf32>) outs(%{{.*}} : tensor<f64>)
// CHECK-NEXT:    ^bb0(%[[E:.*]]: f32, %[[ACC:.*]]: f64):
// CHECK-NEXT:      %[[W:.*]] = arith.extf %[[E]] : f32 to f64
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[W]], %[[ACC]] : f64
// CHECK:         arith.truncf %{{.*}} : f64 to f32

// -----

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "mean">] {
    exir.graph @forward(%x: !exir.tensor<[3, 16384], float32>) -> !exir.tensor<[3], float32> {
      %mean = aten.mean.dim(%x, [1]) : (!exir.tensor<[3, 16384], float32>) -> !exir.tensor<[3], float32>
      exir.output %mean : !exir.tensor<[3], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(
// CHECK:         %[[SPLIT:.*]] = tensor.expand_shape %x {{.*}} output_shape [3, 4, 4096] : tensor<3x16384xf32> into tensor<3x4x4096xf32>
// CHECK:         %[[PARTIAL:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[SPLIT]] : tensor<3x4x4096xf32>) outs(%{{.*}} : tensor<3x4xf64>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[PARTIAL]] : tensor<3x4xf64>) outs(%{{.*}} : tensor<3xf64>)
// CHECK:         arith.divf %{{.*}}, %{{.*}} : f64
// CHECK:         arith.truncf %{{.*}} : f64 to f32

// -----

builtin.module {
  exir.program inputs [<user_input "a">, <user_input "b">, <user_input "c">] outputs [<user_output "addmm">] {
    exir.graph @forward(%a: !exir.tensor<[3, 0], float32>, %b: !exir.tensor<[0, 4], float32>, %c: !exir.tensor<[4], float32>) -> !exir.tensor<[3, 4], float32> {
      %addmm = aten.addmm.default(%c, %a, %b, beta = 2.0, alpha = 3.0) : (!exir.tensor<[4], float32>, !exir.tensor<[3, 0], float32>, !exir.tensor<[0, 4], float32>) -> !exir.tensor<[3, 4], float32>
      exir.output %addmm : !exir.tensor<[3, 4], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(
// CHECK-NOT:     linalg.matmul
// CHECK:         linalg.generic {{.*}} ins(%c : tensor<4xf32>) outs(%{{.*}} : tensor<3x4xf32>)
// CHECK:           arith.mulf
// CHECK-NOT:     linalg.matmul
// CHECK:         return

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "e">] outputs [<user_output "pow">] {
    exir.graph @forward(%x: !exir.tensor<[8], int32>, %e: !exir.tensor<[8], int32>) -> !exir.tensor<[8], int32> {
      %pow = aten.pow.Tensor_Tensor(%x, %e) : (!exir.tensor<[8], int32>, !exir.tensor<[8], int32>) -> !exir.tensor<[8], int32>
      exir.output %pow : !exir.tensor<[8], int32>
    }
  }
}

// CHECK-LABEL: func.func @forward(
// CHECK-NOT:     math.ipowi
// CHECK:         arith.shrui
// CHECK:         arith.muli
// CHECK-NOT:     math.ipowi
// CHECK:         return
