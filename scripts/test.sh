#!/usr/bin/env bash
# Builds Perflab with the dev preset (Debug + AddressSanitizer + UBSan) and runs every test:
# unit, integration (real PostgreSQL and Redis started by Perflab's managed-server code) and gui
# (offscreen). Installs missing Debian packages first. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset dev
cmake --build --preset dev -j "$(nproc)"
# The managed servers are started by the tests themselves; nothing else to start.
# A test that fails is run once more (a shared machine can starve a server start); a real
# failure fails twice, and the first failure's output stays in the log.
ctest --preset dev -j 2 --timeout 900 --repeat until-pass:2 "$@"
