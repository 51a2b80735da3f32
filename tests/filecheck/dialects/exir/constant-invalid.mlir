// exir.constant's type is the one of its value.
// RUN: not exir-opt %s 2>&1 | filecheck %s

exir.graph @g() -> !exir.int {
  %c = exir.constant true : !exir.int
  exir.output %c : !exir.int
}
// CHECK: exir.constant True has type !exir.bool, not !exir.int
