#!/usr/bin/env python3
""""What to do first" on real files of ../shared/fixtures (each skipped when
absent), the measured time and the savings recomputed here from the files:

- the vLLM eager trace (one device): ranked by its device span (first to last
  kernel/memcpy/memset), gpu_idle first with idle = span - union of the GPU
  intervals, its share of that span;
- the 8-rank DLRM archive: the spans of the 8 ranks summed, gpu_idle's
  saving the idle time summed over the ranks (never one union of them);
- the streamSimple nsys export: the span from its CUPTI kernel table (a
  sqlite3 query here), gpu_idle and sync_calls ranked by shares of it;
- an .ncu-rep alone: ranked by ncu's kernel durations, with the note that
  ncu serialises kernels and fixes clocks.
Everywhere: ranked entries in descending share, no total of the savings.
"""
import gzip
import io
import json
import os
import re
import sqlite3
import subprocess
import sys
import tarfile
import tempfile

from checks import check, failures, union_length as union_ns

BIN = sys.argv[1]
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures")


def imported(tmp, name, path):
    out = os.path.join(tmp, name)
    subprocess.run([BIN, "import", path, "--out", out], capture_output=True, check=True)
    with open(os.path.join(out, "kernels.json")) as f:
        doc = json.load(f)
    with open(os.path.join(out, "kernels.md")) as f:
        md = f.read()
    with open(os.path.join(out, "report.html")) as f:
        page = f.read()
    return doc["what_to_do_first"], md, page


def common(name, w, md, page):
    ranked = [i["saving_pct_of_measured"] for i in w["items"] if i["saving_pct_of_measured"] is not None]
    check(ranked == sorted(ranked, reverse=True), f"{name}: ranked entries in descending share")
    check(not any(k in w for k in ("total_ms", "total_pct")), f"{name}: no total of the savings")
    check("## What to do first" in md and "never add them" in md, f"{name}: kernels.md says the bounds are not added")
    check('<ol data-chart="actions">' in page and "Measured time:" in page, f"{name}: report.html has the list")
    check("## Timeline findings" not in md, f"{name}: one list, no second Timeline findings section")


def gpu_spans(events):
    return [(float(e["ts"]), float(e["ts"]) + float(e["dur"])) for e in events
            if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]


def vllm(tmp):
    path = os.path.join(SHARED, "kineto", "tracelens-b200-vllm-eager-rank0.json.gz")
    if not os.path.exists(path):
        return print("skip: no", path)
    w, md, page = imported(tmp, "vllm", path)
    with gzip.open(path, "rt") as f:
        spans = gpu_spans(json.load(f)["traceEvents"])
    span_us = max(t for _, t in spans) - min(s for s, _ in spans)
    idle_us = span_us - union_ns(spans)
    check(w["ranked_by"] == "device_span", "vLLM: ranked by the device span")
    check(abs(w["measured_ms"] - span_us / 1e3) < 1e-3, f"vLLM: measured {w['measured_ms']} ms == span {span_us / 1e3} ms")
    first = w["items"][0] if w["items"] else {}
    check(first.get("what") == "gpu_idle", "vLLM: gpu_idle ranks first")
    if first.get("what") == "gpu_idle":
        # Microsecond floats in the trace: equal to the nanosecond.
        check(abs(first["saving_upper_bound_ms"] - idle_us / 1e3) < 1e-3, "vLLM: gpu_idle saving == idle time")
        check(abs(first["saving_pct_of_measured"] - 100 * idle_us / span_us) < 1e-3, "vLLM: gpu_idle share of the span")
    check(any(i["what"] == "launch_bound" for i in w["items"]), "vLLM: launch_bound listed")
    check(w["why_no_kernel_actions"] is not None, "vLLM: says why no kernel has an action")
    common("vLLM", w, md, page)


