#!/usr/bin/env python3
"""Peak memory of many-rank imports, two binaries side by side: for each
count N, the first N rank files of a generated set (gen_kineto_ranks.py)
through `import -j J --out DIR` with each binary in turn (interleaved, so
that both see the same load), GNU time's wall, user + system CPU and peak
RSS, and whether the two output folders are byte for byte the same.
Prints a Markdown table. With --partial also `import --partial` of the
files in two halves and `merge` of the two (the merge's peak RSS; its
report folder compared with the first binary's import).

    python3 bench/run_rank_memory_bench.py --before B1 --after B2 \\
        --dir /tmp/mrb/r1024x10 --counts 128,512,1024 --jobs 2 [--partial]
"""

import argparse
import filecmp
import glob
import os
import shutil
import subprocess
import tempfile


def timed(cmd):
    r = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *cmd], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"{' '.join(cmd[:4])}... exited {r.returncode}: {r.stderr[-2000:]}")
    wall, user, sys_, rss = r.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(sys_), int(rss) / 1024


def same_tree(a, b):
    cmp = filecmp.dircmp(a, b)
    if cmp.left_only or cmp.right_only or cmp.funny_files:
        return False
    _, mismatch, errors = filecmp.cmpfiles(a, b, cmp.common_files, shallow=False)
    return not mismatch and not errors and all(same_tree(os.path.join(a, d), os.path.join(b, d))
                                               for d in cmp.common_dirs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--dir", required=True)
    ap.add_argument("--counts", default="")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--partial", action="store_true")
    args = ap.parse_args()
    files = sorted(glob.glob(os.path.join(args.dir, "rank*.json")))
    counts = [int(c) for c in args.counts.split(",")] if args.counts else [len(files)]
    scratch = tempfile.mkdtemp(prefix="llmpo-rmb-")
    print("| N rank files | total MB | binary | command | wall s | CPU s | peak RSS MiB | reports same as before |")
    print("|---:|---:|---|---|---:|---:|---:|---|")
    try:
        for n in counts:
            chosen = files[:n]
            mb = sum(os.path.getsize(f) for f in chosen) / 1e6
            outs = {}
            for tag, binary in (("before", args.before), ("after", args.after)):
                out = os.path.join(scratch, tag)
                shutil.rmtree(out, ignore_errors=True)
                wall, cpu, rss = timed([binary, "-q", "import", "-j", str(args.jobs), *chosen, "--out", out])
                outs[tag] = out
                same = "" if tag == "before" else ("yes" if same_tree(outs["before"], out) else "NO")
                print(f"| {n} | {mb:,.0f} | {tag} | import -j {args.jobs} | {wall:.1f} | {cpu:.1f} | {rss:,.0f} | {same} |",
                      flush=True)
            if args.partial:
                half = n // 2
                parts = [os.path.join(scratch, "a.json"), os.path.join(scratch, "b.json")]
                for part, group in zip(parts, (chosen[:half], chosen[half:])):
                    timed([args.after, "-q", "import", "-j", str(args.jobs), "--partial", part, *group])
                merged = os.path.join(scratch, "merged")
                shutil.rmtree(merged, ignore_errors=True)
                wall, cpu, rss = timed([args.after, "-q", "merge", *parts, "--out", merged])
                same = "yes" if same_tree(outs["before"], merged) else "NO"
                print(f"| {n} | {mb:,.0f} | after | merge of 2 partials | {wall:.1f} | {cpu:.1f} | {rss:,.0f} | {same} |",
                      flush=True)
            shutil.rmtree(outs["before"], ignore_errors=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
