#!/usr/bin/env bash
# Run pytest with the given arguments (paths and options) using the venv's Python.
# pytest exits 5 when it collected no tests. That passes only when the given paths hold no test
# files at all (a part that has not written tests yet); collecting nothing from existing test
# files is an error, because it hides broken collection. With a marker expression (-m EXPR), exit 5
# means no collected test matches it, which passes.
set -uo pipefail
PY=${PY:-.venv/bin/python}
paths=()
ignored=()
marker=""
previous=""
for arg in "$@"; do
  if [ "$previous" = "-m" ]; then marker=$arg; previous=""; continue; fi
  case "$arg" in
    --ignore=*) ignored+=("${arg#--ignore=}") ;;
    -m) previous=-m ;;
    -*) ;;
    *) if [ -e "$arg" ]; then paths+=("$arg"); fi ;;
  esac
done
if [ ${#paths[@]} -eq 0 ]; then
  echo "pytest: none of the paths exist ($*): no tests to run"
  exit 0
fi
echo "pytest: ${paths[*]}"
rc=0
"$PY" -m pytest "$@" || rc=$?
if [ "$rc" -eq 5 ] && [ -n "$marker" ]; then
  # Collection worked (errors exit 2), and no test matches the marker expression.
  echo "pytest: no tests match -m '$marker' under ${paths[*]}: nothing to run"
  exit 0
fi
if [ "$rc" -eq 5 ]; then
  prune=()
  for p in ${ignored[@]+"${ignored[@]}"}; do prune+=(-path "${p%/}" -prune -o); done
  found=$(find "${paths[@]}" ${prune[@]+"${prune[@]}"} -type f \( -name 'test_*.py' -o -name '*_test.py' \) -print -quit)
  if [ -z "$found" ]; then
    echo "pytest: no test files under ${paths[*]} yet: nothing to run"
    exit 0
  fi
  echo "pytest: collected no tests although test files exist (e.g. $found)" >&2
fi
exit "$rc"
