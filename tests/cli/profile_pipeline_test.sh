#!/usr/bin/env bash
# The profile pipeline through the process interface, with the fake tools of
# fake_tools/ on PATH: the exact ncu command lines, what each outcome does to
# run.json and the exit code (ok, tool missing, tool failed, interrupted,
# bundled workload not built), and that the reports come from the exports.
set -euo pipefail
bin=$(realpath "$1")
fakes=$(cd "$(dirname "$0")/fake_tools" && pwd)
source "$(dirname "$0")/signal_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# The system's programs without nsys and ncu (Debian's 2022.x may be installed here).
nosight=$(bash "$(dirname "$0")/../path_without_nsight.sh" "$work")
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
export FAKE_TOOLS_LOG="$work/tools.log"
status_of() { python3 -c "import json,sys; m=json.load(open(sys.argv[1])); print(m['status'])" "$1"; }
step_of() {
  python3 -c "import json,sys; m=json.load(open(sys.argv[1])); s=[x for x in m['steps'] if x['name']==sys.argv[2]][0]; print(s['status'] + '|' + s.get('reason',''))" "$1" "$2"
}

# 1. ncu succeeds: every step ok, reports from the exported CSV.
PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=ok pipeline.ncu.enable=true \
  'pipeline.ncu.ncu_cli.nvtx.include=A' -- ./app --steps 2 >out.txt 2>err.txt || fail "ok run exited $?"
# Progress, parsed from the tool's ==PROF== lines (plain lines: stderr is not a terminal).
grep -q '^\[ncu\] 1 result profiled, last: gemm_kernel (9 passes)$' err.txt || fail "progress line: $(cat err.txt)"
[[ $(status_of ok/run.json) == ok ]] || fail "ok run status"
grep -q -- "--nvtx --nvtx-include A/ --export $work/ok/ncu/profile --force-overwrite ./app --steps 2" tools.log ||
  fail "ncu argv: $(cat tools.log)"
grep -q -- "--import $work/ok/ncu/profile.ncu-rep --csv --page details --print-units base$" tools.log ||
  fail "export argv"
for f in ncu/cmd.txt ncu/profile.ncu-rep ncu/details.csv kernels.md kernels.json report_set.json ncu/regions/report.md \
         ncu/regions/A/kernels.csv; do
  [[ -f ok/$f ]] || fail "ok/$f missing"
  grep -q "\"path\": \"$f\"" ok/run.json || fail "$f not listed in run.json"
done
grep -q "^ncu --config-file off" ok/ncu/cmd.txt || fail "cmd.txt"
grep -q "# NCU Region Reports" ok/ncu/regions/report.md || fail "region report heading"
for f in stakeholder_summary.md report.md; do grep -q "\"path\": \"$f\"" ok/run.json || fail "$f not listed"; done
grep -q "^## Top Kernels" ok/stakeholder_summary.md || fail "stakeholder summary"

grep -q "^Not computed: set \`model.flops\`" ok/stakeholder_summary.md || fail "MFU without inputs"
grep -q "^## What to do first" ok/stakeholder_summary.md || fail "ranked actions section"

# 1a. MFU for the regions model.flops names (A: 56 us of kernels in the aggregate scope).
# MBU: 1.12e8 bytes over the same 56 us = 2000 GB/s, half of 4000 GB/s.
PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=mfu pipeline.ncu.enable=true '++model.flops={A: 2e9, Z: 5}' \
  pipeline.mfu.peak_tflops=100 '++model.bytes={A: 1.12e8}' pipeline.mfu.peak_bandwidth_gbps=4000 -- ./app \
  >out.txt 2>err.txt || fail "mfu run exited $?"
grep -qF "| A | 0.112 | 0.0560 | 2000.0 | 50.00 % |" mfu/stakeholder_summary.md || fail "MBU row A"
grep -qF "| A | 2.000 | 0.0560 | 35.714 | 35.71 % |" mfu/stakeholder_summary.md || fail "MFU row A"
grep -qF "| Z | 0.000 | n/a | n/a | region not in this run |" mfu/stakeholder_summary.md || fail "MFU row Z"
set +e
"$bin" profile --dry-run '++model.flops={A: lots}' >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] && grep -q "model.flops.A' must be a positive number" err.txt || fail "bad model.flops: $rc $(cat err.txt)"

