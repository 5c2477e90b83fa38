#!/usr/bin/env python3
"""report.html at scale: page size and the time headless Chromium takes to load and draw it.

    python3 bench/run_html_bench.py --write-results   # full run, adds "HTML report" to bench/RESULTS.md
    python3 bench/run_html_bench.py --quick           # 1,000 regions, 50,000 results

Input: the region benchmark's ncu details file (bench/gen_ncu_regions.py;
10,000 regions, 1,000,000 kernel results by default; reused from the scratch
folder when already there).  `llm-perf-opt import FILE --out DIR` writes
DIR/report.html; tests/browser/check_report.py then loads it --reps times in
headless Chromium (a fresh profile each time) and reports navigation to
"drawn" (the page's script done and two animation frames later), and fails
on any page error.  Targets: page under 10 MB, drawn in under 3 s.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402

TARGET_MB = 10.0
TARGET_S = 3.0
CHECK = os.path.join(rb.ROOT, "tests", "browser", "check_report.py")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--binary", default=os.path.join(rb.ROOT, "build", "release", "llm-perf-opt"))
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--scratch", default="/tmp/llmpo-bench")
    ap.add_argument("--write-results", action="store_true")
    a = ap.parse_args()
    regions, results = (1000, 50000) if a.quick else (10000, 1000000)
    os.makedirs(a.scratch, exist_ok=True)
    binary = rb.private_copy(a.binary, os.path.join(a.scratch, "html-bench-bin"))
    path, _, reused = rb.ensure_input(a.scratch, "regions", {"regions": regions, "results": results}, False)
    out = os.path.join(a.scratch, "html-out")
    shutil.rmtree(out, ignore_errors=True)
    # 10,000 distinct regions, as the region bench: numbered names not folded.
    imp = rb.measure([binary, "import", path, "--out", out, "--set", "pipeline.regions.instance_suffix=''"],
                     out + ".stdout", out + ".stderr")
    if imp["rc"] != 0:
        sys.exit(f"import failed: see {out}.stderr")
    page = os.path.join(out, "report.html")
    size_mb = os.path.getsize(page) / 1e6
    loads = []
    for rep in range(a.reps):
        profile = os.path.join(a.scratch, f"html-profile-{rep}")
        shutil.rmtree(profile, ignore_errors=True)
        r = subprocess.run(["/usr/bin/python3", CHECK, "--chromium", a.chromium, "--profile-dir", profile,
                            "--screenshot", os.path.join(a.scratch, "html-bench.png"), page],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"page check failed ({r.returncode}): {r.stdout[-2000:]} {r.stderr[-2000:]}")
        loads.append(json.loads(r.stdout))
    drawn_s = statistics.median(x["load_and_draw_ms"] for x in loads) / 1000
    s = loads[0]["structure"]
    with open(page, encoding="utf-8") as f:
        text = f.read()
    aggregated = "Aggregated:" in text
    lines = [
        "## HTML report",
        "",
        f"Measured {datetime.date.today()} with `python3 bench/run_html_bench.py{' --quick' if a.quick else ''}`;"
        f" {rb.machine_info()['cpu']}, load {rb.loadavg()}; commit {rb.git_info()}; "
        f"{subprocess.run([a.chromium, '--version'], capture_output=True, text=True).stdout.strip()}, headless.",
        "",
        f"Input: {regions:,} regions, {results:,} kernel results (`{os.path.basename(path)}`,"
        f" {os.path.getsize(path) / 1e6:.0f} MB).",
        "",
        "| Measurement | Value | Target | Met |",
        "|---|---:|---:|---|",
        f"| report.html size | {size_mb:.2f} MB | < {TARGET_MB:.0f} MB | {'yes' if size_mb < TARGET_MB else 'NO'} |",
        f"| navigation to drawn, median of {a.reps} | {drawn_s:.2f} s | < {TARGET_S:.0f} s |"
        f" {'yes' if drawn_s < TARGET_S else 'NO'} |",
        f"| import (all reports, page included), wall | {imp['wall_s']:.2f} s | | |",
        "",
        f"The page holds {s['icicle_nodes']:,} icicle blocks, {s['region_rows']:,} region-table rows drawn"
        f" ({'the first 1,000; sorting and filtering use all of them' if s['region_rows'] >= 1000 else 'all'}),"
        f" {s['kernel_rows']:,} kernel-table rows; "
        + ("regions too narrow to draw are aggregated into their parents and the page says how many."
           if aggregated else "every region is drawn.") +
        " Raw draw times: " + ", ".join(f"{x['load_and_draw_ms']} ms" for x in loads) + ".",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if a.write_results:
        rb.replace_heading_section(os.path.join(rb.BENCH, "RESULTS.md"), "## HTML report", text)


if __name__ == "__main__":
    main()
