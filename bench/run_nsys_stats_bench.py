#!/usr/bin/env python3
"""nsys SQLite import against the vendor's own tool on the same file.

    python3 bench/run_nsys_stats_bench.py [--reps 3] [--write-results]
    python3 bench/run_nsys_stats_bench.py --quick      # 50k and 100k kernels, a smoke run

For each input made by gen_nsys_sqlite.py (1M kernels / 100k NVTX ranges and
10M kernels / 1M ranges; --quick: 50k / 5k and 100k / 10k), measured in one
run, interleaved, --reps times, medians:

  ours      llm-perf-opt import FILE --out DIR (every report: kernels, regions,
            timeline page, report_set.json)
  nsys      nsys stats -r gpukernsum,nvtxsum,nvtxppsum -f csv -o PREFIX COPY
            (the kernel table, NVTX range sums and push/pop range sums), on a
            copy of the file made once, so that whatever nsys adds to a
            database it reads never touches the file we import
  sqlite    the sqlite3 shell reading every kernel's times and name
            (run_bench.SQLITE_FLOOR_QUERY): what any importer must read

Peak RSS is GNU time's %M; CPU is user + system (GNU time counts the children
the command waited for, so nsys' helper processes are included).  The run
checks that ours and nsys agree: per kernel name, calls and total time (ns,
exact); per NVTX range name folded by our default instance-suffix rule
(`decode step 12` -> `decode step N`), instances and total CPU time.

--write-results replaces the marked "nsys SQLite vs nsys stats" section of
bench/RESULTS.md (the other sections stay).
"""

import argparse
import csv
import json
import os
import re
import shutil
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402  (inputs, measurement, machine description)

BEGIN = "<!-- nsys-stats-bench begin -->"
END = "<!-- nsys-stats-bench end -->"
REPORTS = "gpukernsum,nvtxsum,nvtxppsum"
# Targets (fixed; issue 29): CPU <= 0.5x nsys stats at every size, peak RSS <= 200 MiB at 10M kernels.
TARGET_CPU_VS_NSYS = 0.5
TARGET_RSS_MIB_AT_10M = 200
# Our default pipeline.regions.instance_suffix, as Python.
FOLD = re.compile(r"([ _#-])[0-9]{1,18}$")


def sizes(quick):
    if quick:
        return [("50k", {"kernels": 50000, "ranges": 5000}), ("100k", {"kernels": 100000, "ranges": 10000})]
    return [("1M", {"kernels": 1000000, "ranges": 100000}), ("10M", {"kernels": 10000000, "ranges": 1000000})]


def nsys_tables(prefix):
    """Kernels by name (calls, ns) and NVTX ranges by folded name (instances, ns) from nsys' CSVs."""
    kernels, ranges = {}, {}
    with open(prefix + "_gpukernsum.csv", newline="") as f:
        for row in csv.DictReader(f):
            k = kernels.setdefault(row["Name"], [0, 0])
            k[0] += int(row["Instances"])
            k[1] += int(row["Total Time (ns)"])
    with open(prefix + "_nvtxsum.csv", newline="") as f:
        for row in csv.DictReader(f):
            name = row["Range"]
            domain, _, bare = name.partition(":") if ":" in name else ("", "", name)
            key = (domain, FOLD.sub(r"\1N", bare))
            r = ranges.setdefault(key, [0, 0])
            r[0] += int(row["Instances"])
            r[1] += int(row["Total Time (ns)"])
    return kernels, ranges


def our_tables(out_dir):
    """The same from our kernels.json and regions/report.json (CPU ms of every region, by domain and name)."""
    kernels, ranges = {}, {}
    with open(os.path.join(out_dir, "kernels.json")) as f:
        for k in json.load(f)["kernels"]:
            e = kernels.setdefault(k["name"], [0, 0.0])
            e[0] += k["calls"]
            e[1] += k["total_ms"] * 1e6
    with open(os.path.join(out_dir, "regions", "report.json")) as f:
        for r in json.load(f)["regions"]:
            inst = r.get("instances") or {}
            e = ranges.setdefault((r["domain"] or "", r["range"]), [0, 0.0])
            e[0] += inst.get("count", 0)
            e[1] += (r.get("cpu_ms") or 0) * 1e6
    return kernels, ranges


