#!/usr/bin/env python3
"""One binary, one input, several variants side by side: each variant is a set of CPUs the import may
use (taskset) and environment settings, run interleaved (one of each per round), so a choice of threads
can be judged on the machine it is meant for. Wall from a monotonic clock, CPU (user + system) and peak
RSS from the child's rusage (no GNU time needed: the lent GPU machine has none); medians.

    python3 bench/threads_ab.py --bin BINARY --file TRACE [--reps 5] \
        --variant 'two CPUs=0-1' --variant 'two CPUs, X off=0-1:LLMPO_X=0' ...

A variant is LABEL=CPUS[:NAME=VALUE,...]; CPUS as taskset -c takes it, or 'all'. The output folders of
every variant are compared with the first's (diff -r): a variant that changes a report is an error.
Exit status: 0 when all outputs matched, 1 otherwise.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def parse_variant(text):
    label, _, rest = text.partition("=")
    cpus, _, env = rest.partition(":")
    settings = dict(kv.split("=", 1) for kv in env.split(",") if kv)
    return {"label": label, "cpus": cpus or "all", "env": settings}


def run(binary, path, out, variant):
    shutil.rmtree(out, ignore_errors=True)
    cmd = [binary, "-q", "import", path, "--out", out]
    if variant["cpus"] != "all":
        cmd = ["taskset", "-c", variant["cpus"]] + cmd
    env = dict(os.environ, **variant["env"])
    with tempfile.TemporaryFile() as log:  # not a pipe: a chatty failure cannot fill it and stall the child
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        log.seek(0)
        err = log.read().decode(errors="replace")
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"{variant['label']}: exit {os.waitstatus_to_exitcode(status)}: {err[-500:]}")
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mib": usage.ru_maxrss / 1024}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--file", required=True)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--variant", action="append", required=True, type=parse_variant)
    a = ap.parse_args()
    scratch = tempfile.mkdtemp(prefix="threads-ab-")
    subprocess.run(["cat", a.file], stdout=subprocess.DEVNULL, check=True)
    runs = {v["label"]: [] for v in a.variant}
    for _ in range(a.reps):
        for i, v in enumerate(a.variant):
            runs[v["label"]].append(run(a.bin, a.file, os.path.join(scratch, f"out{i}"), v))
    mismatch = [v["label"] for i, v in enumerate(a.variant[1:], 1)
                if subprocess.run(["diff", "-r", os.path.join(scratch, "out0"), os.path.join(scratch, f"out{i}")],
                                  capture_output=True).returncode != 0]
    print(f"{a.file} ({os.path.getsize(a.file) / 1e6:,.0f} MB), {a.reps} interleaved runs each, medians; "
          f"{os.cpu_count()} CPUs here")
    print("| variant | CPUs | settings | wall s | CPU s | peak RSS MiB |")
    print("|---|---|---|---:|---:|---:|")
    for v in a.variant:
        r = runs[v["label"]]
        med = {k: statistics.median(m[k] for m in r) for k in ("wall", "cpu", "rss_mib")}
        settings = ", ".join(f"{k}={val}" for k, val in v["env"].items()) or "-"
        print(f"| {v['label']} | {v['cpus']} | {settings} | {med['wall']:.3f} | {med['cpu']:.3f} | {med['rss_mib']:.1f} |")
    print("outputs: " + ("identical (diff -r)" if not mismatch else "DIFFER: " + ", ".join(mismatch)))
    shutil.rmtree(scratch, ignore_errors=True)
    sys.exit(1 if mismatch else 0)


if __name__ == "__main__":
    main()
