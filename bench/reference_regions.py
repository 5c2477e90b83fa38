#!/usr/bin/env python3
"""The straightforward Python region report that the region bench compares against.

This is the seeds' algorithm, written the obvious way with the standard
library and no tuning:

* csv.reader over the whole `ncu --csv --page details --nvtx` file, skip to
  the header row whose first cell is "ID";
* group rows by the push/pop NVTX column, the raw cell string (thread id and
  full stack), summing the gpu__time_duration.sum metric (unit conversion
  ns/us/ms/s) and collecting the distinct IDs per group;
* then, to be comparable with our report.json: parse each group's stack into
  range labels (quoted entries, each split from the right: the last six
  fields are fixed, the head is "domain:range"; the label is the range for the
  default domain, else "domain:range") and add the group's time and ID count
  to every prefix of its stack (inclusive total), and to the full stack
  (exclusive).  The group with an empty cell is the launches outside any range.

Prints a JSON summary: {"format", "groups", "regions", "launches",
"launches_with_nvtx", "launches_outside_ranges", "top": [5 largest regions by
inclusive total: {"path", "total_ms", "exclusive_ms", "kernel_count"}]}; with
--per-region also "per_region": [every region, same fields].

    python3 bench/reference_regions.py FILE [--top 5] [--per-region]
"""

import argparse
import csv
import json
import re
import sys

NVTX_PUSH_POP = "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg"
TIME_METRIC = "gpu__time_duration.sum"
DEFAULT_DOMAIN = "<default domain>"
TIME_UNITS_MS = {
    "ns": 1e-6, "nsecond": 1e-6,
    "us": 1e-3, "usecond": 1e-3,
    "ms": 1.0, "msecond": 1.0,
    "s": 1e3, "second": 1e3,
}
ENTRY = re.compile(r'"([^"]*)"')


def parse_number(text):
    text = text.strip().replace(",", "")  # locale grouping: "1,234.56"
    if not text or text == "n/a":
        return None
    try:
        return float(text)
    except ValueError:
        return None


def stack_labels(cell):
    """'TID "dom:range:f1..f6" "dom:range:..."' -> ("range", "range", ...), outermost first."""
    labels = []
    for entry in ENTRY.findall(cell):
        parts = entry.rsplit(":", 6)
        if len(parts) < 7:
            continue
        domain, _, rng = parts[0].partition(":")
        if not rng and parts[6] != "none":
            rng = parts[6]  # nvtxRangePushEx with only a message
        labels.append(rng if domain == DEFAULT_DOMAIN else f"{domain}:{rng}")
    return tuple(labels)


def group_by_stack(path):
    csv.field_size_limit(sys.maxsize)
    groups = {}  # raw push/pop cell -> [total ms, set of IDs]
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        reader = csv.reader(f)
        header = None
        for row in reader:
            if row and row[0] == "ID":
                header = row
                break
        if header is None:
            raise SystemExit(f"{path}: no ncu CSV header (a row starting with \"ID\")")
        col = {name: i for i, name in enumerate(header)}
        if NVTX_PUSH_POP not in col:
            raise SystemExit(f"{path}: no NVTX push/pop column (profile with ncu --nvtx)")
        c_id, c_nvtx = col["ID"], col[NVTX_PUSH_POP]
        c_metric, c_unit, c_value = col["Metric Name"], col["Metric Unit"], col["Metric Value"]
        for row in reader:
            if len(row) <= c_value:
                row = row + [""] * (c_value + 1 - len(row))  # ragged rows: pad
            g = groups.get(row[c_nvtx])
            if g is None:
                g = groups[row[c_nvtx]] = [0.0, set()]
            g[1].add(row[c_id])
            if row[c_metric] == TIME_METRIC:
                value = parse_number(row[c_value])
                scale = TIME_UNITS_MS.get(row[c_unit].strip().lower())
                if value is not None and scale is not None:
                    g[0] += value * scale
    return groups


def regions_from_groups(groups):
    regions = {}  # label path -> {"total_ms", "exclusive_ms", "kernel_count"}
    outside = 0
    for cell, (ms, ids) in groups.items():
        labels = stack_labels(cell)
        if not labels:
            outside += len(ids)
            continue
        for depth in range(1, len(labels) + 1):
            r = regions.setdefault(labels[:depth], {"total_ms": 0.0, "exclusive_ms": 0.0, "kernel_count": 0})
            r["total_ms"] += ms
            r["kernel_count"] += len(ids)
        regions[labels]["exclusive_ms"] += ms
    return regions, outside


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--top", type=int, default=5, help="largest regions to list (default %(default)s)")
    ap.add_argument("--per-region", action="store_true", help="also list every region")
    a = ap.parse_args()
    groups = group_by_stack(a.file)
    regions, outside = regions_from_groups(groups)
    launches = sum(len(ids) for _, ids in groups.values())

    def entry(path, r):
        return {"path": list(path), **r}

    ranked = sorted(regions.items(), key=lambda kv: (-kv[1]["total_ms"], kv[0]))
    out = {"format": "ncu-details-csv", "groups": len(groups), "regions": len(regions), "launches": launches,
           "launches_with_nvtx": launches - outside, "launches_outside_ranges": outside,
           "top": [entry(p, r) for p, r in ranked[:a.top]]}
    if a.per_region:
        out["per_region"] = [entry(p, r) for p, r in sorted(regions.items())]
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
