#!/usr/bin/env bash
# Our own captures on an H200 (tests/fixtures/h200/README.md), read here
# without a GPU or ncu:
#  - the full-set report: native reader against ncu's own raw page in base
#    units, and ncu's display-unit page converted by our unit table against
#    the base-unit page (tests/gpu/compare_ncu_imports.py);
#  - the kernel-replay, app-range and tiny_llm prefill reports (NVTX): region
#    reports as the workloads document them (tests/gpu/check_regions.py);
#  - the range-replay report (range results, BlockHeader field 7) the same
#    way, its numbers against ncu's raw page, and its details page;
#  - the tracer's CUPTI trace: every kernel of nvtx_regions with its count and
#    its GPU kernel time summed from the trace's records; tiny_llm's phases,
#    eager and with CUDA graphs (tests/gpu/check_phases.py).
#   h200_captures_test.sh LLM_PERF_OPT SOURCE_DIR
set -uo pipefail
tool=$(realpath "$1") src=$(realpath "$2")
h200=$src/tests/fixtures/h200 gpu=$src/tests/gpu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
check() {  # NAME COMMAND...: runs it, prints its last line, counts a failure
  local name=$1 out rc
  shift
  out=$("$@" 2>&1)
  rc=$?
  echo "$name: $(tail -n 1 <<<"$out")"
  if [[ $rc -ne 0 ]]; then
    echo "$out" | tail -n 20
    failed=$((failed + 1))
  fi
}
import() {  # OUT INPUT...
  local out=$1
  shift
  "$tool" import "$@" --out "$work/$out" >"$work/$out.log" 2>&1 || { cat "$work/$out.log"; return 1; }
}

full=$h200/ncu_full_c3/nvtx_regions_full_c3
import native "$full.ncu-rep" && import base "${full}_raw_base.csv" && import display "${full}_raw_display.csv" ||
  failed=$((failed + 1))
check "full set, native vs ncu's export" python3 "$gpu/compare_ncu_imports.py" "$work/native" "$work/base" \
  "${full}_raw_base.csv" "$work/display"

import kernel "$h200/ncu_kernel_replay/profile.ncu-rep" || failed=$((failed + 1))
check "kernel replay regions (.ncu-rep)" python3 "$gpu/check_regions.py" nvtx_regions --mode kernel "$work/kernel"
import app_range "$h200/ncu_app_range/profile.ncu-rep" || failed=$((failed + 1))
check "app-range replay regions (.ncu-rep)" python3 "$gpu/check_regions.py" nvtx_regions --mode range "$work/app_range"
import range_rep "$h200/ncu_range_replay/profile.ncu-rep" && import range_raw "$h200/ncu_range_replay/raw.csv" ||
  failed=$((failed + 1))
check "range replay regions (.ncu-rep)" python3 "$gpu/check_regions.py" nvtx_regions --mode range "$work/range_rep"
check "range replay results, native vs ncu's export" python3 "$gpu/compare_ncu_imports.py" "$work/range_rep" \
  "$work/range_raw" "$h200/ncu_range_replay/raw.csv" -
import range_csv "$h200/ncu_range_replay/details.csv" || failed=$((failed + 1))
check "range replay regions (details CSV)" python3 "$gpu/check_regions.py" nvtx_regions --mode range "$work/range_csv"
import prefill "$h200/ncu_tiny_llm_prefill/profile.ncu-rep" || failed=$((failed + 1))
check "tiny_llm LLM@prefill regions (.ncu-rep)" python3 "$gpu/check_regions.py" tiny_llm_prefill --layers 2 "$work/prefill"

# The tracer's trace of nvtx_regions: launches per kernel as the workload
# documents them (docs/workloads.md), and each kernel's GPU time against the
# sum of its records in the TSV.
import trace "$h200"/trace_nvtx_regions/trace.*.tsv || failed=$((failed + 1))
check "tracer trace of nvtx_regions" python3 - "$work/trace/kernels.json" "$h200"/trace_nvtx_regions/trace.*.tsv <<'PY'
import json, sys
want = {"warmup_kernel": 1, "a_scale_kernel": 12, "a_mix_kernel": 12, "a1_square_kernel": 10, "a1_clamp_kernel": 10,
        "b_axpy_kernel": 15, "b_abs_kernel": 15, "se_fill_kernel": 4, "decode_step_kernel": 4}
kernels = json.load(open(sys.argv[1]))["kernels"]
got = {k["name"]: k["calls"] for k in kernels}
problems = [f"{name}: {got.get(name)} calls, expected {n}" for name, n in want.items() if got.get(name) != n]
# GPU kernel time per kernel, summed here from the trace's kernel records
# (K device context stream correlation start_ns end_ns grid block name).
summed = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if f[0] == "K":
        summed[f[9]] = summed.get(f[9], 0) + int(f[6]) - int(f[5])
for k in kernels:
    if abs(k["total_ms"] - summed.get(k["name"], -1) / 1e6) > 1e-9:
        problems.append(f"{k['name']}: {k['total_ms']} ms, the trace's records sum to {summed.get(k['name'], 0) / 1e6} ms")
for p in problems:
    print(p)
print(f"{sum(got.values())} launches of {len(got)} kernels, {len(problems)} problems")
sys.exit(1 if problems or set(got) != set(want) else 0)
PY

# tiny_llm traced eagerly and with CUDA graphs: its LLM phases.
for mode in eager graphs; do
  import "tiny_$mode" "$h200/trace_tiny_llm_$mode"/trace.*.tsv || failed=$((failed + 1))
  check "tracer trace of tiny_llm ($mode): phases" python3 "$gpu/check_phases.py" "$work/tiny_$mode/kernels.json" "$mode"
done

[[ $failed -eq 0 ]] || { echo "FAIL: $failed check(s)"; exit 1; }
echo "PASS: H200 captures"
