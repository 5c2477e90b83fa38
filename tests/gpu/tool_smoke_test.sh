#!/usr/bin/env bash
# The tool itself works where it runs (no GPU needed): --version, config
# composition with the workload groups, import of a hand-made ncu CSV with
# NVTX regions, doctor, and a dry run that finds the bundled tiny_llm.
#   tool_smoke_test.sh LLM_PERF_OPT FIXTURES_DIR
set -uo pipefail
source "$(dirname "$0")/lib.sh"
[[ $# -eq 2 ]] || fail "usage: tool_smoke_test.sh LLM_PERF_OPT FIXTURES_DIR"
tool=$(realpath "$1") fixtures=$(realpath "$2")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || fail "no temporary folder"
"$tool" --version | grep -q '^llm-perf-opt ' || fail "--version"
out=$("$tool" config -p model '~model/dummy_shallow_resnet/arch@model' '+model/tiny_llm/arch@model=tiny_llm.small') ||
  fail "config with the tiny_llm group exited $?"
grep -q '^workload: tiny_llm$' <<<"$out" || fail "config printed: $out"
"$tool" import "$fixtures/ncu_regions_kernel_replay.csv" --out imported >/dev/null || fail "import exited $?"
python3 - imported/regions/report.json <<'PY' || fail "import region report"
import json, sys
names = {r['name'] for r in json.load(open(sys.argv[1]))['regions']}
assert {'A', 'A::A1', 'B'} <= names, names
PY
"$tool" doctor >doctor.txt || fail "doctor exited $?"
grep -q 'ncu profiling' doctor.txt || fail "doctor printed: $(cat doctor.txt)"
out=$("$tool" profile --dry-run hydra.run.dir="$tmp/dry" pipeline.ncu.enable=true \
  '~model/dummy_shallow_resnet/arch@model' '+model/tiny_llm/arch@model=tiny_llm.small') || fail "dry run exited $?"
grep -q "$(dirname "$(realpath "$tool")")/workloads/tiny_llm --layers 2" <<<"$out" || fail "dry run: $out"
grep -q 'is not built yet' <<<"$out" && fail "dry run: the bundled tiny_llm is missing"
echo "PASS: llm-perf-opt --version, config, import, doctor, profile --dry-run"
