#!/usr/bin/env python3
"""Our import of nsys SQLite exports against `nsys stats` of the same files:
per kernel name the launch count, total, min and max GPU time (gpukernsum /
cuda_gpu_kern_sum), and per NVTX range the instances and times (nvtxsum /
nvtx_sum, compare_nvtxsum.py). Inputs: the shared SQLite exports (when
../shared/fixtures is there) and a capture of our CPU NVTX program that
`profile` makes here with nsys. And the CSVs nsys writes from each export
(the kernel summary, the NVTX GPU projection, the push/pop trace: gpusum,
nvtxgpuproj, nvtxpptrace in 2022.x) import with the export's own numbers.

  sqlite_stats_test.py BIN NVTX_CPU_PROGRAM SOURCE_DIR
"""
import csv
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare_nvtxsum  # noqa: E402


def require_nsys():
    result = subprocess.run(["bash", "-c", f". {HERE}/lib.sh; require_tools nsys"])
    if result.returncode:
        sys.exit(result.returncode)


def nsys_year():
    out = subprocess.run(["nsys", "--version"], capture_output=True, text=True).stdout
    m = re.search(r"(20\d\d)\.\d+", out)
    return int(m.group(1)) if m else 9999


def their_kernels(path):
    """gpukernsum rows summed per name (2022.x has a row per grid/block)."""
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    if not rows:
        return {}  # nsys writes an empty file when the capture has no kernels
    header = rows[0]
    col = {name: header.index(name) for name in header}
    kernels = {}
    for row in rows[1:]:
        if len(row) != len(header):
            continue
        k = kernels.setdefault(row[col["Name"]], {"calls": 0, "total_ns": 0.0, "min_ns": None, "max_ns": None})
        k["calls"] += int(compare_nvtxsum.number(row[col["Instances"]]))
        k["total_ns"] += compare_nvtxsum.number(row[col["Total Time (ns)"]])
        for key, column, pick in (("min_ns", "Min (ns)", min), ("max_ns", "Max (ns)", max)):
            value = compare_nvtxsum.number(row[col[column]])
            k[key] = value if k[key] is None else pick(k[key], value)
    return kernels


def our_kernels(path):
    kernels = {}
    for row in json.loads(Path(path).read_text(encoding="utf-8"))["kernels"]:
        k = kernels.setdefault(row["name"], {"calls": 0, "total_ns": 0.0, "min_ns": None, "max_ns": None})
        k["calls"] += row["calls"]
        k["total_ns"] += row["total_ms"] * 1e6
        for key, pick in (("min_ns", min), ("max_ns", max)):
            value = row[key.replace("_ns", "_ms")] * 1e6
            k[key] = value if k[key] is None else pick(k[key], value)
    return kernels


def compare_kernels(theirs, ours, label, problems):
    for name, t in theirs.items():
        o = ours.get(name)
        if o is None:
            problems.append(f"{label}: kernel {name[:80]!r} in nsys stats, not in kernels.json")
            continue
        if o["calls"] != t["calls"]:
            problems.append(f"{label}: kernel {name[:80]!r}: {o['calls']} launches, nsys {t['calls']}")
        for key in ("total_ns", "min_ns", "max_ns"):
            if not compare_nvtxsum.close(t[key], o[key]):
                problems.append(f"{label}: kernel {name[:80]!r}: {key} {o[key]}, nsys {t[key]}")
    for name in set(ours) - set(theirs):
        problems.append(f"{label}: kernel {name[:80]!r} in kernels.json, not in nsys stats")


def kernel_totals(out):
    totals = {}
    for k in json.loads((out / "kernels.json").read_text(encoding="utf-8"))["kernels"]:
        calls, total = totals.get(k["name"], (0, 0.0))
        totals[k["name"]] = (calls + k["calls"], total + k["total_ms"])
    return totals


def region_values(out, push_pop_only=False):
    """(path, domain) -> (instances, CPU ms, projected ms), for the ranges that have a CPU time."""
    report = out / "regions" / "report.json"
    values = {}
    if not report.exists():
        return values
    for r in json.loads(report.read_text(encoding="utf-8"))["regions"]:
        if r.get("cpu_ms") is None or (push_pop_only and r["kind"] != "push_pop"):
            continue
        values[(" > ".join(r["path"]), r.get("domain") or "")] = (
            (r.get("instances") or {}).get("count"), round(r["cpu_ms"], 9),
            None if push_pop_only or r.get("projected_ms") is None else round(r["projected_ms"], 9))
    return values


