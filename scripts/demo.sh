#!/bin/sh
# Set-up command 1: install dependencies, build (release), and run the main
# job on the built-in demo profile.
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release --target trainscope
exec build/release/src/cli/trainscope demo --out build/demo-job "$@"
