#!/bin/sh
# Installs the Debian packages trainscope needs to build, test and fuzz.
# Safe to re-run: it only calls apt-get when something is missing.
set -eu
PACKAGES="cmake ninja-build g++ clang libclang-rt-14-dev pkg-config \
  libsimdjson-dev libfmt-dev libcli11-dev zlib1g-dev libsqlite3-dev \
  libgtest-dev libbenchmark-dev time bc chromium ccache clang-format clang-tidy \
  libopenmpi-dev openmpi-bin nodejs python3-jsonschema \
  pybind11-dev python3-dev python3-numpy python3-pandas python3-pytest python3-matplotlib"
missing=""
for p in $PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "installing:$missing"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
fi
