#!/usr/bin/env python3
"""Stragglers of the 8-rank DLRM archive (../shared/fixtures; skipped when
absent), recomputed here from the archive's rank files:

- the ProfilerStep#N row: per rank, its GPU time = the kernels whose launch
  call (the cuda_runtime event of the same correlation id) started while the
  rank's ProfilerStep#N annotation ran, on any thread of the process; the
  slowest and fastest ranks and the median follow;
- the step's collectives: per rank, the durations of the communication
  kernels launched in the step (as above) summed, and the excess over the
  rank with the least;
- time in collectives: per rank, the union of its communication kernels'
  intervals (HTA's rule: the name starts with nccl, hip or hccl, or contains
  ncclKernel), and its excess over the rank with the least;
- report.html: a heatmap cell per rank for the step, and the collectives table;
- rank_vs_median.json: the rank with the most kernel time (kernel durations
  summed per rank file) against the median rank (the lower middle of the
  sorted sums), with both totals.

The archive's rank files are then imported as eight files of their own (how
torchrun and mpirun jobs leave them): the ranks are different processes, so
report.html's GPU kernel time is every rank's kernels summed, from "8 inputs
of 8 ranks", and rank_vs_median.json is written with the same ranks and totals
as for the archive.
"""
import json
import os
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile

from checks import check, failures, union_length as union_us

BIN = sys.argv[1]
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures")
PATH = os.path.join(SHARED, "kineto", "param-dlrm-8ranks.tar.gz")


def communication(name):
    return name.startswith(("nccl", "hip", "hccl")) or "ncclKernel" in name


