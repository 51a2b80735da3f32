exir.graph @g(%s: !exir.sym_int<s0>) -> () {
  %r = exir.sym_mul(%s, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<3*s0>
  exir.output
}