# 1c. The tracer as the timeline for top_kernels: the workload here is a stand-in that writes a
# trace like the tracer would (to $LLMPO_TRACE_FILE); ncu then gets CUPTI's mangled names, exactly.
cat >traced_app <<'APP'
#!/usr/bin/env bash
out=${LLMPO_TRACE_FILE/\%p/$$}
printf '#llmpo-trace 1\nP\t%s\t/opt/traced_app\tCLOCK_MONOTONIC\nG\tcupti\n' $$ >"$out"
printf 'A\t1\t1\t100\t110\truntime\t211\nA\t1\t2\t200\t210\truntime\t211\nA\t1\t3\t300\t310\truntime\t211\n' >>"$out"
printf 'K\t0\t1\t7\t1\t1000\t5000\t1,1,1\t1,1,1\t_Z11gemm_kernelPfi\n' >>"$out"
printf 'K\t0\t1\t7\t2\t6000\t9000\t1,1,1\t1,1,1\t_Z11gemm_kernelPfi\n' >>"$out"
printf 'K\t0\t1\t7\t3\t9500\t9600\t1,1,1\t1,1,1\trelu_kernel\nE\t10000\texit\n' >>"$out"
APP
chmod +x traced_app
: >tools.log
PATH="$fakes:$nosight" LLMPO_TRACER_LIBRARY=/bin/true "$bin" profile hydra.run.dir=traced pipeline.trace.enable=true \
  pipeline.ncu.enable=true pipeline.ncu.top_kernels=1 -- ./traced_app >out.txt 2>err.txt || fail "traced top: $(cat err.txt)"
grep -qF -- '--kernel-name-base mangled --kernel-name regex:^(_Z11gemm_kernelPfi)$ --export' tools.log ||
  fail "ncu with the tracer's top kernel: $(cat tools.log)"
grep -q "^gemm_kernel(float\*, int),_Z11gemm_kernelPfi$" <(cut -d, -f9- traced/trace/summary_cuda_gpu_kern_sum.csv | tr -d '"') ||
  fail "demangled and mangled names: $(cat traced/trace/summary_cuda_gpu_kern_sum.csv)"

# 1b. `report RUN_DIR` rebuilds every report byte for byte.
cp -r ok ok.before
"$bin" report ok >out.txt || fail "report exited $?"
diff -r ok.before ok >/dev/null || fail "report RUN_DIR is not byte-identical: $(diff -r ok.before ok | head -5)"
set +e
"$bin" report nowhere >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 3 ]] || fail "report on a non-run folder: exit $rc"
grep -q "is not a run folder" err.txt || fail "report: message"

# 1c. nsys then ncu on the top kernels of the nsys summary.
PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=top pipeline.nsys.enable=true pipeline.ncu.enable=true \
  pipeline.ncu.top_kernels=1 -- ./app >out.txt || fail "top-kernels run exited $?"
grep -q -- "--kernel-name-base demangled --kernel-name regex:^(volta_sgemm_128x64_nn)\$ " tools.log ||
  fail "top-kernels regex: $(grep '^ncu --config' tools.log | tail -1)"
for f in nsys/run.nsys-rep nsys/summary_cuda_gpu_kern_sum.csv nsys/run.sqlite nsys/cmd.txt; do
  [[ -f top/$f ]] || fail "top/$f missing"
done
grep -q '"source": "nsys/run.sqlite"' top/kernels.json || fail "nsys kernels not in kernels.json"
# The summary counts each kernel once: times from the timeline (nsys: 1.0 + 0.1 ms), not nsys + ncu added up.
grep -qF -- "- Kernel times from: \`nsys/run.sqlite\`" top/stakeholder_summary.md || fail "summary time source"
grep -qF "| GPU kernel time (ms) | 1.1000 |" top/stakeholder_summary.md || fail "summary total: $(grep 'GPU kernel' top/stakeholder_summary.md)"
grep -qF "| Kernel launches | 2 |" top/stakeholder_summary.md || fail "summary launches"
set +e
PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=top2 pipeline.ncu.enable=true pipeline.ncu.top_kernels=3 \
  -- ./app >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 2 ]] || fail "top_kernels without nsys: exit $rc"
grep -q "needs a timeline: pipeline.trace.enable=true or pipeline.nsys.enable=true" err.txt || fail "top_kernels without a timeline: message"

