#!/usr/bin/env python3
"""The nsys SQLite import keeps SQLite's temporary files (large sorts and
automatic indexes, which it unlinks as soon as it opens them) inside the
output folder, never in /var/tmp: nothing is written outside the output
folder. Seen through strace on a generated export with a CUDA API table
(bench/gen_nsys_sqlite.py --runtime: 100k kernels and 100k NVTX ranges),
its NVTX table shuffled so that the NVTX queries sort the ranges by start
and by thread and start (large enough to spill; the CUDA API calls are
summed without a sort). As generated (in order) the table is read without a
sort: then SQLite makes no temporary file at all. The
unnamed file the import keeps the kernel rows in between its passes
(O_TMPFILE) must be made in the output folder too.

    sqlite_scratch_test.py LLM_PERF_OPT
Exit 77 (skip) without strace.
"""

import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def traced_import(strace, binary, export, out, log):
    """Runs the import under strace: (exit status and stderr, files created, folders of unnamed files)."""
    run = subprocess.run([strace, "-f", "-e", "trace=openat,open,creat", "-o", log, binary, "import", export,
                          "--out", out, "-q"], capture_output=True, text=True)
    created = []
    unnamed_in = []  # the folders O_TMPFILE made an unnamed file in
    with open(log) as f:
        for line in f:
            if line.rstrip().endswith("ENOENT (No such file or directory)"):
                continue
            m = re.search(r'open(?:at)?\((?:AT_FDCWD, )?"([^"]+)", [^)]*O_CREAT', line)
            if m:
                created.append(os.path.realpath(m.group(1)) if not os.path.isabs(m.group(1)) else m.group(1))
            m = re.search(r'open(?:at)?\((?:AT_FDCWD, )?"([^"]+)", [^)]*O_TMPFILE', line)
            if m:
                unnamed_in.append(os.path.realpath(m.group(1)))
    return run, created, unnamed_in


def sqlite_temp_files(created):
    return [p for p in created if os.path.basename(p).startswith("etilqs_")]


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
        log = os.path.join(tmp, "strace.log")
        # As generated, the ranges are in start order on one thread: nothing to sort, nothing to spill.
        run, created, _ = traced_import(strace, binary, export, os.path.join(tmp, "in-order"), log)
        if run.returncode != 0:
            print(f"FAIL: import exited {run.returncode}: {run.stderr[-2000:]}")
            return 1
        if sqlite_temp_files(created):
            print(f"FAIL: SQLite sorted (and spilled) ranges already in order: {sqlite_temp_files(created)[:3]}")
            return 1
        db = sqlite3.connect(export)
        db.executescript("CREATE TABLE shuffled AS SELECT * FROM NVTX_EVENTS ORDER BY random(); "
                         "DROP TABLE NVTX_EVENTS; ALTER TABLE shuffled RENAME TO NVTX_EVENTS;")
        db.close()
        out = os.path.join(tmp, "out")
        run, created, unnamed_in = traced_import(strace, binary, export, out, log)
        if run.returncode != 0:
            print(f"FAIL: import exited {run.returncode}: {run.stderr[-2000:]}")
            return 1
        temp = sqlite_temp_files(created)
        outside = [p for p in created if not os.path.realpath(p).startswith(os.path.realpath(out) + os.sep)]
        inside = os.path.realpath(out)
        unnamed_outside = [d for d in unnamed_in if d != inside and not d.startswith(inside + os.sep)]
        print(f"files created: {len(created)}, SQLite temporary files: {len(temp)}, outside the output folder: "
              f"{outside[:5]}; unnamed files: {len(unnamed_in)}, outside the output folder: {unnamed_outside[:5]}")
        if not temp:
            print("FAIL: no SQLite temporary file was seen; the export no longer makes SQLite spill, so this test "
                  "checks nothing (make the generated export larger)")
            return 1
        if outside or unnamed_outside:
            print("FAIL: files created outside the output folder")
            return 1
        if not unnamed_in and not any(os.path.basename(p).startswith(".llmpo-calls-") for p in created):
            print("FAIL: no scratch file for the kernel rows was seen; this test no longer checks where it goes")
            return 1
        leftovers = [n for n in os.listdir(out) if n.startswith(("etilqs_", ".llmpo-calls-"))]
        if leftovers:
            print(f"FAIL: temporary files left in the output folder: {leftovers}")
            return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
