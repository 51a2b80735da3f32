// exit-transform reports exits with no target, and input still in the
// frontend's Store/Load form, at the op.
// RUN: not exir-opt %s -p exit-transform 2>&1 | filecheck %s
// RUN: not exir-opt %S/convert-to-ssa.mlir -p exit-transform --split-input-file 2>&1 | filecheck %s --check-prefix=FORM

builtin.module {
  ts.method @continue_outside_loop {
  ^bb0(%c: !ts.bool, %x: !ts.int):
    prim.LoopContinuation(%c, %x) : (!ts.bool, !ts.int) -> ()
    prim.Return(%x) : (!ts.int) -> ()
  }
}

// CHECK: exit-transform-invalid.mlir:9:5: 'prim::LoopContinuation' in @continue_outside_loop: prim::LoopContinuation outside a loop

// FORM: convert-to-ssa.mlir:{{[0-9]+}}:{{[0-9]+}}: 'prim::Store' in @if_else: 'prim::Store' is the frontend's form: run convert-to-ssa before exit-transform
