#!/usr/bin/env bash
# Makes a program's man page at build time (packaging/CMakeLists.txt): help2man reads the
# program's own --help and --version and adds the include file's sections; gzipped for man1/.
#
# With --subcommands, each command the Subcommands section of `PROGRAM --help` lists (perflab-cli's)
# becomes a subsection of COMMANDS: help2man makes its page from `PROGRAM SUBCOMMAND --help`, and
# that page's body goes one level down (its SYNOPSIS heads the subsection, its DESCRIPTION and
# OPTIONS become paragraphs).
#
# usage: man_page.sh HELP2MAN GZIP OUT.1.gz INCLUDE.h2m PROGRAM [--subcommands]
set -euo pipefail
help2man=$1 gzip=$2 out=$3 include=$4 program=$5
subcommands=${6:-}
name=$(basename "$program")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

includes=()
if [ "$subcommands" = --subcommands ]; then
  "$program" --help >"$tmp/help.txt"
  mapfile -t subs < <(awk '$0 == "Subcommands:" { on = 1; next } /^[^ ]/ { on = 0 }
    on && NF { print $1 }' "$tmp/help.txt")
  [ ${#subs[@]} -gt 0 ] || { echo "man_page.sh: $name --help lists no Subcommands" >&2; exit 1; }
  echo "[COMMANDS]" >"$tmp/commands.h2m"
  for sub in "${subs[@]}"; do
    "$help2man" --no-info --help-option="$sub --help" --name="$name $sub" --output="$tmp/$sub.1" \
      "$program"
    awk -v title="$name $sub" -v page="$name $sub" '
      /^\.SH SYNOPSIS$/ { body = 1; print ".SS \"" title "\""; next }
      !body { next }
      /^\.SH DESCRIPTION$/ { print ".PP"; next }
      /^\.SH OPTIONS$/ { print ".PP"; print "Options:"; next }
      /^\.SS "/ { t = $0; sub(/^\.SS "/, "", t); sub(/"$/, "", t); print ".PP"; print t; next }
      /^\.SH / { print "man_page.sh: unexpected section in " page ": " $0 > "/dev/stderr"; exit 1 }
      { print }
      END { if (!body) { print "man_page.sh: no SYNOPSIS in " page > "/dev/stderr"; exit 1 } }
    ' "$tmp/$sub.1" >>"$tmp/commands.h2m"
  done
  # First, so that COMMANDS comes before the include file's own extra sections.
  includes+=(--include="$tmp/commands.h2m")
fi
includes+=(--include="$include")
"$help2man" --no-info "${includes[@]}" --output="$tmp/$name.1" "$program"
mkdir -p "$(dirname "$out")"
"$gzip" -9n <"$tmp/$name.1" >"$out.tmp"
mv "$out.tmp" "$out"
