#!/usr/bin/env bash
# Installs the Debian 12 packages Perflab needs to build, test and run — only the missing ones.
# Safe to run again. Uses sudo when not root.
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config clang-format
  # the linker (lld links the sanitized test binaries in a third of GNU ld's time)
  lld
  # clang and libFuzzer for the RESP fuzz target (tests/fuzz)
  clang-14 libclang-rt-14-dev
  # libraries
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev
  libpq-dev libhiredis-dev zlib1g-dev libprotobuf-dev protobuf-compiler nlohmann-json3-dev
  libsimdjson-dev libmsgpack-cxx-dev
  # the other libraries perflab-codec-bench measures the caching records' decode with
  rapidjson-dev libcereal-dev
  libcli11-dev libyaml-dev libpqxx-dev
  libgtest-dev
  # servers and peers the experiments start (managed servers) or compare with
  postgresql-15 postgresql-client-15 redis-server redis-tools nutcracker pgbouncer
  # pdftotext and pdfimages: the report tests decode the PDF it writes
  poppler-utils
  # fonts for charts (the GUI tests run on Qt's offscreen platform, no X server needed)
  fonts-dejavu-core
  # the Debian package (packaging/, tests/package): help2man makes the man pages at build time;
  # cpack's dpkg-shlibdeps (dpkg-dev, with file) computes Depends; the package test renders the
  # man pages (man-db), verifies the systemd unit (systemd-analyze), validates the desktop entry
  # and loads the bash completion
  help2man dpkg-dev file man-db systemd desktop-file-utils bash-completion
)

# `deps.sh --list` prints the list (the setup test checks the build against it).
if [ "${1:-}" = "--list" ]; then
  echo "${PACKAGES[*]}"
  exit 0
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#PACKAGES[@]} Debian packages are installed"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
  SUDO="sudo"
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Debian's server packages try to start their services on install; Perflab runs its own.
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
  $SUDO chmod +x /usr/sbin/policy-rc.d
  trap '$SUDO rm -f /usr/sbin/policy-rc.d' EXIT
fi
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
