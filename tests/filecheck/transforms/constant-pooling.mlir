// constant-pooling merges equal constants and hoists them to the graph's start.
// RUN: exir-opt %s -p constant-pooling --split-input-file | filecheck %s

builtin.module {
  ts.method @f attributes {schema = "f(int a, bool c) -> (int, int)"} {
  ^bb0(%a: !ts.int, %c: !ts.bool):
    %one = prim.Constant() {value = 1 : i64} : () -> !ts.int
    %x = ts.node "aten::add"(%a, %one) : (!ts.int, !ts.int) -> !ts.int
    %r = prim.If(%c) ({
      %one2 = prim.Constant() {value = 1 : i64} : () -> !ts.int
      %two = prim.Constant() {value = 2 : i64} : () -> !ts.int
      %y = ts.node "aten::mul"(%x, %one2) : (!ts.int, !ts.int) -> !ts.int
      %z = ts.node "aten::mul"(%y, %two) : (!ts.int, !ts.int) -> !ts.int
      prim.Return(%z) : (!ts.int) -> ()
    }, {
      %one3 = prim.Constant() {value = 1.000000e+00 : f64} : () -> !ts.float
      %w = ts.node "aten::Int"(%one3) : (!ts.float) -> !ts.int
      prim.Return(%w) : (!ts.int) -> ()
    }) : (!ts.bool) -> !ts.int
    prim.Return(%x, %r) : (!ts.int, !ts.int) -> ()
  }
}

// The int 1 is one constant; the float 1.0 is another value.
// CHECK-LABEL: ts.method @f
// CHECK-NEXT:  ^{{.*}}(%a: !ts.int, %c: !ts.bool):
// CHECK-NEXT:    %one = prim.Constant() {value = 1 : i64}
// CHECK-NEXT:    %two = prim.Constant() {value = 2 : i64}
// CHECK-NEXT:    %one3 = prim.Constant() {value = 1.000000e+00 : f64}
// CHECK-NEXT:    %x = ts.node "aten::add"(%a, %one)
// CHECK:         %y = ts.node "aten::mul"(%x, %one)
// CHECK-NOT:     prim.Constant

// -----

exir.program inputs [<constant_tensor "c_a" -> "a">, <constant_tensor "c_b" -> "b">, <user_input "x">] outputs [<user_output "r">] {
  exir.state @a : !exir.tensor<[2], float32> = #exir.blob<"0x0000803F00000040">
  exir.state @b : !exir.tensor<[2], float32> = #exir.blob<"0x0000803F00000040">
  exir.graph @forward(%c_a: !exir.tensor<[2], float32>, %c_b: !exir.tensor<[2], float32>, %x: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>) {
    %m = aten.mul.Tensor(%x, %c_a) : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    %r = aten.add.Tensor(%m, %c_b) : (!exir.tensor<[2], float32>, !exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// CHECK:      exir.program inputs [<constant_tensor "c_a" -> "a">, <user_input "x">]
// CHECK-NEXT:   exir.state @a
// CHECK-NEXT:   exir.graph @forward(%c_a: {{.*}}, %x: {{.*}})
// CHECK-NEXT:     %m = aten.mul.Tensor(%x, %c_a)
// CHECK-NEXT:     %r = aten.add.Tensor(%m, %c_a)
