# Component engine (plugins/module_utils/k8s, issue 7). Variables PY, PYTEST, BIN come from the Makefile.
# Unit tests run with `make unit` (tests/unit/k8s), the cluster tests with `make integration` (tests/integration/k8s).
BENCH_TARGETS += bench-engine
MYPY_PATHS += tests/unit/k8s tests/integration/k8s

.PHONY: engine-unit engine-integration engine-lint bench-engine

engine-unit: ## component engine unit tests (no cluster)
	$(PYTEST) -q tests/unit/k8s

engine-integration: ## component engine tests against the local cluster (starts it if needed)
	$(PYTEST) -q -m cluster tests/integration/k8s

engine-lint: ## ruff + mypy on the component engine, its tests and its bench
	$(BIN)/ruff check plugins/module_utils/k8s tests/unit/k8s tests/integration/k8s bench/engine_300.py
	$(BIN)/ruff format --check plugins/module_utils/k8s tests/unit/k8s tests/integration/k8s bench/engine_300.py
	$(BIN)/mypy plugins/module_utils/k8s tests/unit/k8s tests/integration/k8s bench/engine_300.py

bench-engine: ## component engine: API calls and wall time for 300 objects (first apply, no-op, delete)
	$(PY) bench/engine_300.py
