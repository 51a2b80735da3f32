// The op verifiers of the exir dialect, one case each.
// RUN: exir-opt %s --split-input-file --verify-diagnostics

// expected-error@+1 {{dim_order [0, 0] is not a permutation of the 2 dimensions}}
exir.graph @g(%x: !exir.tensor<[2, 3], float32, dim_order = [0, 0]>) -> () {
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[s0, 4], float32>) -> !exir.sym_int {
  // expected-error@+1 {{dim 2 out of range for a rank-2 tensor}}
  %s = exir.sym_size %x, 2 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int
  exir.output %s : !exir.sym_int
}

// -----

exir.graph @g(%x: !exir.tensor<[s0, 4], float32>) -> !exir.sym_int<s1> {
  // expected-error@+1 {{result is recorded as s1 but the operands give s0}}
  %s = exir.sym_size %x, 0 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<s1>
  exir.output %s : !exir.sym_int<s1>
}

// -----

exir.graph @g(%x: !exir.tensor<[s0, 4], float32>) -> !exir.sym_int<8> {
  // expected-error@+1 {{result is recorded as 8 but the operands give 4}}
  %s = exir.sym_stride %x, 0 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<8>
  exir.output %s : !exir.sym_int<8>
}

// -----

exir.graph @g(%x: !exir.tensor<[s0, 4], float32>) -> !exir.sym_int<s0> {
  // expected-error@+1 {{result is recorded as s0 but the operands give 4*s0}}
  %n = exir.sym_numel %x : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<s0>
  exir.output %n : !exir.sym_int<s0>
}

// -----