def per_rank(events):
    """(step name, step GPU ms, communication ms, kernel ms, step communication ms) of one rank file."""
    steps = [e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")]
    assert len(steps) == 1, [e["name"] for e in steps]
    step = steps[0]
    calls = {e["args"]["correlation"]: e for e in events if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    kernels = [e for e in events if e.get("cat") == "kernel"]
    in_step = comm_in_step = 0
    for k in kernels:
        call = calls.get(k["args"].get("correlation"))
        if call and call["pid"] == step["pid"] and step["ts"] <= call["ts"] <= step["ts"] + step["dur"]:
            in_step += k["dur"]
            comm_in_step += k["dur"] if communication(k["name"]) else 0
    comm = union_us([(k["ts"], k["ts"] + k["dur"]) for k in kernels if communication(k["name"])])
    return step["name"], in_step / 1e3, comm / 1e3, sum(k["dur"] for k in kernels) / 1e3, comm_in_step / 1e3


def step_start_ns(doc):
    """The rank's ProfilerStep annotation's start in Unix ns (its ts is Unix us, or relative to baseTimeNanoseconds)."""
    step = next(e for e in doc["traceEvents"] if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#"))
    return doc.get("baseTimeNanoseconds", 0) + round(step["ts"] * 1000)


def check_late_start(s, md, page, name, starts):
    """The step's late start: each rank's start after the first rank's, the first and the last rank."""
    late = [l for l in s.get("late_starts", []) if l["step"] == name]
    check(len(late) == 1, f"one late start for {name}: {s.get('late_starts')}")
    check(s.get("start_clock") == "host_clocks", f"start clock: {s.get('start_clock')} (the traces name no host)")
    if not late:
        return
    first = min(starts.values())
    got = late[0]
    for r, t in starts.items():
        check(abs(got["after_first_ms"][str(r)] - (t - first) / 1e6) < 1e-6,
              f"rank {r} began {name} {got['after_first_ms'][str(r)]} == {(t - first) / 1e6} ms after the first")
    first_rank, last_rank = min(starts, key=starts.get), max(starts, key=starts.get)
    check(got["first_rank"] == first_rank and got["latest_rank"] == last_rank,
          f"first rank {got['first_rank']} == {first_rank}, last {got['latest_rank']} == {last_rank}")
    check(re.search(rf"\| {re.escape(name)} \| {len(starts)} \| {first_rank} \| {last_rank} \| ", md) is not None,
          f"stragglers.md: {name} began first on rank {first_rank}, last on rank {last_rank}")
    check(re.search(rf'id="late-starts".*?<td>{re.escape(name)}</td><td class="num">{first_rank}</td>'
                    rf'<td class="num">{last_rank}</td>', page, re.S) is not None,
          f"report.html: {name} began first on rank {first_rank}, last on rank {last_rank}")
    print(f"ok: {name}: rank {last_rank} began it {(starts[last_rank] - first) / 1e6:.3f} ms after rank {first_rank}")


def check_identities(s, md, page, docs, members):
    """Who each rank is: its pid (the pid of its CPU events), its devices (the GPU ops' device), the world size of
    its distributedInfo, and its archive member, from the rank files; in stragglers.json, .md and report.html."""
    who = {w["rank"]: w for w in s.get("rank_identities", [])}
    check(sorted(who) == sorted(docs), f"an identity per rank: {sorted(who)}")
    for rank, doc in docs.items():
        events = doc["traceEvents"]
        pids = {e["pid"] for e in events if e.get("cat") in ("cpu_op", "user_annotation", "cuda_runtime")}
        devices = sorted({str(e["args"]["device"]) for e in events if e.get("cat") == "kernel"})
        got = who.get(rank, {})
        check(got.get("processes") == [f"pid {p}" for p in sorted(pids)], f"rank {rank}: processes {got.get('processes')}"
              f" == pids {sorted(pids)}")
        check(sorted(got.get("devices", [])) == devices, f"rank {rank}: devices {got.get('devices')} == {devices}")
        check(got.get("world_size") == doc["distributedInfo"]["world_size"], f"rank {rank}: world size")
        check(got.get("hosts") == [], f"rank {rank}: no host (Kineto traces name none): {got.get('hosts')}")
        check(len(got.get("inputs", [])) == 1 and got["inputs"][0].endswith(":" + members[rank]),
              f"rank {rank}: input {got.get('inputs')} is its member {members[rank]}")
        check(re.search(rf"\| {rank} \| \? \| pid {min(pids)} \| {re.escape(', '.join(got.get('devices', [])))} \| "
                        rf"{doc['distributedInfo']['world_size']} \| ", md) is not None, f"stragglers.md: rank {rank}'s row")
    check(page.count('id="rank-identities"') == 1 and
          len(re.findall(r'<tr><td class="num">\d+</td><td>\?</td><td>pid', page.split('id="rank-identities"')[-1]))
          == len(docs), "report.html: a Ranks row per rank")
    print(f"ok: {len(docs)} ranks: pid, devices, world size and member of each")


def check_rank_files_everywhere(total, every, kernels_tar, kernels_files, compares):
    """Over the eight rank files, compare and the ranked actions count every rank, each from its own file, as the
    archive (one input holding every rank) does; `total` per rank and `every` (ms) are recomputed from the traces."""
    ranked_tar, ranked_files = kernels_tar["what_to_do_first"], kernels_files["what_to_do_first"]
    check(kernels_files["times_from"] == "8 inputs of 8 ranks" and ranked_files["times_from"] == "8 inputs of 8 ranks",
          f"rank files: kernels.json times from {kernels_files['times_from']!r}, ranked {ranked_files['times_from']!r}")
    check(ranked_files["ranked_by"] == ranked_tar["ranked_by"] == "device_span"
          and abs(ranked_files["measured_ms"] - ranked_tar["measured_ms"]) < 1e-6,
          f"rank files: actions ranked by {ranked_files['ranked_by']} over {ranked_files['measured_ms']} ms, as the "
          f"archive's {ranked_tar['ranked_by']} over {ranked_tar['measured_ms']} ms (every rank's devices)")
    check([i["what"] for i in ranked_files["items"]] == [i["what"] for i in ranked_tar["items"]],
          "rank files: the same ranked items as the archive's")
    c = compares.get("self")
    if c is not None:
        check(abs(c["total"]["base_ns"] / 1e6 - every) < 1e-6 and c["total"]["delta_ns"] == 0,
              f"rank files against themselves: total {c['total']['base_ns']} ns == {every:.4f} ms, unchanged")
        scopes = {s["scope"]: s for s in c["scopes"]}
        check(sorted(scopes) == [f"rank {r}" for r in sorted(total)]
              and all(abs(scopes[f"rank {r}"]["base_ns"] / 1e6 - ms) < 1e-6 for r, ms in total.items()),
              f"rank files against themselves: one scope per rank, each its rank's time ({sorted(scopes)})")
        roles = {s["scope"] for s in c["launch_order"]}
        check(roles == {f"rank {r}" for r in total}, f"rank files: launch order aligned for every rank ({roles})")
    c = compares.get("0-3")
    if c is not None:
        check(abs(c["total"]["base_ns"] / 1e6 - total[0]) < 1e-6 and abs(c["total"]["new_ns"] / 1e6 - total[3]) < 1e-6,
              f"rank files: rank 0 against rank 3 totals {c['total']['base_ns']}, {c['total']['new_ns']} ns == "
              f"{total[0]}, {total[3]} ms")
    print(f"ok: rank files: compare and the ranked actions count the 8 ranks ({every:.3f} ms)")


def check_api_calls_of_every_rank(raw, kernels_tar, kernels_files):
    """The CUDA API table counts every rank's calls, one set of rows per rank, whether the ranks come in the archive
    or as files: per rank and function, calls and total time equal the trace's cuda_runtime/cuda_driver events."""
    want = {}
    for rank, text in raw.items():
        for e in json.loads(text)["traceEvents"]:
            if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("dur", -1) >= 0:
                calls, us = want.get((rank, e["name"]), (0, 0.0))
                want[(rank, e["name"])] = (calls + 1, us + e["dur"])
    for case, doc in (("archive", kernels_tar), ("rank files", kernels_files)):
        got = {(r["rank"], r["name"]): (r["calls"], r["total_ms"]) for r in doc["cuda_api"]}
        check(sorted(got) == sorted(want), f"{case}: CUDA API rows for every rank and function "
              f"({len(got)} rows, {len(want)} wanted)")
        bad = [k for k, (calls, us) in want.items()
               if k not in got or got[k][0] != calls or abs(got[k][1] - us / 1000) > 1e-9]
        check(not bad, f"{case}: CUDA API calls and time per rank equal the traces' (differ: {bad[:3]})")
        notes = " ".join(doc["diagnostics"]["notes"])
        check("repeat what an earlier input gave" not in notes, f"{case}: no rank's API rows dropped as repeated")
    ms = sum(us for _, us in want.values()) / 1000
    print(f"ok: CUDA API calls of all {len(raw)} ranks counted ({len(want)} rows, {ms:.3f} ms), archive and files")


def main():
    if not os.path.exists(PATH):
        print("skip: no", PATH)
        return 77
    want = {}
    raw = {}
    starts = {}
    docs = {}
    members = {}
    with tarfile.open(PATH) as tar:
        for m in tar.getmembers():
            if m.name.endswith(".json"):
                text = tar.extractfile(m).read()
                doc = json.loads(text)
                want[doc["distributedInfo"]["rank"]] = per_rank(doc["traceEvents"])
                starts[doc["distributedInfo"]["rank"]] = step_start_ns(doc)
                raw[doc["distributedInfo"]["rank"]] = text
                docs[doc["distributedInfo"]["rank"]] = doc
                members[doc["distributedInfo"]["rank"]] = m.name
    check(sorted(want) == list(range(8)), f"8 ranks: {sorted(want)}")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "o")
        subprocess.run([BIN, "-q", "import", PATH, "--out", out], check=True)
        s = json.load(open(os.path.join(out, "stragglers.json")))
        page = open(os.path.join(out, "report.html")).read()
        md = open(os.path.join(out, "stragglers.md")).read()
        vs = json.load(open(os.path.join(out, "rank_vs_median.json")))
        files = []
        for r, text in sorted(raw.items()):
            files.append(os.path.join(tmp, f"rank{r}.json"))
            with open(files[-1], "wb") as f:
                f.write(text)
        out_files = os.path.join(tmp, "files")
        subprocess.run([BIN, "-q", "import", *files, "--out", out_files], check=True)
        page_files = open(os.path.join(out_files, "report.html")).read()
        vs_path = os.path.join(out_files, "rank_vs_median.json")
        vs_files = json.load(open(vs_path)) if os.path.exists(vs_path) else None
        kernels_tar = json.load(open(os.path.join(out, "kernels.json")))
        kernels_files = json.load(open(os.path.join(out_files, "kernels.json")))
        compares = {}
        for case, sides in (("self", (out_files, out_files)), ("0-3", (out_files + "@rank=0", out_files + "@rank=3"))):
            cmp_out = os.path.join(tmp, "compare-" + case)
            r = subprocess.run([BIN, "-q", "compare", *sides, "--out", cmp_out], capture_output=True, text=True)
            check(r.returncode == 0, f"rank files: compare {case} exits 0 ({r.returncode}: {r.stderr})")
            path = os.path.join(cmp_out, "compare.json")
            compares[case] = json.load(open(path))["comparisons"][0] if os.path.exists(path) else None
    name = want[0][0]
    check(all(w[0] == name for w in want.values()), "every rank ran the same step")
    rows = [r for r in s["steps"] if r["region"] == name]
    check(len(rows) == 1, f"one {name} row: {[r['region'] for r in s['steps']]}")
    if rows:
        row = rows[0]
        gpu = {r: w[1] for r, w in want.items()}
        check(row["quantity"] == "total", "the step row measures GPU time")
        for r, ms in gpu.items():
            check(abs(row["per_rank_ms"][str(r)] - ms) < 1e-6, f"rank {r}: {row['per_rank_ms'][str(r)]} == {ms} ms")
        slowest = max(gpu, key=gpu.get)
        check(row["slowest_rank"] == slowest, f"slowest rank {row['slowest_rank']} == {slowest}")
        check(row["fastest_rank"] == min(gpu, key=gpu.get), "fastest rank")
        check(abs(row["median_ms"] - statistics.median(gpu.values())) < 1e-6, "median over ranks")
        print(f"ok: {name}: slowest rank {slowest}, {gpu[slowest]:.3f} ms against a median of "
              f"{statistics.median(gpu.values()):.3f} ms")
        step_comm = {r: w[4] for r, w in want.items()}
        got_step = {c["rank"]: c for c in row.get("collectives", [])}
        check(sorted(got_step) == sorted(step_comm), f"step collectives for every rank: {sorted(got_step)}")
        for r, ms in step_comm.items():
            if r in got_step:
                check(abs(got_step[r]["communication_ms"] - ms) < 1e-6,
                      f"rank {r} step communication {got_step[r]['communication_ms']} == {ms}")
                check(abs(got_step[r]["beyond_least_ms"] - (ms - min(step_comm.values()))) < 1e-6,
                      f"rank {r} step communication beyond the least")
        waited = max(step_comm, key=lambda r: (step_comm[r], -r))
        check(re.search(rf"\| {re.escape(name)} \| {waited} \| ", md) is not None,
              f"stragglers.md: rank {waited} waited longest in {name}'s collectives")
        check(re.search(rf'id="step-collectives".*?<td>{re.escape(name)}</td><td class="num">{waited}</td>', page,
                        re.S) is not None, f"report.html: rank {waited} waited longest in {name}'s collectives")
        print(f"ok: {name}: communication launched in the step per rank, rank {waited} waited longest "
              f"({step_comm[waited] - min(step_comm.values()):.3f} ms beyond the least)")
    check_late_start(s, md, page, name, starts)
    check_identities(s, md, page, docs, members)
    comm = {r: w[2] for r, w in want.items()}
    least = min(comm.values())
    got = {c["rank"]: c for c in s["collectives"]}
    check(sorted(got) == sorted(comm), f"collectives for every rank: {sorted(got)}")
    for r, ms in comm.items():
        if r in got:
            check(abs(got[r]["communication_ms"] - ms) < 1e-6, f"rank {r} communication {got[r]['communication_ms']} == {ms}")
            check(abs(got[r]["beyond_least_ms"] - (ms - least)) < 1e-6, f"rank {r} beyond the least")
    print("ok: communication per rank: " + ", ".join(f"{r}: {comm[r]:.3f}" for r in sorted(comm)) + " ms")
    check("## Time in collectives" in md, "stragglers.md has the collectives section")
    cells = re.findall(r'<rect class="cell" data-rank="(\d+)" data-step="([^"]+)"', page)
    check(sorted(int(r) for r, _ in cells) == list(range(8)) and {st for _, st in cells} == {name},
          f"report.html: one heatmap cell per rank for {name}: {cells}")
    check('id="collectives"' in page and 'href="#stragglers"' in page, "report.html: collectives table and nav link")
    total = {r: w[3] for r, w in want.items()}
    ordered = sorted(total, key=lambda r: (total[r], r))
    median, slowest = ordered[(len(ordered) - 1) // 2], ordered[-1]
    check(vs["sides"][0].startswith(f"rank {median} ") and vs["sides"][1].startswith(f"rank {slowest} "),
          f"rank_vs_median: rank {slowest} against rank {median}: {vs['sides']}")
    t = vs["comparisons"][0]["total"]
    check(abs(t["base_ns"] / 1e6 - total[median]) < 1e-6 and abs(t["new_ns"] / 1e6 - total[slowest]) < 1e-6,
          f"rank_vs_median totals {t['base_ns']}, {t['new_ns']} ns == {total[median]}, {total[slowest]} ms")
    print(f"ok: rank_vs_median: rank {slowest} ({total[slowest]:.3f} ms) against rank {median} ({total[median]:.3f} ms)")
    check(vs_files is not None, "rank files: rank_vs_median.json is written")
    if vs_files is not None:
        check(vs_files["sides"] == vs["sides"], f"rank files: rank_vs_median sides {vs_files['sides']} == the archive's")
        t = vs_files["comparisons"][0]["total"]
        check(abs(t["base_ns"] / 1e6 - total[median]) < 1e-6 and abs(t["new_ns"] / 1e6 - total[slowest]) < 1e-6,
              f"rank files: rank_vs_median totals {t['base_ns']}, {t['new_ns']} ns == {total[median]}, {total[slowest]} ms")
    tile = re.search(r'<div class="value">([0-9.]+) ms</div><div class="label">GPU kernel time, from ([^<]*)</div>',
                     page_files)
    every = sum(total.values())
    check(tile is not None and abs(float(tile.group(1)) - every) < 1e-3 and tile.group(2) == "8 inputs of 8 ranks",
          f"rank files: report.html's GPU kernel time {tile and tile.groups()} == {every:.4f} ms from 8 inputs of 8 ranks")
    if vs_files is not None and tile is not None:
        print(f"rank files: {every:.3f} ms of GPU kernel time over the 8 ranks; report.html says {tile.group(1)} ms "
              f"from {tile.group(2)}")
    check_rank_files_everywhere(total, every, kernels_tar, kernels_files, compares)
    check_api_calls_of_every_rank(raw, kernels_tar, kernels_files)
    if failures:
        print(f"{len(failures)} failure(s)")
        return 1
    print("ok: DLRM stragglers and collectives equal the independent computation")
    return 0


if __name__ == "__main__":
    sys.exit(main())
