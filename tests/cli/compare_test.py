#!/usr/bin/env python3
"""`compare` on PyTorch profiler traces generated here (docs/compare.md).

Each trace has 5 ProfilerStep#N steps with a `decode` annotation holding
20 launches each of gemm_a (10 us) and attn_b (20 us), every duration
jittered by up to +-5 % from a seeded generator. Cases: a trace against
itself (no change, p = 1), two seeds (jitter only: nothing called slower
or faster), attn_b slowed 20 % with a kernel inserted mid-step (attn_b
slower beyond noise, gemm_a not, new_c new, the decode region slower with
attn_b its largest contributor, the attribution adding up to the total
change), the --fail-if-slower gate, and bad sides. The expected numbers are
recomputed here from the generated durations, not taken from our output.
"""
import html
import json
import os
import random
import re
import subprocess
import sys
import tempfile

BIN = sys.argv[1] if __name__ == "__main__" else None  # importable for its trace generator
SHARED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures")
failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def trace(path, seed, slow_b=1.0, insert_c=False, names=("gemm_a", "attn_b"), region="decode", step_name="ProfilerStep",
          positions=None):
    """Writes a Kineto trace; returns {kernel: [durations in ns]}. `positions`, a list, gets each step's
    launches as [(name, ns), ...] in launch order."""
    rng = random.Random(seed)
    events, durations = [], {}
    t, corr = 0.0, 0
    for step in range(5):
        step_start = t
        if positions is not None:
            positions.append([])
        t += 1
        region_start = t
        for j in range(20):
            kernels = [(names[0], 10.0), (names[1], 20.0 * slow_b)]
            if insert_c and j == 10:
                kernels.insert(1, ("new_c", 5.0))
            for name, base in kernels:
                corr += 1
                dur = round(base * (1 + rng.uniform(-0.05, 0.05)), 3)
                durations.setdefault(name, []).append(dur * 1000)
                if positions is not None:
                    positions[-1].append((name, dur * 1000))
                events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100,
                               "tid": 100, "ts": round(t + 0.1, 3), "dur": 0.2, "args": {"correlation": corr}})
                events.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": 7,
                               "ts": round(t + 1, 3), "dur": dur,
                               "args": {"correlation": corr, "device": 0, "stream": 7}})
                t = round(t + 1 + dur, 3)
        events.append({"ph": "X", "cat": "user_annotation", "name": region, "pid": 100, "tid": 100,
                       "ts": region_start, "dur": round(t + 0.5 - region_start, 3)})
        events.append({"ph": "X", "cat": "user_annotation", "name": f"{step_name}#{step}", "pid": 100, "tid": 100,
                       "ts": step_start, "dur": round(t + 1 - step_start, 3)})
        t += 2
    with open(path, "w") as f:
        json.dump({"schemaVersion": 1, "traceEvents": events}, f)
    return durations


def compare(out, *sides, extra=()):
    r = subprocess.run([BIN, "compare", *sides, "--out", out, *extra], capture_output=True, text=True)
    doc = None
    if os.path.exists(os.path.join(out, "compare.json")):
        with open(os.path.join(out, "compare.json")) as f:
            doc = json.load(f)
    return r, doc


def check_page(text, names, case):
    """compare.html loads nothing (no http(s) src or href) and names each kernel."""
    check(not re.search(r"""(src|href)\s*=\s*["']?\s*https?:""", text, re.I), f"{case}: compare.html loads nothing")
    check('data-chart="waterfall"' in text and 'data-chart="kernel-bars"' in text, f"{case}: both charts drawn")
    for name in names:
        check(name in text, f"{case}: compare.html names {name!r}")


def kernel(c, name):
    return next((k for k in c["kernels"] if k["name"] == name), None)


def mean(xs):
    return sum(xs) / len(xs)


def position_means(positions):
    """Per launch position, the mean duration over the steps (every step launches the same kernels)."""
    return [mean([step[k][1] for step in positions]) for k in range(len(positions[0]))]


