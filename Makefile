# One-command setup: `make demo` and `make test` create .venv when missing, install the project
# (torch==2.13.0 first, so that no other requirement pulls a CUDA build), then run.
PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
PYTEST_ARGS ?=
# PyPI serves torch's CUDA build (several GB): TORCH_INDEX=https://download.pytorch.org/whl/cpu takes the CPU one
TORCH_INDEX ?=

.PHONY: demo test install notebooks clean-data bench

demo: $(STAMP)
	$(BIN)/arastance demo

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

install: $(STAMP)

notebooks: $(STAMP)
	$(BIN)/arastance notebooks

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

# compare_demo_tables.py is a refactoring check between two revisions, not a benchmark; bench_transformer.py
# fine-tunes a base-size BERT (hours an epoch without a GPU) on a corpus named by its options: run it by hand.
bench: $(STAMP)
	for script in $(filter-out benchmarks/compare_demo_tables.py benchmarks/bench_transformer.py,$(wildcard benchmarks/*.py)); do \
	  $(BIN)/python $$script || exit 1; done

clean-data:
	rm -rf data
