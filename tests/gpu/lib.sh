# Shared by the GPU-tier test scripts (sourced). Each test first probes for
# what it needs and, when that is missing, prints "SKIP: <reason>" and exits
# 77 (CTest's SKIP_RETURN_CODE; run_gpu_tier.sh counts it as a skip).

skip() {
  echo "SKIP: $*"
  exit 77
}

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# An NVIDIA GPU that the driver lists.
require_gpu() {
  command -v nvidia-smi >/dev/null 2>&1 || skip "no nvidia-smi on PATH (no NVIDIA driver on this machine)"
  local list
  list=$(nvidia-smi -L 2>&1) || skip "nvidia-smi -L failed: $(echo "$list" | head -n 1)"
  grep -q '^GPU [0-9]' <<<"$list" || skip "nvidia-smi -L lists no GPU"
  echo "gpu: $(grep '^GPU [0-9]' <<<"$list" | head -n 1)"
}

# Nsight Compute's CLI; /usr/local/cuda/bin is tried when ncu is not on PATH.
require_ncu() {
  if ! command -v ncu >/dev/null 2>&1 && [[ -x /usr/local/cuda/bin/ncu ]]; then
    export PATH="/usr/local/cuda/bin:$PATH"
  fi
  command -v ncu >/dev/null 2>&1 || skip "no ncu on PATH (install Nsight Compute or add its folder to PATH)"
  local version
  version=$(ncu --version 2>&1) || skip "ncu --version failed: $(echo "$version" | tail -n 1)"
  echo "ncu: $(echo "$version" | tail -n 1)"
}

# After a failed profile run: a skip when the GPU's counters are not open to
# this user (an environment limit, not a bug), else a failure.
skip_or_fail_profile() {
  local run_dir=$1 rc=$2
  if grep -rqs ERR_NVGPUCTRPERM "$run_dir"; then
    skip "ncu may not read the GPU performance counters here (ERR_NVGPUCTRPERM); run as root or allow profiling for all users"
  fi
  for log in "$run_dir"/ncu/*.log; do
    [[ -f $log ]] && { echo "--- $log"; tail -n 20 "$log"; }
  done
  fail "llm-perf-opt profile exited $rc"
}

# A workload that can start here. Exit 69 means no usable device even though
# the driver lists one: a driver older than the CUDA runtime the workloads
# were built with (CUDA 13 needs driver 580+), or no code for this GPU. That
# is a property of the machine, so the test skips with the workload's reason.
require_runnable() {
  local err rc
  err=$("$@" 2>&1 >/dev/null)
  rc=$?
  [[ $rc -eq 69 ]] && skip "$(basename "$1") cannot use this GPU: $(tail -n 1 <<<"$err")"
  return 0
}

# Removes a test's scratch folder at exit. With LLMPO_GPU_KEEP=DIR set (the
# capture script, scripts/gpu_capture.sh) the folder is first copied to
# DIR/<test name>, so that a GPU session keeps the real ncu reports and traces
# its tests made; run_gpu_tier.sh sets LLMPO_GPU_TEST to the test's name.
remove_scratch() {
  local dir=$1
  if [[ -n ${LLMPO_GPU_KEEP:-} && -d $dir ]]; then
    mkdir -p "$LLMPO_GPU_KEEP"
    cp -a "$dir" "$LLMPO_GPU_KEEP/${LLMPO_GPU_TEST:-$(basename "$0" .sh)-$$}"
  fi
  rm -rf "$dir"
}
