#!/usr/bin/env bash
# `make test-matrix`: the supported ansible-core versions other than the dev venv's (which `make test` covers).
#
# The versions come from config/ansible_core_versions.txt (one line per major.minor with the controller Python).
# For each version older than the newest line:
#   sanity  ansible-test sanity (every test, zero ignores) with that core, tests/sanity/run.sh
#   unit    `make unit` with that core
# and for the oldest version also
#   integration  the module integration suite (tests/integration/modules: real ansible-playbook runs)
# and for every other version (where `integration` does not run)
#   parity       the in-process path's parity and execution-path tests (issue 26: its code has branches per
#                ansible-core line, so each line runs real playbooks on both paths)
# plus, once, with the dev venv's ansible-test:
#   targets      the `compile` and `import` sanity tests of plugins/ on the target Pythons 3.9-3.11 installed here
#                (modules run on the managed host's Python, which may be older than any controller's; 3.12 and
#                3.13 are covered by the sanity runs above and by `make test`)
# Each version gets its own venv, kept on the machine under ~/.cache/nubes-cloud/matrix/ and keyed by the hash of
# its pins (version, Python, requirements.txt, requirements-test.txt), so a fresh clone reuses it; the repo sees it
# as .cache/matrix/core-<version> (a symlink). The venvs are made first, one after the other. Then two lanes run
# side by side, one per core: the sanity lane (ansible-test sanity of every version, then `targets`; one
# ansible-test at a time, so two never build the same sanity venv under ~/.ansible/test/venv at once) and the test
# lane (unit of every version, then integration). Each lane's lines are prefixed with its name. Every step runs
# even when an earlier one failed; the exit code says whether all passed. A summary with the wall time of every
# step ends the output.
#
# Environment:
#   MATRIX_CORES    versions to run (default: every line but the newest), e.g. MATRIX_CORES="2.16 2.19"
#   MATRIX_STEPS    steps to run (default: "sanity unit integration parity targets")
#   MATRIX_JOBS     lanes run at once (default: 2 when the machine has 2 cores or more, else 1)
#   MATRIX_TARGET_PYTHONS  target Pythons of the `targets` step (default: the installed ones among 3.9-3.11)
#   NUBES_CACHE     the machine cache (default: ~/.cache/nubes-cloud)
#   TEST_WORKERS    pytest-xdist workers of the integration step (default: the number of cores)
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
read -r -a steps <<<"${MATRIX_STEPS:-sanity unit integration parity targets}"

has_step() { local s; for s in "${steps[@]}"; do [ "$s" = "$1" ] && return 0; done; return 1; }

results=$(mktemp)
trap 'rm -f "$results"' EXIT
# run_step <label> <command...>: runs it, records the wall time and the outcome (in $results, so a lane running
# in a subshell reports too).
run_step() {
  local label=$1 start rc status
  shift
  echo
  echo "matrix: === $label ==="
  start=$(date +%s)
  NUBES_TIMINGS_STEP=$label "$@"
  rc=$?
  local took=$(($(date +%s) - start))
  status=passed
  [ "$rc" -eq 0 ] || status=FAILED
  printf '%s\t%s\t%s\t%s\n' "$label" "$status" "$took" "$rc" >>"$results"
  bash scripts/timing-record.sh matrix "$label" "$took" "$status"
  return "$rc"
}

