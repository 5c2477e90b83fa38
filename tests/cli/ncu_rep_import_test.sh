#!/usr/bin/env bash
# `import` of real .ncu-rep reports, no ncu needed (skipped, exit 77, without
# ../shared/fixtures):
# - nsight-training-manual_nvtx.ncu-rep (ncu 2022.3, --nvtx): the region tree
#   of its NVTX push/pop stacks, run_test holding init_data, daxpy and
#   check_results, one launch each, with the durations the report stores
#   (84,480 + 249,216 + 88,512 ns, read with tests/fixtures_check/ncu_rep_wire.py);
# - a report cut short, and one whose first block size runs past the end:
#   exit 3, a message saying it is damaged or truncated and what was read.
#   ncu_rep_import_test.sh LLM_PERF_OPT SOURCE_DIR
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2")
fixtures=$src/../shared/fixtures/ncu-rep
[[ -d $fixtures ]] || { echo "SKIP: no shared fixtures at $fixtures"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
run() { set +e; timeout 60 "$bin" "$@" >out.txt 2>err.txt; rc=$?; set -e; }

run import "$fixtures/nsight-training-manual_nvtx.ncu-rep" --out nvtx
[[ $rc -eq 0 ]] || fail "import exited $rc: $(cat err.txt)"
grep -q '^imported 1 of 1 input(s): 3 kernel(s)' out.txt || fail "stdout: $(cat out.txt)"
tree=$(sed -n '/^## Region tree/,/^## /p' nvtx/regions/report.md | sed -n '/^```$/,/^```$/p' | grep -v '^```$')
expected='run_test  GPU kernels 0.4222 ms (excl. 0.0000), 3 launches
  init_data  GPU kernels 0.0845 ms (excl. 0.0845), 1 launches
  daxpy  GPU kernels 0.2492 ms (excl. 0.2492), 1 launches
  check_results  GPU kernels 0.0885 ms (excl. 0.0885), 1 launches'
[[ "$tree" == "$expected" ]] || fail "region tree:
$tree
expected:
$expected"

# Damaged copies: exit 3 with what was read.
head -c 100000 "$fixtures/nsight-training-manual_nvtx.ncu-rep" >cut.ncu-rep
run import cut.ncu-rep --out cut
[[ $rc -eq 3 ]] || fail "truncated report: exit $rc, expected 3"
grep -q 'damaged or truncated Nsight Compute report' err.txt || fail "truncated: $(cat err.txt)"
grep -q 'read before the damage: .* result(s)' err.txt || fail "truncated: $(cat err.txt)"
{ head -c 10 "$fixtures/cudacode-2024.1-report.ncu-rep"; printf '\xff\xff\xff\x7f'; tail -c +15 "$fixtures/cudacode-2024.1-report.ncu-rep"; } >big.ncu-rep
run import big.ncu-rep --out big
[[ $rc -eq 3 ]] || fail "size past the end: exit $rc, expected 3"
grep -q 'runs past the end of the file' err.txt || fail "size past the end: $(cat err.txt)"
echo ok
