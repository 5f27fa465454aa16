# mmtcp: build, test and benchmark entry points.
#
#   make demo    set up, then run scenarios/demo.toml into out/demo (plots in out/demo/plots/)
#   make test    set up, lint, then the Rust tests and the Python tests (on every core, with
#                pytest-xdist); prints how long it took, set-up included
#   make lint    rustfmt, clippy and ruff checks
#   make bench   set up, then time the scenarios of scenarios/bench and the event engine
#   make setup   only the set-up: .venv/, pinned requirements, the package built in release mode
#   make clean   remove .venv/, out/ and the compiled module
#
# Set-up is incremental: .venv/ is created once, requirements.txt is installed again only when
# it changes, and the package is rebuilt (maturin develop --release, an editable install whose
# compiled module lands in python/mmtcp/) only when a Rust source, Cargo file or pyproject.toml
# changes. Python sources need no rebuild.

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := demo
.DELETE_ON_ERROR:

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

# Every cargo invocation sees the same interpreter, so PyO3's build script is not rerun (and
# PyO3 rebuilt) when switching between maturin and clippy.
export PYO3_PYTHON := $(CURDIR)/$(BIN)/python

# When this make started: `make test` prints its time from here, set-up and lint included.
STARTED := $(shell date +%s)

REQUIREMENTS_STAMP := $(VENV)/.requirements.stamp
PACKAGE_STAMP := $(VENV)/.package.stamp
RUST_INPUTS := Cargo.toml Cargo.lock $(shell find crates -name '*.rs' -o -name Cargo.toml)

.PHONY: demo test lint bench setup clean

demo: setup
	$(BIN)/mmtcp run scenarios/demo.toml --out out/demo

# The Rust tests' build (dev profile, target/debug) needs no virtualenv: it runs beside the
# set-up's release build (target/release), whose last step, the package crate with one codegen
# unit and LTO, leaves a core idle. Its output is shown if it fails.
TEST_BUILD_LOG := target/test-build.log

test:
	@mkdir -p target
	@cargo test -p mmtcp --no-run > $(TEST_BUILD_LOG) 2>&1 & build=$$!; \
	    status=0; $(MAKE) --no-print-directory lint || status=$$?; \
	    wait $$build || { cat $(TEST_BUILD_LOG); status=1; }; \
	    exit $$status
	cargo test -p mmtcp
	$(BIN)/pytest -q -rs -n auto
	@elapsed=$$(( $$(date +%s) - $(STARTED) )); \
	    echo "make test: $$(( elapsed / 60 )) min $$(( elapsed % 60 )) s"

lint: setup
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	$(BIN)/ruff check python experiments
	$(BIN)/ruff format --check python experiments

bench: setup
	$(BIN)/mmtcp bench

setup: $(PACKAGE_STAMP)

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(REQUIREMENTS_STAMP): requirements.txt | $(BIN)/python
	$(BIN)/python -m pip install --quiet --requirement requirements.txt
	touch $@

$(PACKAGE_STAMP): $(REQUIREMENTS_STAMP) pyproject.toml $(RUST_INPUTS)
	VIRTUAL_ENV=$(CURDIR)/$(VENV) $(BIN)/maturin develop --release
	touch $@

clean:
	rm -rf $(VENV) out python/mmtcp/_core.*.so
