// Bad input of any kind ends in one located diagnostic and a non-zero exit,
// never a Python traceback, and leaves no output file behind.
// RUN: not exir-opt %s 2>&1 | filecheck %s --check-prefix=GARBAGE
// RUN: not exir-opt %S/inputs/bad_sym.mlir 2>&1 | filecheck %s --check-prefix=SYM
// RUN: not exir-opt %S/inputs/bad_dtype.mlir 2>&1 | filecheck %s --check-prefix=DTYPE
// RUN: rm -f %t.out && not exir-opt %S/inputs/bad_verify.mlir -o %t.out 2>&1 | filecheck %s --check-prefix=VERIFY
// RUN: not test -e %t.out
// RUN: not exir-opt %t.missing.mlir 2>&1 | filecheck %s --check-prefix=MISSING
// RUN: not exir-opt %S/inputs/bad_verify.mlir -p no-such-pass 2>&1 | filecheck %s --check-prefix=PASS
// RUN: not exir-opt %S/inputs/binary.bin --from mlir 2>&1 | filecheck %s --check-prefix=BINARY
// RUN: not exir-opt %S/inputs/bad_verify.mlir -p optimise-inference 2>&1 | filecheck %s --check-prefix=NEAR
// RUN: not exir-opt %S/inputs/bad_verify.mlir --pass-pipeline 'flop-count{report=false}' 2>&1 | filecheck %s --check-prefix=OPTTYPE
// RUN: not exir-opt %S/inputs/bad_verify.mlir -p 'flop-count mode=torch' 2>&1 | filecheck %s --check-prefix=SYNTAX
// RUN: not exir-opt %S/inputs/bad_verify.mlir --emit fxx 2>&1 | filecheck %s --check-prefix=EMIT
// RUN: rm -rf %t.dir && mkdir %t.dir && not exir-opt %S/inputs/bad_sym.mlir -o %t.dir 2>&1 | filecheck %s --check-prefix=ODIR
// RUN: not exir-opt %S/inputs/bad_sym.mlir -o %t.missing/out.mlir 2>&1 | filecheck %s --check-prefix=OMISSING
// RUN: not test -e %t.missing
// RUN: not exir-opt %S/inputs/unclosed.mlir 2>&1 | filecheck %s --check-prefix=EOF
// RUN: not exir-opt %S/inputs/deep_nesting.mlir 2>&1 | filecheck %s --check-prefix=DEEP

this is not IR {

// GARBAGE: exir-opt: error: {{.*}}exir_opt_errors.mlir:21:6: Operation this is not registered
// GARBAGE-NOT: Traceback
// SYM: exir-opt: error: {{.*}}bad_sym.mlir:1:37: unexpected end of expression in symbolic expression
// SYM-NEXT: exir.graph @g(%x: !exir.tensor<[s0 +], float32>) -> () {
// SYM-NEXT: {{ +}}^
// DTYPE: exir-opt: error: {{.*}}dtype.mlir:1:{{[0-9]+}}: Expected `bool`, `uint8`, {{.*}}
// VERIFY: exir-opt: error: {{.*}}verify.mlir:2:3: 'exir.sym_mul' (%r) in @g: result is recorded as 3*s0 but the operands give 2*s0
// VERIFY-NOT: Traceback
// MISSING: exir-opt: error: {{.*}}missing.mlir: no such file
// PASS: exir-opt: error: pass pipeline:1:1: unknown pass 'no-such-pass'
// NEAR: exir-opt: error: pass pipeline:1:1: unknown pass 'optimise-inference'; did you mean 'optimize-inference'{{.*}}?
// NEAR-NEXT: {{^}}  optimise-inference
// NEAR-NEXT: {{^}}  ^
// OPTTYPE: exir-opt: error: pass pipeline:1:12: option 'report' of pass 'flop-count' takes a string, got false
// SYNTAX: exir-opt: error: pass pipeline:1:11: expected a comma or pass arguments here; options go in braces
// SYNTAX-NOT: Traceback
// EMIT: exir-opt: error: --emit fxx: unknown output format; did you mean 'fx'? (known: {{.*}}fx, {{.*}}torchscript{{.*}})
// ODIR: exir-opt: error: -o {{.*}}.dir: is a directory
// OMISSING: exir-opt: error: -o {{.*}}missing/out.mlir: {{.*}}missing does not exist
// EOF: exir-opt: error: {{.*}}unclosed.mlir:3:1: unexpected end of input in block definition
// EOF-NOT: ^
// DEEP: exir-opt: error: {{.*}}deep_nesting.mlir:{{[0-9]+}}:{{[0-9]+}}: operations nested too deeply to read
// BINARY: exir-opt: error: {{.*}}.bin:1:1: {{.+}}
// RUN: not exir-opt %S/inputs 2>&1 | filecheck %s --check-prefix=IDIR
// RUN: not exir-run %S/inputs 2>&1 | filecheck %s --check-prefix=RUNDIR
// IDIR: exir-opt: error: {{.*}}inputs: is a directory; exir-opt reads a file (a torch.export .pt2 archive, textual IR (.mlir), {{.*}}); a compiled artifact's directory (--emit iree-bundle) runs with exir-run
// RUNDIR: exir-run: error: {{.*}}inputs: is a directory; exir-run reads a file (a torch.export .pt2 archive, textual IR (.mlir), {{.*}}) or runs a compiled artifact's directory (--emit iree-bundle), which holds a manifest.json; this one has none
