#!/usr/bin/env bash
# Run `ansible-test sanity` on the collection with the venv's Python, offline-capable.
#
# ansible-test only works from a real directory named .../ansible_collections/nubes/cloud (it
# resolves symlinks, so the .collections symlink is not enough). This script copies the files git
# knows about (tracked plus untracked-but-not-ignored, as they are in the work tree) into
# .cache/sanity/run.XXXXXX/ansible_collections/nubes/cloud, runs there and removes the copy. Extra arguments go to
# ansible-test, e.g. `tests/sanity/run.sh --test pep8`.
# Set SANITY_FILES=committed to check HEAD's content instead of the work tree.
# SANITY_PYTHONS="3.9 3.10" runs ansible-test once per listed target Python instead of the venv's own (each
# must be installed as python<version>); `make test-matrix` uses it for the compile and import tests.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
PY=${PY:-$root/.venv/bin/python}
[ -x "$PY" ] || { echo "sanity: $PY not found; run 'make venv' first" >&2; exit 1; }
ansible_test=$(dirname "$PY")/ansible-test
pyver=$("$PY" -c 'import sys; print("%d.%d" % sys.version_info[:2])')

# Zero ignores is the rule: an ignore file would hide findings instead of fixing them.
shopt -s nullglob
ignores=(tests/sanity/ignore-*.txt)
shopt -u nullglob
if [ ${#ignores[@]} -gt 0 ]; then
  echo "sanity: ignore files are not allowed (${ignores[*]}); fix the findings instead" >&2
  exit 1
fi

read -r -a pythons <<<"${SANITY_PYTHONS:-$pyver}"

# Offline pip bootstrap: ansible-test looks for this cache file before it tries to download.
for target in "${pythons[@]}"; do
  pip_version=$("$PY" -c 'import types
from ansible_test._internal.python_requirements import get_venv_packages
print(get_venv_packages(types.SimpleNamespace(version="'"$target"'"))["pip"])')
  get_pip_cache="$HOME/.ansible/test/cache/get_pip_${pip_version//./_}.py"
  # Written when missing, and refreshed when it is an older copy of this stand-in (a real download stays).
  if [ ! -f "$get_pip_cache" ] ||
    { grep -q "Offline stand-in" "$get_pip_cache" && ! cmp -s tests/sanity/get_pip_offline.py "$get_pip_cache"; }; then
    mkdir -p "$(dirname "$get_pip_cache")"
    cp tests/sanity/get_pip_offline.py "$get_pip_cache"
    echo "sanity: wrote offline pip bootstrap $get_pip_cache"
  fi
done

# One copy per run, so parallel runs (several engineers, CI jobs) never share a directory.
mkdir -p "$root/.cache/sanity"
run_dir=$(mktemp -d "$root/.cache/sanity/run.XXXXXX")
trap 'rm -rf "$run_dir"' EXIT
dest="$run_dir/ansible_collections/nubes/cloud"
mkdir -p "$dest"
if [ "${SANITY_FILES:-worktree}" = committed ]; then
  git archive --format=tar HEAD | tar -xf - -C "$dest"
else
  # Tracked files deleted in the work tree are skipped.
  git ls-files -z --cached --others --exclude-standard \
    | while IFS= read -r -d '' f; do if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi; done \
    | tar --null --no-recursion -T - -cf - | tar -xf - -C "$dest"
fi

cd "$dest"
# A repository of its own, so ansible-test lists exactly these files (the copy lives inside the
# work tree's ignored .cache/, which git in the outer repository would report as empty).
git init -q . && git add -A . >/dev/null
core=$("$PY" -c 'from ansible.release import __version__; print(__version__)')
start=$(date +%s)
rc=0
for target in "${pythons[@]}"; do
  echo "sanity: ansible-test sanity (ansible-core $core) --python $target in $dest ($(find . -type f | wc -l) files)"
  "$PY" "$ansible_test" sanity --python "$target" --color no "$@" || rc=$?
done
echo "sanity: finished in $(($(date +%s) - start)) s with exit code $rc"
exit "$rc"
