# Inventory plugin nubes.cloud.nubes (issue 18). PY, PYTEST, BIN come from the Makefile.
# `make unit` runs tests/unit/inventory; `make integration` runs tests/integration/inventory (INTEGRATION_PATHS is
# all of tests/integration, so nothing is added here: adding the path again would run the tests twice). They start
# an emulator of their own (127.0.0.1, free port) and run the real ansible-inventory / ansible against it.
MYPY_PATHS += tests/integration/inventory tests/unit/inventory bench/inventory_bench.py

INVENTORY_PY := plugins/inventory/nubes.py plugins/module_utils/inventory tests/unit/inventory tests/integration/inventory bench/inventory_bench.py

.PHONY: inventory-unit inventory-integration inventory-lint inventory-doc bench-inventory

inventory-unit: venv ## inventory plugin: unit tests (catalogue, host names, reading rules against a real-shaped stub)
	$(PYTEST) -q tests/unit/inventory

inventory-integration: venv ## inventory plugin: real ansible-inventory --list/--graph against a seeded emulator
	$(PYTEST) -q tests/integration/inventory

inventory-lint: venv ## inventory plugin: ruff, mypy, ansible-lint on the examples and the AWX source
	$(BIN)/ruff check $(INVENTORY_PY)
	$(BIN)/ruff format --check $(INVENTORY_PY)
	$(BIN)/mypy plugins/module_utils/inventory tests/unit/inventory tests/integration/inventory bench/inventory_bench.py
	$(BIN)/ansible-lint examples/inventory examples/inventory-report.yml examples/inventory-postgres-info.yml docs/awx

inventory-doc: venv ## inventory plugin: render its documentation with ansible-doc
	$(BIN)/ansible-doc -t inventory nubes.cloud.nubes

bench-inventory: venv ## ansible-inventory --list over 1,000 instances (bench/inventory_bench.py)
	$(PY) bench/run.py --area inventory