# make_venv <version>: ansible-core <version>.* with the runtime + test requirements, in the machine cache under
# a name keyed by the hash of those pins, linked as .cache/matrix/core-<version>; made only when missing.
make_venv() {
  local version=$1 python=${python_of[$1]:-}
  if [ -z "$python" ]; then
    echo "matrix: ansible-core $version is not in $VERSIONS_FILE" >&2
    return 1
  fi
  local interpreter
  if ! interpreter=$(bash scripts/find-python.sh "$python"); then
    echo "matrix: Python $python (for ansible-core $version) is not installed; install it or change $VERSIONS_FILE" >&2
    return 1
  fi
  local want cached link=$root/.cache/matrix/core-$version
  want=$( (echo "$version $python"; cat requirements.txt requirements-test.txt) | sha256sum | cut -c1-12)
  cached=$cache_root/core-$version-$want
  if [ ! -f "$cached/.matrix.sha256" ]; then
    rm -rf "$cached"
    echo "matrix: creating $cached ($interpreter, ansible-core $version.*)"
    "$interpreter" -m venv "$cached" &&
      "$cached/bin/python" -m pip install -q --upgrade pip &&
      "$cached/bin/python" -m pip install -q "ansible-core==$version.*" -r requirements.txt -r requirements-test.txt ||
      return 1
    echo "$want" >"$cached/.matrix.sha256"
    # older pins of this version are never used again
    find "$cache_root" -maxdepth 1 -name "core-$version-*" ! -name "core-$version-$want" -exec rm -rf {} +
  fi
  # `make ... VENV=<venv>` treats this stamp as "venv up to date" (Makefile rule $(VENV)/.requirements.sha256).
  touch "$cached/.requirements.sha256"
  mkdir -p "$(dirname "$link")"
  rm -rf "$link"
  ln -s "$cached" "$link"
  echo "matrix: $("$link/bin/ansible" --version | head -1) with $("$link/bin/python" --version) ($cached)"
}

unit() {
  make --no-print-directory unit VENV="$1"
}

integration() {
  local workers=${TEST_WORKERS:-$(nproc)}
  PY="$1/bin/python" PATH="$1/bin:$PATH" bash scripts/pytest-run.sh tests/integration/modules -n "$workers" --durations=5
}

# parity <venv>: the parity flow and the execution-path tests of issue 26 (real ansible-playbook runs on both paths)
parity() {
  local workers=${TEST_WORKERS:-$(nproc)}
  PY="$1/bin/python" PATH="$1/bin:$PATH" bash scripts/pytest-run.sh -n "$workers" --durations=3 \
    tests/integration/modules/test_modules_parity.py tests/integration/modules/test_modules_execution_path.py
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
cache_root=${NUBES_CACHE:-$HOME/.cache/nubes-cloud}/matrix
mkdir -p "$cache_root"
ready=()
for version in "${cores[@]}"; do
  run_step "venv $version" make_venv "$version" && ready+=("$version")
done

sanity_lane() {
  local version
  for version in "${ready[@]}"; do
    has_step sanity && run_step "sanity $version" env PY="$root/.cache/matrix/core-$version/bin/python" bash tests/sanity/run.sh
  done
  if has_step targets; then
    local pythons v target_path
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
  return 0
}

test_lane() {
  local version
  for version in "${ready[@]}"; do
    has_step unit && run_step "unit $version" unit "$root/.cache/matrix/core-$version"
    if has_step integration && [ "$version" = "$oldest" ]; then
      run_step "integration $version" integration "$root/.cache/matrix/core-$version"
    elif has_step parity; then
      run_step "parity $version" parity "$root/.cache/matrix/core-$version"
    fi
  done
  return 0
}

# lane <name> <function>: the function's output, each line prefixed with the lane's name
lane() { "$2" 2>&1 | sed -u "s/^/[$1] /"; }

jobs=${MATRIX_JOBS:-$(($(nproc) >= 2 ? 2 : 1))}
if [ "$jobs" -ge 2 ]; then
  lane sanity sanity_lane &
  sanity_pid=$!
  lane tests test_lane
  wait "$sanity_pid"
else
  sanity_lane
  test_lane
fi

total=0
passed=0
echo
echo "== make test-matrix summary (ansible-core ${cores[*]}; the newest, $newest, runs in make test) =="
while IFS=$'\t' read -r label status took rc; do
  total=$((total + 1))
  if [ "$status" = passed ]; then
    passed=$((passed + 1))
    printf '%-28s passed  %4d s\n' "$label" "$took"
  else
    printf '%-28s FAILED  %4d s (exit %d)\n' "$label" "$took" "$rc"
  fi
done <"$results"
echo "test-matrix: $passed of $total steps passed in $(($(date +%s) - matrix_start)) s (lanes at once: $jobs)"
if [ "$passed" -ne "$total" ]; then
  echo "test-matrix: FAILED: $(awk -F'\t' '$2 == "FAILED" {printf "%s%s", sep, $1; sep=", "}' "$results")"
  exit 1
fi
