#!/usr/bin/env bash
# Create .venv with the newest Python among 3.14/3.13/3.12 and install the pinned dev requirements.
# Idempotent: re-installs only when requirements changed (stamp file holds their hash).
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=.venv
if [ ! -x "$VENV/bin/python" ]; then
  PY=$(bash scripts/find-python.sh 3.14 3.13 3.12) || { echo "error: ansible-core 2.20+ needs Python 3.12 or newer; install python3.14, python3.13 or python3.12 and re-run 'make venv'" >&2; exit 1; }
  echo "bootstrap: creating $VENV with $PY ($($PY --version))"
  "$PY" -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
want=$(cat requirements.txt requirements-test.txt requirements-dev.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "bootstrap: installing requirements-dev.txt"
  "$VENV/bin/python" -m pip install -q --upgrade pip
  "$VENV/bin/python" -m pip install -q -r requirements-dev.txt
  echo "$want" > "$stamp"
fi
# Expose the repo (= collection root) as ansible_collections/nubes/cloud for ansible and ansible-test.
mkdir -p .collections/ansible_collections/nubes
ln -sfn ../../.. .collections/ansible_collections/nubes/cloud
