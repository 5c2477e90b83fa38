#!/usr/bin/env python3
"""gpu_breakdown.json's step_breakdowns, recomputed here from the traces of
../shared/fixtures (skipped, exit 77, when absent): the DDP trace (one rank,
three ProfilerSteps) and the 8-rank DLRM archive (one step a rank).

Per rank, device and ProfilerStep#N: the GPU ops (kernel, gpu_memcpy,
gpu_memset events) whose launch call (the first cuda_runtime/cuda_driver
event of the op's correlation id) started in [step start, step end), on any
thread; their count, span (first start to last end), busy (union), idle
(span - busy), and the unions of HTA's classes (hta/common/types.py's name
rule, as docs/import.md states it), with the comm/compute overlap as a
percentage of communication. Times are read as exact decimals (no float
rounding) and compared in integer nanoseconds.
"""
import gzip
import json
import os
import subprocess
import sys
import tarfile
import tempfile
from decimal import Decimal

from checks import check, failures, hta_class, union_length

BIN = sys.argv[1]
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures", "kineto")
DDP = os.path.join(SHARED, "hta-ddp-a100-rank0-2024.json.gz")
DLRM = os.path.join(SHARED, "param-dlrm-8ranks.tar.gz")



def ns(us):
    return int((Decimal(us) * 1000).to_integral_value())


def intersection_length(a, b):
    """|union(a) ∩ union(b)| = |a| + |b| - |a ∪ b|."""
    return union_length(a) + union_length(b) - union_length(a + b)


def expected_steps(doc):
    """{(device, step): row} of one rank's trace."""
    events = doc["traceEvents"]
    steps = [(ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]), int(e["name"].split("#")[1])) for e in events
             if e.get("cat") == "user_annotation" and e.get("name", "").startswith("ProfilerStep#")]
    calls = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            calls.setdefault(e["args"]["correlation"], ns(e["ts"]))
    ops = {}
    for e in events:
        if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        call = calls.get(e["args"].get("correlation"))
        if call is None:
            continue
        inside = [(start, n) for start, end, n in steps if start <= call < end]
        if not inside:
            continue
        step = max(inside)[1]  # the latest to start
        start = ns(e["ts"])
        ops.setdefault((int(e["args"].get("device", -1)), step), []).append((start, start + ns(e["dur"]), hta_class(e["name"])))
    rows = {}
    for key, spans in ops.items():
        by = {c: [(s, t) for s, t, k in spans if k == c] for c in ("computation", "communication", "memory")}
        span = max(t for _, t, _ in spans) - min(s for s, _, _ in spans)
        busy = union_length([(s, t) for s, t, _ in spans])
        comm = union_length(by["communication"])
        rows[key] = {
            "gpu_ops": len(spans), "span_ns": span, "busy_ns": busy, "idle_ns": span - busy,
            "computation_ns": union_length(by["computation"]), "communication_ns": comm,
            "memory_ns": union_length(by["memory"]),
            "overlap_pct": 100.0 * intersection_length(by["communication"], by["computation"]) / comm if comm else None,
        }
    return rows


def compare(label, got_devices, want_by_rank):
    got = {}
    for d in got_devices:
        for s in d.get("step_breakdowns", []):
            got[(d["rank"], int(d["device"]), s["step"])] = s
    want = {(rank, dev, step): row for rank, rows in want_by_rank.items() for (dev, step), row in rows.items()}
    check(sorted(got) == sorted(want), f"{label}: the same (rank, device, step) rows: {sorted(got)} vs {sorted(want)}")
    for key, w in want.items():
        g = got.get(key)
        if g is None:
            continue
        check(g["gpu_ops"] == w["gpu_ops"], f"{label} {key}: {g['gpu_ops']} == {w['gpu_ops']} GPU ops")
        for field in ("span", "busy", "idle", "computation", "communication", "memory"):
            check(abs(g[field + "_ms"] * 1e6 - w[field + "_ns"]) < 1e-3,
                  f"{label} {key}: {field} {g[field + '_ms']} ms == {w[field + '_ns']} ns")
        wo, go = w["overlap_pct"], g["comm_comp_overlap_pct"]
        check((wo is None and go is None) or (wo is not None and go is not None and abs(wo - go) < 1e-9),
              f"{label} {key}: overlap {go} == {wo} %")
    print(f"ok: {label}: {len(want)} rows of rank, device and step")


def import_json(tmp, name, path):
    """gpu_breakdown.json of an import; its report.html has a per-step row for every step (at most 64)."""
    out = os.path.join(tmp, name)
    subprocess.run([BIN, "-q", "import", path, "--out", out], check=True)
    got = json.load(open(os.path.join(out, "gpu_breakdown.json")))
    page = open(os.path.join(out, "report.html")).read()
    table = page[page.find('id="gpu-steps"'):]
    table = table[:table.find("</table>")]
    rows = sum(len(d["step_breakdowns"]) for d in got["devices"])
    check(rows > 0 and table.count("<tr>") - 1 == min(rows, 64), f"{name}: report.html's per-step table has {rows} rows")
    return got


def main():
    if not (os.path.exists(DDP) and os.path.exists(DLRM)):
        print("skip: the Kineto fixtures are absent")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        doc = json.loads(gzip.open(DDP).read(), parse_float=str, parse_int=str)
        want = {0: expected_steps(doc)}
        check(len(want[0]) == 3, f"DDP: three steps on one device: {sorted(want[0])}")
        got = import_json(tmp, "ddp", DDP)
        compare("DDP", [dict(d, rank=0 if d["rank"] is None else d["rank"]) for d in got["devices"]], want)
        want = {}
        with tarfile.open(DLRM) as tar:
            for m in tar.getmembers():
                if m.name.endswith(".json"):
                    d = json.loads(tar.extractfile(m).read(), parse_float=str, parse_int=str)
                    want[int(d["distributedInfo"]["rank"])] = expected_steps(d)
        compare("DLRM", import_json(tmp, "dlrm", DLRM)["devices"], want)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
