// verify-export-ir{dialect=core}: only core ATen operators (and the assertion,
// SymInt and shift operators torch keeps in core IR); each non-core op is named
// with its place.
// RUN: exir-opt %s -p 'verify-export-ir{dialect=core}' | filecheck %s

// A core program passes, the shift torch keeps included.
exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2, 6], int64>) -> !exir.tensor<[2, 3, 2], int64> {
    %s = aten.__lshift__.Scalar(%x, 2) : (!exir.tensor<[2, 6], int64>) -> !exir.tensor<[2, 6], int64>
    %r = aten.view.default(%s, [2, 3, 2]) : (!exir.tensor<[2, 6], int64>) -> !exir.tensor<[2, 3, 2], int64>
    exir.output %r : !exir.tensor<[2, 3, 2], int64>
  }
}
// CHECK: %s = aten.__lshift__.Scalar(%x, 2)
