// exir.constant: a Python constant as a value, for the graph outputs torch.export
// records as ConstantArgument (`return x, True`). Round trip, generic form, FX form.
// RUN: exir-opt %s | exir-opt | filecheck %s
// RUN: exir-opt %s --print-op-generic | filecheck %s --check-prefix=GENERIC
// RUN: exir-opt %s --emit fx | filecheck %s --check-prefix=FX

exir.program inputs [<user_input "x">] outputs [<user_output "x">, <user_output "">, <user_output "">, <user_output "">, <user_output "">, <user_output "">] {
  exir.graph @forward(%x: !exir.tensor<[2], float32>) -> (!exir.tensor<[2], float32>, !exir.bool, !exir.int, !exir.float, !exir.str, !exir.none) {
    %c = exir.constant true : !exir.bool
    %n = exir.constant -3 : !exir.int
    %f = exir.constant 2.5 : !exir.float
    %s = exir.constant "hi" : !exir.str
    %z = exir.constant none : !exir.none
    exir.output %x, %c, %n, %f, %s, %z : !exir.tensor<[2], float32>, !exir.bool, !exir.int, !exir.float, !exir.str, !exir.none
  }
}

// CHECK:      %c = exir.constant true : !exir.bool
// CHECK-NEXT: %n = exir.constant -3 : !exir.int
// CHECK-NEXT: %f = exir.constant 2.5 : !exir.float
// CHECK-NEXT: %s = exir.constant "hi" : !exir.str
// CHECK-NEXT: %z = exir.constant none : !exir.none
// CHECK-NEXT: exir.output %x, %c, %n, %f, %s, %z

// GENERIC: %c = "exir.constant"() <{value = true}> : () -> !exir.bool
// GENERIC: %n = "exir.constant"() <{value = -3 : i64}> : () -> !exir.int

// FX: return (x, True, -3, 2.5, 'hi', None)
