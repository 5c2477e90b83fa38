#!/usr/bin/env python3
"""Hostile inputs and faults, by outcome (issue #35 items 8 to 13 and 17):
each case generates its input here and checks the import's exit code,
diagnostics and reports.

  hostile_outcome_test.py BIN [--keep DIR]

 8  a kernel with ts and dur of 9e15 us (its end overflows 64 bits): skipped,
    counted as kineto_time_out_of_range; busy and idle stay the other kernels'
 9  JSON escapes after an unpaired high surrogate (\\ud800\\", \\ud800\\n,
    \\ud800 \\udc00): decoded as JSON says, every later event kept
10  names that are not UTF-8 (Kineto, our tracer's trace): every file written
    is UTF-8, the bytes counted as invalid_utf8
11  a pax tar (Python's default) with non-ASCII member names: every rank read
12  two rank files whose pid and tid coincide: each rank keeps its launch
    overhead rows
13  a trace whose "traceEvents" comes after 64 KiB of deviceProperties: read
17  regions/ and the other report folders: 0755 under umask 022
15  `report RUN_DIR` with a FIFO as trace/trace.PID.tsv or env.json, or a link
    to /dev/zero as config.yaml: exit 3 naming the file, never a hang
 4  a trace with 1,000 streams: report.html draws the 64 busiest timeline
    rows and says how many it left out; its size does not grow with them
 7  a gzip bomb (a small .json.gz of millions of spaces, alone or in a tar;
    a .tar.gz of a trace of spaces, or with a large member that is not a
    trace): refused with exit 3 naming the limit and LLMPO_MAX_INFLATED_BYTES
"""
import argparse
import base64
import gzip
import io
import json
import os
import pathlib
import shutil
import stat
import subprocess
import sys
import tarfile
import tempfile

FAILURES = []


def check(ok, what):
    if not ok:
        FAILURES.append(what)
        print("FAIL:", what, file=sys.stderr)


def launch(i, name, ts, dur=4, pid=1, tid=1, device=0, name_is_json=False):
    """A cudaLaunchKernel call and the kernel it launched, as JSON text."""
    kernel_name = name if name_is_json else json.dumps(name)
    return (f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": {pid}, "tid": {tid}, '
            f'"ts": {ts}, "dur": 2, "args": {{"correlation": {i}}}}},\n'
            f'{{"ph": "X", "cat": "kernel", "name": {kernel_name}, "pid": {pid}, "tid": 7, "ts": {ts + 3}, '
            f'"dur": {dur}, "args": {{"correlation": {i}, "device": {device}, "stream": 7}}}}')


def trace(events, head="", rank=None):
    info = f'"distributedInfo": {{"backend": "nccl", "rank": {rank}, "world_size": 2}},\n' if rank is not None else ""
    return "{" + head + info + '"traceEvents": [\n' + ",\n".join(events) + "\n]}\n"


def run_import(binary, inputs, out):
    shutil.rmtree(out, ignore_errors=True)
    proc = subprocess.run([binary, "import", *map(str, inputs), "--out", str(out)], capture_output=True)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def diagnostics(out):
    entries = json.loads((out / "kernels.json").read_text())["diagnostics"]["entries"]
    return {e["code"]: e for e in entries}


def kernel_names(out):
    return sorted(k["name"] for k in json.loads((out / "kernels.json").read_text())["kernels"])


def item8_time_overflow(binary, work):
    path = work / "overflow.json"
    path.write_text(trace([launch(1, "ok", 10), launch(2, "huge", 9000000000000000, dur=9000000000000000),
                           launch(3, "ok", 30)]))
    rc, err = run_import(binary, [path], work / "out8")
    check(rc == 0, f"item 8: exit {rc}: {err}")
    codes = diagnostics(work / "out8")
    # the kernel and its launch call (at the same ts) are both past the range
    check(codes.get("kineto_time_out_of_range", {}).get("count") == 2, f"item 8: diagnostics {codes}")
    device = json.loads((work / "out8/gpu_breakdown.json").read_text())["devices"][0]
    check(device["kernels"] == 2 and abs(device["busy_ms"] - 0.008) < 1e-9 and abs(device["idle_ms"] - 0.016) < 1e-9,
          f"item 8: busy {device['busy_ms']} ms, idle {device['idle_ms']} ms, {device['kernels']} kernels")


