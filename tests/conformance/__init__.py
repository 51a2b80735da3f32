"""
The OpInfo conformance suite: PyTorch's own operator database
(`torch.testing._internal.common_methods_invocations.op_db`) run through every
executor of the project and compared with eager PyTorch.

`harness` traces each sample input to ATen, runs it through the executors and
compares; `table` reads and writes `expected_failures.txt`, the checked-in list
of what each executor is known to get wrong or refuse, with its reason.
`tests/test_conformance.py` runs a fast subset, `scripts/conformance_sweep.py`
the whole database.
"""
