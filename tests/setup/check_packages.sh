#!/usr/bin/env bash
# The `setup` test: every system file a configured, built Perflab tree uses must come from a
# Debian package that scripts/deps.sh installs — listed there, reachable from the list through
# hard Depends/Pre-Depends, or essential. Otherwise a fresh Debian 12 machine cannot build
# Perflab, however green CI is on a machine that happens to have the package.
#
# Files collected: headers from the compiler's dependency files (ninja -t deps), every absolute
# path in build.ninja that names a file (link-line libraries, tools such as protoc and moc, the
# compiler, every CMake file configure read), the CMake package configs of every *_DIR cache
# entry, -lNAME libraries resolved like the linker does, and the linker a -fuse-ld=NAME names.
# Owners come from dpkg's file lists, read once.
#
# usage: check_packages.sh SOURCE_DIR BUILD_DIR [--without PKG]...
#   --without PKG  pretend PKG is not in deps.sh (proves the check names a missing package)
set -euo pipefail

src=${1:?usage: check_packages.sh SOURCE_DIR BUILD_DIR [--without PKG]...}
build=${2:?usage: check_packages.sh SOURCE_DIR BUILD_DIR [--without PKG]...}
shift 2
without=()
while [ $# -gt 0 ]; do
  case $1 in
    --without) without+=("${2:?--without needs a package}"); shift 2 ;;
    *) echo "setup: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
src=$(realpath "$src")
build=$(realpath "$build")
[ -f "$build/build.ninja" ] && [ -f "$build/CMakeCache.txt" ] ||
  { echo "setup: $build is not a configured Ninja build" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# 1. The packages deps.sh installs (minus --without).
"$src/scripts/deps.sh" --list | tr ' ' '\n' | sed '/^$/d' | sort -u > "$work/listed"
for p in "${without[@]}"; do grep -vx -- "$p" "$work/listed" > "$work/l2" || true; mv "$work/l2" "$work/listed"; done

# 2. Every package reachable from them through hard dependencies, plus the essential ones.
# shellcheck disable=SC2046
apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances $(cat "$work/listed") 2>/dev/null |
  awk '/^[^ <]/ { sub(/:.*/, "", $1); print $1 }' > "$work/reach"
dpkg-query -W -f='${Package} ${Essential}\n' | awk '$2 == "yes" { print $1 }' >> "$work/reach"
cat "$work/listed" >> "$work/reach"
sort -u "$work/reach" -o "$work/reach"

# 3. The system files the build uses. Files read only when present are not needed on a fresh
# machine: GTestConfig.cmake includes GMockTargets.cmake OPTIONAL (libgmock-dev, unused).
optional='^/usr/lib/x86_64-linux-gnu/cmake/GTest/GMockTargets'

{
  ninja -C "$build" -t deps 2>/dev/null | awk '/^    \// { print $1 }'
  # Absolute paths in the build rules: link-line libraries, tools (compiler, protoc, moc),
  # include directories, and every CMake file the configure step read (re-run dependencies).
  # The cache is not read: it also records libraries CMake found but nothing links (libGLU).
  # A path ends at a backslash too: a tool a test runs, in an escaped define (-DTOOL=\"/usr/...\").
  { grep -ohE '(^|[ =;:"'\''(])/(usr|lib|lib64|bin|sbin|etc|opt)/[^ ;:"'\'')\\]+' \
    "$build/build.ninja" || true; } | sed -E 's/^[ =;:"'\''(]//'
  # Package configs: <Name>_DIR:PATH=<dir> -> the config file in that dir.
  sed -nE 's/^[A-Za-z0-9_]+_DIR:PATH=(\/.*)$/\1/p' "$build/CMakeCache.txt" | while read -r d; do
    ls "$d"/*[Cc]onfig.cmake 2>/dev/null || true
  done
  # -lNAME on link lines, resolved in the linker's default directories.
  { grep -ohE '(^| )-l[A-Za-z0-9_+.-]+' "$build/build.ninja" || true; } | sed 's/^ *-l//' | sort -u |
    while read -r l; do
      for d in /usr/lib/x86_64-linux-gnu /usr/lib /lib/x86_64-linux-gnu /lib; do
        if [ -e "$d/lib$l.so" ]; then echo "$d/lib$l.so"; break; fi
        if [ -e "$d/lib$l.a" ]; then echo "$d/lib$l.a"; break; fi
      done
    done
  # The linker a -fuse-ld=NAME on link lines has the compiler run: ld.NAME on the PATH.
  { grep -ohE '(^| )-fuse-ld=[a-z]+' "$build/build.ninja" || true; } | sed 's/^ *-fuse-ld=//' |
    sort -u | while read -r l; do command -v "ld.$l" || true; done
} | sort -u | grep -vE "$optional" | while read -r f; do
  # Regular files (or links to one) outside this tree; directories are not owned by one package.
  case $f in "$src"/*|"$build"/*) continue ;; esac
  [ -f "$f" ] || continue
  if [ -L "$f" ]; then
    # A link is checked when a package owns it (libfoo.so of a -dev package); links made by
    # update-alternatives (/usr/bin/c++) are owned by none. The file it leads to is checked too.
    echo "?$f"
    realpath -e "$f"
  else
    echo "$f"
  fi
done | sort -u > "$work/files"

# 4. Owners from dpkg's file lists, read once. Paths are compared in their /usr-merged form.
awk -v files="$work/files" -v reach="$work/reach" '
  function merged(p) { sub(/^\/(lib|lib64|bin|sbin)\//, "/usr/&", p); sub(/^\/usr\/\//, "/usr/", p); return p }
  BEGIN {
    while ((getline l < reach) > 0) { ok[l] = 1; nok++ }
    while ((getline l < files) > 0) {
      optional = sub(/^\?/, "", l)
      if (optional) link[merged(l)] = 1
      want[merged(l)] = l; nwant++
    }
  }
  FNR == 1 { pkg = FILENAME; sub(/.*\//, "", pkg); sub(/\.list$/, "", pkg); sub(/:.*/, "", pkg) }
  { m = merged($0); if (m in want) owners[m] = owners[m] " " pkg }
  END {
    bad = 0
    for (m in want) {
      n = split(owners[m], o, " ")
      if (n == 0) { if (!(m in link)) unowned[want[m]] = 1; continue }
      good = 0
      for (i = 1; i <= n; i++) if (o[i] in ok) good = 1
      if (!good) { for (i = 1; i <= n; i++) { if (!(o[i] in example)) example[o[i]] = want[m]; count[o[i]]++ } }
    }
    for (p in example) {
      printf "setup: package %s is used by the build (%d file%s, e.g. %s) but is not in scripts/deps.sh, nor a hard dependency of a package listed there\n", p, count[p], (count[p] > 1 ? "s" : ""), example[p]
      bad = 1
    }
    for (f in unowned) { printf "setup: %s is used by the build but belongs to no Debian package\n", f; bad = 1 }
    printf "setup: %d system files checked against %d packages in reach of deps.sh\n", nwant, nok > "/dev/stderr"
    exit bad
  }
' /var/lib/dpkg/info/*.list
