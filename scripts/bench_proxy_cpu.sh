#!/usr/bin/env bash
# CPU per request: perflab-proxy beside twemproxy (nutcracker) and beside redis-server itself,
# the floor a proxy is measured against. Four throwaway redis-server nodes (loopback, started
# here, stopped at the end); both proxies serve the same twemproxy pool of them (fnv1a_64,
# ketama); redis-benchmark -c C -n N -r 100000 drives each in turn, and "redis-server" is one
# node driven directly. A target's CPU is its threads' time on a CPU (/proc/PID/task/*/schedstat,
# in ns) over the run, divided by the requests (MSET: by its 10 keys). Targets take turns round
# by round, in a rotating order. Prints every round's line, then per test and pipeline depth each
# target's µs per request and req/s, and the paired ratios perflab-proxy / redis-server and
# perflab-proxy / twemproxy (and an other build / build/release's): median [min–max] over the
# rounds (5 rounds: the median's 93.75% interval), with redis-benchmark's p50 and p99 latency.
# Where the time goes: each target's kernel time per request (its threads' stime, pooled over the
# rounds: clock ticks, so a few percent at -P 16's short runs) and context switches per request;
# for perflab-proxy, its kernel time alone over redis-server's whole CPU per request (a floor:
# no work in user space could bring the ratio below it). With `perf` usable, one more round per
# test and depth counts each target's system calls per request (not part of the CPU figures:
# counting slows what it counts).
# Usage: scripts/bench_proxy_cpu.sh [ROUNDS] [OTHER_PROXY_BINARY...]
#   default 5 rounds. An other perflab-proxy binary (e.g. a release build of an earlier commit)
#   is measured beside build/release's, named by its path, so that a regression shows.
# Environment: PIPELINES (default "1 16"), TESTS (default "set get mset"), N (default 100000
#   requests), C (default 10 clients).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
shift $(($# > 0 ? 1 : 0))
PIPELINES=${PIPELINES:-"1 16"}
TESTS=${TESTS:-"set get mset"}
N=${N:-100000}
C=${C:-10}
PROXIES=(build/release/app/proxy/perflab-proxy "$@")
for b in "${PROXIES[@]}"; do
  [ -x "$b" ] || {
    echo "$b missing: cmake --preset release && cmake --build build/release --target perflab-proxy" >&2
    exit 2
  }
done
for t in redis-server redis-benchmark nutcracker; do
  command -v "$t" >/dev/null || { echo "$t not installed (apt-get install redis-server redis-tools nutcracker)" >&2; exit 2; }
done
W=$(mktemp -d)
PIDS=()
NODES=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${NODES[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
  wait 2>/dev/null || true
  rm -rf "$W"
}
trap cleanup EXIT
free_port() {  # a port nothing listens on (never measure, or write to, a server not ours)
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
}
wait_port() {
  for _ in $(seq 100); do
    redis-cli -p "$1" ping >/dev/null 2>&1 && return 0
    sleep 0.1
  done
  echo "nothing answers on port $1" >&2
  exit 1
}
{
  echo "bench:"
  echo "  listen: 127.0.0.1:PORT"
  echo "  redis: true"
  echo "  hash: fnv1a_64"
  echo "  distribution: ketama"
  echo "  timeout: 5000"
  echo "  servers:"
} >"$W/pool.yml.in"
for i in 1 2 3 4; do
  p=$(free_port)
  NODES+=("$p")
  redis-server --port "$p" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes \
    --dir "$W" --logfile "$W/node-$p.log"
  echo "    - 127.0.0.1:$p:1 node$i" >>"$W/pool.yml.in"
done
for p in "${NODES[@]}"; do wait_port "$p"; done

NAMES=(redis-server)
PORTS=("${NODES[0]}")
TARGET_PIDS=("$(redis-cli -p "${NODES[0]}" info server | tr -d '\r' | awk -F: '/^process_id:/ {print $2}')")
start() {  # name, then the command with PORT for its port
  local name=$1 port
  shift
  port=$(free_port)
  sed "s/PORT/$port/" "$W/pool.yml.in" >"$W/$port.yml"
  local argv=()
  for a in "$@"; do argv+=("${a//PORT/$port}"); done
  "${argv[@]}" >"$W/$port.log" 2>&1 &
  PIDS+=($!)
  TARGET_PIDS+=($!)
  wait_port "$port"
  NAMES+=("$name")
  PORTS+=("$port")
}
start twemproxy nutcracker -c "$W/PORT.yml" -o "$W/nutcracker-PORT.log"
for b in "${PROXIES[@]}"; do
  start "$b" "$b" --config "$W/PORT.yml" --log-level warn
done
TARGETS=${#NAMES[@]}

cpu_ns() {  # the process's threads' time on a CPU, ns
  cat /proc/"$1"/task/*/schedstat 2>/dev/null | awk '{s += $1} END {printf "%.0f\n", s}'
}
sys_ticks() {  # the process's threads' kernel time (stime), clock ticks
  for f in /proc/"$1"/task/*/stat; do sed 's/^.*) //' "$f" 2>/dev/null; done |
    awk '{s += $13} END {printf "%.0f\n", s}'
}
switches() {  # the process's threads' context switches, voluntary and not
  cat /proc/"$1"/task/*/status 2>/dev/null | awk '/ctxt_switches:/ {s += $2} END {print s + 0}'
}
TICK_NS=$((1000000000 / $(getconf CLK_TCK)))
echo "nodes on ports ${NODES[*]}; -c $C -n $N -r 100000; $ROUNDS rounds; load: $(cut -d' ' -f1-3 /proc/loadavg)"
R=$W/results
: >"$R"
for r in $(seq "$ROUNDS"); do
  for t in $TESTS; do
    for P in $PIPELINES; do
      for k in $(seq 0 $((TARGETS - 1))); do
        i=$(((k + r) % TARGETS))
        pid=${TARGET_PIDS[$i]}
        before=$(cpu_ns "$pid")
        sys_before=$(sys_ticks "$pid")
        sw_before=$(switches "$pid")
        read -r rate p50 p99 < <(redis-benchmark -p "${PORTS[$i]}" -t "$t" -n "$N" -P "$P" -c "$C" \
          -r 100000 --csv 2>/dev/null | tr -d '"' | awk -F, 'NR == 2 {print $2, $5, $7}')
        after=$(cpu_ns "$pid")
        sys=$(($(sys_ticks "$pid") - sys_before))
        sw=$(($(switches "$pid") - sw_before))
        per=$([ "$t" = mset ] && echo 10 || echo 1)
        us=$(awk -v d=$((after - before)) -v n="$N" -v k="$per" 'BEGIN {printf "%.3f", d / 1000 / n / k}')
        echo "$r $t $P $i $us $rate $p50 $p99 $sys $sw $((after - before))" >>"$R"
        echo "round $r ${t^^} -P $P ${NAMES[$i]}: $us µs CPU per request ($rate req/s, p50 $p50 ms, p99 $p99 ms)"
      done
    done
  done
done

# One more round under `perf stat`, when perf can count system calls here: each target's calls
# per request (SET at -P 1: redis-server's read and write, a proxy's two for the client and a
# node's two shared by the requests that went to that node in one loop turn).
S=$W/syscalls
: >"$S"
if command -v perf >/dev/null && perf stat -e raw_syscalls:sys_enter -- true >/dev/null 2>&1; then
  for t in $TESTS; do
    for P in $PIPELINES; do
      for i in $(seq 0 $((TARGETS - 1))); do
        perf stat -x, -o "$W/perf.$i" -e raw_syscalls:sys_enter -p "${TARGET_PIDS[$i]}" &
        counter=$!
        sleep 0.2
        redis-benchmark -p "${PORTS[$i]}" -t "$t" -n "$N" -P "$P" -c "$C" -r 100000 -q >/dev/null 2>&1
        kill -INT "$counter"
        wait "$counter" || true
        per=$([ "$t" = mset ] && echo 10 || echo 1)
        awk -F, -v t="$t" -v P="$P" -v i="$i" -v n="$N" -v k="$per" \
          '/raw_syscalls:sys_enter/ {printf "%s %s %s %.3f\n", t, P, i, $1 / n / k}' "$W/perf.$i" >>"$S"
      done
    done
  done
else
  echo "(perf cannot count system calls here: no calls per request)"
fi

median() {  # numbers on stdin -> "median [min–max]"
  sort -g | awk '{v[NR] = $1} END {
    m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "%.3g [%.3g–%.3g]", m, v[1], v[NR]}'
}
echo
echo "median [min–max] over $ROUNDS rounds; CPU per request (MSET: per key) and the paired ratios"
for t in $TESTS; do
  for P in $PIPELINES; do
    for i in $(seq 0 $((TARGETS - 1))); do
      us=$(awk -v t="$t" -v P="$P" -v i="$i" '$2 == t && $3 == P && $4 == i {print $5}' "$R" | median)
      col() { awk -v t="$t" -v P="$P" -v i="$i" -v k="$1" '$2 == t && $3 == P && $4 == i {print $k}' "$R" | median; }
      line="${t^^} -P $P ${NAMES[$i]}: $us µs per request, $(col 6) req/s, p50 $(col 7) ms, p99 $(col 8) ms"
      if [ "$i" -ge 2 ]; then
        others=(0 1)
        [ "$i" -ge 3 ] && others+=(2)
        for j in "${others[@]}"; do
          ratio=$(awk -v t="$t" -v P="$P" -v i="$i" -v j="$j" '
            $2 == t && $3 == P && $4 == i {a[$1] = $5} $2 == t && $3 == P && $4 == j {b[$1] = $5}
            END {for (r in a) if (b[r] > 0) print a[r] / b[r]}' "$R" | median)
          line+="; / ${NAMES[$j]} $ratio"
        done
      fi
      echo "$line"
      # Where it goes: kernel time and context switches, pooled over the rounds; system calls.
      where=$(awk -v t="$t" -v P="$P" -v i="$i" -v n="$N" -v tick="$TICK_NS" \
        -v k="$([ "$t" = mset ] && echo 10 || echo 1)" '
        $2 == t && $3 == P && $4 == i {sys += $9; sw += $10; cpu += $11; rounds++}
        END {printf "kernel %.3g µs per request (%.0f%% of its CPU; %d ticks), %.3g context switches per request",
          sys * tick / 1000 / (n * k * rounds), 100 * sys * tick / cpu, sys, sw / (n * k * rounds)}' "$R")
      calls=$(awk -v t="$t" -v P="$P" -v i="$i" '$1 == t && $2 == P && $3 == i {print $4}' "$S")
      [ -n "$calls" ] && where+=", $calls system calls per request (one round under perf)"
      echo "    $where"
      if [ "$i" -ge 2 ]; then
        floor=$(awk -v t="$t" -v P="$P" -v i="$i" -v tick="$TICK_NS" '
          $2 == t && $3 == P && $4 == i {sys += $9} $2 == t && $3 == P && $4 == 0 {base += $11}
          END {if (base > 0) printf "%.3g", sys * tick / base}' "$R")
        echo "    its kernel time alone / redis-server's whole CPU per request: $floor (pooled over the rounds)"
      fi
    done
  done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
