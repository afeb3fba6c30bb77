#!/usr/bin/env bash
# The window with large runs and a long history, measured on the release build:
#   - opening a run of 10,000 and 100,000 points: `perflab RUN.json --screenshot` from process
#     start to the picture of the run written, 5 rounds, median [min-max]; with --base, another
#     perflab (e.g. main's) timed beside it, the two alternating round by round so that the
#     machine's load falls on both alike; then, in process, the window's first paint, the run on
#     show (read on a worker thread) and the worst UI-thread stall meanwhile;
#   - start-up with 1,000 runs in the history (index present, rebuilt, present again);
#   - the worst UI-thread stall during a default sharding run (managed Redis servers).
# Usage: scripts/bench_window.sh [--base PERFLAB] [--open-only] [--no-stall]
#   (needs a display, or QT_QPA_PLATFORM=offscreen)
set -euo pipefail
cd "$(dirname "$0")/.."
B=build/release/app/gui
BASE="" OPEN_ONLY="" STALL=1
while [ $# -gt 0 ]; do
  case "$1" in
    --base) BASE="$2"; shift 2 ;;
    --open-only) OPEN_ONLY=1; shift ;;
    --no-stall) STALL=""; shift ;;
    *) echo "usage: $0 [--base PERFLAB] [--open-only] [--no-stall]" >&2; exit 2 ;;
  esac
done
[ -x "$B/perflab" ] && [ -x "$B/perflab-window-bench" ] || {
  echo "build first: cmake --preset release && cmake --build --preset release --target perflab perflab-window-bench" >&2
  exit 2
}
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "no program $BASE" >&2; exit 2; }
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
ROUNDS=5

# Milliseconds from the start of `$1 RUN.json --screenshot` to its exit (the picture written).
open_ms() {
  local start end
  start=$(date +%s%N)
  "$1" --history-dir "$W/h" --settings "$W/s.ini" "$2" --screenshot "$W/shot.png" \
    --size 1280x800 2>/dev/null
  end=$(date +%s%N)
  echo $(((end - start) / 1000000))
}

# "median [min-max]" of the numbers given.
summary() {
  printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%d ms [%d-%d]", m, v[1], v[NR]
  }'
}

for n in 10000 100000; do
  "$B/perflab-window-bench" make-run "$n" "$W/run-$n.json"
  ours=() base=()
  for i in $(seq "$ROUNDS"); do
    if [ -n "$BASE" ]; then
      # Alternating, and which goes first alternates too.
      if [ $((i % 2)) -eq 1 ]; then
        base+=("$(open_ms "$BASE" "$W/run-$n.json")")
        ours+=("$(open_ms "$B/perflab" "$W/run-$n.json")")
      else
        ours+=("$(open_ms "$B/perflab" "$W/run-$n.json")")
        base+=("$(open_ms "$BASE" "$W/run-$n.json")")
      fi
    else
      ours+=("$(open_ms "$B/perflab" "$W/run-$n.json")")
    fi
  done
  echo "open $n points, whole process to the picture written, $ROUNDS rounds, median [min-max]:"
  [ -z "$BASE" ] || echo "  base  $BASE: $(summary "${base[@]}")   (${base[*]})"
  echo "  this  $B/perflab: $(summary "${ours[@]}")   (${ours[*]})"
  "$B/perflab-window-bench" open "$W/run-$n.json"
done
[ -z "$OPEN_ONLY" ] || exit 0

"$B/perflab-window-bench" make-history 1000 "$W/history"
"$B/perflab-window-bench" startup "$W/history"

if [ -n "$STALL" ]; then
  "$B/perflab-window-bench" stall sharding
fi
