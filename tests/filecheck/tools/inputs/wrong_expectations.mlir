exir.graph @g(%a: !exir.sym_int<s0>) -> () {
  // expected-error@+1 {{recorded as 4*s0}}
  %r = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<3*s0>
  exir.output
}
// -----
exir.graph @h(%a: !exir.sym_int<s0>) -> () {
  %r = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
  exir.output
  // expected-error@-1 {{never produced}}
}
// -----
exir.graph @k(%a: !exir.sym_int<s0>) -> () {
  // expected-error@+1 {{6*s0}}
  %r = exir.sym_mul(%a, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<6*s0>
  exir.output
}