def agree(ours, theirs, what):
    """Lines naming the differences (empty: they agree). Times within 1 ns per 1e9 (ms printed as decimals)."""
    diffs = []
    for key in sorted(set(ours) | set(theirs), key=str):
        o, t = ours.get(key), theirs.get(key)
        if o is None or t is None or o[0] != t[0] or abs(o[1] - t[1]) > 1e-6 * max(1.0, abs(t[1])):
            diffs.append(f"{what} {key!r}: ours {o}, nsys stats {t}")
    return diffs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scratch", default="/tmp/llmpo-bench")
    ap.add_argument("--binary", default=os.path.join(rb.ROOT, "build", "release", "llm-perf-opt"))
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--write-results", action="store_true")
    a = ap.parse_args()
    nsys = shutil.which("nsys")
    if not nsys:
        sys.exit("nsys is not installed (Debian: nsight-systems); this benchmark compares against it")
    os.makedirs(a.scratch, exist_ok=True)
    binary = rb.private_copy(a.binary, os.path.join(a.scratch, "nsys-stats-bin"))
    logs = os.path.join(a.scratch, "logs")
    os.makedirs(logs, exist_ok=True)
    started, load_before = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), rb.loadavg()
    inputs = []
    for label, args in sizes(a.quick):
        path, meta, reused = rb.ensure_input(a.scratch, "nsys", args, a.regen)
        copy = path + ".nsys-stats-copy.sqlite"
        shutil.copyfile(path, copy)
        inputs.append({"label": label, "path": path, "copy": copy, "args": args, "size": os.path.getsize(path),
                       "meta": meta, "reused": reused})
    rb.warm_page_cache({i["label"]: i for i in inputs})
    runs = {}

    def run(inp, tool, rep):
        stem = os.path.join(logs, f"nsys-stats.{inp['label']}.{tool}.{rep}")
        if tool == "ours":
            out = os.path.join(a.scratch, "out", f"nsys-stats.{inp['label']}")
            shutil.rmtree(out, ignore_errors=True)
            cmd = [binary, "import", inp["path"], "--out", out]
        elif tool == "nsys":
            out = stem + ".csv"
            cmd = [nsys, "stats", "-q", "-r", REPORTS, "-f", "csv", "-o", out, "--force-overwrite", "true",
                   inp["copy"]]
        else:
            out = None
            cmd = ["sqlite3", "-readonly", inp["path"], rb.SQLITE_FLOOR_QUERY]
        m = rb.measure(cmd, stem + ".out", stem + ".err")
        m.update(rep=rep, out=out, cpu_s=m["user_s"] + m["sys_s"])
        runs.setdefault((inp["label"], tool), []).append(m)
        rb.log(f"  {inp['label']:5} {tool:6} rep {rep}: {m['wall_s']:7.2f} s wall {m['cpu_s']:7.2f} s CPU "
               f"{m['maxrss_kb'] / 1024:7.1f} MiB" + ("" if m["rc"] == 0 else f"  EXIT {m['rc']} ({stem}.err)"))
        if m["rc"] != 0:
            sys.exit(f"failed: {' '.join(cmd)} (see {stem}.err)")

    tools = ["ours", "nsys"] + (["sqlite"] if shutil.which("sqlite3") else [])
    for rep in range(1, a.reps + 1):  # interleaved: load spreads over every tool alike
        for inp in inputs:
            for tool in tools:
                run(inp, tool, rep)
    # Agreement, on the last run of each.
    problems = []
    for inp in inputs:
        ok, nk = our_tables(runs[(inp["label"], "ours")][-1]["out"]), nsys_tables(runs[(inp["label"], "nsys")][-1]["out"])
        problems += [f"{inp['label']}: {d}" for d in agree(ok[0], nk[0], "kernel") + agree(ok[1], nk[1], "range")]
        inp["kernel_names"], inp["range_names"] = len(nk[0]), len(nk[1])
    lines = [BEGIN, "## nsys SQLite vs nsys stats", "",
             f"- Date: {started} (load average {load_before} before, {rb.loadavg()} after); "
             f"{os.cpu_count()} CPUs, shared with other builds: the tools ran interleaved, the ratios are of medians "
             "of CPU seconds (user + system, GNU time), the steadier measure on a loaded machine",
             f"- Command: `python3 bench/run_nsys_stats_bench.py --reps {a.reps}"
             f"{' --quick' if a.quick else ''}{' --write-results' if a.write_results else ''}`; repo at {rb.git_info()}",
             f"- nsys: `{nsys}` ({rb.subprocess.run([nsys, '--version'], capture_output=True, text=True).stdout.strip()}), "
             f"`nsys stats -r {REPORTS} -f csv` on a copy of the file",
             "- Ours: `llm-perf-opt import FILE --out DIR`, every report written",
             "- Agreement: " + ("kernels (calls, total ns) per name and NVTX ranges (instances, total CPU ns) per name, "
                                "numbered names folded as our default `pipeline.regions.instance_suffix` folds them: "
                                + ("**MISMATCH**" if problems else "agree")),
             "",
             "| input | MB | kernels | ranges | ours CPU s | ours wall s | ours peak RSS MiB | nsys stats CPU s | "
             "nsys stats wall s | nsys stats peak RSS MiB | sqlite3 floor CPU s | ours / nsys CPU |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    checks = []
    for inp in inputs:
        med = lambda tool, key: statistics.median(m[key] for m in runs[(inp["label"], tool)]) \
            if (inp["label"], tool) in runs else None
        ratio = med("ours", "cpu_s") / med("nsys", "cpu_s")
        floor = med("sqlite", "cpu_s")
        lines.append(f"| {inp['label']} (`{os.path.basename(inp['path'])}`) | {inp['size'] / 1e6:.1f} | "
                     f"{inp['args']['kernels']:,} | {inp['args']['ranges']:,} | {med('ours', 'cpu_s'):.2f} | "
                     f"{med('ours', 'wall_s'):.2f} | {med('ours', 'maxrss_kb') / 1024:.1f} | {med('nsys', 'cpu_s'):.2f} | "
                     f"{med('nsys', 'wall_s'):.2f} | {med('nsys', 'maxrss_kb') / 1024:.1f} | "
                     f"{'n/a' if floor is None else f'{floor:.2f}'} | {ratio:.2f} |")
        checks.append((f"ours / nsys stats CPU, {inp['label']}", f"{ratio:.2f}", f"<= {TARGET_CPU_VS_NSYS}",
                       ratio <= TARGET_CPU_VS_NSYS))
        if inp["args"]["kernels"] >= 10000000:
            rss = med("ours", "maxrss_kb") / 1024
            checks.append((f"ours peak RSS, {inp['label']}", f"{rss:.1f} MiB", f"<= {TARGET_RSS_MIB_AT_10M} MiB",
                           rss <= TARGET_RSS_MIB_AT_10M))
    lines += ["", "| target | measured | goal | result |", "|---|---|---|---|"]
    lines += [f"| {t} | {v} | {g} | {'PASS' if ok else '**FAIL**'} |" for t, v, g, ok in checks]
    lines += ["", "| input | tool | rep | wall s | CPU s | peak RSS KiB |", "|---|---|---:|---:|---:|---:|"]
    for (label, tool), ms in runs.items():
        lines += [f"| {label} | {tool} | {m['rep']} | {m['wall_s']:.2f} | {m['cpu_s']:.2f} | {m['maxrss_kb']:,} |"
                  for m in ms]
    lines.append(END)
    text = "\n".join(lines) + "\n"
    print(text)
    for p in problems[:20]:
        rb.log("MISMATCH " + p)
    if a.write_results:
        rb.write_marked_section(os.path.join(rb.BENCH, "RESULTS-quick.md" if a.quick else "RESULTS.md"), BEGIN, END,
                                text)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
