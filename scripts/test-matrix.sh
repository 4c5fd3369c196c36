#!/usr/bin/env bash
# `make test-matrix`: the supported ansible-core versions other than the dev venv's (which `make test` covers).
#
# The versions come from config/ansible_core_versions.txt (one line per major.minor with the controller Python).
# For each version older than the newest line:
#   sanity  ansible-test sanity (every test, zero ignores) with that core, tests/sanity/run.sh
#   unit    `make unit` with that core
# and for the oldest version also
#   integration  the module integration suite (tests/integration/modules: real ansible-playbook runs)
# plus, once, with the dev venv's ansible-test:
#   targets      the `compile` and `import` sanity tests of plugins/ on the target Pythons 3.9-3.11 installed here
#                (modules run on the managed host's Python, which may be older than any controller's; 3.12 and
#                3.13 are covered by the sanity runs above and by `make test`)
# Each version gets its own venv under .cache/matrix/core-<version>, created here and reused while the
# requirements stay the same. Every step runs even when an earlier one failed; the exit code says whether all
# passed. A summary with the wall time of every step ends the output.
#
# Environment:
#   MATRIX_CORES    versions to run (default: every line but the newest), e.g. MATRIX_CORES="2.16 2.19"
#   MATRIX_STEPS    steps to run (default: "sanity unit integration targets")
#   MATRIX_TARGET_PYTHONS  target Pythons of the `targets` step (default: the installed ones among 3.9-3.11)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
root=$(pwd)
VERSIONS_FILE=config/ansible_core_versions.txt
DEV_PY=${DEV_PY:-$root/.venv/bin/python}

mapfile -t lines < <(sed -e 's/#.*//' -e '/^[[:space:]]*$/d' "$VERSIONS_FILE")
[ ${#lines[@]} -ge 1 ] || { echo "matrix: $VERSIONS_FILE lists no versions" >&2; exit 2; }
declare -A python_of=()
all=()
for line in "${lines[@]}"; do
  read -r version python _rest <<<"$line"
  all+=("$version")
  python_of[$version]=$python
done
oldest=${all[0]}
newest=${all[${#all[@]}-1]}
default_cores=("${all[@]:0:${#all[@]}-1}")
read -r -a cores <<<"${MATRIX_CORES:-${default_cores[*]}}"
read -r -a steps <<<"${MATRIX_STEPS:-sanity unit integration targets}"

has_step() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

summary=()
failed=()
# run_step <label> <command...>: runs it, records the wall time and the outcome.
run_step() {
  local label=$1 start rc
  shift
  echo
  echo "matrix: === $label ==="
  start=$(date +%s)
  "$@"
  rc=$?
  local took=$(($(date +%s) - start))
  if [ "$rc" -eq 0 ]; then
    summary+=("$(printf '%-28s passed  %4d s' "$label" "$took")")
  else
    summary+=("$(printf '%-28s FAILED  %4d s (exit %d)' "$label" "$took" "$rc")")
    failed+=("$label")
  fi
}

# make_venv <version>: .cache/matrix/core-<version> with ansible-core <version>.* and the runtime + test
# requirements; re-installed only when they change (stamp = hash of the inputs).
make_venv() {
  local version=$1 python=${python_of[$1]:-}
  local venv=$root/.cache/matrix/core-$version
  if [ -z "$python" ]; then
    echo "matrix: ansible-core $version is not in $VERSIONS_FILE" >&2
    return 1
  fi
  local interpreter
  if ! interpreter=$(bash scripts/find-python.sh "$python"); then
    echo "matrix: Python $python (for ansible-core $version) is not installed; install it or change $VERSIONS_FILE" >&2
    return 1
  fi
  local want
  want=$( (echo "$version $python"; cat requirements.txt requirements-test.txt) | sha256sum | cut -d' ' -f1)
  if [ "$(cat "$venv/.matrix.sha256" 2>/dev/null)" != "$want" ]; then
    rm -rf "$venv"
    echo "matrix: creating $venv ($interpreter, ansible-core $version.*)"
    "$interpreter" -m venv "$venv" &&
      "$venv/bin/python" -m pip install -q --upgrade pip &&
      "$venv/bin/python" -m pip install -q "ansible-core==$version.*" -r requirements.txt -r requirements-test.txt ||
      return 1
    echo "$want" >"$venv/.matrix.sha256"
  fi
  # `make ... VENV=<venv>` treats this stamp as "venv up to date" (Makefile rule $(VENV)/.requirements.sha256).
  touch "$venv/.requirements.sha256"
  echo "matrix: $("$venv/bin/ansible" --version | head -1) with $("$venv/bin/python" --version)"
}

unit() {
  make --no-print-directory unit VENV="$1"
}

integration() {
  PY="$1/bin/python" PATH="$1/bin:$PATH" bash scripts/pytest-run.sh tests/integration/modules --durations=5
}

target_pythons() {
  if [ -n "${MATRIX_TARGET_PYTHONS:-}" ]; then
    echo "$MATRIX_TARGET_PYTHONS"
    return
  fi
  local found=() v
  for v in 3.9 3.10 3.11; do
    if bash scripts/find-python.sh "$v" >/dev/null; then found+=("$v"); fi
  done
  echo "${found[*]}"
}

matrix_start=$(date +%s)
for version in "${cores[@]}"; do
  venv=$root/.cache/matrix/core-$version
  run_step "venv $version" make_venv "$version" || true
  if [[ " ${failed[*]} " == *" venv $version "* ]]; then
    continue
  fi
  has_step sanity && run_step "sanity $version" env PY="$venv/bin/python" bash tests/sanity/run.sh
  has_step unit && run_step "unit $version" unit "$venv"
  if has_step integration && [ "$version" = "$oldest" ]; then
    run_step "integration $version" integration "$venv"
  fi
done
if has_step targets; then
  pythons=$(target_pythons)
  if [ -n "$pythons" ]; then
    # ansible-test finds each target as python<version> on PATH (pyenv shims may not run it): put the real
    # interpreters' directories on PATH, after the dev venv's.
    target_path=$(dirname "$DEV_PY")
    for v in $pythons; do target_path="$target_path:$(dirname "$(bash scripts/find-python.sh "$v")")"; done
    run_step "targets $newest ($pythons)" env PY="$DEV_PY" SANITY_PYTHONS="$pythons" PATH="$target_path:$PATH" \
      bash tests/sanity/run.sh --test compile --test import
  fi
fi

echo
echo "== make test-matrix summary (ansible-core ${cores[*]}; the newest, $newest, runs in make test) =="
printf '%s\n' "${summary[@]}"
echo "test-matrix: $((${#summary[@]} - ${#failed[@]})) of ${#summary[@]} steps passed in $(($(date +%s) - matrix_start)) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "test-matrix: FAILED: ${failed[*]}"
  exit 1
fi
