// recompose-safe-softmax: the graph run_decompositions() makes of attention's
// _safe_softmax becomes the one operator again; a graph that differs (another dim
// for the any, a fill other than 0, another input) is left alone; decompose undoes it.
// RUN: exir-opt %s -p recompose-safe-softmax | filecheck %s
// RUN: exir-opt %s -p recompose-safe-softmax,decompose | filecheck %s --check-prefix=ROUND

builtin.module {
  exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "s">, <user_output "t">, <user_output "u">] {
    exir.graph @forward(%x: !exir.tensor<[2, 4, 8], float32>, %y: !exir.tensor<[2, 4, 8], float32>) -> (!exir.tensor<[2, 4, 8], float32>, !exir.tensor<[2, 4, 8], float32>, !exir.tensor<[2, 4, 8], float32>) {
      %0 = aten._softmax.default(%x, -1, false) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      %1 = aten.eq.Scalar(%x, -inf) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], bool>
      %2 = aten.logical_not.default(%1) : (!exir.tensor<[2, 4, 8], bool>) -> !exir.tensor<[2, 4, 8], bool>
      %3 = aten.any.dim(%2, 2, true) : (!exir.tensor<[2, 4, 8], bool>) -> !exir.tensor<[2, 4, 1], bool>
      %4 = aten.full_like.default(%0, 0, pin_memory = false, memory_format = torch.preserve_format) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      %5 = aten.logical_not.default(%3) : (!exir.tensor<[2, 4, 1], bool>) -> !exir.tensor<[2, 4, 1], bool>
      %s = aten.where.self(%5, %4, %0) : (!exir.tensor<[2, 4, 1], bool>, !exir.tensor<[2, 4, 8], float32>, !exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      %10 = aten._softmax.default(%y, -1, false) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      %11 = aten.eq.Scalar(%y, -inf) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], bool>
      %12 = aten.logical_not.default(%11) : (!exir.tensor<[2, 4, 8], bool>) -> !exir.tensor<[2, 4, 8], bool>
      %13 = aten.any.dim(%12, -1, true) : (!exir.tensor<[2, 4, 8], bool>) -> !exir.tensor<[2, 4, 1], bool>
      %14 = aten.full_like.default(%10, 1, pin_memory = false, memory_format = torch.preserve_format) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      %15 = aten.logical_not.default(%13) : (!exir.tensor<[2, 4, 1], bool>) -> !exir.tensor<[2, 4, 1], bool>
      %t = aten.where.self(%15, %14, %10) : (!exir.tensor<[2, 4, 1], bool>, !exir.tensor<[2, 4, 8], float32>, !exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      %21 = aten.eq.Scalar(%x, -inf) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], bool>
      %22 = aten.logical_not.default(%21) : (!exir.tensor<[2, 4, 8], bool>) -> !exir.tensor<[2, 4, 8], bool>
      %23 = aten.any.dim(%22, -1, true) : (!exir.tensor<[2, 4, 8], bool>) -> !exir.tensor<[2, 4, 1], bool>
      %24 = aten.full_like.default(%10, 0, pin_memory = false, memory_format = torch.preserve_format) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      %25 = aten.logical_not.default(%23) : (!exir.tensor<[2, 4, 1], bool>) -> !exir.tensor<[2, 4, 1], bool>
      %u = aten.where.self(%25, %24, %10) : (!exir.tensor<[2, 4, 1], bool>, !exir.tensor<[2, 4, 8], float32>, !exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
      exir.output %s, %t, %u : !exir.tensor<[2, 4, 8], float32>, !exir.tensor<[2, 4, 8], float32>, !exir.tensor<[2, 4, 8], float32>
    }
  }
}

// CHECK:      exir.graph @forward(
// CHECK-NEXT:   %s = aten._safe_softmax.default(%x, -1) : (!exir.tensor<[2, 4, 8], float32>) -> !exir.tensor<[2, 4, 8], float32>
// CHECK-NEXT:   %{{.*}} = aten._softmax.default(%y, -1, false)
// CHECK:        %t = aten.where.self(
// CHECK:        %u = aten.where.self(
// CHECK-NOT:    aten._safe_softmax
// CHECK:        exir.output %s, %t, %u

// ROUND:        aten._softmax.default(%x, -1, false)
// ROUND:        aten.eq.Scalar(%x, -inf)
// ROUND-NOT:    aten._safe_softmax
