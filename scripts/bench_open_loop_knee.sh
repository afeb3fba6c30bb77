#!/usr/bin/env bash
# The knee of direct Redis and of perflab-proxy in front of it, open loop: for each offered
# rate, the achieved rate, corrected p50 and p99 and the generator's own lag, the two targets
# taking turns: scripts/bench_open_loop_knee.sh REDIS_PORT PROXY_PORT [CLIENTS] [PIPELINE].
# perflab-proxy must already listen on PROXY_PORT with --nodes 127.0.0.1:REDIS_PORT.
set -euo pipefail
redis=${1:?usage: bench_open_loop_knee.sh REDIS_PORT PROXY_PORT [CLIENTS] [PIPELINE]}
proxy=${2:?usage: bench_open_loop_knee.sh REDIS_PORT PROXY_PORT [CLIENTS] [PIPELINE]}
clients=${3:-50} pipeline=${4:-1}
cli=${PERFLAB_CLI:-build/release/app/cli/perflab-cli}
rates=${RATES:-"1000 2000 5000 10000 15000 20000 30000 40000 60000 80000"}
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "target   offered  achieved  p50_ms  p99_ms  generator_lag_p99_ms  held  behind"
for r in $rates; do
  for target in direct:"$redis" proxy:"$proxy"; do
    row=$("$cli" bench -p "${target#*:}" -t get -c "$clients" -P "$pipeline" -n $((r * 2)) \
      --rate "$r" --csv 2>/dev/null | tail -1 | tr -d '"')
    IFS=, read -r _ _ rps p50 _ p99 _ _ _ _ genlag ok behind <<<"$row"
    printf '%-7s %8s %9s %7s %7s %20s %5s %7s\n' "${target%%:*}" "$r" "$rps" "$p50" "$p99" \
      "$genlag" "$ok" "$behind"
  done
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
