# nubes.cloud: every developer and CI command. `make help` lists them.
#
# Parts add their own targets in one fragment each, mk/<part>.mk (included below). A fragment
# can also extend these lists with `+=`:
#   UNIT_PATHS         pytest paths run by `make unit`
#   UNIT_IGNORE        paths under UNIT_PATHS that `make unit` skips (integration-level tests)
#   INTEGRATION_PATHS  pytest paths run by `make integration`
#   BUILD_MARKERS      pytest markers of tests outside tests/integration that need what cluster-build makes (the
#                      control plane: cluster; the pinned helm: helm): `make unit` leaves them out, `make integration`
#                      runs them, after cluster-build in `make test`
#   BENCH_PATHS        pytest paths run by `make bench`
#   BENCH_TARGETS      extra make targets run by `make bench`
#   INTEGRATION_TARGETS extra make targets `make test` runs after `make integration`, with the cluster up
#                      (component-molecule is added automatically when a fragment defines it)
#   MYPY_PATHS         directories type-checked by `make lint` (only those holding .py files)
#   CLEAN_PATHS        paths removed by `make clean`
# `make test` also runs, when a fragment defines them: check-drift (generator), and
# cluster-build + cluster-up + integration + cluster-down (cluster; the teardown always runs).
SHELL := /bin/bash
.DEFAULT_GOAL := help
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
export PATH := $(CURDIR)/$(BIN):$(PATH)
export ANSIBLE_COLLECTIONS_PATH := $(CURDIR)/.collections
export ANSIBLE_CONFIG := $(CURDIR)/ansible.cfg
PYTEST := $(PY) -m pytest
# Runs pytest; exit code 5 (nothing collected) passes only when the paths hold no test files.
PYTEST_RUN := PY=$(PY) bash scripts/pytest-run.sh
# pytest-xdist workers of the playbook-level suites (`make integration`, `make integration-opid`): each worker has
# its own emulator (session fixture), all share one local cluster. TEST_WORKERS=0 runs them in one process.
# One more worker than cores: these suites wait on emulator operations and the apiserver for part of their time
# (tests/integration/contract on 2 cores: 2 workers used 1.43 cores, 177 s; 3 workers 1.77 cores, 150 s).
TEST_WORKERS ?= $(shell echo $$(( $$(nproc 2>/dev/null || echo 2) + 1 )))
XDIST := $(if $(filter-out 0 1,$(TEST_WORKERS)),-n $(TEST_WORKERS))

UNIT_PATHS := tests $(wildcard generator/tests)
UNIT_IGNORE := tests/integration
INTEGRATION_PATHS := tests/integration
BUILD_MARKERS := cluster
BENCH_PATHS := bench
BENCH_TARGETS :=
INTEGRATION_TARGETS :=
MYPY_PATHS := generator tests/emulator plugins/module_utils
CLEAN_PATHS := .cache build tests/output .pytest_cache .mypy_cache .ruff_cache .ansible .hypothesis

.PHONY: help venv collection demo test integration-all lint sanity unit integration bench docs build dist package-check clean distclean

help: ## list the targets
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-16s %s\n", $$1, $$2}'

venv: $(VENV)/.requirements.sha256 collection ## create .venv and install the pinned toolchain
$(VENV)/.requirements.sha256: requirements.txt requirements-test.txt requirements-dev.txt scripts/bootstrap-venv.sh
	@bash scripts/bootstrap-venv.sh

collection: .collections/ansible_collections/nubes/cloud ## expose the repo to Ansible as nubes.cloud (.collections symlink)
.collections/ansible_collections/nubes/cloud:
	@mkdir -p .collections/ansible_collections/nubes
	@ln -sfn ../../.. $@