def check_csv_imports(binary, sqlite, out, work, year, problems):
    """The CSVs nsys writes from the export import with the export's own numbers."""
    reports = ({"gpusum": "kernels", "nvtxgpuproj": "projection", "nvtxpptrace": "pushpop"} if year < 2023 else
               {"cuda_gpu_kern_sum": "kernels", "nvtx_gpu_proj_sum": "projection", "nvtx_pushpop_trace": "pushpop"})
    prefix = work / f"{sqlite.stem}-csv"
    subprocess.run(["nsys", "stats", "--report", ",".join(reports), "--format", "csv", "--output", str(prefix),
                    str(sqlite)], capture_output=True, text=True, timeout=600)
    for report, kind in reports.items():
        csv_file = Path(f"{prefix}_{report}.csv")
        if not csv_file.exists() or csv_file.stat().st_size == 0:
            continue  # no such data in this export (nsys wrote nothing)
        csv_out = work / f"{sqlite.stem}-{report}"
        done = subprocess.run([binary, "import", str(csv_file), "--out", str(csv_out)], capture_output=True, text=True)
        if done.returncode:
            problems.append(f"{sqlite.name}: import of nsys' {report} CSV exited {done.returncode}: {done.stderr[-300:]}")
            continue
        if kind == "kernels":
            mine, theirs = kernel_totals(csv_out), kernel_totals(out)
            same = mine.keys() == theirs.keys() and all(
                mine[k][0] == theirs[k][0] and abs(mine[k][1] - theirs[k][1]) <= 1e-6 for k in mine)
        elif kind == "projection":
            mine, theirs = region_values(csv_out), region_values(out)
            theirs = {k: v for k, v in theirs.items() if k in mine or v[2] is not None}
            mine = {(k[0].split(" > ")[-1], k[1]): v for k, v in mine.items()}  # flat: no nesting in the CSV
            theirs = {(k[0].split(" > ")[-1], k[1]): v for k, v in theirs.items()}
            same = mine == theirs
        else:
            mine, theirs = region_values(csv_out, True), region_values(out, True)
            same = mine == theirs
        print(f"{sqlite.name}: nsys' {report} CSV: {len(mine)} rows {'match' if same else 'DIFFER'}")
        if not same:
            problems.append(f"{sqlite.name}: {report} CSV import {sorted(mine.items())[:6]} vs export "
                            f"{sorted(theirs.items())[:6]}")


def check(binary, sqlite, work, reports, problems):
    label = sqlite.name
    prefix = work / f"{sqlite.stem}-stats"
    done = subprocess.run(["nsys", "stats", "--report", ",".join(reports), "--format", "csv", "--output",
                           str(prefix), str(sqlite)], capture_output=True, text=True, timeout=600)
    if done.returncode or "ERROR" in done.stdout + done.stderr:
        problems.append(f"{label}: nsys stats failed ({done.returncode}): {(done.stdout + done.stderr)[-400:]}")
        return 0
    out = work / f"{sqlite.stem}-out"
    imported = subprocess.run([binary, "import", str(sqlite), "--out", str(out)], capture_output=True, text=True)
    if imported.returncode:
        problems.append(f"{label}: import exited {imported.returncode}: {imported.stderr[-400:]}")
        return 0
    kern_csv, nvtx_csv = (Path(f"{prefix}_{r}.csv") for r in reports)
    theirs = their_kernels(kern_csv) if kern_csv.exists() else {}
    compare_kernels(theirs, our_kernels(out / "kernels.json"), label, problems)
    regions = out / "regions" / "report.json"
    nvtx_theirs = compare_nvtxsum.nsys_ranges(nvtx_csv) if nvtx_csv.exists() else {}
    nvtx_ours = compare_nvtxsum.our_ranges(regions) if regions.exists() else {}
    for name, t in nvtx_theirs.items():
        o = nvtx_ours.get(name)
        if o is None or o["count"] != t["count"] or not all(
                compare_nvtxsum.close(t[k], o[k]) for k in ("total_ns", "min_ns", "max_ns")):
            problems.append(f"{label}: range {name!r}: ours {o}, nsys {t}")
    for name in set(nvtx_ours) - set(nvtx_theirs):
        problems.append(f"{label}: range {name!r} in our regions, not in nsys stats")
    check_csv_imports(binary, sqlite, out, work, nsys_year(), problems)
    print(f"{label}: {len(theirs)} kernel names, {len(nvtx_theirs)} ranges compared")
    return len(theirs) + len(nvtx_theirs)


def main():
    binary, program, source = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    require_nsys()
    reports = ["gpukernsum", "nvtxsum"] if nsys_year() < 2023 else ["cuda_gpu_kern_sum", "nvtx_sum"]
    problems = []
    compared = 0
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        # Captured through `profile` (which retries nsys 2022.4's "End of
        # file" start failure and stops an agent nsys leaves behind).
        capture = subprocess.run([binary, "profile", f"hydra.run.dir={work / 'own'}", "pipeline.nsys.enable=true",
                                  "--", program], capture_output=True, text=True, timeout=600)
        own = work / "own" / "nsys" / "run.sqlite"
        if capture.returncode or not own.exists():
            problems.append(f"profile with nsys of {program} failed ({capture.returncode}): {capture.stderr[-400:]}")
        inputs = ([own] if own.exists() else []) + sorted(
            (source.parent / "shared" / "fixtures" / "nsys-sqlite").glob("*.sqlite"))
        for sqlite in inputs:
            compared += check(binary, sqlite, work, reports, problems)
    for p in problems:
        print("MISMATCH:", p)
    print(f"{compared} kernel names and ranges compared, {len(problems)} problems")
    return 1 if problems or not compared else 0


if __name__ == "__main__":
    sys.exit(main())
