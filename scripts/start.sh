#!/usr/bin/env bash
# Builds Perflab (release preset: the window, the CLI and the proxy, not the tests) and starts
# it on managed local servers: the desktop window when a display is available, otherwise
# `perflab-cli run iolist`, which prints its results and writes the run file. Installs missing
# Debian packages first. Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)" --target perflab perflab-cli perflab-proxy

bin=build/release/app
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec "$bin/gui/perflab" "$@"
fi
echo "start: no display; running the IO-list experiment from the command line instead" >&2
mkdir -p runs
exec "$bin/cli/perflab-cli" run iolist --out "runs/iolist-$(date +%Y%m%d-%H%M%S).json" "$@"
