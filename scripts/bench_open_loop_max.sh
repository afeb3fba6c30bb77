#!/usr/bin/env bash
# The highest open-loop rate the load generator holds against a redis-server, beside
# redis-benchmark's closed-loop maximum on the same server, TRIES times taking turns:
# scripts/bench_open_loop_max.sh REDIS_PORT [CLIENTS]. A rate is held when the verdict is
# "rate held" (completed >= 99% of the offered rate, the generator's own lag p99 <= 1 ms); the
# rates are stepped up from RATES until the first that is not.
set -euo pipefail
port=${1:?usage: bench_open_loop_max.sh REDIS_PORT [CLIENTS]}
clients=${2:-50}
cli=${PERFLAB_CLI:-build/release/app/cli/perflab-cli}
rates=${RATES:-"1000 2000 5000 10000 15000 20000 30000 40000 50000 60000 80000 100000 120000"}
tries=${TRIES:-5}
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "try  redis_benchmark_closed_rps  highest_open_loop_rate_held  first_not_held(verdict)"
for t in $(seq 1 "$tries"); do
  rb=$(redis-benchmark -p "$port" -t get -n 200000 -c "$clients" -q 2>/dev/null |
    tr '\r' '\n' | grep -o 'GET: [0-9.]*' | tail -1 | cut -d' ' -f2)
  held=0 stop="none"
  for r in $rates; do
    row=$("$cli" bench -p "$port" -t get -c "$clients" -n $((r * 2)) --rate "$r" --csv \
      2>/dev/null | tail -1 | tr -d '"')
    IFS=, read -r _ _ _ _ _ _ _ _ _ _ _ ok behind <<<"$row"
    if [[ $ok == 1 && $behind == 0 ]]; then
      held=$r
    else
      stop="$r(held=$ok,fell_behind=$behind)"
      break
    fi
  done
  printf '%-4s %27s %28s  %s\n' "$t" "$rb" "$held" "$stop"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
