// decompose rewrites the long tail of training-IR operators (as exir.call_function,
// the spelling of overloads the aten dialect has no op for) into core ATen.
// RUN: exir-opt %s -p decompose | filecheck %s

exir.graph @diff(%x: !exir.tensor<[2, 5], float32>) -> (!exir.tensor<[2, 4], float32>) {
  %d = exir.call_function "aten.diff.default"(%x) : (!exir.tensor<[2, 5], float32>) -> !exir.tensor<[2, 4], float32>
  exir.output %d : !exir.tensor<[2, 4], float32>
}
exir.graph @views(%x: !exir.tensor<[2, 3, 4], float32>, %y: !exir.tensor<[6, 4], float32>) -> (!exir.tensor<[4, 3, 2], float32>, !exir.tensor<[6, 4], float32>, !exir.tensor<[2, 3, 4], float32>) {
  %s = exir.call_function "aten.swapaxes.default"(%x, 0, 2) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[4, 3, 2], float32>
  %r = exir.call_function "aten.reshape_as.default"(%x, %y) : (!exir.tensor<[2, 3, 4], float32>, !exir.tensor<[6, 4], float32>) -> !exir.tensor<[6, 4], float32>
  %c = exir.call_function "aten.lift_fresh_copy.default"(%x) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
  exir.output %s, %r, %c : !exir.tensor<[4, 3, 2], float32>, !exir.tensor<[6, 4], float32>, !exir.tensor<[2, 3, 4], float32>
}
exir.graph @all_rsub(%m: !exir.tensor<[3], bool>, %x: !exir.tensor<[3], float32>) -> (!exir.tensor<[], bool>, !exir.tensor<[3], float32>) {
  %a = exir.call_function "aten.all.default"(%m) : (!exir.tensor<[3], bool>) -> !exir.tensor<[], bool>
  %r = exir.call_function "aten.rsub.Scalar"(%x, 1.0) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
  exir.output %a, %r : !exir.tensor<[], bool>, !exir.tensor<[3], float32>
}

// diff: the upper slice minus the lower one along the last dim.
// CHECK-LABEL: exir.graph @diff
// CHECK-NEXT:    %0 = aten.slice.Tensor(%x, 1, 1, 5)
// CHECK-NEXT:    %1 = aten.slice.Tensor(%x, 1, 0, 4)
// CHECK-NEXT:    %d = aten.sub.Tensor(%0, %1)
// CHECK-NEXT:    exir.output %d

// swapaxes is a permute, reshape_as a view (the input is contiguous), lift_fresh_copy a clone.
// CHECK-LABEL: exir.graph @views
// CHECK-NEXT:    %s = aten.permute.default(%x, [2, 1, 0])
// CHECK-NEXT:    %r = aten.view.default(%x, [6, 4])
// CHECK-NEXT:    %c = aten.clone.default(%x)

// all(x) = not any(not x); rsub is sub with the Scalar first, as in torch's core IR.
// CHECK-LABEL: exir.graph @all_rsub
// CHECK-NEXT:    %0 = aten.logical_not.default(%m)
// CHECK-NEXT:    %1 = aten.any.dims(%0)
// CHECK-NEXT:    %a = aten.logical_not.default(%1)
// CHECK-NEXT:    %r = aten.sub.Tensor(1.0, %x)
