#!/usr/bin/env bash
# GPU tier: the native .ncu-rep reader against ncu's own export of the same
# report. ncu profiles nvtx_regions (--set full, the first 30 launches: five
# kernels; all 83 took over 120 s on an H200) into a .ncu-rep; then
#   llm-perf-opt import REPORT.ncu-rep                      (native, no ncu)
#   ncu --import REPORT --csv --page raw --print-units base > raw.csv
#   llm-perf-opt import raw.csv                             (ncu's numbers)
# and every metric of every kernel must agree in value and unit.
#   ncu_rep_native_test.sh LLM_PERF_OPT NVTX_REGIONS
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[[ $# -eq 2 ]] || fail "usage: ncu_rep_native_test.sh LLM_PERF_OPT NVTX_REGIONS"
tool=$(realpath "$1") workload=$(realpath "$2")
[[ -x $tool ]] || fail "$tool is not built"
[[ -x $workload ]] || fail "$workload is not built"
require_gpu
require_ncu
require_runnable "$workload" --size 256
tmp=$(mktemp -d)
trap 'remove_scratch "$tmp"' EXIT
cd "$tmp" || fail "no temporary folder"
ncu --set full --nvtx --launch-count 30 --clock-control none --export report --force-overwrite "$workload" --size 65536 >ncu.log 2>&1 ||
  fail "ncu exited $?: $(tail -5 ncu.log)"
ncu --import report.ncu-rep --csv --page raw --print-units base >raw.csv 2>export.log ||
  fail "ncu --import exited $?: $(tail -5 export.log)"
ncu --import report.ncu-rep --csv --page raw >raw_display.csv 2>export_display.log ||
  fail "ncu --import (display units) exited $?: $(tail -5 export_display.log)"
"$tool" import report.ncu-rep --out native >native.log 2>&1 || fail "native import exited $?: $(cat native.log)"
"$tool" import raw.csv --out csv >csv.log 2>&1 || fail "CSV import exited $?: $(cat csv.log)"
"$tool" import raw_display.csv --out display >display.log 2>&1 || fail "display-units CSV import exited $?: $(cat display.log)"
python3 "$here/compare_ncu_imports.py" native csv raw.csv display || fail "native and ncu's export differ"
echo "PASS: native .ncu-rep reader agrees with ncu --import --page raw --print-units base, and display units convert to the same numbers"
