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
