#!/usr/bin/env python3
"""A peer for the Kineto import benchmark (bench/run_import_targets.py):
ijson (Debian's python3-ijson, its yajl2_c back end when present) streaming
the trace's events one at a time and doing the smallest useful part of an
import: per kernel name, calls and total `dur` (float microseconds). Less
work than our import or bench/reference_kineto.py; memory stays small because
no event is kept.

    python3 bench/peer_kineto_ijson.py TRACE.json[.gz]
Prints {"kernels": N, "total_us": X, "names": M, "backend": "..."}.
"""

import gzip
import json
import sys

import ijson

KERNEL = {"kernel", "Kernel"}


def main():
    path = sys.argv[1]
    opener = gzip.open if path.endswith(".gz") else open
    sums = {}
    with opener(path, "rb") as f:
        for event in ijson.items(f, "traceEvents.item", use_float=True):
            if event.get("cat") not in KERNEL:
                continue
            s = sums.setdefault(event.get("name"), [0, 0.0])
            s[0] += 1
            s[1] += event.get("dur", 0.0)
    print(json.dumps({"kernels": sum(s[0] for s in sums.values()), "total_us": sum(s[1] for s in sums.values()),
                      "names": len(sums), "backend": ijson.backend}))


if __name__ == "__main__":
    main()
