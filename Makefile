# Two commands: `make run` (the app) and `make test` (lint, tests, docs). Setup is a fast no-op once done.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# CUDA users: make run TORCH_SPEC="torch==2.13.0 --index-url https://download.pytorch.org/whl/cu128"
TORCH_SPEC ?= torch==2.13.0
LAB ?= fault_resume
ARGS ?=
# Where `make run` listens: loopback only unless asked (make run ADDRESS=0.0.0.0 serves the LAN, on purpose).
ADDRESS ?= 127.0.0.1
STAMP := $(VENV)/.installed

.PHONY: setup run test lab clean browser

setup: $(STAMP)

# Re-install only when the project's declared dependencies change.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet $(TORCH_SPEC)
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: setup
	$(BIN)/streamlit run app --server.headless true --server.port 8501 --server.address $(ADDRESS)

# The browser test needs Debian's chromium + chromium-driver and CJK fonts (installed only when missing).
browser: setup
	bash scripts/install_browser.sh

test: setup browser
	$(BIN)/ruff check .
	$(BIN)/python -m pytest
	@if [ -f mkdocs.yml ]; then $(BIN)/mkdocs build --strict --quiet; fi

lab: setup
	$(BIN)/python -m labs.run $(LAB) $(ARGS)

clean:
	rm -rf $(VENV) site runs
