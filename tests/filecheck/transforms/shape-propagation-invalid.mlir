// shape-propagation refuses a broadcast that would specialize a dynamic size, an
// unknown input name and a malformed option, each with one located diagnostic.
// RUN: not exir-opt %s -p 'shape-propagation{input-types="x=f32[s0]"}' 2>&1 | filecheck %s --check-prefix=BCAST
// RUN: not exir-opt %s -p 'shape-propagation{input-types="z=f32[3]"}' 2>&1 | filecheck %s --check-prefix=NAME
// RUN: not exir-opt %s -p 'shape-propagation{ranges="s0=[1"}' 2>&1 | filecheck %s --check-prefix=RANGE

exir.program inputs [<user_input "x">, <user_input "y">] outputs [<user_output "add">] {
  exir.graph @forward(%x: !exir.tensor<[3], float32>, %y: !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32> {
    %add = aten.add.Tensor(%x, %y) : (!exir.tensor<[3], float32>, !exir.tensor<[3], float32>) -> !exir.tensor<[3], float32>
    exir.output %add : !exir.tensor<[3], float32>
  }
}
// BCAST: shape-propagation-invalid.mlir:9:5: 'aten.add.Tensor' (%add) in @forward: broadcasting size s0 against 3 needs s0 in {1, 3}, which specializes a dynamic dimension (range [2, inf])
// NAME: input-types names z, which is not a user input of the program (user inputs: x, y)
// RANGE: shape-propagation: ranges: expected s0=[MIN, MAX] (MAX may be inf), got '[1'
