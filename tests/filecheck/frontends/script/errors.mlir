// What the script frontend cannot compile ends with one located paragraph
// and a non-zero exit.
// RUN: not exir-opt %S/inputs/yield.py 2>&1 | filecheck %s --check-prefix=YIELD
// RUN: not exir-opt %S/inputs/branch_types.py 2>&1 | filecheck %s --check-prefix=TYPES

// YIELD: exir-opt: error: {{.*}}yield.py:4:8: 'yield' is not supported in TorchScript
// YIELD-NOT: Traceback

// TYPES: exir-opt: error: {{.*}}branch_types.py:6:11: type mismatch: y is set to type 'int' in the true branch and type 'Tensor' in the false branch
// TYPES-NOT: Traceback
