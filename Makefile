# The two entry points (see README.md):
#   make book [PROFILE=paper|smoke]  run every chapter with papermill (outputs saved into notebooks/), build the book
#   make test                        unit tests, every chapter run with the smoke profile into a temporary directory,
#                                    the book built from those with warnings as errors, and a headless-browser check
# and around them:
#   make rerun CHAPTER=04 [PROFILE=..] ARGS="-p NAME VALUE -y 'NAME: [..]'"
#                                    rerun one chapter with new parameters, then every later chapter (from their
#                                    caches), and rebuild the book
#   make lab                         JupyterLab on the chapters (notebooks/) with the project's kernel `regemb`
#   make explore [PROFILE=..]        the explorer (notebooks/explorer.ipynb) as a web page served by Voila, on the
#                                    artifacts of the chapters run with PROFILE (run them first)
#   make lock [UPGRADE=1]            regenerate requirements.lock from pyproject.toml (uv); UPGRADE=1 moves every pin
#                                    to the newest allowed version, otherwise existing pins are kept where they fit
PROFILE ?= paper
VENV ?= .venv
PYTHON ?= python3
BIN := $(VENV)/bin
MATHJAX_VERSION := 3.2.2
# plotly.js as the plotly pip package ships it (`make setup` checks that they agree), bundled by esbuild
PLOTLY_JS_VERSION := 3.7.0
ESBUILD_VERSION := 0.25.10
# The environment is pinned: `make setup` installs requirements.lock (every package of pyproject.toml with the `book`
# and `test` extras, resolved for CPython 3.11 on x86-64 Linux against PyPI), then the project itself without deps.
LOCK := requirements.lock
LOCK_PYTHON := 3.11
LOCK_PLATFORM := x86_64-unknown-linux-gnu
INDEX_URL ?= https://pypi.org/simple
UV_VERSION := 0.13.9
PIP_VERSION := 26.3
KERNEL := regemb
LAB_ARGS ?=
EXPLORE_ARGS ?=

.PHONY: book rerun test setup lock lab explore clean
book: setup
	$(BIN)/python scripts/run_chapters.py --profile $(PROFILE) --output notebooks
	$(BIN)/jupyter-book build --warningiserror --keep-going .

rerun: setup
	@test -n "$(CHAPTER)" || { echo "usage: make rerun CHAPTER=04 ARGS=\"-p datasets '[\\\"bbcsport\\\"]'\""; exit 2; }
	$(BIN)/python scripts/run_chapters.py --profile $(PROFILE) --output notebooks --from $(CHAPTER) $(ARGS)
	$(BIN)/jupyter-book build --warningiserror --keep-going .

# On every core (pytest-xdist); a worker takes the next test when it finishes one (one test queued ahead), so the long
# end-to-end tests, which come first, start at once on different cores and the unit tests fill in around them.
test: setup
	$(BIN)/python -m pytest -n auto --dist load --maxschedchunk 1

setup: $(VENV)/.installed assets/plotly.min.js assets/mathjax/.node

$(VENV)/.installed: $(LOCK) pyproject.toml scripts/system-packages.sh Makefile
	bash scripts/system-packages.sh
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q pip==$(PIP_VERSION)
	$(BIN)/python -m pip install -q -r $(LOCK)
	$(BIN)/python -m pip install -q --no-deps -e .
	$(BIN)/python -m pip check
	$(BIN)/python -m ipykernel install --sys-prefix --name $(KERNEL) --display-name "regemb (.venv)"
	touch $@

# The lock tool lives in the project's venv (pinned here), never installed by hand. uv reads no pip configuration:
# the lock records only PyPI's package versions, never a local index, find-links path or URL.
lock:
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q uv==$(UV_VERSION)
	$(BIN)/uv pip compile pyproject.toml --extra book --extra test --python-version $(LOCK_PYTHON) \
		--python-platform $(LOCK_PLATFORM) --default-index $(INDEX_URL) --custom-compile-command 'make lock' \
		$(if $(UPGRADE),--upgrade) --quiet --output-file $(LOCK)

# JupyterLab on the chapters; a chapter opens in the `regemb` kernel (this venv). On a server:
# make lab LAB_ARGS='--no-browser --port 8888'. As root (containers) JupyterLab needs --allow-root.
lab: setup
	$(BIN)/jupyter-lab --ServerApp.root_dir=notebooks --MultiKernelManager.default_kernel_name=$(KERNEL) $(if $(filter 0,$(shell id -u)),--allow-root) $(LAB_ARGS)

# The explorer as a standalone web page (Voila, opened in the browser; on a server: EXPLORE_ARGS='--no-browser
# --port 8866'). Its template (voila/templates/regemb) is Voila's lab template without the stylesheets that one links
# from a CDN: the page loads everything from the local server.
explore: setup
	REGEMB_PROFILE=$(PROFILE) JUPYTER_PATH=$(CURDIR) $(BIN)/voila notebooks/explorer.ipynb --template=regemb $(EXPLORE_ARGS)

# The book renders offline: plotly.js is served from its own static files (assets/), never from a CDN; the formulas
# are SVG in the pages. plotly.js is a partial bundle of the trace types the book draws (_ext/plotly_bundle.js: 1.7 MB
# where the full one is 4.9 MB), built from the npm package plotly.js, the version the plotly pip package ships (its
# map traces' style sheet, which the bundle never uses, is left out).
assets/plotly.min.js: $(VENV)/.installed _ext/plotly_bundle.js Makefile
	test "$$($(BIN)/python -c 'from plotly.offline import get_plotlyjs_version; print(get_plotlyjs_version())')" = \
		"$(PLOTLY_JS_VERSION)" || { echo "PLOTLY_JS_VERSION must be the plotly pip package's plotly.js"; exit 1; }
	npm install --silent --no-audit --no-fund --prefix .build/plotly plotly.js@$(PLOTLY_JS_VERSION) \
		esbuild@$(ESBUILD_VERSION)
	mkdir -p assets
	cp _ext/plotly_bundle.js .build/plotly/entry.js
	.build/plotly/node_modules/.bin/esbuild .build/plotly/entry.js --bundle --minify --format=iife \
		--global-name=Plotly --target=es2016 --define:global=window --define:define.amd=false \
		--alias:stream=stream-browserify --loader:.css=empty --log-level=warning --outfile=$@

# The book's formulas are typeset once, at build time, by MathJax 3 under node (_ext/static_math.py); no page loads
# MathJax. Of its 24 MB es5/ folder only what that needs: the node entry point, the TeX input with the extensions it
# autoloads (\boldsymbol, \color, ...) and the SVG output with its font data. The pages never fetch these files.
MATHJAX_NODE := assets/mathjax/node/es5
assets/mathjax/.node:
	npm install --silent --no-audit --no-fund --prefix .build/npm mathjax@$(MATHJAX_VERSION)
	rm -rf assets/mathjax
	mkdir -p $(MATHJAX_NODE)/input $(MATHJAX_NODE)/output
	cp .build/npm/node_modules/mathjax/es5/node-main.js $(MATHJAX_NODE)/
	cp -r .build/npm/node_modules/mathjax/es5/input/tex.js .build/npm/node_modules/mathjax/es5/input/tex $(MATHJAX_NODE)/input/
	cp -r .build/npm/node_modules/mathjax/es5/output/svg.js .build/npm/node_modules/mathjax/es5/output/svg $(MATHJAX_NODE)/output/
	touch $@

clean:
	rm -rf _build .build