# 2. ncu missing: exit 4, nothing run, the command kept in cmd.txt.
set +e
PATH="$nosight" "$bin" profile hydra.run.dir=missing pipeline.ncu.enable=true -- ./app >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 4 ]] || fail "missing ncu: exit $rc"
[[ $(status_of missing/run.json) == failed ]] || fail "missing status"
[[ $(step_of missing/run.json ncu) == "skipped|ncu not found on PATH"* ]] || fail "missing step: $(step_of missing/run.json ncu)"
[[ -f missing/ncu/cmd.txt ]] || fail "missing: cmd.txt not written"
grep -q "ncu is not on PATH" err.txt || fail "missing: message: $(cat err.txt)"

# 3. ncu profiles nothing: exit 5 with the likely causes; exports not run.
set +e
FAKE_NCU_FAIL=1 PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=nothing pipeline.ncu.enable=true -- ./app \
  >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 5 ]] || fail "no kernels: exit $rc"
[[ $(step_of nothing/run.json ncu) == "failed|ncu exited with 1: ncu profiled no kernel"* ]] || fail "no kernels reason"
[[ $(step_of nothing/run.json ncu-export-details) == skipped* ]] || fail "export should be skipped"
[[ $(step_of nothing/run.json ncu) != *"older than"* ]] || fail "a current ncu called too old"
# The same failure with an ncu older than the commands need says so.
set +e
FAKE_NCU_FAIL=1 FAKE_NCU_VERSION=2021.3.1.0 PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=old \
  pipeline.ncu.enable=true -- ./app >out.txt 2>err.txt
set -e
[[ $(step_of old/run.json ncu) == *"ncu 2021.3 is older than 2022.1"*"install Nsight Compute 2022.1 or newer" ]] ||
  fail "too old: $(step_of old/run.json ncu)"
grep -q '"path": "ncu/version.txt"' old/run.json || fail "version.txt not listed"
[[ -f nothing/ncu/ncu.stdout.log ]] || fail "log kept"

# 4. bundled workload not built: exit 4.
set +e
PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=bundled pipeline.ncu.enable=true model.workload=not_built >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 4 ]] || fail "bundled: exit $rc"
grep -q "bundled workload" bundled/run.json || fail "bundled: reason"

# 5. Ctrl-C during ncu: exit 130, status interrupted, what ran is kept.
rc=$(signalled_exit INT 0.7 env FAKE_NCU_SLEEP=2 PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=intr \
  pipeline.ncu.enable=true -- ./app)
[[ $rc -eq 130 ]] || fail "interrupt: exit $rc"
[[ $(status_of intr/run.json) == interrupted ]] || fail "interrupt status: $(status_of intr/run.json)"
[[ $(step_of intr/run.json ncu-export-details) == "skipped|not run: interrupted" ]] || fail "interrupt skip"
# The signal reached the tool (its own process group): it did not sleep its 2 s out.
python3 - intr/run.json <<'PY' || fail "interrupt: the tool was not stopped"
import json, sys
step = [s for s in json.load(open(sys.argv[1]))["steps"] if s["name"] == "ncu"][0]
assert step["status"] == "interrupted", step
assert "passed on to the tool" in step["reason"], step
assert step["duration_s"] < 1.8, step
PY

# 6. SIGTERM is treated like Ctrl-C.
rc=$(signalled_exit TERM 0.7 env FAKE_NCU_SLEEP=2 PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=term \
  pipeline.ncu.enable=true -- ./app)
[[ $rc -eq 130 ]] || fail "sigterm: exit $rc"
[[ $(status_of term/run.json) == interrupted ]] || fail "sigterm status"
grep -q "interrupted by Terminated" term/run.json || fail "sigterm reason: $(cat term/run.json)"

# 7. A step over pipeline.step_timeout_s is stopped and fails; the rest is skipped.
set +e
FAKE_NCU_SLEEP=20 PATH="$fakes:$nosight" "$bin" profile hydra.run.dir=slow pipeline.ncu.enable=true \
  pipeline.step_timeout_s=0.5 -- ./app >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 5 ]] || fail "timeout: exit $rc"
[[ $(status_of slow/run.json) == failed ]] || fail "timeout status"
step_of slow/run.json ncu | grep -q "^failed|ncu timed out after 0.5 s (pipeline.step_timeout_s)" ||
  fail "timeout reason: $(step_of slow/run.json ncu)"
grep -q "timed out" err.txt || fail "timeout message"
echo ok
