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
checked against the numbers written in their README.
"""
import gzip
import json
import os
import re
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
        print(f"{case['file']}: checked ({case['what']})")


with tempfile.TemporaryDirectory() as tmp:
    vllm(tmp)
    cudagraphs(tmp)
    handmade(tmp)
if failures:
    sys.exit(f"{len(failures)} check(s) failed")
print("phases: all checks passed")