def dlrm(tmp):
    path = os.path.join(SHARED, "kineto", "param-dlrm-8ranks.tar.gz")
    if not os.path.exists(path):
        return print("skip: no", path)
    w, md, page = imported(tmp, "dlrm", path)
    spans_ms, idle_ms, busy_ms, device_of, names = [], [], [], [], set()
    with tarfile.open(path) as tar:
        for m in tar.getmembers():
            if not m.name.endswith(".json"):
                continue
            events = json.load(io.TextIOWrapper(tar.extractfile(m)))["traceEvents"]
            spans = gpu_spans(events)
            names.update(e["name"] for e in events if e.get("ph") == "X" and e.get("cat") == "kernel")
            device_of.append(next(e["args"]["device"] for e in events if e.get("cat") == "kernel"))
            span = max(t for _, t in spans) - min(s for s, _ in spans)
            spans_ms.append(span / 1e3)
            idle_ms.append((span - union_ns(spans)) / 1e3)
            busy_ms.append(union_ns(spans) / 1e3)
    check(len(spans_ms) == 8, "DLRM: 8 rank traces")
    check(abs(w["measured_ms"] - sum(spans_ms)) < 1e-3, f"DLRM: measured {w['measured_ms']} == spans summed {sum(spans_ms)}")
    check("8 device(s) summed" in w["ranked_by_text"], "DLRM: the base names its 8 devices")
    idle = next((i for i in w["items"] if i["what"] == "gpu_idle"), None)
    check(idle is not None, "DLRM: gpu_idle listed")
    if idle:
        # Every rank is idle 34-76 %: all count, each over its own span.
        check(abs(idle["saving_upper_bound_ms"] - sum(idle_ms)) < 1e-3, "DLRM: gpu_idle saving == idle summed over ranks")
        check(abs(idle["saving_pct_of_measured"] - 100 * sum(idle_ms) / sum(spans_ms)) < 1e-3, "DLRM: gpu_idle share")
    # rank_straggler: the busiest rank against the median (25 % threshold);
    # bound (busiest - mean) x ranks, at most the idle time.
    ordered = sorted(busy_ms)
    median = (ordered[3] + ordered[4]) / 2
    straggler = next((i for i in w["items"] if i["what"] == "rank_straggler"), None)
    check((straggler is not None) == (max(busy_ms) >= 1.25 * median), "DLRM: rank_straggler fires as its threshold says")
    if straggler:
        want = min((max(busy_ms) - sum(busy_ms) / 8) * 8, sum(idle_ms))
        check(abs(straggler["saving_upper_bound_ms"] - want) < 1e-3,
              f"DLRM: rank_straggler {straggler['saving_upper_bound_ms']} == {want}")
        check(straggler["where"] == "device %s" % device_of[busy_ms.index(max(busy_ms))],
              f"DLRM: the straggler is the busiest rank's device ({straggler['where']})")
        print("DLRM rank_straggler: %.3f ms (busy per rank %s)" % (want, ", ".join("%.3f" % b for b in busy_ms)))
    common("DLRM", w, md, page)
    check('id="gpu-breakdown"' in page and "Where each GPU's time goes" in page, "DLRM: page has the breakdown")
    check(page.count("<tr><td>rank ") >= 8, "DLRM: the breakdown lists each rank")
    # The page's tiles: idle per device as the range of the ranks' own shares
    # (never one share of a union over devices), and distinct kernel names
    # counted as names, not rank x name rows.
    shares = [100 * i / s for i, s in zip(idle_ms, spans_ms)]
    tile = re.search(r'<div class="value">([0-9.]+) to ([0-9.]+) %</div><div class="label">GPU idle per device', page)
    check(tile is not None, "DLRM: the page has a per-device idle tile")
    if tile:
        low, high = float(tile.group(1)), float(tile.group(2))
        check(abs(low - min(shares)) <= 0.051 and abs(high - max(shares)) <= 0.051,
              f"DLRM: idle tile {low} to {high} % == ranks' {min(shares):.2f} to {max(shares):.2f} %")
    distinct = re.search(r'<div class="value">([0-9]+)</div><div class="label">distinct kernels', page)
    check(distinct is not None and int(distinct.group(1)) == len(names),
          f"DLRM: distinct kernels tile {distinct and distinct.group(1)} == {len(names)} names")
    print("DLRM page: idle %.1f to %.1f %%, %d distinct kernel names" % (min(shares), max(shares), len(names)))


def stream_simple(tmp):
    path = os.path.join(SHARED, "nsys-sqlite", "cudaprogramming-2023.3-streamSimple.sqlite")
    if not os.path.exists(path):
        return print("skip: no", path)
    w, md, page = imported(tmp, "ss", path)
    db = sqlite3.connect(path)
    spans = db.execute("SELECT start, end FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchall()
    devices = db.execute("SELECT COUNT(DISTINCT deviceId) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    sync_ns = db.execute(
        "SELECT SUM(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON r.nameId = s.id "
        "WHERE s.value LIKE 'cudaEventSynchronize%' OR s.value LIKE 'cuCtxSynchronize%' "
        "OR s.value LIKE 'cudaDeviceSynchronize%' OR s.value LIKE 'cudaStreamSynchronize%'").fetchone()[0]
    check(devices == 1, "streamSimple: one device")
    span = max(t for _, t in spans) - min(s for s, _ in spans)
    idle = span - union_ns(spans)
    check(w["ranked_by"] == "device_span", "streamSimple: ranked by the device span")
    check(abs(w["measured_ms"] - span / 1e6) < 1e-9, f"streamSimple: measured {w['measured_ms']} == {span / 1e6}")
    got = {i["what"]: i for i in w["items"]}
    check("gpu_idle" in got and "sync_calls" in got, "streamSimple: gpu_idle and sync_calls listed")
    if "gpu_idle" in got:
        check(abs(got["gpu_idle"]["saving_upper_bound_ms"] - idle / 1e6) < 1e-9, "streamSimple: gpu_idle == idle")
    if "sync_calls" in got:
        # Bounded by the idle time: min(time in the calls, idle).
        want = min(sync_ns, idle) / 1e6
        check(abs(got["sync_calls"]["saving_upper_bound_ms"] - want) < 1e-9,
              f"streamSimple: sync_calls {got['sync_calls']['saving_upper_bound_ms']} == min(sync, idle) {want}")
    common("streamSimple", w, md, page)


def ncu_only(tmp):
    path = os.path.join(SHARED, "ncu-rep", "cuda-mlp-inference-2024.2-full.ncu-rep")
    if not os.path.exists(path):
        return print("skip: no", path)
    w, md, page = imported(tmp, "ncu", path)
    check(w["ranked_by"] == "ncu_kernel_time", "ncu alone: ranked by ncu's durations")
    check(any("ncu serialises kernels and fixes the clocks" in n for n in w["notes"]), "ncu alone: the note")
    check("ncu serialises kernels" in md and "ncu serialises kernels" in page, "ncu alone: the note in md and page")
    check('id="ncu-table"' in page, "ncu alone: the page has the ncu kernel table")
    common("ncu", w, md, page)


with tempfile.TemporaryDirectory() as tmp:
    vllm(tmp)
    dlrm(tmp)
    stream_simple(tmp)
    ncu_only(tmp)
if failures:
    sys.exit(1)
print("ranked actions: all checks passed")
