#!/usr/bin/env bash
# trace/trace.json of a `trace` run follows the Chrome trace event format as
# Perfetto reads it (check_trace_json.py): overlapping start/end ranges as
# async pairs, API calls as slices, one flow per launch with GPU work, and
# the hostile names of a hand-made trace kept as valid UTF-8 JSON strings.
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2")
here="$src/tests/browser"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

run_trace() {  # name fixture
  FAKE_TRACE="$src/tests/fixtures/handmade/$2" LLMPO_TRACER_LIBRARY=/bin/true \
    "$bin" trace "hydra.run.dir=$1" -- "$here/fake_traced_app.sh" >"$1.out" 2>"$1.err" ||
    fail "trace $2 exited $?: $(cat "$1.err")"
  [[ -f $1/trace/trace.json ]] || fail "$1: no trace/trace.json"
}

# llmpo_trace_gpu.tsv: 1 start/end range, 5 API calls each launching a kernel.
run_trace gpu llmpo_trace_gpu.tsv
/usr/bin/python3 "$here/check_trace_json.py" gpu/trace/trace.json --expect-async 1 --expect-api 5 --expect-flows 5 \
  >gpu.check || fail "gpu trace: $(cat gpu.check)"
# Kernel arguments: grid, block, stream, device, correlation of a known kernel.
/usr/bin/python3 - gpu/trace/trace.json <<'PY' || fail "kernel args"
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
k = [e for e in ev if e.get("cat") == "kernel" and e["args"]["correlation"] == 5][0]
assert k["name"] == "relu_kernel" and k["args"] == {"device": 0, "stream": 7, "correlation": 5, "grid": "32,1,1",
                                                   "block": "128,1,1"}, k
assert abs(k["ts"] - 4.7) < 1e-9 and abs(k["dur"] - 0.5) < 1e-9, k  # 4700..5200 ns in microseconds
rows = {e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert "GPU 0 stream 7" in rows, rows
PY

# Hostile names, and three start/end ranges overlapping each other and the push/pop ranges.
run_trace hostile llmpo_trace_html_names.tsv
/usr/bin/python3 "$here/check_trace_json.py" hostile/trace/trace.json --expect-async 3 --expect-api 3 \
  --expect-flows 3 >hostile.check || fail "hostile trace: $(cat hostile.check)"
/usr/bin/python3 - hostile/trace/trace.json <<'PY' || fail "hostile names"
import json, sys
ev = json.load(open(sys.argv[1], encoding="utf-8"))["traceEvents"]
names = {e["name"] for e in ev}
assert "</script><script>window.__llmpo_injected=1</script>" in names, names
assert "a & b \"quoted\" 'single'" in names
assert "bad\ufffd\ufffdutf8" in names, [n for n in names if n.startswith("bad")]
assert "line one\nline two" in names
PY
echo "trace.json checks passed"
