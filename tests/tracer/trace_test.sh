#!/usr/bin/env bash
# The tracer's NVTX side, for real: `llm-perf-opt trace` runs
# nvtx_cpu_program (its comment lists what it does) under the tracer; the
# raw trace and the summaries are checked against what the program did,
# computed here independently of the importer. Also: a Python process calling
# NVTX through ctypes (python_nvtx.py with nvtx_shim), fork, Ctrl-C, profile.
set -euo pipefail
bin=$(realpath "$1")
program=$(realpath "$2")
shim=$(realpath "$3")
python_script=$(cd "$(dirname "$0")" && pwd)/python_nvtx.py
trace_checker=$(cd "$(dirname "$0")/../browser" && pwd)/check_trace_json.py
source "$(dirname "$0")/../cli/signal_lib.sh"
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

"$bin" trace hydra.run.dir=ok -- "$program" >out.txt 2>err.txt || fail "trace exited $?: $(cat err.txt)"
python3 - ok <<'PY' || fail "checks on the trace"
import csv, glob, json, sys, os
run = sys.argv[1]
files = glob.glob(f"{run}/trace/trace.*.tsv")
assert len(files) == 1, files
lines = open(files[0], encoding="utf-8").read().splitlines()
assert lines[0] == "#llmpo-trace 1", lines[0]
rec = [l.split("\t") for l in lines[1:]]
pid = int([r for r in rec if r[0] == "P"][0][1])
# The header names the host and the launcher's rank (none here: the run below sets one).
import socket
p_rec = [r for r in rec if r[0] == "P"][0]
assert p_rec[4] == socket.gethostname(), p_rec
domains = {"0": ""} | {r[1]: r[2] for r in rec if r[0] == "D"}
assert sorted(domains.values()) == ["", "Alpha", "Beta"], domains
unesc = lambda s: s.replace("\\t", "\t").replace("\\n", "\n").replace("\\\\", "\\")
pushpop = [(int(r[1]), domains[r[2]], int(r[3]), int(r[4]), int(r[5]), unesc(r[6])) for r in rec if r[0] == "R"]
startend = {unesc(r[7]): (int(r[3]), int(r[4]), int(r[5]), int(r[6])) for r in rec if r[0] == "S"}
count = {}
for tid, dom, depth, start, end, name in pushpop:
    count[(dom, name, depth)] = count.get((dom, name, depth), 0) + 1
    assert end - start >= 200_000, (name, end - start)
assert count == {("", "outer", 0): 1, ("", "inner", 1): 3, ("", "wide_\u00fc", 0): 1, ("", "tab\there", 0): 1,
                 ("Alpha", "step", 0): 2, ("Alpha", "sub", 1): 2, ("Beta", "worker", 0): 3, ("Beta", "task", 1): 12}, count
# Nesting: each inner lies inside outer, on the main thread.
outer = [p for p in pushpop if p[5] == "outer"][0]
for p in pushpop:
    if p[5] == "inner":
        assert p[0] == pid and outer[3] <= p[3] and p[4] <= outer[4], p
# Workers: three threads other than main, named by nvtxNameOsThreadA.
worker_tids = {p[0] for p in pushpop if p[5] == "worker"}
assert len(worker_tids) == 3 and pid not in worker_tids, worker_tids
names = {int(r[1]): r[2] for r in rec if r[0] == "T"}
assert sorted(names[t] for t in worker_tids) == ["worker-0", "worker-1", "worker-2"], names
# Start/end: overlapping, and one ended on another thread.
a, b = startend["overlap_a"], startend["overlap_b"]
assert a[2] < b[2] < a[3] < b[3], (a, b)
h = startend["handoff"]
assert h[0] == pid and h[1] in worker_tids, h
assert [r[4] for r in rec if r[0] == "M"] == ["checkpoint"]
assert rec[-1][0] == "E", rec[-1]
# Both clocks read together after the header and before the end marker:
# Unix time of now (this check runs seconds later), the trace's monotonic
# clock bracketing every record, and one offset between them at both ends.
import time
wall = [(int(r[1]), int(r[2])) for r in rec if r[0] == "W"]
assert len(wall) == 2 and rec[1][0] == "W" and rec[-2][0] == "W", [r[0] for r in rec[:3] + rec[-3:]]
times = [int(x) for r in rec if r[0] in "RS" for x in (r[4:6] if r[0] == "R" else r[5:7])]
assert wall[0][0] <= min(times) and max(times) <= wall[1][0], (wall, min(times), max(times))
assert all(abs(unix / 1e9 - time.time()) < 600 for _, unix in wall), wall
offsets = [unix - mono for mono, unix in wall]
assert abs(offsets[1] - offsets[0]) < 50_000_000, offsets  # NTP may slew, not jump, in a second's run

