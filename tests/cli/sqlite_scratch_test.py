#!/usr/bin/env python3
"""The nsys SQLite import keeps SQLite's temporary files (large sorts and
automatic indexes, which it unlinks as soon as it opens them) inside the
output folder, never in /var/tmp: nothing is written outside the output
folder. Seen through strace on a generated export with a CUDA API table
(bench/gen_nsys_sqlite.py --runtime: 100k kernels and 100k NVTX ranges),
whose NVTX queries sort the ranges by start and by thread and start (large
enough to spill; the CUDA API calls are summed without a sort).

    sqlite_scratch_test.py LLM_PERF_OPT
Exit 77 (skip) without strace.
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def main():
    binary = sys.argv[1]
    strace = shutil.which("strace")
    if not strace:
        print("SKIP: strace is not installed (Debian: strace)")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        export = os.path.join(tmp, "rt.sqlite")
        subprocess.run([sys.executable, os.path.join(ROOT, "bench", "gen_nsys_sqlite.py"), "--kernels", "100000",
                        "--ranges", "100000", "--runtime", "--out", export], check=True, stderr=subprocess.DEVNULL)
        out = os.path.join(tmp, "out")
        log = os.path.join(tmp, "strace.log")
        run = subprocess.run([strace, "-f", "-e", "trace=openat,open,creat", "-o", log, binary, "import", export,
                              "--out", out, "-q"], capture_output=True, text=True)
        if run.returncode != 0:
            print(f"FAIL: import exited {run.returncode}: {run.stderr[-2000:]}")
            return 1
        created = []
        with open(log) as f:
            for line in f:
                m = re.search(r'open(?:at)?\((?:AT_FDCWD, )?"([^"]+)", [^)]*O_CREAT', line)
                if m and not line.rstrip().endswith(("ENOENT (No such file or directory)",)):
                    created.append(os.path.realpath(m.group(1)) if not os.path.isabs(m.group(1)) else m.group(1))
        temp = [p for p in created if os.path.basename(p).startswith("etilqs_")]
        outside = [p for p in created if not os.path.realpath(p).startswith(os.path.realpath(out) + os.sep)]
        print(f"files created: {len(created)}, SQLite temporary files: {len(temp)}, outside the output folder: "
              f"{outside[:5]}")
        if not temp:
            print("FAIL: no SQLite temporary file was seen; the export no longer makes SQLite spill, so this test "
                  "checks nothing (make the generated export larger)")
            return 1
        if outside:
            print("FAIL: files created outside the output folder")
            return 1
        leftovers = [n for n in os.listdir(out) if n.startswith("etilqs_")]
        if leftovers:
            print(f"FAIL: SQLite temporary files left in the output folder: {leftovers}")
            return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
