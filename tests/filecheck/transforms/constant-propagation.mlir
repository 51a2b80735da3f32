// constant-propagation runs ops on constants with the interpreter's kernels.
// RUN: exir-opt %s -p constant-propagation --split-input-file | filecheck %s
// RUN: exir-opt %s -p 'constant-propagation{max-elements=2}' --split-input-file | filecheck %s --check-prefix=SMALL

// Export IR: `c * 2 + 1` on a constant tensor is lifted as a new constant;
// the op reading the user input stays.
exir.program inputs [<constant_tensor "c_k" -> "k">, <user_input "x">] outputs [<user_output "r">] {
  exir.state @k : !exir.tensor<[3], float32> = #exir.blob<"0x0000803F0000004000004040">
  exir.graph @forward(%c_k: !exir.tensor<[3], float32>, %x: !exir.tensor<[3], float32>) -> (!exir.tensor<[3], float32>) {
    %m = aten.mul.Tensor(%c_k, 2.0) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    %a = aten.add.Tensor(%m, 1) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    %r = aten.add.Tensor(%x, %a) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    exir.output %r : !exir.tensor<[3], float32>
  }
}

// The intermediate fold (c * 2), read by nobody now, is not kept.
// CHECK:      exir.program inputs [<constant_tensor "c_k" -> "k">, <constant_tensor "c_folded_constant1" -> "_folded_constant1">, <user_input "x">]
// CHECK-NEXT:   exir.state @k
// CHECK-NEXT:   exir.state @_folded_constant1 : !exir.tensor<[3], float32> = dense_resource<_folded_constant1>
// CHECK-NEXT:   exir.graph @forward(%c_k: {{.*}}, %c_folded_constant1: {{.*}}, %x: {{.*}})
// CHECK-NEXT:     %r = aten.add.Tensor(%x, %c_folded_constant1)
// CHECK:      _folded_constant1: "0x10000000000040400000A0400000E040"

// Too large for max-elements=2: nothing folds.
// SMALL:        exir.graph @forward(%c_k: {{.*}}, %x: {{.*}})
// SMALL-NEXT:     %m = aten.mul.Tensor(%c_k, 2.0)

// -----

// TorchScript: numbers and tensors fold; random and in-place ops do not, nor
// reads of a tensor constant that some node writes in place.
builtin.module {
  ts.method @f attributes {schema = "f(Tensor x) -> (Tensor, int, Tensor, Tensor)"} {
  ^bb0(%x: !ts.tensor):
    %two = prim.Constant() {value = 2 : i64} : () -> !ts.int
    %three = prim.Constant() {value = 3 : i64} : () -> !ts.int
    %six = ts.node "aten::mul"(%two, %three) : (!ts.int, !ts.int) -> !ts.int
    %seven = ts.node "aten::add"(%six, %two) : (!ts.int, !ts.int) -> !ts.int
    %none = prim.Constant() : () -> !ts.none
    %shape = prim.ListConstruct(%two, %three) : (!ts.int, !ts.int) -> !ts.list<!ts.int>
    %t = prim.Constant() {value = #ts.tensor_value<Float, [2], #exir.blob<"0x0000803F00000040">>} : () -> !ts.tensor<Float(2, strides=[1], requires_grad=0, device=cpu)>
    %e = ts.node "aten::exp"(%t) : (!ts.tensor<Float(2, strides=[1], requires_grad=0, device=cpu)>) -> !ts.tensor
    %r = ts.node "aten::rand"(%shape, %none, %none, %none, %none) : (!ts.list<!ts.int>, !ts.none, !ts.none, !ts.none, !ts.none) -> !ts.tensor
    %w = ts.node "aten::add_"(%t, %two, %two) : (!ts.tensor<Float(2, strides=[1], requires_grad=0, device=cpu)>, !ts.int, !ts.int) -> !ts.tensor
    prim.Return(%e, %seven, %r, %w) : (!ts.tensor, !ts.int, !ts.tensor, !ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @f
// CHECK:         %{{.*}} = prim.Constant() {value = 6 : i64} : () -> !ts.int
// CHECK:         %[[SEVEN:.*]] = prim.Constant() {value = 8 : i64} : () -> !ts.int
// CHECK:         %e = ts.node "aten::exp"(%t)
// CHECK-NEXT:    %r = ts.node "aten::rand"
// CHECK-NEXT:    %w = ts.node "aten::add_"
// CHECK-NEXT:    prim.Return(%e, %[[SEVEN]], %r, %w)

// -----

builtin.module {
  ts.method @g attributes {schema = "g() -> Tensor"} {
    %t = prim.Constant() {value = #ts.tensor_value<Float, [2], #exir.blob<"0x0000803F00000040">>} : () -> !ts.tensor<Float(2, strides=[1], requires_grad=0, device=cpu)>
    %e = ts.node "aten::exp"(%t) : (!ts.tensor<Float(2, strides=[1], requires_grad=0, device=cpu)>) -> !ts.tensor
    %n = ts.node "aten::neg"(%e) : (!ts.tensor) -> !ts.tensor
    prim.Return(%n) : (!ts.tensor) -> ()
  }
}

// CHECK-LABEL: ts.method @g
// CHECK:         %n = prim.Constant() {value = #ts.tensor_value<Float, [2], dense_resource<[[N:tensor[_0-9]*]]>>} : () -> !ts.tensor
// CHECK-NEXT:    prim.Return(%n)
// CHECK:         [[N]]: "0x1000000055F82DC02573ECC0"
