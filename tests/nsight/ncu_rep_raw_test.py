#!/usr/bin/env python3
"""Our native .ncu-rep reader against ncu's own raw page of the same report:
for every shared report the installed ncu can read (ncu 2022.3 reads those
written by ncu up to 2023.1), `import R.ncu-rep` (kernels.json) and
`ncu --import R --csv --page raw --print-units base` must agree on every
kernel's launch count and every metric's value (min and max over its
launches) and unit. The CSV import of that page must give the same numbers
as the native read, and so must its --print-summary per-kernel and
per-nvtx CSVs (launch counts and total times per kernel). Skipped (77) when
../shared/fixtures is absent.

  ncu_rep_raw_test.py BIN SOURCE_DIR
"""
import csv
import io
import json
import math
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
FIXED = {"ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time", "Context", "Stream",
         "Block Size", "Grid Size", "Device", "CC"}
# kernels.json shows times in ms and rates as hz; ncu's base units for them,
# with the factor from ours to ncu's.
SAME_UNIT = {("ms", "nsecond"): 1e6, ("hz", "cycle/second"): 1.0}
# Units our catalogue (src/core/metric_units_table.inc, built from a 2026 ncu's
# raw page) gives where older ncu versions printed another or none: the
# version's own choice, listed one by one (metric: (ours, printed by the old ncu)).
VERSION_UNITS = {
    "profiler__replayer_passes": ("pass", ""),
    "profiler__replayer_passes_type_warmup": ("pass", ""),
    "smsp__pcsamp_aggregated_passes": ("pass", ""),
    "smsp__branch_targets_threads_divergent": ("branches", ""),
    "smsp__sass_branch_targets_threads_divergent.avg": ("branches", ""),
    "smsp__pcsamp_warps_issue_stalled_branch_resolving": ("branches", "warp"),
    "smsp__pcsamp_warps_issue_stalled_branch_resolving_not_issued": ("branches", "warp"),
    # not on the 2026 page the catalogue comes from: unknown to us
    "derived__memory_l1_wavefronts_shared_excessive": ("", "byte"),
}


def require():
    result = subprocess.run(["bash", "-c", f". {HERE}/lib.sh; require_tools ncu"])
    if result.returncode:
        sys.exit(result.returncode)


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def raw_page(report):
    done = subprocess.run(["ncu", "--import", str(report), "--csv", "--page", "raw", "--print-units", "base"],
                          capture_output=True, text=True, timeout=300)
    if done.returncode or not done.stdout.startswith('"ID"'):
        return None, done.stdout[-300:] + done.stderr[-300:]
    rows = list(csv.reader(io.StringIO(done.stdout)))
    header, units = rows[0], rows[1]
    kernels = {}
    for row in rows[2:]:
        k = kernels.setdefault(row[header.index("Kernel Name")], {"launches": 0, "metrics": {}})
        k["launches"] += 1
        for name, unit, cell in zip(header, units, row):
            if name in FIXED or cell == "":
                continue
            value = number(cell)
            if value is None:
                continue  # text metrics (names, ids) are not compared
            m = k["metrics"].setdefault(name, {"unit": unit, "values": [], "decimals": 0})
            m["values"].append(value)
            # ncu prints values rounded (2 decimals for most): compare at its precision
            m["decimals"] = max(m["decimals"], len(cell.split(".")[1]) if "." in cell else 0)
    return kernels, done.stdout


def ours(binary, source, out):
    done = subprocess.run([binary, "import", str(source), "--out", str(out)], capture_output=True, text=True)
    if done.returncode:
        return None
    kernels = {}
    for k in json.loads((out / "kernels.json").read_text(encoding="utf-8"))["kernels"]:
        entry = kernels.setdefault(k["name"], {"launches": 0, "metrics": {}})
        entry["launches"] += k["calls"]
        for m in k.get("metrics", []):
            entry["metrics"][m["name"]] = m
    return kernels


def same(ours_value, theirs, decimals):
    """Equal at the precision ncu printed (a value it printed as an integer may be rounded too)."""
    if ours_value is None:
        return False
    return abs(ours_value - theirs) <= 0.5 * 10 ** -decimals * (1 + 1e-9) + 1e-9 * abs(theirs)


