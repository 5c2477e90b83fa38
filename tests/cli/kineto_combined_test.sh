#!/usr/bin/env bash
# A Kineto trace imported with an ncu page of the same program: the combined
# kernel table has the trace's durations and ncu's metrics, matched by kernel
# name (hand-made inputs, tests/fixtures/handmade/README.md).
#   kineto_combined_test.sh BINARY SOURCE_ROOT
set -euo pipefail
bin=$1
root=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$bin" import "$root/tests/fixtures/handmade/kineto_rank3.json" "$root/tests/fixtures/handmade/ncu_for_kineto_rank3.csv" \
  --out "$out/o" >/dev/null
python3 - "$out/o/kernels_combined.json" <<'PY'
import json, sys
kernels = {k["name"]: k for k in json.load(open(sys.argv[1]))["kernels"]}
assert set(kernels) == {"gemm", "ncclKernel_AllReduce", "early"}, kernels.keys()
gemm = kernels["gemm"]
assert gemm["source"].endswith("kineto_rank3.json"), gemm["source"]
assert gemm["calls"] == 2 and abs(gemm["total_ms"] - 0.01525) < 1e-12, gemm  # 10.25 us + 5 us from the trace
sm = {m["name"]: m["value"] for m in gemm["metrics"]}["sm__throughput.avg.pct_of_peak_sustained_elapsed"]
assert abs(sm - (85 * 30 + 75 * 20) / 50) < 1e-9, sm  # ncu's two launches, weighted by ncu's durations
assert kernels["early"]["metrics"] == [], kernels["early"]  # no ncu kernel of that name
# The row's bound class reads the row's own metrics (ncu's, borrowed by
# name), not those of the kernel at the same position in kernels.json.
assert abs(gemm["bound"]["sm_pct"] - 81) < 1e-9, gemm["bound"]
assert kernels["early"]["bound"]["sm_pct"] is None, kernels["early"]["bound"]
print("ok")
PY

# Launch-order pairing: gemm is launched in attn, then in mlp (on another
# stream, so it starts on the GPU first); ncu's result 0 (SM 90 %) belongs to
# the attn launch and result 2 (SM 20 %) to the mlp one. softmax has two
# launches and one ncu result: matched by name only, with a diagnostic.
"$bin" import "$root/tests/fixtures/handmade/kineto_pairing.json" "$root/tests/fixtures/handmade/ncu_for_kineto_pairing.csv" \
  --out "$out/p" >/dev/null
python3 - "$out/p/kernels_combined.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = {(tuple(r["region"]), r["name"]): r for r in doc["region_kernels"]}
assert set(rows) == {(("ProfilerStep", "attn"), "gemm"), (("ProfilerStep", "mlp"), "gemm"),
                     (("ProfilerStep", "attn"), "softmax"), (("ProfilerStep", "mlp"), "softmax")}, rows.keys()
def metric(row, name):
    return {m["name"]: m["value"] for m in row["metrics"]}[name]
sm = "sm__throughput.avg.pct_of_peak_sustained_elapsed"
attn, mlp = rows[(("ProfilerStep", "attn"), "gemm")], rows[(("ProfilerStep", "mlp"), "gemm")]
assert attn["ncu_match"] == "by_launch" and mlp["ncu_match"] == "by_launch", (attn, mlp)
assert attn["calls"] == 1 and abs(attn["total_ms"] - 0.008) < 1e-12, attn  # the trace's 8 us
assert metric(attn, sm) == 90 and metric(mlp, sm) == 20, (attn, mlp)
for region in ("attn", "mlp"):
    s = rows[(("ProfilerStep", region), "softmax")]
    assert s["ncu_match"] == "by_name" and metric(s, sm) == 50, s
entries = {e["code"]: e for e in doc["diagnostics"]["entries"]}
d = entries["kernel_paired_by_name"]
assert d["count"] == 1 and "'softmax'" in d["first_example"] and "2 launch(es), ncu 1 result(s)" in d["first_example"], d
kernels = {k["name"]: k for k in doc["kernels"]}
assert abs(metric(kernels["gemm"], sm) - (90 * 9 + 20 * 5) / 14) < 1e-9, kernels["gemm"]  # kernel level: ncu's aggregate
print("ok")
PY

# kernels_combined.md says what the ncu input contributes (not "0 kernels"),
# and a timeline whose kernels match none of ncu's gets a warning.
grep -q "Its 2 kernel(s) lend ncu's metrics to the same-named kernels above" "$out/p/kernels_combined.md" ||
  { echo "FAIL: the ncu input's note in kernels_combined.md"; grep -n 'ncu_for_kineto_pairing' -A3 "$out/p/kernels_combined.md"; exit 1; }
! grep -q kernels_combined_no_match "$out/p/kernels_combined.md" || { echo "FAIL: no_match with matches"; exit 1; }
"$bin" import "$root/tests/fixtures/handmade/kineto_pairing.json" "$root/tests/fixtures/handmade/ncu_raw_small.csv" \
  --out "$out/n" >/dev/null 2>&1
grep -q "| kernels_combined_no_match | warning | 1 |" "$out/n/kernels_combined.md" ||
  { echo "FAIL: no kernels_combined_no_match warning"; grep -n 'Data quality' -A12 "$out/n/kernels_combined.md"; exit 1; }
echo ok
