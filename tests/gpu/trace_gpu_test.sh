#!/usr/bin/env bash
# GPU tier: `llm-perf-opt trace` (NVTX + CUPTI, no nsys) on nvtx_regions; the
# kernel summary and the GPU projection are checked against the launches the
# workload documents (docs/workloads.md): 83 kernels; A 44 GPU ops (its own
# 24 and A::A1's 20), A::A1 20, B 30, startend 4, LLM@decode 4.
#   trace_gpu_test.sh LLM_PERF_OPT NVTX_REGIONS
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[[ $# -eq 2 ]] || fail "usage: trace_gpu_test.sh LLM_PERF_OPT NVTX_REGIONS"
tool=$(realpath "$1") workload=$(realpath "$2")
[[ -x $tool ]] || fail "$tool is not built"
[[ -x $workload ]] || fail "$workload is not built"
[[ -f $(dirname "$tool")/libllmpo_tracer.so ]] || skip "no libllmpo_tracer.so next to $tool (tracer not built)"
require_gpu
require_runnable "$workload" --size 256
tmp=$(mktemp -d)
trap 'remove_scratch "$tmp"' EXIT
run="$tmp/run"
echo "+ $(basename "$tool") trace hydra.run.dir=$run -- $workload --size 65536"
(cd "$tmp" && "$tool" trace "hydra.run.dir=$run" -- "$workload" --size 65536) || fail "trace exited $?"
grep -q "cupti_missing\|cupti_unusable" "$run"/trace/trace.*.tsv && fail "CUPTI was not loaded: $(cat "$run"/trace/trace.stderr.log)"
python3 - "$run" <<'PY' || fail "trace outputs do not match the workload"
import csv, sys
run = sys.argv[1]
kern = {r["Name"]: int(r["Instances"]) for r in csv.DictReader(open(f"{run}/trace/summary_cuda_gpu_kern_sum.csv"))}
want = {"warmup_kernel": 1, "a_scale_kernel": 12, "a_mix_kernel": 12, "a1_square_kernel": 10, "a1_clamp_kernel": 10,
        "b_axpy_kernel": 15, "b_abs_kernel": 15, "se_fill_kernel": 4, "decode_step_kernel": 4}
short = {}
for name, n in kern.items():
    base = name.split("(")[0].split("<")[0].split()[-1]
    short[base] = short.get(base, 0) + n
for name, n in want.items():
    assert short.get(name) == n, (name, short.get(name), kern)
proj = {(r["Range"], r["Style"]): int(r["Total GPU Ops"])
        for r in csv.DictReader(open(f"{run}/trace/summary_nvtx_gpu_proj_sum.csv"))}
want_proj = {(":A", "PushPop"): 44, (":A::A1", "PushPop"): 20, (":B", "PushPop"): 30, (":startend", "StartEnd"): 4,
             ("LLM:decode", "PushPop"): 4}
for key, n in want_proj.items():
    assert proj.get(key) == n, (key, proj.get(key), proj)
print("trace: kernels and GPU projection match the workload")
PY
echo "PASS"
