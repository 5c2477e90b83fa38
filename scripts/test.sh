#!/usr/bin/env bash
# Installs what is missing, builds (release preset) and runs every test that
# needs no GPU. The README's test command and .ci/run both call this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# setup installed Nsight Systems and Compute (unless LLMPO_NSIGHT=0): the
# nsight tier must then find them and fails, not skips, where they are missing.
[[ ${LLMPO_NSIGHT:-1} == 0 ]] || export LLMPO_REQUIRE_NSIGHT=1
log=$(mktemp); trap 'rm -f "$log"' EXIT
cmake --preset release >"$log" 2>&1 || { cat "$log"; exit 1; }
grep "llm-perf-opt:" "$log" || true  # what optional parts are enabled, and why
cmake --build --preset release -j "$(nproc)"
ctest --preset release -j "$(nproc)" --label-exclude gpu