def item9_escapes(binary, work):
    names = [r'"a\ud800\"b"', r'"c\ud800\n"', r'"d\ud800 \udc00"', r'"e\ud800\u0041"', r'"f\ud83d\ude00"']
    events = [launch(i + 1, n, 10 * i, name_is_json=True) for i, n in enumerate(names)]
    events.append(launch(len(names) + 1, "last", 100))
    path = work / "escapes.json"
    path.write_text(trace(events))
    rc, err = run_import(binary, [path], work / "out9")
    check(rc == 0, f"item 9: exit {rc}: {err}")
    if rc != 0:
        return
    want = sorted(["a\ufffd\"b", "c\ufffd\n", "d\ufffd \ufffd", "e\ufffdA", "f\U0001F600", "last"])
    check(kernel_names(work / "out9") == want, f"item 9: names {kernel_names(work / 'out9')!r}, want {want!r}")
    check("kineto_json_error" not in diagnostics(work / "out9"), "item 9: a JSON error was reported")


def all_text_is_utf8(out):
    bad = []
    for f in sorted(p for p in out.rglob("*") if p.is_file()):
        try:
            f.read_bytes().decode("utf-8")
        except UnicodeDecodeError as e:
            bad.append(f"{f.relative_to(out)}: {e}")
    return bad


def item10_invalid_utf8(binary, work):
    kineto = work / "latin1.json"
    events = [
        b'{"ph": "X", "cat": "user_annotation", "name": "r\xe9gion", "pid": 1, "tid": 1, "ts": 0, "dur": 100}',
        launch(1, "k", 10).encode().replace(b'"k"', b'"k\xff\xfe"'),
    ]
    kineto.write_bytes(b'{"traceEvents": [\n' + b",\n".join(events) + b"\n]}\n")
    rc, err = run_import(binary, [kineto], work / "out10k")
    check(rc == 0, f"item 10 (Kineto): exit {rc}: {err}")
    check(all_text_is_utf8(work / "out10k") == [], f"item 10 (Kineto): {all_text_is_utf8(work / 'out10k')}")
    check(diagnostics(work / "out10k").get("invalid_utf8", {}).get("count", 0) >= 1,
          "item 10 (Kineto): no invalid_utf8 diagnostic")
    check("k\ufffd\ufffd" in kernel_names(work / "out10k"), f"item 10 (Kineto): {kernel_names(work / 'out10k')!r}")
    ours = work / "latin1.tsv"
    lines = [b"#llmpo-trace 1", b"P\t42\tapp\xe9", b"D\t1\tdom\xff", b"T\t42\tmain",
             b"R\t42\t1\t0\t1000\t9000\tr\xe9gion", b"A\t42\t7\t1500\t1800\truntime\t211",
             b"K\t0\t1\t7\t7\t2000\t3000\t1,1,1\t32,1,1\tk\xff", b"G", b"E"]
    ours.write_bytes(b"\n".join(lines) + b"\n")
    rc, err = run_import(binary, [ours], work / "out10t")
    check(rc == 0, f"item 10 (trace): exit {rc}: {err}")
    check(all_text_is_utf8(work / "out10t") == [], f"item 10 (trace): {all_text_is_utf8(work / 'out10t')}")
    check(diagnostics(work / "out10t").get("invalid_utf8", {}).get("count", 0) >= 1,
          "item 10 (trace): no invalid_utf8 diagnostic")


def item11_pax_names(binary, work):
    path = work / "ranks.tar"
    with tarfile.open(path, "w", format=tarfile.PAX_FORMAT) as tar:
        for rank, name in enumerate(["rank0_é.json", "rank1_日本.json", "rank2_ü.json"]):
            data = trace([launch(1, f"k{rank}", 10)], rank=rank).encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    rc, err = run_import(binary, [path], work / "out11")
    check(rc == 0, f"item 11: exit {rc}: {err}")
    devices = json.loads((work / "out11/gpu_breakdown.json").read_text())["devices"]
    check(sorted(d["rank"] for d in devices) == [0, 1, 2], f"item 11: ranks {[d['rank'] for d in devices]}")
    check("kineto_json_error" not in diagnostics(work / "out11"), "item 11: the archive was called damaged")


