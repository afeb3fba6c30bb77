#!/usr/bin/env bash
# The window with large runs and a long history, measured on the release build:
#   - opening a run of 10,000 and 100,000 points: `perflab RUN.json --screenshot` from process
#     start to the picture of the run written, and in process the window's first paint, the run
#     on show (read on a worker thread) and the worst UI-thread stall meanwhile;
#   - start-up with 1,000 runs in the history (index present, rebuilt, present again);
#   - the worst UI-thread stall during a default sharding run (managed Redis servers).
# Usage: scripts/bench_window.sh [--no-stall]   (needs a display, or QT_QPA_PLATFORM=offscreen)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/release/app/gui
[ -x "$B/perflab" ] && [ -x "$B/perflab-window-bench" ] || {
  echo "build first: cmake --preset release && cmake --build --preset release --target perflab perflab-window-bench" >&2
  exit 2
}
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

for n in 10000 100000; do
  "$B/perflab-window-bench" make-run "$n" "$W/run-$n.json"
  for i in 1 2 3; do
    start=$(date +%s%N)
    "$B/perflab" --history-dir "$W/h" --settings "$W/s.ini" "$W/run-$n.json" \
      --screenshot "$W/shot-$n.png" --size 1280x800 2>/dev/null
    end=$(date +%s%N)
    echo "open $n points, try $i: run on show, painted and written after $(((end - start) / 1000000)) ms"
  done
  "$B/perflab-window-bench" open "$W/run-$n.json"
done

"$B/perflab-window-bench" make-history 1000 "$W/history"
"$B/perflab-window-bench" startup "$W/history"

if [ "${1:-}" != "--no-stall" ]; then
  "$B/perflab-window-bench" stall sharding
fi
