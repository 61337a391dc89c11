# Everything runs in a virtual environment made here (.venv), so a fresh machine needs only python3.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: example test bench clean

$(STAMP): pyproject.toml
	rm -rf $(VENV)
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

example: $(STAMP)
	$(VENV)/bin/trecgain -q -m ndcg_cut.5,10 -m ndcg testdata/example/qrels.txt testdata/example/run.txt

test: $(STAMP)
	$(PY) -m pytest -q

bench: $(STAMP)
	$(PY) bench/bench.py

clean:
	rm -rf $(VENV) build *.egg-info
