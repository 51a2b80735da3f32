// The examples of the torch.export IR Specification, as exir programs.
// Each is parsed, printed, parsed again (custom and generic form), and passes
// verify-export-ir.
// RUN: exir-opt %s --split-input-file -p verify-export-ir | exir-opt --split-input-file | filecheck %s
// RUN: exir-opt %s --split-input-file --print-op-generic | exir-opt --split-input-file | filecheck %s

// `x + y` (MyModule.forward)
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "add">] {
  exir.graph @forward(%x: !exir.tensor<[1], float32>, %y: !exir.tensor<[1], float32>) -> !exir.tensor<[1], float32> {
    %add = exir.call_function "aten.add.Tensor"(%x, %y) : (!exir.tensor<[1], float32>, !exir.tensor<[1], float32>) -> !exir.tensor<[1], float32>
    exir.output %add : !exir.tensor<[1], float32>
  }
}

// CHECK:      exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "add">] {
// CHECK-NEXT:   exir.graph @forward(%x: !exir.tensor<[1], float32>, %y: !exir.tensor<[1], float32>) -> !exir.tensor<[1], float32> {
// CHECK-NEXT:     %add = exir.call_function "aten.add.Tensor"(%x, %y) : (!exir.tensor<[1], float32>, !exir.tensor<[1], float32>) -> !exir.tensor<[1], float32>
// CHECK-NEXT:     exir.output %add : !exir.tensor<[1], float32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// cond(y, true_fn, false_fn, [x]) exactly as FX records it: the branches are
// subgraphs read by get_attr and the higher-order op is a call_function.
exir.program inputs [<user_input "x_1">, <user_input "y_1">] outputs [<user_output "conditional">] {
  exir.graph @forward(%x_1: !exir.tensor<[3], float32>, %y_1: !exir.tensor<[], bool>) -> !exir.tensor<[3], float32> {
    %true_graph_0 = exir.get_attr @true_graph_0 : !exir.graph_module
    %false_graph_0 = exir.get_attr @false_graph_0 : !exir.graph_module
    %conditional = exir.call_function "higher_order.cond"(%y_1, %true_graph_0, %false_graph_0, [%x_1]) : (!exir.tensor<[], bool>, !exir.graph_module, !exir.graph_module, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    exir.output %conditional : !exir.tensor<[3], float32>
  }
  exir.graph @true_graph_0(%x: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
    %sin = exir.call_function "aten.sin.default"(%x) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    exir.output %sin : !exir.tensor<[3], float32>
  }
  exir.graph @false_graph_0(%x: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
    %cos = exir.call_function "aten.cos.default"(%x) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    exir.output %cos : !exir.tensor<[3], float32>
  }
}

// CHECK:      exir.program inputs [<user_input "x_1">, <user_input "y_1">] outputs [<user_output "conditional">] {
// CHECK-NEXT:   exir.graph @forward(%x: !exir.tensor<[3], float32>, %y: !exir.tensor<[], bool>) -> !exir.tensor<[3], float32> {
// CHECK-NEXT:     %true_graph = exir.get_attr @true_graph_0 : !exir.graph_module
// CHECK-NEXT:     %false_graph = exir.get_attr @false_graph_0 : !exir.graph_module
// CHECK-NEXT:     %conditional = exir.call_function "higher_order.cond"(%y, %true_graph, %false_graph, [%x]) : (!exir.tensor<[], bool>, !exir.graph_module, !exir.graph_module, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
// CHECK-NEXT:     exir.output %conditional : !exir.tensor<[3], float32>
// CHECK-NEXT:   }
// CHECK-NEXT:   exir.graph @true_graph_0(%{{.*}}: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
// CHECK-NEXT:     %sin = exir.call_function "aten.sin.default"(%{{.*}}) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
// CHECK-NEXT:     exir.output %sin : !exir.tensor<[3], float32>
// CHECK-NEXT:   }
// CHECK-NEXT:   exir.graph @false_graph_0(%{{.*}}: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
// CHECK-NEXT:     %cos = exir.call_function "aten.cos.default"(%{{.*}}) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
// CHECK-NEXT:     exir.output %cos : !exir.tensor<[3], float32>
// CHECK-NEXT:   }
// CHECK-NEXT: }

// -----

// The same cond with the branches as regions of exir.cond.
exir.program inputs [<user_input "x_1">, <user_input "y_1">] outputs [<user_output "conditional">] {
  exir.graph @forward(%x_1: !exir.tensor<[3], float32>, %y_1: !exir.tensor<[], bool>) -> !exir.tensor<[3], float32> {
    %conditional = exir.cond %y_1(%x_1) : !exir.tensor<[], bool>, (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
    ^bb0(%x: !exir.tensor<[3], float32>):
      %sin = exir.call_function "aten.sin.default"(%x) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      exir.output %sin : !exir.tensor<[3], float32>
    } else {
    ^bb0(%x: !exir.tensor<[3], float32>):
      %cos = exir.call_function "aten.cos.default"(%x) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      exir.output %cos : !exir.tensor<[3], float32>
    }
    exir.output %conditional : !exir.tensor<[3], float32>
  }
}

// CHECK:        %conditional = exir.cond %y(%x) : !exir.tensor<[], bool>, (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
// CHECK-NEXT:   ^bb0(%[[A:.*]]: !exir.tensor<[3], float32>):
// CHECK-NEXT:     %sin = exir.call_function "aten.sin.default"(%[[A]]) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
// CHECK-NEXT:     exir.output %sin : !exir.tensor<[3], float32>
// CHECK-NEXT:   } else {
// CHECK-NEXT:   ^bb0(%[[B:.*]]: !exir.tensor<[3], float32>):
// CHECK-NEXT:     %cos = exir.call_function "aten.cos.default"(%[[B]]) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
// CHECK-NEXT:     exir.output %cos : !exir.tensor<[3], float32>
// CHECK-NEXT:   }

// -----

// add_one with a symbolic size: FakeTensor(dtype=torch.int, size=[s0]).
exir.program inputs [<user_input "ph_0">] outputs [<user_output "add_tensor">] ranges [<s0 in [2, inf]>] {
  exir.graph @forward(%ph_0: !exir.tensor<[s0], int32>) -> !exir.tensor<[s0], int32> {
    %add_tensor = exir.call_function "aten.add.Tensor"(%ph_0, 1) : (!exir.tensor<[s0], int32>) -> !exir.tensor<[s0], int32>
    exir.output %add_tensor : !exir.tensor<[s0], int32>
  }
}

// CHECK:      exir.program inputs [<user_input "ph_0">] outputs [<user_output "add_tensor">] ranges [<s0 in [2, inf]>] {
// CHECK-NEXT:   exir.graph @forward(%ph: !exir.tensor<[s0], int32>) -> !exir.tensor<[s0], int32> {
// CHECK-NEXT:     %add_tensor = exir.call_function "aten.add.Tensor"(%ph, 1) : (!exir.tensor<[s0], int32>) -> !exir.tensor<[s0], int32>

// -----

// A buffer mutated in forward: `self.count += 1; return x * self.count`.
// The new value of the buffer is an output of kind buffer_mutation.
exir.program inputs [<buffer "b_count" -> "count">, <user_input "x">] outputs [<buffer_mutation "add" -> "count">, <user_output "mul">] {
  exir.state @count : !exir.tensor<[], int64>
  exir.graph @forward(%b_count: !exir.tensor<[], int64>, %x: !exir.tensor<[4], int64>) -> (!exir.tensor<[], int64>, !exir.tensor<[4], int64>) {
    %add = exir.call_function "aten.add.Tensor"(%b_count, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
    %mul = exir.call_function "aten.mul.Tensor"(%x, %add) : (!exir.tensor<[4], int64>, !exir.tensor<[], int64>) -> !exir.tensor<[4], int64>
    exir.output %add, %mul : !exir.tensor<[], int64>, !exir.tensor<[4], int64>
  }
}

// CHECK:      exir.program inputs [<buffer "b_count" -> "count">, <user_input "x">] outputs [<buffer_mutation "add" -> "count">, <user_output "mul">] {
// CHECK-NEXT:   exir.state @count : !exir.tensor<[], int64>
// CHECK:          exir.output %add, %mul : !exir.tensor<[], int64>, !exir.tensor<[4], int64>
