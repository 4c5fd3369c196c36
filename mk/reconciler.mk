# Reconciler (plugins/module_utils/reconciler, the component engine; issues 7, 17) and the Kubernetes access layer
# (plugins/module_utils/kube). Variables PY, PYTEST, BIN come from the Makefile.
# Unit tests run with `make unit` (tests/unit/reconciler, tests/unit/kube), the cluster tests with `make integration`
# (tests/integration/reconciler).
BENCH_TARGETS += bench-engine
MYPY_PATHS += tests/unit/reconciler tests/unit/kube tests/integration/reconciler

.PHONY: engine-unit engine-integration engine-lint bench-engine

engine-unit: ## reconciler and kube access layer: unit tests (no cluster)
	$(PYTEST) -q tests/unit/reconciler tests/unit/kube

engine-integration: ## reconciler tests against the local cluster (starts it if needed)
	$(PYTEST) -q -m cluster tests/integration/reconciler

engine-lint: ## ruff + mypy on the reconciler, the kube access layer, their tests and the bench
	$(BIN)/ruff check plugins/module_utils/reconciler plugins/module_utils/kube tests/unit/reconciler tests/unit/kube tests/integration/reconciler bench/engine_300.py
	$(BIN)/ruff format --check plugins/module_utils/reconciler plugins/module_utils/kube tests/unit/reconciler tests/unit/kube tests/integration/reconciler bench/engine_300.py
	$(BIN)/mypy plugins/module_utils/reconciler plugins/module_utils/kube tests/unit/reconciler tests/unit/kube tests/integration/reconciler bench/engine_300.py

bench-engine: ## reconciler: API calls and wall time for 300 objects (first apply, no-op, delete)
	$(PY) bench/engine_300.py