def check_launch_order(c, p_base, p_new):
    """compare.json's launch order of the decode region against the generated launches: new_c, inserted once per
    step at launch 21, is the only new position; every other position is aligned with the base's position of the
    same kernel, and its means are the generated durations' means."""
    seqs = [s for s in c["launch_order"] if s["path"] == "ProfilerStep / decode"]
    check(len(seqs) == 1, f"launch order: one decode sequence (got {[s['path'] for s in c['launch_order']]})")
    if not seqs:
        return
    s = seqs[0]
    base_means, new_means = position_means(p_base), position_means(p_new)
    check(s["base_length"] == len(base_means) and s["new_length"] == len(new_means), "launch order: lengths")
    check(s["base_instances"] == 5 and s["new_instances"] == 5, "launch order: 5 instances a side")
    inserted = [k for k, (name, _) in enumerate(p_new[0]) if name == "new_c"]
    new_rows = [r for r in s["rows"] if r["op"] == "new"]
    check([r["new_position"] for r in new_rows] == inserted and all(r["name"] == "new_c" for r in new_rows),
          f"launch order: new_c is the one new position at {inserted} (got {new_rows})")
    check(s["removed"] == 0 and s["same"] == len(base_means), "launch order: nothing gone, every base launch aligned")
    for r in s["rows"]:
        if r["op"] != "same":
            continue
        b, n = r["base_position"], r["new_position"]
        check(p_base[0][b][0] == p_new[0][n][0] == r["name"], f"launch order: {b} -> {n} pairs one kernel")
        check(abs(r["base_mean_ns"] - base_means[b]) < 1e-6 and abs(r["new_mean_ns"] - new_means[n]) < 1e-6,
              f"launch order: means at {b} -> {n} are the generated ones")
    want = sum(new_means) - sum(base_means)
    check(abs(s["delta_instance_ns"] - want) < 1e-6, f"launch order: change per instance {want:.1f} ns")
    return s


def rank_kernel_ns(archive):
    """Per rank, the summed duration (ns) of the kernel events of its trace in the archive, read here."""
    import gzip
    import tarfile
    out = {}
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if not member.isfile():
                continue
            data = tar.extractfile(member).read()
            if data[:2] == b"\x1f\x8b":
                data = gzip.decompress(data)
            doc = json.loads(data)
            rank = doc.get("distributedInfo", {}).get("rank")
            if rank is None:
                continue
            out[rank] = sum(e["dur"] * 1000 for e in doc["traceEvents"] if e.get("cat") == "kernel")
    return out


def check_ranks(tmp):
    """Scopes: two ranks of one archive (SIDE@rank=N), and the archive against itself, rank by rank."""
    archive = os.path.join(SHARED, "kineto", "param-dlrm-8ranks.tar.gz")
    if not os.path.exists(archive):
        print("skip: no", archive)
        return
    want = rank_kernel_ns(archive)
    r, doc = compare(os.path.join(tmp, "ranks"), archive + "@rank=0", archive + "@rank=3")
    check(r.returncode == 0, f"rank 0 against rank 3 exits 0 ({r.stderr})")
    if doc:
        t = doc["comparisons"][0]["total"]
        check(abs(t["base_ns"] - want[0]) < 1 and abs(t["new_ns"] - want[3]) < 1,
              f"rank 0 and rank 3 totals {t['base_ns']}, {t['new_ns']} == {want[0]}, {want[3]} (from the archive)")
        seqs = doc["comparisons"][0]["launch_order"]
        check(seqs and all(s["scope"] == "rank 0 / rank 3" for s in seqs), "launch order pairs rank 0 with rank 3")
    r, doc = compare(os.path.join(tmp, "ranks-self"), archive, archive)
    if doc:
        scopes = {s["scope"]: s for s in doc["comparisons"][0]["scopes"]}
        check(sorted(scopes) == [f"rank {i}" for i in sorted(want)], f"one scope per rank ({sorted(scopes)})")
        check(all(abs(scopes[f"rank {i}"]["base_ns"] - ns) < 1 and scopes[f"rank {i}"]["delta_ns"] == 0
                  for i, ns in want.items()), "each rank's GPU kernel time as the archive gives it, unchanged")
    r, _ = compare(os.path.join(tmp, "rank-absent"), archive + "@rank=0", archive + "@rank=9")
    check(r.returncode == 3 and "rank 9" in r.stderr and "0, 1, 2, 3, 4, 5, 6, 7" in r.stderr,
          f"an absent rank: exit 3 naming the ranks there ({r.returncode}: {r.stderr})")


