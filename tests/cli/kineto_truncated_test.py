#!/usr/bin/env python3
"""A Kineto annotation cut at the trace window's end (issue #34, item 8), on
tests/fixtures/handmade/kineto_truncated_annotation.json: the import's region
report against numbers computed here from the JSON text alone (exact
decimals, plain loops), with the rule of docs/import.md ("Attribution"): a
user_annotation with dur 0 whose thread has an event starting after it, up to
the end of the range around it (or its thread's last event), with no
annotation of the thread starting after that end, is open to that end; it
holds the launches made in it and is no CPU time instance.

    kineto_truncated_test.py BINARY SOURCE_ROOT
"""

import json
import pathlib
import subprocess
import sys
import tempfile
from decimal import Decimal


def main():
    binary, root = sys.argv[1], pathlib.Path(sys.argv[2])
    trace = root / "tests/fixtures/handmade/kineto_truncated_annotation.json"
    events = [e for e in json.loads(trace.read_text(), parse_float=Decimal)["traceEvents"] if e.get("ph") == "X"]
    for e in events:
        e["ts"], e["end"] = Decimal(e["ts"]), Decimal(e["ts"]) + Decimal(e.get("dur", 0))
    cpu = [e for e in events if e["cat"] in ("user_annotation", "cpu_op", "cuda_runtime")]
    ann = [e for e in events if e["cat"] == "user_annotation"]
    # The rule, by brute force, outermost first.
    cut = []
    for a in sorted(ann, key=lambda e: e["ts"]):
        if a["end"] != a["ts"]:
            continue
        thread = [e for e in cpu if (e["pid"], e["tid"]) == (a["pid"], a["tid"])]
        around = [o for o in ann if o is not a and o["ts"] <= a["ts"] < o["end"]]
        to = max(around, key=lambda o: o["ts"])["end"] if around else max(e["end"] for e in thread)
        if any(a["ts"] < e["ts"] <= to for e in thread) and all(o["ts"] <= to for o in ann if o["pid"] == a["pid"]):
            a["end"] = to
            cut.append(a)
    name = lambda e: "ProfilerStep" if e["name"].startswith("ProfilerStep#") else e["name"]
    calls = {e["args"]["correlation"]: e for e in events if e["cat"] == "cuda_runtime"}
    expect = {}  # path -> kernel us, launches, {instance: [first start, last end]}, cpu instances us
    for k in (e for e in events if e["cat"] == "kernel"):
        call = calls[k["args"]["correlation"]]
        stack = sorted((a for a in ann if a["pid"] == call["pid"] and a["ts"] <= call["ts"] <= a["end"]),
                       key=lambda a: (a["ts"], -a["end"]))
        for depth in range(len(stack)):
            r = expect.setdefault(tuple(name(a) for a in stack[:depth + 1]), [Decimal(0), 0, {}, []])
            r[0] += Decimal(k["dur"])
            r[1] += 1
            span = r[2].setdefault(id(stack[depth]), [k["ts"], k["end"]])
            span[0], span[1] = min(span[0], k["ts"]), max(span[1], k["end"])
    for a in ann:
        if a not in cut:
            parents = sorted((o for o in ann if o is not a and o["ts"] <= a["ts"] and a["end"] <= o["end"]),
                             key=lambda o: (o["ts"], -o["end"]))
            path = tuple(name(o) for o in parents) + (name(a),)
            expect.setdefault(path, [Decimal(0), 0, {}, []])[3].append(a["end"] - a["ts"])

    problems = []
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([binary, "import", str(trace), "--out", out], check=True, capture_output=True)
        regions = {tuple(r["path"]): r for r in json.loads((pathlib.Path(out) / "regions/report.json").read_text())["regions"]}
        diagnostics = json.loads((pathlib.Path(out) / "kernels.json").read_text())["diagnostics"]["entries"]
    if set(regions) != set(expect):
        problems.append(f"regions {sorted(regions)} vs {sorted(expect)}")
    for path, (kernel_us, launches, spans, cpu_us) in expect.items():
        r = regions.get(path)
        if r is None:
            continue
        got = {"total_us": r["total_ms"] * 1000, "launches": r["kernel_count"],
               "projected_us": (r["projected_ms"] or 0) * 1000, "cpu_us": r["cpu_ms"] * 1000,
               "instances": r["instances"]["count"], "min_us": r["instances"]["min_ms"] * 1000}
        want = {"total_us": float(kernel_us), "launches": launches,
                "projected_us": float(sum(e - s for s, e in spans.values())), "cpu_us": float(sum(cpu_us)),
                "instances": len(cpu_us), "min_us": float(min(cpu_us))}
        for key, value in want.items():
            if abs(got[key] - value) > 1e-6:
                problems.append(f"{'/'.join(path)}: {key} ours {got[key]} expected {value}")
    truncated = [d for d in diagnostics if d["code"] == "kineto_range_truncated"]
    if len(cut) != 1 or not truncated or truncated[0]["count"] != len(cut) or truncated[0]["severity"] != "warning":
        problems.append(f"kineto_range_truncated: {truncated} for {len(cut)} cut annotation(s)")
    for p in problems:
        print(p)
    if not problems:
        print(f"ok: {len(expect)} regions, {len(cut)} cut annotation")
        for path, (kernel_us, launches, spans, cpu_us) in sorted(expect.items()):
            print(f"  {'/'.join(path)}: {launches} launches, {kernel_us} us kernels, "
                  f"{sum(e - s for s, e in spans.values())} us projected, CPU instances {[str(c) for c in cpu_us]} us")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
