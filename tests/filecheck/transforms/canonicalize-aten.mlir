// The aten peepholes run under xDSL's stock `canonicalize` (the ops carry
// HasCanonicalizationPatternsTrait). Types are kept exactly; copies are
// forwarded only when no write can tell them apart.
// RUN: exir-opt %s -p canonicalize | filecheck %s

exir.program inputs [<user_input "x">, <user_input "i">] outputs [<user_output "a">, <user_output "b">, <user_output "c">, <user_output "d">, <user_output "e">, <user_output "f">, <user_output "g">, <user_output "h">] {
  exir.graph @forward(%x: !exir.tensor<[2, 3, 4], float32>, %i: !exir.tensor<[2, 3], int64>) -> (!exir.tensor<[2, 3, 4], float32>, !exir.tensor<[2, 3], int64>, !exir.tensor<[2, 3], float32>, !exir.tensor<[24], float32>, !exir.tensor<[2, 3, 4], float32>, !exir.tensor<[4, 2, 3], float32>, !exir.tensor<[2, 3, 4], float32>, !exir.tensor<[2, 3, 4], float32>) {
    %m1 = aten.mul.Tensor(%x, 1) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %d1 = aten.div.Tensor(%m1, 1.0) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %s0 = aten.sub.Tensor(%d1, 0) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %p1 = aten.pow.Tensor_Scalar(%s0, 1) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %a = aten.relu.default(%p1) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %i0 = aten.add.Tensor(%i, 0) : (!exir.tensor<[2, 3], int64>) -> !exir.tensor<[2, 3], int64>
    %b = aten.neg.default(%i0) : (!exir.tensor<[2, 3], int64>) -> !exir.tensor<[2, 3], int64>
    %c = aten.mul.Tensor(%i, 1.0) : (!exir.tensor<[2, 3], int64>) -> !exir.tensor<[2, 3], float32>
    %v1 = aten.view.default(%x, [6, 4]) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[6, 4], float32>
    %d = aten.view.default(%v1, [24]) : (!exir.tensor<[6, 4], float32>) -> !exir.tensor<[24], float32>
    %t1 = aten.transpose.int(%x, 0, 2) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[4, 3, 2], float32>
    %t2 = aten.transpose.int(%t1, 0, 2) : (!exir.tensor<[4, 3, 2], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %e = aten.exp.default(%t2) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %q1 = aten.permute.default(%x, [1, 2, 0]) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[3, 4, 2], float32>
    %f = aten.permute.default(%q1, [1, 2, 0]) : (!exir.tensor<[3, 4, 2], float32>) -> !exir.tensor<[4, 2, 3], float32>
    %c1 = aten.clone.default(%x) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %g = aten.sin.default(%c1) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %c2 = aten.clone.default(%x) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %w = aten.add_.Tensor(%c2, 1) : (!exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    %h = aten.add.Tensor(%c2, %x) : (!exir.tensor<[2, 3, 4], float32>, !exir.tensor<[2, 3, 4], float32>) -> !exir.tensor<[2, 3, 4], float32>
    exir.output %a, %b, %c, %d, %e, %f, %g, %h : !exir.tensor<[2, 3, 4], float32>, !exir.tensor<[2, 3], int64>, !exir.tensor<[2, 3], float32>, !exir.tensor<[24], float32>, !exir.tensor<[2, 3, 4], float32>, !exir.tensor<[4, 2, 3], float32>, !exir.tensor<[2, 3, 4], float32>, !exir.tensor<[2, 3, 4], float32>
  }
}

// Identities go: x * 1, / 1.0, - 0, pow(., 1); int + 0.
// CHECK:      exir.graph @forward(%x: {{.*}}, %i: {{.*}})
// CHECK-NEXT:   %a = aten.relu.default(%x)
// CHECK-NEXT:   %b = aten.neg.default(%i)
// An int tensor times 1.0 promotes to float: kept.
// CHECK-NEXT:   %c = aten.mul.Tensor(%i, 1.0)
// A view of a view is one view.
// CHECK-NEXT:   %d = aten.view.default(%x, [24])
// transpose(transpose(x, 0, 2), 0, 2) is x.
// CHECK-NEXT:   %e = aten.exp.default(%x)
// Two permutes compose into one.
// CHECK-NEXT:   %f = aten.permute.default(%x, [2, 0, 1])
// An unwritten clone is forwarded.
// CHECK-NEXT:   %g = aten.sin.default(%x)
// A clone written in place afterwards stays.
// CHECK-NEXT:   %c2 = aten.clone.default(%x)
// CHECK-NEXT:   %w = aten.add_.Tensor(%c2, 1)
// CHECK-NEXT:   %h = aten.add.Tensor(%c2, %x)
// CHECK-NEXT:   exir.output
