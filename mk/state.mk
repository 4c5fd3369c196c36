# State backends and locking (Kubernetes Secrets + Leases, file locks; issue 9, P42). PY, PYTEST, BIN come from the Makefile.
# `make unit` runs tests/unit/nubes/test_kubernetes_backend.py; `make integration` runs tests/integration/state
# (the cluster pass runs the tests marked `cluster`; the file-backend tests need only the emulator).
MYPY_PATHS += tests/integration/state

.PHONY: state-unit state-integration state-lint

state-unit: ## state backends: unit tests (in-memory API with resourceVersion semantics, lock logic)
	$(PYTEST) -q tests/unit/nubes/test_kubernetes_backend.py tests/unit/nubes/test_state_migration.py

state-integration: ## state backends: concurrent playbooks, SIGKILLed lock holder, RBAC, migration (cluster + emulator)
	$(PYTEST) -q tests/integration/state

state-lint: ## ruff + mypy on the state backends, the migration module and their tests
	$(BIN)/ruff check plugins/module_utils/nubes/kubernetes_backend.py plugins/module_utils/nubes/lease_*.py plugins/module_utils/nubes/state_migration.py plugins/modules/state_migrate.py tests/unit/nubes/test_kubernetes_backend.py tests/unit/nubes/test_state_migration.py tests/integration/state
	$(BIN)/ruff format --check plugins/module_utils/nubes/kubernetes_backend.py plugins/module_utils/nubes/lease_*.py plugins/module_utils/nubes/state_migration.py plugins/modules/state_migrate.py tests/unit/nubes/test_kubernetes_backend.py tests/unit/nubes/test_state_migration.py tests/integration/state
	$(BIN)/mypy plugins/module_utils/nubes plugins/modules/state_migrate.py tests/unit/nubes/test_kubernetes_backend.py tests/unit/nubes/test_state_migration.py tests/integration/state
