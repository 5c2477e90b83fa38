#!/usr/bin/env python3
"""LLM phases on real Kineto traces of ../shared/fixtures (skipped when absent),
checked against this script's own parse of the files:

- the vLLM eager trace: each execute_context_R(T)_generation_M(K) annotation
  is a step; its phase and token counts are read here from the name, and its
  GPU kernel time is the sum of the kernels whose launch call (the
  cuda_runtime / cuda_driver event of the same correlation) starts inside the
  annotation;
- the CUDA graphs trace: every kernel of each cudaGraphLaunch (same
  correlation) counts in the innermost user_annotation open on the launch's
  thread when the call started: launches and kernels per annotation name.

Hand-made traces of each naming scheme (tests/fixtures/handmade/phases/) are
checked against the numbers written in their README; hand-made nsys SQLite
exports (written here) check graph ids and the note on graph-level tracing;
MFU / MBU per phase are recomputed from this script's parse of the vLLM trace.
"""
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

BIN = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
SHARED = os.path.join(HERE, "..", "..", "..", "shared", "fixtures")
HANDMADE = os.path.join(HERE, "..", "fixtures", "handmade", "phases")
VLLM = re.compile(r"execute_context_(\d+)\((\d+)(?:_\d+)?\)_generation_(\d+)\((\d+)\)$")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def run_import(path, out, *extra):
    p = subprocess.run([BIN, "import", path, "--out", out, *extra], capture_output=True, text=True)
    check(p.returncode == 0, f"import {path}: exit {p.returncode}: {p.stderr[-500:]}")
    with open(os.path.join(out, "kernels.json")) as f:
        return json.load(f)


