#!/usr/bin/env python3
"""Memory in proportion on hostile inputs (issue #35 items 5 and 6).

Each case generates a small hostile file here and imports it, measuring the
import's peak resident memory (ru_maxrss of that one child, from wait4):
the case fails past its bound, which the unbounded readers exceeded many
times over (the issue measured 0.6 to 6 GB).

.ncu-rep (item 5):
  - one 4 KiB metric name named by 250,000 metrics of one result (1 GB of
    names for the launch to copy): refused, exit 3;
  - one 100 kB metric name named by 250,000 metrics: skipped as
    ncu_rep_long_metric_name;
  - 2,000,000 empty metrics in one result (4 MB): refused, exit 3;
  - a string table of 2,000,000 empty strings (4 MB): refused, exit 3;
  - a block header declaring 4 GiB in a sparse 4 GiB file: refused, exit 3,
    without reading it.
Kineto (item 6), .json.gz of a few hundred kB:
  - a 200 MiB kernel name: kept to 64 KiB, counted as kineto_text_cut;
  - a 200 MiB pid string: the same;
  - a 200 MiB key, and a skipped 200 MiB number in args: cost nothing.

  hostile_memory_test.py BIN [--keep DIR] [--scale S]
"""
import argparse
import gzip
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "bench"))
from gen_ncu_rep import bfield, dfield, vfield  # noqa: E402

FAILURES = []
MIB = 1 << 20


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


