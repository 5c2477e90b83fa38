#!/usr/bin/env bash
# GPU tier: a sweep of the bundled dummy_shallow_resnet's batch size, out of
# the box (`trace -m model.batch=1,4,16`, the workload and its sizes from the
# config; docs/sweeps.md): three ok points, each with a total GPU kernel
# time, more at batch 16 than at batch 1, and compare's verdict against
# point 0 for the other two.
#   sweep_gpu_test.sh LLM_PERF_OPT DUMMY_SHALLOW_RESNET
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/lib.sh"
[[ $# -eq 2 ]] || fail "usage: sweep_gpu_test.sh LLM_PERF_OPT DUMMY_SHALLOW_RESNET"
tool=$(realpath "$1") workload=$(realpath "$2")
[[ -x $tool ]] || fail "$tool is not built"
[[ -x $workload ]] || fail "$workload is not built"
[[ -f $(dirname "$tool")/libllmpo_tracer.so ]] || skip "no libllmpo_tracer.so next to $tool (tracer not built)"
require_gpu
require_runnable "$workload" --batch 1 --size 8 --iters 1
tmp=$(mktemp -d)
trap 'remove_scratch "$tmp"' EXIT
echo "+ $(basename "$tool") trace -m hydra.sweep.dir=$tmp/sw model.batch=1,4,16"
(cd "$tmp" && "$tool" trace -m "hydra.sweep.dir=$tmp/sw" model.batch=1,4,16) || fail "the sweep exited $?"
python3 - "$tmp/sw/sweep.json" <<'PY' || fail "sweep.json does not show the batch curve"
import json, sys
s = json.load(open(sys.argv[1]))
pts = s["points"]
assert [p["values"]["model.batch"] for p in pts] == ["1", "4", "16"], pts
assert all(p["status"] == "ok" for p in pts), [p["status"] for p in pts]
t = [p["quantities"]["gpu_kernel_ms"] for p in pts]
assert None not in t and t[2] > t[0], t
assert all(p["vs_baseline"] and p["vs_baseline"]["verdict"] for p in pts[1:]), [p["vs_baseline"] for p in pts]
print("GPU kernel time (ms) at batch 1, 4, 16:", t)
PY
echo "PASS: trace -m model.batch=1,4,16 on dummy_shallow_resnet"
