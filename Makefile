# The two entry points (see README.md):
#   make book [PROFILE=paper|smoke]  run every chapter with papermill (outputs saved into notebooks/), build the book
#   make test                        unit tests, every chapter run with the smoke profile into a temporary directory,
#                                    the book built from those with warnings as errors, and a headless-browser check
PROFILE ?= paper
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
MATHJAX_VERSION := 3.2.2

.PHONY: book test setup clean
book: setup
	$(BIN)/python scripts/run_chapters.py --profile $(PROFILE) --output notebooks
	$(BIN)/jupyter-book build --warningiserror --keep-going .

test: setup
	$(BIN)/python -m pytest

setup: $(VENV)/.installed assets/plotly.min.js assets/mathjax/tex-chtml.js

$(VENV)/.installed: pyproject.toml scripts/system-packages.sh
	bash scripts/system-packages.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip setuptools wheel
	$(BIN)/python -m pip install -q -e '.[book,test]'
	touch $@

# The book renders offline: plotly.js and MathJax are served from its own static files (assets/), never from a CDN.
assets/plotly.min.js: $(VENV)/.installed
	mkdir -p assets
	cp "$$($(BIN)/python -c 'import plotly, pathlib; print(pathlib.Path(plotly.__file__).parent / "package_data" / "plotly.min.js")')" $@

assets/mathjax/tex-chtml.js:
	npm install --silent --no-audit --no-fund --prefix .build/npm mathjax@$(MATHJAX_VERSION)
	rm -rf assets/mathjax
	cp -r .build/npm/node_modules/mathjax/es5 assets/mathjax

clean:
	rm -rf _build .build
