# nubes.cloud: every developer and CI command. `make help` lists them.
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)
export ANSIBLE_COLLECTIONS_PATH := $(CURDIR)/.collections
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
PYTEST := $(PY) -m pytest

.PHONY: help venv demo test lint sanity unit integration bench docs clean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-14s %s\n", $$1, $$2}'

venv: $(VENV)/.requirements.sha256 ## create .venv and install the pinned toolchain
$(VENV)/.requirements.sha256: requirements.txt requirements-dev.txt scripts/bootstrap-venv.sh
	@bash scripts/bootstrap-venv.sh

include $(sort $(wildcard mk/*.mk))
