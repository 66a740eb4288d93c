# One place for the commands the README and CI use.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
RUN_STAMP := $(VENV)/.installed-run
NB_STAMP  := $(VENV)/.installed-notebooks
DEV_STAMP := $(VENV)/.installed-dev

# Python writes each module's bytecode (__pycache__, git-ignored) when it first imports it.
# An environment that sets PYTHONDONTWRITEBYTECODE (some containers do) would have every
# process compile every module from source again: about 3.5 s of CPU for each `simkit`
# command, joblib worker and test subprocess (5.4 s -> 2.1 s for a one-game `simulate`).
unexport PYTHONDONTWRITEBYTECODE

.PHONY: setup run test test-fast doctest lint bench bench-check browser serve notebooks clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip

# `make run` needs only the runtime dependencies (a fresh clone's first run installs less);
# the dev extra (test tools, linter, Dask, notebooks) comes with the test targets.
# --no-compile: Python writes each module's bytecode when it is first imported, instead of
# pip byte-compiling every file of every wheel up front (~50 s of a fresh install here).
$(RUN_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet --no-compile -e .
	touch $(RUN_STAMP)

$(DEV_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet --no-compile -e '.[dev]'
	touch $(DEV_STAMP) $(RUN_STAMP)

setup: $(DEV_STAMP)

## The main job: a small combat-odds + balance run ending in a report.
run: $(RUN_STAMP)
	$(PY) -m simkit demo --out results/demo

## The browser the serve tests drive (tests/test_serve_browser.py): Debian's chromium, which
## Playwright (dev extra) launches; Playwright's own browser download is not used. Installs it
## when missing and apt-get can run (root or sudo); otherwise says so and the browser tests skip.
CHROMIUM ?= /usr/bin/chromium
browser:
	@test -x $(CHROMIUM) || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get install -y chromium >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y chromium >/dev/null; }; \
	  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo apt-get install -y chromium >/dev/null; fi; \
	  test -x $(CHROMIUM) || echo "make browser: could not install chromium (needs root or sudo); the browser tests will skip"; }

## The odds calculator page on http://127.0.0.1:8765 (prints the URL with its token).
serve: $(RUN_STAMP)
	$(PY) -m simkit serve

## The one test command (README and CI): the whole suite, slow tests included, spread over 3
## workers (pytest-xdist; every test is independent; tests sharing one expensive fixture
## carry an xdist_group, which loadgroup keeps on one worker). Three workers on two cores:
## many tests wait on subprocesses (kills, signals, locks), and a third worker fills that
## time. The kernels compile first, one family per core (tools/warm_kernels.py), so the
## workers do not compile the same kernels at once.
test: $(DEV_STAMP) browser
	$(PY) tools/warm_kernels.py
	$(PY) -m pytest -n 3 --dist loadgroup

## The edit loop: everything but the tests marked slow (fuzz, big sweeps, notebooks, Dask),
## spread over the cores (pytest-xdist; every test stays independent of the others).
test-fast: $(DEV_STAMP) browser
	$(PY) tools/warm_kernels.py
	$(PY) -m pytest -m "not slow" -n auto --dist loadgroup

## The docstring examples of the package (CI runs them after `make test`).
doctest: $(DEV_STAMP)
	$(PY) -m pytest --doctest-modules simkit strategies -p no:cacheprovider

LINT_DIRS := simkit strategies tests benchmarks tools experiments

## ruff's lint rules and its formatter (a file `ruff format` would change fails the check).
lint: $(DEV_STAMP)
	$(PY) -m ruff check $(LINT_DIRS)
	$(PY) -m ruff format --check $(LINT_DIRS)

## Every benchmark (JSON lines, also in benchmarks/results/latest.jsonl), then the speed
## guard: fails loudly when a figure the README quotes has fallen to half (figures.toml).
bench: $(DEV_STAMP)
	$(PY) benchmarks/run_all.py --out benchmarks/results/latest.jsonl
	$(PY) benchmarks/check_figures.py benchmarks/results/latest.jsonl

## The guard alone, on lines already measured (e.g. one script: run_all.py game).
bench-check: $(DEV_STAMP)
	$(PY) benchmarks/check_figures.py benchmarks/results/latest.jsonl

## JupyterLab on the worked examples (notebooks/), on http://127.0.0.1:8888 only: installs
## the notebooks extra (JupyterLab, nbclient, ipykernel) first. Jupyter prints the URL with
## its token; Ctrl-C stops it.
NB_PORT ?= 8888
$(NB_STAMP): pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install --quiet --no-compile -e '.[notebooks]'
	touch $(NB_STAMP) $(RUN_STAMP)

notebooks: $(NB_STAMP)
	$(PY) -m jupyter lab --ip=127.0.0.1 --port=$(NB_PORT) --no-browser notebooks

clean:
	rm -rf $(VENV) results .pytest_cache
