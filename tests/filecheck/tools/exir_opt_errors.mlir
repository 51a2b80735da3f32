// Bad input of any kind ends in one located diagnostic and a non-zero exit,
// never a Python traceback, and leaves no output file behind.
// RUN: not exir-opt %s 2>&1 | filecheck %s --check-prefix=GARBAGE
// RUN: not exir-opt %S/inputs/bad_sym.mlir 2>&1 | filecheck %s --check-prefix=SYM
// RUN: not exir-opt %S/inputs/bad_dtype.mlir 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: rm -f %t.out && not exir-opt %S/inputs/bad_verify.mlir -o %t.out 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not test -e %t.out
// RUN: not exir-opt %t.missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not exir-opt %S/inputs/bad_verify.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not exir-opt %S/inputs/binary.bin --from mlir 2>&1 | filecheck %s --check-prefix=BINARY

this is not IR {

// GARBAGE: exir-opt: error: {{.*}}exir_opt_errors.mlir:12:6: Operation this is not registered
// GARBAGE-NOT: Traceback
// SYM: exir-opt: error: {{.*}}bad_sym.mlir:1:37: unexpected end of expression in symbolic expression
// SYM-NEXT: exir.graph @g(%x: !exir.tensor<[s0 +], float32>) -> () {
// SYM-NEXT: {{ +}}^
// DTYPE: exir-opt: error: {{.*}}dtype.mlir:1:{{[0-9]+}}: Expected `bool`, `uint8`, {{.*}}
// VERIFY: exir-opt: error: {{.*}}verify.mlir:2:3: 'exir.sym_mul' (%r) in @g: result is recorded as 3*s0 but the operands give 2*s0
// VERIFY-NOT: Traceback
// MISSING: exir-opt: error: {{.*}}missing.mlir: no such file
// PASS: exir-opt: error: Unrecognized passes: ['no-such-pass']
// BINARY: exir-opt: error: {{.*}}.bin:1:1: {{.+}}