exir.graph @g(%s: !exir.sym_int<s0>) -> !exir.sym_int<s0 + 2> {
  // expected-error@+1 {{result is recorded as s0 + 2 but the operands give 2*s0}}
  %r = exir.sym_mul(%s, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<s0 + 2>
  exir.output %r : !exir.sym_int<s0 + 2>
}

// -----

exir.graph @g(%s: !exir.sym_int<s0>) -> !exir.sym_int {
  // expected-error@+1 {{exir.sym_lt of these arguments gives a exir.sym_bool, not !exir.sym_int}}
  %r = exir.sym_lt(%s, 2) : (!exir.sym_int<s0>) -> !exir.sym_int
  exir.output %r : !exir.sym_int
}

// -----

exir.graph @g(%s: !exir.sym_int<s0>) -> !exir.sym_int {
  // expected-error@+1 {{exir.sym_neg takes 1 argument(s), got 2}}
  %r = exir.sym_neg(%s, 2) : (!exir.sym_int<s0>) -> !exir.sym_int
  exir.output %r : !exir.sym_int
}

// -----

exir.graph @g(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
  // expected-error@+1 {{argument references [1] do not match the 1 operands one to one}}
  %r = "exir.call_function"(%x) <{target = "aten.relu.default", args = [#exir.ref<1>], kwargs = {}}> : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
  exir.output %r : !exir.tensor<[2], float32>
}

// -----

exir.graph @g(%t: !exir.tuple<!exir.tensor<[2], float32>>) -> !exir.tensor<[2], float32> {
  // expected-error@+1 {{index 1 out of range for a tuple of 1}}
  %r = exir.getitem %t[1] : !exir.tuple<!exir.tensor<[2], float32>> -> !exir.tensor<[2], float32>
  exir.output %r : !exir.tensor<[2], float32>
}

// -----

exir.graph @g(%t: !exir.tuple<!exir.tensor<[2], float32>>) -> !exir.tensor<[3], float32> {
  // expected-error@+1 {{getitem result type !exir.tensor<[3], float32> is not the element type !exir.tensor<[2], float32>}}
  %r = exir.getitem %t[0] : !exir.tuple<!exir.tensor<[2], float32>> -> !exir.tensor<[3], float32>
  exir.output %r : !exir.tensor<[3], float32>
}

// -----

exir.graph @g(%p: !exir.tensor<[2], bool>, %x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
  // expected-error@+1 {{cond predicate must be a bool tensor of one element or a SymBool, got !exir.tensor<[2], bool>}}
  %r = exir.cond %p(%x) : !exir.tensor<[2], bool>, (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
  ^bb0(%a: !exir.tensor<[2], float32>):
    exir.output %a : !exir.tensor<[2], float32>
  } else {
  ^bb0(%a: !exir.tensor<[2], float32>):
    exir.output %a : !exir.tensor<[2], float32>
  }
  exir.output %r : !exir.tensor<[2], float32>
}

// -----

exir.graph @g(%p: !exir.sym_bool, %x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
  // expected-error@+1 {{false branch returns (!exir.tensor<[], float32>) but cond results are (!exir.tensor<[2], float32>)}}
  %r = exir.cond %p(%x) : !exir.sym_bool, (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
  ^bb0(%a: !exir.tensor<[2], float32>):
    exir.output %a : !exir.tensor<[2], float32>
  } else {
  ^bb0(%a: !exir.tensor<[2], float32>):
    %s = exir.call_function "aten.sum.default"(%a) : (!exir.tensor<[2], float32>) -> !exir.tensor<[], float32>
    exir.output %s : !exir.tensor<[], float32>
  }
  exir.output %r : !exir.tensor<[2], float32>
}

// -----

exir.graph @g(%p: !exir.sym_bool, %x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
  // expected-error@+1 {{true branch takes (!exir.tensor<[2], int64>) but is given (!exir.tensor<[2], float32>)}}
  %r = exir.cond %p(%x) : !exir.sym_bool, (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
  ^bb0(%a: !exir.tensor<[2], int64>):
    %f = exir.call_function "aten.zeros.default"([2]) : () -> !exir.tensor<[2], float32>
    exir.output %f : !exir.tensor<[2], float32>
  } else {
  ^bb0(%a: !exir.tensor<[2], float32>):
    exir.output %a : !exir.tensor<[2], float32>
  }
  exir.output %r : !exir.tensor<[2], float32>
}

// -----

exir.graph @g(%i: !exir.tensor<[], int64>) -> !exir.tensor<[], int64> {
  // expected-error@+1 {{while_loop condition must return one bool tensor of one element or a SymBool}}
  %r = exir.while_loop(%i) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64> cond {
  ^bb0(%a: !exir.tensor<[], int64>):
    exir.output %a : !exir.tensor<[], int64>
  } body {
  ^bb0(%a: !exir.tensor<[], int64>):
    exir.output %a : !exir.tensor<[], int64>
  }
  exir.output %r : !exir.tensor<[], int64>
}

// -----

exir.graph @g(%i: !exir.tensor<[], int64>) -> !exir.tensor<[], int64> {
  // expected-error@+1 {{while_loop body must return the types of the carried values}}
  %r = exir.while_loop(%i) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64> cond {
  ^bb0(%a: !exir.tensor<[], int64>):
    %c = exir.call_function "aten.lt.Scalar"(%a, 3) : (!exir.tensor<[], int64>) -> !exir.tensor<[], bool>
    exir.output %c : !exir.tensor<[], bool>
  } body {
  ^bb0(%a: !exir.tensor<[], int64>):
    exir.output %a, %a : !exir.tensor<[], int64>, !exir.tensor<[], int64>
  }
  exir.output %r : !exir.tensor<[], int64>
}

// -----

exir.graph @g(%x: !exir.tensor<[3, 4], float32>, %y: !exir.tensor<[5, 4], float32>) -> !exir.tensor<[3, 4], float32> {
  // expected-error@+1 {{map inputs must share their leading dimension}}
  %r = exir.map(%x, %y) : (!exir.tensor<[3, 4], float32>, !exir.tensor<[5, 4], float32>) -> !exir.tensor<[3, 4], float32> {
  ^bb0(%a: !exir.tensor<[4], float32>, %b: !exir.tensor<[4], float32>):
    exir.output %a : !exir.tensor<[4], float32>
  }
  exir.output %r : !exir.tensor<[3, 4], float32>
}

// -----

exir.graph @g(%x: !exir.tensor<[3, 4], float32>) -> !exir.tensor<[4, 4], float32> {
  // expected-error@+1 {{map results must be the body's tensor results stacked along the mapped dimension}}
  %r = exir.map(%x) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[4, 4], float32> {
  ^bb0(%a: !exir.tensor<[4], float32>):
    exir.output %a : !exir.tensor<[4], float32>
  }
  exir.output %r : !exir.tensor<[4, 4], float32>
}

// -----

// expected-error@+1 {{exir.output types do not match the graph's result types}}
exir.graph @g(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[3], float32> {
  exir.output %x : !exir.tensor<[2], float32>
}

// -----

// expected-error@+1 {{program has no entry graph @forward}}
exir.program inputs [] outputs [] {
  exir.graph @main() -> () {
    exir.output
  }
}

// -----

// The signature's own consistency holds on every read, without verify-export-ir.
// expected-error@+1 {{the signature lists 2 inputs but @forward has 1 placeholders}}
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "x">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    exir.output %x : !exir.tensor<[2], float32>
  }
}

// -----

// expected-error@+1 {{the signature lists 0 outputs but @forward returns 1 values}}
exir.program inputs [<user_input "x">] outputs [] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    exir.output %x : !exir.tensor<[2], float32>
  }
}

// -----

exir.program inputs [] outputs [] {
  exir.graph @forward() -> () {
    // expected-error@+1 {{get_attr target @missing does not exist}}
    %g = exir.get_attr @missing : !exir.graph_module
    exir.output
  }
}

// -----

// expected-error@+1 {{empty range [8, 2]}}
exir.program inputs [] outputs [] ranges [<s0 in [8, 2]>] {
  exir.graph @forward() -> () {
    exir.output
  }
}

// -----

// expected-error@+1 {{input kind 'parameter' needs state target}}
exir.program inputs [<parameter "w">] outputs [] {
  exir.graph @forward(%w: !exir.tensor<[2], float32>) -> () {
    exir.output
  }
}

// -----

// expected-error@+1 {{output kind 'buffer_mutation' needs target}}
exir.program inputs [] outputs [<buffer_mutation "x">] {
  exir.graph @forward() -> () {
    exir.output
  }
}
