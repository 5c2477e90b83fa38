#!/usr/bin/env python3
"""Many rank files through one machine: wall time, CPU time and peak RSS
(GNU time) of `import -j J` (each rank file reduced to its summary before
the next is opened; docs/multirank.md) over the first N files of a
generated set (gen_kineto_ranks.py), of the whole read (`import
--read-whole`), and of one single-rank trace of the same total bytes.
Prints a Markdown table; "MB read" is the traces' bytes after gzip
(.json.gz rank files: the size their gzip trailer gives), "MB on disk" the
files' sizes.

    python3 bench/run_multirank_bench.py --bin build/release/llm-perf-opt \
        --dir /tmp/mrb/r1024x10 --counts 128,512,1024 --jobs 1,2 [--plain] [--single FILE]
"""

import argparse
import glob
import os
import shutil
import subprocess
import tempfile


def read_size(path):
    """The trace's bytes: a .gz file's trailer holds them (mod 2^32; rank files are smaller)."""
    if not path.endswith(".gz"):
        return os.path.getsize(path)
    with open(path, "rb") as f:
        f.seek(-4, os.SEEK_END)
        return int.from_bytes(f.read(4), "little")


def measure(cmd, out):
    shutil.rmtree(out, ignore_errors=True)
    fmt = "%e %U %S %M"
    r = subprocess.run(["/usr/bin/time", "-f", fmt, *cmd], capture_output=True, text=True)
    if r.returncode not in (0,):
        raise SystemExit(f"{cmd[:4]}... exited {r.returncode}: {r.stderr[-2000:]}")
    wall, user, sys_, rss = r.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(sys_), int(rss) / 1024


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--counts", default="")
    ap.add_argument("--jobs", default="1,2")
    ap.add_argument("--plain", action="store_true",
                    help="also the whole read (import --read-whole: one Collectors, every rank kept until the reports)")
    ap.add_argument("--single", default="", help="a single-rank trace of the same bytes as the largest count")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.dir, "rank*.json")) + glob.glob(os.path.join(args.dir, "rank*.json.gz")))
    counts = [int(c) for c in args.counts.split(",")] if args.counts else [len(files)]
    rows = []
    scratch = tempfile.mkdtemp(prefix="llmpo-mrb-")
    for n in counts:
        chosen = files[:n]
        size = sum(read_size(f) for f in chosen)
        disk = sum(os.path.getsize(f) for f in chosen)
        for j in [int(x) for x in args.jobs.split(",")]:
            wall, cpu, rss = measure([args.bin, "-q", "import", "-j", str(j), *chosen, "--out", f"{scratch}/o"],
                                     f"{scratch}/o")
            rows.append((f"import -j {j}", n, size, disk, wall, cpu, rss))
        if args.plain:
            wall, cpu, rss = measure([args.bin, "-q", "import", "--read-whole", *chosen, "--out", f"{scratch}/o"],
                                     f"{scratch}/o")
            rows.append(("import --read-whole", n, size, disk, wall, cpu, rss))
    if args.single:
        size = read_size(args.single)
        wall, cpu, rss = measure([args.bin, "-q", "import", args.single, "--out", f"{scratch}/o"], f"{scratch}/o")
        rows.append(("import, one single-rank file", 1, size, os.path.getsize(args.single), wall, cpu, rss))
    shutil.rmtree(scratch, ignore_errors=True)
    print("| command | rank files | MB read | MB on disk | wall s | CPU s | CPU s per GB read | MB/s read (wall) "
          "| peak RSS MiB |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, n, size, disk, wall, cpu, rss in rows:
        print(f"| {name} | {n} | {size / 1e6:,.0f} | {disk / 1e6:,.0f} | {wall:.1f} | {cpu:.1f} | "
              f"{cpu / (size / 1e9):.2f} | {size / 1e6 / wall:,.0f} | {rss:,.0f} |")


if __name__ == "__main__":
    main()
