# Component module, action plugin and role (issue 8). Variables PY, PYTEST, BIN come from the Makefile.
# `make unit` runs tests/unit/component; `make integration` runs tests/integration/component (marked cluster).
BENCH_TARGETS += bench-component
# Tests that use the pinned helm (fixture helm_binary, marked `helm` automatically by tests/cluster/helm.py) run in
# `make integration`, after cluster-build has built helm; `make unit` leaves them out.
BUILD_MARKERS += helm
# Tests that use the local OCI registry (fixture oci_registry, marked `registry` by tests/cluster/registry.py; issue 27)
# likewise run after cluster-build has built it.
BUILD_MARKERS += registry
MYPY_PATHS += plugins/plugin_utils

.PHONY: component-unit component-integration component-molecule component-lint component-demo bench-component

component-unit: ## component module: unit tests (render, record, diff masking; no cluster)
	$(PYTEST) -q tests/unit/component

component-integration: ## component module: playbook-level tests against the local cluster (starts it if needed)
	$(PYTEST) -q -m cluster tests/integration/component

component-molecule: ## role nubes.cloud.component: molecule scenario against the local cluster (pinned helm on the PATH)
	@export $$(tests/cluster/up | tail -n 1) && export PATH="$$(dirname "$$(tests/cluster/build --helm | tail -n 1)"):$$PATH" && \
	  $(BIN)/molecule test -s component

component-lint: ## ruff + mypy on the component code, tests and bench
	$(BIN)/ruff check plugins/module_utils/component plugins/plugin_utils plugins/modules/component.py plugins/action/component.py tests/unit/component tests/integration/component bench/component_bench.py
	$(BIN)/ruff format --check plugins/module_utils/component plugins/plugin_utils plugins/modules/component.py plugins/action/component.py tests/unit/component tests/integration/component bench/component_bench.py
	$(BIN)/mypy plugins/module_utils/component plugins/plugin_utils

component-demo: ## apply, re-apply, scale and delete the example component on the local cluster
	@export $$(tests/cluster/up | tail -n 1) && $(BIN)/ansible-playbook examples/component/demo.yml

bench-component: ## 300-object component vs kubectl apply --server-side vs kubernetes.core.k8s (writes docs/benchmarks.md)
	$(PY) bench/component_bench.py --write-docs
