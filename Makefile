# The two commands of the README. Each makes its own virtual environment from pyproject.toml.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: figures test venv clean lint

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dask]'
	touch $(STAMP)

venv: $(STAMP)

## make figures: regenerate the figures (quick profile by default; PROFILE=full for paper scale)
PROFILE ?= quick
figures: $(STAMP)
	$(BIN)/aqmlab figures --profile $(PROFILE) --out figures

## make test: lint and run the test suite, two test files at a time (one per core; a file's
## tests stay in one process, so its module fixtures run once)
test: $(STAMP)
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check aqmlab tests bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
