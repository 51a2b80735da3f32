// torchscript-to-exir on a Module: parameters and buffers of the whole tree
// are lifted to placeholders backed by exir.state (torch's state_dict order,
// named as torch.export names them), submodule calls are inlined, attributes
// fold into the arguments, and in-place updates of buffers (through a view,
// too) become buffer_mutation outputs.
// RUN: exir-opt %s -p torchscript-to-exir,verify-export-ir | filecheck %s

// CHECK:      exir.program inputs [<parameter "p_w" -> "w">, <parameter "p_lin_weight" -> "lin.weight">, <buffer "b_steps" -> "steps">, <buffer "b_lin_calls" -> "lin.calls">, <user_input "x">]
// CHECK-SAME: outputs [<buffer_mutation "add" -> "steps">, <buffer_mutation "select_scatter" -> "lin.calls">, <user_output "out">]
// CHECK-NEXT:   exir.state @w : !exir.tensor<[2], float32> = dense_resource<w>
// CHECK-NEXT:   exir.state @lin.weight : !exir.tensor<[2, 2], float32> = dense_resource<lin.weight>
// CHECK-NEXT:   exir.state @steps : !exir.tensor<[], int64> = dense_resource<steps>
// CHECK-NEXT:   exir.state @lin.calls : !exir.tensor<[3], float32> = dense_resource<lin.calls>
// CHECK-NEXT:   exir.graph @forward(%p_w: !exir.tensor<[2], float32>, %p_lin_weight: !exir.tensor<[2, 2], float32>, %b_steps: !exir.tensor<[], int64>, %b_lin_calls: !exir.tensor<[3], float32>, %x: !exir.tensor<[4, 2], float32>)
// CHECK-NEXT:     %y = aten.linear.default(%x, %p_lin_weight) : (!exir.tensor<[4, 2], float32>, !exir.tensor<[2, 2], float32>) -> !exir.tensor<[4, 2], float32>
// CHECK-NEXT:     %c = aten.select.int(%b_lin_calls, 0, 1) : (!exir.tensor<[3], float32>) -> !exir.tensor<[], float32>
// CHECK-NEXT:     %add = aten.add.Scalar(%c, 1.0) : (!exir.tensor<[], float32>) -> !exir.tensor<[], float32>
// CHECK-NEXT:     %select_scatter = aten.select_scatter.default(%b_lin_calls, %add, 0, 1) : (!exir.tensor<[3], float32>, !exir.tensor<[], float32>) -> !exir.tensor<[3], float32>
// CHECK-NEXT:     %scaled = aten.mul.Scalar(%y, 0.5) : (!exir.tensor<[4, 2], float32>) -> !exir.tensor<[4, 2], float32>
// CHECK-NEXT:     %out = aten.mul.Tensor(%scaled, %p_w) : (!exir.tensor<[4, 2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[4, 2], float32>
// CHECK-NEXT:     %add_1 = aten.add.Scalar(%b_steps, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
// CHECK-NEXT:     exir.output %add_1, %select_scatter, %out : !exir.tensor<[], int64>, !exir.tensor<[3], float32>, !exir.tensor<[4, 2], float32>
// CHECK-NOT:  ts.
// CHECK-NOT:  prim.
// CHECK:      lin.calls: "0x10000000000000000000000000000000"
// CHECK:      lin.weight: "0x100000000000803F000000000000000000008040"
// CHECK:      steps: "0x100000000000000000000000"
// CHECK:      w: "0x100000000000803F00000040"
ts.module @m class "__torch__.M" {
  ts.slot parameter @w : !ts.tensor<Float(2, strides=[1], requires_grad=1, device=cpu)> = #ts.tensor_value<Float, [2], #exir.blob<"0x0000803F00000040">>
  ts.slot buffer @steps : !ts.tensor<Long(requires_grad=0, device=cpu)> = #ts.tensor_value<Long, [], #exir.blob<"0x0000000000000000">>
  ts.slot attribute @scale : !ts.float = 0.5 : f64
  ts.module @lin class "__torch__.Lin" {
    ts.slot parameter @weight : !ts.tensor<Float(2, 2, strides=[2, 1], requires_grad=1, device=cpu)> = #ts.tensor_value<Float, [2, 2], #exir.blob<"0x0000803F000000000000000000008040">>
    ts.slot buffer @calls : !ts.tensor<Float(3, strides=[1], requires_grad=0, device=cpu)> = #ts.tensor_value<Float, [3], #exir.blob<"0x000000000000000000000000">>
    ts.slot attribute @slot : !ts.int = 1 : i64
    ts.method @forward attributes {schema = "forward(__torch__.Lin self, Tensor input) -> Tensor"} {
    ^bb0(%self: !ts.class<"__torch__.Lin">, %input: !ts.tensor):
      %none = prim.Constant() : () -> !ts.none
      %zero = prim.Constant() {value = 0 : i64} : () -> !ts.int
      %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
      %fone = prim.Constant() {value = 1.0 : f64} : () -> !ts.float
      %weight = prim.GetAttr(%self) {name = "weight"} : (!ts.class<"__torch__.Lin">) -> !ts.tensor
      %y = ts.node "aten::linear"(%input, %weight, %none) : (!ts.tensor, !ts.tensor, !ts.none) -> !ts.tensor
      %calls = prim.GetAttr(%self) {name = "calls"} : (!ts.class<"__torch__.Lin">) -> !ts.tensor
      %slot = prim.GetAttr(%self) {name = "slot"} : (!ts.class<"__torch__.Lin">) -> !ts.int
      %c = ts.node "aten::select"(%calls, %zero, %slot) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
      %c2 = ts.node "aten::add_"(%c, %fone, %one) : (!ts.tensor, !ts.float, !ts.int) -> !ts.tensor
      prim.Return(%y) : (!ts.tensor) -> ()
    }
  }
  ts.method @forward attributes {schema = "forward(__torch__.M self, Tensor x) -> Tensor"} {
  ^bb0(%self: !ts.class<"__torch__.M">, %x: !ts.tensor<Float(4, 2, strides=[2, 1], requires_grad=0, device=cpu)>):
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %lin = prim.GetAttr(%self) {name = "lin"} : (!ts.class<"__torch__.M">) -> !ts.class<"__torch__.Lin">
    %y = prim.CallMethod(%lin, %x) {name = "forward"} : (!ts.class<"__torch__.Lin">, !ts.tensor<Float(4, 2, strides=[2, 1], requires_grad=0, device=cpu)>) -> !ts.tensor
    %scale = prim.GetAttr(%self) {name = "scale"} : (!ts.class<"__torch__.M">) -> !ts.float
    %scaled = ts.node "aten::mul"(%y, %scale) : (!ts.tensor, !ts.float) -> !ts.tensor
    %w = prim.GetAttr(%self) {name = "w"} : (!ts.class<"__torch__.M">) -> !ts.tensor
    %out = ts.node "aten::mul"(%scaled, %w) : (!ts.tensor, !ts.tensor) -> !ts.tensor
    %steps = prim.GetAttr(%self) {name = "steps"} : (!ts.class<"__torch__.M">) -> !ts.tensor
    %s2 = ts.node "aten::add_"(%steps, %one, %one) : (!ts.tensor, !ts.int, !ts.int) -> !ts.tensor
    prim.Return(%out) : (!ts.tensor) -> ()
  }
}
