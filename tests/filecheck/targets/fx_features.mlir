// --emit fx on what the seeds do not show: region ops (nested), SymInt
// arithmetic and asserts, a multi-result operator, constants and kwargs.
// RUN: exir-opt %s --emit fx | filecheck %s

exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">, <user_input "n">] outputs [<user_output "getitem_1">, <user_output "getitem">, <user_output "view">] ranges [<s0 in [2, 64]>] {
  exir.state @w : !exir.tensor<[4], float32>
  exir.graph @forward(%p_w: !exir.tensor<[4], float32>, %x: !exir.tensor<[s0, 4], float32>, %n: !exir.tensor<[], int64>) -> (!exir.tensor<[s0, 4], float32>, !exir.tensor<[], int64>, !exir.tensor<[2*s0, 2], float32>) {
    %sym_size_int = exir.sym_size %x, 0 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<s0>
    %ge = exir.sym_ge(%sym_size_int, 2) : (!exir.sym_int<s0>) -> !exir.sym_bool
    exir.assert_scalar %ge, "Runtime assertion failed for expression s0 >= 2" : !exir.sym_bool
    %mul = exir.sym_mul(%sym_size_int, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
    %view = aten.view.default(%x, [%mul, -1]) : (!exir.tensor<[s0, 4], float32>, !exir.sym_int<2*s0>) -> !exir.tensor<[2*s0, 2], float32>
    %ln:3 = aten.native_layer_norm.default(%x, [4], %p_w, none, 1.0e-05) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4], float32>) -> (!exir.tensor<[s0, 4], float32>, !exir.tensor<[s0, 1], float32>, !exir.tensor<[s0, 1], float32>)
    %r:2 = exir.while_loop (%n, %ln#0) : (!exir.tensor<[], int64>, !exir.tensor<[s0, 4], float32>) -> (!exir.tensor<[], int64>, !exir.tensor<[s0, 4], float32>) cond {
    ^bb0(%arg0: !exir.tensor<[], int64>, %arg1: !exir.tensor<[s0, 4], float32>):
      %gt = aten.gt.Scalar(%arg0, 0) : (!exir.tensor<[], int64>) -> !exir.tensor<[], bool>
      exir.output %gt : !exir.tensor<[], bool>
    } body {
    ^bb0(%arg0: !exir.tensor<[], int64>, %arg1: !exir.tensor<[s0, 4], float32>):
      %sub = aten.sub.Tensor(%arg0, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
      %pos = aten.gt.Scalar(%arg0, 2) : (!exir.tensor<[], int64>) -> !exir.tensor<[], bool>
      %c = exir.cond %pos(%arg1) : !exir.tensor<[], bool>, (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32> {
      ^bb0(%t: !exir.tensor<[s0, 4], float32>):
        %sin = aten.sin.default(%t) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
        exir.output %sin : !exir.tensor<[s0, 4], float32>
      } else {
      ^bb0(%t: !exir.tensor<[s0, 4], float32>):
        %mul_2 = aten.mul.Tensor(%t, 0.5) : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
        exir.output %mul_2 : !exir.tensor<[s0, 4], float32>
      }
      exir.output %sub, %c : !exir.tensor<[], int64>, !exir.tensor<[s0, 4], float32>
    }
    exir.output %r#1, %r#0, %view : !exir.tensor<[s0, 4], float32>, !exir.tensor<[], int64>, !exir.tensor<[2*s0, 2], float32>
  }
}

