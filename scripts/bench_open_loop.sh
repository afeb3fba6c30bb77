#!/usr/bin/env bash
# The highest rate perflab-cli bench holds open loop against a redis-server, beside
# redis-benchmark's closed-loop maximum with the same -c, the two taking turns:
#   scripts/bench_open_loop.sh PORT [TRIES] [CLIENTS] [PIPELINE]
# Per try: redis-benchmark -t get; then perflab-cli bench --rate up a ladder of rates (1 s
# each) until the achieved rate falls below 99% of the target. "valid" is the highest rate held
# with the generator not behind (its own send lag p99 <= 1 ms), "held" the highest held at all.
set -euo pipefail
port=${1:?usage: bench_open_loop.sh PORT [TRIES] [CLIENTS] [PIPELINE]}
tries=${2:-5} clients=${3:-50} pipeline=${4:-1}
cli=${PERFLAB_CLI:-build/release/app/cli/perflab-cli}
rates=${RATES:-"1000 2000 3000 5000 7000 10000 15000 20000 25000 30000 40000 50000 60000 80000
  100000 120000 140000 160000 200000"}
echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
for t in $(seq "$tries"); do
  closed=$(redis-benchmark -p "$port" -t get -n 200000 -c "$clients" -P "$pipeline" -q |
    tr '\r' '\n' | grep -o 'GET: [0-9.]*' | tail -1 | cut -d' ' -f2)
  valid=0 held=0 detail=""
  for r in $rates; do
    row=$("$cli" bench -p "$port" -t get -c "$clients" -P "$pipeline" -n "$r" --rate "$r" --csv \
      2>/dev/null | tail -1 | tr -d '"')
    IFS=, read -r _ _ rps _ _ p99 _ _ _ _ genlag ok behind <<<"$row"
    [[ $ok == 1 ]] || { detail="$detail; at $r: achieved $rps"; break; }
    held=$r detail="at $r: achieved $rps, p99 $p99 ms, generator lag p99 $genlag ms"
    [[ $behind == 0 ]] && valid=$r
  done
  echo "try $t: redis-benchmark closed loop $closed req/s; open loop valid $valid, held $held" \
    "req/s ($detail)"
done
echo "load average at end: $(cut -d' ' -f1-3 /proc/loadavg)"
