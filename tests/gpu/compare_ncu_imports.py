#!/usr/bin/env python3
"""Compares three imports of one ncu report (stdlib only):

    compare_ncu_imports.py NATIVE_DIR BASE_DIR RAW_BASE.csv DISPLAY_DIR

NATIVE_DIR: `llm-perf-opt import REPORT.ncu-rep` (our reader, no ncu);
BASE_DIR: the import of RAW_BASE.csv, ncu's `--import REPORT --csv --page raw
--print-units base`; DISPLAY_DIR: the import of the same page in ncu's
display units (no --print-units: Kbyte, usecond, %/Kbyte), or "-" for none.

1. Every metric of every kernel in BASE_DIR must be in NATIVE_DIR with the
   same unit and value, within what ncu's printed digits allow.
2. Every nonzero value in DISPLAY_DIR, converted by our unit table, must be
   within 5 % of BASE_DIR's, plus the base page's rounding: a unit read
   wrongly is off by 1000x or more.
Exits 0 when both hold, 1 with one line per problem otherwise.
"""
import csv
import json
import math
import os
import re
import sys

# Units that differ between ncu versions; the table keeps one
# (scripts/gen_metric_units.py), and the values are still compared.
VERSION_DEPENDENT_UNITS = {"derived__memory_l2_theoretical_sectors_global_excessive"}  # byte; sector in 2025.3.1
NUMBER = re.compile(r"-?[0-9,]+(\.[0-9]+)?")


def kernels(folder):
    with open(os.path.join(folder, "kernels.json")) as f:
        report = json.load(f)
    # The report stores the demangler's full text; ncu's CSV may space
    # pointer types differently ("float *"): names are compared without blanks.
    return {re.sub(r"\s+", "", k["name"]): k for k in report["kernels"]}


def column(metric):
    """ncu's column name: a breakdown metric's prefix is its section."""
    if "." in metric.get("section", ""):
        return metric["section"] + "." + metric["name"]
    return metric["name"]


def half_units(raw_csv):
    """Per column, half a unit of the fewest decimals ncu printed in it."""
    with open(raw_csv, newline="") as f:
        rows = list(csv.reader(f))
    out = {}
    for i, name in enumerate(rows[0]):
        decimals = [len(c.replace(",", "").partition(".")[2]) for r in rows[2:] if i < len(r)
                    for c in [r[i]] if NUMBER.fullmatch(c)]
        if decimals:
            out[name] = 0.5 * 10 ** -min(decimals)
    return out


def native_vs_base(native, base, half_unit, problems):
    compared = 0
    for name in sorted(set(native) & set(base)):
        n, b = native[name], base[name]
        if n["calls"] != b["calls"]:
            problems.append(f"{name}: {n['calls']} calls native, {b['calls']} in ncu's export")
        by_column = {column(m): m for m in n["metrics"]}
        for m in b["metrics"]:
            key = column(m)
            if m.get("value") is None:
                continue
            got = by_column.get(key)
            if got is None:
                problems.append(f"{name}: {key} missing in the native import")
                continue
            if got["unit"] != m["unit"] and m["name"] not in VERSION_DEPENDENT_UNITS:
                problems.append(f"{name}: {key} unit {got['unit']!r}, ncu {m['unit']!r}")
            # ms values came from ns columns: the tolerance scales with them;
            # a sum over launches adds one rounding per launch.
            tolerance = half_unit.get(key, 0.0) * (1e-6 if m["unit"] == "ms" else 1.0)
            if m.get("aggregation") == "sum":
                tolerance *= m.get("launches") or 1
            a = got.get("value")
            if a is None or not math.isclose(a, m["value"], rel_tol=1e-6, abs_tol=tolerance + 1e-9):
                problems.append(f"{name}: {key} = {a}, ncu {m['value']} (tolerance {tolerance:g})")
            compared += 1
    if not set(native) & set(base):
        problems.append(f"no kernel in both: {sorted(native)[:3]} vs {sorted(base)[:3]}")
    return compared


def display_vs_base(display, base, half_unit, problems):
    compared = 0
    for name in sorted(set(display) & set(base)):
        shown = {(m["section"], m["name"]): m for m in display[name]["metrics"]}
        for m in base[name]["metrics"]:
            got = shown.get((m["section"], m["name"]))
            if got is None or got.get("value") is None or m.get("value") in (None, 0):
                continue
            # The base page prints fewer digits than the display page
            # (0.04 against 0.036099): its rounding is allowed on top.
            rounding = half_unit.get(column(m), 0.0) * (1e-6 if m["unit"] == "ms" else 1.0)
            if m.get("aggregation") == "sum":
                rounding *= m.get("launches") or 1
            near = abs(got["value"] - m["value"]) <= 0.05 * abs(m["value"]) + rounding
            if got["unit"] != m["unit"] or not near:
                problems.append(f"{name}: {column(m)} = {got['value']} {got['unit']} from display units, "
                                f"{m['value']} {m['unit']} from base units")
            compared += 1
    return compared


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    native, base, raw_csv, display = sys.argv[1:]
    problems = []
    base_kernels = kernels(base)
    half_unit = half_units(raw_csv)
    n1 = native_vs_base(kernels(native), base_kernels, half_unit, problems)
    n2 = display_vs_base(kernels(display), base_kernels, half_unit, problems) if display != "-" else None
    for p in problems[:40]:
        print(p)
    print(f"{n1} native values compared with ncu's base-unit export, {n2} display-unit values with base units, "
          f"{len(problems)} problems")
    return 1 if problems or n1 == 0 or n2 == 0 else 0  # n2 None: no display page given


if __name__ == "__main__":
    sys.exit(main())
