# The commands the README shows. CI runs `make test` (see .ci/run).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
STAMP := $(VENV)/.installed
TEST_STAMP := $(VENV)/.installed-test

.PHONY: install install-test browser site serve test lint typecheck golden schema clean

# What building and serving need; the test tools come with `make test`.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e .
	touch $(STAMP)

$(TEST_STAMP): $(STAMP) pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(TEST_STAMP)

install: $(STAMP)

install-test: $(TEST_STAMP)

# The browser tests drive the system's Chromium (Playwright downloads no browser). On a
# Debian or Ubuntu machine without one, install it with apt-get (through sudo unless root).
browser:
	@if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then \
	  command -v apt-get >/dev/null 2>&1 || { echo "The browser tests need Chromium; install it with your package manager." >&2; exit 1; }; \
	  SUDO=; [ "$$(id -u)" -eq 0 ] || SUDO=sudo; \
	  echo "Installing Chromium for the browser tests (apt-get install chromium)..."; \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
	  $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; \
	fi

## Build the example site from content/ into site/.
site: install
	$(BIN)/errpages build --content content --out site

## Build content/ into site/ (to open from disk), then serve content/ on
## http://$(HOST):$(PORT)/, following every save (Ctrl-C stops it).
serve: site
	$(BIN)/errpages serve --content content --host $(HOST) --port $(PORT)

lint: install-test
	$(BIN)/ruff check generator tests benchmarks
	$(BIN)/ruff format --check generator tests benchmarks

# mypy checks the code under its import name through a link errpages -> generator/.
typecheck: install-test
	mkdir -p .venv/typecheck && ln -sfn $(CURDIR)/generator .venv/typecheck/errpages
	$(BIN)/mypy

## The whole test suite: lint, types, then pytest (installs Chromium first when it is missing).
test: lint typecheck browser
	$(BIN)/python -m pytest -q

## Regenerate the golden pages in tests/golden/ after an intended output change.
golden: install-test
	$(BIN)/python -m tests.golden

## Rewrite schema/record.schema.json from the code.
schema: install
	$(BIN)/errpages schema --write schema/record.schema.json

clean:
	rm -rf site .site.* $(VENV) .pytest_cache .mypy_cache .ruff_cache
