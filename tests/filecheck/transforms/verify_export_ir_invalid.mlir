// One case per rule of verify-export-ir; each diagnostic names its rule.
// RUN: exir-opt %s --split-input-file --verify-diagnostics -p verify-export-ir
// RUN: exir-opt %s --split-input-file --verify-diagnostics -p 'verify-export-ir{allow-namespaces=aten}'

// get-attr: parameters are lifted to placeholders, get_attr reads subgraphs only.
exir.program inputs [] outputs [<user_output "w">] {
  exir.state @w : !exir.tensor<[4], float32>
  exir.graph @forward() -> !exir.graph_module {
    // expected-error@+1 {{[get-attr] get_attr reads 'w', which is program state: in Export IR parameters, buffers and constants are lifted to graph inputs and get_attr reads only subgraphs}}
    %w = exir.get_attr @w : !exir.graph_module
    exir.output %w : !exir.graph_module
  }
}

// -----

// single-output: a graph built without its output node.
exir.program inputs [] outputs [] {
  exir.graph @forward() -> () {
    exir.output
  }
  exir.graph @sub(%x: !exir.tensor<[2], float32>) -> () {
    // expected-error@+1 {{Operation exir.call_function terminates block in single-block region but is not a terminator}}
    "exir.call_function"(%x) <{target = "aten._assert_async.default", args = [#exir.ref<0>], kwargs = {}}> : (!exir.tensor<[2], float32>) -> ()
  }
}

// -----

// known-operator: the node universe of Export IR is closed.
exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[known-operator] call_function of unknown operator 'mylib.frobnicate.default': Export IR calls only ATen operators, registered custom operators and higher-order ops (accept a custom namespace with allow-namespaces=mylib)}}
    %r = exir.call_function "mylib.frobnicate.default"(%x) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// -----

// known-operator: a misspelled operator of torch's own namespaces gets the nearest names,
// and allow-namespaces (for custom operators) does not hide it: the second RUN gives
// allow-namespaces=aten and expects the same diagnostics.
exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[known-operator] call_function of unknown operator 'aten.rleu.default': torch 2.13 has no such aten overload; did you mean 'aten.relu.default' or 'aten.le.default' or 'aten.rrelu.default'?}}
    %r = exir.call_function "aten.rleu.default"(%x) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// -----

