# Everything runs in a virtual environment made here (.venv), so a fresh machine needs only
# python3, cargo and make: pip builds the Rust core (trecgain._core) with maturin from PyPI.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
BUILT := $(VENV)/.core-built
TOOLS := $(VENV)/.test-tools
PYC := $(VENV)/.bytecode
BUILD_TOOLS := $(VENV)/.build-tools
PY_SOURCES := $(wildcard trecgain/*.py trecgain/*/*.py)
CORE_SOURCES := $(shell find src core/src -name '*.rs') Cargo.toml core/Cargo.toml

.PHONY: example test rust-test python-test bench clean wheel

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

# The build tools of `make wheel`: pyproject.toml's [build-system] requires (maturin), the same
# list pip builds with.
$(BUILD_TOOLS): $(STAMP)
	$(PY) -c "$$BUILD_REQUIRES" | xargs $(PY) -m pip install --quiet
	touch $(BUILD_TOOLS)

define TEST_EXTRA
try:
    import tomllib
except ImportError:  # Python 3.10: pip's own copy of the same parser
    from pip._vendor import tomli as tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["optional-dependencies"]["test"]))
endef
export TEST_EXTRA

define BUILD_REQUIRES
try:
    import tomllib
except ImportError:  # Python 3.10: pip's own copy of the same parser
    from pip._vendor import tomli as tomllib
with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["build-system"]["requires"]))
endef
export BUILD_REQUIRES

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
	cargo check --quiet --manifest-path fuzz/Cargo.toml  # the fuzz target still builds (it is run by hand)

python-test: $(PYC) $(TOOLS) wheel
	$(PY) -m pytest -q

# What PyPI gets, in $(DIST) (tests/test_wheels.py installs each wheel into fresh virtual
# environments of every CPython 3.10-3.13 found): the sdist first, then the wheels built from
# it, unpacked (which shows that it builds), in the release profile: one abi3 wheel for CPython
# 3.11 and later (the stable ABI has the buffer protocol from 3.11), and one for 3.10 where
# tests/pythons.py finds a 3.10: two builds of the small bindings crate, not four.
# The sdist dates its files 2006 (reproducible archives): each unpacked file takes the date of
# the file it copies, so that cargo, sharing target/, rebuilds exactly what changed and reuses
# the core `make` built. Linux wheels get the oldest manylinux tag the extension passes
# (maturin's audit; natively that is this machine's glibc: the release workflow builds
# manylinux2014 in its container); `--compatibility pypi` refuses any tag PyPI would refuse.
# maturin's --features replaces pyproject's list, so extension-module is named again.
DIST ?= dist
SDIST_TREE := build/sdist
WHEEL_FLAGS := --release --compatibility pypi --auditwheel check --out $(abspath $(DIST))
MATURIN_IN_TREE = cd $(SDIST_TREE)/trecgain-* && CARGO_TARGET_DIR=$(abspath target) $(abspath $(VENV))/bin/maturin build $(WHEEL_FLAGS)
WHEEL_INPUTS := $(CORE_SOURCES) $(PY_SOURCES) trecgain/_core.pyi trecgain/py.typed pyproject.toml Cargo.lock README.md LICENSE

wheel: $(DIST)/.built

$(DIST)/.built: $(BUILT) $(BUILD_TOOLS) $(WHEEL_INPUTS) tests/pythons.py
	rm -rf $(DIST) $(SDIST_TREE)
	$(VENV)/bin/maturin sdist --out $(DIST)
	mkdir -p $(SDIST_TREE) && tar -xzf $(DIST)/trecgain-*.tar.gz -C $(SDIST_TREE)
	cd $(SDIST_TREE)/trecgain-* && find . -type f | while read -r f; do \
	  if [ -e "$(CURDIR)/$$f" ]; then touch -r "$(CURDIR)/$$f" "$$f"; fi; done
	py=$$($(PY) tests/pythons.py 3.11 3.12 3.13 | head -1) && $(MATURIN_IN_TREE) --features extension-module,abi3 -i "$${py:-$(abspath $(PY))}"
	if py=$$($(PY) tests/pythons.py 3.10); then $(MATURIN_IN_TREE) -i "$$py"; \
	else echo "make wheel: no CPython 3.10 found, so no wheel for it"; fi
	touch $(DIST)/.built

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
	rm -rf $(VENV) build target dist *.egg-info
