// flop-count annotates each counted op and the program with `exir.flops` and
// prints a report. mode=torch (FlopCounterMode's convention) counts only the
// matrix products and convolutions; mode=all adds bias adds and pointwise ops.
// Symbolic sizes give symbolic counts.
// RUN: exir-opt %s -p 'flop-count{report=none}' | filecheck %s
// RUN: exir-opt %s -p flop-count 2>&1 >/dev/null | filecheck %s --check-prefix=REPORT
// RUN: exir-opt %s -p 'flop-count{mode=all report=none}' | filecheck %s --check-prefix=ALL
// RUN: not exir-opt %s -p 'flop-count{mode=some}' 2>&1 | filecheck %s --check-prefix=BAD

exir.program inputs [<parameter "p_w" -> "w">, <parameter "p_b" -> "b">, <parameter "p_k" -> "k">, <user_input "x">, <user_input "img">] outputs [<user_output "relu">, <user_output "conv">] ranges [<s0 in [2, 64]>] {
  exir.state @w : !exir.tensor<[8, 16], float32>
  exir.state @b : !exir.tensor<[8], float32>
  exir.state @k : !exir.tensor<[4, 3, 3, 3], float32>
  exir.graph @forward(%p_w: !exir.tensor<[8, 16], float32>, %p_b: !exir.tensor<[8], float32>, %p_k: !exir.tensor<[4, 3, 3, 3], float32>, %x: !exir.tensor<[s0, 16], float32>, %img: !exir.tensor<[2, 3, 8, 8], float32>) -> (!exir.tensor<[s0, 8], float32>, !exir.tensor<[2, 4, 6, 6], float32>) {
    %linear = aten.linear.default(%x, %p_w, %p_b) : (!exir.tensor<[s0, 16], float32>, !exir.tensor<[8, 16], float32>, !exir.tensor<[8], float32>) -> !exir.tensor<[s0, 8], float32>
    %relu = aten.relu.default(%linear) : (!exir.tensor<[s0, 8], float32>) -> !exir.tensor<[s0, 8], float32>
    %conv = aten.conv2d.default(%img, %p_k) : (!exir.tensor<[2, 3, 8, 8], float32>, !exir.tensor<[4, 3, 3, 3], float32>) -> !exir.tensor<[2, 4, 6, 6], float32>
    exir.output %relu, %conv : !exir.tensor<[s0, 8], float32>, !exir.tensor<[2, 4, 6, 6], float32>
  }
}
// 2*s0*16*8 = 256*s0; conv: 2 * 2 * 36 * 9 * 4 * 3 = 15552
// CHECK:      exir.program {{.*}} attributes {exir.flops = #exir.sym<256*s0 + 15552>}
// CHECK:      %linear = aten.linear.default(%x, %p_w, %p_b) {exir.flops = #exir.sym<256*s0>}
// CHECK-NEXT: %relu = aten.relu.default(%linear) :
// CHECK-NEXT: %conv = aten.conv2d.default(%img, %p_k) {exir.flops = 15552 : i64}

// REPORT:      flop-count (mode=torch)
// REPORT-NEXT:   aten.conv2d.default  15552
// REPORT-NEXT:   aten.linear.default  256*s0
// REPORT-NEXT:   total                256*s0 + 15552

// ALL:      attributes {exir.flops = #exir.sym<272*s0 + 15552>}
// ALL:      %linear = aten.linear.default(%x, %p_w, %p_b) {exir.flops = #exir.sym<264*s0>}
// ALL-NEXT: %relu = aten.relu.default(%linear) {exir.flops = #exir.sym<8*s0>}

// BAD: flop-count: mode must be 'torch' or 'all', got 'some'
