#!/usr/bin/env bash
# The load generator's --cluster beside redis-benchmark --cluster on the same throwaway Redis
# Cluster (3 masters on loopback, started here, stopped at the end), same options, taking turns
# round by round. Prints each round's req/s and the paired ratio ours / redis-benchmark, then per
# test the median ratio with the rounds' min–max (for 5 rounds the median's 93.75% interval,
# 7 rounds 98.4%).
# Usage: scripts/bench_cluster_peer.sh [ROUNDS] [PIPELINE] [REQUESTS] [CLIENTS]
#   defaults: 5 rounds, -P 1, -n 500000, -c 50 (tests SET and GET).
# redis-benchmark's threads end a run on a 250 ms timer tick: its elapsed time carries ~0.125 s
# on average, so keep runs several seconds long (-n).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
P=${2:-1}
N=${3:-500000}
C=${4:-50}
CLI=build/release/app/cli/perflab-cli
[ -x "$CLI" ] || {
  echo "build first: cmake --preset release && cmake --build --preset release --target perflab-cli" >&2
  exit 2
}
command -v redis-benchmark >/dev/null || { echo "redis-benchmark not installed (redis-tools)" >&2; exit 2; }
W=$(mktemp -d)
PORTS=()
cleanup() {
  for p in "${PORTS[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
  rm -rf "$W"
}
trap cleanup EXIT
base=$((20000 + RANDOM % 20000))
for i in 0 1 2; do
  p=$((base + i))
  if redis-cli -p "$p" ping >/dev/null 2>&1; then  # never measure (or write to) a server not ours
    echo "port $p is taken by another server: run again" >&2
    exit 1
  fi
  PORTS+=("$p")
  redis-server --port "$p" --bind 127.0.0.1 --cluster-enabled yes --cluster-config-file "$W/nodes-$p.conf" \
    --save "" --appendonly no --daemonize yes --dir "$W" --logfile "$W/$p.log"
done
for p in "${PORTS[@]}"; do
  for _ in $(seq 50); do redis-cli -p "$p" ping >/dev/null 2>&1 && break; sleep 0.1; done
done
redis-cli --cluster create "127.0.0.1:${PORTS[0]}" "127.0.0.1:${PORTS[1]}" "127.0.0.1:${PORTS[2]}" \
  --cluster-yes >/dev/null
for _ in $(seq 100); do
  redis-cli -p "${PORTS[0]}" cluster info | grep -q cluster_state:ok && break
  sleep 0.1
done
echo "cluster on ports ${PORTS[*]}; -P $P -n $N -c $C; $ROUNDS rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
rate() { awk -F'","' '/^"(SET|GET)"/ {print $2}'; }
for t in set get; do
  ratios=()
  for r in $(seq "$ROUNDS"); do
    rb=$(redis-benchmark --cluster -p "${PORTS[0]}" -t "$t" -n "$N" -P "$P" -c "$C" --csv 2>/dev/null | rate)
    us=$("$CLI" bench --cluster -p "${PORTS[0]}" -t "$t" -n "$N" -P "$P" -c "$C" --csv | rate)
    ratio=$(awk -v a="$us" -v b="$rb" 'BEGIN {printf "%.3f", a / b}')
    ratios+=("$ratio")
    echo "$t round $r: ours $us req/s, redis-benchmark $rb req/s, ratio $ratio"
  done
  printf '%s\n' "${ratios[@]}" | sort -n | awk -v t="$t" -v P="$P" '
    {v[NR] = $1} END {
      m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
      printf "%s -P %s: ours / redis-benchmark median %.2f [%.2f–%.2f] over %d rounds\n", toupper(t), P, m, v[1], v[NR], NR
    }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
