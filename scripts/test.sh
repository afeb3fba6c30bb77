#!/usr/bin/env bash
# Builds Perflab with the dev preset (Debug + AddressSanitizer + UBSan, warnings as errors) and
# runs every test: setup (package list, formatting), unit, integration (real PostgreSQL and
# Redis started by Perflab's managed-server code) and gui (offscreen). Then builds the release
# preset (the one every measurement uses), smoke-runs each experiment through perflab-cli, and
# makes the Debian package and checks it (tests/package).
# Installs missing Debian packages first. Safe to run again. Extra arguments go to the dev ctest.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
jobs=$(nproc)
retried=()

# Runs ctest for a preset; a failing test is run once more (a shared machine can starve a server
# start), and a test that passes only then is listed at the end of the log: a flaky test is a bug,
# so a failing test's output goes into the log, where the run that failed can be read.
run_tests() {
  local preset=$1
  shift
  if ctest --preset "$preset" -j 2 --timeout 900 --output-on-failure "$@"; then return 0; fi
  local failed_log="build/$preset/Testing/Temporary/LastTestsFailed.log"
  [ -s "$failed_log" ] || return 1
  mapfile -t failed < <(sed -E 's/^[0-9]+://' "$failed_log")
  echo "test: retrying once: ${failed[*]}"
  if ctest --preset "$preset" --timeout 900 --output-on-failure --rerun-failed; then
    retried+=("${failed[@]}")
    return 0
  fi
  return 1
}

status=0
cmake --preset dev
cmake --build --preset dev -j "$jobs"
run_tests dev "$@" || status=1

cmake --preset release
cmake --build --preset release -j "$jobs" --target perflab perflab-cli perflab-proxy man-pages \
  smoke_tests
run_tests release -L 'smoke|package' || status=1

if [ ${#retried[@]} -gt 0 ]; then
  echo "test: PASSED ONLY ON RETRY (flaky, a bug to fix): ${retried[*]}"
else
  echo "test: no test needed a retry"
fi
exit $status
