# The two commands of the README: `make train` (the main job) and `make test` (the suite).
# Each creates .venv on first use and installs what it needs; torch first, from the local
# CPU build (any other torch spec would download several GB).
VENV  := .venv
PY    := $(VENV)/bin/python
STAMP := $(VENV)/.mazzo-installed
CONFIG ?= configs/briscola5/ppo_batched_vs_heuristic.yaml

.PHONY: test test-fast train bench lint docs

$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e ".[train,dev]"
	touch $(STAMP)

lint: $(STAMP)
	$(PY) -m ruff check .

# Both cores; the tests that start a Ray cluster run one at a time (xdist_group "ray-cluster", whose lock
# tests/conftest.py holds around each). The suite
# includes the documentation site's build with warnings as errors (tests/test_docs_build.py).
test: $(STAMP) lint
	$(PY) -m pytest -n 2 --dist loadgroup

# Day-to-day tier: everything but the tests marked slow (long playouts, training runs, notebooks).
test-fast: $(STAMP) lint
	$(PY) -m pytest -m "not slow" -n 2

# The documentation site, warnings as errors (make test builds it too: tests/test_docs_build.py).
docs: $(STAMP)
	$(PY) -m sphinx -W --keep-going -b html docs docs/_build/html

train: $(STAMP)
	$(PY) -m train --config $(CONFIG)

bench: $(STAMP)
	$(PY) benchmarks/env_speed.py
