#!/usr/bin/env bash
# `profile` when ncu profiled but its CSV export failed: the reports are
# built from the saved .ncu-rep, read natively (fake tools on PATH; the fake
# ncu saves a copy of tests/fixtures/handmade/ncu_rep_small.ncu-rep, whose
# kernels are kernel_0..2(float*) in the regions step > layer_0..2, one region layer_N with 3 instances by pipeline.regions.instance_suffix). `report`
# on that run folder does the same.
set -euo pipefail
bin=$(realpath "$1")
fakes=$(cd "$(dirname "$0")/fake_tools" && pwd)
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
step_of() {
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); s=[x for x in m['steps'] if x['name']==sys.argv[2]][0]; print(s['status'])" "$1" "$2"
}
set +e
FAKE_NCU_IMPORT_FAIL=1 PATH="$fakes:/usr/bin:/bin" "$bin" profile hydra.run.dir=run pipeline.ncu.enable=true \
  -- ./app >out.txt 2>err.txt
rc=$?
set -e
[[ $(step_of run/run.json ncu) == ok ]] || fail "ncu step: $(cat err.txt)"
[[ $(step_of run/run.json ncu-export-details) == failed ]] || fail "the export should have failed"
[[ $(step_of run/run.json report) == ok ]] || fail "report step (exit $rc): $(cat err.txt)"
[[ ! -f run/ncu/details.csv ]] || [[ ! -s run/ncu/details.csv ]] || fail "a details.csv was written"
for k in 'kernel_0(float*)' 'kernel_1(float*)' 'kernel_2(float*)'; do
  grep -qF "| $k |" run/kernels.md || fail "$k missing from kernels.md: $(cat run/kernels.md)"
done
grep -q 'Format: ncu-report' run/kernels.md || fail "kernels.md does not name the report as its source"
grep -q '^  layer_N  GPU kernels 0.1105 ms (excl. 0.1105), 3 launches' run/ncu/regions/report.md || fail "region tree: $(cat run/ncu/regions/report.md)"
rm run/kernels.md
"$bin" report run >report.txt 2>&1 || fail "report exited $?: $(cat report.txt)"
grep -qF '| kernel_1(float*) |' run/kernels.md || fail "report did not rebuild kernels.md from the .ncu-rep"
echo ok
