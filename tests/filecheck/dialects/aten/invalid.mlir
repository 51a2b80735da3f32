// The schema-driven verifier of aten ops, one case each.
// RUN: exir-opt %s --split-input-file --verify-diagnostics

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.relu.default takes 1 positional arguments, got 2}}
  %r = aten.relu.default(%x, 1) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.add.Tensor is missing argument 'other'}}
  %r = aten.add.Tensor(%x) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.add.Tensor has no argument 'beta'}}
  %r = aten.add.Tensor(%x, %x, beta = 1) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.add.Tensor takes 2 positional arguments, got 3}}
  %r = aten.add.Tensor(%x, %x, 2) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{argument 'other' of aten.add.Tensor: expected a tensor, got 'one'}}
  %r = aten.add.Tensor(%x, "one") : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{argument 'keepdim' of aten.sum.dim_IntList: expected bool, got 1}}
  %r = aten.sum.dim_IntList(%x, [1], keepdim = 1) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>, %f: !exir.sym_float) -> () {
  // expected-error@+1 {{argument 'size' of aten.view.default: expected SymInt, got a value of type !exir.sym_float}}
  %r = aten.view.default(%x, [%f]) : (!exir.tensor<[2, 3], float32>, !exir.sym_float) -> !exir.tensor<[6], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.relu.default result 0 has type !exir.tensor<[3, 2], float32>, but its arguments give !exir.tensor<[2, 3], float32>}}
  %r = aten.relu.default(%x) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[3, 2], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], int64>) -> () {
  // expected-error@+1 {{aten.div.Tensor result 0 has type !exir.tensor<[2, 3], int64>, but its arguments give !exir.tensor<[2, 3], float32>}}
  %r = aten.div.Tensor(%x, %x) : (!exir.tensor<[2, 3], int64>, !exir.tensor<[2, 3], int64>) -> !exir.tensor<[2, 3], int64>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>, %y: !exir.tensor<[4], float32>) -> () {
  // expected-error@+1 {{aten.add.Tensor: shapes [[2, 3], [4]] do not broadcast}}
  %r = aten.add.Tensor(%x, %y) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[2, 3], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.max.dim has 2 result(s), got 1}}
  %r = aten.max.dim(%x, 1) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.sym_size.int: expected a result of schema type SymInt, got !exir.tensor<[], int64>}}
  %r = aten.sym_size.int(%x, 0) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[], int64>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[s0, 3], float32>) -> () {
  // expected-error@+1 {{aten.view.default result 0 has type !exir.tensor<[s0, 3], float32>, but its arguments give !exir.tensor<[3*s0 floordiv 2, 2], float32>}}
  %r = aten.view.default(%x, [-1, 2]) : (!exir.tensor<[s0, 3], float32>) -> !exir.tensor<[s0, 3], float32>
  exir.output
}

// -----

exir.graph @g(%x: !exir.tensor<[2, 3], float32>) -> () {
  // expected-error@+1 {{aten.select.int: dimension 2 out of range for a 2-d tensor}}
  %r = aten.select.int(%x, 2, 0) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2], float32>
  exir.output
}
