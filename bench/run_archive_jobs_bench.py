#!/usr/bin/env python3
"""A tar of rank traces imported with `-j 1` and `-j J` (docs/multirank.md, "Bounded memory": an archive's members
parsed by the threads the inputs leave over), side by side with the same ranks as files (`import -j J FILES`).
Wall time, CPU (user + system) and peak RSS from GNU time; the runs are interleaved, medians of --reps. The tars
are plain (`tar cf`) tars of the first N files of a generated set (gen_kineto_ranks.py --gzip), written to
--scratch. Checks that the -j 1 and -j J folders of each tar are the same (diff -r) and prints a Markdown table.

    python3 bench/run_archive_jobs_bench.py --bin build/release/llm-perf-opt --dir /tmp/mrb/g64x100 \
        --counts 16,64 --jobs 2 --reps 3
"""

import argparse
import glob
import os
import statistics
import subprocess
import sys
import tarfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_multirank_bench import measure  # noqa: E402  (wall s, CPU s, peak RSS MiB of one run)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--counts", default="16,64")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scratch", default="/tmp/llmpo-archive-bench")
    a = ap.parse_args()
    files = sorted(glob.glob(os.path.join(a.dir, "rank*.json*")))
    os.makedirs(a.scratch, exist_ok=True)
    runs = {}
    cases = []
    for n in map(int, a.counts.split(",")):
        tar = os.path.join(a.scratch, f"ranks{n}.tar")
        if not os.path.exists(tar):
            with tarfile.open(tar, "w") as t:
                for f in files[:n]:
                    t.add(f, arcname=os.path.basename(f))
        cases += [(n, "tar", 1, [a.bin, "-q", "import", "-j", "1", tar]),
                  (n, "tar", a.jobs, [a.bin, "-q", "import", "-j", str(a.jobs), tar]),
                  (n, "files", a.jobs, [a.bin, "-q", "import", "-j", str(a.jobs), *files[:n]])]
    for rep in range(a.reps):
        for n, kind, jobs, cmd in cases:
            out = os.path.join(a.scratch, f"out-{n}-{kind}-j{jobs}")
            runs.setdefault((n, kind, jobs), []).append(measure([*cmd, "--out", out], out))
    for n in map(int, a.counts.split(",")):
        one, many = (os.path.join(a.scratch, f"out-{n}-tar-j{j}") for j in (1, a.jobs))
        same = subprocess.run(["diff", "-r", one, many], capture_output=True).returncode == 0
        print(f"- {n} ranks: the tar's -j 1 and -j {a.jobs} folders are {'the same' if same else 'DIFFERENT'}")
    print()
    print("| ranks | input | -j | wall s | CPU s | peak RSS MiB |")
    print("|---:|---|---:|---:|---:|---:|")
    for (n, kind, jobs), rs in runs.items():
        wall, cpu, rss = (statistics.median(r[i] for r in rs) for i in range(3))
        print(f"| {n} | {kind} | {jobs} | {wall:.2f} | {cpu:.2f} | {rss:.1f} |")


if __name__ == "__main__":
    main()
