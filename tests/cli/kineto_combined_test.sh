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
print("ok")
PY
