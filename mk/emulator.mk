# deck-api emulator (tests/emulator). Variables PY, PYTEST, BIN come from the Makefile.
EMULATOR_ARGS ?=
# integration-opid: what the emulator adds to every svcOperationId (far above every catalogue id)
OPID_OFFSET ?= 100000
# make test runs the module tests once more in that mode (issue 14: no module depends on a spec's operation id)
INTEGRATION_TARGETS += integration-opid

.PHONY: emulator emulator-test emulator-lint emulator-bench integration-opid

emulator: ## run the deck-api emulator on 127.0.0.1 (EMULATOR_ARGS="--faults FILE --seed N --state FILE")
	@$(PY) -m tests.emulator serve $(EMULATOR_ARGS)

emulator-test: ## the emulator's own tests (real HTTP against it)
	$(PYTEST) -q tests/emulator/tests

integration-opid: venv ## the generated-module playbook tests against an emulator serving other svcOperationIds than the specs
	NUBES_EMULATOR_OPERATION_ID_OFFSET=$(OPID_OFFSET) $(PYTEST_RUN) tests/integration/modules $(XDIST) --durations=10

emulator-lint: ## ruff + mypy on the emulator and its bench
	$(BIN)/ruff check tests/emulator bench/emulator_throughput.py
	$(BIN)/ruff format --check tests/emulator bench/emulator_throughput.py
	$(BIN)/mypy tests/emulator bench/emulator_throughput.py

emulator-bench: ## requests per second of the emulator (simple GETs, keep-alive)
	$(PY) bench/emulator_throughput.py
