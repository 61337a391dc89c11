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

# trecgain alone (what `make example` needs: it has no run-time dependencies) ...
$(STAMP): pyproject.toml
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e .
	touch $(STAMP) $(BUILT)

# ... and the test tools (pyproject.toml's `test` extra, its one list), for `make test` only.
# pip installs an extra only with trecgain itself: cargo finds the core already built.
$(TOOLS): $(STAMP)
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(TOOLS)

# A change to the Rust sources rebuilds the extension in place (the test tools stay).
# Bytecode is compiled as a wheel install compiles it (an editable install does not, and with
# PYTHONDONTWRITEBYTECODE every start would compile the package again).
$(BUILT): $(STAMP) $(CORE_SOURCES)
	$(PY) -m pip install --quiet --no-deps -e .
	touch $(BUILT)

$(PYC): $(BUILT) $(PY_SOURCES)
	$(PY) -m compileall -q trecgain
	touch $(PYC)

example: $(PYC)
	$(VENV)/bin/trecgain -q -m ndcg_cut.5,10 -m ndcg testdata/example/qrels.txt testdata/example/run.txt

test: rust-test python-test

rust-test: $(BUILT)
	PYO3_PYTHON=$(abspath $(PY)) cargo clippy --workspace --all-targets --quiet -- -D warnings
	cargo test --quiet -p trecgain-core

python-test: $(PYC) $(TOOLS)
	$(PY) -m pytest -q

# BENCH_ARGS, e.g. --trec-eval /path/to/trec_eval --quick (see bench/real.py --help)
bench: $(PYC) $(TOOLS)
	$(PY) bench/real.py $(BENCH_ARGS)

# Live conformance against a real trec_eval: pyserini's 9.0.4 by default (fetched into
# bench/cache), TREC_EVAL=/path/to/trec_eval for your own build (9.x or 10.x).
# CONFORMANCE_ARGS, e.g. --count 500 --seed 7 --keep /tmp/repro --minimize (see --help)
.PHONY: conformance
conformance: $(PYC) $(TOOLS)
	$(PY) tests/live_conformance.py $(if $(TREC_EVAL),--trec-eval '$(TREC_EVAL)') $(CONFORMANCE_ARGS)

clean:
	rm -rf $(VENV) build target *.egg-info
