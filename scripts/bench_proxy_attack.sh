#!/usr/bin/env bash
# A memory attack on perflab-proxy, and redis-server under the same attack as its peer:
# 20 clients stream 512 MiB SET values (at full speed, then at the 4 MiB/s pace of
# tests/proxy/proxy_memory_test.cpp) while a victim sends PINGs one at a time. Each try starts a
# fresh server (the peak RSS is its VmHWM), over two throwaway Redis nodes started here, and
# takes turns: each proxy build, then Redis itself with maxmemory-clients. Prints every try's
# line (perflab-proxy-attack-bench), then per server and pace the median of the tries with their
# min–max: victim PING (or SET) p50, p99 and max, peak RSS, evictions.
# Usage: scripts/bench_proxy_attack.sh [TRIES] [SECONDS] [OTHER_PROXY_BINARY...]
#   defaults: 5 tries of 20 s each (and at least 1,000 PINGs): at 4 MiB/s each the attackers
#   reach the default bound after 13 s. An other binary (e.g. a release
#   build of an earlier commit) is measured beside build/release's, named by its file name.
# Environment: BOUND (bytes, default 1 GiB: --max-client-memory and Redis's maxmemory-clients),
#   PACES (default "0 4": MiB/s per attacker, 0 is full speed; "idle": no attackers, the
#   victim alone, for the machine's own latency), REDIS_PEER (default 1),
#   PROXY_CPUS / ATTACK_CPUS (CPU lists for taskset: the server / the attackers and victim),
#   FAVOUR (default 0): N > 0 runs the nodes, the server and the victim under nice -n -N and the
#   attackers at the usual priority, as if they were other machines (the attackers' sends take
#   this machine's CPUs otherwise) and the machine's other load counted for less.
#   MODE (default memory): "memory" is the attack above, at each of PACES; "victim" has the
#   victim send 100 KiB SETs (VICTIM_KB) alone, then beside one client streaming 64 MiB values
#   (STREAM_MIB) at full speed: an ordinary large command beside a large one; "fanout" has the
#   victim send PINGs alone, then beside one client sending MSET, MGET and DEL of 1M keys
#   (FANOUT_KEYS) in turn. Their scenarios are "alone" and "beside".
set -euo pipefail
cd "$(dirname "$0")/.."
TRIES=${1:-5}
SECONDS_EACH=${2:-20}
shift $(($# > 2 ? 2 : $#))
BOUND=${BOUND:-1073741824}
PACES=${PACES:-"0 4"}
MODE=${MODE:-memory}
VICTIM_KB=${VICTIM_KB:-100}
STREAM_MIB=${STREAM_MIB:-64}
FANOUT_KEYS=${FANOUT_KEYS:-1000000}
case "$MODE" in
  memory) SCENARIOS=$PACES ;;
  victim | fanout) SCENARIOS="alone beside" ;;
  *) echo "MODE must be memory, victim or fanout, not '$MODE'" >&2; exit 2 ;;
esac
REDIS_PEER=${REDIS_PEER:-1}
BENCH=build/release/core/proxy/perflab-proxy-attack-bench
PROXIES=(build/release/app/proxy/perflab-proxy "$@")
for b in "$BENCH" "${PROXIES[@]}"; do
  [ -x "$b" ] || {
    echo "$b missing: cmake --preset release && cmake --build build/release --target perflab-proxy perflab-proxy-attack-bench" >&2
    exit 2
  }
done
command -v redis-server >/dev/null || { echo "redis-server not installed" >&2; exit 2; }
SERVER_ON=() ATTACK_ON=()  # taskset, execing the command: $! stays the server's pid
[ -n "${PROXY_CPUS:-}" ] && SERVER_ON=(taskset -c "$PROXY_CPUS")
[ -n "${ATTACK_CPUS:-}" ] && ATTACK_ON=(taskset -c "$ATTACK_CPUS")
FAVOUR=${FAVOUR:-0}
if [ "$FAVOUR" -gt 0 ]; then
  SERVER_ON=(nice -n "-$FAVOUR" "${SERVER_ON[@]}")
  ATTACK_ON=(nice -n "-$FAVOUR" "${ATTACK_ON[@]}")