# The nvtx_sum-shaped summary agrees with the raw records.
rows = list(csv.DictReader(open(f"{run}/trace/summary_nvtx_sum.csv", encoding="utf-8")))
summary = {(r["Style"], r["Range"]): r for r in rows}
want = {("PushPop", ":outer"): 1, ("PushPop", ":inner"): 3, ("PushPop", ":wide_\u00fc"): 1, ("PushPop", ":tab\there"): 1,
        ("PushPop", "Alpha:step"): 2, ("PushPop", "Alpha:sub"): 2, ("PushPop", "Beta:worker"): 3,
        ("PushPop", "Beta:task"): 12, ("StartEnd", ":overlap_a"): 1, ("StartEnd", ":overlap_b"): 1,
        ("StartEnd", ":handoff"): 1}
assert {k: int(v["Instances"]) for k, v in summary.items()} == want, summary.keys()
inner_total = sum(p[4] - p[3] for p in pushpop if p[5] == "inner")
assert int(summary[("PushPop", ":inner")]["Total Time (ns)"]) == inner_total
assert int(summary[("PushPop", ":inner")]["Min (ns)"]) == min(p[4] - p[3] for p in pushpop if p[5] == "inner")
assert abs(sum(float(r["Time (%)"]) for r in rows) - 100) < 0.5
assert not os.path.exists(f"{run}/trace/summary_cuda_gpu_kern_sum.csv"), "no GPU, no kernel summary"

# The Chrome trace: valid JSON, one complete event per push/pop range, one
# async begin/end pair per start/end range (they overlap), one instant per mark.
events = json.load(open(f"{run}/trace/trace.json", encoding="utf-8"))["traceEvents"]
assert sum(e["ph"] == "X" for e in events) == sum(v for k, v in want.items() if k[0] == "PushPop")
start_end = sum(v for k, v in want.items() if k[0] == "StartEnd")
assert sum(e["ph"] == "b" for e in events) == sum(e["ph"] == "e" for e in events) == start_end
assert sum(e["ph"] == "i" for e in events) == 1
manifest = json.load(open(f"{run}/run.json"))
assert manifest["status"] == "ok", manifest["status"]
listed = {a["path"] for a in manifest["artifacts"]}
for f in ["trace/summary_nvtx_sum.csv", "trace/trace.json", "trace/data_quality.txt", os.path.relpath(files[0], run)]:
    assert f in listed, f
assert "trace_truncated" not in open(f"{run}/trace/data_quality.txt").read()
PY
[[ -f ok/trace/regions/report.md ]] || fail "region report from the NVTX summary"
/usr/bin/python3 "$trace_checker" ok/trace/trace.json --expect-async 3 >check.txt ||
  fail "trace.json format: $(cat check.txt)"
[[ -f ok/report.html ]] || fail "no report.html in the trace run"
grep -q '"trace_json_link": "trace/trace.json"' ok/report_set.json || fail "no report_set.json (with its trace link)"
# `report RUN_DIR` rebuilds every report of a trace run byte for byte.
cp -r ok ok.before
"$bin" report ok >out.txt || fail "report exited $?"
diff -r ok.before ok >/dev/null || fail "report RUN_DIR is not byte-identical: $(diff -r ok.before ok | head -5)"

