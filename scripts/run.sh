#!/usr/bin/env bash
# The main job: install what is missing, build (the binary, the bundled
# workloads and the tracer library), check the machine, then
#  - with a GPU and ncu: profile the default workload with ncu and write
#    every report (extra arguments are passed on as overrides, or
#    `-- CMD...` for your program);
#  - with a GPU and nsys but no ncu: profile its timeline with nsys;
#  - with a GPU and neither: run it under our NVTX + CUPTI tracer (`trace`);
#  - without a GPU but with nsys: record the NVTX timeline of a CPU demo (or
#    of `-- CMD...`) for real with nsys and write the reports;
#  - without a GPU or nsys: say what is missing, print the exact commands a
#    run would execute, write a run folder with the provenance files, and
#    suggest `import` for the files a user has.
# Build progress is printed every 10 %; an ncu older than 2022.1 is not used.
# LLMPO_SKIP_BUILD=1 skips set-up and build (the build tree is current);
# LLMPO_BUILD_DIR picks the build tree (default build/release).
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${LLMPO_BUILD_DIR:-build/release}
# The build, with its progress every 10 % (ninja's [done/total] lines); the
# whole log only when it fails.
build() {
  local log=$1
  [[ -f $build_dir/build.ninja ]] ||
    echo "run.sh: first build (the binary, the bundled CUDA workloads, the tracer): about 10-40 minutes on 2 cores;" \
      "later runs rebuild only what changed"
  cmake --preset release >"$log" 2>&1 || return 1
  local start=$SECONDS shown=0 line n total
  cmake --build --preset release -j "$(nproc)" --target llmpo_main_job 2>&1 | tee -a "$log" |
    while IFS= read -r line; do
      [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
      n=${BASH_REMATCH[1]} total=${BASH_REMATCH[2]}
      if ((total > 0 && n * 10 / total > shown)); then
        shown=$((n * 10 / total))
        echo "run.sh: building: $n/$total steps ($((n * 100 / total)) %), $((SECONDS - start)) s so far"
      fi
    done
}
if [[ "${LLMPO_SKIP_BUILD:-0}" != 1 ]]; then
  bash scripts/setup.sh
  log=$(mktemp); trap 'rm -f "$log"' EXIT
  build "$log" || { cat "$log"; echo "run.sh: the build failed (output above)" >&2; exit 1; }
fi
tool=$build_dir/llm-perf-opt

"$tool" doctor
echo
gpu=false
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 && gpu=true
# An ncu older than the commands are built for (2022.1) is not used: doctor
# above says so, and the run falls back to nsys or the tracer.
ncu=false
if command -v ncu >/dev/null; then
  version=$(ncu --version 2>/dev/null | grep -o '20[0-9][0-9]\.[0-9]*' | tail -1 || true)
  if [[ -n $version && ${version%%.*} -lt 2022 ]]; then
    echo "ncu $version is older than 2022.1, the oldest the commands are built for: not used (install a newer Nsight Compute)."
  else
    ncu=true
  fi
fi
if $gpu && $ncu; then
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
demo=$build_dir/tests/nvtx_cpu_program
if command -v nsys >/dev/null && { [[ " $* " == *" -- "* ]] || [[ -x $demo ]]; }; then
  # No GPU, but nsys records NVTX ranges and OS runtime calls of any program.
  if [[ " $* " == *" -- "* ]]; then
    echo "No GPU, but nsys: recording your program's NVTX ranges and OS runtime calls for real (a GPU adds CUDA kernels)."
    exec "$tool" profile pipeline.nsys.enable=true "$@"
  fi
  echo "No GPU, but nsys: recording the NVTX timeline of a CPU demo ($demo, tests/tracer/nvtx_cpu_program.cc)"
  echo "for real and writing its region reports; the bundled workloads need a GPU. Your program: run.sh -- CMD ARGS..."
  exec "$tool" profile pipeline.nsys.enable=true "$@" -- "$demo"
fi
echo "No GPU with ncu here, so nothing can be measured. The commands a run would execute:"
"$tool" profile --dry-run pipeline.ncu.enable=true "$@"
echo
echo "Writing a run folder with the provenance files (profiling steps disabled):"
"$tool" profile "$@"
echo
echo "Files you already have can be read here without a GPU: $tool import FILE... --out DIR"
echo "(ncu CSV or .ncu-rep, nsys SQLite or stats CSV, .nsys-rep with nsys, PyTorch profiler traces; docs/import.md)."
