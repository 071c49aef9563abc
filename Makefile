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

setup: $(VENV)/.installed assets/plotly.min.js assets/mathjax/.trimmed

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

# Of MathJax's 24 MB es5/ folder only what the book loads: the tex-chtml component (TeX in, HTML-CSS out, menu), its
# web fonts and the TeX extensions it autoloads (\boldsymbol, \color, ...). Not shipped: the other components and
# the speech/explorer tools (a11y/, sre/), which the menu's accessibility options would load.
assets/mathjax/.trimmed:
	npm install --silent --no-audit --no-fund --prefix .build/npm mathjax@$(MATHJAX_VERSION)
	rm -rf assets/mathjax
	mkdir -p assets/mathjax/output/chtml/fonts assets/mathjax/input/tex
	cp .build/npm/node_modules/mathjax/es5/tex-chtml.js assets/mathjax/
	cp -r .build/npm/node_modules/mathjax/es5/output/chtml/fonts/woff-v2 assets/mathjax/output/chtml/fonts/
	cp -r .build/npm/node_modules/mathjax/es5/input/tex/extensions assets/mathjax/input/tex/
	touch $@

clean:
	rm -rf _build .build
