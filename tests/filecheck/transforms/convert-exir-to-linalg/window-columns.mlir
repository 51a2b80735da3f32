// The im2col columns of a dense 3x3 convolution of a batch of one (and of a
// grouped one) are one generic (conv_pool._WINDOW_COLUMNS, linalg_lowering.columns):
// the input is padded at the left and right only, each column element is read with
// tensor.extract at [n, channel, clamped row, ow + j], and an int8 mask [kh, OH]
// (the generic's one input, 1 where the row is inside the input) selects it or 0.
// The full pad of the input is gone. The product reads the columns collapsed.
// RUN: exir-opt %s -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "g">] outputs [<user_output "dense">, <user_output "grouped">] {
    exir.graph @forward(%x: !exir.tensor<[1, 2, 3, 5], float32>, %w: !exir.tensor<[4, 2, 3, 3], float32>, %g: !exir.tensor<[4, 1, 3, 3], float32>) -> (!exir.tensor<[1, 4, 3, 5], float32>, !exir.tensor<[1, 4, 3, 5], float32>) {
      %dense = aten.convolution.default(%x, %w, none, [1, 1], [1, 1], [1, 1], false, [0, 0], 1) : (!exir.tensor<[1, 2, 3, 5], float32>, !exir.tensor<[4, 2, 3, 3], float32>) -> !exir.tensor<[1, 4, 3, 5], float32>
      %grouped = aten.convolution.default(%x, %g, none, [1, 1], [1, 1], [1, 1], false, [0, 0], 2) : (!exir.tensor<[1, 2, 3, 5], float32>, !exir.tensor<[4, 1, 3, 3], float32>) -> !exir.tensor<[1, 4, 3, 5], float32>
      exir.output %dense, %grouped : !exir.tensor<[1, 4, 3, 5], float32>, !exir.tensor<[1, 4, 3, 5], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward
// CHECK-NOT:     low[0, 0, 1, 1]
// CHECK:         %[[WIDE:.*]] = tensor.pad %x low[0, 0, 0, 1] high[0, 0, 0, 1] {
// CHECK:         } : tensor<1x2x3x5xf32> to tensor<1x2x3x7xf32>
// Row oh - 1 + i is inside for i = 0 from oh = 1 on, for i = 2 up to oh = 1.
// CHECK-NEXT:    %[[MASK:.*]] = arith.constant dense<{{\[}}[0, 1, 1], [1, 1, 1], [1, 1, 0]]> : tensor<3x3xi8>
// CHECK-NEXT:    %[[EMPTY:.*]] = tensor.empty() : tensor<1x1x2x3x3x3x5xf32>
// CHECK-NEXT:    %[[COLS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d3, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%[[MASK]] : tensor<3x3xi8>) outs(%[[EMPTY]] : tensor<1x1x2x3x3x3x5xf32>) {
// CHECK-NEXT:    ^{{.*}}(%[[INSIDE:.*]]: i8, %{{.*}}: f32):
// CHECK-NEXT:      %[[N:.*]] = linalg.index 0 : index
// CHECK-NEXT:      %{{.*}} = linalg.index 1 : index
// CHECK-NEXT:      %[[C:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[I:.*]] = linalg.index 3 : index
// CHECK-NEXT:      %[[J:.*]] = linalg.index 4 : index
// CHECK-NEXT:      %[[OH:.*]] = linalg.index 5 : index
// CHECK-NEXT:      %[[OW:.*]] = linalg.index 6 : index
// CHECK-NEXT:      %[[R0:.*]] = arith.addi %[[OH]], %[[I]] : index
// CHECK-NEXT:      %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      %[[R1:.*]] = arith.subi %[[R0]], %[[ONE]] : index
// CHECK-NEXT:      %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-NEXT:      %[[R2:.*]] = arith.maxsi %[[R1]], %[[ZERO]] : index
// CHECK-NEXT:      %[[LAST:.*]] = arith.constant 2 : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.minsi %[[R2]], %[[LAST]] : index
// CHECK-NEXT:      %[[COL:.*]] = arith.addi %[[OW]], %[[J]] : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %[[WIDE]][%[[N]], %[[C]], %[[ROW]], %[[COL]]] : tensor<1x2x3x7xf32>
// CHECK-NEXT:      %[[Z8:.*]] = arith.constant 0 : i8
// CHECK-NEXT:      %[[KEEP:.*]] = arith.cmpi ne, %[[INSIDE]], %[[Z8]] : i8
// CHECK-NEXT:      %[[OUT:.*]] = arith.select %[[KEEP]], %[[V]], %{{.*}} : f32
// CHECK-NEXT:      linalg.yield %[[OUT]] : f32
// CHECK-NEXT:    } -> tensor<1x1x2x3x3x3x5xf32>
// CHECK-NEXT:    %[[K:.*]] = tensor.collapse_shape %[[COLS]] {{\[}}[0 : i64, 1 : i64, 2 : i64, 3 : i64, 4 : i64], [5 : i64, 6 : i64]] : tensor<1x1x2x3x3x3x5xf32> into tensor<18x15xf32>
// CHECK:         linalg.matmul {exir.im2col} ins(%{{.*}}, %[[K]] : tensor<4x18xf32>, tensor<18x15xf32>)
// The grouped one: taps before the channels ([N, G, kh, kw, C, OH, OW]), the mask read at (i, oh), the channel g * C + c.
// CHECK:         tensor.pad %x low[0, 0, 0, 1] high[0, 0, 0, 1]
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d2, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>]
// CHECK-SAME:      outs(%{{.*}} : tensor<1x2x3x3x1x3x5xf32>)
// CHECK:           %[[G:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %{{.*}} = linalg.index 4 : index
// CHECK:           tensor.extract
