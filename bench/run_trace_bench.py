#!/usr/bin/env python3
"""Tracer benchmark: NVTX overhead of libllmpo_tracer.so and the time to ingest a 1M-event trace.

    python3 bench/run_trace_bench.py --write-results   # full run, adds "Tracer" to bench/RESULTS.md
    python3 bench/run_trace_bench.py --quick           # smoke run (seconds)

In one run, interleaved, --reps times each (default 5), medians reported:

  (a) nvtx_loop N W                 N iterations of two nested push/pop ranges around W ns of busy work,
                                    without the tracer (NVTX calls are near no-ops)
  (b) the same under the tracer     NVTX_INJECTION64_PATH=libllmpo_tracer.so
  (c) `llm-perf-opt report DIR`     re-ingests a trace run folder whose trace has 1,000,000 push/pop
                                    range records (nvtx_loop N=500,000 under `llm-perf-opt trace`) and
                                    rewrites every summary and report; wall time and peak RSS

Overhead = (b) / (a) - 1 on the loop's own timer (the program prints it), and the added cost per NVTX
call = ((b) - (a)) / (4 N).  The GPU-side target (at most 3 % on tiny_llm decode) needs a GPU:
`python3 bench/run_trace_bench.py --gpu` (tiny_llm --decode 64, per-token latency with and without the
tracer, NVTX and CUPTI).  Needs build/release (nvtx_loop, libllmpo_tracer.so, llm-perf-opt).
"""

import argparse
import datetime
import os
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402  (shared helpers: measurement, machine info)

BUILD = os.path.join(rb.ROOT, "build", "release")
LOOP = os.path.join(BUILD, "tests", "nvtx_loop")
TRACER = os.path.join(BUILD, "libllmpo_tracer.so")
CLI = os.path.join(BUILD, "llm-perf-opt")


def loop_ns(iterations, work_ns, traced, scratch):
    env = dict(os.environ)
    env.pop("NVTX_INJECTION64_PATH", None)
    if traced:
        env["NVTX_INJECTION64_PATH"] = TRACER
        env["LLMPO_TRACE_FILE"] = os.path.join(scratch, "loop.%p.tsv")
    out = subprocess.run([LOOP, str(iterations), str(work_ns)], env=env, check=True, capture_output=True, text=True)
    for f in os.listdir(scratch):
        if f.startswith("loop."):
            os.remove(os.path.join(scratch, f))
    return int(out.stdout.strip())


def machine_line():
    mi = rb.machine_info()
    return f"{mi['nproc']}-core {mi['cpu']}, {mi['ram_gib']} GiB RAM, Linux {mi['kernel']}"


