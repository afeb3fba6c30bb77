#!/usr/bin/env bash
# twemproxy's own Redis test suite (its repository's tests/, run with nose) against perflab-proxy:
# a copy of the suite whose "nutcracker" starts perflab-proxy from the nutcracker YAML the suite
# writes (--config, --log-file, --stats-port), with a command line that begins as nutcracker's,
# so that the suite's pgrep and pkill find it. Prints nose's verdict per test and the count that
# passed; docs/proxy.md says which eight tests differ on purpose.
# Usage: scripts/twemproxy_suite.sh TWEMPROXY_TESTS_DIR [PERFLAB_PROXY]
#   default proxy: build/release/app/proxy/perflab-proxy. Needs python3-nose and python3-redis
#   (apt), redis-server and redis-tools.
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] && [ -d "$1/test_redis" ] || {
  echo "usage: $0 TWEMPROXY_TESTS_DIR [PERFLAB_PROXY] (the directory holding test_redis/)" >&2
  exit 2
}
SUITE=$1
PROXY=$(realpath "${2:-build/release/app/proxy/perflab-proxy}")
[ -x "$PROXY" ] || { echo "no program $PROXY" >&2; exit 2; }
PY=/usr/bin/python3  # Debian's, where python3-nose is installed
"$PY" -c 'import nose, redis' 2>/dev/null || {
  echo "needs python3-nose and python3-redis (apt-get install python3-nose python3-redis)" >&2
  exit 2
}
W=$(mktemp -d)
# The suite stops its servers; a proxy left by an interrupted run is the suite's own (/tmp/r).
trap 'pkill -9 -f "^bin/nutcracker -d -c /tmp/r/" 2>/dev/null || true; rm -rf "$W"' EXIT
cp -r "$SUITE" "$W/tests"
B="$W/tests/_binaries"
mkdir -p "$B"
for b in redis-server redis-cli redis-benchmark redis-check-aof; do
  ln -sf "$(command -v "$b")" "$B/$b"
done
cat > "$B/nutcracker" <<WRAPPER
#!/usr/bin/env bash
# nutcracker's options (-d -c CONF -o LOG -p PIDFILE -s STATS_PORT -v -m -i) as perflab-proxy's.
orig="\$0 \$*"
while getopts "dc:o:p:s:v:m:i:a:" o; do
  case \$o in c) conf=\$OPTARG ;; o) log=\$OPTARG ;; p) pidf=\$OPTARG ;; s) sp=\$OPTARG ;; *) ;; esac
done
setsid bash -c 'exec -a "\$0" "$PROXY" --config "\$1" --log-file "\$2" --stats-port "\$3" \
  --bind 0.0.0.0' "\$orig" "\$conf" "\$log" "\$sp" < /dev/null > /dev/null 2>&1 &
echo \$! > "\$pidf"
sleep 0.2
WRAPPER
chmod +x "$B/nutcracker"
cd "$W/tests"
"$PY" -m nose -v test_redis 2>&1 | tee "$W/nose.log" | grep -E '\.\.\. (ok|FAIL|ERROR)$' || true
echo "passed: $(grep -cE '\.\.\. ok$' "$W/nose.log") of $(grep -cE '\.\.\. (ok|FAIL|ERROR)$' "$W/nose.log")"
