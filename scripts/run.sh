#!/usr/bin/env bash
# The main job: install what is missing, build, and run `llm-perf-opt profile`
# with the default configuration (extra arguments are passed on as overrides).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release -DLLMPO_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release -j "$(nproc)" --target llm-perf-opt >/dev/null
exec ./build/release/llm-perf-opt profile "$@"