def gpu_decode(reps):
    """tiny_llm decode latency without and with the tracer (NVTX + CUPTI); needs a GPU."""
    import re
    prog = os.path.join(BUILD, "workloads", "tiny_llm")
    pat = re.compile(r"mean per-token latency ([0-9.]+) ms")
    env_plain = {k: v for k, v in os.environ.items() if not k.endswith("_INJECTION64_PATH")}
    env_traced = dict(env_plain, NVTX_INJECTION64_PATH=TRACER, CUDA_INJECTION64_PATH=TRACER,
                      LLMPO_TRACE_FILE="/tmp/llmpo-gpu-bench.%p.tsv")
    plain, traced = [], []
    for _ in range(reps):
        for env, into in ((env_plain, plain), (env_traced, traced)):
            out = subprocess.run([prog, "--decode", "64", "--no-check"], env=env, capture_output=True, text=True)
            if out.returncode != 0:
                sys.exit(f"tiny_llm exited {out.returncode}: {out.stderr[-500:]}")
            into.append(float(pat.search(out.stdout).group(1)))
    a, b = statistics.median(plain), statistics.median(traced)
    print(f"tiny_llm decode, mean per-token latency: no tracer {a:.3f} ms, tracer {b:.3f} ms, "
          f"overhead {100 * (b / a - 1):.1f} % (target at most 3 %); raw {plain} {traced}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--scratch", default="/tmp/llmpo-bench/trace")
    ap.add_argument("--gpu", action="store_true", help="only the tiny_llm decode overhead (needs a GPU)")
    args = ap.parse_args()
    if args.gpu:
        return gpu_decode(args.reps)
    for f in (LOOP, TRACER, CLI):
        if not os.path.exists(f):
            sys.exit(f"missing {f}: build first (cmake --preset release && cmake --build --preset release -j2)")
    iterations = 50_000 if args.quick else 1_000_000
    ingest_iterations = 50_000 if args.quick else 500_000
    work_ns = 1000
    shutil.rmtree(args.scratch, ignore_errors=True)
    os.makedirs(args.scratch)

    plain, traced = [], []
    for _ in range(args.reps):
        plain.append(loop_ns(iterations, work_ns, False, args.scratch))
        traced.append(loop_ns(iterations, work_ns, True, args.scratch))
    a, b = statistics.median(plain), statistics.median(traced)
    overhead_pct = 100.0 * (b / a - 1)
    per_call_ns = (b - a) / (4 * iterations)

    run_dir = os.path.join(args.scratch, "run")
    subprocess.run([CLI, "trace", f"hydra.run.dir={run_dir}", "--", LOOP, str(ingest_iterations), "0"], check=True,
                   capture_output=True)
    trace_files = [f for f in os.listdir(os.path.join(run_dir, "trace")) if f.endswith(".tsv")]
    records = sum(1 for f in trace_files for line in open(os.path.join(run_dir, "trace", f)) if line.startswith("R\t"))
    trace_mb = sum(os.path.getsize(os.path.join(run_dir, "trace", f)) for f in trace_files) / 1e6
    ingest = []
    for i in range(max(3, args.reps // 2 + 1)):
        out = os.path.join(args.scratch, f"report.{i}")
        m = rb.measure([CLI, "report", run_dir], out + ".out", out + ".err")
        if m["rc"] != 0:
            sys.exit(f"report failed: see {out}.err")
        ingest.append(m)
    ingest_s = statistics.median(m["wall_s"] for m in ingest)
    ingest_mib = statistics.median(m["maxrss_kb"] for m in ingest) / 1024

    lines = [
        "## Tracer",
        "",
        f"Measured {datetime.date.today()} with `python3 bench/run_trace_bench.py{' --quick' if args.quick else ''}`;"
        f" {machine_line()}; commit {rb.git_info()}.",
        "",
        f"| Measurement | Median of {args.reps} | Notes |",
        "|---|---:|---|",
        f"| nvtx_loop {iterations:,} iterations, {work_ns} ns work, no tracer | {a / 1e6:.1f} ms | 4 NVTX calls per iteration |",
        f"| the same under libllmpo_tracer.so | {b / 1e6:.1f} ms | |",
        f"| overhead | {overhead_pct:.1f} % | {per_call_ns:.0f} ns per NVTX call |",
        f"| `report` on a trace of {records:,} range records ({trace_mb:.0f} MB) | {ingest_s:.2f} s | "
        f"peak RSS {ingest_mib:.0f} MiB; all summaries, trace.json and reports rewritten |",
        "",
        "The loop is NVTX-heavy on purpose (a range pair per microsecond of work); a real model has far fewer",
        "ranges per unit of GPU work. The tiny_llm decode target (at most 3 %) needs a GPU and is not measured here.",
        "",
        "Raw: no tracer " + " ".join(f"{x / 1e6:.1f}" for x in plain) + " ms; tracer " +
        " ".join(f"{x / 1e6:.1f}" for x in traced) + " ms; report " + " ".join(f"{m['wall_s']:.2f}" for m in ingest) + " s.",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if args.write_results:
        rb.replace_heading_section(os.path.join(rb.BENCH, "RESULTS.md"), "## Tracer", text)


if __name__ == "__main__":
    main()
