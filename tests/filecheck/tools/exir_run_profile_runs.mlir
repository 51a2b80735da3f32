// exir-run --profile times --runs N runs after --warmup K untimed ones (default
// one of each): the table counts the timed runs' calls only, and the outputs
// are the first run's.
// RUN: exir-run %s --profile --runs 3 --warmup 2 2>&1 | filecheck %s --check-prefix=THREE
// RUN: exir-run %s --profile 2>&1 | filecheck %s --check-prefix=ONE
// RUN: not exir-run %s --runs 2 2>&1 | filecheck %s --check-prefix=ALONE
// RUN: not exir-run %s --profile --runs 0 2>&1 | filecheck %s --check-prefix=ZERO
// RUN: not exir-run %s --profile --warmup -1 2>&1 | filecheck %s --check-prefix=NEGATIVE

exir.program inputs [] outputs [<user_output "r">] {
  exir.graph @forward() -> !exir.tensor<[2], float32> {
    %z = aten.ones.default([2]) : () -> !exir.tensor<[2], float32>
    %r = aten.relu.default(%z) : (!exir.tensor<[2], float32>) -> !exir.tensor<[2], float32>
    exir.output %r : !exir.tensor<[2], float32>
  }
}

// THREE: aten.relu.default {{.*}}  3  {{.*}}
// THREE: wall time of the 3 runs
// THREE: out0: float32[2]
// THREE-NEXT: [1. 1.]
// ONE: aten.relu.default {{.*}}  1  {{.*}}
// ONE: wall time of the 1 run:
// ALONE: exir-run: error: --runs and --warmup repeat a profiled run: give --profile or --trace with them
// ZERO: exir-run: error: argument --runs: expected a number of runs (1 or more), got '0'
// NEGATIVE: exir-run: error: argument --warmup: expected a number of runs (0 or more), got '-1'
