# Everything runs in a virtual environment made here (.venv), so a fresh machine needs only
# python3, cargo and make: pip builds the Rust core (trecgain._core) with maturin from PyPI.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BUILT := $(VENV)/.core-built
TOOLS := $(VENV)/.test-tools
PYC := $(VENV)/.bytecode
PY_SOURCES := $(wildcard trecgain/*.py)
CORE_SOURCES := $(shell find src core/src -name '*.rs') Cargo.toml core/Cargo.toml

.PHONY: example test rust-test python-test bench clean

# The virtual environment; a change to pyproject.toml makes it anew.
$(STAMP): pyproject.toml
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	touch $(STAMP)

# trecgain itself, built once (what `make example` needs); a change to the Rust sources
# rebuilds the extension in place.
$(BUILT): $(STAMP) $(CORE_SOURCES)
	$(PY) -m pip install --quiet -e .
	touch $(BUILT)

# The test tools, for `make test` only: pyproject.toml's `test` extra (its one list), installed
# by name so that trecgain is not built a second time (pip installs an extra only by building
# the package it belongs to).
$(TOOLS): $(STAMP)
	$(PY) -c "$$TEST_EXTRA" | xargs $(PY) -m pip install --quiet
	touch $(TOOLS)

define TEST_EXTRA
try:
    import tomllib
except ImportError:  # Python 3.10: pip's own copy of the same parser
    from pip._vendor import tomli as tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["test"]))
endef
export TEST_EXTRA

# Bytecode is compiled as a wheel install compiles it (an editable install does not, and with
# PYTHONDONTWRITEBYTECODE every start would compile the package again).
$(PYC): $(BUILT) $(PY_SOURCES)
	$(PY) -m compileall -q trecgain
	touch $(PYC)

example: $(PYC)
	$(VENV)/bin/trecgain -q -m ndcg_cut.5,10 -m ndcg testdata/example/qrels.txt testdata/example/run.txt

test: rust-test python-test

# clippy's lints change from one Rust release to the next, so they run on the pinned toolchain
# only (CLIPPY_TOOLCHAIN, the one these machines carry); `make test` says so where it is absent
# rather than failing on code that did not change.
CLIPPY_TOOLCHAIN ?= 1.95.0

rust-test: $(BUILT) lint
	cargo test --quiet -p trecgain-core

.PHONY: lint
lint: $(BUILT)
	@if rustup toolchain list 2>/dev/null | grep -q '^$(CLIPPY_TOOLCHAIN)'; then \
	  PYO3_PYTHON=$(abspath $(PY)) cargo +$(CLIPPY_TOOLCHAIN) clippy --workspace --all-targets --quiet -- -D warnings \
	  && echo "clippy $(CLIPPY_TOOLCHAIN): clean"; \
	else echo "clippy: toolchain $(CLIPPY_TOOLCHAIN) not installed, lints not run (rustup toolchain install $(CLIPPY_TOOLCHAIN); make lint)"; fi

python-test: $(PYC) $(TOOLS)
	$(PY) -m pytest -q

# BENCH_ARGS, e.g. --trec-eval /path/to/trec_eval --quick (see bench/real.py --help)
bench: $(PYC) $(TOOLS)
	$(PY) bench/real.py $(BENCH_ARGS)

# bench/dicts.py: dicts and DataFrames against pytrec_eval and ranx (ranx is no test tool: it
# is installed here, by name, for this benchmark only). BENCH_ARGS, e.g. --rounds 5
.PHONY: bench-dicts
bench-dicts: $(PYC) $(TOOLS)
	$(PY) -m pip install --quiet ranx
	$(PY) bench/dicts.py $(BENCH_ARGS)

# Live conformance against a real trec_eval: pyserini's 9.0.4 by default (fetched into
# bench/cache), TREC_EVAL=/path/to/trec_eval for your own build (9.x or 10.x).
# CONFORMANCE_ARGS, e.g. --count 500 --seed 7 --keep /tmp/repro --minimize (see --help)
.PHONY: conformance
conformance: $(PYC) $(TOOLS)
	$(PY) tests/live_conformance.py $(if $(TREC_EVAL),--trec-eval '$(TREC_EVAL)') $(CONFORMANCE_ARGS)

clean:
	rm -rf $(VENV) build target *.egg-info