def item12_same_pid_two_ranks(binary, work):
    inputs = []
    for rank in (0, 1):
        path = work / f"rank{rank}.json"
        path.write_text(trace([launch(1, "k", 10, pid=1, tid=1), launch(2, "k", 20, pid=1, tid=1)], rank=rank))
        inputs.append(path)
    rc, err = run_import(binary, inputs, work / "out12")
    check(rc == 0, f"item 12: exit {rc}: {err}")
    report = json.loads((work / "out12/kernels.json").read_text())
    ranks = sorted(r["process_identity"]["rank"] for r in report["launch_overhead"])
    check(ranks == [0, 1], f"item 12: launch overhead rows of ranks {ranks}")
    notes = " ".join(report["diagnostics"]["notes"])
    check("launch overhead row(s)" not in notes, f"item 12: {notes}")


def item13_late_trace_events(binary, work):
    properties = [{"id": i, "name": f"GPU {i}", "totalGlobalMem": 85000000000, "computeMajor": 9,
                   "computeMinor": 0, "maxThreadsPerBlock": 1024, "numSms": 132} for i in range(1000)]
    head = '"deviceProperties": ' + json.dumps(properties) + ",\n"
    path = work / "late.json"
    path.write_text(trace([launch(1, "k", 10)], head=head))
    check(path.read_text().find('"traceEvents"') > 65536, "item 13: the generator put traceEvents too early")
    rc, err = run_import(binary, [path], work / "out13")
    check(rc == 0, f"item 13: exit {rc}: {err}")
    check(rc != 0 or kernel_names(work / "out13") == ["k"], "item 13: kernels")


def item17_folder_modes(binary, work):
    path = work / "regions.json"
    events = ['{"ph": "X", "cat": "user_annotation", "name": "step", "pid": 1, "tid": 1, "ts": 0, "dur": 100}',
              launch(1, "k", 10)]
    path.write_text(trace(events))
    old = os.umask(0o022)
    try:
        rc, err = run_import(binary, [path], work / "out17")
    finally:
        os.umask(old)
    check(rc == 0, f"item 17: exit {rc}: {err}")
    folders = [work / "out17"] + [p for p in (work / "out17").rglob("*") if p.is_dir()]
    check(any(p.name == "regions" for p in folders), "item 17: no regions folder")
    for folder in folders:
        mode = stat.S_IMODE(folder.stat().st_mode)
        check(mode == 0o755, f"item 17: {folder.relative_to(work)} has mode {oct(mode)}")


def run_report(binary, run_dir):
    """`report RUN_DIR` under a timeout: a hang fails the test instead of blocking it."""
    try:
        proc = subprocess.run([binary, "report", str(run_dir)], capture_output=True, timeout=60)
    except subprocess.TimeoutExpired:
        return None, "timed out (blocked on a planted file)"
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def trace_run_folder(run_dir):
    """A minimal run folder of `trace`: run.json, config.yaml, inputs.yaml, env.json, one trace."""
    (run_dir / "trace").mkdir(parents=True)
    steps = [{"name": n, "status": "ok"} for n in ("trace", "trace-summaries")]
    (run_dir / "run.json").write_text(json.dumps({"schema_version": "1", "status": "ok", "steps": steps}))
    (run_dir / "config.yaml").write_text("pipeline: {}\n")
    (run_dir / "inputs.yaml").write_text("workload:\n  argv: [app]\n")
    (run_dir / "env.json").write_text('{"gpu": null}\n')
    lines = ["#llmpo-trace 1", "P\t42\tapp", "T\t42\tmain", "R\t42\t0\t0\t1000\t9000\tstep",
             "A\t42\t7\t1500\t1800\truntime\t211", "K\t0\t1\t7\t7\t2000\t3000\t1,1,1\t32,1,1\tk", "G", "E"]
    (run_dir / "trace" / "trace.42.tsv").write_text("\n".join(lines) + "\n")


