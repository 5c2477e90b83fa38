#!/usr/bin/env python3
"""Two builds of llm-perf-opt side by side on the same inputs: are the outputs identical, and what did
each cost? For a change to an importer, measured before and after on a machine other work shares.

    python3 bench/ab_import.py --before OLD_BINARY --after NEW_BINARY [--reps 5] FILE...

Each binary must have its config tree beside it (BINARY's folder/conf), as bench/run_bench.py's private
copies do. For every FILE: both import it (`import FILE --out DIR -q`), the output folders are compared
with `diff -r` and the exit statuses and messages must match; then `wc -l FILE`, before and after run
--reps times, interleaved (one of each per round). GNU time gives wall s, CPU s (user + system) and peak
RSS; the table shows medians and minimums. On a shared machine wall time waits for a CPU and even CPU
time moves with what the neighbours do to the caches, so compare instruction counts too (callgrind).

Exit status: 0 when every output matched, 1 when one differed, 2 on bad arguments.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile


def run_import(binary, path, out):
    shutil.rmtree(out, ignore_errors=True)
    return subprocess.run([binary, "import", path, "--out", out, "-q"], capture_output=True, text=True)


def same_outputs(before, after, path, scratch):
    a, b = os.path.join(scratch, "before"), os.path.join(scratch, "after")
    ra, rb = run_import(before, path, a), run_import(after, path, b)
    if (ra.returncode, ra.stdout, ra.stderr) != (rb.returncode, rb.stdout, rb.stderr):
        return False, f"exit {ra.returncode} vs {rb.returncode} or messages differ"
    if os.path.isdir(a) != os.path.isdir(b):
        return False, "only one wrote an output folder"
    if os.path.isdir(a) and subprocess.run(["diff", "-r", a, b], capture_output=True).returncode != 0:
        return False, "output folders differ (diff -r)"
    return True, f"identical (exit {ra.returncode})"


def timed(cmd):
    """(wall s, CPU s, peak RSS MiB) from GNU time."""
    p = subprocess.run(["/usr/bin/time", "-f", "T %e %U %S %M"] + cmd, capture_output=True, text=True)
    fields = [line for line in p.stderr.splitlines() if line.startswith("T ")][-1].split()
    return float(fields[1]), float(fields[2]) + float(fields[3]), int(fields[4]) / 1024


def measure(before, after, path, reps, scratch):
    out = os.path.join(scratch, "timed")
    runs = {"wc -l": [], "before": [], "after": []}
    for _ in range(reps):
        runs["wc -l"].append(timed(["wc", "-l", path]))
        for label, binary in (("before", before), ("after", after)):
            shutil.rmtree(out, ignore_errors=True)
            runs[label].append(timed([binary, "import", path, "--out", out, "-q"]))
    return runs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    for binary in (a.before, a.after):
        if not os.access(binary, os.X_OK):
            print(f"ab_import: {binary} is not an executable", file=sys.stderr)
            return 2
    all_same = True
    with tempfile.TemporaryDirectory(prefix="llmpo-ab-") as scratch:
        for path in a.files:
            same, why = same_outputs(a.before, a.after, path, scratch)
            all_same = all_same and same
            print(f"{path}: {why}")
            if a.reps <= 0:
                continue
            print(f"  {'':8} {'wall med':>9} {'wall min':>9} {'CPU med':>8} {'CPU min':>8} {'RSS MiB':>8}")
            for label, rows in measure(a.before, a.after, path, a.reps, scratch).items():
                walls, cpus = [r[0] for r in rows], [r[1] for r in rows]
                print(f"  {label:8} {statistics.median(walls):9.2f} {min(walls):9.2f} {statistics.median(cpus):8.2f} "
                      f"{min(cpus):8.2f} {max(r[2] for r in rows):8.1f}")
    print("load average (1, 5, 15 min): " + " ".join(f"{x:.2f}" for x in os.getloadavg()))
    return 0 if all_same else 1


if __name__ == "__main__":
    sys.exit(main())
