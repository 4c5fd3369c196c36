#!/usr/bin/env bash
# Append one row to the run's timing file, when $NUBES_TIMINGS names one (set by .ci/run; unset, this does
# nothing). The rows are what scripts/timings_report.py prints as the timing table at the end of a CI run.
#
# Usage: scripts/timing-record.sh KIND NAME SECONDS STATUS
#   KIND    step (a `make test` step), matrix (a `make test-matrix` step), build (a cold build), setup
#   NAME    what ran, e.g. "integration" or "sanity 2.16"
#   STATUS  passed, FAILED, built, cached
# Tests add their own rows (kind test) through the pytest plugin tests/timings.py.
set -euo pipefail
[ -n "${NUBES_TIMINGS:-}" ] || exit 0
[ $# -eq 4 ] || { echo "usage: $0 KIND NAME SECONDS STATUS" >&2; exit 2; }
mkdir -p "$(dirname "$NUBES_TIMINGS")"
printf '%s\t%s\t%s\t%s\n' "$1" "${2//$'\t'/ }" "$3" "$4" >>"$NUBES_TIMINGS"
