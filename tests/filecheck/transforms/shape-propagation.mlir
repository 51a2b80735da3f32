// shape-propagation re-types user input %x to [s0, 3, 8, 8] and recomputes every
// result type: conv arithmetic, views with -1, sym_size values, the entry graph's
// type, and the range constraint of s0. max(1, s0) simplifies to s0 under s0 >= 1.
// RUN: exir-opt %s -p 'shape-propagation{input-types="x=f32[s0, 3, 8, 8]" ranges="s0=[1, 64]"}' | filecheck %s
// RUN: xdsl-opt %s -p 'shape-propagation{input-types="x=f32[s0, 3, 8, 8]" ranges="s0=[1, 64]"}' | filecheck %s

exir.program inputs [<parameter "p_w" -> "w">, <user_input "x">, <user_input "y">] outputs [<user_output "flat">, <user_output "m">, <user_output "r">] {
  exir.state @w : !exir.tensor<[4, 3, 3, 3], float32>
  exir.graph @forward(%p_w: !exir.tensor<[4, 3, 3, 3], float32>, %x: !exir.tensor<[2, 3, 8, 8], float32>, %y: !exir.tensor<[max(1, s0)], float32>) -> (!exir.tensor<[2, 144], float32>, !exir.tensor<[2, 3, 8, 8], float32>, !exir.tensor<[max(1, s0)], float32>) {
    %conv = aten.conv2d.default(%x, %p_w) : (!exir.tensor<[2, 3, 8, 8], float32>, !exir.tensor<[4, 3, 3, 3], float32>) -> !exir.tensor<[2, 4, 6, 6], float32>
    %n = exir.sym_size %x, 0 : !exir.tensor<[2, 3, 8, 8], float32> -> !exir.sym_int<2>
    %flat = aten.view.default(%conv, [%n, -1]) : (!exir.tensor<[2, 4, 6, 6], float32>, !exir.sym_int<2>) -> !exir.tensor<[2, 144], float32>
    %m = exir.call_function "aten.mul.Tensor"(%x, 2.0) : (!exir.tensor<[2, 3, 8, 8], float32>) -> !exir.tensor<[2, 3, 8, 8], float32>
    %r = aten.relu.default(%y) : (!exir.tensor<[max(1, s0)], float32>) -> !exir.tensor<[max(1, s0)], float32>
    exir.output %flat, %m, %r : !exir.tensor<[2, 144], float32>, !exir.tensor<[2, 3, 8, 8], float32>, !exir.tensor<[max(1, s0)], float32>
  }
}
// CHECK:      ranges [<s0 in [1, 64]>]
// CHECK:      exir.graph @forward(%p_w: !exir.tensor<[4, 3, 3, 3], float32>, %x: !exir.tensor<[s0, 3, 8, 8], float32>, %y: !exir.tensor<[s0], float32>) -> (!exir.tensor<[s0, 144], float32>, !exir.tensor<[s0, 3, 8, 8], float32>, !exir.tensor<[s0], float32>)
// CHECK-NEXT:   %conv = aten.conv2d.default(%x, %p_w) : (!exir.tensor<[s0, 3, 8, 8], float32>, !exir.tensor<[4, 3, 3, 3], float32>) -> !exir.tensor<[s0, 4, 6, 6], float32>
// CHECK-NEXT:   %n = exir.sym_size %x, 0 : !exir.tensor<[s0, 3, 8, 8], float32> -> !exir.sym_int<s0>
// CHECK-NEXT:   %flat = aten.view.default(%conv, [%n, -1]) : (!exir.tensor<[s0, 4, 6, 6], float32>, !exir.sym_int<s0>) -> !exir.tensor<[s0, 144], float32>
// CHECK-NEXT:   %m = exir.call_function "aten.mul.Tensor"(%x, 2.0) : (!exir.tensor<[s0, 3, 8, 8], float32>) -> !exir.tensor<[s0, 3, 8, 8], float32>
// CHECK-NEXT:   %r = aten.relu.default(%y) : (!exir.tensor<[s0], float32>) -> !exir.tensor<[s0], float32>
// CHECK-NEXT:   exir.output %flat, %m, %r : !exir.tensor<[s0, 144], float32>, !exir.tensor<[s0, 3, 8, 8], float32>, !exir.tensor<[s0], float32>
