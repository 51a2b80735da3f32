# Two entry points, each working on a fresh clone:
#   make demo   create the venv, install, run exir-opt on the bundled example
#   make test   create the venv, install with the test and torch extras, run pytest and lit
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test venv clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

venv: $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e .

demo: venv
	@echo "== exir-opt examples/mlp.mlir -p verify-export-ir,cse,dce --print-between-passes"
	$(BIN)/exir-opt examples/mlp.mlir -p verify-export-ir,cse,dce --print-between-passes

test: $(BIN)/activate
	$(BIN)/python -m pip install --quiet -e '.[test,torch]'
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/python -m pytest -q
	PATH="$(abspath $(BIN)):$$PATH" $(BIN)/lit -v tests/filecheck

clean:
	rm -rf $(VENV) build *.egg-info
