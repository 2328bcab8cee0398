# `make demo` and `make test` each create .venv if missing and install what they need.
# Idempotent: the install step re-runs only when pyproject.toml changes.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.ragstrata-installed
PIPQ   := --quiet --disable-pip-version-check

.PHONY: install demo test test-fast lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install $(PIPQ) --upgrade pip
	$(BIN)/python -m pip install $(PIPQ) -e '.[dev]'
	@touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	@$(BIN)/python -m ragstrata.cli.demo

# pytest exits 5 when it collected no test: that is a failure here, not a pass. Work stealing:
# an idle worker takes pending tests from the busy one, so a few slow files at the end of one
# worker's share do not leave the other core idle (152 s against 161 s with the default split).
test: $(STAMP)
	$(BIN)/python -m pytest -n 2 --dist worksteal -q

# The quick loop: everything but the tests marked slow (kill -9, Chromium, PostgreSQL, the real
# embedding model, fresh-interpreter smoke tests, the end-to-end hostile runs).
test-fast: $(STAMP)
	$(BIN)/python -m pytest -n 2 -q -m "not slow"

# Fast checks that fail early: lint, format, types (CI runs them before the tests).
lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/mypy

bench: $(STAMP)
	$(BIN)/python bench/router.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache build *.egg-info src/*.egg-info