# Runs the import from a small Python process of its own: a child forked
# from this test would count this process's memory (the generated inputs)
# in its peak, which survives the exec.
MEASURE = """
import os, sys
pid = os.fork()
if pid == 0:
    os.execv(sys.argv[1], sys.argv[1:])
_, status, usage = os.wait4(pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""


def measured_import(binary, path, out):
    """Exit code, stderr and peak RSS (MiB) of one import."""
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([sys.executable, "-c", MEASURE, binary, "import", str(path), "--out", str(out), "-q"],
                          capture_output=True, text=True, errors="replace")
    rc, rss_kib = proc.stdout.split()
    return int(rc), proc.stderr, int(rss_kib) / 1024


def diagnostics(out):
    entries = json.loads((out / "kernels.json").read_text())["diagnostics"]["entries"]
    return {e["code"]: e for e in entries}


# ---- .ncu-rep -------------------------------------------------------------

def ncu_rep(strings, results, header_extra=b""):
    payload = b"".join(struct.pack("<I", len(r)) + r for r in results)
    table = b"".join(bfield(1, s) for s in strings)
    header = (vfield(1, 0) + vfield(2, len(results)) + bfield(4, table) + vfield(5, len(payload)) +
              bfield(6, vfield(1, 42) + bfield(3, "/bin/app")) + header_extra)
    return b"NVR\0" + struct.pack("<I", 2) + vfield(1, 7) + struct.pack("<I", len(header)) + header + payload


def duration_metric(name_id, value=1500.0):
    return bfield(13, vfield(1, name_id) + bfield(2, dfield(3, value)))


def one_name_many_metrics(name_bytes, n):
    """String 1 is a long name; the result names it in n metrics."""
    result = bfield(6, "k") + duration_metric(0) + duration_metric(1, 1.0) * n
    return ncu_rep(["gpu__time_duration.sum", "m" * name_bytes], [result])


def empty_metrics(n):
    return ncu_rep(["gpu__time_duration.sum"], [bfield(6, "k") + duration_metric(0) + bfield(13, b"") * n])


def empty_strings(n):
    return ncu_rep(["gpu__time_duration.sum"] + [""] * n, [bfield(6, "k") + duration_metric(0)])


def ncu_cases(binary, work, scale):
    n = int(250_000 * scale)
    # A 100 kB name is skipped wherever it is named; a 4 KiB one is kept once
    # in the reader, but the launch would copy it 250,000 times (1 GB): past
    # the file's budget of metric names, refused.
    for what, name_bytes in (("a 100 kB name", 100_000), ("a 4 KiB name", 4096)):
        path = work / f"names{name_bytes}.ncu-rep"
        path.write_bytes(one_name_many_metrics(name_bytes, n))
        out = work / f"out-names{name_bytes}"
        rc, err, rss = measured_import(binary, path, out)
        print(f"ncu-rep, {what} in {n} metrics ({path.stat().st_size} bytes): exit {rc}, {rss:.0f} MiB")
        check(rss < 200, f"ncu-rep {what}: peak RSS {rss:.0f} MiB (bound 200)")
        if name_bytes > 4096:
            check(rc == 0, f"ncu-rep {what}: exit {rc}: {err[-400:]}")
            count = diagnostics(out).get("ncu_rep_long_metric_name", {}).get("count") if rc == 0 else None
            check(count == n, f"ncu-rep {what}: ncu_rep_long_metric_name counted {count}, want {n}")
        else:
            check(rc == 3 and "past the limit" in err and "metric names" in err, f"ncu-rep {what}: exit {rc}: {err[-400:]}")
    for what, data, words in (("2,000,000 empty metrics", empty_metrics(2_000_000), "metric values"),
                              ("2,000,000 empty strings", empty_strings(2_000_000), "strings")):
        path = work / "refused.ncu-rep"
        path.write_bytes(data)
        rc, err, rss = measured_import(binary, path, work / "out-refused")
        print(f"ncu-rep, {what} ({len(data)} bytes): exit {rc}, {rss:.0f} MiB")
        check(rc == 3 and "past the limit" in err and words in err, f"ncu-rep {what}: exit {rc}: {err[-400:]}")
        check(rss < 120, f"ncu-rep {what}: peak RSS {rss:.0f} MiB (bound 120)")
    # A block header of 4 GiB - 16 bytes, in a sparse file that long.
    path = work / "sparse.ncu-rep"
    with open(path, "wb") as f:
        f.write(b"NVR\0" + struct.pack("<I", 2) + vfield(1, 7) + struct.pack("<I", (4 << 30) - 16))
        f.truncate((4 << 30) + 64)
    rc, err, rss = measured_import(binary, path, work / "out-sparse")
    path.unlink()
    print(f"ncu-rep, a 4 GiB block header in a sparse file: exit {rc}, {rss:.0f} MiB")
    check(rc == 3 and "declares a header of" in err, f"ncu-rep sparse header: exit {rc}: {err[-400:]}")
    check(rss < 120, f"ncu-rep sparse header: peak RSS {rss:.0f} MiB (bound 120)")


# ---- Kineto ---------------------------------------------------------------

def gz_trace(path, before, filler, repeat, after):
    """A .json.gz: `before`, then `filler` (1 MiB) `repeat` times, then `after`."""
    with gzip.open(path, "wb", compresslevel=6) as z:
        z.write(before.encode())
        for _ in range(repeat):
            z.write(filler)
        z.write(after.encode())


LAUNCH = ('{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 10, "dur": 2, '
          '"args": {"correlation": 1}}')


def kineto_cases(binary, work, scale):
    mib = int(200 * scale)
    kernel_head = '{"traceEvents": [' + LAUNCH + ', {"ph": "X", "cat": "kernel", "pid": 1, "tid": 7, "ts": 13, '
    kernel_args = '"dur": 4, "args": {"correlation": 1, "device": 0, "stream": 7}}'
    cases = [
        ("a 200 MiB kernel name", kernel_head + '"name": "', b"n" * MIB, '", ' + kernel_args + "]}", "name"),
        ("a 200 MiB pid", '{"traceEvents": [{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": "',
         b"7" * MIB, '", "tid": 1, "ts": 10, "dur": 2, "args": {"correlation": 1}}, {"ph": "X", "cat": "kernel", '
         '"name": "k", "pid": 1, "tid": 7, "ts": 13, ' + kernel_args + "]}", "pid"),
        ("a 200 MiB key", kernel_head + '"name": "k", "', b"q" * MIB, '": 1, ' + kernel_args + "]}", None),
        ("a skipped 200 MiB number in args", kernel_head + '"name": "k", "dur": 4, "args": {"big": 1',
         b"0" * MIB, ', "correlation": 1, "device": 0, "stream": 7}}]}', None),
    ]
    for what, before, filler, after, cut in cases:
        path = work / "big.json.gz"
        gz_trace(path, before, filler, mib, after)
        out = work / "out-kineto"
        rc, err, rss = measured_import(binary, path, out)
        print(f"Kineto, {what} ({path.stat().st_size} bytes compressed): exit {rc}, {rss:.0f} MiB")
        check(rc == 0, f"Kineto {what}: exit {rc}: {err[-400:]}")
        check(rss < 200, f"Kineto {what}: peak RSS {rss:.0f} MiB (bound 200)")
        if rc != 0:
            continue
        codes = diagnostics(out)
        if cut:
            check(codes.get("kineto_text_cut", {}).get("count") == 1, f"Kineto {what}: diagnostics {sorted(codes)}")
        else:
            check("kineto_text_cut" not in codes, f"Kineto {what}: a skipped value was counted as cut")
        names = [k["name"] for k in json.loads((out / "kernels.json").read_text())["kernels"]]
        check(len(names) == 1 and len(names[0].encode()) <= 65536, f"Kineto {what}: kernels {[n[:20] for n in names]}")


def kineto_cut_on_character(binary, work):
    """A name whose 64 KiB boundary falls inside a two-byte character: cut before it."""
    name = "a" * 65535 + "\u00e9" + "b" * 10
    path = work / "boundary.json"
    path.write_text('{"traceEvents": [' + LAUNCH + ', {"ph": "X", "cat": "kernel", "pid": 1, "tid": 7, "ts": 13, '
                    '"name": "' + name + '", "dur": 4, "args": {"correlation": 1, "device": 0, "stream": 7}}]}',
                    encoding="utf-8")
    out = work / "out-boundary"
    rc, err, _ = measured_import(binary, path, out)
    check(rc == 0, f"Kineto cut on a character: exit {rc}: {err[-400:]}")
    if rc == 0:
        names = [k["name"] for k in json.loads((out / "kernels.json").read_text())["kernels"]]
        check(names == ["a" * 65535], f"Kineto cut on a character: kernel names of {[len(n) for n in names]} chars")
        check(diagnostics(out).get("kineto_text_cut", {}).get("count") == 1, "Kineto cut on a character: not counted")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--keep")
    parser.add_argument("--scale", type=float, default=1.0)
    args = parser.parse_args()
    binary = os.path.realpath(args.bin)
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    try:
        ncu_cases(binary, work, args.scale)
        kineto_cases(binary, work, args.scale)
        kineto_cut_on_character(binary, work)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print("hostile_memory:", "FAILED" if FAILURES else "ok")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
