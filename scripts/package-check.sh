#!/usr/bin/env bash
# Build the collection tarball, check that it holds what users need and none of the development
# files, install it into a temporary collections path and list its modules and inventory plugins from there (P5: the
# published artifact; `make dist` also builds the docs site).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$BIN/ansible-galaxy" collection build --force --output-path "$work/dist" . >/dev/null
tarball=$(ls "$work"/dist/nubes-cloud-*.tar.gz)
tar -tzf "$tarball" | sed 's|^\./||; s|/$||' | sort > "$work/contents"
echo "package: built $(basename "$tarball") ($(wc -l < "$work/contents") entries, $(du -k "$tarball" | cut -f1) KiB)"

fail=0
# Development, test and generator inputs must stay out of the tarball (galaxy.yml build_ignore).
for dev in tests bench generator specs config scripts mk .ci .venv .collections .cache docs/dev \
           Makefile pyproject.toml conftest.py requirements-dev.txt ansible.cfg .ansible-lint .gitignore; do
  if grep -qE "^${dev//./\\.}(/|$)" "$work/contents"; then
    echo "package: development path '$dev' is in the tarball; add it to build_ignore in galaxy.yml" >&2
    fail=1
  fi
done
if grep -qE '(^|/)__pycache__(/|$)|\.pyc$' "$work/contents"; then
  echo "package: compiled Python files are in the tarball" >&2
  fail=1
fi
for needed in MANIFEST.json FILES.json README.md COPYING LICENSE meta/runtime.yml meta/execution-environment.yml \
              requirements.txt bindep.txt changelogs/config.yaml; do
  if ! grep -qxF "$needed" "$work/contents"; then
    echo "package: '$needed' is missing from the tarball" >&2
    fail=1
  fi
done
[ "$fail" -eq 0 ] || exit 1

# Install as a user would: into a path of its own, seen without this checkout's .collections.
ANSIBLE_COLLECTIONS_PATH="$work/installed" \
  "$BIN/ansible-galaxy" collection install --offline --force -p "$work/installed" "$tarball" >/dev/null
installed="$work/installed/ansible_collections/nubes/cloud"
[ -f "$installed/MANIFEST.json" ] || { echo "package: install did not create $installed" >&2; exit 1; }
# What ansible-doc lists of one plugin type from the installed tarball must be what the repository has.
listed() {
  ANSIBLE_COLLECTIONS_PATH="$work/installed" ANSIBLE_COLLECTIONS_SCAN_SYS_PATH=false \
    "$BIN/ansible-doc" -t "$1" -l nubes.cloud -j | "$BIN/python" -c 'import json,sys; print(len(json.load(sys.stdin)))'
}
declare -A counts
for kind in module:modules inventory:inventory; do
  expected=$(find "plugins/${kind#*:}" -maxdepth 1 -name '*.py' ! -name '__init__.py' 2>/dev/null | wc -l)
  found=$(listed "${kind%%:*}")
  if [ "$found" -ne "$expected" ]; then
    echo "package: the installed collection lists $found ${kind%%:*} plugins, the repository has $expected" >&2
    exit 1
  fi
  counts[${kind%%:*}]=$found
done
echo "package: installed into a temporary path; ansible-doc lists ${counts[module]} module(s) and ${counts[inventory]} inventory plugin(s) from it"
