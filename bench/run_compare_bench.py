#!/usr/bin/env python3
"""Compare benchmark: `compare A B` of two generated Kineto traces against
importing each of them, side by side in one run (interleaved, median of
--reps): wall and CPU time (user + system) and peak RSS (GNU time %M).
`compare` of two files imports both (each into OUT/sides/N, with its full
reports) and aligns them, so the goal is a time near the two imports' sum
(issue: under 2x) and a peak RSS near one import's, not two.

    python3 bench/run_compare_bench.py [--mb 1000] [--reps 3] [--write-results]

The traces are bench/gen_kineto_trace.py's, seeds 7 and 8 (the same launches,
other durations), kept in --scratch. --write-results replaces the "Compare"
section of bench/RESULTS.md.
"""

import argparse
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile

import run_kineto_bench  # same folder: its GNU time wrapper

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = "<!-- compare-bench begin -->"
END = "<!-- compare-bench end -->"


def timed(cmd):
    """Wall s, CPU s and peak RSS MiB of one command (run_kineto_bench's GNU time wrapper)."""
    return run_kineto_bench.timed(cmd)[:3]


def trace(scratch, mb, seed):
    path = scratch / f"compare-{int(mb)}mb-seed{seed}.json"
    if not path.exists() or path.stat().st_size < mb * 1e6 * 0.99:
        subprocess.run([sys.executable, str(ROOT / "bench/gen_kineto_trace.py"), str(path), "--mb", str(mb),
                        "--seed", str(seed)], check=True)
    return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=float, default=1000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scratch", default="/tmp/llmpo-bench")
    ap.add_argument("--binary", default=str(ROOT / "build/release/llm-perf-opt"))
    ap.add_argument("--write-results", action="store_true")
    args = ap.parse_args()
    scratch = pathlib.Path(args.scratch)
    scratch.mkdir(parents=True, exist_ok=True)
    a, b = trace(scratch, args.mb, 7), trace(scratch, args.mb, 8)
    runs = {"import A": [], "import B": [], "compare A B": []}
    work = pathlib.Path(tempfile.mkdtemp(prefix="llmpo-compare-bench-"))
    try:
        for rep in range(args.reps):
            for name, cmd in (("import A", ["import", a]), ("import B", ["import", b]),
                              ("compare A B", ["compare", a, b])):
                out = work / f"{name.replace(' ', '-')}-{rep}"
                runs[name].append(timed([args.binary, *map(str, cmd), "--out", str(out)]))
                shutil.rmtree(out)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    med = {name: tuple(statistics.median(r[i] for r in rs) for i in range(3)) for name, rs in runs.items()}
    both_wall = med["import A"][0] + med["import B"][0]
    both_cpu = med["import A"][1] + med["import B"][1]
    one_rss = max(med["import A"][2], med["import B"][2])
    lines = [BEGIN, "## Compare", "",
             f"`python3 bench/run_compare_bench.py --mb {args.mb:g} --reps {args.reps}`: two generated Kineto traces "
             f"of {a.stat().st_size / 1e6:.0f} and {b.stat().st_size / 1e6:.0f} MB (seeds 7 and 8: the same launches, "
             "other durations), each imported alone and then compared (`compare A B` imports both and aligns their "
             f"launch order); medians of {args.reps}, interleaved, on this 2-core machine "
             "(shared with other builds while it ran).", "",
             "| Command | Wall (s) | CPU (s) | Peak RSS (MiB) |", "|---|---:|---:|---:|"]
    for name, (wall, cpu, rss) in med.items():
        lines.append(f"| `{name}` | {wall:.2f} | {cpu:.2f} | {rss:.0f} |")
    lines += ["", f"compare / (import A + import B): wall {med['compare A B'][0] / both_wall:.2f}x, CPU "
              f"{med['compare A B'][1] / both_cpu:.2f}x (target: under 2x); peak RSS {med['compare A B'][2] / one_rss:.2f}x "
              "one import's (the sides are imported one after the other; only their report sets stay).", END]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write_results:
        results = ROOT / "bench/RESULTS.md"
        old = results.read_text()
        if BEGIN in old:
            results.write_text(old[:old.index(BEGIN)] + text + old[old.index(END) + len(END) + 1:])
        else:
            results.write_text(old.rstrip("\n") + "\n\n" + text)


if __name__ == "__main__":
    main()
