# deck-api emulator (tests/emulator). Variables PY, PYTEST, BIN come from the Makefile.
EMULATOR_ARGS ?=

.PHONY: emulator emulator-test emulator-lint emulator-bench

emulator: ## run the deck-api emulator on 127.0.0.1 (EMULATOR_ARGS="--faults FILE --seed N --state FILE")
	@$(PY) -m tests.emulator serve $(EMULATOR_ARGS)

emulator-test: ## the emulator's own tests (real HTTP against it)
	$(PYTEST) -q tests/emulator/tests

emulator-lint: ## ruff + mypy on the emulator and its bench
	$(BIN)/ruff check tests/emulator bench/emulator_throughput.py
	$(BIN)/ruff format --check tests/emulator bench/emulator_throughput.py
	$(BIN)/mypy tests/emulator bench/emulator_throughput.py

emulator-bench: ## requests per second of the emulator (simple GETs, keep-alive)
	$(PY) bench/emulator_throughput.py