# A rank from the launcher's environment: RANK comes before OMPI_COMM_WORLD_RANK;
# the region report's scope carries it in process_identity, with the host.
env -u PMIX_RANK -u PMI_RANK -u SLURM_PROCID RANK=3 OMPI_COMM_WORLD_RANK=5 \
  "$bin" trace hydra.run.dir=ranked -- "$program" >out.txt 2>err.txt || fail "ranked trace exited $?: $(cat err.txt)"
python3 - ranked <<'PY' || fail "rank and host in the trace and the region report"
import glob, json, socket, sys
run = sys.argv[1]
trace = glob.glob(f"{run}/trace/trace.*.tsv")[0]
p_rec = [l.split("\t") for l in open(trace, encoding="utf-8").read().splitlines() if l.startswith("P\t")][0]
assert p_rec[4:] == [socket.gethostname(), "3"], p_rec
scopes = json.load(open(f"{run}/trace/regions/report.json", encoding="utf-8"))["scopes"]
assert scopes, "no scope"
for s in scopes:
    ident = s["process_identity"]
    assert ident["rank"] == 3 and ident["host"] == socket.gethostname() and ident["pid"] == int(p_rec[1]), ident
    assert s["process"] == f"rank 3 on {socket.gethostname()}", s["process"]
PY

# Early exit inside a range: the ranges still open are written, the run is partial.
set +e
"$bin" trace hydra.run.dir=early -- "$program" --exit-inside >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 5 ]] || fail "early exit: trace exited $rc"
grep -q '"status": "partial"' early/run.json || fail "early exit: status"
grep -P '^R\t\d+\t0\t0\t\d+\t\d+\touter\topen$' early/trace/trace.*.tsv >/dev/null || fail "open range not written"
grep -q "range_open_at_exit" early/trace/data_quality.txt || fail "open range not reported"

# A missing tracer library is exit 7 with the fix.
set +e
LLMPO_TRACER_LIBRARY=/nonexistent/libllmpo_tracer.so "$bin" trace hydra.run.dir=none -- "$program" >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 7 ]] && grep -q "LLMPO_TRACER_LIBRARY names /nonexistent" err.txt || fail "missing library: $rc $(cat err.txt)"

# fork(): the child writes its own file with only its own records.
"$bin" trace hydra.run.dir=forked -- "$program" --fork >out.txt 2>err.txt || fail "fork run exited $?: $(cat err.txt)"
python3 - forked <<'PY' || fail "fork: per-process traces"
import glob, sys
files = sorted(glob.glob(f"{sys.argv[1]}/trace/trace.*.tsv"))
assert len(files) == 2, files
names = []
for f in files:
    rec = [l.split("\t") for l in open(f, encoding="utf-8").read().splitlines()[1:]]
    assert rec[-1][0] == "E", (f, rec[-1])
    names.append(sorted({r[6] for r in rec if r[0] == "R"}))
child = [n for n in names if "child_work" in n]
parent = [n for n in names if "parent_side" in n]
assert len(parent) == 1 and "child_work" not in parent[0] and parent[0].count("outer") == 1, names
assert child == [["child_work"]], names   # nothing of the parent's copied into the child's file
# The child's range carries the child's own thread id (its pid: one thread), not the parent's.
for f in files:
    rec = [l.split("\t") for l in open(f, encoding="utf-8").read().splitlines()[1:]]
    if any(r[0] == "R" and r[6] == "child_work" for r in rec):
        pid = [r for r in rec if r[0] == "P"][0][1]
        assert [r[1] for r in rec if r[0] == "R"] == [pid], (pid, rec)
PY

# A forked child that ends with _exit (as multiprocessing's workers do): its
# top-level range was written when it ended, so its file holds it.
"$bin" trace hydra.run.dir=forked_exit -- "$program" --fork-exit >out.txt 2>err.txt ||
  fail "fork + _exit run exited $?: $(cat err.txt)"