def events_of(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def launches_by_correlation(events):
    return {e["args"]["correlation"]: e for e in events
            if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}


def vllm(tmp):
    path = os.path.join(SHARED, "kineto", "tracelens-b200-vllm-eager-rank0.json.gz")
    if not os.path.exists(path):
        return print("skip: no", path)
    got = run_import(path, os.path.join(tmp, "vllm")).get("phases")
    check(got is not None, "vllm: kernels.json has phases")
    if got is None:
        return
    events = events_of(path)
    calls = launches_by_correlation(events)
    steps = sorted((e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("execute_context_")),
                   key=lambda e: e["ts"])
    check(len(got["steps"]) == len(steps), f"vllm: {len(got['steps'])} steps, expected {len(steps)}")
    for mine, theirs in zip(got["steps"], steps):
        r, t, m, k = map(int, VLLM.match(theirs["name"]).groups())
        phase = "mixed" if r and m else "prefill" if r else "decode" if m else "unknown"
        check(mine["phase"] == phase, f"vllm: {theirs['name']}: phase {mine['phase']}, expected {phase}")
        check((mine["prefill_requests"], mine["prefill_tokens"], mine["decode_requests"], mine["decode_tokens"]) ==
              (r, t, m, k), f"vllm: {theirs['name']}: counts {mine}")
        lo, hi = theirs["ts"], theirs["ts"] + theirs["dur"]
        kern = [e for e in events if e.get("cat") == "kernel" and e["args"].get("correlation") in calls
                and lo <= calls[e["args"]["correlation"]]["ts"] <= hi]
        ms = sum(e["dur"] for e in kern) / 1e3
        print(f"vllm: {theirs['name']}: {len(kern)} kernels, {ms:.4f} ms here, {mine['gpu_kernel_ms']:.4f} ms reported")
        check(mine["kernels"] == len(kern), f"vllm: kernels {mine['kernels']} vs {len(kern)}")
        check(abs(mine["gpu_kernel_ms"] - ms) < 1e-3, f"vllm: GPU kernel ms {mine['gpu_kernel_ms']} vs {ms}")
        span = (max(e["ts"] + e["dur"] for e in kern) - min(e["ts"] for e in kern)) / 1e3 if kern else None
        if r == 1 and m == 0:  # one prefill request: the GPU part of its TTFT is the step's GPU span
            check(span is not None and abs(mine["ttft_gpu_ms"] - span) < 1e-3, f"vllm: ttft_gpu_ms {mine['ttft_gpu_ms']} vs {span}")
    prefill = [p for p in got["phases"] if p["phase"] == "prefill"]
    check(len(prefill) == 1 and prefill[0]["tokens"] == 888, f"vllm: prefill tokens {prefill}")
    if prefill:
        want = prefill[0]["gpu_kernel_ms"] * 1e6 / 888
        check(abs(prefill[0]["gpu_ns_per_token"] - want) < 1e-6 * want, "vllm: ns per prefill token")


def innermost(annotations, pid, tid, ts):
    best = None
    for a in annotations.get((pid, tid), []):
        if a["ts"] <= ts <= a["ts"] + a["dur"] and (best is None or a["ts"] > best["ts"] or
                                                     (a["ts"] == best["ts"] and a["dur"] < best["dur"])):
            best = a
    return best


def cudagraphs(tmp):
    path = os.path.join(SHARED, "kineto", "hta-cudagraphs-rank0.json.gz")
    if not os.path.exists(path):
        return print("skip: no", path)
    got = run_import(path, os.path.join(tmp, "graphs")).get("phases")
    check(got is not None and got["graphs"], "cudagraphs: kernels.json has graphs")
    if not got:
        return
    events = events_of(path)
    annotations = defaultdict(list)
    for e in events:
        if e.get("cat") == "user_annotation" and "dur" in e:
            annotations[(e["pid"], e["tid"])].append(e)
    graph_calls = {e["args"]["correlation"]: e for e in events
                   if e.get("cat") == "cuda_runtime" and e["name"].startswith("cudaGraphLaunch")}
    kernels = Counter(e["args"]["correlation"] for e in events
                      if e.get("cat") == "kernel" and e["args"].get("correlation") in graph_calls)
    want_launches, want_kernels = Counter(), Counter()
    for corr, n in kernels.items():
        call = graph_calls[corr]
        a = innermost(annotations, call["pid"], call["tid"], call["ts"])
        name = re.sub(r"^ProfilerStep#\d+$", "ProfilerStep", a["name"]) if a else None
        want_launches[name] += 1
        want_kernels[name] += n
    have_launches, have_kernels = Counter(), Counter()
    for g in got["graphs"]:
        for r in g["ranges"]:
            have_launches[r["range"]] += r["launches"]
            have_kernels[r["range"]] += r["kernels"]
    print(f"cudagraphs: {len(graph_calls)} graph launch calls, {len(kernels)} with kernels, "
          f"{sum(kernels.values())} kernels; {len(got['graphs'])} graph(s) reported; by range {dict(want_kernels)}")
    check(sum(g["launches"] for g in got["graphs"]) == len(kernels), "cudagraphs: launches with kernels")
    check(have_launches == want_launches, f"cudagraphs: launches per range {have_launches} vs {want_launches}")
    check(have_kernels == want_kernels, f"cudagraphs: kernels per range {have_kernels} vs {want_kernels}")


def nsys_sqlite(path, schema):
    """A hand-made nsys-shaped SQLite export (only the columns the importer
    reads, numbers invented): process 300, thread 301; three "decode" NVTX
    ranges, each around one cudaGraphLaunch. Schemas:
    - "node": nsys --cuda-graph-trace=node with graphId and graphNodeId: each
      launch owns kernels k_a and k_b (sharing its correlation id); launches
      11 and 12 run graph 5, launch 13 graph 6 (the same kernel sequence);
    - "node-old": the same, but the kernel table has graphNodeId only (as
      nsys 2023.3's export): no graph id;
    - "graph": nsys' default --cuda-graph-trace=graph: one
      CUPTI_ACTIVITY_KIND_GRAPH_TRACE row per launch, no kernel rows."""
    db = sqlite3.connect(path)
    tid, pid = (300 << 24) | 301, 300 << 24
    graph_cols = {"node": ", graphNodeId INT, graphId INT", "node-old": ", graphNodeId INT", "graph": ""}[schema]
    db.executescript(
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT);"
        "INSERT INTO StringIds VALUES (1, 'cudaGraphLaunch_v10000'), (2, 'k_a'), (3, 'k_b');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INT, end INT, deviceId INT, streamId INT, correlationId INT, "
        f"globalPid INT, demangledName INT, shortName INT{graph_cols});"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INT, end INT, eventClass INT, globalTid INT, "
        "correlationId INT, nameId INT);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_GRAPH_TRACE(start INT, end INT, deviceId INT, streamId INT, "
        "correlationId INT, globalPid INT, graphId INT, graphExecId INT);"
        "CREATE TABLE NVTX_EVENTS(start INT, end INT, eventType INT, rangeId INT, text TEXT, globalTid INT, "
        "domainId INT, textId INT);")
    for i, (corr, graph) in enumerate(((11, 5), (12, 5), (13, 6))):
        t = 1000 * (i + 1)
        db.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, NULL, 'decode', ?, 0, NULL)", (t, t + 500, tid))
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 1, ?, ?, 1)", (t + 10, t + 30, tid, corr))
        if schema == "graph":
            db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_GRAPH_TRACE VALUES (?, ?, 0, 7, ?, ?, ?, ?)",
                       (t + 100, t + 200, corr, pid, graph, graph))
            continue
        for node, (name, a, b) in enumerate(((2, 100, 150), (3, 160, 200))):
            extra = (100 * graph + node, graph) if schema == "node" else (100 * graph + node,)
            db.execute(f"INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (?, ?, 0, 7, ?, ?, ?, ?{', ?' * len(extra)})",
                       (t + a, t + b, corr, pid, name, name, *extra))
    db.commit()
    db.close()


