#!/usr/bin/env bash
# The `setup` format test: every C++ source and header of the project is formatted with the
# repo's .clang-format (clang-format -i fixes it). Lists the files that are not.
set -euo pipefail
src=$(realpath "${1:?usage: check_format.sh SOURCE_DIR}")
cd "$src"
mapfile -t files < <(find core app tests -type f \( -name '*.cpp' -o -name '*.h' \) | sort)
mapfile -t bad < <(clang-format --style=file --dry-run "${files[@]}" 2>&1 |
  sed -nE 's/^([^:]+):[0-9]+:[0-9]+: (warning|error): code should be clang-formatted.*/\1/p' |
  sort -u)
if [ ${#bad[@]} -gt 0 ]; then
  echo "format: ${#bad[@]} file(s) differ from .clang-format (run: clang-format -i FILE):"
  printf '  %s\n' "${bad[@]}"
  exit 1
fi
echo "format: ${#files[@]} files formatted as .clang-format says"
