#!/usr/bin/env python3
"""The per-device timeline rules (docs/analysis.md "Timeline findings") on
real files of ../shared/fixtures (each skipped when absent). Every number is
recomputed here from the file itself (json, sqlite3), never from our output:

- the vLLM eager trace: the device's idle gaps split as HTA splits them
  (host wait / kernel wait / other / unclassified), the kernels' union, the
  copy-only time and the pageable copies; idle_host_wait fires as its
  threshold says, with the host-wait time as its bound;
- the HTA CUDA-graphs trace: pageable copies (45 HtoD + 30 DtoH by name);
- the streamSimple nsys export: the split with launch calls joined from
  CUPTI_ACTIVITY_KIND_RUNTIME by correlation id;
- the same export with two copies added (pageable and pinned, by the
  export's own ENUM_CUDA_MEM_KIND ids): their kinds, pageable_copies and
  copy_not_overlapped;
- the same export without its RUNTIME table (a GPU-only export, made here
  in a temporary copy): the rules that need CPU data are named as not
  evaluated, none of them reported as "not found".
"""
import decimal
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

BIN = sys.argv[1]
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures")
KERNEL_WAIT_MAX_NS = 30000  # HTA's consecutive_kernel_delay
failures = []
ran = 0


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def near(a, b, tol=1e-6):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(b))


def imported(tmp, name, path):
    out = os.path.join(tmp, name)
    run = subprocess.run([BIN, "import", path, "--out", out], capture_output=True, text=True)
    check(run.returncode == 0, f"{name}: import exited {run.returncode}: {run.stderr[-300:]}")
    with open(os.path.join(out, "kernels.json")) as f:
        kernels = json.load(f)
    with open(os.path.join(out, "report_set.json")) as f:
        report_set = json.load(f)
    return kernels, report_set


def split(ops):
    """ops: (start, end, call_start or None, is_kernel, is_copy, pageable) in ns, one device.
    The device-level walk of docs/analysis.md: gaps between busy stretches in start order."""
    ops = sorted(ops, key=lambda o: (o[0], o[1], -(1 << 63) if o[2] is None else o[2]))
    host = kernel_wait = other = unclassified = 0
    gaps = 0
    busy_end = None
    busy = kern = 0
    kern_end = None
    for s, e, call, is_kernel, _, _ in ops:
        if busy_end is None:
            busy += e - s
            busy_end = e
        elif s > busy_end:
            gap = s - busy_end
            gaps += 1
            if call is None:
                unclassified += gap
            elif call > busy_end:
                host += gap
            elif gap < KERNEL_WAIT_MAX_NS:
                kernel_wait += gap
            else:
                other += gap
            busy += e - s
            busy_end = e
        elif e > busy_end:
            busy += e - busy_end
            busy_end = e
        if is_kernel:
            if kern_end is None or s > kern_end:
                kern += e - s
                kern_end = e
            elif e > kern_end:
                kern += e - kern_end
                kern_end = e
    span = max(o[1] for o in ops) - min(o[0] for o in ops)
    pageable = [o for o in ops if o[5]]
    return {"gaps": gaps, "host_wait_ns": host, "kernel_wait_ns": kernel_wait, "other_wait_ns": other,
            "unclassified_wait_ns": unclassified, "kernel_busy_ns": kern, "copy_only_ns": busy - kern,
            "span_ns": span, "idle_ns": span - busy, "pageable_copies": len(pageable),
            "pageable_copy_ns": sum(o[1] - o[0] for o in pageable)}


def compare_facts(name, facts, device, want):
    for key in ("gaps", "host_wait_ns", "kernel_wait_ns", "other_wait_ns", "unclassified_wait_ns", "kernel_busy_ns",
                "copy_only_ns", "pageable_copies", "pageable_copy_ns"):
        check(near(facts.get(key), want[key]), f"{name}: {key} {facts.get(key)} == {want[key]}")
    check(near(device["span_ns"], want["span_ns"]), f"{name}: span {device['span_ns']} == {want['span_ns']}")
    parts = sum(want[k] for k in ("host_wait_ns", "kernel_wait_ns", "other_wait_ns", "unclassified_wait_ns"))
    check(near(parts, want["idle_ns"]), f"{name}: the four parts add up to the idle time ({parts} vs {want['idle_ns']})")