def nsys_graphs(tmp):
    for schema in ("node", "node-old", "graph"):
        path = os.path.join(tmp, f"graphs-{schema}.sqlite")
        nsys_sqlite(path, schema)
        got = run_import(path, os.path.join(tmp, f"graphs-{schema}")).get("phases")
        check(got is not None, f"nsys graphs {schema}: phases written")
        if got is None:
            continue
        g = got["graphs"]
        decode = {"range": "decode", "phase": "decode", "kernels": 2}
        if schema == "node":  # by graph id: graph 5 (2 launches), graph 6 (1 launch)
            have = sorted((x["graph_id"], x["launches"], x["kernels"], x["ranges"][0]["range"]) for x in g)
            check(have == [(5, 2, 4, "decode"), (6, 1, 2, "decode")], f"nsys node-level graphs by id: {g}")
        elif schema == "node-old":  # no id: one graph by the kernel sequence
            check(len(g) == 1 and g[0]["graph_id"] is None and g[0]["launches"] == 3 and g[0]["kernels"] == 6,
                  f"nsys node-level graphs without graphId: {g}")
            check(g and g[0]["ranges"] == [dict(decode, launches=3, kernels=6, gpu_kernel_ms=0.00027)],
                  f"nsys node-level ranges: {g}")
        if schema != "graph":
            check(not got["notes"], f"nsys {schema}: no note expected, got {got['notes']}")
            check(all(s["graph_launches"] == 1 and s["kernels"] == 2 for s in got["steps"]),
                  f"nsys {schema}: each decode step owns its launch's 2 kernels: {got['steps']}")
        else:
            check(not g, f"nsys graph-level: no graph kernels, got {g}")
            check(any("--cuda-graph-trace=node" in n and n.startswith("3 graph launch") for n in got["notes"]),
                  f"nsys graph-level: the note on missing node-level data, got {got['notes']}")
        print(f"nsys export with graph launches ({schema}): checked")


