#!/usr/bin/env bash
# Run a command with the local Kubernetes control plane up: `make cluster-build`, `make cluster-up`
# (its last KUBECONFIG=<path> line is exported with NUBES_TEST_EXTERNAL_CLUSTER=1 so the pytest
# `kubeconfig` fixture uses it), the command, then `make cluster-down` whatever the command's result.
set -euo pipefail
make_cmd=${MAKE:-make}
here=$(dirname "${BASH_SOURCE[0]}")
start=$(date +%s)
$make_cmd --no-print-directory cluster-build
bash "$here/timing-record.sh" step cluster-build $(($(date +%s) - start)) passed
trap '$make_cmd --no-print-directory cluster-down' EXIT
up_log=$(mktemp)
start=$(date +%s)
$make_cmd --no-print-directory cluster-up | tee "$up_log"
bash "$here/timing-record.sh" step cluster-up $(($(date +%s) - start)) passed
kubeconfig=$(grep -E '^KUBECONFIG=' "$up_log" | tail -n 1 | cut -d= -f2- || true)
rm -f "$up_log"
if [ -n "$kubeconfig" ]; then
  export KUBECONFIG="$kubeconfig" NUBES_TEST_EXTERNAL_CLUSTER=1
  echo "with-cluster: KUBECONFIG=$KUBECONFIG"
else
  echo "with-cluster: cluster-up printed no KUBECONFIG= line; tests start their own cluster" >&2
fi
"$@"
