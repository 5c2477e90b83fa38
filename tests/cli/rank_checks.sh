# Sourced by the tests that capture under launchers (launcher_capture_test.sh,
# slurm_test.sh): what every run of ranks must show.

# The rank records and traces of RUN's STEP: ranks 0..COUNT-1, each named by
# VARIABLE, the world size COUNT, a local rank, a host, a clean exit; one
# trace a rank whose header names the rank of its file name; with NODES,
# rank r ran on the r-th node given.
#   check_ranks RUN STEP COUNT VARIABLE [NODES...]
check_ranks() {
  python3 - "$@" <<'PY'
import glob, json, sys
run, step, count, var, nodes = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5:]
recs = sorted((json.load(open(f)) for f in glob.glob(f"{run}/ranks/{step}.rank*.json")), key=lambda r: r["rank"])
assert [r["rank"] for r in recs] == list(range(count)), recs
for r in recs:
    assert r["rank_from"] == var and r["world_size"] == count, r
    assert 0 <= r["local_rank"] <= r["rank"] and r["host"] and r["finished"] and r["exit_code"] == 0, r
if nodes:
    assert [r["node"] for r in recs] == nodes, [r["node"] for r in recs]
traces = sorted(glob.glob(f"{run}/trace/trace.rank*.tsv"))
got = sorted(int(t.split("/trace.rank")[1].split(".")[0]) for t in traces)
assert got == list(range(count)), traces
for t in traces:  # the tracer's header names the same rank as the file
    assert open(t).readlines()[1].rstrip("\n").split("\t")[5] == t.split("/trace.rank")[1].split(".")[0], t
print(f"ok: {run}: {count} ranks named by {var}, one trace each" + (f", nodes {' '.join(nodes)}" if nodes else ""))
PY
}

# The straggler table of RUN names RANK as the slowest of REGION (a step or a
# region) by over MS ms.
#   check_straggler RUN REGION RANK MS
check_straggler() {
  python3 - "$@" <<'PY'
import json, sys
run, region, rank, ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
s = json.load(open(f"{run}/stragglers.json"))
rows = [r for r in s["steps"] + s.get("regions", []) if r["region"] == region]
assert rows, (region, [r["region"] for r in s["steps"] + s.get("regions", [])])
r = rows[0]
assert r["slowest_rank"] == rank and r["excess_ms"] > ms, r
print(f"ok: {run}: '{region}' slowest rank {rank}, {r['excess_ms']:.1f} ms over the median")
PY
}

# The late start of RUN's STEP: recomputed from the rank traces (each rank's
# top-level range STEP, its start turned into Unix time by the trace's first
# W clock pair), it matches stragglers.json to the nanosecond, and RANK
# began it last, over MS ms after the first; with CLOCK, the clock named.
#   check_late_start RUN STEP RANK MS [CLOCK]
check_late_start() {
  python3 - "$@" <<'PY'
import glob, json, sys
run, step, rank, ms = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
clock = sys.argv[5] if len(sys.argv) > 5 else None
starts = {}
for t in glob.glob(f"{run}/trace/trace.rank*.tsv"):
    offset, r = None, None
    for line in open(t):
        f = line.rstrip("\n").split("\t")
        if f[0] == "P":
            r = int(f[5])
        elif f[0] == "W" and offset is None:
            offset = int(f[2]) - int(f[1])
        elif f[0] == "R" and f[3] == "0" and f[6] == step:
            starts[r] = min(starts.get(r, 1 << 63), int(f[4]) + offset)
first = min(starts.values())
s = json.load(open(f"{run}/stragglers.json"))
late = [l for l in s["late_starts"] if l["step"] == step]
assert len(late) == 1, s["late_starts"]
for r, t in starts.items():
    assert abs(late[0]["after_first_ms"][str(r)] - (t - first) / 1e6) < 1e-6, (r, late[0], (t - first) / 1e6)
assert late[0]["latest_rank"] == rank and late[0]["latest_after_first_ms"] > ms, late[0]
assert clock is None or s["start_clock"] == clock, s["start_clock"]
print(f"ok: {run}: rank {rank} began '{step}' {late[0]['latest_after_first_ms']:.1f} ms after the first "
      f"({s['start_clock']})")
PY
}

# The Ranks table of RUN: one identity per rank 0..COUNT-1; each rank with a
# trace has the host, pid and executable its trace header (P record) gives;
# every rank has its rank record's host, local rank, node and devices as set,
# and ended "exit 0" unless named as RANK=ENDED ("1=exit 3").
#   check_identities RUN COUNT [RANK=ENDED...]
check_identities() {
  python3 - "$@" <<'PY'
import glob, json, os, sys
run, count = sys.argv[1], int(sys.argv[2])
ended = {int(a.split("=")[0]): a.split("=", 1)[1] for a in sys.argv[3:]}
want = {}
for t in glob.glob(f"{run}/trace/trace.rank*.tsv"):
    p = next(line.rstrip("\n").split("\t") for line in open(t) if line.startswith("P\t"))
    want[int(p[5])] = {"hosts": [p[4]], "processes": [f"{os.path.basename(p[2])} ({p[1]})"]}
recs = {r["rank"]: r for r in (json.load(open(f)) for f in glob.glob(f"{run}/ranks/trace.rank*.json"))}
who = {w["rank"]: w for w in json.load(open(f"{run}/stragglers.json"))["rank_identities"]}
assert sorted(who) == list(range(count)) == sorted(recs), (sorted(who), sorted(recs))
for r, w in who.items():
    rec = recs[r]
    assert w["hosts"] == [rec["host"]], (r, w, rec)
    if r in want:
        assert w["hosts"] == want[r]["hosts"] and w["processes"] == want[r]["processes"], (r, w, want[r])
        assert len(w["inputs"]) == 1 and os.path.basename(w["inputs"][0]).startswith(f"trace.rank{r}."), (r, w)
    else:
        assert w["processes"] == [] and w["inputs"] == [], (r, w)
    assert w["local_rank"] == rec["local_rank"] and w["node"] == (rec.get("node") or None), (r, w, rec)
    assert w["cuda_visible_devices"] == (rec.get("cuda_visible_devices") or None), (r, w, rec)
    assert w["ended"] == ended.get(r, "exit 0") and w["world_size"] == rec["world_size"], (r, w, rec)
md = open(f"{run}/stragglers.md").read()
assert "| rank | host | node | local rank |" in md, md[md.find("## Ranks"):]
for r, w in who.items():
    assert f"| {r} | {w['hosts'][0]} | " in md and f"| {w['ended']} |" in md, md[md.find("## Ranks"):]
print(f"ok: {run}: {count} ranks, each with its trace header's host and process and its rank record"
      + (f"; {ended}" if ended else ""))
PY
}
