#!/usr/bin/env python3
"""Writes the hostile seeds of issue #35 into fuzz/corpus/ (small versions of
the inputs tests/cli/hostile_*_test.py generate at full size), so the
importer fuzzer starts from them:

  ncu_report/    a long metric name named by many metrics, empty metrics,
                 empty strings, a block header declaring 4 GiB in a short file
  kineto_trace/  escapes after unpaired surrogates, a long skipped number, a
                 trace.json.gz of spaces, a .tar.gz of two ranks (one .json.gz)
  llmpo_trace/   a trace cut before its end marker, an exec'd trace (two
                 headers), names that are not UTF-8

  python3 fuzz/make_hostile_seeds.py     (rewrites the hostile_* seeds)
"""
import gzip
import io
import pathlib
import struct
import sys
import tarfile

ROOT = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "bench"))
from gen_ncu_rep import bfield, dfield, vfield  # noqa: E402


def ncu_rep(strings, results, header_size=None):
    payload = b"".join(struct.pack("<I", len(r)) + r for r in results)
    header = (vfield(1, 0) + vfield(2, len(results)) + bfield(4, b"".join(bfield(1, s) for s in strings)) +
              vfield(5, len(payload)) + bfield(6, vfield(1, 42) + bfield(3, "/bin/app")))
    size = len(header) if header_size is None else header_size
    return b"NVR\0" + struct.pack("<I", 2) + vfield(1, 7) + struct.pack("<I", size) + header + payload


def metric(name_id, value=1.0):
    return bfield(13, vfield(1, name_id) + bfield(2, dfield(3, value)))


LAUNCH = ('{{"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": {ts}, '
          '"dur": 2, "args": {{"correlation": {i}}}}}, {{"ph": "X", "cat": "kernel", "name": {name}, "pid": 1, '
          '"tid": 7, "ts": {end}, "dur": 4, "args": {{"correlation": {i}, "device": 0, "stream": 7{extra}}}}}')


def kineto(names, extra="", rank=None):
    events = [LAUNCH.format(ts=10 * i, end=10 * i + 3, i=i + 1, name=n, extra=extra) for i, n in enumerate(names)]
    info = f'"distributedInfo": {{"rank": {rank}, "world_size": 2}}, ' if rank is not None else ""
    return ("{" + info + '"traceEvents": [' + ", ".join(events) + "]}").encode()


def gz(data):
    return gzip.compress(data, mtime=0)


def tar_gz(members):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def main():
    result = bfield(6, "k") + metric(0, 1500.0)
    seeds = {
        "ncu_report/hostile_long_name.ncu-rep":
            ncu_rep(["gpu__time_duration.sum", "m" * 5000], [result + metric(1) * 200]),
        "ncu_report/hostile_empty_metrics.ncu-rep":
            ncu_rep(["gpu__time_duration.sum"], [result + bfield(13, b"") * 2000]),
        "ncu_report/hostile_empty_strings.ncu-rep": ncu_rep(["gpu__time_duration.sum"] + [""] * 2000, [result]),
        "ncu_report/hostile_huge_header.ncu-rep": ncu_rep(["gpu__time_duration.sum"], [result], (4 << 30) - 16),
        "kineto_trace/hostile_escapes.json":
            kineto([r'"a\ud800\"b"', r'"c\ud800\n"', r'"d\ud800 \udc00"', r'"e\ud83d\ude00"', '"k\xff"']),
        "kineto_trace/hostile_long_number.json": kineto(['"k"'], extra=', "big": 1' + "0" * 8000),
        "kineto_trace/hostile_spaces.json.gz":
            gz(b'{"traceEvents": [' + b" " * (8 << 20) + kineto(['"k"'])[len(b'{"traceEvents": ['):]),
        "kineto_trace/hostile_ranks.tar.gz":
            tar_gz([("rank0_\u00e9.json", kineto(['"k0"'], rank=0)), ("rank1.json.gz", gz(kineto(['"k1"'], rank=1)))]),
        "llmpo_trace/hostile_cut.tsv":
            b"#llmpo-trace 1\nP\t42\tapp\tCLOCK_MONOTONIC\thost\t\nR\t42\t0\t0\t1000\t9000\tstep\n",
        "llmpo_trace/hostile_exec.tsv":
            b"#llmpo-trace 1\nP\t42\told\tCLOCK_MONOTONIC\thost\t\nR\t42\t0\t0\t1000\t2000\tpre\n"
            b"#llmpo-trace 1\nP\t42\tnew\tCLOCK_MONOTONIC\thost\t\nR\t42\t0\t0\t3000\t4000\tpost\nE\t5000\texit\n",
        "llmpo_trace/hostile_latin1.tsv":
            b"#llmpo-trace 1\nP\t42\tapp\xe9\nT\t42\tmain\nR\t42\t0\t0\t1000\t9000\tr\xe9gion\n"
            b"K\t0\t1\t7\t7\t2000\t3000\t1,1,1\t32,1,1\tk\xff\nE\t10000\texit\n",
    }
    for name, data in seeds.items():
        (ROOT / "corpus" / name).write_bytes(data)
        print(f"{name}: {len(data)} bytes")


if __name__ == "__main__":
    main()
