// Every op and type of the fx dialect round-trips in custom and generic form,
// inside the exir.program a symbolically traced module imports as.
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC

exir.program inputs [<user_input "x">] outputs [<user_output "relu">, <user_output "getitem">, <user_output "size">] {
  exir.state @fc.weight : !exir.tensor<[4, 8], float32>
  exir.state @fc.bias : !exir.tensor<[4], float32>
  exir.state @"0.scale" : !exir.tensor<[4], float32>
  exir.graph @forward(%x: !exir.tensor<[2, 8], float32>) -> (!exir.tensor<[2, 4], float32>, !exir.tensor<[2, 2], float32>, !exir.int) {
    %fc = fx.call_module "fc"(%x) module torch.nn.modules.linear.Linear(training = false, in_features = 8, out_features = 4) state ["weight", "bias"] : (!exir.tensor<[2, 8], float32>) -> !exir.tensor<[2, 4], float32>
    %act = fx.call_module "act"(%fc) module torch.nn.modules.activation.LeakyReLU(training = false, negative_slope = 0.2, inplace = false) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float32>
    %pool = fx.call_module "pool"(%act) module "my_models.<locals>.Pool"(sizes = [none, 2], name = "p", dtype = torch.float16) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float32>
    %attn = fx.call_module "attn"(%x, %x, need_weights = false) module torch.nn.modules.activation.MultiheadAttention : (!exir.tensor<[2, 8], float32>, !exir.tensor<[2, 8], float32>) -> !exir.tensor<[2, 8], float32>
    %scale = fx.get_attr @"0.scale" : !exir.tensor<[4], float32>
    %w = fx.get_attr @fc.weight : !exir.tensor<[4, 8], float32>
    %size = fx.call_method "size"(%fc, 0) : (!exir.tensor<[2, 4], float32>) -> !exir.int
    %view = fx.call_method "view"(%fc, %size, -1) : (!exir.tensor<[2, 4], float32>, !exir.int) -> !exir.tensor<[2, 4], float32>
    %to = fx.call_method "to"(%view, torch.float16, copy = true) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float16>
    %all = fx.slice(none, none, none)
    %part = fx.slice(1, %size, 2) : !exir.int
    %dots = fx.ellipsis
    %getitem = exir.call_function "operator.getitem"(%view, [%dots, %all, %part]) : (!exir.tensor<[2, 4], float32>, !fx.ellipsis, !fx.slice, !fx.slice) -> !exir.tensor<[2, 2], float32>
    %mul = exir.call_function "operator.mul"(%act, %scale) : (!exir.tensor<[2, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[2, 4], float32>
    %relu = exir.call_function "torch.nn.functional.relu"(%mul, inplace = false) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float32>
    %shape = exir.call_function "builtins.getattr"(%x, "shape") : (!exir.tensor<[2, 8], float32>) -> !exir.tuple<!exir.int, !exir.int>
    exir.output %relu, %getitem, %size : !exir.tensor<[2, 4], float32>, !exir.tensor<[2, 2], float32>, !exir.int
  }
}

// CHECK:      exir.program inputs [<user_input "x">] outputs [<user_output "relu">, <user_output "getitem">, <user_output "size">] {
// CHECK-NEXT:   exir.state @fc.weight : !exir.tensor<[4, 8], float32>
// CHECK-NEXT:   exir.state @fc.bias : !exir.tensor<[4], float32>
// CHECK-NEXT:   exir.state @"0.scale" : !exir.tensor<[4], float32>
// CHECK-NEXT:   exir.graph @forward(%x: !exir.tensor<[2, 8], float32>) -> (!exir.tensor<[2, 4], float32>, !exir.tensor<[2, 2], float32>, !exir.int) {
// CHECK-NEXT:     %fc = fx.call_module "fc"(%x) module torch.nn.modules.linear.Linear(training = false, in_features = 8, out_features = 4) state ["weight", "bias"] : (!exir.tensor<[2, 8], float32>) -> !exir.tensor<[2, 4], float32>
// CHECK-NEXT:     %act = fx.call_module "act"(%fc) module torch.nn.modules.activation.LeakyReLU(training = false, negative_slope = 0.2, inplace = false) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float32>
// CHECK-NEXT:     %pool = fx.call_module "pool"(%act) module "my_models.<locals>.Pool"(sizes = [none, 2], name = "p", dtype = torch.float16) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float32>
// CHECK-NEXT:     %attn = fx.call_module "attn"(%x, %x, need_weights = false) module torch.nn.modules.activation.MultiheadAttention : (!exir.tensor<[2, 8], float32>, !exir.tensor<[2, 8], float32>) -> !exir.tensor<[2, 8], float32>
// CHECK-NEXT:     %scale = fx.get_attr @"0.scale" : !exir.tensor<[4], float32>
// CHECK-NEXT:     %w = fx.get_attr @fc.weight : !exir.tensor<[4, 8], float32>
// CHECK-NEXT:     %size = fx.call_method "size"(%fc, 0) : (!exir.tensor<[2, 4], float32>) -> !exir.int
// CHECK-NEXT:     %view = fx.call_method "view"(%fc, %size, -1) : (!exir.tensor<[2, 4], float32>, !exir.int) -> !exir.tensor<[2, 4], float32>
// CHECK-NEXT:     %to = fx.call_method "to"(%view, torch.float16, copy = true) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float16>
// CHECK-NEXT:     %all = fx.slice(none, none, none)
// CHECK-NEXT:     %part = fx.slice(1, %size, 2) : !exir.int
// CHECK-NEXT:     %dots = fx.ellipsis
// CHECK-NEXT:     %getitem = exir.call_function "operator.getitem"(%view, [%dots, %all, %part]) : (!exir.tensor<[2, 4], float32>, !fx.ellipsis, !fx.slice, !fx.slice) -> !exir.tensor<[2, 2], float32>
// CHECK-NEXT:     %mul = exir.call_function "operator.mul"(%act, %scale) : (!exir.tensor<[2, 4], float32>, !exir.tensor<[4], float32>) -> !exir.tensor<[2, 4], float32>
// CHECK-NEXT:     %relu = exir.call_function "torch.nn.functional.relu"(%mul, inplace = false) : (!exir.tensor<[2, 4], float32>) -> !exir.tensor<[2, 4], float32>
// CHECK-NEXT:     %shape = exir.call_function "builtins.getattr"(%x, "shape") : (!exir.tensor<[2, 8], float32>) -> !exir.tuple<!exir.int, !exir.int>
// CHECK-NEXT:     exir.output %relu, %getitem, %size : !exir.tensor<[2, 4], float32>, !exir.tensor<[2, 2], float32>, !exir.int
// CHECK-NEXT:   }
// CHECK-NEXT: }

// GENERIC:      "fx.call_module"(%{{.*}}) <{target = "fc", module = "torch.nn.modules.linear.Linear", config = {training = false, in_features = 8 : i64, out_features = 4 : i64}, state = ["weight", "bias"], args = [#exir.ref<0>], kwargs = {}}>
// GENERIC:      "fx.call_module"(%{{.*}}, %{{.*}}) <{target = "attn", module = "torch.nn.modules.activation.MultiheadAttention", config = {}, state = [], args = [#exir.ref<0>, #exir.ref<1>], kwargs = {need_weights = false}}>
// GENERIC:      "fx.get_attr"() <{target = @"0.scale"}> : () -> !exir.tensor<[4], float32>
// GENERIC:      "fx.call_method"(%{{.*}}, %{{.*}}) <{target = "view", args = [#exir.ref<0>, #exir.ref<1>, -1 : i64], kwargs = {}}>
// GENERIC:      "fx.slice"() <{args = [#exir.none_value, #exir.none_value, #exir.none_value]}> : () -> !fx.slice
// GENERIC:      "fx.slice"(%{{.*}}) <{args = [1 : i64, #exir.ref<0>, 2 : i64]}> : (!exir.int) -> !fx.slice
// GENERIC:      "fx.ellipsis"() : () -> !fx.ellipsis