fi
W=$(mktemp -d)
NODES=()
SERVER_PID=
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null && wait "$SERVER_PID" 2>/dev/null
  for p in "${NODES[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
  rm -rf "$W"
}
trap cleanup EXIT
free_port() {
  local p
  while :; do
    p=$((20000 + RANDOM % 20000))
    redis-cli -p "$p" ping >/dev/null 2>&1 || { echo "$p"; return; }
  done
}
wait_ping() {
  for _ in $(seq 100); do redis-cli -p "$1" ping 2>/dev/null | grep -q PONG && return 0; sleep 0.05; done
  echo "no server answers on port $1" >&2
  return 1
}
for _ in 1 2; do
  p=$(free_port)
  "${SERVER_ON[@]}" redis-server --port "$p" --bind 127.0.0.1 --save "" --appendonly no --daemonize yes --dir "$W" \
    --logfile "$W/node-$p.log"
  NODES+=("$p")
  wait_ping "$p"
done
echo "mode $MODE; nodes on ports ${NODES[*]}; $TRIES tries of $SECONDS_EACH s; bound $BOUND bytes; favour $FAVOUR; cores $(nproc); load: $(cut -d' ' -f1-3 /proc/loadavg)"
# One try of one server at one pace (or scenario): starts it, attacks it, stops it; the line
# goes to $W/lines.
attack() {
  local name=$1 pace=$2 port
  port=$(free_port)
  shift 2
  if [ "$name" = redis ]; then
    "${SERVER_ON[@]}" redis-server --port "$port" --bind 127.0.0.1 --save "" \
      --appendonly no --maxmemory-clients "$BOUND" --dir "$W" --logfile "$W/peer.log" &
  else
    "${SERVER_ON[@]}" "$1" --port "$port" --max-client-memory "$BOUND" \
      "--nodes=127.0.0.1:${NODES[0]},127.0.0.1:${NODES[1]}" 2>>"$W/$name.log" &
  fi
  SERVER_PID=$!
  wait_ping "$port"
  local attackers=20 rate=$pace label="$name pace=$pace" args=()
  [ "$pace" = idle ] && attackers=0 rate=0
  if [ "$MODE" != memory ]; then
    label="$name $MODE $pace" attackers=1 rate=0
    [ "$pace" = alone ] && attackers=0
    if [ "$MODE" = victim ]; then
      args=(--victim-set-kb "$VICTIM_KB" --value-mib "$STREAM_MIB")
    else
      args=(--fanout-keys "$FANOUT_KEYS" --min-pings 100)
    fi
  fi
  "${ATTACK_ON[@]}" "$BENCH" --port "$port" --pid "$SERVER_PID" --clients "$attackers" --rate-mib "$rate" \
    --attack-nice "$FAVOUR" --seconds "$SECONDS_EACH" --label "$label" "${args[@]}" | tee -a "$W/lines"
  kill "$SERVER_PID"
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=
}
for t in $(seq "$TRIES"); do
  for pace in $SCENARIOS; do
    for b in "${PROXIES[@]}"; do
      name=$(basename "$b")
      [ "$b" = "${PROXIES[0]}" ] && name=this-build
      attack "$name" "$pace" "$b"
    done
    [ "$REDIS_PEER" = 1 ] && attack redis "$pace"
  done
  echo "try $t done; load: $(cut -d' ' -f1-3 /proc/loadavg)"
done
echo
echo "median [min–max] over $TRIES tries:"
# grab: the number of a line's "word N" or "N word".
awk '
  function grab(re,   s, f) {
    if (!match($0, re)) return ""
    split(substr($0, RSTART, RLENGTH), f, " ")
    return (f[1] ~ /^[0-9.]+$/) ? f[1] : f[2]
  }
  {
    key = substr($0, 1, index($0, ":") - 1)
    keys[key] = 1; n[key]++
    v["p50", key, n[key]] = grab("p50 [0-9.]+")
    v["p99", key, n[key]] = grab("p99 [0-9.]+")
    v["max", key, n[key]] = grab("max [0-9.]+ ms")
    v["peak", key, n[key]] = grab("peak [0-9.]+")
    v["evicted", key, n[key]] = grab("[0-9]+ evicted")
    v["pings", key, n[key]] = grab("victim [0-9]+")
  }
  function summary(what, key,   i, j, a, m, c, t) {
    c = n[key]
    for (i = 1; i <= c; i++) a[i] = v[what, key, i] + 0
    for (i = 2; i <= c; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    m = (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
    return sprintf("%s %.6g [%.6g–%.6g]", what, m, a[1], a[c])
  }
  END {
    for (k in keys)
      printf "%s: victim %s ms, %s ms, %s ms; %s MiB; %s; %s\n", k, summary("p50", k), summary("p99", k),
        summary("max", k), summary("peak", k), summary("evicted", k), summary("pings", k)
  }' "$W/lines" | sort
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