def ns(x):
    return int((x * 1000).to_integral_value(rounding=decimal.ROUND_HALF_EVEN))


def kineto_ops(path):
    with gzip.open(path, "rt") as f:
        events = json.load(f, parse_float=decimal.Decimal)["traceEvents"]
    calls = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {}):
            calls.setdefault(e["args"]["correlation"], ns(decimal.Decimal(e["ts"])))
    ops = {}
    for e in events:
        cat = e.get("cat")
        if e.get("ph") != "X" or cat not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        start = ns(decimal.Decimal(e["ts"]))
        end = start + ns(decimal.Decimal(e["dur"]))
        call = calls.get(e["args"].get("correlation")) if cat == "kernel" else None
        ops.setdefault(str(e["args"].get("device")), []).append(
            (start, end, call, cat == "kernel", cat == "gpu_memcpy", cat == "gpu_memcpy" and "Pageable" in e["name"]))
    return ops


def finding(kernels, rule, device):
    return next((f for f in kernels["timeline_findings"] if f["rule"] == rule and f["scope"] == "device " + device),
                None)


def kineto_case(tmp, name, file):
    global ran
    path = os.path.join(SHARED, "kineto", file)
    if not os.path.exists(path):
        return print("skip: no", path)
    ran += 1
    kernels, report_set = imported(tmp, name, path)
    ops = kineto_ops(path)
    devices = report_set["kernels"]["gpu_busy"]
    check(len(devices) == len(ops), f"{name}: {len(devices)} devices == {len(ops)}")
    for device in devices:
        want = split(ops[device["device"]])
        compare_facts(f"{name} device {device['device']}", device["facts"], device, want)
        host = finding(kernels, "idle_host_wait", device["device"])
        fires = want["host_wait_ns"] >= 0.10 * want["span_ns"]
        check((host is not None) == fires, f"{name}: idle_host_wait fires iff host wait >= 10 % of the span")
        if host:
            check(near(host["saving_ms"], want["host_wait_ns"] / 1e6), f"{name}: idle_host_wait saving == host wait")
        pageable = finding(kernels, "pageable_copies", device["device"])
        fires = want["pageable_copies"] > 0 and want["pageable_copy_ns"] >= 0.01 * want["span_ns"]
        check((pageable is not None) == fires, f"{name}: pageable_copies fires iff pageable time >= 1 % of the span")
        print("%s device %s: span %.3f ms, idle %.3f ms = host wait %.3f + kernel wait %.3f + other %.3f + "
              "unclassified %.3f; copy-only %.3f ms; pageable %d copies %.3f ms" % (
                  name, device["device"], want["span_ns"] / 1e6, want["idle_ns"] / 1e6, want["host_wait_ns"] / 1e6,
                  want["kernel_wait_ns"] / 1e6, want["other_wait_ns"] / 1e6, want["unclassified_wait_ns"] / 1e6,
                  want["copy_only_ns"] / 1e6, want["pageable_copies"], want["pageable_copy_ns"] / 1e6))
    return kernels, ops


