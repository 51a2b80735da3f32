# Two entry points, each working on a fresh clone:
#   make demo   create the venv, install, import a bundled torch.export archive, run it, compile it with IREE
#   make test   create the venv, install with the test, torch and iree extras, lint, run pytest and lit
#   make quick  the inner loop on an installed venv: pytest on the quick set of files (tests/conftest.py), under a minute
#   make lint   ruff and pyright (configured in pyproject.toml), on an installed venv
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test quick lint venv clean

# After installing, the package's own modules are compiled to bytecode once (about a second):
# where PYTHONDONTWRITEBYTECODE is set, as on CI machines, Python would otherwise compile every
# module it imports from source in every process, and the CLI tests start hundreds (lit's
# processes get only the variables lit.cfg.py passes, so they write bytecode themselves).
# (pip compiles the installed wheels itself: with --no-compile, each process recompiled torch,
# sympy and xDSL, 1.8 -> 4.5 s of CPU time for one exir-opt.)
PIP := $(BIN)/python -m pip install --quiet
BYTECODE := $(BIN)/python -m compileall -q -j 0 xdsl_exir > /dev/null

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(PIP) --upgrade pip

venv: $(BIN)/activate
	$(PIP) -e '.[iree]'
	$(BYTECODE)

DEMO := tests/zoo/cnn_bn
TS := tests/torchscript/dumps
LSTM_LOWERING := torchscript-to-exir{input-types="x=f32[s0,10];hx=f32[s0,20];cx=f32[s0,20];w_ih=f32[80,10];w_hh=f32[80,20];b_ih=f32[80];b_hh=f32[80]"}

demo: venv
	@mkdir -p build
	@echo "== import the archive (no torch involved), check it is Export IR, write self-contained IR"
	$(BIN)/exir-opt $(DEMO).train.pt2 -p verify-export-ir -o build/cnn_bn.mlir
	@echo "== run the archive and the printed IR on the same inputs"
	$(BIN)/exir-run $(DEMO).train.pt2 --inputs $(DEMO).inputs.npz -o build/from_pt2.npz
	$(BIN)/exir-run build/cnn_bn.mlir --inputs $(DEMO).inputs.npz -o build/from_mlir.npz
	$(BIN)/python -c "import numpy as np; a, b, e = (np.load(f) for f in ('build/from_pt2.npz', 'build/from_mlir.npz', '$(DEMO).expected.npz')); \
	  print('pt2 == mlir:', all((a[k] == b[k]).all() for k in a.files), '| max |ours - torch eager|:', max(float(abs(a[k] - e[k]).max()) for k in a.files))"
	@echo "== the same program as FX prints it (core ATen IR)"
	$(BIN)/exir-opt $(DEMO).core.pt2 --emit fx | head -24
	@echo "== lowered to upstream MLIR (func/arith/tensor/linalg, weights as dense_resource), head of the text"
	$(BIN)/exir-opt $(DEMO).core.pt2 -p to-core-aten,convert-exir-to-linalg -o build/cnn_bn.linalg.mlir
	@head -c 1200 build/cnn_bn.linalg.mlir; echo " ..."
	@echo "== compiled to native code by IREE and run on the same inputs"
	$(BIN)/exir-run $(DEMO).core.pt2 --backend iree --inputs $(DEMO).inputs.npz -o build/from_iree.npz
	$(BIN)/python -c "import numpy as np; a, e = (np.load(f) for f in ('build/from_iree.npz', '$(DEMO).expected.npz')); \
	  print('max |IREE - torch eager|:', max(float(abs(a[k] - e[k]).max()) for k in a.files))"
	@echo "== a pass pipeline on hand-written IR"
	$(BIN)/exir-opt examples/mlp.mlir -p verify-export-ir,cse,dce
	@echo "== TorchScript: torch's fused LSTM cell (a prim::FusionGroup) run on random inputs"
	$(BIN)/exir-run $(TS)/fuse_lstm_cell.fused.txt --random-inputs 0
	@echo "== the unfused dump printed as TorchScript Python, then lowered to Export IR"
	$(BIN)/exir-opt $(TS)/lstm_cell.txt --emit torchscript-python
	$(BIN)/exir-opt $(TS)/lstm_cell.txt -p '$(LSTM_LOWERING),verify-export-ir' --emit fx | head -12

RUFF := $(BIN)/ruff check xdsl_exir tests scripts benchmarks lit.cfg.py

lint:
	$(RUFF)
	$(BIN)/pyright

# pytest-xdist's workers take one core each (worksteal rebalances the long IREE files), so each
# worker keeps torch's and OpenBLAS's thread pools to one thread rather than fighting the other
# workers for the cores. lit runs its files on every core too (its default), after pytest.
PYTEST := PATH="$(abspath $(BIN)):$$PATH" OMP_NUM_THREADS=1 $(BIN)/python -m pytest -q -n auto --dist worksteal

# pyright checks on one core for about a minute: `make test` runs it beside pytest's workers
# (its report printed after theirs) instead of leaving the other core idle before them.
test: $(BIN)/activate
	$(PIP) -e '.[test,torch,iree]'
	$(BYTECODE)
	$(RUFF)
	@mkdir -p build
	$(BIN)/pyright > build/pyright.log 2>&1 & pyright=$$!; \
	  $(PYTEST); tests=$$?; \
	  wait $$pyright; types=$$?; echo "== pyright"; cat build/pyright.log; \
	  test $$types -eq 0 -a $$tests -eq 0
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/lit -v tests/filecheck

quick:
	$(PYTEST) --quick

clean:
	rm -rf $(VENV) build *.egg-info
