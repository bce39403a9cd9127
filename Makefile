# The two commands: `make demo` and `make test`. Each creates or updates .venv itself.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The engine's files: setup.py compiles its rule files with Cython where a compiler is
# found. A file edited since its build is recompiled here; until then it runs as its source.
ENGINE_PY := $(shell find tower/marrakesh -name '*.py' -o -name '*.pxd')
COMPILED  := tower/compiled.json

.PHONY: demo test lint slow slow-long clean

$(STAMP): pyproject.toml setup.py
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	TOWER_COMPILE=0 $(BIN)/python -m pip install -q -e '.[test,dist,games,notebooks,web]'
	touch $(STAMP)

$(COMPILED): $(STAMP) $(ENGINE_PY)
	$(BIN)/python setup.py -q build_ext --inplace

demo: $(COMPILED)
	$(BIN)/tower demo --out out

test: $(COMPILED)
	$(BIN)/ruff check tower tests
	@command -v node >/dev/null || echo "NOTE: node not found: the JavaScript port's tests will be SKIPPED"
	@test -x "$${TOWER_CHROMIUM:-/usr/bin/chromium}" || command -v chromium >/dev/null || \
		echo "NOTE: no Chromium: the browser test will be SKIPPED (apt-get install chromium)"
	$(BIN)/python -m pytest -q -rs -n auto

# the slow checks that fit in 90 minutes on a 2-core machine, each test's time at the end
slow: $(COMPILED)
	$(BIN)/python -m pytest -q -m 'slow and not slow_long' --durations=0

# the checks longer than that (marker slow_long; times in docs/physics.md)
slow-long: $(COMPILED)
	$(BIN)/python -m pytest -q -m slow_long --durations=0

clean:
	rm -rf out .pytest_cache .ruff_cache
