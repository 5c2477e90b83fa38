#!/usr/bin/env bash
# The main job: install what is missing, build, check the machine, then
#  - with a GPU and ncu: profile the default workload with ncu (extra
#    arguments are passed on as overrides, or `-- CMD...` for your program);
#  - without them: say what is missing, print the exact commands a run would
#    execute, and write a run folder with the provenance files.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
cmake --preset release -DLLMPO_BUILD_TESTS=OFF >/dev/null
cmake --build --preset release -j "$(nproc)" --target llm-perf-opt >/dev/null
tool=./build/release/llm-perf-opt

"$tool" doctor
echo
if command -v ncu >/dev/null && command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  exec "$tool" profile pipeline.ncu.enable=true "$@"
fi
echo "No GPU with ncu here, so nothing can be measured. The commands a run would execute:"
"$tool" profile --dry-run pipeline.ncu.enable=true "$@"
echo
echo "Writing a run folder with the provenance files (profiling steps disabled):"
exec "$tool" profile "$@"
