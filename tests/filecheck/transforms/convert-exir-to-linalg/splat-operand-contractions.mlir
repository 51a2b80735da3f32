// A matrix product one operand of which is the same scalar everywhere (zeros as
// an LSTM's initial hidden state, a constant seen through a slice or a
// transpose) is a generic that reads only the other operand, the scalar in its
// body: IREE 3.13 miscompiles a contraction of a zero-filled operand followed by
// a bias add (see linalg_lowering/linear.py). Other products stay linalg.matmul.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "w">, <user_input "b">] outputs [<user_output "r">] {
    exir.graph @forward(%w: !exir.tensor<[16, 64], float32>, %b: !exir.tensor<[64], float32>) -> !exir.tensor<[2, 64], float32> {
      %h = aten.full.default([2, 16], 0.0, dtype = torch.float32) : () -> !exir.tensor<[2, 16], float32>
      %r = aten.addmm.default(%b, %h, %w) : (!exir.tensor<[64], float32>, !exir.tensor<[2, 16], float32>, !exir.tensor<[16, 64], float32>) -> !exir.tensor<[2, 64], float32>
      exir.output %r : !exir.tensor<[2, 64], float32>
    }
  }
}

// The bias broadcast is the init; the zero LHS is gone from the operands.
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%b : tensor<64xf32>)
// CHECK:         %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w : tensor<16x64xf32>) outs(%[[BIAS]] : tensor<2x64xf32>) {
// CHECK-NEXT:    ^bb0(%[[W:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[ZERO]], %[[W]] : f32
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK-NOT:     linalg.matmul
// CHECK:         func.return %[[R]]

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "b">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[2, 16], float32>, %b: !exir.tensor<[64], float32>) -> !exir.tensor<[2, 64], float32> {
      %z = aten.full.default([64, 16], 0.0, dtype = torch.float32) : () -> !exir.tensor<[64, 16], float32>
      %zt = aten.permute.default(%z, [1, 0]) : (!exir.tensor<[64, 16], float32>) -> !exir.tensor<[16, 64], float32>
      %mm = aten.mm.default(%x, %zt) : (!exir.tensor<[2, 16], float32>, !exir.tensor<[16, 64], float32>) -> !exir.tensor<[2, 64], float32>
      %r = aten.add.Tensor(%mm, %b) : (!exir.tensor<[2, 64], float32>, !exir.tensor<[64], float32>) -> !exir.tensor<[2, 64], float32>
      exir.output %r : !exir.tensor<[2, 64], float32>
    }
  }
}

// A zero RHS seen through its transpose; the bias is a separate add.
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.transpose
// CHECK:         %[[INIT:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<2x64xf32>)
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x16xf32>) outs(%[[INIT]] : tensor<2x64xf32>) {
// CHECK-NEXT:    ^bb0(%[[X:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[X]], %[[ZERO]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NOT:     linalg.matmul
// CHECK:         arith.addf

// -----

builtin.module {
  exir.program inputs [<user_input "w">, <user_input "b">] outputs [<user_output "r">] {
    exir.graph @forward(%w: !exir.tensor<[16, 64], float16>, %b: !exir.tensor<[64], float16>) -> !exir.tensor<[2, 64], float16> {
      %h = aten.full.default([2, 2, 16], 1.5, dtype = torch.float16) : () -> !exir.tensor<[2, 2, 16], float16>
      %s = aten.select.int(%h, 0, 1) : (!exir.tensor<[2, 2, 16], float16>) -> !exir.tensor<[2, 16], float16>
      %r = aten.addmm.default(%b, %s, %w, alpha = 2) : (!exir.tensor<[64], float16>, !exir.tensor<[2, 16], float16>, !exir.tensor<[16, 64], float16>) -> !exir.tensor<[2, 64], float16>
      exir.output %r : !exir.tensor<[2, 64], float16>
    }
  }
}

// float16 through a slice, with alpha: the scalar is widened to the float32
// accumulator and scaled in the body, as the LHS tensor would have been.
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[C:.*]] = arith.constant 1.500000e+00 : f16
// CHECK:         tensor.extract_slice
// CHECK:         %[[W32:.*]] = linalg.generic {{.*}} ins(%w : tensor<16x64xf16>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[W32]] : tensor<16x64xf32>) outs(%{{.*}} : tensor<2x64xf32>) {
// CHECK-NEXT:    ^bb0(%[[WV:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[C32:.*]] = arith.extf %[[C]] : f16 to f32
// CHECK-NEXT:      %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT:      %[[CA:.*]] = arith.mulf %[[C32]], %[[ALPHA]] : f32
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[CA]], %[[WV]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[P]] : f32
// CHECK-NOT:     linalg.matmul
// CHECK:         arith.truncf

// -----

builtin.module {
  exir.program inputs [<user_input "w">, <user_input "b">] outputs [<user_output "r">] {
    exir.graph @forward(%w: !exir.tensor<[3, 16, 64], float32>, %b: !exir.tensor<[64], float32>) -> !exir.tensor<[3, 2, 64], float32> {
      %z = aten.full.default([3, 2, 16], 0.0, dtype = torch.float32) : () -> !exir.tensor<[3, 2, 16], float32>
      %mm = aten.bmm.default(%z, %w) : (!exir.tensor<[3, 2, 16], float32>, !exir.tensor<[3, 16, 64], float32>) -> !exir.tensor<[3, 2, 64], float32>
      %r = aten.add.Tensor(%mm, %b) : (!exir.tensor<[3, 2, 64], float32>, !exir.tensor<[64], float32>) -> !exir.tensor<[3, 2, 64], float32>
      exir.output %r : !exir.tensor<[3, 2, 64], float32>
    }
  }
}

// The batched product likewise, over (batch, m, n, k).
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d3, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%w : tensor<3x16x64xf32>)
// CHECK-NEXT:    ^bb0(%[[WV:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[P:.*]] = arith.mulf %[[ZERO]], %[[WV]] : f32
// CHECK-NEXT:      arith.addf %[[ACC]], %[[P]] : f32

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "b">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[2, 16], float32>, %w: !exir.tensor<[16, 64], float32>, %b: !exir.tensor<[64], float32>) -> !exir.tensor<[2, 64], float32> {
      %r = aten.addmm.default(%b, %x, %w) : (!exir.tensor<[64], float32>, !exir.tensor<[2, 16], float32>, !exir.tensor<[16, 64], float32>) -> !exir.tensor<[2, 64], float32>
      exir.output %r : !exir.tensor<[2, 64], float32>
    }
  }
}

// Two tensors: a linalg.matmul accumulating onto the broadcast bias.
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} ins(%b : tensor<64xf32>)
// CHECK:         linalg.matmul ins(%x, %w : tensor<2x16xf32>, tensor<16x64xf32>) outs(%[[BIAS]] : tensor<2x64xf32>)
