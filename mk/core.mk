# Universal cloud core (plugins/module_utils/nubes, issue 4). Variables PY, PYTEST, BIN come from the Makefile.
# `make unit` runs tests/unit/nubes and `make integration` runs tests/integration/core and tests/integration/lifecycle
# (against the emulator).
MYPY_PATHS += tests/integration/lifecycle

.PHONY: core-unit core-integration core-lifecycle core-lint

core-unit: ## the core's unit tests (stubbed deck-api, no network)
	$(PYTEST) -q tests/unit/nubes

core-integration: ## the core's HTTP-level tests against the emulator (three fault modes, crash test)
	$(PYTEST) -q tests/integration/core

core-lifecycle: ## playbook-level lifecycle cases against the emulator, live state checked after each step; the demo twice
	$(PYTEST) -q tests/integration/lifecycle

core-lint: ## ruff + mypy on the core and its tests
	$(BIN)/ruff check plugins/module_utils/nubes plugins/doc_fragments/common.py tests/unit/nubes tests/integration/core tests/integration/lifecycle
	$(BIN)/ruff format --check plugins/module_utils/nubes plugins/doc_fragments/common.py tests/unit/nubes tests/integration/core tests/integration/lifecycle
	$(BIN)/mypy plugins/module_utils/nubes tests/integration/lifecycle
