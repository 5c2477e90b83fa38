#!/usr/bin/env bash
# scripts/run.sh, the README's main command, after its build step
# (LLMPO_SKIP_BUILD=1: this build tree is current), with fake tools on PATH:
#  1. a GPU and ncu (fake nvidia-smi, ncu): the default profile of the bundled
#     workload reaches every report and exits 0;
#  2. a GPU, neither ncu nor nsys: the program runs under our tracer (`trace`)
#     and the script says ncu would add hardware counters;
#  2a. a GPU and nsys, no ncu: the nsys timeline, with the same hint;
#  3. no GPU: the dry-run commands, a provenance-only run folder, `import` suggested;
#  3a. no GPU but nsys: the CPU demo's NVTX timeline recorded with nsys;
#  3b. a GPU and an ncu older than 2022.1: not used, nsys instead.
# Usage: run_script_test.sh BIN SOURCE_DIR [NVTX_CPU_PROGRAM]
# Skips (77) when the bundled workload is not built (no CUDA toolkit).
set -euo pipefail
bin=$(realpath "$1")
src=$(realpath "$2")
program=${3:+$(realpath "$3")}
fakes=$(cd "$(dirname "$0")/fake_tools" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# The system's programs without nsys and ncu (Debian's 2022.x may be installed here).
nosight=$(bash "$(dirname "$0")/../path_without_nsight.sh" "$work")
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
export FAKE_TOOLS_LOG="$work/tools.log" LLMPO_SKIP_BUILD=1 LLMPO_BUILD_DIR="$(dirname "$bin")"
unset LLMPO_TRACER_LIBRARY
status_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['status'])" "$1"; }
run() { bash "$src/scripts/run.sh" "$@" >out.txt 2>err.txt; }

# 3. No GPU (no nvidia-smi on PATH): as before, exit 0 with a provenance-only run folder.
PATH="$nosight" run hydra.run.dir="$work/nogpu" || fail "no-GPU run exited $?: $(cat err.txt)"
grep -q "^No GPU with ncu here" out.txt || fail "no-GPU message: $(cat out.txt)"
grep -q "^ncu --config-file off" out.txt || fail "no-GPU dry run commands: $(cat out.txt)"
[[ -f nogpu/run.json && -f nogpu/config.yaml ]] || fail "no-GPU run folder"
grep -q "import FILE... --out DIR" out.txt || fail "no import suggestion: $(cat out.txt)"

# 3a. No GPU but nsys: the CPU demo's NVTX timeline recorded with nsys (a fake here).
demo="$(dirname "$bin")/tests/nvtx_cpu_program"
if [[ -x $demo ]]; then
  mkdir nsys_only && ln -s "$fakes/nsys" nsys_only/
  PATH="$work/nsys_only:$nosight" run hydra.run.dir="$work/cpu_nsys" || fail "no-GPU nsys run exited $?: $(cat err.txt)"
  grep -q "^No GPU, but nsys: recording the NVTX timeline of a CPU demo" out.txt || fail "nsys demo message: $(cat out.txt)"
  grep -q "^nsys profile .* $demo$" tools.log || fail "nsys did not record the demo: $(cat tools.log)"
  [[ $(status_of cpu_nsys/run.json) == ok ]] || fail "no-GPU nsys run status: $(cat cpu_nsys/run.json)"
fi

# 2. A GPU but neither ncu nor nsys: our tracer, on a CPU NVTX program here.
if [[ -n "$program" ]]; then
  mkdir gpu_only && ln -s "$fakes/nvidia-smi" gpu_only/nvidia-smi
  PATH="$work/gpu_only:$nosight" run hydra.run.dir="$work/traced" -- "$program" ||
    fail "GPU-without-ncu run exited $?: $(cat err.txt)"
  grep -q "neither ncu nor nsys" out.txt || fail "tracer message: $(cat out.txt)"
  grep -q "ncu (Nsight Compute) would add hardware counters" out.txt || fail "ncu hint: $(cat out.txt)"
  [[ -f traced/trace/summary_nvtx_sum.csv ]] || fail "trace summaries missing: $(ls -R traced)"
  [[ $(status_of traced/run.json) == ok ]] || fail "trace run.json status"
fi

# 2a. A GPU and nsys but no ncu: the nsys timeline, and the same hint.
mkdir gpu_nsys && ln -s "$fakes/nvidia-smi" "$fakes/nsys" gpu_nsys/
PATH="$work/gpu_nsys:$nosight" run hydra.run.dir="$work/nsys" -- ./app ||
  fail "GPU+nsys run exited $?: $(cat err.txt)"
grep -q "profiling the timeline with nsys; ncu (Nsight Compute) would add hardware counters" out.txt ||
  fail "nsys message: $(cat out.txt)"
grep -q "^nsys profile .* ./app$" tools.log || fail "nsys did not run: $(cat tools.log)"
! grep -q "^ncu " tools.log || fail "ncu ran without being on PATH"
[[ $(status_of nsys/run.json) == ok ]] || fail "GPU+nsys run.json status: $(cat nsys/run.json)"

# 3b. A GPU and an ncu older than 2022.1: not used; nsys instead.
mkdir old_ncu && ln -s "$fakes/nvidia-smi" "$fakes/ncu" "$fakes/nsys" old_ncu/
FAKE_NCU_VERSION=2021.3.1.0 PATH="$work/old_ncu:$nosight" run hydra.run.dir="$work/oldncu" -- ./app ||
  fail "old-ncu run exited $?: $(cat err.txt)"
grep -q "ncu 2021.3 is older than 2022.1" out.txt || fail "old ncu message: $(cat out.txt)"
grep -q "profiling the timeline with nsys" out.txt || fail "old ncu: no nsys fallback: $(cat out.txt)"

# 1. A GPU and ncu: the default profile (bundled dummy_shallow_resnet).
workload="$(dirname "$bin")/workloads/dummy_shallow_resnet"
[[ -x "$workload" ]] || { echo "SKIP: the bundled workload is not built ($workload)"; exit 77; }
PATH="$fakes:$nosight" run hydra.run.dir="$work/gpu" || fail "GPU+ncu run exited $?: $(cat err.txt)"
grep -q "^llm-perf-opt doctor" out.txt || fail "doctor output missing: $(cat out.txt)"
grep -q "^ncu .* $workload" tools.log || fail "ncu did not run the bundled workload: $(cat tools.log)"
for f in run.json config.yaml env.json ncu/profile.ncu-rep ncu/details.csv kernels.md kernels.json \
         ncu/regions/report.md stakeholder_summary.md report.md; do
  [[ -f gpu/$f ]] || fail "gpu/$f missing"
done
[[ $(status_of gpu/run.json) == ok ]] || fail "GPU+ncu run.json status: $(cat gpu/run.json)"
echo "PASS"
