// Every op of the exir dialect round-trips in custom and generic form.
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

exir.program inputs [<parameter "p_w" -> "w">, <buffer "b_n" -> "n">, <buffer "b_tmp" -> "tmp" non_persistent>, <constant_tensor "c_k" -> "k">, <user_input "x">, <user_input "pred">] outputs [<buffer_mutation "add" -> "n">, <user_output "getitem">, <user_output "mul">] ranges [<s0 in [2, 1024]>, <u0 in [0, inf]>] in_spec "in-spec" out_spec "out-spec" {
  exir.state @w : !exir.tensor<[4], float32>
  exir.state @n : !exir.tensor<[], int64> = dense<0> : tensor<i64>
  exir.state @tmp : !exir.tensor<[4], float32>
  exir.state @k : !exir.tensor<[4], float32>
  exir.graph @forward(%p_w: !exir.tensor<[4], float32>, %b_n: !exir.tensor<[], int64>, %b_tmp: !exir.tensor<[4], float32>, %c_k: !exir.tensor<[4], float32>, %x: !exir.tensor<[s0, 4], float32>, %pred: !exir.tensor<[], bool>) -> (!exir.tensor<[], int64>, !exir.tensor<[s0], float32>, !exir.sym_int<2*s0>) {
    %add = exir.call_function "aten.add.Tensor"(%b_n, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
    %max = exir.call_function "aten.max.dim"(%x, 1, keepdim = false) : (!exir.tensor<[s0, 4], float32>) -> !exir.tuple<!exir.tensor<[s0], float32>, !exir.tensor<[s0], int64>>
    %getitem = exir.getitem %max[0] : !exir.tuple<!exir.tensor<[s0], float32>, !exir.tensor<[s0], int64>> -> !exir.tensor<[s0], float32>
    %list = exir.call_function "aten.split.Tensor"(%x, 2) : (!exir.tensor<[s0, 4], float32>) -> !exir.list<!exir.tensor<[2, 4], float32>>
    %piece = exir.getitem %list[1] : !exir.list<!exir.tensor<[2, 4], float32>> -> !exir.tensor<[2, 4], float32>
    %sz = exir.sym_size %x, 0 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<s0>
    %st = exir.sym_stride %x, 0 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<4>
    %nu = exir.sym_numel %x : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<4*s0>
    %mul = exir.sym_mul(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
    %fl = exir.sym_floordiv(%mul, 3) : (!exir.sym_int<2*s0>) -> !exir.sym_int<2*s0 floordiv 3>
    %md = exir.sym_mod(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_int<s0 mod 4>
    %sum = exir.sym_add(%sz, %nu) : (!exir.sym_int<s0>, !exir.sym_int<4*s0>) -> !exir.sym_int<5*s0>
    %dif = exir.sym_sub(%nu, %sz) : (!exir.sym_int<4*s0>, !exir.sym_int<s0>) -> !exir.sym_int<3*s0>
    %pw = exir.sym_pow(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<s0**2>
    %ng = exir.sym_neg(%sz) : (!exir.sym_int<s0>) -> !exir.sym_int<-s0>
    %mx = exir.sym_max(%sz, 8) : (!exir.sym_int<s0>) -> !exir.sym_int<max(8, s0)>
    %mn = exir.sym_min(%sz, 8) : (!exir.sym_int<s0>) -> !exir.sym_int<min(8, s0)>
    %td = exir.sym_truediv(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_float
    %fs = exir.sym_float(%sz) : (!exir.sym_int<s0>) -> !exir.sym_float
    %is = exir.sym_int(%td) : (!exir.sym_float) -> !exir.sym_int
    %eq = exir.sym_eq(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
    %ne = exir.sym_ne(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
    %lt = exir.sym_lt(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
    %le = exir.sym_le(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
    %gt = exir.sym_gt(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
    %ge = exir.sym_ge(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_bool
    %and = exir.sym_and(%ge, %lt) : (!exir.sym_bool, !exir.sym_bool) -> !exir.sym_bool
    %or = exir.sym_or(%eq, %ne) : (!exir.sym_bool, !exir.sym_bool) -> !exir.sym_bool
    %not = exir.sym_not(%gt) : (!exir.sym_bool) -> !exir.sym_bool
    exir.assert_scalar %ge, "Runtime assertion failed for expression s0 >= 2" : !exir.sym_bool
    %g = exir.get_attr @body_0 : !exir.graph_module
    %hop = exir.call_function "higher_order.map_impl"(%g, [%x], []) : (!exir.graph_module, !exir.tensor<[s0, 4], float32>) -> !exir.list<!exir.tensor<[s0, 4], float32>>
    %c = exir.cond %pred(%x, %p_w) : !exir.tensor<[], bool>, (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32> {
    ^bb0(%a: !exir.tensor<[s0, 4], float32>, %w: !exir.tensor<[4], float32>):
      %m = exir.call_function "aten.mul.Tensor"(%a, %w) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32>
      exir.output %m : !exir.tensor<[s0, 4], float32>
    } else {
    ^bb0(%a: !exir.tensor<[s0, 4], float32>, %w: !exir.tensor<[4], float32>):
      exir.output %a : !exir.tensor<[s0, 4], float32>
    }
    %i0 = exir.call_function "aten.zeros.default"([], dtype = torch.int64, layout = torch.strided, device = device("cpu"), pin_memory = false) : () -> !exir.tensor<[], int64>
    %loop = exir.while_loop(%i0) additional (%p_w) : (!exir.tensor<[], int64>, !exir.tensor<[4], float32>) -> !exir.tensor<[], int64> cond {
    ^bb0(%i: !exir.tensor<[], int64>, %w: !exir.tensor<[4], float32>):
      %lt3 = exir.call_function "aten.lt.Scalar"(%i, 3) : (!exir.tensor<[], int64>) -> !exir.tensor<[], bool>
      exir.output %lt3 : !exir.tensor<[], bool>
    } body {
    ^bb0(%i: !exir.tensor<[], int64>, %w: !exir.tensor<[4], float32>):
      %inc = exir.call_function "aten.add.Tensor"(%i, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
      exir.output %inc : !exir.tensor<[], int64>
    }
    %mapped = exir.map(%x) with (%p_w) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32> {
    ^bb0(%row: !exir.tensor<[4], float32>, %w: !exir.tensor<[4], float32>):
      %r = exir.call_function "aten.mul.Tensor"(%row, %w) : (!exir.tensor<[4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
      exir.output %r : !exir.tensor<[4], float32>
    }
    %opaque = exir.call_function "aten.clamp.default"(%x, -1.5, 1.0e-05) {nn_module_stack = [["L__self___act", "self.act", "torch.nn.modules.activation.Hardtanh"]], source_fn_stack = [["act", "torch.nn.modules.activation.Hardtanh"]], torch_fn = ["hardtanh_1", "builtin_function_or_method.hardtanh"]} : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
    %consts = exir.call_function "aten.full.default"([2, 3], inf, dtype = torch.float32) : () -> !exir.tensor<[2, 3], float32>
    %fmt = exir.call_function "aten.empty.memory_format"([1, 2, 2, 3], dtype = torch.float32, memory_format = torch.channels_last) : () -> !exir.tensor<[1, 2, 2, 3], float32>
    %nan = exir.call_function "aten.full.default"([1], nan, dtype = torch.float64, layout = torch.sparse_coo) : () -> !exir.tensor<[1], float64>
    %none = exir.call_function "aten.native_dropout.default"(%x, 0.5, none) : (!exir.tensor<[s0, 4], float32>) -> !exir.tuple<!exir.tensor<[s0, 4], float32>, !exir.tensor<[s0, 4], bool>>
    %str = exir.call_function "aten.gelu.default"(%x, approximate = "tanh") : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
    exir.call_function "aten._assert_async.msg"(%pred, "not \"ok\"") : (!exir.tensor<[], bool>) -> ()
    exir.output %add, %getitem, %mul : !exir.tensor<[], int64>, !exir.tensor<[s0], float32>, !exir.sym_int<2*s0>
  }
  exir.graph @body_0(%row: !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32> {
    exir.output %row : !exir.tensor<[4], float32>
  }
}

// CHECK:      exir.program inputs [<parameter "p_w" -> "w">, <buffer "b_n" -> "n">, <buffer "b_tmp" -> "tmp" non_persistent>, <constant_tensor "c_k" -> "k">, <user_input "x">, <user_input "pred">] outputs [<buffer_mutation "add" -> "n">, <user_output "getitem">, <user_output "mul">] ranges [<s0 in [2, 1024]>, <u0 in [0, inf]>] in_spec "in-spec" out_spec "out-spec" {
// CHECK-NEXT:   exir.state @w : !exir.tensor<[4], float32>
// CHECK-NEXT:   exir.state @n : !exir.tensor<[], int64> = dense<0> : tensor<i64>
// CHECK-NEXT:   exir.state @tmp : !exir.tensor<[4], float32>
// CHECK-NEXT:   exir.state @k : !exir.tensor<[4], float32>
// CHECK-NEXT:   exir.graph @forward(
// CHECK-NEXT:     %add = exir.call_function "aten.add.Tensor"(%b_n, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
// CHECK-NEXT:     %max = exir.call_function "aten.max.dim"(%x, 1, keepdim = false) : (!exir.tensor<[s0, 4], float32>) -> !exir.tuple<!exir.tensor<[s0], float32>, !exir.tensor<[s0], int64>>
// CHECK-NEXT:     %getitem = exir.getitem %max[0] : !exir.tuple<!exir.tensor<[s0], float32>, !exir.tensor<[s0], int64>> -> !exir.tensor<[s0], float32>
// CHECK-NEXT:     %list = exir.call_function "aten.split.Tensor"(%x, 2) : (!exir.tensor<[s0, 4], float32>) -> !exir.list<!exir.tensor<[2, 4], float32>>
// CHECK-NEXT:     %piece = exir.getitem %list[1] : !exir.list<!exir.tensor<[2, 4], float32>> -> !exir.tensor<[2, 4], float32>
// CHECK-NEXT:     %sz = exir.sym_size %x, 0 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<s0>
// CHECK-NEXT:     %st = exir.sym_stride %x, 0 : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<4>
// CHECK-NEXT:     %nu = exir.sym_numel %x : !exir.tensor<[s0, 4], float32> -> !exir.sym_int<4*s0>
// CHECK-NEXT:     %mul = exir.sym_mul(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<2*s0>
// CHECK-NEXT:     %fl = exir.sym_floordiv(%mul, 3) : (!exir.sym_int<2*s0>) -> !exir.sym_int<2*s0 floordiv 3>
// CHECK-NEXT:     %md = exir.sym_mod(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_int<s0 mod 4>
// CHECK-NEXT:     %sum = exir.sym_add(%sz, %nu) : (!exir.sym_int<s0>, !exir.sym_int<4*s0>) -> !exir.sym_int<5*s0>
// CHECK-NEXT:     %dif = exir.sym_sub(%nu, %sz) : (!exir.sym_int<4*s0>, !exir.sym_int<s0>) -> !exir.sym_int<3*s0>
// CHECK-NEXT:     %pw = exir.sym_pow(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_int<s0**2>
// CHECK-NEXT:     %ng = exir.sym_neg(%sz) : (!exir.sym_int<s0>) -> !exir.sym_int<-s0>
// CHECK-NEXT:     %mx = exir.sym_max(%sz, 8) : (!exir.sym_int<s0>) -> !exir.sym_int<max(8, s0)>
// CHECK-NEXT:     %mn = exir.sym_min(%sz, 8) : (!exir.sym_int<s0>) -> !exir.sym_int<min(8, s0)>
// CHECK-NEXT:     %td = exir.sym_truediv(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_float
// CHECK-NEXT:     %fs = exir.sym_float(%sz) : (!exir.sym_int<s0>) -> !exir.sym_float
// CHECK-NEXT:     %is = exir.sym_int(%td) : (!exir.sym_float) -> !exir.sym_int
// CHECK-NEXT:     %eq = exir.sym_eq(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
// CHECK-NEXT:     %ne = exir.sym_ne(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
// CHECK-NEXT:     %lt = exir.sym_lt(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
// CHECK-NEXT:     %le = exir.sym_le(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
// CHECK-NEXT:     %gt = exir.sym_gt(%sz, 4) : (!exir.sym_int<s0>) -> !exir.sym_bool
// CHECK-NEXT:     %ge = exir.sym_ge(%sz, 2) : (!exir.sym_int<s0>) -> !exir.sym_bool
// CHECK-NEXT:     %and = exir.sym_and(%ge, %lt) : (!exir.sym_bool, !exir.sym_bool) -> !exir.sym_bool
// CHECK-NEXT:     %or = exir.sym_or(%eq, %ne) : (!exir.sym_bool, !exir.sym_bool) -> !exir.sym_bool
// CHECK-NEXT:     %not = exir.sym_not(%gt) : (!exir.sym_bool) -> !exir.sym_bool
// CHECK-NEXT:     exir.assert_scalar %ge, "Runtime assertion failed for expression s0 >= 2" : !exir.sym_bool
// CHECK-NEXT:     %g = exir.get_attr @body_0 : !exir.graph_module
// CHECK-NEXT:     %hop = exir.call_function "higher_order.map_impl"(%g, [%x], []) : (!exir.graph_module, !exir.tensor<[s0, 4], float32>) -> !exir.list<!exir.tensor<[s0, 4], float32>>
// CHECK-NEXT:     %c = exir.cond %pred(%x, %p_w) : !exir.tensor<[], bool>, (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32> {
// CHECK-NEXT:     ^{{.*}}(%a: !exir.tensor<[s0, 4], float32>, %w: !exir.tensor<[4], float32>):
// CHECK-NEXT:       %m = exir.call_function "aten.mul.Tensor"(%a, %w)
// CHECK-NEXT:       exir.output %m : !exir.tensor<[s0, 4], float32>
// CHECK-NEXT:     } else {
// CHECK-NEXT:     ^{{.*}}(%[[A:.*]]: !exir.tensor<[s0, 4], float32>, %{{.*}}: !exir.tensor<[4], float32>):
// CHECK-NEXT:       exir.output %[[A]] : !exir.tensor<[s0, 4], float32>
// CHECK-NEXT:     }
// CHECK-NEXT:     %i0 = exir.call_function "aten.zeros.default"([], dtype = torch.int64, layout = torch.strided, device = device("cpu"), pin_memory = false) : () -> !exir.tensor<[], int64>
// CHECK-NEXT:     %loop = exir.while_loop(%i0) additional (%p_w) : (!exir.tensor<[], int64>, !exir.tensor<[4], float32>) -> !exir.tensor<[], int64> cond {
// CHECK:          } body {
// CHECK:          %mapped = exir.map(%x) with (%p_w) : (!exir.tensor<[s0, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[s0, 4], float32> {
// CHECK:          %opaque = exir.call_function "aten.clamp.default"(%x, -1.5, 1.0e-05) {nn_module_stack = [["L__self___act", "self.act", "torch.nn.modules.activation.Hardtanh"]], source_fn_stack = [["act", "torch.nn.modules.activation.Hardtanh"]], torch_fn = ["hardtanh_1", "builtin_function_or_method.hardtanh"]} : (!exir.tensor<[s0, 4], float32>) -> !exir.tensor<[s0, 4], float32>
// CHECK-NEXT:     %consts = exir.call_function "aten.full.default"([2, 3], inf, dtype = torch.float32) : () -> !exir.tensor<[2, 3], float32>
// CHECK-NEXT:     %fmt = exir.call_function "aten.empty.memory_format"([1, 2, 2, 3], dtype = torch.float32, memory_format = torch.channels_last) : () -> !exir.tensor<[1, 2, 2, 3], float32>
// CHECK-NEXT:     %nan = exir.call_function "aten.full.default"([1], nan, dtype = torch.float64, layout = torch.sparse_coo) : () -> !exir.tensor<[1], float64>
// CHECK-NEXT:     %none = exir.call_function "aten.native_dropout.default"(%x, 0.5, none)
// CHECK-NEXT:     %str = exir.call_function "aten.gelu.default"(%x, approximate = "tanh")
// CHECK-NEXT:     exir.call_function "aten._assert_async.msg"(%pred, "not \22ok\22") : (!exir.tensor<[], bool>) -> ()
// CHECK-NEXT:     exir.output %add, %getitem, %mul : !exir.tensor<[], int64>, !exir.tensor<[s0], float32>, !exir.sym_int<2*s0>
// CHECK-NEXT:   }
// CHECK-NEXT:   exir.graph @body_0(%row: !exir.tensor<[4], float32>) -> !exir.tensor<[4], float32> {

// The generic form spells FX arguments as attribute trees with operand references.
// GENERIC: "exir.sym_mul"(%{{.*}}) <{args = [#exir.ref<0>, 2 : i64]}>
// GENERIC: "exir.call_function"() <{target = "aten.zeros.default", args = [[]], kwargs = {dtype = #exir.dtype<int64>, layout = #exir.layout_value<strided>, device = #exir.device_value<"cpu">, pin_memory = false}}>
// GENERIC: "exir.while_loop"(%{{.*}}, %{{.*}}) <{operandSegmentSizes = array<i32: 1, 1>}>
// GENERIC: "exir.call_function"(%{{.*}}) <{target = "aten.clamp.default", args = [#exir.ref<0>, -1.500000e+00 : f64, 1.000000e-05 : f64], kwargs = {}}>