def stream_simple(tmp):
    global ran
    path = os.path.join(SHARED, "nsys-sqlite", "cudaprogramming-2023.3-streamSimple.sqlite")
    if not os.path.exists(path):
        return print("skip: no", path)
    ran += 1
    kernels, report_set = imported(tmp, "ss", path)
    db = sqlite3.connect(path)
    rows = db.execute(
        "SELECT k.start, k.end, (SELECT MIN(r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
        "WHERE r.correlationId = k.correlationId AND (r.globalTid & ~16777215) = k.globalPid) "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL k").fetchall()
    want = split([(s, e, c, True, False, False) for s, e, c in rows])
    device = report_set["kernels"]["gpu_busy"][0]
    compare_facts("streamSimple", device["facts"], device, want)
    print("streamSimple: idle %.6f ms = host wait %.6f + kernel wait %.6f + other %.6f" % (
        want["idle_ns"] / 1e6, want["host_wait_ns"] / 1e6, want["kernel_wait_ns"] / 1e6, want["other_wait_ns"] / 1e6))
    # Copies with memory kinds: the same file with a CUPTI_ACTIVITY_KIND_MEMCPY table added (the fixture has
    # none), its kinds decoded here by the export's own ENUM_CUDA_MEM_KIND table.
    with_copies = os.path.join(tmp, "with-copies.sqlite")
    shutil.copy(path, with_copies)
    os.chmod(with_copies, 0o644)
    db = sqlite3.connect(with_copies)
    kinds = {label: i for i, label in db.execute("SELECT id, label FROM ENUM_CUDA_MEM_KIND")}
    end, device, pid = db.execute("SELECT MAX(end), deviceId, globalPid FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()
    db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER, end INTEGER, deviceId INTEGER, "
               "contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER, bytes INTEGER, "
               "copyKind INTEGER, srcKind INTEGER, dstKind INTEGER)")
    copies = [(end + 1000, end + 1001000, kinds["Pageable"], kinds["Device"]),
              (end + 2000000, end + 2500000, kinds["Pinned"], kinds["Device"])]
    for i, (s, e, src, dst) in enumerate(copies):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, ?, 1, 7, ?, ?, 4096, 1, ?, ?)",
                   (s, e, device, 900000 + i, pid, src, dst))
    db.commit()
    rows = [(s, e, c, True, False, False) for s, e, c in rows]
    label = {i: name for name, i in kinds.items()}
    rows += [(s, e, None, False, True, "Pageable" in (label[src], label[dst])) for s, e, src, dst in copies]
    db.close()
    kernels, report_set = imported(tmp, "with-copies", with_copies)
    want = split(rows)
    device = report_set["kernels"]["gpu_busy"][0]
    compare_facts("streamSimple with copies", device["facts"], device, want)
    check(device["facts"]["copies_with_memory"] == 2, "streamSimple with copies: both copies have memory kinds")
    pageable = finding(kernels, "pageable_copies", device["device"])
    fires = want["pageable_copy_ns"] >= 0.01 * want["span_ns"]
    check((pageable is not None) == fires, "streamSimple with copies: pageable_copies fires iff >= 1 % of the span")
    copy_only = finding(kernels, "copy_not_overlapped", device["device"])
    check((copy_only is not None) == (want["copy_only_ns"] >= 0.05 * want["span_ns"]),
          "streamSimple with copies: copy_not_overlapped fires iff >= 5 % of the span")
    print("streamSimple with copies: pageable %d copy %.3f ms of a %.3f ms span; copy-only %.3f ms" % (
        want["pageable_copies"], want["pageable_copy_ns"] / 1e6, want["span_ns"] / 1e6, want["copy_only_ns"] / 1e6))
    # A GPU-only export: the same file without its CUDA API table.
    gpu_only = os.path.join(tmp, "gpu-only.sqlite")
    shutil.copy(path, gpu_only)
    os.chmod(gpu_only, 0o644)
    db = sqlite3.connect(gpu_only)
    db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_RUNTIME")
    db.commit()
    db.close()
    kernels, _ = imported(tmp, "gpu-only", gpu_only)
    not_evaluated = kernels["timeline_rules_not_evaluated"]
    for rule in ("idle_host_wait", "cpu_op_starving", "sync_calls"):
        check(any(w.startswith(rule + ":") for w in not_evaluated), f"GPU-only: {rule} named as not evaluated")
    check(not any(f["rule"] in ("idle_host_wait", "sync_calls") for f in kernels["timeline_findings"]),
          "GPU-only: no finding from CPU data it lacks")
    notes = kernels["what_to_do_first"]["notes"]
    check(any("Not evaluated: idle_host_wait" in n for n in notes), "GPU-only: What to do first names it")


with tempfile.TemporaryDirectory() as tmp:
    kineto_case(tmp, "vLLM", "tracelens-b200-vllm-eager-rank0.json.gz")
    result = kineto_case(tmp, "cudagraphs", "hta-cudagraphs-rank0.json.gz")
    if result:
        _, ops = result
        pageable = sum(1 for o in sum(ops.values(), []) if o[5])
        check(pageable == 75, f"cudagraphs: 75 pageable copies by name ({pageable})")
    stream_simple(tmp)
if failures:
    sys.exit(1)
if ran == 0:
    print("skip: no shared fixtures")
    sys.exit(77)
print("device rules: all checks passed")
