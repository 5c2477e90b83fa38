#!/usr/bin/env bash
# The main job: install what is missing, build (the binary, the bundled
# workloads and the tracer library), check the machine, then
#  - with a GPU and ncu: profile the default workload with ncu and write
#    every report (extra arguments are passed on as overrides, or
#    `-- CMD...` for your program);
#  - with a GPU and nsys but no ncu: profile its timeline with nsys;
#  - with a GPU and neither: run it under our NVTX + CUPTI tracer (`trace`);
#  - without a GPU: say what is missing, print the exact commands a run would
#    execute, and write a run folder with the provenance files.
# LLMPO_SKIP_BUILD=1 skips set-up and build (the build tree is current);
# LLMPO_BUILD_DIR picks the build tree (default build/release).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${LLMPO_BUILD_DIR:-build/release}
if [[ "${LLMPO_SKIP_BUILD:-0}" != 1 ]]; then
  bash scripts/setup.sh
  log=$(mktemp); trap 'rm -f "$log"' EXIT
  { cmake --preset release && cmake --build --preset release -j "$(nproc)" --target llmpo_main_job; } >"$log" 2>&1 ||
    { cat "$log"; echo "run.sh: the build failed (output above)" >&2; exit 1; }
fi
tool=$build_dir/llm-perf-opt

"$tool" doctor
echo
gpu=false
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && gpu=true
if $gpu && command -v ncu >/dev/null; then
  exec "$tool" profile pipeline.ncu.enable=true "$@"
fi
if $gpu && command -v nsys >/dev/null; then
  echo "A GPU and nsys but no ncu: profiling the timeline with nsys; ncu (Nsight Compute) would add hardware counters."
  exec "$tool" profile pipeline.nsys.enable=true "$@"
fi
if $gpu; then
  echo "A GPU but neither ncu nor nsys: running the workload under our NVTX + CUPTI tracer (llm-perf-opt trace)"
  echo "for kernel times and NVTX regions; ncu (Nsight Compute) would add hardware counters."
  exec "$tool" trace "$@"
fi
echo "No GPU with ncu here, so nothing can be measured. The commands a run would execute:"
"$tool" profile --dry-run pipeline.ncu.enable=true "$@"
echo
echo "Writing a run folder with the provenance files (profiling steps disabled):"
exec "$tool" profile "$@"
