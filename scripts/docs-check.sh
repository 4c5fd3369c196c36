#!/usr/bin/env bash
# Check the user documentation: every nubes.cloud module, inventory plugin and role renders with ansible-doc, and the
# changelog fragments are valid. Run through `make docs` (which sets ANSIBLE_COLLECTIONS_PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.venv/bin}
export ANSIBLE_COLLECTIONS_PATH=${ANSIBLE_COLLECTIONS_PATH:-$PWD/.collections}
modules=$("$BIN/ansible-doc" -t module -l nubes.cloud -j | "$BIN/python" -c 'import json,sys; print("\n".join(sorted(json.load(sys.stdin))))')
count=0
for m in $modules; do
  "$BIN/ansible-doc" -t module "$m" >/dev/null || { echo "docs: ansible-doc cannot render $m" >&2; exit 1; }
  count=$((count + 1))
done
echo "docs: $count module page(s) render with ansible-doc"
inventories=$("$BIN/ansible-doc" -t inventory -l nubes.cloud -j | "$BIN/python" -c 'import json,sys; print("\n".join(sorted(json.load(sys.stdin))))')
for i in $inventories; do
  "$BIN/ansible-doc" -t inventory "$i" >/dev/null || { echo "docs: ansible-doc cannot render inventory plugin $i" >&2; exit 1; }
done
echo "docs: $(printf '%s' "$inventories" | grep -c . || true) inventory plugin page(s) render with ansible-doc"
roles=$("$BIN/ansible-doc" -t role -l nubes.cloud -j | "$BIN/python" -c 'import json,sys; print("\n".join(sorted(json.load(sys.stdin))))')
for r in $roles; do
  "$BIN/ansible-doc" -t role "$r" >/dev/null || { echo "docs: ansible-doc cannot render role $r" >&2; exit 1; }
done
echo "docs: $(printf '%s' "$roles" | grep -c . || true) role(s) render with ansible-doc"
"$BIN/antsibull-changelog" lint
echo "docs: changelog fragments are valid"
