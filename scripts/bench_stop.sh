#!/usr/bin/env bash
# The stop targets, measured on the release build (the tests hold only that a run returns and
# keeps what it measured; the target itself, within a second, is this benchmark's figure):
#   - Ctrl-C on `perflab-cli run` while its PostgreSQL, then its Redis, is frozen (SIGSTOP);
#   - the window's Stop during an IO-list, a caching and a sharding run, and during a freeze;
#   - quitting the window with managed PostgreSQL and Redis running.
# Each case is tried N times (default 5); a table gives the median and min-max beside the
# target, with the load average before and after.
# Usage: scripts/bench_stop.sh [--tries N] [CASE...]   (CASEs: perflab-stop-bench's, all by default)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/release/app
[ -x "$B/gui/perflab-stop-bench" ] && [ -x "$B/cli/perflab-cli" ] || {
  echo "build first: cmake --preset release && cmake --build --preset release --target perflab-cli perflab-stop-bench" >&2
  exit 2
}
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
exec "$B/gui/perflab-stop-bench" --cli "$B/cli/perflab-cli" "$@"