def compare(label, theirs, mine, problems, check_units=True):
    compared = 0
    for name, t in theirs.items():
        o = mine.get(name) or next((v for k, v in mine.items() if re.sub(r"\(.*", "", k) == name), None)
        if o is None:
            problems.append(f"{label}: kernel {name[:60]!r} missing (ours: {[k[:40] for k in mine]})")
            continue
        if o["launches"] != t["launches"]:
            problems.append(f"{label}: {name[:60]}: {o['launches']} launches, ncu {t['launches']}")
        for metric, m in t["metrics"].items():
            ours_m = o["metrics"].get(metric)
            compared += 1
            if ours_m is None:
                problems.append(f"{label}: {name[:40]}: metric {metric} missing")
                continue
            lo, hi = min(m["values"]), max(m["values"])
            unit = ours_m.get("unit", "")
            factor = SAME_UNIT.get((unit, m["unit"]), 1.0)
            low = ours_m.get("min", ours_m.get("value"))
            high = ours_m.get("max", ours_m.get("value"))
            if low is None or high is None or not (same(low * factor, lo, m["decimals"]) and
                                                   same(high * factor, hi, m["decimals"])):
                problems.append(f"{label}: {name[:40]}: {metric} = {low}..{high} {unit}, ncu {lo}..{hi} {m['unit']}")
            if check_units and unit != m["unit"] and (unit, m["unit"]) not in SAME_UNIT and \
                    VERSION_UNITS.get(metric) != (unit, m["unit"]):
                problems.append(f"{label}: {name[:40]}: {metric} unit {unit!r}, ncu {m['unit']!r}")
    return compared


def summary_matches(binary, report, native_out, work, index, problems):
    """ncu's --print-summary per-kernel and per-nvtx CSVs of the report, imported:
    every kernel's launch count and total time as the native read gives them."""
    native = {k["name"]: (k["calls"], k["total_ms"])
              for k in json.loads((native_out / "kernels.json").read_text(encoding="utf-8"))["kernels"]}
    for mode in ("per-kernel", "per-nvtx"):
        done = subprocess.run(["ncu", "--import", str(report), "--csv", "--print-summary", mode],
                              capture_output=True, text=True, timeout=300)
        if len([line for line in done.stdout.splitlines() if line.startswith('"')]) < 2:
            print(f"{report.name}: {mode} summary: ncu printed no rows (no NVTX ranges in this report)")
            continue
        csv_file = work / f"summary{index}-{mode}.csv"
        csv_file.write_text(done.stdout, encoding="utf-8")
        out = work / f"s{index}-{mode}"
        imported = subprocess.run([binary, "import", str(csv_file), "--out", str(out)], capture_output=True, text=True)
        if done.returncode or imported.returncode:
            problems.append(f"{report.name}: {mode} summary: ncu exit {done.returncode}, import exit "
                            f"{imported.returncode}: {imported.stderr[-300:]}")
            continue
        summed = {}
        for k in json.loads((out / "kernels.json").read_text(encoding="utf-8"))["kernels"]:
            calls, total = summed.get(k["name"], (0, 0.0))
            summed[k["name"]] = (calls + k["calls"], total + k["total_ms"])
        for name, (calls, total) in native.items():
            got = summed.get(name) or next((v for n, v in summed.items() if re.sub(r"\(.*", "", n) == name), None)
            if got is None or got[0] != calls or not math.isclose(got[1], total, rel_tol=1e-6):
                problems.append(f"{report.name}: {mode} summary: {name[:50]}: {got}, native ({calls}, {total})")
        print(f"{report.name}: {mode} summary: {len(native)} kernels compared")


def main():
    binary, source = sys.argv[1], Path(sys.argv[2])
    require()
    reports = sorted((source.parent / "shared" / "fixtures" / "ncu-rep").glob("*.ncu-rep"))
    if not reports:
        print("SKIP: ../shared/fixtures/ncu-rep is absent")
        return 77
    problems, compared, read = [], 0, 0
    with tempfile.TemporaryDirectory() as tmp:
        for i, report in enumerate(reports):
            theirs, text = raw_page(report)
            if theirs is None:
                print(f"{report.name}: this ncu cannot read it ({text.strip()[:120]!r}); not compared")
                continue
            read += 1
            mine = ours(binary, report, Path(tmp) / f"n{i}")
            if mine is None:
                problems.append(f"{report.name}: our import failed")
                continue
            n = compare(report.name, theirs, mine, problems)
            raw_csv = Path(tmp) / f"raw{i}.csv"
            raw_csv.write_text(text, encoding="utf-8")
            from_csv = ours(binary, raw_csv, Path(tmp) / f"c{i}")
            if from_csv is None:
                problems.append(f"{report.name}: our import of ncu's raw page failed")
            else:
                compare(f"{report.name} (raw CSV import)", theirs, from_csv, problems, check_units=False)
            summary_matches(binary, report, Path(tmp) / f"n{i}", Path(tmp), i, problems)
            print(f"{report.name}: {n} metric values compared")
            compared += n
    for p in problems[:60]:
        print("MISMATCH:", p)
    print(f"{read} reports, {compared} metric values compared, {len(problems)} problems")
    return 1 if problems or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
