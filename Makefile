# `make demo` and `make test` each set up .venv (idempotently) and then run.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
EXTRAS ?= dev,spark,postgres

.PHONY: venv demo test lint golden bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$(EXTRAS)]"
	touch $(STAMP)

venv: $(STAMP)

demo: $(STAMP)
	$(BIN)/abcde impact --base examples/base.csv --exp examples/exp.csv \
		--weights examples/weights.csv --attributes examples/attributes.csv \
		--slice-by provenance --top 5

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) dist build .pytest_cache .hypothesis
