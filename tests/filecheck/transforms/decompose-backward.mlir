// decompose rewrites backward operators of training-IR joint graphs and more of the long tail
// (tensordot, rot90) into core ATen, with torch/_decomp's formulas.
// RUN: exir-opt %s -p decompose | filecheck %s

exir.graph @activations(%g: !exir.tensor<[2, 3], float32>, %x: !exir.tensor<[2, 3], float32>) -> (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) {
  %a = aten.sigmoid_backward.default(%g, %x) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  %b = aten.silu_backward.default(%g, %x) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  %c = aten._softmax_backward_data.default(%g, %x, 1, torch.float32) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output %a, %b, %c : !exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>
}
exir.graph @products(%x: !exir.tensor<[2, 3, 4], float32>, %y: !exir.tensor<[4, 3, 5], float32>) -> (!exir.tensor<[2, 5], float32>, !exir.tensor<[2, 4, 3], float32>) {
  %t = exir.call_function "aten.tensordot.default"(%x, %y, [1, 2], [1, 0]) : (!exir.tensor<[2, 3, 4], float32>, !exir.tensor<[4, 3, 5], float32>) -> !exir.tensor<[2, 5], float32>
  %r = exir.call_function "aten.rot90.default"(%x, 1, [1, 2]) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 4, 3], float32>
  exir.output %t, %r : !exir.tensor<[2, 5], float32>, !exir.tensor<[2, 4, 3], float32>
}

// sigmoid_backward: g * (y * (1 - y)); silu_backward: g * s * (1 + x (1 - s)) with s = sigmoid(x);
// _softmax_backward_data: y * (g - sum(g y, dim, keepdim)), the order of torch's kernel.
// CHECK-LABEL: exir.graph @activations
// CHECK-NEXT:    %0 = aten.neg.default(%x)
// CHECK-NEXT:    %1 = aten.add.Tensor(%0, 1)
// CHECK-NEXT:    %2 = aten.mul.Tensor(%x, %1)
// CHECK-NEXT:    %a = aten.mul.Tensor(%g, %2)
// CHECK-NEXT:    %3 = aten.sigmoid.default(%x)
// CHECK-NEXT:    %4 = aten.neg.default(%3)
// CHECK-NEXT:    %5 = aten.add.Tensor(%4, 1)
// CHECK-NEXT:    %6 = aten.mul.Tensor(%x, %5)
// CHECK-NEXT:    %7 = aten.add.Tensor(%6, 1)
// CHECK-NEXT:    %8 = aten.mul.Tensor(%3, %7)
// CHECK-NEXT:    %b = aten.mul.Tensor(%g, %8)
// CHECK-NEXT:    %9 = aten.mul.Tensor(%g, %x)
// CHECK-NEXT:    %10 = aten.sum.dim_IntList(%9, [1], true)
// CHECK-NEXT:    %11 = aten.sub.Tensor(%g, %10)
// CHECK-NEXT:    %c = aten.mul.Tensor(%x, %11)
// CHECK-NEXT:    exir.output %a, %b, %c

// tensordot: the contracted dims of x are already last (a view), y's are moved first (a copy), one mm;
// rot90 once over dims (1, 2): flip the second dim, then swap the two.
// CHECK-LABEL: exir.graph @products
// CHECK-NEXT:    %0 = aten.view.default(%x, [2, 12])
// CHECK-NEXT:    %1 = aten.permute.default(%y, [1, 0, 2])
// CHECK-NEXT:    %2 = aten.clone.default(%1, memory_format = torch.contiguous_format)
// CHECK-NEXT:    %3 = aten.view.default(%2, [12, 5])
// CHECK-NEXT:    %t = aten.mm.default(%0, %3)
// CHECK-NEXT:    %4 = aten.flip.default(%x, [2])
// CHECK-NEXT:    %r = aten.permute.default(%4, [0, 2, 1])
// CHECK-NEXT:    exir.output %t, %r