def item15_report_reads_regular_files(binary, work):
    base = work / "run15"
    trace_run_folder(base)
    rc, err = run_report(binary, base)
    check(rc == 0, f"item 15: the hand-made run folder: exit {rc}: {err}")
    plants = [("FIFO trace", "trace/trace.43.tsv", lambda p: os.mkfifo(p)),
              ("FIFO env.json", "env.json", lambda p: os.mkfifo(p)),
              ("/dev/zero config.yaml", "config.yaml", lambda p: os.symlink("/dev/zero", p)),
              ("FIFO inputs.yaml", "inputs.yaml", lambda p: os.mkfifo(p))]
    for what, name, plant in plants:
        run_dir = work / f"run15-{name.replace('/', '-')}"
        shutil.rmtree(run_dir, ignore_errors=True)
        trace_run_folder(run_dir)
        (run_dir / name).unlink(missing_ok=True)
        plant(run_dir / name)
        rc, err = run_report(binary, run_dir)
        check(rc == 3 and name in err and "not a regular file" in err, f"item 15 ({what}): exit {rc}: {err}")


def spread_trace(streams):
    """One kernel on each of `streams` streams of one device, busier on higher streams."""
    events = []
    for i in range(streams):
        ts = 10 + 20 * i
        events.append(f'{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, '
                      f'"ts": {ts}, "dur": 2, "args": {{"correlation": {i}}}}}')
        events.append(f'{{"ph": "X", "cat": "kernel", "name": "k", "pid": 1, "tid": 7, "ts": {ts + 3}, '
                      f'"dur": {1 + i % 10}, "args": {{"correlation": {i}, "device": 0, "stream": {i}}}}}')
    return trace(events)


def item4_timeline_rows_capped(binary, work):
    sizes = {}
    for streams in (100, 1000):
        path = work / f"streams{streams}.json"
        path.write_text(spread_trace(streams))
        out = work / f"out4-{streams}"
        rc, err = run_import(binary, [path], out)
        check(rc == 0, f"item 4 ({streams} streams): exit {rc}: {err}")
        page = (out / "report.html").read_text()
        sizes[streams] = len(page.encode())
        check(f"{streams - 64} more rows" in page and "kernels.json have them all" in page,
              f"item 4 ({streams} streams): no note of the rows left out")
        drawn = page.count('<g class="row">')
        check(drawn == 64, f"item 4 ({streams} streams): {drawn} rows drawn")
        timeline = json.loads((out / "report_set.json").read_text())["timeline"]
        check(len(timeline["rows"]) == 64 and timeline["rows_left_out"] == streams - 64,
              f"item 4 ({streams} streams): report_set.json has {len(timeline['rows'])} rows")
        kernel = json.loads((out / "kernels.json").read_text())["kernels"][0]
        check(kernel["calls"] == streams, f"item 4 ({streams} streams): kernels.json counts {kernel['calls']} calls")
    # Ten times the streams: the page stays within a quarter of its size.
    check(sizes[1000] < sizes[100] * 1.25, f"item 4: report.html grows from {sizes[100]} to {sizes[1000]} bytes")


def spaces_trace_gz(spaces):
    """A Kineto trace with one kernel after `spaces` spaces, gzip-compressed (about 1000:1)."""
    body = trace([launch(1, "k", 10)])
    head, tail = body.split("[", 1)
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as z:
        z.write((head + "[").encode())
        chunk = b" " * (1 << 20)
        for _ in range(spaces >> 20):
            z.write(chunk)
        z.write(tail.encode())
    return buffer.getvalue()


def import_with_limit(binary, inputs, out, limit):
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ)
    env.pop("LLMPO_MAX_INFLATED_BYTES", None)
    if limit is not None:
        env["LLMPO_MAX_INFLATED_BYTES"] = str(limit)
    proc = subprocess.run([binary, "import", *map(str, inputs), "--out", str(out)], capture_output=True, env=env)
    return proc.returncode, proc.stderr.decode("utf-8", "replace")


