#!/usr/bin/env python3
"""The .ncu-rep import benchmark: MB/s and peak memory of
`llm-perf-opt import REPORT.ncu-rep` on the largest shared report and on
generated reports of 5,000 and 10,000 results (bench/gen_ncu_rep.py), whose
peak memory must be flat in the number of results (each result is read,
turned into a launch and dropped). Writes the section between the
`<!-- ncu-rep bench -->` markers of bench/RESULTS.md with --write-results.

Usage: python3 bench/run_ncu_rep_bench.py [--binary PATH] [--reps 5] [--write-results]
"""
import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared" / "fixtures" / "ncu-rep"
BEGIN, END = "<!-- ncu-rep bench -->", "<!-- /ncu-rep bench -->"
FLAT_GROWTH_MIB = 8.0


def generate(scratch, results):
    path = scratch / f"ncu_rep_R{results}.ncu-rep"
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "bench" / "gen_ncu_rep.py"), "--results", str(results),
                        "--out", str(path)], check=True)
    return path


def measure(binary, path, reps):
    """Median wall seconds and peak RSS (MiB) of `import PATH` over reps runs."""
    walls, rss = [], []
    for _ in range(reps):
        with tempfile.TemporaryDirectory() as out:
            run = subprocess.run(["/usr/bin/time", "-f", "%e %M", str(binary), "import", str(path), "--out", out],
                                 capture_output=True, text=True, check=False)
            if run.returncode != 0:
                sys.exit(f"import {path} exited {run.returncode}: {run.stderr[-500:]}")
            wall, kib = run.stderr.strip().splitlines()[-1].split()
            walls.append(float(wall))
            rss.append(int(kib) / 1024)
    return statistics.median(walls), statistics.median(rss)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--binary", default=str(ROOT / "build" / "release" / "llm-perf-opt"))
    parser.add_argument("--scratch", default="/tmp/llmpo-bench")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--write-results", action="store_true")
    args = parser.parse_args()
    scratch = Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    binary = scratch / "llm-perf-opt-ncu-rep"  # a private copy, with its conf beside it
    shutil.copy2(args.binary, binary)
    conf = scratch / "conf"
    if not conf.exists():
        conf.symlink_to(ROOT / "conf")
    inputs = []
    if SHARED.is_dir():
        largest = max(SHARED.glob("*.ncu-rep"), key=lambda p: p.stat().st_size)
        inputs.append(("largest shared report", largest))
    inputs += [("generated, 5,000 results", generate(scratch, 5000)),
               ("generated, 10,000 results", generate(scratch, 10000))]
    rows, rss_by_results = [], {}
    for label, path in inputs:
        wall, rss = measure(binary, path, args.reps)
        mb = path.stat().st_size / 1e6
        rows.append(f"| {label} | `{path.name}` | {path.stat().st_size:,} | {wall:.3f} | "
                    f"{mb / wall if wall > 0 else float('inf'):.1f} | {rss:.1f} |")
        if "5,000" in label:
            rss_by_results[5000] = rss
        if "10,000" in label:
            rss_by_results[10000] = rss
    growth = rss_by_results[10000] - rss_by_results[5000]
    verdict = "PASS" if growth <= FLAT_GROWTH_MIB else "**FAIL**"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    text = "\n".join([
        BEGIN,
        "## .ncu-rep import (native reader)",
        "",
        f"- Date: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} CPUs; "
        f"load average after: {load}",
        f"- Command: `python3 bench/run_ncu_rep_bench.py --reps {args.reps} --write-results` "
        "(median of the runs; wall time and peak RSS from GNU time)",
        "- Generated inputs: `bench/gen_ncu_rep.py --results N` (200 metrics, 3 rules, an NVTX stack per result)",
        "",
        "| input | file | bytes | wall s | MB/s | peak RSS MiB |",
        "|---|---|---:|---:|---:|---:|",
        *rows,
        "",
        f"Peak RSS 5,000 -> 10,000 results: {rss_by_results[5000]:.1f} -> {rss_by_results[10000]:.1f} MiB "
        f"(growth {growth:.1f} MiB; flat means <= {FLAT_GROWTH_MIB} MiB): {verdict}",
        "",
        "The peak is the reports' per-kernel and per-region metric tables (37 kernels in 13 NVTX regions, 200",
        "metrics each), full after about 500 results; the reader itself holds one result at a time. Times on a",
        "shared 2-CPU machine vary by tens of percent between runs (see the load average).",
        END,
    ])
    print(text)
    if args.write_results:
        results = ROOT / "bench" / "RESULTS.md"
        old = results.read_text() if results.exists() else ""
        if BEGIN in old and END in old:
            new = old[:old.index(BEGIN)] + text + old[old.index(END) + len(END):]
        else:
            new = old.rstrip("\n") + "\n\n" + text + "\n"
        results.write_text(new)


if __name__ == "__main__":
    main()
