# shellcheck shell=bash
# Sourced by tests/cluster/{up,down,env,status}: runs the Python launcher with the repo's venv
# Python when it exists, else python3 (the launcher uses the standard library only).
_cluster_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
_cluster_python="$_cluster_root/.venv/bin/python"
[[ -x $_cluster_python ]] || _cluster_python=$(command -v python3) ||
    { echo "cluster: error: no python3 on PATH" >&2; exit 1; }
export PYTHONPATH="$_cluster_root${PYTHONPATH:+:$PYTHONPATH}"
exec "$_cluster_python" -m tests.cluster.launcher "$@"
