#!/usr/bin/env python3
"""Kineto import benchmark: our `import` against bench/reference_kineto.py
(json.load and plain Python loops) on a generated ~1 GB trace and on the
largest shared fixture trace, side by side in one run: wall time, MB/s of
the (decompressed) JSON text and peak RSS (GNU time %M), median of --reps,
interleaved. Checks that both count the same kernels and kernel time.

    python3 bench/run_kineto_bench.py [--mb 1000] [--reps 3] [--write-results]

--write-results replaces the "Kineto traces" section of bench/RESULTS.md.
"""

import argparse
import gzip
import json
import os
import pathlib
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
BEGIN = "<!-- kineto-bench begin -->"
END = "<!-- kineto-bench end -->"


def timed(cmd, env=None):
    out = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M"] + cmd, capture_output=True, text=True, env=env)
    if out.returncode != 0:
        sys.exit(f"failed: {' '.join(cmd)}\n{out.stderr[-2000:]}")
    wall, user, system, rss_kib = out.stderr.strip().splitlines()[-1].split()
    return float(wall), float(user) + float(system), int(rss_kib) / 1024.0, out.stdout


def text_bytes(path):
    if str(path).endswith(".gz"):
        with gzip.open(path, "rb") as f:
            return sum(len(chunk) for chunk in iter(lambda: f.read(1 << 20), b""))
    return os.path.getsize(path)


def our_kernels(out_dir):
    doc = json.loads((out_dir / "gpu_breakdown.json").read_text())
    return sum(d["kernels"] for d in doc["devices"]), sum(d["kernel_ms"] for d in doc["devices"]) * 1000


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
    generated = scratch / f"kineto_{int(args.mb)}MB.json"
    if not generated.exists():
        subprocess.run([sys.executable, str(ROOT / "bench/gen_kineto_trace.py"), str(generated), "--mb", str(args.mb)],
                       check=True)
    inputs = [("generated", generated)]
    fixture = pathlib.Path("/work/shared/fixtures/kineto/hta-cudagraphs-rank0.json.gz")
    if fixture.exists():
        inputs.append(("largest shared (D9)", fixture))
    binary = scratch / "llm-perf-opt-kineto"
    shutil.copy2(args.binary, binary)
    # The copy reads <its folder>/conf: stage a fresh one (whatever stood there,
    # a stale tree or a link left by another checkout, is replaced).
    conf = pathlib.Path(args.binary).parent / "conf"
    if not conf.is_dir():
        conf = ROOT / "conf"
    staged = scratch / "conf"
    if staged.is_symlink() or staged.is_file():
        staged.unlink()
    shutil.rmtree(staged, ignore_errors=True)
    shutil.copytree(conf, staged)
    rows = []
    for label, path in inputs:
        subprocess.run(["cat", str(path)], stdout=subprocess.DEVNULL)  # warm the page cache
        mb = text_bytes(path) / 1e6
        ours, ref = [], []
        for _ in range(args.reps):
            with tempfile.TemporaryDirectory(dir=scratch) as out:
                ours.append(timed([str(binary), "import", str(path), "--out", out]))
                kernels, kernel_us = our_kernels(pathlib.Path(out))
            r = timed([sys.executable, str(ROOT / "bench/reference_kineto.py"), str(path)])
            ref.append(r)
            check = json.loads(r[3])
            if check["kernels"] != kernels or abs(check["total_us"] - kernel_us) > 1e-6 * max(1, kernel_us) + 1:
                sys.exit(f"{label}: kernels differ: ours {kernels} / {kernel_us} us, reference {check}")
        med = lambda runs, i: statistics.median(x[i] for x in runs)
        rows.append((label, path, mb, med(ours, 0), med(ours, 1), med(ours, 2), med(ref, 0), med(ref, 1), med(ref, 2),
                     kernels))
    lines = [
        BEGIN,
        "## Kineto traces",
        "",
        f"- Date: {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; {os.cpu_count()} CPUs; load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} at the end (the machine is shared: CPU seconds, "
        "user + system from GNU time, are the steadier measure)",
        f"- Command: `python3 bench/run_kineto_bench.py --mb {args.mb:g} --reps {args.reps}{' --write-results' if args.write_results else ''}`",
        "- Ours: `llm-perf-opt import TRACE --out DIR` (whole import: kernels, regions, GPU breakdown, reports). "
        "Reference: `bench/reference_kineto.py` (json.load; correlation join, per-name kernel sums, annotation and "
        "CPU-op attribution by sort and sweep, busy and computation unions). "
        "MB = bytes of JSON text (decompressed). Median of the reps, interleaved; peak RSS from GNU time.",
        "",
        "| input | MB | kernels | ours wall s | ours CPU s | ours MB/s | ours peak RSS MiB | reference wall s | "
        "reference CPU s | reference MB/s | reference peak RSS MiB | wall ratio | CPU ratio |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for label, path, mb, ow, oc, orss, rw, rc, rrss, kernels in rows:
        lines.append(f"| {label} (`{path.name}`) | {mb:.1f} | {kernels:,} | {ow:.2f} | {oc:.2f} | {mb / ow:.0f} | "
                     f"{orss:.1f} | {rw:.2f} | {rc:.2f} | {mb / rw:.1f} | {rrss:.1f} | {rw / ow:.1f}x | {rc / oc:.1f}x |")
    lines.append(END)
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write_results:
        results = ROOT / "bench/RESULTS.md"
        old = results.read_text()
        if BEGIN in old:  # replaced where it stands: the analysis written below it stays below it
            results.write_text(old[:old.index(BEGIN)] + text + old[old.index(END) + len(END) + 1:])
        else:
            results.write_text(old.rstrip("\n") + "\n\n" + text)


if __name__ == "__main__":
    main()
