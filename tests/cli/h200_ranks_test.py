#!/usr/bin/env python3
"""Our own H200 captures of a two-rank torchrun job and of a Hugging Face
generate() (tests/fixtures/h200/README.md), imported here without a GPU; every
number checked is recomputed from the raw files:

- the tracer's two rank traces (trace.rank<R>.<pid>.tsv): per rank and step,
  `step N > forward` by GPU kernel time (kernels whose launch call started in
  the range: A and K records of one correlation id) and `step N > allreduce`
  (gloo: no kernels on any rank) by CPU range time (its R record); rank 1 is
  the straggler of step 3's forward, rank 0 the one that waits in its
  all-reduce;
- the two Kineto rank traces: ProfilerStep#N per rank, the GPU time of the
  kernels whose cuda_runtime launch started in the step; rank 1 slowest in 3;
- ncu's per-rank details pages (ncu on both ranks under torchrun): 8 kernels
  per rank, each kernels.md row named by its rank;
- generate(): the kernel count and GPU kernel time of kernels.md against the
  trace's kernel events.
  h200_ranks_test.py LLM_PERF_OPT SOURCE_DIR
"""
import collections
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

from checks import check, failures

BIN, SRC = sys.argv[1], sys.argv[2]
RANKS = os.path.join(SRC, "tests", "fixtures", "h200", "torchrun_ranks")
HF = os.path.join(SRC, "tests", "fixtures", "h200", "hf_generate", "hf_gpt2_generate.json.gz")
TRACES = [os.path.join(RANKS, "trace.rank0.638.tsv"), os.path.join(RANKS, "trace.rank1.637.tsv")]
KINETO = [os.path.join(RANKS, f"kineto_rank{r}.json.gz") for r in (0, 1)]


def run_import(out, *args):
    proc = subprocess.run([BIN, "-q", "import", *args, "--out", out], capture_output=True, text=True)
    check(proc.returncode == 0, f"import {' '.join(os.path.basename(a) for a in args)}: exit {proc.returncode} "
          f"{proc.stderr[-2000:]}")


def stragglers(out):
    s = json.load(open(os.path.join(out, "stragglers.json")))
    return {r["region"]: r for r in s["steps"] + s.get("regions", [])}


def values(row):
    """{rank: ms} of a row: per_rank_ms (steps), else the slowest and fastest rank (all of two ranks)."""
    if "per_rank_ms" in row:
        return {int(r): v for r, v in row["per_rank_ms"].items()}
    return {row["slowest_rank"]: row["slowest_ms"], row["fastest_rank"]: row["fastest_ms"]}


def tracer_expectation(path):
    """{region: (quantity, ms)} of one rank's trace: forward by GPU kernel time, allreduce by CPU range time."""
    launches, kernels, ranges = {}, [], []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if f[0] == "A":
            launches[int(f[2])] = int(f[3])
        elif f[0] == "K":
            kernels.append((int(f[4]), int(f[6]) - int(f[5])))  # (correlation, end - start)
        elif f[0] == "R":
            ranges.append((int(f[4]), int(f[5]), f[6]))
    steps = sorted(r for r in ranges if re.fullmatch(r"step \d+", r[2]))
    want = {}
    for start, end, name in steps:
        inner = [r for r in ranges if r[2] in ("forward", "allreduce") and start <= r[0] and r[1] <= end]
        for s, e, child in inner:
            region = f"{name} > {child}"
            if child == "allreduce":
                want[region] = ("cpu", (e - s) / 1e6)
            else:
                ns = sum(d for c, d in kernels if c in launches and s <= launches[c] <= e)
                want[region] = ("total", ns / 1e6)
    return want


def check_tracer(tmp):
    out = os.path.join(tmp, "trace")
    run_import(out, *TRACES, "--set", "pipeline.regions.instance_suffix=''")
    rows = stragglers(out)
    per_rank = [tracer_expectation(t) for t in TRACES]
    check(len(per_rank[0]) == 10, f"5 steps of forward and allreduce in rank 0's trace: {sorted(per_rank[0])}")
    for region, (quantity, _) in per_rank[0].items():
        row = rows.get(region)
        check(row is not None, f"stragglers.json has {region}")
        if row is None:
            continue
        check(row["quantity"] == quantity, f"{region}: measured by {row['quantity']}, want {quantity}")
        got = values(row)
        for rank in (0, 1):
            value, want = got.get(rank), per_rank[rank][region][1]
            check(value is not None and abs(value - want) < 1e-6, f"{region} rank {rank}: {value} ms == {want} ms")
    fwd, wait = rows.get("step 3 > forward", {}), rows.get("step 3 > allreduce", {})
    check(fwd.get("slowest_rank") == 1 and wait.get("slowest_rank") == 0,
          f"step 3: forward slowest rank 1 ({fwd.get('slowest_rank')}), all-reduce slowest rank 0 "
          f"({wait.get('slowest_rank')})")
    print(f"ok: tracer ranks: step 3 > forward rank 1 {per_rank[1]['step 3 > forward'][1]:.3f} ms GPU time; "
          f"step 3 > allreduce rank 0 waits {per_rank[0]['step 3 > allreduce'][1]:.3f} ms (CPU range time)")


