#!/usr/bin/env bash
# The time left of the lecture plans, measured on the release build: each plan is run N times
# (default 5; the plans take turns) with `perflab-cli run EXPERIMENT --plan lecture`, every
# progress line timestamped as it arrives (on a pipe the CLI prints a line per step, and within
# a step at most two a second). The run is from the first line after the managed servers have
# started (the estimate's own start) to its last progress line. At 25%, 50% and 75% of that,
# the time left shown (the latest line's, counted down since it was printed, as the window
# does) is set against the real time left. A point is within when it is off by at most 20% of
# the real time left, or by 0.5 s when less than 2.5 s is left (the CLI prints tenths of a
# second under 10 s, and a line can be half a second old); "none" when none was shown yet.
# Prints each run's figures, then per plan and point the median error with its min-max and how
# many runs were within, with the load average at each run's start.
# Usage: scripts/bench_time_left.sh [--tries N] [--load K] [--cli PATH] [--keep DIR] [EXPERIMENT...]
#        scripts/bench_time_left.sh --again DIR [EXPERIMENT...]
#   --load K: K busy loops run beside the plans (stopped at the end); --keep DIR: the traces,
#   run files and loads are kept there (EXPERIMENT-TRY.trace, .json; runs); --again DIR: the
#   figures of the runs kept there, again.
set -euo pipefail
cd "$(dirname "$0")/.."
TRIES=5
LOAD=0
CLI=build/release/app/cli/perflab-cli
KEEP=
AGAIN=
EXPS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --tries) TRIES=$2; shift 2 ;;
    --load) LOAD=$2; shift 2 ;;
    --cli) CLI=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    --again) AGAIN=$2; shift 2 ;;
    -h | --help) awk 'NR > 1 && !/^#/ { exit } NR > 1' "$0"; exit 0 ;;
    *) EXPS+=("$1"); shift ;;
  esac
done
[ ${#EXPS[@]} -gt 0 ] || EXPS=(iolist sharding caching)
[ -n "$AGAIN" ] || [ -x "$CLI" ] || {
  echo "build first: cmake --preset release && cmake --build --preset release --target perflab-cli" >&2
  exit 2
}
W=$(mktemp -d)
LOOPS=()
cleanup() {
  for p in "${LOOPS[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT
for _ in $(seq "$LOAD"); do
  bash -c 'while :; do :; done' &
  LOOPS+=("$!")
done
[ -z "$KEEP" ] || mkdir -p "$KEEP"
T=${AGAIN:-${KEEP:-$W}}

# A trace: "SECONDS LINE" per line of stderr, seconds since the epoch.
trace() {
  "$CLI" run "$1" --plan lecture -o "$2" 2>&1 >/dev/null |
    while IFS= read -r line; do printf '%s %s\n' "$EPOCHREALTIME" "$line"; done
}

if [ -n "$AGAIN" ]; then
  echo "time left of the lecture plans: the runs kept in $AGAIN"
  for e in "${EXPS[@]}"; do grep "^$e " "$T/runs" >>"$W/runs" || true; done
else
  echo "time left of the lecture plans: $TRIES tries each, $LOAD busy loops; $CLI"
  for i in $(seq "$TRIES"); do
    for e in "${EXPS[@]}"; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      trace "$e" "$T/$e-$i.json" >"$T/$e-$i.trace"
      echo "$e $i $load" >>"$W/runs"
      [ -z "$KEEP" ] || echo "$e $i $load" >>"$KEEP/runs"
    done
  done
fi

# Per run: the shown and the real time left at each point, the error, and whether within.
while read -r e i load; do
  awk -v e="$e" -v i="$i" -v load="$load" '
    function shown_at(t,   k, s) {
      s = "none"
      for (k = 1; k <= n && lt[k] <= t; ++k) s = (left[k] == "" ? "none" : left[k] - (t - lt[k]))
      return s == "none" ? s : (s < 0 ? 0 : s)
    }
    /^[0-9.]+ \[ *[0-9]+%/ {
      t = $1 + 0
      if (!started) { if ($0 ~ /starting managed servers/) next; started = 1; t0 = t }
      lt[++n] = t
      left[n] = ""
      if (match($0, /~[0-9.]+ s left/)) left[n] = substr($0, RSTART + 1, RLENGTH - 8) + 0
      else if (match($0, /~[0-9]+ min [0-9]+ s left/)) {
        split(substr($0, RSTART + 1, RLENGTH), m, " ")
        left[n] = m[1] * 60 + m[3]
      }
      t1 = t
    }
    END {
      if (n == 0) { print e, i, load, "no progress"; exit }
      d = t1 - t0
      line = sprintf("%s %s %s %.2f", e, i, load, d)
      for (q = 1; q <= 3; ++q) {
        real = d * (1 - q / 4)
        s = shown_at(t0 + d * q / 4)
        if (s == "none") { line = line " none none 0"; continue }
        err = s - real
        ok = (err <= 0.2 * real && -err <= 0.2 * real) || (err <= 0.5 && -err <= 0.5)
        line = line sprintf(" %.2f %.0f %d", s, 100 * err / real, ok)
      }
      print line
    }' "$T/$e-$i.trace"
done <"$W/runs" >"$W/points"

echo
echo "plan  try  load  run (s)  | shown s left at 25% (error %) | at 50% | at 75%   (* = within)"
awk '{
  printf "%-8s %s  %5s  %6.2f s ", $1, $2, $3, $4
  for (q = 0; q < 3; ++q) {
    s = $(5 + 3 * q); err = $(6 + 3 * q); ok = $(7 + 3 * q)
    if (s == "none") printf " | none         "
    else printf " | %5.2f (%+4d%%)%s", s, err, ok ? "*" : " "
  }
  printf "\n"
}' "$W/points"

echo
echo "plan: median error at 25% / 50% / 75% of the run [min-max], runs within of all, load average"
for e in "${EXPS[@]}"; do
  for q in 0 1 2; do
    awk -v e="$e" -v q="$q" '$1 == e { print $(5 + 3 * q), $(6 + 3 * q), $(7 + 3 * q) }' "$W/points" |
      awk -v e="$e" -v q="$q" '
        { ++n; if ($1 == "none") { ++none; next } v[++k] = $2; within += $3 }
        END {
          for (a = 1; a <= k; ++a) for (b = a + 1; b <= k; ++b) if (v[b] < v[a]) { x = v[a]; v[a] = v[b]; v[b] = x }
          m = k == 0 ? "-" : sprintf("%+d%%", (k % 2) ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2)
          r = k == 0 ? "" : sprintf(" [%+d%% to %+d%%]", v[1], v[k])
          printf "%-8s at %d%%: %s%s, within in %d of %d%s\n", e, 25 * (q + 1), m, r, within, n, none ? ", none shown in " none : ""
        }'
  done
  awk -v e="$e" '$1 == e { d[++n] = $4; l[n] = $3 } END {
    for (a = 1; a <= n; ++a) for (b = a + 1; b <= n; ++b) { if (d[b] < d[a]) { x = d[a]; d[a] = d[b]; d[b] = x } if (l[b] < l[a]) { x = l[a]; l[a] = l[b]; l[b] = x } }
    printf "%-8s runs of %.1f s [%.1f-%.1f], load average %s-%s\n", e, (n % 2) ? d[(n + 1) / 2] : (d[n / 2] + d[n / 2 + 1]) / 2, d[1], d[n], l[1], l[n]
  }' "$W/points"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
