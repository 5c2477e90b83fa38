#!/usr/bin/env python3
"""Timeline findings on real files of ../shared/fixtures (skipped when absent),
the evidence recomputed here from the files themselves:

- a vLLM eager PyTorch trace: its CUDA API calls per function (summed here
  from its cuda_runtime and cuda_driver events), gpu_idle (idle = span - union of its kernel and
  memcpy/memset intervals) and launch_bound (launches of kernels whose mean
  duration is under 10 us, counted from the trace's kernel events);
- an nsys stats folder: sync_calls (cudaDeviceSynchronize's total time in its
  cuda_api_sum CSV);
- an nsys SQLite export: its CUDA API calls per function (a GROUP BY of its
  CUPTI_ACTIVITY_KIND_RUNTIME table here) and sync_calls.
"""
import csv
import gzip
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile

from checks import check, failures

BIN = sys.argv[1]
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures")


def findings(out):
    with open(os.path.join(out, "kernels.json")) as f:
        doc = json.load(f)
    return {x["rule"]: x for x in doc["timeline_findings"]}, doc["timeline_rules_not_evaluated"]


def vllm(tmp):
    path = os.path.join(SHARED, "kineto", "tracelens-b200-vllm-eager-rank0.json.gz")
    if not os.path.exists(path):
        return print("skip: no", path)
    out = os.path.join(tmp, "vllm")
    subprocess.run([BIN, "import", path, "--out", out], capture_output=True, check=True)
    got, not_evaluated = findings(out)
    with gzip.open(path, "rt") as f:
        events = json.load(f)["traceEvents"]
    gpu = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
    spans = sorted((float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in gpu)
    busy, end = 0.0, None
    for s, t in spans:
        if end is None or s > end:
            busy += t - s
            end = t
        elif t > end:
            busy += t - end
            end = t
    span = max(t for _, t in spans) - spans[0][0]
    idle_ms = (span - busy) / 1e3
    f = got.get("gpu_idle")
    check(f is not None, "vLLM eager: gpu_idle fires")
    if f:
        check(abs(f["saving_ms"] - idle_ms) < 1e-3, f"gpu_idle saving {f['saving_ms']} ms == idle {idle_ms:.4f} ms")
        check(abs(f["saving_pct_of_span"] - 100 * (span - busy) / span) < 0.01, "gpu_idle share of the span")
    per_name = {}
    for e in gpu:
        if e["cat"] == "kernel":
            per_name.setdefault(e["name"], []).append(float(e["dur"]))
    launches = sum(len(d) for d in per_name.values())
    short = sum(len(d) for d in per_name.values() if sum(d) / len(d) < 10)
    f = got.get("launch_bound")
    check(f is not None, "vLLM eager: launch_bound fires")
    if f:
        check(f"{short} of {launches} launches" in f["evidence"], f"launch_bound evidence counts {short} of {launches}")
    # Its CUDA API calls summed per function, as here from its cuda_runtime / cuda_driver events.
    want = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"):
            c, t = want.get(e["name"], (0, 0.0))
            want[e["name"]] = (c + 1, t + float(e["dur"]))
    with open(os.path.join(out, "kernels.json")) as f:
        api = {a["name"]: (a["calls"], a["total_ms"]) for a in json.load(f)["cuda_api"]}
    check(set(api) == set(want), f"vLLM eager: API functions {sorted(api)} == {sorted(want)}")
    for name, (calls, total_us) in want.items():
        if name in api:
            check(api[name][0] == calls and abs(api[name][1] - total_us / 1e3) < 1e-6,
                  f"vLLM eager: {name} {api[name]} == {calls} calls, {total_us / 1e3} ms")
    synchronising = [n for n in want if "Synchronize" in n or (n.startswith("cudaMemcpy") and "Async" not in n)]
    check(("sync_calls" in got) == bool(synchronising), f"vLLM eager: sync_calls fires iff it has {synchronising}")
    check(not any(x.startswith("sync_calls:") for x in not_evaluated), "vLLM eager: sync_calls evaluated")


def kiln(tmp):
    folder = os.path.join(SHARED, "nsys-stats", "kiln-a6000")
    if not os.path.isdir(folder):
        return print("skip: no", folder)
    out = os.path.join(tmp, "kiln")
    files = sorted(os.path.join(folder, n) for n in os.listdir(folder))
    subprocess.run([BIN, "import", *files, "--out", out], capture_output=True, check=True)
    got, _ = findings(out)
    with open(os.path.join(folder, "cuda_api_sum_cuda_api_sum.csv")) as f:
        rows = list(csv.DictReader(f))
    sync = sum(float(r["Total Time (ns)"]) for r in rows if r["Name"] == "cudaDeviceSynchronize")
    f = got.get("sync_calls")
    check(f is not None, "kiln: sync_calls fires")
    if f:
        check(abs(f["saving_ms"] - sync / 1e6) < 1e-6, f"sync_calls saving {f['saving_ms']} == {sync / 1e6} ms")
        check(f["span_ms"] is None and f["saving_pct_of_span"] is None, "kiln: no timeline, so no span")
    load = sum(float(r["Total Time (ns)"]) for r in rows if r["Name"].startswith(("cuModuleLoad", "cuLibraryLoad", "cudaLibraryLoad")))
    every = sum(float(r["Total Time (ns)"]) for r in rows)
    f = got.get("startup_cost")
    check(f is not None and abs(f["saving_ms"] - load / 1e6) < 1e-6, f"kiln: startup_cost is module loading's {load / 1e6} ms")
    check(f is not None and f"{100 * load / every:.1f} % of all CUDA API time" in f["evidence"], "kiln: its API share")


def stream_simple(tmp):
    """An nsys export: the CUDA API calls summed as cuda_api_sum does, and sync_calls."""
    path = os.path.join(SHARED, "nsys-sqlite", "cudaprogramming-2023.3-streamSimple.sqlite")
    if not os.path.exists(path):
        return print("skip: no", path)
    out = os.path.join(tmp, "streamsimple")
    subprocess.run([BIN, "import", path, "--out", out], capture_output=True, check=True)
    with open(os.path.join(out, "kernels.json")) as f:
        doc = json.load(f)
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    want = {}
    for name, calls, total in db.execute(
            "SELECT s.value, COUNT(*), SUM(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
            "JOIN StringIds s ON s.id = r.nameId GROUP BY s.value"):
        name = re.sub(r"_v\d{4}$", "", name)
        c, t = want.get(name, (0, 0))
        want[name] = (c + calls, t + total)
    got = {a["name"]: (a["calls"], a["total_ms"]) for a in doc["cuda_api"]}
    check(set(got) == set(want), f"streamSimple: the API functions {sorted(got)} == {sorted(want)}")
    for name, (calls, total) in want.items():
        if name in got:
            check(got[name][0] == calls and abs(got[name][1] - total / 1e6) < 1e-9,
                  f"streamSimple: {name} {got[name]} == {calls} calls, {total / 1e6} ms")
    sync = want.get("cudaEventSynchronize", (0, 0))[1] + want.get("cuCtxSynchronize", (0, 0))[1]
    f = {x["rule"]: x for x in doc["timeline_findings"]}.get("sync_calls")
    check(f is not None and f"{sync / 1e6:.3f} ms" in f["evidence"], "streamSimple: sync_calls with its synchronising time")


tmp = tempfile.mkdtemp(prefix="llmpo-rules-")
stream_simple(tmp)
vllm(tmp)
kiln(tmp)
if failures:
    print(f"{len(failures)} check(s) failed; outputs in {tmp}")
    sys.exit(1)
print("ok")
