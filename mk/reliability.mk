# Reliability and security suite (tests/reliability, issue 11; docs/reliability.md). PY, PYTEST, BIN come from the
# Makefile. The cloud part (emulator + ansible-playbook) runs in `make integration`, not `make unit`; the component
# part needing the cluster is marked `cluster` and runs in the cluster pass of `make integration`; the template
# sandbox tests (no cluster) run in `make unit`.
UNIT_IGNORE += tests/reliability/cloud
INTEGRATION_PATHS += tests/reliability/cloud
MYPY_PATHS += tests/reliability

.PHONY: reliability reliability-cloud reliability-component

reliability-cloud: ## reliability: fault matrix, crash points, API restart, hostile input, secrets, TLS (emulator)
	$(PYTEST) -q tests/reliability/cloud

reliability-component: ## reliability: component kills, apiserver restart, 409s, RBAC, template sandbox (cluster)
	$(PYTEST) -q tests/reliability/component

reliability: reliability-cloud reliability-component ## the whole reliability and security suite
