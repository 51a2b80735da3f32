// decompose lowers non-core ATen ops to core ATen with torch's own decompositions;
// in exir-opt and in the stock xdsl-opt.
// RUN: exir-opt %s -p decompose | filecheck %s
// RUN: xdsl-opt %s -p decompose | filecheck %s
// legal-ops keeps the named overloads (quoted: the pipeline syntax reads no dots in bare words).
// RUN: exir-opt %s -p 'decompose{legal-ops="aten.linear.default"}' | filecheck %s --check-prefix=LEGAL

exir.graph @linear(%x: !exir.tensor<[2, 4], float32>, %w: !exir.tensor<[3, 4], float32>, %b: !exir.tensor<[3], float32>) -> (!exir.tensor<[2, 3], float32>) {
  %y = aten.linear.default(%x, %w, %b) : (!exir.tensor<[2, 4], float32>, !exir.tensor<[3, 4], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output %y : !exir.tensor<[2, 3], float32>
}
exir.graph @reshape(%x: !exir.tensor<[3, 4], float32>) -> (!exir.tensor<[12], float32>, !exir.tensor<[4, 3], float32>) {
  %t = aten.transpose.int(%x, 0, 1) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[4, 3], float32>
  %r = aten.reshape.default(%t, [12]) : (!exir.tensor<[4, 3], float32>) -> !exir.tensor<[12], float32>
  %c = aten.contiguous.default(%x) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[3, 4], float32>
  %v = aten.reshape.default(%c, [4, 3]) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[4, 3], float32>
  exir.output %r, %v : !exir.tensor<[12], float32>, !exir.tensor<[4, 3], float32>
}
exir.graph @softmax_fd(%x: !exir.tensor<[3, 4], int32>, %y: !exir.tensor<[3, 4], int32>, %f: !exir.tensor<[3, 4], float32>) -> (!exir.tensor<[3, 4], int32>, !exir.tensor<[3, 4], float32>) {
  %d = exir.call_function "aten.floor_divide.default"(%x, %y) : (!exir.tensor<[3, 4], int32>, !exir.tensor<[3, 4], int32>) -> !exir.tensor<[3, 4], int32>
  %s = aten.softmax.int(%f, -1) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[3, 4], float32>
  exir.output %d, %s : !exir.tensor<[3, 4], int32>, !exir.tensor<[3, 4], float32>
}
exir.graph @dynamic(%x: !exir.tensor<[s0, 3, 4], float32>, %w: !exir.tensor<[5, 4], float32>) -> (!exir.tensor<[s0, 3, 5], float32>) {
  %y = aten.linear.default(%x, %w) : (!exir.tensor<[s0, 3, 4], float32>, !exir.tensor<[5, 4], float32>) -> !exir.tensor<[s0, 3, 5], float32>
  exir.output %y : !exir.tensor<[s0, 3, 5], float32>
}

// linear of a 2-d input: permute the weight, addmm.
// CHECK-LABEL: exir.graph @linear
// CHECK-NEXT:    %0 = aten.permute.default(%w, [1, 0])
// CHECK-NEXT:    %y = aten.addmm.default(%b, %x, %0)
// LEGAL-LABEL: exir.graph @linear
// LEGAL-NEXT:    %y = aten.linear.default(%x, %w, %b)

// reshape of a transposed tensor needs a copy; of a contiguous one it is a view,
// and contiguous() of a contiguous tensor is the tensor itself.
// CHECK-LABEL: exir.graph @reshape
// CHECK-NEXT:    %t = aten.permute.default(%x, [1, 0])
// CHECK-NEXT:    %0 = aten.clone.default(%t, memory_format = torch.contiguous_format)
// CHECK-NEXT:    %r = aten.view.default(%0, [12])
// CHECK-NEXT:    %v = aten.view.default(%x, [4, 3])
// CHECK-NEXT:    exir.output %r, %v

// call_function spellings are lowered too; softmax becomes _softmax.
// CHECK-LABEL: exir.graph @softmax_fd
// CHECK-NEXT:    %d = aten.div.Tensor_mode(%x, %y, rounding_mode = "floor")
// CHECK-NEXT:    %s = aten._softmax.default(%f, -1, false)

// Symbolic sizes are computed in the graph, as torch does (sym_size, operator.mul).
// CHECK-LABEL: exir.graph @dynamic
// Without a bias, linear is matmul(x, w.t()), whose n-d x 2-d case folds to mm.
// CHECK-NEXT:    %0 = aten.permute.default(%w, [1, 0])
// CHECK-NEXT:    %1 = exir.sym_size %x, 0
// CHECK-NEXT:    %2 = exir.sym_mul(%1, 3) : (!exir.sym_int<s0>) -> !exir.sym_int<3*s0>
// CHECK-NEXT:    %3 = aten.view.default(%x, [%2, 4])
// CHECK-NEXT:    %4 = aten.mm.default(%3, %0)
// CHECK-NEXT:    %y = aten.view.default(%4, [%1, 3, 5]) : {{.*}} -> !exir.tensor<[s0, 3, 5], float32>
