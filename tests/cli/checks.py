"""What several CLI tests share: a check that records a failure instead of
stopping at the first, the length of a union of intervals (the GPU busy
time as HTA and our reports define it), computed here independently of the
tool under test, HTA's kernel class rule, and a byte-for-byte comparison of two
output folders."""

import filecmp
import pathlib
import re

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def union_length(spans):
    """Total length covered by (start, end) intervals, overlaps counted once."""
    busy, end = 0, None
    for s, t in sorted(spans):
        if end is None or s > end:
            busy += t - s
            end = t
        elif t > end:
            busy += t - end
            end = t
    return busy


HTA_EXCLUDED_PREFIXES = ("nccl", "Stream Wait Event", "runFunction", "hip", "job_exe", "packet", "pe_exe",
                         "cpum_exe_subgraph", "hccl", "collective_subgraph_execution")


def hta_class(n):
    """HTA's kernel class of a name (hta/common/types.py, as docs/import.md states it), written out here."""
    if n.startswith(("nccl", "hip", "hccl")) or "ncclKernel" in n:
        return "communication"
    if n.startswith(("Memcpy", "Memset", "dma")):
        return "memory"
    excluded = (n.startswith(HTA_EXCLUDED_PREFIXES) or any(s in n for s in ("Memcpy", "Memset", "dma", "Sync"))
                or re.search("cuda.*LaunchKernel", n))
    return "other" if excluded else "computation"


def same_folders(a, b):
    """Asserts that the two folders hold the same files (hidden ones too), byte for byte; returns how many."""
    fa = sorted(str(p.relative_to(a)) for p in pathlib.Path(a).rglob("*") if p.is_file())
    fb = sorted(str(p.relative_to(b)) for p in pathlib.Path(b).rglob("*") if p.is_file())
    assert fa == fb, f"{a} and {b} hold different files: {sorted(set(fa) ^ set(fb))}"
    differ = [f for f in fa if not filecmp.cmp(f"{a}/{f}", f"{b}/{f}", shallow=False)]
    assert not differ, f"{a} and {b} differ in {differ}"
    return len(fa)
