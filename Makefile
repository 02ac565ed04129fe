# `make demo` and `make test` each set up .venv (idempotently: pip runs again only when
# pyproject.toml changes) and then run. The demo needs only the package; the tests also
# install the dev tools and the optional engines (extras). Both install the `fast` extra
# (sqlglot's compiled build) and byte-compile src/: pip compiles a package it installs,
# but not the sources of an editable install, and where PYTHONDONTWRITEBYTECODE is set
# every process would compile abcde again (~0.1 s a command).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
TEST_EXTRAS ?= dev,spark,postgres,report,fast
# pytest-xdist workers (CI has 2 cores); TEST_WORKERS=0 runs in one process
TEST_WORKERS ?= 2

.PHONY: venv demo test lint golden docs clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed-demo: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[fast]"
	$(BIN)/python -m compileall -q src
	touch $@

$(VENV)/.installed-test: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[$(TEST_EXTRAS)]"
	$(BIN)/python -m compileall -q src
	touch $@ $(VENV)/.installed-demo

venv: $(VENV)/.installed-test

demo: $(VENV)/.installed-demo
	$(BIN)/abcde impact --base examples/base.csv --exp examples/exp.csv \
		--weights examples/weights.csv --attributes examples/attributes.csv \
		--slice-by provenance --top 5

test: $(VENV)/.installed-test
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

golden: $(VENV)/.installed-test
	$(BIN)/python tests/golden/regenerate.py

# docs/cli.md's reference part: every command's --help (tests/test_docs.py checks it)
docs: $(VENV)/.installed-test
	$(BIN)/python tests/cli_reference.py

lint: $(VENV)/.installed-test
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) dist build .pytest_cache .hypothesis
