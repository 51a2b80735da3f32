// Gathers and scatters lowered to linalg on tensors: an embedding lookup is a
// generic over the result reading the weight with tensor.extract at the row its
// index names (a negative one counted from the end); scatter_add is a generic
// over the destination with a reduction over the index's scatter dim.
// RUN: exir-opt %s --split-input-file -p convert-exir-to-linalg | filecheck %s

builtin.module {
  exir.program inputs [<user_input "weight">, <user_input "ids">] outputs [<user_output "rows">] {
    exir.graph @forward(%weight: !exir.tensor<[10, 8], float32>, %ids: !exir.tensor<[s0, 3], int64>) -> !exir.tensor<[s0, 3, 8], float32> {
      %rows = aten.embedding.default(%weight, %ids) : (!exir.tensor<[10, 8], float32>, !exir.tensor<[s0, 3], int64>) -> !exir.tensor<[s0, 3, 8], float32>
      exir.output %rows : !exir.tensor<[s0, 3, 8], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(%weight: tensor<10x8xf32> {{.*}}, %ids: tensor<?x3xi64> {{.*}}) -> (tensor<?x3x8xf32> {{.*}})
// CHECK-DAG:     %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG:     %[[S0:.*]] = tensor.dim %ids, %[[ZERO]] : tensor<?x3xi64>
// CHECK-DAG:     %[[ROWS:.*]] = arith.constant 10 : index
// CHECK:         %[[INIT:.*]] = tensor.empty(%[[S0]]) : tensor<?x3x8xf32>
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%ids : tensor<?x3xi64>) outs(%[[INIT]] : tensor<?x3x8xf32>) {
// CHECK-NEXT:    ^bb0(%[[ID:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT:      %[[I:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-NEXT:      %[[NEG:.*]] = arith.cmpi slt, %[[I]], %[[ZERO]] : index
// CHECK-NEXT:      %[[UP:.*]] = arith.addi %[[I]], %[[ROWS]] : index
// CHECK-NEXT:      %[[ROW:.*]] = arith.select %[[NEG]], %[[UP]], %[[I]] : index
// CHECK-NEXT:      %[[COL:.*]] = linalg.index 2 : index
// CHECK-NEXT:      %[[V:.*]] = tensor.extract %weight[%[[ROW]], %[[COL]]] : tensor<10x8xf32>
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK-NEXT:    } -> tensor<?x3x8xf32>

// -----

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "index">, <user_input "src">] outputs [<user_output "y">] {
    exir.graph @forward(%x: !exir.tensor<[s0, 6], float32>, %index: !exir.tensor<[s0, 4], int64>, %src: !exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 6], float32> {
      %y = aten.scatter_add.default(%x, 1, %index, %src) : (!exir.tensor<[s0, 6], float32>, !exir.tensor<[s0, 4], int64>, !exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 6], float32>
      exir.output %y : !exir.tensor<[s0, 6], float32>
    }
  }
}

// Loops (row, column of x, k along the index's dim 1); k is a reduction, and a
// column adds every src element whose index names it.
// CHECK-LABEL: func.func @forward(%x: tensor<?x6xf32> {{.*}}, %index: tensor<?x4xi64> {{.*}}, %src: tensor<?x4xf32> {{.*}})
// CHECK:         linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%index, %src : tensor<?x4xi64>, tensor<?x4xf32>) outs(%x : tensor<?x6xf32>) {
// CHECK-NEXT:    ^bb0(%[[I:.*]]: i64, %[[S:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK:           %[[COL:.*]] = linalg.index 1 : index
// CHECK-NEXT:      %[[HIT:.*]] = arith.cmpi eq, %{{.*}}, %[[COL]] : index
// CHECK-NEXT:      %[[SUM:.*]] = arith.addf %[[ACC]], %[[S]] : f32
// CHECK-NEXT:      %[[R:.*]] = arith.select %[[HIT]], %[[SUM]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[R]] : f32
// CHECK-NEXT:    } -> tensor<?x6xf32>

