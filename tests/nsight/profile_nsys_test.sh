#!/usr/bin/env bash
# `profile` with the real nsys on our CPU NVTX program (tests/tracer/
# nvtx_cpu_program.cc: push/pop, start/end across threads, named domains,
# worker threads): the run is ok, run.json records nsys' version, and the
# region report equals `nsys stats`' NVTX summary of the same capture,
# every range; our tracer on the same program finds the same ranges, nesting
# and counts. Then capture_range=nvtx: nsys ends with 143 when the range
# closes, and the step is ok because the report is complete.
#   profile_nsys_test.sh BIN NVTX_CPU_PROGRAM
set -euo pipefail
bin=$1 program=$2
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=lib.sh
. "$here/lib.sh"
require_tools nsys
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cd "$tmp"

step() {  # step RUN_JSON NAME -> "status|reason"
  python3 -c 'import json,sys
for s in json.load(open(sys.argv[1]))["steps"]:
    if s["name"] == sys.argv[2]: print(s["status"] + "|" + s.get("reason", ""))' "$1" "$2"
}
field() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval("d" + sys.argv[2]))' "$1" "$2"; }

"$bin" profile hydra.run.dir=run pipeline.nsys.enable=true "pipeline.nsys.trace='nvtx,osrt'" -- "$program" \
  >out.txt 2>err.txt || fail "profile exited with $?: $(cat err.txt run/nsys/*.log)"
[[ $(field run/run.json '["status"]') == ok ]] || fail "run status: $(cat run/run.json)"
# (nsys' own step may carry a note: its "End of file" start failure, run once more)
[[ $(step run/run.json nsys) == "ok|"* ]] || fail "step nsys: $(step run/run.json nsys)"
for s in nsys-stats nsys-export report; do
  [[ $(step run/run.json $s) == "ok|" ]] || fail "step $s: $(step run/run.json $s)"
done
version=$(field run/run.json '["tools"]["nsys"]["version"]')
[[ $version == 20* ]] || fail "run.json records no nsys version: $version"
grep -q -- "--cpuctxsw=none" run/nsys/cmd.txt || fail "cmd.txt without --cpuctxsw=none: $(cat run/nsys/cmd.txt)"

# nsys' own NVTX summary of the same capture (2022.x calls it nvtxsum).
report=nvtx_sum
[[ ${version%%.*} -lt 2023 ]] && report=nvtxsum
nsys stats --report "$report" --format csv --output stats run/nsys/run.sqlite >stats.log 2>&1 ||
  fail "nsys stats: $(cat stats.log)"
python3 "$here/compare_nvtxsum.py" run/ncu/regions/report.json "stats_$report.csv" || fail "regions differ from nsys stats"

# Our tracer (`trace`) on the same program: the same ranges, nesting,
# domains, kinds and instance counts as nsys' capture.
"$bin" trace hydra.run.dir=traced -- "$program" >out.txt 2>err.txt || fail "trace exited with $?: $(cat err.txt)"
python3 - run/ncu/regions/report.json traced/trace/regions/report.json <<'PY' || fail "trace and nsys disagree"
import json, sys
def ranges(path):
    return sorted((" > ".join(r["path"]), r.get("domain") or "", r["kind"], (r.get("instances") or {}).get("count"))
                  for r in json.load(open(path))["regions"])
nsys, traced = ranges(sys.argv[1]), ranges(sys.argv[2])
for row in sorted(set(nsys) ^ set(traced)):
    print("only in", "nsys" if row in nsys else "trace", row)
assert nsys == traced and nsys, "differ"
print(f"trace and nsys: the same {len(nsys)} ranges")
PY

# capture_range=nvtx: 143 once "outer" closes, a complete report, step ok.
"$bin" profile hydra.run.dir=range pipeline.nsys.enable=true "pipeline.nsys.trace='nvtx,osrt'" \
  pipeline.nsys.capture_range=nvtx pipeline.nsys.nvtx_capture=outer -- "$program" >out.txt 2>err.txt ||
  fail "capture range: exit $?: $(cat err.txt range/nsys/*.log)"
[[ $(step range/run.json nsys) == "ok|"* ]] || fail "capture-range step: $(step range/run.json nsys)"
# The other nsys options the builders write are accepted too.
"$bin" profile hydra.run.dir=opts pipeline.nsys.enable=true pipeline.nsys.capture_range=nvtx \
  pipeline.nsys.nvtx_capture=outer pipeline.nsys.capture_range_end=stop pipeline.nsys.cuda_graph_trace=node \
  -- "$program" >out.txt 2>err.txt || fail "nsys options: exit $?: $(cat err.txt opts/nsys/*.log)"
grep -q -- "--cuda-graph-trace=node" opts/nsys/cmd.txt || fail "cmd.txt: $(cat opts/nsys/cmd.txt)"
[[ $(step opts/run.json nsys) == "ok|"* ]] || fail "nsys options step: $(step opts/run.json nsys)"

# capture_range_end=repeat:2: two numbered reports, each exported, both imported.
"$bin" profile hydra.run.dir=rep pipeline.nsys.enable=true pipeline.nsys.capture_range=nvtx \
  pipeline.nsys.nvtx_capture=inner pipeline.nsys.capture_range_end=repeat:2 -- "$program" >out.txt 2>err.txt ||
  fail "repeat:2: exit $?: $(cat err.txt rep/nsys/*.log)"
for s in nsys-export.1 nsys-export.2 report; do
  [[ $(step rep/run.json $s) == "ok|" ]] || fail "repeat:2 step $s: $(step rep/run.json $s)"
done
grep -q "Input: \`nsys/run.2.sqlite\`" rep/ncu/regions/report.md || fail "repeat:2: run.2.sqlite not imported"

# A step timeout ends nsys, the program and nsys' agent: nothing left running.
set +e
"$bin" profile hydra.run.dir=slow pipeline.nsys.enable=true pipeline.step_timeout_s=4 -- sleep 61.25 \
  >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 5 ]] || fail "timeout: exit $rc: $(cat err.txt)"
[[ $(step slow/run.json nsys) == "failed|nsys timed out after 4 s"* ]] || fail "timeout step: $(step slow/run.json nsys)"
sleep 1
left=$(pgrep -af "session-name=profile-sleep-|sleep 61.25" || true)
[[ -z $left ]] || fail "left running after the timeout: $left"

# An .nsys-rep this nsys cannot read: nsys' own reason, exit 5, and nothing
# of the attempt (partial SQLite, logs) left in the output folder.
head -c 4096 /dev/urandom >bad.nsys-rep
set +e
"$bin" import bad.nsys-rep --out badout >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 5 ]] || fail "unreadable .nsys-rep: exit $rc: $(cat err.txt)"
grep -q "nsys $version could not export it (exit [0-9]*): \"" err.txt || fail "nsys' reason not quoted: $(cat err.txt)"
[[ -z $(ls -A badout 2>/dev/null) ]] || fail "left behind in badout: $(ls -A badout)"
echo "profile with nsys $version: ok"