// no-promotion: mixed tensor dtypes.
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>, %y: !exir.tensor<[2], int64>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[no-promotion] implicit type promotion in 'aten.add.Tensor': self is float32, other is int64; insert an explicit aten._to_copy so both sides have one dtype}}
    %r = exir.call_function "aten.add.Tensor"(%x, %y) : (!exir.tensor<[2], float32>, !exir.tensor<[2], int64>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// -----

// no-promotion: a float scalar applied to an integer tensor.
exir.program inputs [<user_input "x">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], int64>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[no-promotion] implicit type promotion in 'aten.mul.Tensor': float scalar 'other' applied to a int64 tensor}}
    %r = exir.call_function "aten.mul.Tensor"(%x, 0.5) : (!exir.tensor<[2], int64>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// -----

// no-promotion: true division of integers changes the dtype.
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], int32>, %y: !exir.tensor<[2], int32>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[no-promotion] implicit type promotion in 'aten.div.Tensor': int32 inputs give a float32 result}}
    %r = exir.call_function "aten.div.Tensor"(%x, %y) : (!exir.tensor<[2], int32>, !exir.tensor<[2], int32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// -----

// declared-symbols: s1 appears in a type without a range constraint.
exir.program inputs [<user_input "x">] outputs [<user_output "x">] ranges [<s0 in [2, 8]>] {
  // expected-error@+1 {{[declared-symbols] symbol 's1' in type !exir.tensor<[s0, s1], float32> has no range constraint; declare it in the program's ranges, e.g. <s1 in [0, inf]>}}
  exir.graph @forward(%x: !exir.tensor<[s0, s1], float32>) -> !exir.tensor<[s0, s1], float32> {
    exir.output %x : !exir.tensor<[s0, s1], float32>
  }
}

// -----

// signature: parameters come before user inputs.
// expected-error@+1 {{[signature] input 'p_w' (parameter) is out of order: placeholders come as tokens, parameters, buffers, constants, custom objects, then user inputs}}
exir.program inputs [<user_input "x">, <parameter "p_w" -> "w">] outputs [] {
  exir.state @w : !exir.tensor<[2], float32>
  exir.graph @forward(%x: !exir.tensor<[2], float32>, %p_w: !exir.tensor<[2], float32>) -> () {
    exir.output
  }
}

// -----

// signature: a parameter must be held by the program.
// expected-error@+1 {{[signature] input 'p_w' reads state 'w', which the program does not hold (no exir.state @w)}}
exir.program inputs [<parameter "p_w" -> "w">] outputs [] {
  exir.graph @forward(%p_w: !exir.tensor<[2], float32>) -> () {
    exir.output
  }
}

// -----

// signature: the state and the placeholder agree on the type.
exir.program inputs [<parameter "p_w" -> "w">] outputs [] {
  // expected-error@+1 {{[signature] state 'w' has type !exir.tensor<[3], float32> but placeholder 'p_w' has type !exir.tensor<[2], float32>}}
  exir.state @w : !exir.tensor<[3], float32>
  exir.graph @forward(%p_w: !exir.tensor<[2], float32>) -> () {
    exir.output
  }
}

// -----

// signature: a parameter is a tensor.
// expected-error@+1 {{[signature] input 'p_w' is a parameter but its placeholder has type !exir.int}}
exir.program inputs [<parameter "p_w" -> "w">] outputs [] {
  exir.state @w : !exir.int
  exir.graph @forward(%p_w: !exir.int) -> () {
    exir.output
  }
}

// -----

// signature: buffer mutations name a buffer.
exir.program inputs [<parameter "p_w" -> "w">] outputs [<buffer_mutation "r" -> "w">] {
  exir.state @w : !exir.tensor<[2], float32>
  exir.graph @forward(%p_w: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[signature] output 'r' mutates 'w', which is not a buffer input}}
    exir.output %p_w : !exir.tensor<[2], float32>
  }
}

// -----

// signature: mutated state is returned before user outputs.
exir.program inputs [<buffer "b_n" -> "n">] outputs [<user_output "x">, <buffer_mutation "r" -> "n">] {
  exir.state @n : !exir.tensor<[2], float32>
  exir.graph @forward(%b_n: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) {
    // expected-error@+1 {{[signature] mutation output 'r' comes after a user output: mutated state is returned first}}
    exir.output %b_n, %b_n : !exir.tensor<[2], float32>, !exir.tensor<[2], float32>
  }
}

// -----

// signature: a mutation writes a value of the buffer's type.
exir.program inputs [<buffer "b_n" -> "n">] outputs [<buffer_mutation "r" -> "n">] {
  exir.state @n : !exir.tensor<[2], float32>
  exir.graph @forward(%b_n: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float64> {
    %r = exir.call_function "aten._to_copy.default"(%b_n, dtype = torch.float64) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float64>
    // expected-error@+1 {{[signature] output 'r' writes !exir.tensor<[2], float64> into 'n' of type !exir.tensor<[2], float32>}}
    exir.output %r : !exir.tensor<[2], float64>
  }
}

// -----

// signature: user-input mutations name a user input.
exir.program inputs [<user_input "x">] outputs [<user_input_mutation "r" -> "y">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[signature] output 'r' mutates 'y', which is not a user_input input}}
    exir.output %x : !exir.tensor<[2], float32>
  }
}

// -----

// no-promotion also holds for ops of the aten dialect.
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "r">] {
  exir.graph @forward(%x: !exir.tensor<[2], float16>, %y: !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32> {
    // expected-error@+1 {{[no-promotion] implicit type promotion in 'aten.mul.Tensor': self is float16, other is float32}}
    %r = aten.mul.Tensor(%x, %y) : (!exir.tensor<[2], float16>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}
