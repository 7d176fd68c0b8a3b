# The two commands of the README. Each makes its own virtual environment from pyproject.toml.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: figures test venv clean lint ns2 native

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dask]'
	touch $(STAMP)

venv: $(STAMP)

## aqmlab's C++ layer compiled by g++ once per change of its headers (about a minute), so
## that no simulation process waits for Cling to compile it; a no-op when it is cached.
native: $(STAMP)
	cd /tmp && $(CURDIR)/$(BIN)/python -c "from aqmlab.engines.ns3.precompiled import main; main()"

## ns-2.35 (Debian's ns2 package, binary `ns`): the papers' simulator, aqmlab's reference engine.
## Installed with apt-get when missing (as root, or through sudo); elsewhere see README.
ns2:
	@command -v ns >/dev/null 2>&1 || { \
	  echo "installing ns-2.35 (Debian package ns2)"; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq ns2 >/dev/null; } \
	  || echo "warning: ns-2 could not be installed; ns-2 runs and tests are skipped" >&2

## make figures: regenerate the figures (quick profile by default; PROFILE=full for paper scale)
PROFILE ?= quick
figures: $(STAMP) ns2 native
	$(BIN)/aqmlab figures --profile $(PROFILE) --out figures

## make test: lint and run the test suite, two test files at a time (one per core; a file's
## tests stay in one process, so its module fixtures run once)
test: $(STAMP) ns2 native
	$(BIN)/python -m pytest -q -n 2 --dist loadfile

lint: $(STAMP)
	$(BIN)/ruff check aqmlab tests bench

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
