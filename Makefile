# The two commands: `make demo` and `make test`. Each creates or updates .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint slow clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,dist,games,notebooks,web]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tower demo --out out

test: $(STAMP)
	$(BIN)/ruff check tower tests
	@command -v node >/dev/null || echo "NOTE: node not found: the JavaScript port's tests will be SKIPPED"
	@test -x "$${TOWER_CHROMIUM:-/usr/bin/chromium}" || command -v chromium >/dev/null || \
		echo "NOTE: no Chromium: the browser test will be SKIPPED (apt-get install chromium)"
	$(BIN)/python -m pytest -q -rs

slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

clean:
	rm -rf out .pytest_cache .ruff_cache
