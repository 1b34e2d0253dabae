# lpsched: two commands on a fresh machine with Python 3 and make.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/lpsched demo

test: $(STAMP)
	$(BIN)/ruff check lpsched tests benchmarks
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check lpsched tests benchmarks

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_maxstretch.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis
