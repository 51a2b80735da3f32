// mlir-opt's --verify-diagnostics: the diagnostics must be exactly the ones the
// input expects; --split-input-file processes and reports every chunk.
// RUN: exir-opt %s --split-input-file --verify-diagnostics | filecheck %s --check-prefix=OK
// RUN: not exir-opt %S/inputs/wrong_expectations.mlir --split-input-file --verify-diagnostics 2>&1 | filecheck %s --check-prefix=WRONG
// RUN: not exir-opt %S/inputs/wrong_expectations.mlir --split-input-file 2>&1 >/dev/null | filecheck %s --check-prefix=SPLIT
// An input that expects nothing must produce nothing (mlir-opt's rule, not xdsl-opt's printing):
// RUN: not exir-opt %S/inputs/bad_verify.mlir --verify-diagnostics 2>&1 | filecheck %s --check-prefix=NONE
// NONE: bad_verify.mlir:2:3: error: unexpected error: 'exir.sym_mul' (%r) in @g: result is recorded as 3*s0
// NONE: exir-opt: error: 1 difference from the expected diagnostics

exir.graph @same_line(%a: !exir.sym_int<s0>) -> () {
  %r = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<3*s0> // expected-error {{result is recorded as 3*s0 but the operands give 2*s0}}
  exir.output
}

// -----

exir.graph @next_line(%a: !exir.sym_int<s0>) -> () {
  // expected-error@+1 {{result is recorded as 3*s0}}
  %r = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<3*s0>
  %q = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<4*s0>
  // expected-error@-1 {{result is recorded as 4*s0}}
  exir.output
}

// -----

exir.graph @above(%a: !exir.sym_int<s0>) -> () {
  %r = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<5*s0>
  // expected-error@above {{5*s0}}
  exir.output
}

// -----

// A chunk without errors is printed.
exir.graph @fine(%a: !exir.sym_int<s0>) -> () {
  %r = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
  exir.output
}

// -----

// expected-error@+1 {{'(' expected}}
exir.graph @syntax(%a: !exir.sym_int<s0>) -> () { %r = exir.sym_mul %a }

// The separators of the chunks stay in the output (spelled with a regex here, so that
// these lines do not split this file).
// OK-COUNT-3: // {{-+}}
// OK: exir.graph @fine
// OK: // {{-+}}

// WRONG: wrong_expectations.mlir:3:3: error: unexpected error: 'exir.sym_mul' (%r) in @g: result is recorded as 3*s0 but the operands give 2*s0
// WRONG-NEXT: wrong_expectations.mlir:2: error: expected error "recorded as 4*s0" was not produced
// WRONG-NEXT: wrong_expectations.mlir:10: error: expected error "never produced" was not produced
// WRONG-NEXT: exir-opt: error: 3 differences from the expected diagnostics

// SPLIT: exir-opt: error: {{.*}}wrong_expectations.mlir:3:3: 'exir.sym_mul' (%r) in @g: result is recorded as 3*s0
// SPLIT-NEXT: exir-opt: error: {{.*}}wrong_expectations.mlir:15:3: 'exir.sym_mul' (%r) in @k: result is recorded as 6*s0
// SPLIT-NEXT: exir-opt: error: 2 of 3 input chunks failed
