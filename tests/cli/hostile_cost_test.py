#!/usr/bin/env python3
"""Linear cost on hostile inputs (issue #35 items 1, 2, 3, 4).

Each case generates one input shape at two sizes, N and 4N, imports both and
compares the CPU time the import took (user + system, of the child process:
steadier than wall-clock time on a shared machine). A cost linear in the
input gives about 4x; a quadratic one 16x. The case fails from 8x. No
absolute time bound: the baseline is measured here, in the same run.

  hostile_cost_test.py BIN [--scale S] [--case NAME] [--keep DIR]

--scale multiplies N (scripts/attack.sh runs the sizes of the issue); --keep
leaves the inputs in DIR.
"""
import argparse
import io
import json
import os
import pathlib
import resource
import shutil
import struct
import subprocess
import sys
import tarfile
import tempfile
import time


# ---- Kineto traces ---------------------------------------------------------

def kineto_distinct_kernels(n):
    """n kernels k0..k(n-1), one launch each (item 1)."""
    events = []
    for i in range(n):
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": 10 * i, "dur": 2, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": f"k{i}", "pid": 1, "tid": 7, "ts": 10 * i + 3,
                       "dur": 4, "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    return json.dumps({"traceEvents": events})


def kineto_distinct_devices(n):
    """One kernel name launched once on each of n devices (item 1)."""
    events = []
    for i in range(n):
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": 10 * i, "dur": 2, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 10 * i + 3, "dur": 4,
                       "args": {"correlation": i + 1, "device": i, "stream": 7}})
    return json.dumps({"traceEvents": events})


def kineto_nested_ops(n):
    """n cpu_ops, each inside the one before, each holding one launch (item 2)."""
    events = []
    end = 20 * n + 20
    for i in range(n):
        events.append({"ph": "X", "cat": "cpu_op", "name": f"op{i}", "pid": 1, "tid": 1, "ts": 5 * i,
                       "dur": end - 10 * i})
        events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
                       "ts": 5 * i + 1, "dur": 1, "args": {"correlation": i + 1}})
        events.append({"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 5 * i + 2, "dur": 1,
                       "args": {"correlation": i + 1, "device": 0, "stream": 7}})
    return json.dumps({"traceEvents": events})


def kineto_many_ranks(n):
    """A .tar.gz of n ranks, one kernel each (item 4)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for rank in range(n):
            events = [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10,
                       "dur": 2, "args": {"correlation": 1}},
                      {"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": 13, "dur": 4,
                       "args": {"correlation": 1, "device": 0, "stream": 7}}]
            data = json.dumps({"distributedInfo": {"backend": "nccl", "rank": rank, "world_size": n},
                               "traceEvents": events}).encode()
            info = tarfile.TarInfo(f"rank{rank}.json")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


# ---- nsys stats CSV ----------------------------------------------------------

def nsys_distinct_kernels(n):
    """A cuda_gpu_kern_sum page naming n kernels (item 1)."""
    lines = ["Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"]
    for i in range(n):
        lines.append(f"0.0,{1000 + i},1,{1000 + i}.0,{1000 + i}.0,{1000 + i},{1000 + i},0.0,k{i}")
    return "\n".join(lines) + "\n"


# ---- .ncu-rep (the protobuf wire format, written by hand) ----------------------

# The protobuf field writers of the .ncu-rep benchmark generator (one copy).
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from gen_ncu_rep import bfield, dfield, varint, vfield  # noqa: E402


def ncu_rep(results, session=b""):
    """An .ncu-rep of one block: `results` (ProfileResult messages), a string
    table naming the duration metric, and a session (SessionDetails)."""
    payload = b"".join(struct.pack("<I", len(r)) + r for r in results)
    header = (vfield(1, 0) + vfield(2, len(results)) + bfield(3, session) +
              bfield(4, bfield(1, "gpu__time_duration.sum")) + vfield(5, len(payload)) +
              bfield(6, vfield(1, 42) + bfield(3, "/bin/app")))
    return b"NVR\0" + struct.pack("<I", 2) + vfield(1, 7) + struct.pack("<I", len(header)) + header + payload


def ncu_result(name, rules=b""):
    duration = bfield(13, vfield(1, 0) + bfield(2, dfield(3, 1500.0)))
    return bfield(6, name) + duration + rules


def ncu_many_devices(n):
    """A session listing n devices (item 3)."""
    devices = b"".join(bfield(6, vfield(1, i) + bfield(2, f"GPU {i}")) for i in range(n))
    return ncu_rep([ncu_result("k")], devices)


def ncu_many_messages(n):
    """One result with one rule holding n distinct messages (item 3)."""
    items = b"".join(bfield(1, bfield(1, bfield(1, f"message number {i} of rule R: word{i}x") + vfield(2, 4)))
                     for i in range(n))
    rule = bfield(19, bfield(1, "R") + bfield(3, items) + bfield(4, "SpeedOfLight"))
    return ncu_rep([ncu_result("k", rule)])


# name: (generator, file name, N, binary)
CASES = {
    "kineto_distinct_kernels": (kineto_distinct_kernels, "trace.json", 4000, False),
    "kineto_distinct_devices": (kineto_distinct_devices, "trace.json", 4000, False),
    "kineto_nested_ops": (kineto_nested_ops, "trace.json", 4000, False),
    "kineto_many_ranks": (kineto_many_ranks, "ranks.tar.gz", 500, True),
    "nsys_distinct_kernels": (nsys_distinct_kernels, "cuda_gpu_kern_sum.csv", 8000, False),
    "ncu_rep_many_devices": (ncu_many_devices, "report.ncu-rep", 20000, True),
    "ncu_rep_many_messages": (ncu_many_messages, "report.ncu-rep", 6000, True),
}


def child_cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def import_cpu_seconds(binary, path, out):
    """CPU seconds of one import (the best of two runs), and its wall time."""
    best = None
    for _ in range(2):
        shutil.rmtree(out, ignore_errors=True)
        before, wall = child_cpu_seconds(), time.monotonic()
        proc = subprocess.run([binary, "import", str(path), "--out", str(out), "-q"], capture_output=True, text=True)
        cpu, wall = child_cpu_seconds() - before, time.monotonic() - wall
        if proc.returncode != 0:
            raise SystemExit(f"FAIL: import {path} exited {proc.returncode}: {proc.stderr}")
        best = (cpu, wall) if best is None or cpu < best[0] else best
    return best


def run_case(binary, name, scale, work):
    generate, file_name, n, binary_file = CASES[name]
    n = int(n * scale)
    times = []
    for size in (n, 4 * n):
        folder = work / f"{name}-{size}"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / file_name
        data = generate(size)
        path.write_bytes(data) if binary_file else path.write_text(data)
        times.append(import_cpu_seconds(binary, path, folder / "out"))
    ratio = times[1][0] / max(times[0][0], 1e-3)
    print(f"{name}: N={n}: {times[0][0]:.3f} s CPU ({times[0][1]:.3f} s wall); 4N: {times[1][0]:.3f} s CPU "
          f"({times[1][1]:.3f} s wall); ratio {ratio:.1f}")
    return ratio < 8, ratio


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--case", action="append")
    parser.add_argument("--keep")
    args = parser.parse_args()
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp())
    failed = []
    try:
        for name in args.case or CASES:
            ok, ratio = run_case(os.path.realpath(args.bin), name, args.scale, work)
            if not ok:
                failed.append(f"{name}: 4x the input took {ratio:.1f}x the CPU time (linear: about 4x; limit 8x)")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    for f in failed:
        print("FAIL:", f, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
