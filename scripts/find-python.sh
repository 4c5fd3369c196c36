#!/usr/bin/env bash
# find-python.sh <version>...: print the first working interpreter among the given Python versions (tried in
# order), e.g. `find-python.sh 3.14 3.13 3.12`; exit 1 when none works. Candidates per version: the command on
# PATH (pyenv shims may exist without a usable version), then pyenv's own installs, then /usr/local and /usr.
set -uo pipefail
for v in "$@"; do
  for c in "python$v" "${PYENV_ROOT:-$HOME/.pyenv}"/versions/"$v"*/bin/"python$v" /usr/local/bin/"python$v" /usr/bin/"python$v"; do
    if command -v "$c" >/dev/null 2>&1 && "$c" -c 'import sys' >/dev/null 2>&1; then
      command -v "$c"
      exit 0
    fi
  done
done
exit 1
