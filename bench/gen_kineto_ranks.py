#!/usr/bin/env python3
"""Writes N Kineto rank traces of about --mb megabytes each, one job's set:
one trace from gen_kineto_trace.py, copied per rank with its
distributedInfo set to (rank, N). Also, with --single, one trace of the
same total bytes (N x --mb) for the single-rank side of the comparison.

    python3 bench/gen_kineto_ranks.py DIR --ranks 1024 --mb 10 [--single] [--gzip]

With --gzip the rank files are rankN.json.gz (gzip level 1; import reads
them as they are): 256 x 100 MB take about 2 GB of disk instead of 25.6 GB.
"""

import argparse
import gzip
import os
import pathlib
import shutil
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
OLD = b'"distributedInfo": {"backend": "nccl", "rank": 0, "world_size": 1}'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--ranks", type=int, required=True)
    ap.add_argument("--mb", type=float, required=True)
    ap.add_argument("--single", action="store_true", help="also one trace of ranks x mb megabytes")
    ap.add_argument("--gzip", action="store_true", help="write the rank files gzip-compressed (.json.gz)")
    args = ap.parse_args()
    out = pathlib.Path(args.dir)
    out.mkdir(parents=True, exist_ok=True)
    base = out / f"base_{args.mb:g}mb.json"
    if not base.exists():
        subprocess.run([sys.executable, HERE / "gen_kineto_trace.py", base, "--mb", str(args.mb)], check=True)
    with open(base, "rb") as f:
        head = f.read(4096)
        assert OLD in head, "gen_kineto_trace.py changed its header"
        cut = head.index(OLD) + len(OLD)
    width = len(str(args.ranks - 1))
    for rank in range(args.ranks):
        path = out / f"rank{rank:0{width}d}.json{'.gz' if args.gzip else ''}"
        if path.exists():
            continue
        new = f'"distributedInfo": {{"backend": "nccl", "rank": {rank}, "world_size": {args.ranks}}}'.encode()
        opener = (lambda p: gzip.open(p, "wb", compresslevel=1)) if args.gzip else (lambda p: open(p, "wb"))
        with open(base, "rb") as src, opener(path) as dst:
            dst.write(head[: head.index(OLD)] + new)
            src.seek(cut)
            shutil.copyfileobj(src, dst, 1 << 20)
    if args.single:
        single = out / f"single_{args.ranks * args.mb:g}mb.json"
        if not single.exists():
            subprocess.run([sys.executable, HERE / "gen_kineto_trace.py", single, "--mb", str(args.ranks * args.mb)],
                           check=True)
    print(f"{args.ranks} rank trace(s) of {os.path.getsize(base):,} bytes in {out}")


if __name__ == "__main__":
    main()
