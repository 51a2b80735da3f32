// Each output flag of exir-run reports a bad destination under its own name,
// before any work is done, and writes nothing.
// RUN: rm -rf %t.dir && mkdir %t.dir
// RUN: not exir-run %s --trace %t.dir 2>&1 | filecheck %s --check-prefix=TRACEDIR
// RUN: not exir-run %s --trace %t.missing/trace.json 2>&1 | filecheck %s --check-prefix=TRACEMISSING
// RUN: not exir-run %s -o %t.dir 2>&1 | filecheck %s --check-prefix=ODIR
// RUN: not exir-run %s -o %t.out.npz --trace %t.dir 2>&1 | filecheck %s --check-prefix=TRACEDIR
// RUN: not test -e %t.out.npz

exir.program inputs [] outputs [<user_output "z">] {
  exir.graph @forward() -> !exir.tensor<[2], float32> {
    %z = aten.zeros.default([2]) : () -> !exir.tensor<[2], float32>
    exir.output %z : !exir.tensor<[2], float32>
  }
}

// TRACEDIR: exir-run: error: --trace {{.*}}.dir: is a directory; name a file to write
// TRACEDIR-NOT: -o
// TRACEMISSING: exir-run: error: --trace {{.*}}missing/trace.json: {{.*}}missing does not exist
// ODIR: exir-run: error: -o {{.*}}.dir: is a directory; name a file to write