python3 - forked_exit <<'PY' || fail "fork + _exit: the child's trace"
import glob, sys
files = sorted(glob.glob(f"{sys.argv[1]}/trace/trace.*.tsv"))
assert len(files) == 2, files
child = [f for f in files if "child_work" in open(f, encoding="utf-8").read()]
assert len(child) == 1, files
lines = open(child[0], encoding="utf-8").read().splitlines()
assert not lines[-1].startswith("E\t") and "parent_side" not in "".join(lines), lines
PY

# A program that closes the tracer's descriptor and opens a file of its own:
# nothing of the trace lands in its file, the trace keeps every range and says
# the tracer reopened its file.
"$bin" trace hydra.run.dir=closed -- "$program" --close-fds >out.txt 2>err.txt ||
  fail "close-fds run exited $?: $(cat err.txt)"
[[ "$(cat own.txt)" == "mine" ]] || fail "close-fds: the program's own file holds $(head -c 200 own.txt | od -c | head -3)"
python3 - closed <<'PY' || fail "close-fds: the trace"
import glob, sys
files = glob.glob(f"{sys.argv[1]}/trace/trace.*.tsv")
assert len(files) == 1, files
rec = [l.split("\t") for l in open(files[0], encoding="utf-8").read().splitlines()[1:]]
assert sum(r[0] == "R" and r[6] == "filler" for r in rec) == 4000, sum(r[0] == "R" for r in rec)
assert ["X", "fd_replaced"] in rec and rec[-1][0] == "E", rec[-1]
assert "tracer_fd_replaced" in open(f"{sys.argv[1]}/trace/data_quality.txt").read()
PY

# exec: the new program appends to the same file (same pid); what the old one
# wrote before the exec stays, and the exec is reported.
"$bin" trace hydra.run.dir=execd -- "$program" --exec >out.txt 2>err.txt || fail "exec run exited $?: $(cat err.txt)"
python3 - execd <<'PY' || fail "exec: the trace"
import glob, sys
files = glob.glob(f"{sys.argv[1]}/trace/trace.*.tsv")
assert len(files) == 1, files
lines = open(files[0], encoding="utf-8").read().splitlines()
assert lines.count("#llmpo-trace 1") == 2, "one header per program image"
names = [l.split("\t")[6] for l in lines if l.startswith("R\t")]
assert names.count("filler") >= 1000 and "post_exec" in names, (len(names), names[-3:])
assert lines[-1].startswith("E\t"), lines[-1]
assert "trace_exec" in open(f"{sys.argv[1]}/trace/data_quality.txt").read()
PY

# _exit and exec after a few ranges (nothing fills the buffer): the ranges
# closed more than 10 ms before stay, and the data quality says what was lost,
# never that the program made no NVTX call.
"$bin" trace hydra.run.dir=exited -- "$program" --exit-early >out.txt 2>err.txt ||
  fail "_exit run exited $?: $(cat err.txt)"
python3 - exited <<'PY' || fail "_exit: the trace"
import glob, sys
files = glob.glob(f"{sys.argv[1]}/trace/trace.*.tsv")
assert len(files) == 1, files
lines = open(files[0], encoding="utf-8").read().splitlines()
names = [l.split("\t")[6] for l in lines if l.startswith("R\t")]
assert names == ["early_a", "early_b", "early_c"], names
assert not lines[-1].startswith("E\t"), lines[-1]
quality = open(f"{sys.argv[1]}/trace/data_quality.txt").read()
assert "trace_truncated" in quality and "_exit" in quality and "ranges still open" in quality, quality
PY
"$bin" trace hydra.run.dir=exec_early -- "$program" --exec-early >out.txt 2>err.txt ||
  fail "early exec run exited $?: $(cat err.txt)"
