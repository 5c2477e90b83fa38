#!/usr/bin/env python3
"""Compares a region report (regions/report.json) with `nsys stats` of the
same capture: every range of nsys' NVTX summary (nvtxsum in 2022.x,
nvtx_sum later) must be a region with the same instance count, total, min
and max time, and every region with CPU time must be one of nsys' ranges.

  compare_nvtxsum.py REPORT_JSON NVTXSUM_CSV
"""
import csv
import json
import sys

NS_PER_MS = 1e6


def number(text):
    return float(text.replace(",", ""))


def nsys_ranges(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header_at = next((i for i, r in enumerate(rows) if "Range" in r and "Instances" in r), None)
    if header_at is None:
        return {}  # an empty file: the capture has no NVTX ranges
    header = rows[header_at]
    col = {name: header.index(name) for name in header}
    ranges = {}
    for row in rows[header_at + 1:]:
        if len(row) != len(header):
            continue
        # 2022.4 writes default-domain ranges without a leading ':'; later
        # versions write ':name'; named domains are 'Domain:name'.
        name = row[col["Range"]].lstrip(":")
        ranges[name] = {
            "count": int(number(row[col["Instances"]])),
            "total_ns": number(row[col["Total Time (ns)"]]),
            "min_ns": number(row[col["Min (ns)"]]),
            "max_ns": number(row[col["Max (ns)"]]),
        }
    return ranges


def our_ranges(path):
    """Our regions summed per (domain, range): a range nested under
    different parents is one nsys range."""
    with open(path, encoding="utf-8") as f:
        report = json.load(f)
    ranges = {}
    for region in report["regions"]:
        if region.get("cpu_ms") is None:
            continue
        name = region["range"] if not region.get("domain") else f'{region["domain"]}:{region["range"]}'
        inst = region.get("instances") or {}
        r = ranges.setdefault(name, {"count": 0, "total_ns": 0.0, "min_ns": None, "max_ns": None})
        r["count"] += inst.get("count", 0)
        r["total_ns"] += region["cpu_ms"] * NS_PER_MS
        for key, pick in (("min_ns", min), ("max_ns", max)):
            value = inst.get(key.replace("_ns", "_ms"))
            if value is not None:
                value *= NS_PER_MS
                r[key] = value if r[key] is None else pick(r[key], value)
    return ranges


def close(a, b):
    return b is not None and abs(a - b) <= max(2.0, 1e-9 * abs(a))  # ns


def main():
    theirs = nsys_ranges(sys.argv[2])
    ours = our_ranges(sys.argv[1])
    problems = []
    if not theirs:
        problems.append("nsys' NVTX summary lists no range")
    for name, t in sorted(theirs.items()):
        o = ours.get(name)
        if o is None:
            problems.append(f"range {name!r}: in nsys' summary, not in our report (ours: {sorted(ours)})")
            continue
        if o["count"] != t["count"]:
            problems.append(f"range {name!r}: {o['count']} instances, nsys {t['count']}")
        for key in ("total_ns", "min_ns", "max_ns"):
            if not close(t[key], o[key]):
                problems.append(f"range {name!r}: {key} {o[key]}, nsys {t[key]}")
    for name in sorted(set(ours) - set(theirs)):
        problems.append(f"range {name!r}: in our report, not in nsys' summary")
    for p in problems:
        print("MISMATCH:", p)
    print(f"{len(theirs)} ranges compared, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
