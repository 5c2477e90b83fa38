#!/usr/bin/env bash
# GPU tier: the native .ncu-rep reader against ncu's own export of the same
# report. ncu profiles nvtx_regions (--set full) into a .ncu-rep; then
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
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || fail "no temporary folder"
ncu --set full --nvtx --export report --force-overwrite "$workload" --size 65536 >ncu.log 2>&1 ||
  fail "ncu exited $?: $(tail -5 ncu.log)"
ncu --import report.ncu-rep --csv --page raw --print-units base >raw.csv 2>export.log ||
  fail "ncu --import exited $?: $(tail -5 export.log)"
"$tool" import report.ncu-rep --out native >native.log 2>&1 || fail "native import exited $?: $(cat native.log)"
"$tool" import raw.csv --out csv >csv.log 2>&1 || fail "CSV import exited $?: $(cat csv.log)"
python3 - native/kernels.json csv/kernels.json <<'PY' || fail "native and ncu's export differ"
import json, math, re, sys
native, exported = (json.load(open(p)) for p in sys.argv[1:3])
# The report stores the demangler's full text; ncu's CSV may space pointer
# types differently ("float *"): names are compared without blanks.
def by_name(report):
    return {re.sub(r"\s+", "", k["name"]): k for k in report["kernels"]}
n, e = by_name(native), by_name(exported)
common = sorted(set(n) & set(e))
assert common, f"no kernel name in both: {sorted(n)[:3]} vs {sorted(e)[:3]}"
problems, compared = [], 0
for name in common:
    assert n[name]["calls"] == e[name]["calls"], (name, n[name]["calls"], e[name]["calls"])
    nm = {m["name"]: m for m in n[name]["metrics"]}
    for m in e[name]["metrics"]:
        got = nm.get(m["name"])
        if m.get("value") is None:
            continue
        if got is None:
            problems.append(f"{name}: {m['name']} missing in the native import")
            continue
        if got["unit"] != m["unit"]:
            problems.append(f"{name}: {m['name']} unit {got['unit']!r}, ncu {m['unit']!r}")
        a, b = got.get("value"), m["value"]
        if a is None or not math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6):
            problems.append(f"{name}: {m['name']} = {a}, ncu {b}")
        compared += 1
for p in problems[:40]:
    print(p)
print(f"{compared} metric values compared, {len(problems)} problems")
sys.exit(1 if problems or compared == 0 else 0)
PY
echo "PASS: native .ncu-rep reader agrees with ncu --import --page raw --print-units base"
