#!/usr/bin/env bash
# Install the docs site toolchain (requirements-docs.txt: antsibull-docs, Sphinx, the Ansible theme, myst-parser)
# into the venv that `make venv` made. pip resolves it together with requirements-dev.txt, so that the venv stays
# one consistent set (today the theme needs docutils < 0.23, and pip moves docutils, which only antsibull-changelog
# also uses, to the newest version both accept); a conflict fails here, naming the packages. Idempotent: a stamp
# holds the hash of the requirement files. Run by `make docs-site` (mk/docsite.mk); its wall time is a set-up row
# of the CI timing table when it installs.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${VENV:-.venv}
[ -x "$VENV/bin/python" ] || { echo "docs-toolchain: $VENV/bin/python not found; run 'make venv' first" >&2; exit 1; }
stamp="$VENV/.docs-requirements.sha256"
want=$(cat requirements.txt requirements-test.txt requirements-dev.txt requirements-docs.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" = "$want" ]; then
  exit 0
fi
start=$(date +%s)
echo "docs-toolchain: installing requirements-docs.txt into $VENV"
if ! "$VENV/bin/python" -m pip install -q -r requirements-dev.txt -r requirements-docs.txt; then
  echo "docs-toolchain: requirements-docs.txt cannot be installed beside requirements-dev.txt (see pip's message" \
    "above); change its pins, or requirements-dev.txt, so that both agree" >&2
  bash scripts/timing-record.sh setup "docs toolchain (requirements-docs.txt)" $(($(date +%s) - start)) FAILED
  exit 1
fi
echo "$want" >"$stamp"
bash scripts/timing-record.sh setup "docs toolchain (requirements-docs.txt)" $(($(date +%s) - start)) passed
