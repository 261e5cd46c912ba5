#!/bin/sh
# Configures build/ci-files: the ci preset with one compile command per src/
# file (no unity batches, no tests, no benchmarks; seconds, nothing built),
# for the tools that read a file at a time (scripts/tidy.sh FILE...,
# scripts/check_includes.sh). Prints the folder.
set -eu
cd "$(dirname "$0")/.."
cmake --preset ci -B build/ci-files -DTRAINSCOPE_UNITY=OFF -DTRAINSCOPE_UNITY_TESTS=OFF \
  -DBUILD_TESTING=OFF -DTRAINSCOPE_BENCH=OFF >/dev/null
echo build/ci-files
