// --emit python: a standalone numpy module. Weights travel base64-encoded,
// operators call their numpy kernels with the arguments bound to the schema,
// a buffer mutation updates STATE, cond is an if over nested functions.
// RUN: exir-opt %s --emit python | filecheck %s
// RUN: exir-opt %s --emit python -o %t.py
// RUN: python -c "import numpy as np; np.savez('%t.in.npz', arg0=np.array([1.0, -2.0, 3.0], np.float32))"
// RUN: python %t.py --inputs %t.in.npz -o %t.out.npz
// RUN: python -c "import numpy as np; d = np.load('%t.out.npz'); print(sorted(d)); print(d['out0'].dtype, d['out0'])" | filecheck %s --check-prefix=RESULT
// RUN: python %t.py --inputs %t.in.npz | filecheck %s --check-prefix=SUMMARY
// RUN: python -c "import numpy as np; np.savez('%t.bad.npz', arg0=np.zeros(4, np.float32))"
// RUN: not python %t.py --inputs %t.bad.npz 2>&1 | filecheck %s --check-prefix=BAD

exir.program inputs [<parameter "p_w" -> "w">, <buffer "b_count" -> "count">, <user_input "x">] outputs [<buffer_mutation "add" -> "count">, <user_output "getitem">] {
  exir.state @w : !exir.tensor<[3], float32> = #exir.blob<"0x0000803F0000004000004040">
  exir.state @count : !exir.tensor<[], int64> = #exir.blob<"0x0000000000000000">
  exir.graph @forward(%p_w: !exir.tensor<[3], float32>, %b_count: !exir.tensor<[], int64>, %x: !exir.tensor<[3], float32>) -> (!exir.tensor<[], int64>, !exir.tensor<[3], float32>) {
    %add = aten.add.Tensor(%b_count, 1) : (!exir.tensor<[], int64>) -> !exir.tensor<[], int64>
    %mul = aten.mul.Tensor(%x, %p_w) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    %sum = aten.sum.default(%mul) : (!exir.tensor<[3], float32>) -> !exir.tensor<[], float32>
    %gt = aten.gt.Scalar(%sum, 0) : (!exir.tensor<[], float32>) -> !exir.tensor<[], bool>
    %getitem = exir.cond %gt(%mul, %add) : !exir.tensor<[], bool>, (!exir.tensor<[3], float32>, !exir.tensor<[], int64>) -> !exir.tensor<[3], float32> {
    ^bb0(%m: !exir.tensor<[3], float32>, %c: !exir.tensor<[], int64>):
      %relu = aten.relu.default(%m) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      %plus = aten.add.Tensor(%relu, %c) : (!exir.tensor<[3], float32>, !exir.tensor<[], int64>) -> !exir.tensor<[3], float32>
      exir.output %plus : !exir.tensor<[3], float32>
    } else {
    ^bb0(%m: !exir.tensor<[3], float32>, %c: !exir.tensor<[], int64>):
      %neg = aten.neg.default(%m) : (!exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
      exir.output %neg : !exir.tensor<[3], float32>
    }
    exir.output %add, %getitem : !exir.tensor<[], int64>, !exir.tensor<[3], float32>
  }
}

// CHECK:      import numpy as np
// CHECK:      from xdsl_exir.semantics.kernels import KERNELS
// CHECK-NOT:  import torch
// CHECK:      STATE: dict[str, np.ndarray | None] = {
// CHECK-NEXT:     'w': _load('AACAPwAAAEAAAEBA', '<f4', (3,)),
// CHECK-NEXT:     'count': _load('AAAAAAAAAAA=', '<i8', ()),
// CHECK-NEXT: }
// CHECK:      aten = SimpleNamespace(
// CHECK-NEXT:     add=SimpleNamespace(Tensor=KERNELS['aten.add.Tensor']),
// CHECK-NEXT:     gt=SimpleNamespace(Scalar=KERNELS['aten.gt.Scalar']),
// CHECK-NEXT:     mul=SimpleNamespace(Tensor=KERNELS['aten.mul.Tensor']),
// CHECK-NEXT:     neg=SimpleNamespace(default=KERNELS['aten.neg.default']),
// CHECK-NEXT:     relu=SimpleNamespace(default=KERNELS['aten.relu.default']),
// CHECK-NEXT:     sum=SimpleNamespace(default=KERNELS['aten.sum.default']),
// CHECK-NEXT: )
// CHECK:      def forward(x):
// CHECK-NEXT:     _sizes: dict[str, int] = {}
// CHECK-NEXT:     x = _check_input('x', x, np.float32, (3,), _sizes)
// CHECK-NEXT:     p_w = STATE['w']  # parameter
// CHECK-NEXT:     b_count = STATE['count']  # buffer
// CHECK-NEXT:     add = np.asarray(aten.add.Tensor(self=b_count, other=1, alpha=1), np.int64)  # int64[]
// CHECK-NEXT:     mul = np.asarray(aten.mul.Tensor(self=x, other=p_w), np.float32)  # float32[3]
// CHECK-NEXT:     sum_1 = np.asarray(aten.sum.default(self=mul, dtype=None), np.float32)  # float32[]
// CHECK-NEXT:     gt = np.asarray(aten.gt.Scalar(self=sum_1, other=0), np.bool_)  # bool[]
// CHECK-EMPTY:
// CHECK-NEXT:     def true_graph_0(m, c):
// CHECK-NEXT:         relu = np.asarray(aten.relu.default(self=m), np.float32)  # float32[3]
// CHECK-NEXT:         plus = np.asarray(aten.add.Tensor(self=relu, other=c, alpha=1), np.float32)  # float32[3]
// CHECK-NEXT:         return (plus,)
// CHECK-EMPTY:
// CHECK-NEXT:     def false_graph_0(m, c):
// CHECK-NEXT:         neg = np.asarray(aten.neg.default(self=m), np.float32)  # float32[3]
// CHECK-NEXT:         return (neg,)
// CHECK-EMPTY:
// CHECK-NEXT:     if gt:  # torch.ops.higher_order.cond
// CHECK-NEXT:         cond = true_graph_0(mul, add)
// CHECK-NEXT:     else:
// CHECK-NEXT:         cond = false_graph_0(mul, add)
// CHECK-NEXT:     getitem = cond[0]  # float32[3]
// CHECK-NEXT:     np.copyto(STATE['count'], add, casting='unsafe')  # buffer mutation
// CHECK-NEXT:     _check_output(0, 'getitem', getitem, np.float32, (3,))
// CHECK-NEXT:     return (getitem,)
// CHECK:      _NODES = {
// CHECK:          {{[0-9]+}}: 'cond (higher_order.cond)',
// CHECK:      INPUTS = ('x',)
// CHECK:      if __name__ == "__main__":
// CHECK-NEXT:     sys.exit(main())

// x * w = [1, -4, 9], sum 6 > 0: relu(x * w) + count, count now 1.
// RESULT:      ['out0']
// RESULT-NEXT: float32 [ 2.  1. 10.]

// SUMMARY:     out0: float32[3]

// BAD:         error: input x: dimension 0 must be 3, got shape [4]
