// The aten dialect's custom syntax round-trips, and so does its generic form.
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | exir-opt | filecheck %s

exir.graph @ops(%x: !exir.tensor<[s0, 3], float32>, %y: !exir.tensor<[3], float32>, %w: !exir.tensor<[4, 3], float32>, %n: !exir.sym_int<s0>) -> !exir.tensor<[s0, 4], float32> {
  %add = aten.add.Tensor(%x, %y, alpha = 2) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[s0, 3], float32>
  %mul = aten.mul.Scalar(%add, 0.5) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], float32>
  %lin = aten.linear.default(%mul, %w) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0, 4], float32>
  %relu = aten.relu.default(%lin) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
  %view = aten.view.default(%relu, [-1, 2]) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[2*s0, 2], float32>
  %sl = aten.slice.Tensor(%x, 0, 1, none, 2) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[(s0) floordiv 2, 3], float32>
  %max:2 = aten.max.dim(%x, 1, true) : (!exir.tensor<[s0, 3], float32>) -> (!exir.tensor<[s0, 1], float32>, !exir.tensor<[s0, 1], int64>)
  %cat = aten.cat.default([%x, %x], 0) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[s0, 3], float32>) -> !exir.tensor<[2*s0, 3], float32>
  %split = aten.split.Tensor(%y, 2) : (!exir.tensor<[3], float32>) -> !exir.tuple<!exir.tensor<[2], float32>, !exir.tensor<[1], float32>>
  %full = aten.full.default([%n, 2], 1.5, dtype = torch.float16) : (!exir.sym_int<s0>) -> !exir.tensor<[s0, 2], float16>
  %inplace = aten.add_.Tensor(%x, %y) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[s0, 3], float32>
  %cmp = aten.gt.Scalar(%x, 0) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], bool>
  %to = aten._to_copy.default(%x, dtype = torch.int32) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], int32>
  exir.output %relu : !exir.tensor<[s0, 4], float32>
}

// CHECK:      exir.graph @ops(%x: !exir.tensor<[s0, 3], float32>, %y: !exir.tensor<[3], float32>, %w: !exir.tensor<[4, 3], float32>, %n: !exir.sym_int<s0>) -> !exir.tensor<[s0, 4], float32> {
// CHECK-NEXT:   %add = aten.add.Tensor(%x, %y, alpha = 2) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[s0, 3], float32>
// CHECK-NEXT:   %mul = aten.mul.Scalar(%add, 0.5) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], float32>
// CHECK-NEXT:   %lin = aten.linear.default(%mul, %w) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[4, 3], float32>) -> !exir.tensor<[s0, 4], float32>
// CHECK-NEXT:   %relu = aten.relu.default(%lin) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
// CHECK-NEXT:   %view = aten.view.default(%relu, [-1, 2]) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[2*s0, 2], float32>
// CHECK-NEXT:   %sl = aten.slice.Tensor(%x, 0, 1, none, 2) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0 floordiv 2, 3], float32>
// CHECK-NEXT:   %max, %max_1 = aten.max.dim(%x, 1, true) : (!exir.tensor<[s0, 3], float32>) -> (!exir.tensor<[s0, 1], float32>, !exir.tensor<[s0, 1], int64>)
// CHECK-NEXT:   %cat = aten.cat.default([%x, %x], 0) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[s0, 3], float32>) -> !exir.tensor<[2*s0, 3], float32>
// CHECK-NEXT:   %split = aten.split.Tensor(%y, 2) : (!exir.tensor<[3], float32>) -> !exir.tuple<!exir.tensor<[2], float32>, !exir.tensor<[1], float32>>
// CHECK-NEXT:   %full = aten.full.default([%n, 2], 1.5, dtype = torch.float16) : (!exir.sym_int<s0>) -> !exir.tensor<[s0, 2], float16>
// CHECK-NEXT:   %inplace = aten.add_.Tensor(%x, %y) : (!exir.tensor<[s0, 3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[s0, 3], float32>
// CHECK-NEXT:   %cmp = aten.gt.Scalar(%x, 0) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], bool>
// CHECK-NEXT:   %to = aten._to_copy.default(%x, dtype = torch.int32) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], int32>
// CHECK-NEXT:   exir.output %relu : !exir.tensor<[s0, 4], float32>
// CHECK-NEXT: }
