#!/usr/bin/env bash
# The `layering_params_read` test: an experiment reads its parameters once, into its settings
# (core/<area>/settings.{h,cpp}; the runner's own in core/runner/settings.cpp). Lists every read
# of a parameter by name (Params::get_int("..."), get_double, ...) in any other file under DIR.
set -euo pipefail
dir=$(realpath "${1:?usage: check_params_read.sh DIR}")
cd "$dir"
pattern='get_(int|double|bool|string|choice|subset|int_list)\("'
mapfile -t reads < <(grep -rnE --include='*.cpp' --include='*.h' "$pattern" . |
  grep -vE '^\./([^/]+/)*settings\.(h|cpp):' || true)
if [ ${#reads[@]} -gt 0 ]; then
  echo "params: ${#reads[@]} parameter read(s) by name outside a settings file (move them into"
  echo "the experiment's settings, read once with its from()):"
  printf '  %s\n' "${reads[@]}"
  exit 1
fi
echo "params: every parameter of $dir is read in a settings file"
