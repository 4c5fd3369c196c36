# Local Kubernetes control plane for tests (tests/cluster, issue 6).
# `make test` runs cluster-build and cluster-up before the cluster tests and cluster-down at the end.
.PHONY: cluster-build cluster-up cluster-down cluster-status cluster-test

cluster-build: ## build kube-apiserver, controller-manager, scheduler, etcd, kwok, helm, the OCI registry (cached; needs Go 1.26)
	@tests/cluster/build

cluster-up: ## start the local test cluster (prints KUBECONFIG=...; no-op when running)
	@tests/cluster/up

cluster-down: ## stop the local test cluster
	@tests/cluster/down

cluster-status: ## show the local test cluster's processes and memory
	@tests/cluster/status

cluster-test: cluster-build cluster-up ## smoke-test the local test cluster
	$(PYTEST) -m cluster tests/cluster/tests