def item7_gzip_bomb(binary, work):
    data = spaces_trace_gz(32 << 20)
    path = work / "bomb.json.gz"
    path.write_bytes(data)
    archive = work / "bomb.tar"
    with tarfile.open(archive, "w") as tar:
        info = tarfile.TarInfo("rank0.json.gz")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    # A .tar.gz, which libarchive inflates: a plain .json member of 32 MiB of
    # spaces, or a small trace and a 32 MiB member that is not a trace.
    spaces = gzip.decompress(data)
    small = trace([launch(1, "k", 10)]).encode()
    tar_gz = {}
    for name, members in (("spaces", [("rank0.json", spaces)]),
                          ("padding", [("rank0.json", small), ("pad.bin", bytes(32 << 20))])):
        tar_gz[name] = work / f"bomb-{name}.tar.gz"
        with tarfile.open(tar_gz[name], "w:gz") as tar:
            for member, content in members:
                info = tarfile.TarInfo(member)
                info.size = len(content)
                tar.addfile(info, io.BytesIO(content))
    for what, source in (("a .json.gz", path), ("a .json.gz in a tar", archive),
                         ("a .tar.gz of a trace of spaces", tar_gz["spaces"]),
                         ("a .tar.gz with a 32 MiB member that is not a trace", tar_gz["padding"])):
        rc, err = import_with_limit(binary, [source], work / "out7", None)
        check(rc == 0, f"item 7 ({what}, default limit): exit {rc}: {err}")
        rc, err = import_with_limit(binary, [source], work / "out7", 4 << 20)
        check(rc == 3 and "inflates past 4194304 bytes" in err and "LLMPO_MAX_INFLATED_BYTES" in err,
              f"item 7 ({what}, limit 4 MiB): exit {rc}: {err}")


# A .tar.gz cut inside its first tar header, found by importer_fuzzer from the
# hostile_ranks.tar.gz seed: libarchive cannot open it and gives no message
# (a null string, which made the import fail with "internal error").
CUT_TAR_GZ = (
    "H4sIABloB2sC/9PT19N3CEis8EhNTEktYqAJMIAAXLSBgZEZgg0SNzQwMjRmUKhgoAMoLS5JLAJazzAygZGRQkFiSYZtUWJetkH8"
    "4ZV6WcX5eVwMo2CEAEi824OjnVZ2gDK1mYkJzvxvaoiR/w1B+d9gNP/THFQrpWQWlxRlJpWWpKZ45qXlK1kpVCuBUgWQYaCjoFSe"
    "X5STEl+cWZUKFDCqBYqUFCUmp7qWpeaVFAOFoquVCjKAtFKEElAuObEExE4uTUmMLyrNK8nMTQUJ5yXmpsLEfRJL85IzvFOL8lJz"
    "QHIFmSlAKUOQwQhWMdT2lNIikLVAVmJRejHYbcn5RUWpOYklmfl5INW1QCdhc0I23AKY5dkG2Kwzh1lnDLfOBI91IEWpZZnJqVAH"
    "AsMuNTEXZE5tbWzt0Mz/huDcr5deNUD539jAFKP+Nzcczf/0APLdHGCaibl2wkGuQwY8bfGuVd8ehAjsqRaoZXBMOWK2a5OubKT1"
    "wYvl5lNz49qW1/3h/Fl3Szs5+vw3OZtZyrZzbulXHXVY6rAtZsX0x6eerK1dzPJaozP9QsWLCTXaF7eG+yqu36UxM/NDZ6nBhGKF"
    "/GwfQ8fe5Lo2h10WisJhmdcijFf86b/0dGoD55wtTgfOf7vta5225kC0e6a119KdXE9VJJ6mmi2/3bvr7JLb/y4uVX2z5tjCBX9k"
    "nea+O1LRLf/6phKHH+NoJT4KRsEoGAWjYBSMglEwCkbBKBgFo2AUjIJRMApGwSgYBTc5m1nKtnNu6VcddVjqAADN251VACgAAA==")


def fuzz_cut_tar_gz(binary, work):
    path = work / "cut.tar.gz"
    path.write_bytes(base64.b64decode(CUT_TAR_GZ))
    rc, err = run_import(binary, [path], work / "out-cut")
    check(rc == 3 and "cannot read the archive" in err, f"cut .tar.gz: exit {rc}: {err}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("bin")
    parser.add_argument("--keep")
    args = parser.parse_args()
    binary = os.path.realpath(args.bin)
    work = pathlib.Path(args.keep) if args.keep else pathlib.Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)
    try:
        for case in (item8_time_overflow, item9_escapes, item10_invalid_utf8, item11_pax_names,
                     item12_same_pid_two_ranks, item13_late_trace_events, item17_folder_modes,
                     item15_report_reads_regular_files, item4_timeline_rows_capped, item7_gzip_bomb, fuzz_cut_tar_gz):
            before = len(FAILURES)
            try:
                case(binary, work)
            except (OSError, ValueError, KeyError, IndexError) as e:  # a report missing or not as expected
                check(False, f"{case.__name__}: {type(e).__name__}: {e}")
            print(f"{case.__name__}: {'ok' if len(FAILURES) == before else 'FAILED'}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
