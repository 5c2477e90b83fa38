#!/usr/bin/env python3
"""The straightforward Python reading of a Kineto trace that the bench
compares against, doing the same work as our import with the standard
library: json.load (gzip.open for .gz), then

* per kernel name: calls and total time;
* each GPU op joined to its launch call by correlation;
* regions: the user_annotations open on the launch call's thread at its
  start (a sort and a sweep per thread), kernel time per annotation path;
* CPU ops: the innermost cpu_op open at the launch call gets the kernel's
  time (GPU self time) per op name;
* per device: busy time (union of kernel/copy/set intervals), span, and the
  union of computation kernels (names not starting with nccl, no Memcpy ...).

Times are float microseconds, as a Python script reads them; with --exact
they are decimal.Decimal (parse_float), exact, for the tests.

    python3 bench/reference_kineto.py TRACE.json[.gz] [--exact]
Prints a JSON summary.
"""

import decimal
import gzip
import json
import sys

GPU = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
KERNEL = {"kernel", "Kernel"}
CALLS = {"cuda_runtime", "cuda_driver", "Runtime"}


def union(intervals):
    intervals.sort()
    total = 0
    cur_a, cur_b = intervals[0]
    for a, b in intervals[1:]:
        if a > cur_b:
            total += cur_b - cur_a
            cur_a, cur_b = a, b
        else:
            cur_b = max(cur_b, b)
    return total + cur_b - cur_a


def is_computation(name):
    return not (name.startswith("nccl") or name.startswith("hip") or "Memcpy" in name or "Memset" in name
                or "ncclKernel" in name or "Sync" in name)


class Sweep:
    """Spans of one thread open at increasing times."""

    def __init__(self, spans):
        self.spans = sorted(spans, key=lambda s: (s[0], -s[1]))
        self.next = 0
        self.active = []

    def open_at(self, t):
        while self.next < len(self.spans) and self.spans[self.next][0] <= t:
            self.active.append(self.spans[self.next])
            self.next += 1
        self.active = [s for s in self.active if s[1] >= t]
        return self.active


def main():
    path = sys.argv[1]
    exact = "--exact" in sys.argv[2:]
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=decimal.Decimal) if exact else json.load(f)
    events = doc if isinstance(doc, list) else doc["traceEvents"]
    calls, gpu = {}, []
    annotations, cpu_ops = {}, {}
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
        elif cat == "user_annotation":
            annotations.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
        elif cat == "cpu_op":
            cpu_ops.setdefault((e["pid"], e["tid"]), []).append((e["ts"], e["ts"] + e["dur"], e["name"]))
    per_name, intervals, compute = {}, {}, {}
    launched = []
    kernels, total = 0, 0
    for e in gpu:
        args = e.get("args", {})
        dev = args.get("device", e.get("pid"))
        iv = (e["ts"], e["ts"] + e["dur"])
        intervals.setdefault(dev, []).append(iv)
        if is_computation(e["name"]):
            compute.setdefault(dev, []).append(iv)
        call = calls.get(args.get("correlation"))
        if e["cat"] in KERNEL:
            kernels += 1
            total += e["dur"]
            stats = per_name.setdefault(e["name"], [0, 0])
            stats[0] += 1
            stats[1] += e["dur"]
            if call is not None:
                launched.append(((call["pid"], call["tid"]), call["ts"], e["dur"]))
    launched.sort(key=lambda x: (str(x[0]), x[1]))
    region_us, op_self_us = {}, {}
    thread, ann_sweep, op_sweep = None, None, None
    for key, ts, dur in launched:
        if key != thread:
            thread = key
            ann_sweep = Sweep(annotations.get(key, []))
            op_sweep = Sweep(cpu_ops.get(key, []))
        path = ()
        for span in ann_sweep.open_at(ts):
            path += (span[2].split("#")[0] if span[2].startswith("ProfilerStep#") else span[2],)
            region_us[path] = region_us.get(path, 0) + dur
        ops = op_sweep.open_at(ts)
        if ops:
            op_self_us[ops[-1][2]] = op_self_us.get(ops[-1][2], 0) + dur
    busy = sum(union(v) for v in intervals.values())
    span = sum(max(b for _, b in v) - min(a for a, _ in v) for v in intervals.values())
    comp = sum(union(v) for v in compute.values())
    top_regions = {p[0]: float(us) for p, us in region_us.items() if len(p) == 1}
    op_self_us = {name: float(us) for name, us in op_self_us.items()}
    print(json.dumps({"kernels": kernels, "total_us": float(total), "launched": len(launched),
                      "busy_us": float(busy), "span_us": float(span), "computation_us": float(comp), "names": len(per_name),
                      "top_regions_us": top_regions, "cpu_ops_self_us": op_self_us}))


if __name__ == "__main__":
    main()
