#!/usr/bin/env python3
"""The straightforward Python import that the bench compares against.

This is what the original Python tool did, written the obvious way with the
standard library and no tuning:

* ncu `--csv --page details`: csv.reader over the whole file, skip to the
  header row whose first cell is "ID", group rows by (ID, Kernel Name), take
  the "Duration" metric of each group (unit conversion ns/us/ms/s), and sum
  per kernel name; calls = distinct IDs per name.
* nsys SQLite export: one SELECT of all kernel rows with their names
  (demangled name, else short name, from StringIds), aggregated in Python.

With --original-style the ncu rows come from csv.DictReader, one dict per
row keyed by the header, which is how the original tool read ncu CSV
(parse_ncu_csv: a DictReader; it then kept all rows in a list, which this
does not, so it is the original's parsing cost without its memory).

Prints a JSON summary {"format", "kernels", "calls", "total_ms"}; with
--per-kernel also {"per_kernel": {name: {"calls", "total_ms"}}}.

    python3 bench/reference_import.py FILE [--per-kernel] [--original-style]
"""

import argparse
import csv
import json
import sqlite3
import sys

TIME_UNITS_MS = {
    "ns": 1e-6, "nsecond": 1e-6,
    "us": 1e-3, "usecond": 1e-3,
    "ms": 1.0, "msecond": 1.0,
    "s": 1e3, "second": 1e3,
}


def parse_number(text):
    text = text.strip().replace(",", "")  # locale grouping: "1,234.56"
    if not text or text == "n/a":
        return None
    try:
        return float(text)
    except ValueError:
        return None


def fold_by_name(durations):
    """(ID, name) -> ms into name -> {calls: distinct IDs, total_ms}."""
    per_kernel = {}
    for (launch_id, name), ms in durations.items():
        entry = per_kernel.setdefault(name, {"ids": set(), "total_ms": 0.0})
        entry["ids"].add(launch_id)
        if ms is not None:
            entry["total_ms"] += ms
    return {n: {"calls": len(e["ids"]), "total_ms": e["total_ms"]} for n, e in per_kernel.items()}


def import_ncu_details(path):
    csv.field_size_limit(sys.maxsize)
    durations = {}  # (ID, kernel name) -> duration in ms
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
        c_id, c_name = col["ID"], col["Kernel Name"]
        c_metric, c_unit, c_value = col["Metric Name"], col["Metric Unit"], col["Metric Value"]
        for row in reader:
            if len(row) <= c_value:
                row = row + [""] * (c_value + 1 - len(row))  # ragged rows: pad
            key = (row[c_id], row[c_name])
            if key not in durations:
                durations[key] = None
            if row[c_metric] == "Duration":
                value = parse_number(row[c_value])
                scale = TIME_UNITS_MS.get(row[c_unit].strip().lower())
                if value is not None and scale is not None:
                    durations[key] = value * scale
    return "ncu-details-csv", fold_by_name(durations)


def import_ncu_details_dictreader(path):
    """The same grouping as import_ncu_details, rows read as dicts."""
    csv.field_size_limit(sys.maxsize)
    durations = {}  # (ID, kernel name) -> duration in ms
    with open(path, newline="", encoding="utf-8", errors="replace") as f:
        for line in f:  # skip what ncu printed before the header
            if line.startswith('"ID"') or line.startswith("ID,"):
                break
        else:
            raise SystemExit(f"{path}: no ncu CSV header (a row starting with \"ID\")")
        header = next(csv.reader([line]))
        for row in csv.DictReader(f, fieldnames=header, restval=""):
            # The row logic of import_ncu_details, inline in both: a helper call per row would slow the
            # reference that the results were measured with.
            key = (row["ID"], row["Kernel Name"])
            if key not in durations:
                durations[key] = None
            if row["Metric Name"] == "Duration":
                value = parse_number(row["Metric Value"])
                scale = TIME_UNITS_MS.get(row["Metric Unit"].strip().lower())
                if value is not None and scale is not None:
                    durations[key] = value * scale
    return "ncu-details-csv", fold_by_name(durations)


def import_nsys_sqlite(path):
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    rows = db.execute(
        "SELECT k.start, k.end, COALESCE(d.value, s.value) "
        "FROM CUPTI_ACTIVITY_KIND_KERNEL k "
        "LEFT JOIN StringIds d ON d.id = k.demangledName "
        "LEFT JOIN StringIds s ON s.id = k.shortName").fetchall()
    db.close()
    per_kernel = {}
    for start, end, name in rows:
        if name is None or start is None or end is None or end < start:
            continue
        entry = per_kernel.setdefault(name, {"calls": 0, "total_ns": 0})
        entry["calls"] += 1
        entry["total_ns"] += end - start
    return "nsys-sqlite", {n: {"calls": e["calls"], "total_ms": e["total_ns"] / 1e6} for n, e in per_kernel.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--per-kernel", action="store_true", help="also print calls and total_ms per kernel name")
    ap.add_argument("--original-style", action="store_true",
                    help="ncu CSV rows through csv.DictReader, as the original tool read them")
    a = ap.parse_args()
    with open(a.file, "rb") as f:
        magic = f.read(16)
    if magic.startswith(b"SQLite format 3"):
        fmt, per_kernel = import_nsys_sqlite(a.file)
    elif a.original_style:
        fmt, per_kernel = import_ncu_details_dictreader(a.file)
    else:
        fmt, per_kernel = import_ncu_details(a.file)
    summary = {
        "format": fmt,
        "kernels": len(per_kernel),
        "calls": sum(e["calls"] for e in per_kernel.values()),
        "total_ms": sum(e["total_ms"] for e in per_kernel.values()),
    }
    if a.per_kernel:
        summary["per_kernel"] = per_kernel
    json.dump(summary, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
