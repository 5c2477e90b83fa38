"""What several CLI tests share: a check that records a failure instead of
stopping at the first, the length of a union of intervals (the GPU busy
time as HTA and our reports define it), computed here independently of the
tool under test, and a byte-for-byte comparison of two output folders."""

import filecmp
import pathlib

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


def same_folders(a, b):
    """Asserts that the two folders hold the same files (hidden ones too), byte for byte; returns how many."""
    fa = sorted(str(p.relative_to(a)) for p in pathlib.Path(a).rglob("*") if p.is_file())
    fb = sorted(str(p.relative_to(b)) for p in pathlib.Path(b).rglob("*") if p.is_file())
    assert fa == fb, f"{a} and {b} hold different files: {sorted(set(fa) ^ set(fb))}"
    differ = [f for f in fa if not filecmp.cmp(f"{a}/{f}", f"{b}/{f}", shallow=False)]
    assert not differ, f"{a} and {b} differ in {differ}"
    return len(fa)
