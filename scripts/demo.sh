#!/usr/bin/env bash
# `make demo`: start the deck-api emulator on 127.0.0.1, run examples/demo.yml against it (the full lifecycle:
# create, re-apply, redeploy, delete everything for good), stop it. Everything the demo writes lives in a temp
# dir removed at the end.
#   DEMO_ENDPOINT=<url> DEMO_TOKEN=<token> make demo   runs it against an API that is already running instead,
#       e.g. one started with `make emulator` (which prints both); the demo deletes what it creates, so it can run
#       again and again against the same endpoint.
#   DEMO_COMPONENT=no   skips the component part (applied on the local Kubernetes control plane when it is built).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
export ANSIBLE_CONFIG=${ANSIBLE_CONFIG:-$PWD/ansible.cfg}
export ANSIBLE_COLLECTIONS_PATH=${ANSIBLE_COLLECTIONS_PATH:-$PWD/.collections}
export ANSIBLE_LOCALHOST_WARNING=false ANSIBLE_INVENTORY_UNPARSED_WARNING=false

work=$(mktemp -d)
emulator_pid=""
started_cluster=""
cleanup() {
  if [ -n "$started_cluster" ]; then
    tests/cluster/down >/dev/null 2>&1 || true
    echo "demo: local control plane stopped"
  fi
  if [ -n "$emulator_pid" ] && kill -0 "$emulator_pid" 2>/dev/null; then
    kill "$emulator_pid"
    wait "$emulator_pid" 2>/dev/null || true
    echo "demo: emulator stopped"
  fi
  rm -rf "$work"
}
trap cleanup EXIT

if [ -n "${DEMO_ENDPOINT:-}" ]; then
  [ -n "${DEMO_TOKEN:-}" ] || { echo "demo: DEMO_ENDPOINT needs DEMO_TOKEN (the API token)" >&2; exit 2; }
  NUBES_API_ENDPOINT=$DEMO_ENDPOINT
  NUBES_API_TOKEN=$DEMO_TOKEN
  echo "demo: using the API at $NUBES_API_ENDPOINT"
else
  "$BIN/python" scripts/demo_emulator.py "$work/emulator.json" &
  emulator_pid=$!
  for _ in $(seq 1 300); do
    [ -f "$work/emulator.json" ] && break
    kill -0 "$emulator_pid" 2>/dev/null || { echo "demo: the emulator exited before it was ready" >&2; exit 1; }
    sleep 0.1
  done
  [ -f "$work/emulator.json" ] || { echo "demo: the emulator did not start within 30 s" >&2; exit 1; }
  read_field() { "$BIN/python" -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$work/emulator.json" "$1"; }
  NUBES_API_ENDPOINT=$(read_field endpoint)
  NUBES_API_TOKEN=$(read_field token)
  echo "demo: emulator listening at $NUBES_API_ENDPOINT (pid $emulator_pid)"
fi
export NUBES_API_ENDPOINT NUBES_API_TOKEN
# The demo's own identity records (state store) and workspace, thrown away with the temp dir.
export NUBES_STATE_PATH="$work/state.json" NUBES_WORKSPACE=demo

echo "demo: ansible-playbook examples/demo.yml"
"$BIN/ansible-playbook" examples/demo.yml
echo "demo: examples/demo.yml finished"

# The component part runs on the local Kubernetes control plane when its binaries are built.
if [ "${DEMO_COMPONENT:-yes}" = "no" ]; then
  echo "demo: component part skipped (DEMO_COMPONENT=no)"
elif [ -x "$(tests/cluster/build --bin-dir)/kube-apiserver" ]; then
  tests/cluster/status >/dev/null 2>&1 || started_cluster=1
  kubeconfig=$(tests/cluster/up | tail -n 1)
  echo "demo: local control plane ready ($kubeconfig)"
  echo "demo: ansible-playbook examples/component/demo.yml"
  KUBECONFIG=${kubeconfig#KUBECONFIG=} "$BIN/ansible-playbook" examples/component/demo.yml
  echo "demo: examples/component/demo.yml finished"
else
  echo "demo: component part skipped: the local Kubernetes control plane is not built yet."
  echo "demo: run 'make cluster-build' once (about 9 minutes, cached in ~/.cache/nubes-cloud), then 'make demo' again."
fi
