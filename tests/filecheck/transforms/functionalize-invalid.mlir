// functionalize refuses what it cannot express, with a located diagnostic.
// RUN: exir-opt %s -p functionalize --split-input-file --verify-diagnostics

builtin.module {
  exir.program inputs [<user_input "x">] outputs [<user_output "x">] {
    exir.graph @forward(%x: !exir.tensor<[3, 4], float32>) -> (!exir.tensor<[3, 4], float32>) {
      // expected-error@+1 {{[functionalize] a write through the view aten.expand.default is not supported (no scatter form)}}
      %e = aten.expand.default(%x, [3, 4]) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[3, 4], float32>
      %r = aten.add_.Tensor(%e, 1.0) : (!exir.tensor<[3, 4], float32>) -> !exir.tensor<[3, 4], float32>
      exir.output %x : !exir.tensor<[3, 4], float32>
    }
  }
}


// -----

builtin.module {
  // expected-error@+1 {{[functionalize] the graph writes its input #0; only the entry graph of an exir.program can return mutations}}
  exir.graph @free(%x: !exir.tensor<[4], float32>) -> (!exir.tensor<[4], float32>) {
    %r = aten.relu_.default(%x) : (!exir.tensor<[4], float32>) -> !exir.tensor<[4], float32>
    exir.output %r : !exir.tensor<[4], float32>
  }
}

