#!/usr/bin/env bash
# Bench-only tools, kept out of the project venv (none of them is needed by `make test`):
# - .cache/bench-venv: matplotlib (the charts of docs/benchmarks.md), pinned below;
# - .cache/bench-collections: the kubernetes.core collection (the `kubernetes.core.k8s` reference of the
#   component benchmark), taken from the `ansible` community package on PyPI (pip download, no install).
# Idempotent: does nothing when both are there.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
MATPLOTLIB_VERSION="3.11.2"
ANSIBLE_PACKAGE_VERSION="14.5.0"
VENV="$ROOT/.cache/bench-venv"
COLLECTIONS="$ROOT/.cache/bench-collections"

if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c "import matplotlib" 2>/dev/null; then
  echo "bench/setup.sh: creating $VENV (matplotlib $MATPLOTLIB_VERSION)"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet "matplotlib==$MATPLOTLIB_VERSION"
fi

if [ ! -f "$COLLECTIONS/ansible_collections/kubernetes/core/MANIFEST.json" ]; then
  echo "bench/setup.sh: extracting kubernetes.core from ansible==$ANSIBLE_PACKAGE_VERSION into $COLLECTIONS"
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  "$ROOT/.venv/bin/pip" download --quiet --no-deps --only-binary=:all: -d "$tmp" "ansible==$ANSIBLE_PACKAGE_VERSION"
  mkdir -p "$COLLECTIONS"
  "$VENV/bin/python" - "$tmp" "$COLLECTIONS" <<'PY'
import pathlib, sys, zipfile
src, dest = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
wheel = next(src.glob("ansible-*.whl"))
prefix = "ansible_collections/kubernetes/core/"
with zipfile.ZipFile(wheel) as zf:
    for name in zf.namelist():
        if name.startswith(prefix):
            zf.extract(name, dest)
print(f"extracted {prefix} from {wheel.name}")
PY
fi

# The runtime-only venv of the cloud rows (issue 19): what an execution environment holds, i.e. the collection's
# runtime requirements.txt and the same ansible-core as .venv, nothing else (no dev tools: httpx finds no
# rich/click/pygments there). Rebuilt when requirements.txt or the ansible-core version changes.
RUNTIME_VENV="$ROOT/.cache/bench-runtime-venv"
ANSIBLE_CORE_VERSION="$("$ROOT/.venv/bin/python" -c 'from importlib.metadata import version; print(version("ansible-core"))')"
RUNTIME_STAMP="$(cat "$ROOT/requirements.txt"; echo "ansible-core==$ANSIBLE_CORE_VERSION")"
if [ ! -x "$RUNTIME_VENV/bin/ansible-playbook" ] || [ "$(cat "$RUNTIME_VENV/.stamp" 2>/dev/null)" != "$RUNTIME_STAMP" ]; then
  echo "bench/setup.sh: creating $RUNTIME_VENV (requirements.txt + ansible-core==$ANSIBLE_CORE_VERSION)"
  rm -rf "$RUNTIME_VENV"
  "$("$ROOT/.venv/bin/python" -c 'import sys; print(sys._base_executable)')" -m venv "$RUNTIME_VENV"
  "$RUNTIME_VENV/bin/pip" install --quiet -r "$ROOT/requirements.txt" "ansible-core==$ANSIBLE_CORE_VERSION"
  printf '%s' "$RUNTIME_STAMP" >"$RUNTIME_VENV/.stamp"
fi