def kineto_steps(path):
    """{ProfilerStep#N: GPU ms} of one rank: kernels whose launch call started in the step."""
    events = json.load(gzip.open(path))["traceEvents"]
    calls = {e["args"]["correlation"]: e for e in events
             if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    out = {}
    for step in (e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")):
        us = 0.0
        for k in (e for e in events if e.get("cat") == "kernel"):
            call = calls.get(k["args"].get("correlation"))
            if call and call["pid"] == step["pid"] and step["ts"] <= call["ts"] <= step["ts"] + step["dur"]:
                us += k["dur"]
        out[step["name"]] = us / 1e3
    return out


def check_kineto(tmp):
    out = os.path.join(tmp, "kineto")
    run_import(out, *KINETO)
    rows = stragglers(out)
    want = [kineto_steps(k) for k in KINETO]
    check(sorted(want[0]) == [f"ProfilerStep#{n}" for n in range(5)], f"rank 0's steps: {sorted(want[0])}")
    for step in want[0]:
        row = rows.get(step)
        check(row is not None, f"stragglers.json has {step}")
        if row is None:
            continue
        got = values(row)
        for rank in (0, 1):
            value = got.get(rank)
            check(value is not None and abs(value - want[rank][step]) < 1e-6,
                  f"{step} rank {rank}: {value} ms == {want[rank][step]} ms")
    check(rows.get("ProfilerStep#3", {}).get("slowest_rank") == 1, "ProfilerStep#3: slowest rank 1")
    print(f"ok: Kineto ranks: ProfilerStep#3 GPU time rank 0 {want[0]['ProfilerStep#3']:.3f} ms, "
          f"rank 1 {want[1]['ProfilerStep#3']:.3f} ms")


def check_ncu(tmp):
    out = os.path.join(tmp, "ncu")
    run_import(out, *(os.path.join(RANKS, f"ncu_details.rank{r}.csv") for r in (0, 1)))
    kernels = json.load(open(os.path.join(out, "kernels.json")))
    text = json.dumps(kernels)
    for r in (0, 1):
        check(f"ncu_details.rank{r}.csv" in text, f"kernels.json names rank {r}'s input")
    md = open(os.path.join(out, "kernels.md")).read()
    launches = [int(n) for n in re.findall(r"launches: (\d+)", md)]
    check(launches == [8, 8], f"8 profiled launches per rank in kernels.md: {launches}")
    print(f"ok: ncu per rank: launches {launches}")


def check_generate(tmp):
    out = os.path.join(tmp, "hf")
    run_import(out, HF)
    events = json.load(gzip.open(HF))["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    want_ms = sum(k["dur"] for k in kernels) / 1e3
    md = open(os.path.join(out, "kernels.md")).read()
    m = re.search(r"Kernels: (\d+); launches: (\d+); GPU kernel time: ([0-9.]+) ms", md)
    check(m is not None, "kernels.md states kernels, launches and GPU kernel time")
    if m is not None:
        names = collections.Counter(k["name"] for k in kernels)
        check(int(m.group(1)) == len(names), f"kernels {m.group(1)} == {len(names)} distinct names")
        check(int(m.group(2)) == len(kernels), f"launches {m.group(2)} == {len(kernels)} kernel events")
        check(abs(float(m.group(3)) - want_ms) < 1e-4, f"GPU kernel time {m.group(3)} ms == {want_ms:.4f} ms")
        print(f"ok: generate(): {len(kernels)} launches, {want_ms:.4f} ms GPU kernel time")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        check_tracer(tmp)
        check_kineto(tmp)
        check_ncu(tmp)
        check_generate(tmp)
    if failures:
        sys.exit(1)
    print("PASS")


main()
