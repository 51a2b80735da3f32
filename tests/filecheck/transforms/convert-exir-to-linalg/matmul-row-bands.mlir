// A product whose rows IREE would tile narrowly (it tiles them by their largest
// divisor up to 8: 17 rows one at a time, 17 passes over the weight) is cut into
// a band of the largest multiple of 8 rows and the rest (linalg_lowering/matmul.py
// row_bands): one linalg.matmul per band, each on its rows of the left operand
// with its own accumulator (the bias of its rows), inserted into one result.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "b">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[17, 32], float32>, %w: !exir.tensor<[32, 64], float32>, %b: !exir.tensor<[64], float32>) -> !exir.tensor<[17, 64], float32> {
      %r = aten.addmm.default(%b, %x, %w) : (!exir.tensor<[64], float32>, !exir.tensor<[17, 32], float32>, !exir.tensor<[32, 64], float32>) -> !exir.tensor<[17, 64], float32>
      exir.output %r : !exir.tensor<[17, 64], float32>
    }
  }
}

// 17 rows: 16 + 1, the bias broadcast to each band's rows.
// CHECK-LABEL: func.func @forward(
// CHECK:         %[[OUT:.*]] = tensor.empty() : tensor<17x64xf32>
// CHECK-NEXT:    %[[X16:.*]] = tensor.extract_slice %x[0, 0] [16, 32] [1, 1] : tensor<17x32xf32> to tensor<16x32xf32>
// CHECK:         %[[B16:.*]] = linalg.generic {{.*}} ins(%b : tensor<64xf32>) outs(%{{.*}} : tensor<16x64xf32>)
// CHECK:         %[[P16:.*]] = linalg.matmul ins(%[[X16]], %w : tensor<16x32xf32>, tensor<32x64xf32>) outs(%[[B16]] : tensor<16x64xf32>) -> tensor<16x64xf32>
// CHECK-NEXT:    %[[R16:.*]] = tensor.insert_slice %[[P16]] into %[[OUT]][0, 0] [16, 64] [1, 1] : tensor<16x64xf32> into tensor<17x64xf32>
// CHECK-NEXT:    %[[X1:.*]] = tensor.extract_slice %x[16, 0] [1, 32] [1, 1] : tensor<17x32xf32> to tensor<1x32xf32>
// CHECK:         %[[B1:.*]] = linalg.generic {{.*}} ins(%b : tensor<64xf32>) outs(%{{.*}} : tensor<1x64xf32>)
// CHECK:         %[[P1:.*]] = linalg.matmul ins(%[[X1]], %w : tensor<1x32xf32>, tensor<32x64xf32>) outs(%[[B1]] : tensor<1x64xf32>) -> tensor<1x64xf32>
// CHECK-NEXT:    %[[R:.*]] = tensor.insert_slice %[[P1]] into %[[R16]][16, 0] [1, 64] [1, 1] : tensor<1x64xf32> into tensor<17x64xf32>
// CHECK-NEXT:    func.return %[[R]]

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "c">] outputs [<user_output "r">] {
    exir.graph @forward(%x: !exir.tensor<[13, 8], float32>, %w: !exir.tensor<[8, 4], float32>, %c: !exir.tensor<[13, 4], float32>) -> !exir.tensor<[13, 4], float32> {
      %r = aten.addmm.default(%c, %x, %w, beta = 2.0) : (!exir.tensor<[13, 4], float32>, !exir.tensor<[13, 8], float32>, !exir.tensor<[8, 4], float32>) -> !exir.tensor<[13, 4], float32>
      exir.output %r : !exir.tensor<[13, 4], float32>
    }
  }
}

// 13 rows: 8 + 5; a bias of the result's rows is cut with them.
// CHECK-LABEL: func.func @forward(
// CHECK:         tensor.extract_slice %x[0, 0] [8, 8] [1, 1] : tensor<13x8xf32> to tensor<8x8xf32>
// CHECK-NEXT:    %[[C8:.*]] = tensor.extract_slice %c[0, 0] [8, 4] [1, 1] : tensor<13x4xf32> to tensor<8x4xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[C8]] : tensor<8x4xf32>)
// CHECK:         linalg.matmul {{.*}} -> tensor<8x4xf32>
// CHECK:         tensor.extract_slice %x[8, 0] [5, 8] [1, 1] : tensor<13x8xf32> to tensor<5x8xf32>
// CHECK-NEXT:    %[[C5:.*]] = tensor.extract_slice %c[8, 0] [5, 4] [1, 1] : tensor<13x4xf32> to tensor<5x4xf32>
// CHECK:         linalg.generic {{.*}} ins(%[[C5]] : tensor<5x4xf32>)
// CHECK:         linalg.matmul {{.*}} -> tensor<5x4xf32>
// CHECK:         tensor.insert_slice {{.*}}[8, 0] [5, 4] [1, 1] : tensor<5x4xf32> into tensor<13x4xf32>

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "w">, <user_input "y">] outputs [<user_output "a">, <user_output "b">] {
    exir.graph @forward(%x: !exir.tensor<[16, 32], float32>, %w: !exir.tensor<[32, 64], float32>, %y: !exir.tensor<[25, 32], float32>) -> (!exir.tensor<[16, 64], float32>, !exir.tensor<[25, 64], float32>) {
      %a = aten.mm.default(%x, %w) : (!exir.tensor<[16, 32], float32>, !exir.tensor<[32, 64], float32>) -> !exir.tensor<[16, 64], float32>
      %b = aten.mm.default(%y, %w) : (!exir.tensor<[25, 32], float32>, !exir.tensor<[32, 64], float32>) -> !exir.tensor<[25, 64], float32>
      exir.output %a, %b : !exir.tensor<[16, 64], float32>, !exir.tensor<[25, 64], float32>
    }
  }
}

// 16 rows tile by 8 (2 passes); 25 rows by 5 (5 passes), against 24 + 1 (4): both stay whole.
// CHECK-LABEL: func.func @forward(
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.matmul ins(%x, %w : tensor<16x32xf32>, tensor<32x64xf32>)
// CHECK-NOT:     tensor.extract_slice
// CHECK:         linalg.matmul ins(%y, %w : tensor<25x32xf32>, tensor<32x64xf32>)
// CHECK-NOT:     tensor.insert_slice
