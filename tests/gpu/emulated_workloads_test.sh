#!/usr/bin/env bash
# Checkable everywhere (no GPU needed): builds each bundled workload for the
# CPU emulation of the CUDA runtime (workloads/emu/) and runs it at a small
# size, so the kernels' indexing and the self-checks are exercised in CI.
# A GPU run is still the real test (the gpu label); this one cannot see
# races, warp-level effects or device arithmetic.
#   emulated_workloads_test.sh SOURCE_ROOT CUDA_INCLUDE_DIR [CXX]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
[[ $# -ge 2 ]] || fail "usage: emulated_workloads_test.sh SOURCE_ROOT CUDA_INCLUDE_DIR [CXX]"
src=$1 cuda_include=$2 cxx=${3:-g++}
[[ -f $cuda_include/nvtx3/nvToolsExt.h ]] || skip "no NVTX3 headers under $cuda_include"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

run() {  # name args...
  local name=$1
  shift
  local out rc
  out=$("$tmp/$name" "$@" 2>&1)
  rc=$?
  echo "$out" | sed 's/^/  /'
  [[ $rc -eq 0 ]] || fail "$name $* exited $rc under the emulation"
  grep -q '^check: ok' <<<"$out" || fail "$name $* printed no 'check: ok'"
}

pids=()
for w in nvtx_regions dummy_shallow_resnet tiny_llm; do
  python3 "$src/workloads/emu/emulate.py" --cxx "$cxx" --cuda-include "$cuda_include" \
    "$src/workloads/$w/$w.cu" "$tmp/$w" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid" || fail "could not build a workload for the emulation"; done
run nvtx_regions --size 3000
run dummy_shallow_resnet --batch 2 --size 8 --iters 2 --channels 8
run tiny_llm --check
run tiny_llm --layers 2 --d-model 32 --heads 2 --vocab 96 --d-ff 48 --prompt 5 --decode 2
run tiny_llm --layers 1 --d-model 24 --heads 3 --vocab 50 --d-ff 40 --prompt 1 --decode 2
out=$(EMU_NO_DEVICE=1 "$tmp/tiny_llm" 2>&1)
[[ $? -eq 69 ]] || fail "tiny_llm with no device did not exit 69: $out"
echo "PASS: the workloads' kernels and self-checks under the CPU emulation"
