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
#  - the tracer's CUPTI traces: every kernel of nvtx_regions with its count.
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
# documents them (docs/workloads.md), counted from the TSV by hand too.
import trace "$h200"/trace_nvtx_regions/trace.*.tsv || failed=$((failed + 1))
check "tracer trace of nvtx_regions" python3 - "$work/trace/kernels.json" "$h200"/trace_nvtx_regions/trace.*.tsv <<'PY'
import json, sys
want = {"warmup_kernel": 1, "a_scale_kernel": 12, "a_mix_kernel": 12, "a1_square_kernel": 10, "a1_clamp_kernel": 10,
        "b_axpy_kernel": 15, "b_abs_kernel": 15, "se_fill_kernel": 4, "decode_step_kernel": 4}
got = {k["name"]: k["calls"] for k in json.load(open(sys.argv[1]))["kernels"]}
tsv = open(sys.argv[2]).read()
problems = [f"{name}: {got.get(name)} calls, expected {n}" for name, n in want.items() if got.get(name) != n]
problems += [f"{name} not in the trace file" for name in want if name not in tsv]
for p in problems:
    print(p)
print(f"{sum(got.values())} launches of {len(got)} kernels, {len(problems)} problems")
sys.exit(1 if problems or set(got) != set(want) else 0)
PY

[[ $failed -eq 0 ]] || { echo "FAIL: $failed check(s)"; exit 1; }
echo "PASS: H200 captures"
