# The two commands: `make demo` and `make test`. Each creates or updates .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint slow clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test,dist,games,notebooks]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/tower demo --out out

test: $(STAMP)
	$(BIN)/ruff check tower tests
	$(BIN)/python -m pytest -q

slow: $(STAMP)
	$(BIN)/python -m pytest -q -m slow

clean:
	rm -rf out .pytest_cache .ruff_cache