include $(sort $(wildcard mk/*.mk))

empty :=
space := $(empty) $(empty)
BUILD_MARKER_EXPR := $(subst $(space), or ,$(strip $(BUILD_MARKERS)))

# A target is "defined" when some mk/*.mk fragment has a rule for it (checked at parse time, so
# the Makefile works before the fragments exist).
defined = $(shell grep -qsE '^([^:=\#]*[[:space:]])?$(1)([[:space:]][^:=]*)?:([^=]|$$)' $(wildcard mk/*.mk) && echo yes)

demo: venv ## run examples/demo.yml against the embedded emulator on 127.0.0.1 (or DEMO_ENDPOINT + DEMO_TOKEN), then stop it
	@bash scripts/demo.sh

TEST_STEPS := lint sanity unit $(if $(call defined,check-drift),check-drift) $(if $(call defined,docs-site-check),docs-site-check) package-check
INTEGRATION_TARGETS += $(if $(call defined,component-molecule),component-molecule)
INTEGRATION_STEP := $(if $(call defined,cluster-up),MAKE="$(MAKE)" bash scripts/with-cluster.sh )$(MAKE) --no-print-directory integration-all

test: venv ## everything on the newest ansible-core: lint, sanity, unit, drift check, package check, integration + molecule (with the local cluster); CI adds test-matrix
	$(if $(call defined,check-drift),,@echo "test: no check-drift target yet (mk/generator.mk), skipping the drift check")
	@failed=""; \
	for step in $(TEST_STEPS); do \
	  echo "test: === $$step ==="; \
	  start=$$(date +%s); status=passed; \
	  NUBES_TIMINGS_STEP=$$step $(MAKE) --no-print-directory $$step || { failed="$$failed $$step"; status=FAILED; }; \
	  bash scripts/timing-record.sh step "$$step" $$(($$(date +%s) - start)) $$status; \
	done; \
	echo "test: === integration $(strip $(INTEGRATION_TARGETS)) ==="; \
	$(INTEGRATION_STEP) || failed="$$failed integration"; \
	if [ -n "$$failed" ]; then echo "test: FAILED:$$failed"; exit 1; fi; \
	echo "test: all steps passed ($(TEST_STEPS) integration $(strip $(INTEGRATION_TARGETS)))"

# `make integration` and then INTEGRATION_TARGETS, failing at the end if any failed (used by `make test`).
integration-all: venv
	@rc=0; \
	for t in integration $(INTEGRATION_TARGETS); do \
	  [ "$$t" = integration ] || echo "test: === $$t ==="; \
	  start=$$(date +%s); status=passed; \
	  NUBES_TIMINGS_STEP=$$t $(MAKE) --no-print-directory $$t || { rc=1; status=FAILED; }; \
	  bash scripts/timing-record.sh step "$$t" $$(($$(date +%s) - start)) $$status; \
	done; \
	exit $$rc

# examples/demo.yml uses the generated modules; until they exist ansible-lint cannot resolve them.
DEMO_MODULES := postgres postgres_user postgres_database s3 s3_bucket flask
LINT_EXCLUDE := $(if $(filter-out $(wildcard $(DEMO_MODULES:%=plugins/modules/%.py)),$(DEMO_MODULES:%=plugins/modules/%.py)),examples/demo.yml examples/tasks)

lint: venv ## ansible-lint (production profile), ruff check + format check, mypy
	$(if $(LINT_EXCLUDE),@echo "lint: generated demo modules missing; ansible-lint skips $(LINT_EXCLUDE)")
	$(BIN)/ansible-lint $(addprefix --exclude ,$(LINT_EXCLUDE))
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	@dirs=""; for d in $(MYPY_PATHS); do \
	  if [ -n "$$(find $$d -name '*.py' -print -quit 2>/dev/null)" ]; then dirs="$$dirs $$d"; fi; done; \
	if [ -n "$$dirs" ]; then echo "$(BIN)/mypy$$dirs"; $(BIN)/mypy $$dirs; else echo "lint: no python files for mypy yet"; fi

sanity: venv ## ansible-test sanity on the collection (all tests, venv python, zero ignores)
	@bash tests/sanity/run.sh

unit: venv ## unit tests (pytest: tests/ except tests/integration, UNIT_IGNORE and tests marked `cluster` or `helm`)
	@$(PYTEST_RUN) $(UNIT_PATHS) $(addprefix --ignore=,$(UNIT_IGNORE)) -m "not ($(BUILD_MARKER_EXPR))" --durations=10

integration: venv ## integration tests (pytest: tests/integration, and tests marked `cluster` or `helm` anywhere under tests/)
	@rc=0; \
	$(PYTEST_RUN) $(INTEGRATION_PATHS) $(XDIST) --durations=10 || rc=1; \
	$(PYTEST_RUN) $(UNIT_PATHS) $(addprefix --ignore=,$(UNIT_IGNORE)) -m "$(BUILD_MARKER_EXPR)" $(XDIST) --durations=5 || rc=1; \
	exit $$rc

bench: venv ## benchmarks (bench/, results in bench/results/)
	@mkdir -p bench/results
	@$(PYTEST_RUN) $(BENCH_PATHS)
	@for t in $(BENCH_TARGETS); do $(MAKE) --no-print-directory $$t || exit 1; done

docs: venv ## generate the docs (module pages when the generator provides them) and check every module's doc renders
	$(if $(call defined,docs-generate),@$(MAKE) --no-print-directory docs-generate,@echo "docs: no docs-generate target yet (mk/generator.mk)")
	@bash scripts/docs-check.sh

build: venv ## build the collection tarball into build/ (ansible-galaxy collection build)
	@mkdir -p build
	$(BIN)/ansible-galaxy collection build --force --output-path build .

# P5: the published artifacts, each built by one command (scripts/package-check.sh checks the tarball,
# tests/docsite the site)
dist: docs build $(if $(call defined,docs-site),docs-site) ## the published artifacts: build/nubes-cloud-<version>.tar.gz and the HTML docs site build/site/ (`make docs-site`)
	@echo "dist: $$(ls build/nubes-cloud-*.tar.gz) and the docs site build/site/ ($$(find build/site -name '*.html' | wc -l) HTML pages; open build/site/index.html)"

package-check: venv ## build the tarball, check it holds no dev/test files and no dangling doc links, install it and list its modules, build the README execution environment context
	@bash scripts/package-check.sh

clean: ## remove build and test outputs (keeps .venv)
	rm -rf $(CLEAN_PATHS)
	find . -path ./.venv -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean ## clean, and remove .venv and .collections
	rm -rf $(VENV) .collections

