#!/usr/bin/env bash
# Build the collection tarball, check that it holds what users need and none of the development
# files, that its docs link only to files it contains, install it into a temporary collections path and list its
# modules and inventory plugins from there, and build the README's execution-environment context from it
# (ansible-builder create). P5: the published artifact; `make dist` also builds the docs site (`make docs-site`,
# checked by tests/docsite).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=$(cd "${BIN:-.venv/bin}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$BIN/ansible-galaxy" collection build --force --output-path "$work/dist" . >/dev/null
tarball=$(ls "$work"/dist/nubes-cloud-*.tar.gz)
tar -tzf "$tarball" | sed 's|^\./||; s|/$||' | sort > "$work/contents"
echo "package: built $(basename "$tarball") ($(wc -l < "$work/contents") entries, $(du -k "$tarball" | cut -f1) KiB)"

fail=0
# Development, test and generator inputs must stay out of the tarball (galaxy.yml build_ignore).
for dev in tests bench generator specs config scripts mk .ci .venv .collections .cache docs/dev docsite \
           Makefile pyproject.toml conftest.py requirements-dev.txt requirements-docs.txt ansible.cfg .ansible-lint \
           .gitignore; do
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
# Docs in the tarball link only to files the tarball contains (dev-only pages are linked by URL).
mkdir "$work/unpacked"
tar -xzf "$tarball" -C "$work/unpacked"
if ! dangling=$("$BIN/python" scripts/check_doc_links.py "$work/unpacked"); then
  echo "package: docs in the tarball link to files it does not contain (ship them, or link them by URL):" >&2
  echo "$dangling" >&2
  fail=1
fi
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

# The execution environment of the README (examples/execution-environment/) builds from this tarball:
# `ansible-builder create` makes its context, the context's galaxy step installs the collection from it (run here as
# the image build would, offline), and the collection asks the image for no system packages (bindep.txt holds
# runtime needs only; the tests' tools are in tests/bindep.txt).
ee_example=examples/execution-environment/execution-environment.yml
tarball_name=$(basename "$tarball")
if ! grep -qF "$tarball_name" "$ee_example"; then
  echo "package: $ee_example does not name the tarball $tarball_name (galaxy.yml version): update it and README.md" >&2
  exit 1
fi
"$BIN/python" - "$ee_example" README.md <<'PY' || exit 1
import sys
example, readme = (open(path, encoding="utf-8").read() for path in sys.argv[1:3])
body = "".join(line for line in example.splitlines(keepends=True) if not line.startswith("#"))
if body not in readme:
    sys.exit(f"package: README.md does not show {sys.argv[1]} (without its comments) verbatim: copy it into the README")
PY
mkdir "$work/ee"
cp "$ee_example" "$tarball" "$work/ee/"
"$BIN/ansible-builder" create -f "$work/ee/execution-environment.yml" -c "$work/ee/context" >/dev/null
(cd "$work/ee/context/_build" &&
  ANSIBLE_GALAXY_DISABLE_GPG_VERIFY=1 ANSIBLE_COLLECTIONS_PATH="$work/ee/collections" \
    "$BIN/ansible-galaxy" collection install --offline -r requirements.yml \
    --collections-path "$work/ee/collections" >/dev/null)
[ -f "$work/ee/collections/ansible_collections/nubes/cloud/MANIFEST.json" ] ||
  { echo "package: the execution environment's galaxy step did not install nubes.cloud" >&2; exit 1; }
"$BIN/python" "$work/ee/context/_build/scripts/introspect.py" introspect "$work/ee/collections" >"$work/ee/deps.yml"
"$BIN/python" - "$work/ee/deps.yml" <<'PY' || exit 1
import sys

import yaml

deps = yaml.safe_load(open(sys.argv[1], encoding="utf-8")) or {}
system, python = deps.get("system") or [], deps.get("python") or []
if system:
    sys.exit(f"package: the execution environment would install system packages {system}: bindep.txt lists runtime needs only")
if not any(line.startswith("httpx") for line in python):
    sys.exit(f"package: the execution environment would miss the Python requirements (got {python})")
print(f"package: execution environment context built; it installs the tarball and {len(python)} Python requirement(s), no system packages")
PY
