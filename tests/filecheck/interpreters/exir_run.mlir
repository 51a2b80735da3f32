// exir-run on a program whose weights travel in the IR (#exir.blob), with no
// user inputs: relu(w) + 2 * b, a bf16 constant, and a while_loop on a count.
// RUN: exir-run %s | filecheck %s
// RUN: exir-run %s -p cse,dce | filecheck %s

exir.program inputs [<parameter "p_w" -> "w">, <constant_tensor "c_h" -> "h">] outputs [<user_output "r">, <user_output "hs">, <user_output "n">] {
  exir.state @w : !exir.tensor<[2, 3], float32> = #exir.blob<"0x0000803F000000C000004040000080C00000A0400000C0C0">
  exir.state @h : !exir.tensor<[3], bfloat16> = #exir.blob<"0xC03F104040C0">
  exir.graph @forward(%p_w: !exir.tensor<[2, 3], float32>, %c_h: !exir.tensor<[3], bfloat16>) -> (!exir.tensor<[2, 3], float32>, !exir.tensor<[], bfloat16>, !exir.tensor<[], int64>) {
    %relu = aten.relu.default(%p_w) : (!exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    %r = aten.add.Tensor(%relu, %p_w, alpha = 2) : (!exir.tensor<[2, 3], float32>, !exir.tensor<[2, 3], float32>) -> !exir.tensor<[2, 3], float32>
    %hs = aten.sum.default(%c_h) : (!exir.tensor<[3], bfloat16>) -> !exir.tensor<[], bfloat16>
    %i0 = aten.zeros.default([], dtype = torch.int64) : () -> !exir.tensor<[], int64>
    %n = exir.while_loop(%i0) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64> cond {
    ^bb0(%i: !exir.tensor<[], int64>):
      %lt = aten.lt.Scalar(%i, 10) : (!exir.tensor<[], int64>) -> !exir.tensor<[], bool>
      exir.output %lt : !exir.tensor<[], bool>
    } body {
    ^bb0(%i: !exir.tensor<[], int64>):
      %inc = aten.add.Tensor(%i, 3) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
      exir.output %inc : !exir.tensor<[], int64>
    }
    exir.output %r, %hs, %n : !exir.tensor<[2, 3], float32>, !exir.tensor<[], bfloat16>, !exir.tensor<[], int64>
  }
}

// CHECK:      out0: float32[2, 3]
// CHECK-NEXT:   {{\[\[}}  3.  -4.   9.]
// CHECK-NEXT:    [ -8.  15. -12.]]
// CHECK-NEXT: out1: float32[]
// CHECK-NEXT:   0.75
// CHECK-NEXT: out2: int64[]
// CHECK-NEXT:   12
