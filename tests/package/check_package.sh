#!/usr/bin/env bash
# The `package` test: cpack makes perflab's .deb from a release build tree; its control fields and
# contents are checked, then it is unpacked into a scratch root and used from there.
#
# From the unpacked root: each program's --version, perflab-proxy --help, the man pages render
# (man -l, and groff -ww without a warning), the unit passes systemd-analyze verify, the desktop
# file validates, bash completion offers subcommands, experiments, plans and run files; and the
# installed perflab-proxy, started on the packaged sample configuration in front of a
# redis-server of its own, answers PING, routes a SET and reopens its log on SIGHUP, and the
# installed perflab-cli's bench runs through it.
#
# usage: check_package.sh BUILD_DIR VERSION   (perflab, perflab-cli, perflab-proxy and man-pages
# built; VERSION the CMake project's)
set -euo pipefail

usage="usage: check_package.sh BUILD_DIR VERSION"
build=$(realpath "${1:?$usage}")
project_version=${2:?$usage}
work=$(mktemp -d /tmp/perflab-package.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null && wait "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
fail() {
  echo "package: $*" >&2
  exit 1
}
started=$SECONDS

# 1. The package, made into the scratch folder (the build tree is left as it was).
cpack --config "$build/CPackConfig.cmake" -B "$work/out" >"$work/cpack.log" 2>&1 ||
  { cat "$work/cpack.log"; fail "cpack failed"; }
debs=("$work"/out/perflab_*_amd64.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "no perflab_VERSION_amd64.deb in $work/out"
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
echo "package: $(basename "$deb"), $(du -k "$deb" | cut -f1) KiB," \
  "Installed-Size $(dpkg-deb -f "$deb" Installed-Size) KiB"

# 2. Control fields: Depends from dpkg-shlibdeps (Qt, libpq, hiredis...), the servers recommended.
dpkg-deb -I "$deb" >"$work/info" || fail "dpkg-deb -I cannot read the package"
field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = perflab ] || fail "Package is '$(field Package)'"
[ "$(field Architecture)" = amd64 ] || fail "Architecture is '$(field Architecture)'"
[ "$version" = "$project_version" ] || fail "Version $version is not the project's $project_version"
for f in Maintainer Section Description; do [ -n "$(field $f)" ] || fail "no $f field"; done
depends=$(field Depends)
for lib in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libpq5 \
  libhiredis; do
  [[ $depends == *"$lib"* ]] || fail "Depends lacks $lib: $depends"
done
recommends=$(field Recommends)
for p in postgresql-15 postgresql-client-15 redis-server redis-tools; do
  [[ ", $recommends," == *", $p,"* ]] || fail "Recommends lacks $p: $recommends"
done
suggests=$(field Suggests)
for p in nutcracker pgbouncer; do
  [[ ", $suggests," == *", $p,"* ]] || fail "Suggests lacks $p: $suggests"
done
dpkg-deb -e "$deb" "$work/control"
for f in /etc/perflab/perflab-proxy.yml /etc/logrotate.d/perflab-proxy; do
  grep -qx "$f" "$work/control/conffiles" || fail "$f is not a conffile"
done
for s in postinst prerm postrm; do sh -n "$work/control/$s" || fail "$s is not valid sh"; done

# 3. Contents.
dpkg-deb -c "$deb" | awk '{ print $6 }' >"$work/contents"
for f in ./usr/bin/perflab ./usr/bin/perflab-cli ./usr/bin/perflab-proxy \
  ./usr/share/man/man1/perflab.1.gz ./usr/share/man/man1/perflab-cli.1.gz \
  ./usr/share/man/man1/perflab-proxy.1.gz \
  ./usr/share/bash-completion/completions/perflab-cli \
  ./usr/share/bash-completion/completions/perflab-proxy \
  ./usr/share/applications/perflab.desktop ./usr/share/mime/packages/perflab-run.xml \
  ./usr/share/icons/hicolor/scalable/apps/perflab.svg \
  ./usr/share/doc/perflab/examples/perflab-proxy.yml \
  ./usr/lib/systemd/system/perflab-proxy.service \
  ./etc/perflab/perflab-proxy.yml ./etc/logrotate.d/perflab-proxy; do
  grep -qx -- "$f" "$work/contents" || fail "the package lacks $f"
done
expected='^\./(usr/(bin|share|lib/systemd)|etc/(perflab|logrotate\.d))(/|$)|^\./((usr|usr/lib|etc)/)?$'
stray=$(grep -vE "$expected" "$work/contents" || true)
[ -z "$stray" ] || fail "unexpected paths in the package: $stray"

# 4. The programs, from the unpacked package.
root=$work/root
dpkg -x "$deb" "$root"
bin=$root/usr/bin
for p in perflab-cli perflab-proxy; do
  [ "$("$bin/$p" --version)" = "perflab $version" ] ||
    fail "$p --version: $("$bin/$p" --version 2>&1)"
done
[ "$(QT_QPA_PLATFORM=offscreen "$bin/perflab" --version)" = "perflab $version" ] ||
  fail "perflab --version: $(QT_QPA_PLATFORM=offscreen "$bin/perflab" --version 2>&1)"
"$bin/perflab-proxy" --help >"$work/proxy-help.txt" || fail "perflab-proxy --help failed"
grep -q -- '--config' "$work/proxy-help.txt" || fail "perflab-proxy --help names no --config"
unit=$root/usr/lib/systemd/system/perflab-proxy.service
grep -q "^ExecStart=/usr/bin/perflab-proxy --config /etc/perflab/perflab-proxy.yml " "$unit" ||
  fail "the unit does not run the packaged proxy on the packaged configuration"
# systemd's own check of the unit, its program the unpacked one (the man page is not installed).
sed "s|/usr/bin/perflab-proxy|$bin/perflab-proxy|" "$unit" >"$work/perflab-proxy.service"
systemd-analyze verify --man=no "$work/perflab-proxy.service" ||
  fail "systemd-analyze rejects the unit"

# 5. Man pages: rendered by man, and groff finds nothing to warn about.
for page in perflab perflab-cli perflab-proxy; do
  file=$root/usr/share/man/man1/$page.1.gz
  MANWIDTH=80 man -l "$file" >"$work/$page.txt" 2>"$work/$page.err" ||
    fail "man -l $page: $(cat "$work/$page.err")"
  grep -q "^NAME" "$work/$page.txt" && grep -q "$page" "$work/$page.txt" ||
    fail "man -l $page renders no NAME"
  warnings=$(zcat "$file" | groff -man -Tutf8 -ww -z 2>&1)
  [ -z "$warnings" ] || fail "groff warns about $page.1: $warnings"
done
grep -q -- "--backend-timeout" "$work/perflab-proxy.txt" || fail "perflab-proxy.1 lacks its options"
for sub in list run compare export chart report bench; do
  grep -q "perflab-cli $sub" "$work/perflab-cli.txt" || fail "perflab-cli.1 lacks the $sub command"
done
grep -q -- "--pg-timeout" "$work/perflab-cli.txt" || fail "perflab-cli.1 lacks run's options"

# 6. The desktop entry.
# Its hints count too (two main categories put the entry in two menus).
said=$(desktop-file-validate "$root/usr/share/applications/perflab.desktop" 2>&1) &&
  [ -z "$said" ] || fail "desktop-file-validate: $said"

# 7. Bash completion, as bash-completion loads it. complete_words WORD... prints what the last
# word completes to, one [choice] per line.
mkdir "$work/runs" && touch "$work/runs/old.json" "$work/runs/notes.txt"
complete_words() {
  (cd "$work/runs" && PATH=$bin:$PATH bash -c '
    source /usr/share/bash-completion/bash_completion
    source "$1"
    shift
    COMP_WORDS=("$@")
    COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
    COMP_LINE="$*"
    COMP_POINT=${#COMP_LINE}
    fn=$(complete -p "$1" | awk "{ print \$3 }")
    "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "[%s]\n" "${COMPREPLY[@]}"
  ' complete "$root/usr/share/bash-completion/completions/$1" "$@")
}
expect_completion() {
  local want=$1
  shift
  local got
  got=$(complete_words "$@")
  grep -qxF -- "[$want]" <<<"$got" || fail "completing '$*' does not offer $want (got: ${got//$'\n'/ })"
}
expect_completion run perflab-cli r
expect_completion iolist perflab-cli run ""
expect_completion lecture perflab-cli run iolist --plan ""
expect_completion writers= perflab-cli run iolist --param w
expect_completion --pg-timeout perflab-cli run iolist --pg-t
expect_completion old.json perflab-cli chart ""
grep -qF notes.txt <<<"$(complete_words perflab-cli chart "")" &&
  fail "chart's RUN.json completes to a .txt file"
expect_completion percent perflab-cli compare -d ""
expect_completion --config perflab-proxy --con
expect_completion no perflab-proxy --protected-mode ""
[ -L "$root/usr/share/bash-completion/completions/perflab-proxy" ] ||
  fail "perflab-proxy's completion is not a link to perflab-cli's"

# 8. The installed perflab-proxy on the packaged configuration, its server pointed at a
# redis-server of this test's own on a free loopback port.
redis_port=
for _ in 1 2 3 4 5; do
  port=$((20000 + RANDOM % 20000))
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
    >"$work/redis.log" 2>&1 &
  rpid=$!
  for _ in $(seq 50); do
    if grep -q "^process_id:$rpid" <<<"$(redis-cli -p "$port" info server 2>/dev/null)"; then
      redis_port=$port
      break
    fi
    kill -0 "$rpid" 2>/dev/null || break
    sleep 0.1
  done
  if [ -n "$redis_port" ]; then pids+=("$rpid"); break; fi
  kill "$rpid" 2>/dev/null || true
  wait "$rpid" 2>/dev/null || true
done
[ -n "$redis_port" ] || fail "no redis-server of its own could start: $(cat "$work/redis.log")"
sed "s/127\.0\.0\.1:6379:1/127.0.0.1:$redis_port:1/" "$root/etc/perflab/perflab-proxy.yml" \
  >"$work/proxy.yml"
grep -q ":$redis_port:1" "$work/proxy.yml" ||
  fail "the sample configuration names no 127.0.0.1:6379 server"
"$bin/perflab-proxy" --config "$work/proxy.yml" --port 0 --log-file "$work/proxy.log" \
  2>"$work/proxy.err" &
pids+=($!)
proxy_port=
for _ in $(seq 100); do
  if [ -f "$work/proxy.log" ]; then
    proxy_port=$(sed -nE 's/.*listening on 127\.0\.0\.1:([0-9]+).*/\1/p' "$work/proxy.log" |
      head -n 1)
    [ -n "$proxy_port" ] && break
  fi
  kill -0 "${pids[-1]}" 2>/dev/null || fail "perflab-proxy exited: $(cat "$work/proxy.err")"
  sleep 0.1
done
[ -n "$proxy_port" ] || fail "perflab-proxy did not say where it listens: $(cat "$work/proxy.log")"
[ "$(redis-cli -p "$proxy_port" PING)" = PONG ] || fail "PING through perflab-proxy: not PONG"
redis-cli -p "$proxy_port" SET perflab:package:key routed >/dev/null
[ "$(redis-cli -p "$redis_port" GET perflab:package:key)" = routed ] ||
  fail "a SET through perflab-proxy did not reach its redis-server"
"$bin/perflab-cli" bench -p "$proxy_port" -c 2 -n 200 -t set,get -q >"$work/bench.txt" 2>&1 ||
  fail "the installed perflab-cli bench through perflab-proxy failed: $(cat "$work/bench.txt")"
grep -qi "GET" "$work/bench.txt" || fail "bench printed no GET result: $(cat "$work/bench.txt")"
mv "$work/proxy.log" "$work/proxy.log.1"
kill -HUP "${pids[-1]}"
for _ in $(seq 50); do [ -s "$work/proxy.log" ] && break; sleep 0.1; done
[ -s "$work/proxy.log" ] || fail "perflab-proxy did not reopen its log on SIGHUP"

echo "package: all checks passed in $((SECONDS - started)) s"