// CHECK:      graph():
// CHECK-NEXT:     %p_w : [num_users=1] = placeholder[target=p_w]
// CHECK-NEXT:     %x : [num_users=3] = placeholder[target=x]
// CHECK-NEXT:     %n : [num_users=1] = placeholder[target=n]
// CHECK-NEXT:     %sym_size_int : [num_users=2] = call_function[target=torch.ops.aten.sym_size.int](args = (%x, 0), kwargs = {})
// CHECK-NEXT:     %ge : [num_users=1] = call_function[target=operator.ge](args = (%sym_size_int, 2), kwargs = {})
// CHECK-NEXT:     %_assert_scalar_default : [num_users=0] = call_function[target=torch.ops.aten._assert_scalar.default](args = (%ge, Runtime assertion failed for expression s0 >= 2), kwargs = {})
// CHECK-NEXT:     %mul : [num_users=1] = call_function[target=operator.mul](args = (%sym_size_int, 2), kwargs = {})
// CHECK-NEXT:     %view : [num_users=1] = call_function[target=torch.ops.aten.view.default](args = (%x, [%mul, -1]), kwargs = {})
// CHECK-NEXT:     %native_layer_norm : [num_users=1] = call_function[target=torch.ops.aten.native_layer_norm.default](args = (%x, [4], %p_w, None, 1e-05), kwargs = {})
// CHECK-NEXT:     %ln : [num_users=1] = call_function[target=operator.getitem](args = (%native_layer_norm, 0), kwargs = {})
// CHECK-NEXT:     %while_loop_cond_graph_0 : [num_users=1] = get_attr[target=while_loop_cond_graph_0]
// CHECK-NEXT:     %while_loop_body_graph_0 : [num_users=1] = get_attr[target=while_loop_body_graph_0]
// CHECK-NEXT:     %while_loop : [num_users=2] = call_function[target=torch.ops.higher_order.while_loop](args = (%while_loop_cond_graph_0, %while_loop_body_graph_0, (%n, %ln), ()), kwargs = {})
// CHECK-NEXT:     %getitem : [num_users=1] = call_function[target=operator.getitem](args = (%while_loop, 0), kwargs = {})
// CHECK-NEXT:     %getitem_1 : [num_users=1] = call_function[target=operator.getitem](args = (%while_loop, 1), kwargs = {})
// CHECK-NEXT:     return (getitem_1, getitem, view)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph while_loop_cond_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %arg0_1 : [num_users=1] = placeholder[target=arg0_1]
// CHECK-NEXT:     %arg1_1 : [num_users=0] = placeholder[target=arg1_1]
// CHECK-NEXT:     %gt : [num_users=1] = call_function[target=torch.ops.aten.gt.Scalar](args = (%arg0_1, 0), kwargs = {})
// CHECK-NEXT:     return gt
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph while_loop_body_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %arg0_1 : [num_users=2] = placeholder[target=arg0_1]
// CHECK-NEXT:     %arg1_1 : [num_users=1] = placeholder[target=arg1_1]
// CHECK-NEXT:     %sub : [num_users=1] = call_function[target=torch.ops.aten.sub.Tensor](args = (%arg0_1, 1), kwargs = {})
// CHECK-NEXT:     %pos : [num_users=1] = call_function[target=torch.ops.aten.gt.Scalar](args = (%arg0_1, 2), kwargs = {})
// CHECK-NEXT:     %true_graph_0 : [num_users=1] = get_attr[target=true_graph_0]
// CHECK-NEXT:     %false_graph_0 : [num_users=1] = get_attr[target=false_graph_0]
// CHECK-NEXT:     %cond : [num_users=1] = call_function[target=torch.ops.higher_order.cond](args = (%pos, %true_graph_0, %false_graph_0, (%arg1_1,)), kwargs = {})
// CHECK-NEXT:     %c : [num_users=1] = call_function[target=operator.getitem](args = (%cond, 0), kwargs = {})
// CHECK-NEXT:     return (sub, c)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph while_loop_body_graph_0.true_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %t : [num_users=1] = placeholder[target=t]
// CHECK-NEXT:     %sin : [num_users=1] = call_function[target=torch.ops.aten.sin.default](args = (%t,), kwargs = {})
// CHECK-NEXT:     return (sin,)
// CHECK-EMPTY:
// CHECK-NEXT: # subgraph while_loop_body_graph_0.false_graph_0
// CHECK-NEXT: graph():
// CHECK-NEXT:     %t : [num_users=1] = placeholder[target=t]
// CHECK-NEXT:     %mul : [num_users=1] = call_function[target=torch.ops.aten.mul.Tensor](args = (%t, 0.5), kwargs = {})
// CHECK-NEXT:     return (mul,)
// CHECK-NOT:  {{.}}
