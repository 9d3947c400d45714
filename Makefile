# The commands the README names. `make serve` and `make test` work on a
# fresh machine with only Python 3.11+ and make: they install what they need.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: install serve test test-train lint eval-deps clean

install: $(STAMP)

# Re-runs only when pyproject.toml changes; the package is installed editable.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

serve: install
	$(BIN)/python -m service serve

test: install
	$(BIN)/python -m pytest -q

lint: install
	$(BIN)/ruff check service tests
	$(BIN)/ruff format --check service tests
	$(BIN)/mypy service

# The tests that need TensorFlow (export parity); `make test` skips them.
test-train: install
	$(BIN)/python -m pip install --quiet -e '.[dev,train]'
	$(BIN)/python -m pytest -q -m train

# The peers that `python -m service eval` and `bench` compare against.
eval-deps: install
	$(BIN)/python -m pip install --quiet -e '.[dev,eval]'

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