def main():
    tmp = tempfile.mkdtemp(prefix="llmpo-compare-")
    base, jitter, slowed = (os.path.join(tmp, n) for n in ("base.json", "jitter.json", "slowed.json"))
    p_base, p_slow = [], []
    d_base = trace(base, seed=1, positions=p_base)
    trace(jitter, seed=2)
    d_slow = trace(slowed, seed=3, slow_b=1.2, insert_c=True, positions=p_slow)

    # A trace against itself: no change, every test p = 1.
    r, doc = compare(os.path.join(tmp, "self"), base, base)
    check(r.returncode == 0, f"self compare exits 0 (got {r.returncode}: {r.stderr})")
    if doc:
        c = doc["comparisons"][0]
        check(c["total"]["delta_ns"] == 0, "self: total delta 0")
        check(c["total"]["test"]["verdict"] == "within noise", "self: total within noise")
        check(all(k["delta_ns"] == 0 and k["mean_test"]["verdict"] == "within noise" for k in c["kernels"]),
              "self: every kernel unchanged and within noise")
        check(all(k["mean_test"]["p_value"] == 1 for k in c["kernels"]), "self: every kernel's p is 1")
        s = check_launch_order(c, p_base, p_base)
        check(s and all(r["op"] == "same" and r["delta_ns"] == 0 for r in s["rows"]), "self: launch order unchanged")
        check(os.path.exists(os.path.join(tmp, "self", "sides", "0", "report_set.json")),
              "a side of files is imported into OUT/sides/0")

    # Jitter only (another seed): nothing slower or faster.
    r, doc = compare(os.path.join(tmp, "jitter"), base, jitter)
    check(r.returncode == 0, f"jitter compare exits 0 ({r.stderr})")
    if doc:
        c = doc["comparisons"][0]
        verdicts = [c["total"]["test"]["verdict"]] + [k["mean_test"]["verdict"] for k in c["kernels"]]
        verdicts += [x["test"]["verdict"] for x in c["regions"] if x["test"]]
        verdicts += [r["test"]["verdict"] for s in c["launch_order"] for r in s["rows"]]
        check(set(verdicts) == {"within noise"}, f"jitter: every verdict within noise (got {verdicts})")

    # attn_b slowed 20 %, new_c inserted.
    r, doc = compare(os.path.join(tmp, "slowed"), base, slowed)
    check(r.returncode == 0, f"slowed compare exits 0 ({r.stderr})")
    if doc:
        c = doc["comparisons"][0]
        b = kernel(c, "attn_b")
        want = (mean(d_slow["attn_b"]) / mean(d_base["attn_b"]) - 1) * 100
        check(b and b["mean_test"]["verdict"] == "slower" and b["mean_test"]["tested"], "attn_b slower, tested")
        check(b and abs(b["mean_test"]["change_pct"] - want) < 0.01,
              f"attn_b mean change {b and b['mean_test']['change_pct']} == {want:.3f} % (from the generated durations)")
        check(b and b["mean_test"]["p_value"] < 1e-6, "attn_b p tiny")
        a = kernel(c, "gemm_a")
        check(a and a["mean_test"]["verdict"] == "within noise", "gemm_a within noise")
        n = kernel(c, "new_c")
        check(n and n["match"] == "new" and n["base_ns"] is None, "new_c is new, null on the base side")
        check(n and abs(n["new_ns"] - sum(d_slow["new_c"])) < 1, "new_c's time is its generated durations")
        want_total = sum(map(sum, d_slow.values())) - sum(map(sum, d_base.values()))
        check(abs(c["total"]["delta_ns"] - want_total) < 1, f"total delta {c['total']['delta_ns']} == {want_total}")
        attributed = sum(row["delta_ns"] for row in c["attribution"])
        check(abs(attributed - c["total"]["delta_ns"]) < 1e-6 * abs(want_total), "attribution adds up to the total")
        check(c["total"]["test"]["verdict"] == "slower", "total slower")
        dec = next((x for x in c["regions"] if x["path"] == "ProfilerStep / decode"), None)
        check(dec is not None, f"region ProfilerStep / decode matched (regions: {[x['path'] for x in c['regions']]})")
        if dec:
            check(dec["match"].startswith("path"), "decode matched by path")
            check(dec["test"]["verdict"] == "slower", "decode slower")
            check(dec["contributors"][0]["what"] == "attn_b", "decode's largest contributor is attn_b")
        s = check_launch_order(c, p_base, p_slow)
        if s:
            by_kernel = {}
            for r in s["rows"]:
                if r["op"] == "same":
                    by_kernel.setdefault(r["name"], set()).add(r["test"]["verdict"])
            check(by_kernel.get("attn_b") == {"slower"}, f"launch order: every attn_b position slower ({by_kernel})")
            check(by_kernel.get("gemm_a") == {"within noise"}, f"launch order: gemm_a positions within noise")
    md = open(os.path.join(tmp, "slowed", "compare.md")).read() if doc else ""
    check("Where the change comes from" in md and "attn_b" in md, "compare.md shows the attribution")
    page = os.path.join(tmp, "slowed", "compare.html")
    check(os.path.exists(page), "compare.html is written next to compare.md and compare.json")
    if os.path.exists(page):
        check_page(open(page, encoding="utf-8").read(), ("gemm_a", "attn_b", "new_c"), "slowed")

    # Hostile kernel names: escaped in compare.html, never markup.
    hostile_names = ('<script>window.x=1</script>', 'a&b "q" \'s\' <i>x</i>')
    hostile_base, hostile_new = os.path.join(tmp, "hb.json"), os.path.join(tmp, "hn.json")
    trace(hostile_base, seed=1, names=hostile_names)
    trace(hostile_new, seed=3, slow_b=1.2, names=hostile_names)
    r, doc = compare(os.path.join(tmp, "hostile"), hostile_base, hostile_new)
    check(r.returncode == 0, f"hostile names: exit 0 ({r.stderr})")
    if doc:
        text = open(os.path.join(tmp, "hostile", "compare.html"), encoding="utf-8").read()
        check("window.x=1</script>" not in text and "<i>x</i>" not in text, "hostile names are not markup")
        check(text.count("<script") == 2, f"two script elements (got {text.count('<script')})")
        check_page(text, [html.escape(n, quote=True).replace("&#x27;", "&#39;") for n in hostile_names], "hostile")

    # The gate.
    r, _ = compare(os.path.join(tmp, "gate"), base, slowed, extra=("--fail-if-slower", "10"))
    check(r.returncode == 8, f"--fail-if-slower 10 exits 8 (got {r.returncode})")
    check("attn_b" in r.stderr, "the gate names attn_b")
    r, _ = compare(os.path.join(tmp, "gate2"), base, slowed, extra=("--fail-if-slower", "50"))
    check(r.returncode == 0, f"--fail-if-slower 50 exits 0 (got {r.returncode}: {r.stderr})")

    # An import output folder as a side, against files.
    imported = os.path.join(tmp, "imported")
    subprocess.run([BIN, "import", base, "--out", imported], capture_output=True, check=True)
    r, doc = compare(os.path.join(tmp, "folder"), imported, base)
    check(r.returncode == 0 and doc and doc["comparisons"][0]["total"]["delta_ns"] == 0,
          "an import folder against its own input: no change")

    # Bad sides.
    other = os.path.join(tmp, "other.json")
    trace(other, seed=1, names=("x_one", "x_two"), region="prefill", step_name="Iteration")
    r, _ = compare(os.path.join(tmp, "nothing"), base, other)
    check(r.returncode == 3 and "nothing in common" in r.stderr, f"nothing in common: exit 3 ({r.returncode})")
    r, _ = compare(os.path.join(tmp, "missing"), base, os.path.join(tmp, "absent.json"))
    check(r.returncode == 3 and "no such file" in r.stderr, "a missing side: exit 3 naming it")
    run_dir = os.path.join(tmp, "oldrun")
    os.makedirs(run_dir)
    open(os.path.join(run_dir, "run.json"), "w").write("{}")
    r, _ = compare(os.path.join(tmp, "old"), run_dir, base)
    check(r.returncode == 3 and "llm-perf-opt report" in r.stderr, "a run folder without report_set.json: exit 3")
    r, _ = compare(os.path.join(tmp, "one"), base)
    check(r.returncode == 2, f"one side: usage error (got {r.returncode})")

    # ncu metrics on one side only: said in the notes.
    details_only = os.path.join(SHARED, "ncu-csv", "sglang-h200", "details.csv")
    if os.path.exists(details_only):
        imported_ncu = os.path.join(tmp, "ncu-side")
        subprocess.run([BIN, "import", details_only, "--out", imported_ncu], capture_output=True, check=True)
        with open(os.path.join(imported_ncu, "report_set.json")) as f:
            stripped = json.load(f)
        for row in stripped["kernels"]["kernels"]:
            row["metrics"] = []
        bare = os.path.join(tmp, "bare-side")
        os.makedirs(bare)
        with open(os.path.join(bare, "report_set.json"), "w") as f:
            json.dump(stripped, f)
        r, doc = compare(os.path.join(tmp, "metrics-one-side"), imported_ncu, bare)
        notes = doc["comparisons"][0]["notes"] if doc else []
        check(r.returncode == 0 and any("cannot be compared" in n and "base side has them" in n for n in notes),
              f"ncu metrics on the base side only are noted ({notes})")

    # Real files: ncu's details and raw pages of one sglang run hold the same launches.
    details = os.path.join(SHARED, "ncu-csv", "sglang-h200", "details.csv")
    raw = os.path.join(SHARED, "ncu-csv", "sglang-h200", "raw.csv")
    if os.path.exists(details) and os.path.exists(raw):
        r, doc = compare(os.path.join(tmp, "sglang"), details, raw)
        check(r.returncode == 0, f"sglang details vs raw exits 0 ({r.stderr})")
        if doc:
            c = doc["comparisons"][0]
            check(abs(c["total"]["delta_ns"]) <= 1e-3 * c["total"]["base_ns"], f"sglang: the same total ({c['total']})")
            check(all(k["match"] == "name" for k in c["kernels"]), "sglang: every kernel matched by name")
    else:
        print("skip: no shared fixtures at", SHARED)
    check_ranks(tmp)

    if failures:
        print(f"{len(failures)} check(s) failed; outputs in {tmp}")
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
