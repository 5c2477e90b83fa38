"""What several CLI tests share: a check that records a failure instead of
stopping at the first, and the length of a union of intervals (the GPU busy
time as HTA and our reports define it), computed here independently of the
tool under test."""

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
