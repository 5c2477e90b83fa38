#!/usr/bin/env bash
# Installs what is missing, builds (release preset) and runs every test that
# needs no GPU. The README's test command and .ci/run both call this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release | grep "llm-perf-opt:" || true
cmake --build --preset release -j "$(nproc)"
ctest --preset release -j "$(nproc)" --label-exclude gpu