python3 - exec_early <<'PY' || fail "early exec: the trace"
import glob, sys
files = glob.glob(f"{sys.argv[1]}/trace/trace.*.tsv")
assert len(files) == 1, files
lines = open(files[0], encoding="utf-8").read().splitlines()
assert lines.count("#llmpo-trace 1") == 2, "one header per program image"
names = [l.split("\t")[6] for l in lines if l.startswith("R\t")]
assert names == ["exec_a", "exec_b", "post_exec"], names
assert "trace_exec" in open(f"{sys.argv[1]}/trace/data_quality.txt").read()
PY

# `profile` with the tracer as its timeline step.
"$bin" profile hydra.run.dir=prof pipeline.trace.enable=true -- "$program" >out.txt 2>err.txt ||
  fail "profile with the tracer exited $?: $(cat err.txt)"
python3 - prof <<'PY' || fail "profile with the tracer"
import json, sys
m = json.load(open(f"{sys.argv[1]}/run.json"))
steps = {s["name"]: s for s in m["steps"]}
assert steps["trace"]["status"] == "ok" and steps["trace"]["argv"][0] == "env", steps["trace"]
assert any(a.startswith("NVTX_INJECTION64_PATH=") for a in steps["trace"]["argv"]), steps["trace"]["argv"]
assert steps["trace-summaries"]["status"] == "ok" and steps["report"]["status"] == "ok", steps
assert m["status"] == "ok", m["status"]
listed = {a["path"] for a in m["artifacts"]}
for f in ["trace/cmd.txt", "trace/summary_nvtx_sum.csv", "trace/trace.json", "kernels.md", "trace/regions/report.md",
          "stakeholder_summary.md"]:
    assert f in listed, f
PY
cp -r prof prof.before
"$bin" report prof >out.txt || fail "report on the profile run exited $?"
diff -r prof.before prof >/dev/null || fail "report RUN_DIR (profile + tracer) is not byte-identical"
"$bin" profile --dry-run pipeline.trace.enable=true -- "$program" >out.txt
grep -q "^env NVTX_INJECTION64_PATH=.*libllmpo_tracer.so CUDA_INJECTION64_PATH=.* LLMPO_TRACE_FILE=.*/trace/trace.%p.tsv $program$" out.txt ||
  fail "dry run: $(cat out.txt)"

# Ctrl-C reaches the traced program (its own process group): exit 130, status interrupted, quickly.
rc=$(signalled_exit INT 0.5 "$bin" trace hydra.run.dir=intr -- sleep 20)
[[ $rc -eq 130 ]] || fail "interrupt: exit $rc"
python3 - intr/run.json <<'PY' || fail "interrupt: run.json"
import json, sys
m = json.load(open(sys.argv[1]))
step = [s for s in m["steps"] if s["name"] == "trace"][0]
assert m["status"] == "interrupted" and step["status"] == "interrupted", m
assert step["duration_s"] < 10, step
PY

# A Python process calling NVTX (as torch.cuda.nvtx does) is traced the same way.
"$bin" trace hydra.run.dir=py -- python3 "$python_script" "$shim" >out.txt 2>err.txt || fail "python: $(cat err.txt)"
python3 - py <<'PY' || fail "python: summary"
import csv, sys
rows = {r["Range"]: r for r in csv.DictReader(open(f"{sys.argv[1]}/trace/summary_nvtx_sum.csv"))}
assert int(rows[":forward"]["Instances"]) == 1 and int(rows[":layer"]["Instances"]) == 4, rows
assert int(rows[":layer"]["Min (ns)"]) >= 1_000_000, rows[":layer"]
assert int(rows[":forward"]["Total Time (ns)"]) >= int(rows[":layer"]["Total Time (ns)"]), rows
PY

# A program that cannot start: exit 4, the run folder says why.
set +e
"$bin" trace hydra.run.dir=noprog -- ./no-such-program >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 4 ]] && grep -q "cannot start './no-such-program'" noprog/run.json || fail "missing program: $rc"
echo ok