// -----

// as_strided_scatter of a contiguous view (the backward of a restride): src
// flattened, inserted into self flattened at the storage offset.
builtin.module {
  exir.program inputs [<user_input "x">, <user_input "src">] outputs [<user_output "y">] {
    exir.graph @forward(%x: !exir.tensor<[3, 4], float32>, %src: !exir.tensor<[2, 3], float32>) -> !exir.tensor<[3, 4], float32> {
      %y = aten.as_strided_scatter.default(%x, %src, [2, 3], [3, 1], 2) : (!exir.tensor<[3, 4], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[3, 4], float32>
      exir.output %y : !exir.tensor<[3, 4], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(%x: tensor<3x4xf32> {{.*}}, %src: tensor<2x3xf32> {{.*}})
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %x {{\[\[}}0 : i64, 1 : i64]] : tensor<3x4xf32> into tensor<12xf32>
// CHECK-NEXT:    %[[PIECE:.*]] = tensor.collapse_shape %src {{\[\[}}0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK-NEXT:    %[[W:.*]] = tensor.insert_slice %[[PIECE]] into %[[FLAT]][2] [6] [1] : tensor<6xf32> into tensor<12xf32>
// CHECK-NEXT:    %[[Y:.*]] = tensor.expand_shape %[[W]] {{\[\[}}0 : i64, 1 : i64]] output_shape [3, 4] : tensor<12xf32> into tensor<3x4xf32>
// CHECK-NEXT:    func.return %[[Y]] : tensor<3x4xf32>

// -----

// A transposed view: a generic over self's storage divides the position by
// each stride, largest first, and takes src's element where the remainder is 0
// and each quotient is inside its dim.
builtin.module {
  exir.program inputs [<user_input "x">, <user_input "src">] outputs [<user_output "y">] {
    exir.graph @forward(%x: !exir.tensor<[2, 3], float32>, %src: !exir.tensor<[3, 2], float32>) -> !exir.tensor<[2, 3], float32> {
      %y = aten.as_strided_scatter.default(%x, %src, [3, 2], [1, 3], 0) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[3, 2], float32>) -> !exir.tensor<[2, 3], float32>
      exir.output %y : !exir.tensor<[2, 3], float32>
    }
  }
}

// CHECK-LABEL: func.func @forward(%x: tensor<2x3xf32> {{.*}}, %src: tensor<3x2xf32> {{.*}})
// CHECK:         %[[FLAT:.*]] = tensor.collapse_shape %x {{\[\[}}0 : i64, 1 : i64]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK:         %[[G:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%[[FLAT]] : tensor<6xf32>) outs(%{{.*}} : tensor<6xf32>) {
// CHECK-NEXT:    ^bb0(%[[OLD:.*]]: f32, %{{.*}}: f32):
// CHECK:           %[[Q1:.*]] = arith.divui %{{.*}}, %[[THREE:.*]] : index
// CHECK:           %[[Q0:.*]] = arith.divui %{{.*}}, %[[ONE:.*]] : index
// CHECK:           %[[EXACT:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// CHECK-NEXT:      %[[HIT:.*]] = arith.andi %{{.*}}, %[[EXACT]] : i1
// CHECK-NEXT:      %[[I0:.*]] = arith.select %[[HIT]], %[[Q0]], %{{.*}} : index
// CHECK-NEXT:      %[[I1:.*]] = arith.select %[[HIT]], %[[Q1]], %{{.*}} : index
// CHECK-NEXT:      %[[NEW:.*]] = tensor.extract %src[%[[I0]], %[[I1]]] : tensor<3x2xf32>
// CHECK-NEXT:      %[[V:.*]] = arith.select %[[HIT]], %[[NEW]], %[[OLD]] : f32
// CHECK-NEXT:      linalg.yield %[[V]] : f32
// CHECK:         tensor.expand_shape %[[G]] {{\[\[}}0 : i64, 1 : i64]] output_shape [2, 3] : tensor<6xf32> into tensor<2x3xf32>
