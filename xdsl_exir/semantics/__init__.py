"""
The operator semantics: what each `aten` overload means, apart from any pass.

* `inference/`: result-type rules, the FakeTensor computation of torch done on
  `exir` types (the `aten` dialect asks them for its ops' result types);
* `kernels/`: numpy kernels, the interpreter's definition of each overload;
* `decompositions/`: rules that rewrite an overload into simpler ones, written
  against an emitter and applied by the `decompose` pass.

The layer sits above the dialects (it builds and reads their ops and types) and
below the analyses and passes, which consult it: a pass folding, decomposing or
lowering an op uses the same definition the interpreter runs.
"""