def mfu(tmp):
    """MFU / MBU per phase on the real vLLM trace (its one step is a prefill
    of 888 tokens), every step counted (steady_state=off): the GPU kernel
    time, steps and tokens come from this script's parse of the trace; the
    model figures are invented. Decode has no figures: null with the reason."""
    path = os.path.join(SHARED, "kineto", "tracelens-b200-vllm-eager-rank0.json.gz")
    if not os.path.exists(path):
        return print("skip: no", path)
    flops, step_bytes, tflops, gbps = 16_000_000_000, 16_000_000_000, 2250, 8000
    got = run_import(path, os.path.join(tmp, "vllm-mfu"), "--set", "analysis.steady_state=off",
                     "--set", f"++model.flops_per_token.prefill={flops}",
                     "--set", f"++model.bytes_per_step.prefill={step_bytes}",
                     "--set", f"++pipeline.mfu.peak_tflops={tflops}", "--set",
                     f"++pipeline.mfu.peak_bandwidth_gbps={gbps}").get("phases") or {"phases": []}
    events = events_of(path)
    calls = launches_by_correlation(events)
    kernels = [e for e in events if e.get("cat") == "kernel" and e["args"].get("correlation") in calls]
    want = defaultdict(lambda: [0, 0.0, 0])  # phase -> steps, kernel us, tokens
    for a in (e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("execute_context_")):
        r, t, m, k = map(int, VLLM.match(a["name"]).groups())
        phase = "mixed" if r and m else "prefill" if r else "decode" if m else "unknown"
        lo, hi = a["ts"], a["ts"] + a["dur"]
        w = want[phase]
        w[0] += 1
        w[1] += sum(e["dur"] for e in kernels if lo <= calls[e["args"]["correlation"]]["ts"] <= hi)
        w[2] += t if phase == "prefill" else k
    phases = {p["phase"]: p["utilization"] for p in got["phases"]}
    check(set(phases) == set(want), f"vllm mfu: phases {list(phases)}, expected {list(want)}")
    if "prefill" in phases:
        steps, us, tokens = want["prefill"]
        mfu_pct = 100 * tokens * flops / (us * 1e-6) / 1e12 / tflops
        mbu_pct = 100 * steps * step_bytes / (us * 1e-6) / 1e9 / gbps
        u = phases["prefill"]
        print(f"vllm mfu: prefill {tokens} tokens, {steps} step(s) in {us / 1e3:.4f} ms: MFU {mfu_pct:.4f} %, "
              f"MBU {mbu_pct:.4f} % here; {u['mfu_pct']}, {u['mbu_pct']} reported")
        check(u["mfu_pct"] is not None and abs(u["mfu_pct"] - mfu_pct) < 1e-6 * mfu_pct, f"vllm mfu: prefill {u}")
        check(u["mbu_pct"] is not None and abs(u["mbu_pct"] - mbu_pct) < 1e-6 * mbu_pct, f"vllm mbu: prefill {u}")
    for phase, u in phases.items():
        if phase != "prefill":
            check(u["mfu_pct"] is None and u["mfu_missing"], f"vllm mfu: {phase} has no figures: {u}")


def handmade(tmp):
    with open(os.path.join(HANDMADE, "expected.json")) as f:
        cases = json.load(f)
    for case in cases:
        out = os.path.join(tmp, "hand-" + case["file"])
        got = run_import(os.path.join(HANDMADE, case["file"]), out, *case.get("args", [])).get("phases")
        check(got is not None, f"{case['file']}: phases written")
        if got is None:
            continue
        phases = {p["phase"]: p for p in got["phases"]}
        for phase, want in case["phases"].items():
            have = phases.get(phase)
            check(have is not None, f"{case['file']}: phase {phase} present")
            for key, value in (want.items() if have else []):
                ok = abs(have[key] - value) < 1e-9 if isinstance(value, float) else have[key] == value
                check(ok, f"{case['file']}: {phase}.{key} = {have[key]}, expected {value}")
        for key, value in case.get("report", {}).items():
            check(got[key] == value, f"{case['file']}: {key} = {got[key]}, expected {value}")
        if "diagnostic" in case:
            with open(os.path.join(out, "kernels.json")) as f:
                codes = [e["code"] for e in json.load(f)["diagnostics"]["entries"]]
            check(case["diagnostic"] in codes, f"{case['file']}: diagnostic {case['diagnostic']} in {codes}")
        with open(os.path.join(out, "report.html")) as f:
            html = f.read()
        nav = html[html.find("<nav>"):html.find("</nav>")]
        check('<a href="#phases">Phases</a>' in nav and '<section id="phases">' in html,
              f"{case['file']}: report.html's nav links to its Phases section")
        print(f"{case['file']}: checked ({case['what']})")


with tempfile.TemporaryDirectory() as tmp:
    vllm(tmp)
    cudagraphs(tmp)
    nsys_graphs(tmp)
    mfu(tmp)
    handmade(tmp)
if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("phases: all checks passed")
