#!/usr/bin/env python3
"""The straightforward Python reading of a Kineto trace that the bench
compares against: json.load (or gzip + json.load), then per kernel name
calls and total time, each kernel joined to its launch call by correlation,
and per device the busy time (union of kernel/copy/set intervals) and span.
Times in float microseconds, as a Python script would read them.

    python3 bench/reference_kineto.py TRACE.json[.gz]
Prints {"kernels", "total_us", "launched", "busy_us", "span_us"} as JSON.
"""

import gzip
import json
import sys

GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
CALLS = {"cuda_runtime", "cuda_driver", "Runtime"}


def main():
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f)
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    calls = {}
    per_name = {}
    intervals = {}
    gpu = []
    for e in events:
        if e.get("ph") != "X":
            continue
        cat = e.get("cat")
        if cat in CALLS:
            c = e.get("args", {}).get("correlation")
            if c is not None:
                calls.setdefault(c, e)
        elif cat in GPU:
            gpu.append(e)
    launched = 0
    total = 0.0
    kernels = 0
    for e in gpu:
        args = e.get("args", {})
        if args.get("correlation") in calls:
            launched += 1
        dev = args.get("device", e.get("pid"))
        intervals.setdefault(dev, []).append((e["ts"], e["ts"] + e["dur"]))
        if e["cat"] in ("kernel", "Kernel"):
            kernels += 1
            total += e["dur"]
            stats = per_name.setdefault(e["name"], [0, 0.0])
            stats[0] += 1
            stats[1] += e["dur"]
    busy = span = 0.0
    for iv in intervals.values():
        iv.sort()
        span += max(b for _, b in iv) - iv[0][0]
        cur_a, cur_b = iv[0]
        for a, b in iv[1:]:
            if a > cur_b:
                busy += cur_b - cur_a
                cur_a, cur_b = a, b
            else:
                cur_b = max(cur_b, b)
        busy += cur_b - cur_a
    print(json.dumps({"kernels": kernels, "total_us": total, "launched": launched, "busy_us": busy,
                      "span_us": span, "names": len(per_name)}))


if __name__ == "__main__":
    main()
