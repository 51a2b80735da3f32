// --emit fx on the examples of the torch.export IR Specification: the
// text torch prints for `str(exported_program.graph)`, subgraphs after it.
// RUN: exir-opt %s --split-input-file --emit fx | filecheck %s

// `x + y` (MyModule.forward)
exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "add">] {
  exir.graph @forward(%x: !exir.tensor<[1], float32>, %y: !exir.tensor<[1], float32>) -> !exir.tensor<[1], float32> {
    %add = exir.call_function "aten.add.Tensor"(%x, %y) : (!exir.tensor<[1], float32>, !exir.tensor<[1], float32>) -> !exir.tensor<[1], float32>
    exir.output %add : !exir.tensor<[1], float32>
  }
}

// CHECK:      graph():
// CHECK-NEXT:     %x : [num_users=1] = placeholder[target=x]
// CHECK-NEXT:     %y : [num_users=1] = placeholder[target=y]
// CHECK-NEXT:     %add : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%x, %y), kwargs = {})
// CHECK-NEXT:     return (add,)
// CHECK-NEXT: {{//}} -----

// -----

// cond with its branches as sibling graphs read by get_attr: the subgraphs
// follow the entry graph, each under a `# subgraph <attribute>` line.
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

// CHECK:      graph():
// CHECK-NEXT:     %x_1 : [num_users=1] = placeholder[target=x_1]
// CHECK-NEXT:     %y_1 : [num_users=1] = placeholder[target=y_1]
// CHECK-NEXT:     %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
// CHECK-NEXT:     %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
// CHECK-NEXT:     %conditional : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%y_1, %true_graph_0, %false_graph_0, (%x_1,)), kwargs = {})
// CHECK-NEXT:     return (conditional,)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph true_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %x : [num_users=1] = placeholder[target=x]
// CHECK-NEXT:     %sin : [num_users=1] = call_function[target=torch.ops.aten.sin.default](args = (%x,), kwargs = {})
// CHECK-NEXT:     return (sin,)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph false_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %x : [num_users=1] = placeholder[target=x]
// CHECK-NEXT:     %cos : [num_users=1] = call_function[target=torch.ops.aten.cos.default](args = (%x,), kwargs = {})
// CHECK-NEXT:     return (cos,)
// CHECK-NEXT: {{//}} -----

// -----

// The same cond with the branches as regions of exir.cond: printed as
// torch.export records it, get_attr of true_graph_0/false_graph_0, the cond
// call and a getitem of its tuple result.
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

// CHECK:      graph():
// CHECK-NEXT:     %x_1 : [num_users=1] = placeholder[target=x_1]
// CHECK-NEXT:     %y_1 : [num_users=1] = placeholder[target=y_1]
// CHECK-NEXT:     %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
// CHECK-NEXT:     %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
// CHECK-NEXT:     %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%y_1, %true_graph_0, %false_graph_0, (%x_1,)), kwargs = {})
// CHECK-NEXT:     %conditional : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), kwargs = {})
// CHECK-NEXT:     return (conditional,)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph true_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %x : [num_users=1] = placeholder[target=x]
// CHECK-NEXT:     %sin : [num_users=1] = call_function[target=torch.ops.aten.sin.default](args = (%x,), kwargs = {})
// CHECK-NEXT:     return (sin,)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph false_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %x : [num_users=1] = placeholder[target=x]
// CHECK-NEXT:     %cos : [num_users=1] = call_function[target=torch.ops.aten.cos.default](args = (%x,), kwargs = {})
// CHECK-NEXT:     return (cos,)
// CHECK-NEXT: {{//}} -----

// -----

// add_one with a symbolic size: placeholder and output names come from the
// signature (`ph_0`, `add_tensor`), which keeps them whole.
exir.program inputs [<user_input "ph_0">] outputs [<user_output "add_tensor">] ranges [<s0 in [2, inf]>] {
  exir.graph @forward(%ph_0: !exir.tensor<[s0], int32>) -> !exir.tensor<[s0], int32> {
    %add_tensor = exir.call_function "aten.add.Tensor"(%ph_0, 1) : (!exir.tensor<[s0], int32>) -> !exir.tensor<[s0], int32>
    exir.output %add_tensor : !exir.tensor<[s0], int32>
  }
}

// CHECK:      graph():
// CHECK-NEXT:     %ph_0 : [num_users=1] = placeholder[target=ph_0]
// CHECK-NEXT:     %add_tensor : [num_users=1] = call_function[target=torch.ops.aten.add.Tensor](args = (%ph_0, 1), kwargs = {})
// CHECK-NEXT:     return (add_tensor,)
// CHECK-NEXT: {{//}} -----

// -----

// A buffer mutated in forward: the new value is an output like any other.
exir.program inputs [<buffer "b_count" -> "count">, <user_input "x">] outputs [<buffer_mutation "add" -> "count">, <user_output "mul">] {
  exir.state @count : !exir.tensor<[], int64>
  exir.graph @forward(%b_count: !exir.tensor<[], int64>, %x: !exir.tensor<[4], int64>) -> (!exir.tensor<[], int64>, !exir.tensor<[4], int64>) {
    %add = exir.call_function "aten.add.Tensor"(%b_count, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
    %mul = exir.call_function "aten.mul.Tensor"(%x, %add) : (!exir.tensor<[4], int64>, !exir.tensor<[], int64>) -> !exir.tensor<[4], int64>
    exir.output %add, %mul : !exir.tensor<[], int64>, !exir.tensor<[4], int64>
  }
}

// CHECK:      graph():
// CHECK-NEXT:     %b_count : [num_users=1] = placeholder[target=b_count]
// CHECK-NEXT:     %x : [num_users=1] = placeholder[target=x]
// CHECK-NEXT:     %add : [num_users=2] = call_function[target=torch.ops.aten.add.Tensor](args = (%b_count, 1), kwargs = {})
// CHECK-NEXT:     %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%x, %add), kwargs = {})
// CHECK-NEXT:     return (add, mul)
// CHECK-NOT:  {{.}}
