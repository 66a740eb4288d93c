# One place for the commands the README and CI use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-fast doctest lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

## The main job: a small combat-odds + balance run ending in a report.
run: $(STAMP)
	$(PY) -m simkit demo --out results/demo

## The one test command (README and CI).
test: $(STAMP)
	$(PY) -m pytest

## The edit loop: everything but the tests marked slow (fuzz, big sweeps, notebooks, Dask),
## spread over the cores (pytest-xdist; every test stays independent of the others).
test-fast: $(STAMP)
	$(PY) -m pytest -m "not slow" -n auto

## The docstring examples of the package (CI runs them after `make test`).
doctest: $(STAMP)
	$(PY) -m pytest --doctest-modules simkit strategies -p no:cacheprovider

LINT_DIRS := simkit strategies tests benchmarks tools experiments

## ruff's lint rules and its formatter (a file `ruff format` would change fails the check).
lint: $(STAMP)
	$(PY) -m ruff check $(LINT_DIRS)
	$(PY) -m ruff format --check $(LINT_DIRS)

bench: $(STAMP)
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) results .pytest_cache
