#!/usr/bin/env python3
"""Region-report benchmark: llm-perf-opt's NVTX region report vs the straightforward Python reference.

    python3 bench/run_region_bench.py --write-results   # full run, adds "Region report" to bench/RESULTS.md
    python3 bench/run_region_bench.py --quick           # smoke run, small inputs (well under a minute)

Generates an `ncu --csv --page details --nvtx` file with R regions and K
results (default 10,000 and 1,000,000; bench/gen_ncu_regions.py) and one
with K/2 results and the same regions, in the scratch folder (reused when
already there with the same arguments and generator), then, in one run,
measures each --reps times (default 3, interleaved) and reports the median:

  (a) `wc -l FILE`                              wall time (the read-the-bytes floor)
  (b) `llm-perf-opt import FILE --out DIR`      wall time and peak RSS; writes DIR/regions/
  (c) `python3 bench/reference_regions.py FILE` wall time and peak RSS

plus (b) on the half-size input (does peak memory grow with the results?),
and checks that our regions/report.json and the reference agree on the
number of regions and on total_ms and kernel_count of the largest regions
(and, beyond that, on every region).  Peak RSS is the measured command's own
ru_maxrss, from GNU time (/usr/bin/time -f %M).  See bench/README.md.
"""

import argparse
import datetime
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402  (shared helpers: inputs, measurement, machine info)

# The bench measures 10,000 distinct regions: numbered names are not folded
# (docs/regions.md, "Numbered ranges are instances").
NO_FOLDING = ["--set", "pipeline.regions.instance_suffix=''"]

BENCH, ROOT = rb.BENCH, rb.ROOT

# Targets (fixed; do not tune them to the results).
TARGET_OUR_S = 10.0  # our wall time at full size: "seconds"
FLAT_REL = 0.10  # peak RSS at full size <= half-size RSS + max(10%, 8 MiB)
FLAT_ABS_KB = 8 * 1024
TOTAL_MS_REL = 1e-6
TOP = 5


def sizes(quick, regions, results):
    if quick:
        regions, results = regions or 1000, results or 50000
    else:
        regions, results = regions or 10000, results or 1000000
    return {
        "full": ("regions", {"regions": regions, "results": results}),
        "half": ("regions", {"regions": regions, "results": results // 2}),
    }


def load_ours(report_json):
    """Our regions/report.json: {path tuple: {total_ms, exclusive_ms, kernel_count}} plus the header counts.

    With the default pipeline.regions.aggregate there is one entry per path
    (process "all"); entries that share a path are added up anyway.
    """
    with open(report_json) as f:
        data = json.load(f)
    per = {}
    for r in data.get("regions", []):
        e = per.setdefault(tuple(r["path"]), {"total_ms": 0.0, "exclusive_ms": 0.0, "kernel_count": 0, "entries": 0})
        e["total_ms"] += r.get("total_ms") or 0.0
        e["exclusive_ms"] += r.get("exclusive_ms") or 0.0
        e["kernel_count"] += r.get("kernel_count") or 0
        e["entries"] += 1
    return per, data


def differs(o, r, keys=("total_ms", "kernel_count")):
    for k in keys:
        if k == "kernel_count":
            if o[k] != r[k]:
                return True
        elif rb.rel_diff(o[k], r[k]) > TOTAL_MS_REL:
            return True
    return False


def compare(ours_json, ref_out):
    """Agreement of our report.json and the reference; returns a dict."""
    res = {"ok_top": False, "ok_all": False, "details": [], "top": []}
    try:
        per, data = load_ours(ours_json)
        with open(ref_out) as f:
            ref = json.load(f)
    except (OSError, ValueError, KeyError, TypeError) as e:
        res["details"].append(f"cannot read results: {e}")
        return res
    ref_per = {tuple(e["path"]): e for e in ref.get("per_region", [])}
    res.update(ours_regions=len(per), ours_entries=sum(e["entries"] for e in per.values()),
               ref_regions=ref["regions"], ours_with=data.get("launches_with_nvtx"),
               ours_outside=data.get("launches_outside_ranges"), ref_with=ref["launches"],
               ref_outside=ref["launches_outside_ranges"])
    # Our "launches_with_nvtx" counts every launch seen with NVTX state,
    # including those outside any range: it is compared with all the
    # reference's launches.
    count_ok = len(per) == ref["regions"]
    top_ok = count_ok
    for e in ref["top"]:
        o = per.get(tuple(e["path"]))
        row = {"path": e["path"], "ref": e, "ours": o,
               "rel": rb.rel_diff(o["total_ms"], e["total_ms"]) if o else None}
        row["ok"] = o is not None and not differs(o, e)
        top_ok = top_ok and row["ok"]
        res["top"].append(row)
    res["ok_top"] = top_ok
    if not count_ok:
        res["details"].append(f"region count: ours {len(per)}, reference {ref['regions']}")
    # Every region, exclusive time and the launch counts too.
    all_ok = count_ok and res["ours_with"] == res["ref_with"] and res["ours_outside"] == res["ref_outside"]
    worst = 0.0
    for path in sorted(set(per) | set(ref_per)):
        o, r = per.get(path), ref_per.get(path)
        if o is not None and r is not None:
            worst = max(worst, rb.rel_diff(o["total_ms"], r["total_ms"]), rb.rel_diff(o["exclusive_ms"], r["exclusive_ms"]))
        if o is None or r is None or differs(o, r, ("total_ms", "exclusive_ms", "kernel_count")):
            all_ok = False
            if len(res["details"]) < 10:
                def brief(x):
                    return None if x is None else {k: x[k] for k in ("total_ms", "exclusive_ms", "kernel_count")}
                res["details"].append(f"{'/'.join(path)[:100]!r}: ours={brief(o)} reference={brief(r)}")
    if res["ours_with"] != res["ref_with"] or res["ours_outside"] != res["ref_outside"]:
        res["details"].append(f"launches seen / outside any range: ours {res['ours_with']} / {res['ours_outside']}, "
                              f"reference {res['ref_with']} / {res['ref_outside']}")
    res["ok_all"] = all_ok
    res["worst_rel"] = worst
    return res


def tree_size(path):
    files, size = 0, 0
    for dirpath, _, names in os.walk(path):
        for n in names:
            files += 1
            size += os.path.getsize(os.path.join(dirpath, n))
    return files, size


def write_section(dest, section):
    """Put the region section into dest: replace the marked one, else append; the rest stays as it is."""
    try:
        with open(dest) as f:
            text = f.read()
    except FileNotFoundError:
        text = ""
    span = rb.region_section_span(text)
    if span:
        text = text[:span[0]] + section.rstrip("\n") + text[span[1]:]
    elif text:
        text = text.rstrip("\n") + "\n\n" + section
    else:
        text = ("# llm-perf-opt benchmarks\n\n(No import section yet: `python3 bench/run_bench.py --write-results` "
                "writes it above this one.)\n\n" + section)
    with open(dest, "w") as f:
        f.write(text if text.endswith("\n") else text + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small inputs (1k regions, 50k results): a smoke run")
    ap.add_argument("--regions", type=int, help="region paths in the inputs (default 10000; 1000 with --quick)")
    ap.add_argument("--results", type=int,
                    help="results in the full-size input (default 1000000; 50000 with --quick); the half-size "
                         "input has half")
    ap.add_argument("--skip-python", action="store_true", help="do not run the Python reference")
    ap.add_argument("--write-results", action="store_true",
                    help="also put the report into bench/RESULTS.md (bench/RESULTS-quick.md with --quick), "
                         "replacing an earlier region section and keeping the import section")
    ap.add_argument("--scratch", default="/tmp/llmpo-bench", help="where inputs and outputs go (default %(default)s)")
    ap.add_argument("--out-base", help="where our import writes its output folders (default SCRATCH/out); e.g. "
                                       "/dev/shm/llmpo-out to take disk syncs out of the timing")
    ap.add_argument("--binary", default=os.path.join(ROOT, "build", "release", "llm-perf-opt"))
    ap.add_argument("--reps", type=int, default=3, help="runs per measurement; the median is reported")
    ap.add_argument("--regen", action="store_true", help="regenerate the inputs even if present")
    a = ap.parse_args()

    if not os.access(a.binary, os.X_OK):
        raise SystemExit(f"no executable at {a.binary}: build it first (cmake --preset release && "
                         "cmake --build --preset release)")
    os.makedirs(a.scratch, exist_ok=True)
    # Measure a private copy: the build tree may be rebuilt while we run.
    binary_src = a.binary
    binary_mtime = os.path.getmtime(binary_src)
    binary_sha = rb.file_sha(binary_src)
    a.binary = rb.private_copy(binary_src, os.path.join(a.scratch, "region-bench-bin"))
    a.out_base = a.out_base or os.path.join(a.scratch, "out")
    os.makedirs(a.out_base, exist_ok=True)
    out_fs = subprocess.run(["stat", "-f", "-c", "%T", a.out_base], capture_output=True, text=True).stdout.strip()
    started = datetime.datetime.now().astimezone()
    load_before = rb.loadavg()

    # ---- inputs
    inputs = {}
    for label, (kind, args) in sizes(a.quick, a.regions, a.results).items():
        path, meta, reused = rb.ensure_input(a.scratch, kind, args, a.regen)
        inputs[label] = {"path": path, "args": args, "meta": meta, "size": os.path.getsize(path), "reused": reused}

    rb.warm_page_cache(inputs)

    logs = os.path.join(a.scratch, "logs")
    os.makedirs(logs, exist_ok=True)
    runs = {}  # (label, tool) -> [measurement]

    def run(label, tool, rep):
        inp = inputs[label]
        stem = os.path.join(logs, f"regions-{label}.{tool}.{rep}")
        if tool == "wc":
            cmd = ["wc", "-l", inp["path"]]
        elif tool == "ours":
            outdir = os.path.join(a.out_base, f"regions-{label}.{rep}")
            shutil.rmtree(outdir, ignore_errors=True)
            # Every step_i / layer_j its own region, as the reference counts them.
            cmd = [a.binary, "import", inp["path"], "--out", outdir] + NO_FOLDING
        else:
            cmd = [sys.executable, os.path.join(BENCH, "reference_regions.py"), inp["path"], "--top", str(TOP),
                   "--per-region"]
        m = rb.measure(cmd, stem + ".out", stem + ".err")
        m["rep"] = rep
        if tool == "ours":
            m["outdir"] = outdir
            m["report_json"] = os.path.join(outdir, "regions", "report.json")
        m["stdout"] = stem + ".out"
        m["stderr"] = stem + ".err"
        runs.setdefault((label, tool), []).append(m)
        rb.log(f"  regions-{label:4} {tool:4} rep {rep}: {m['wall_s']:8.3f} s  peak RSS {m['maxrss_kb'] / 1024:8.1f} MiB"
               + ("" if m["rc"] == 0 else f"  EXIT STATUS {m['rc']} (see {stem}.err)"))

    # Interleaved: one rep of every measurement, then the next rep.
    for rep in range(1, a.reps + 1):
        rb.log(f"rep {rep}/{a.reps}")
        run("full", "wc", rep)
        run("full", "ours", rep)
        if not a.skip_python:
            run("full", "ref", rep)
        run("half", "ours", rep)
    finished = datetime.datetime.now().astimezone()
    load_after = rb.loadavg()

    # ---- agreement (untimed)
    ag = None
    ours_ok = [m for m in runs[("full", "ours")] if m["rc"] == 0]
    if not a.skip_python:
        ref_ok = [m for m in runs[("full", "ref")] if m["rc"] == 0]
        if ours_ok and ref_ok:
            ag = compare(ours_ok[0]["report_json"], ref_ok[0]["stdout"])
        else:
            ag = {"ok_top": False, "ok_all": False, "top": [], "details": ["a run failed; nothing to compare"]}
    out_files = tree_size(ours_ok[-1]["outdir"]) if ours_ok else None
    report_bytes = os.path.getsize(ours_ok[-1]["report_json"]) if ours_ok and \
        os.path.exists(ours_ok[-1]["report_json"]) else None
    # Size of what we report, per input: the report holds one kernel table per
    # region, so its size follows the (region, kernel) pairs, not the results.
    shape = {}
    for label in ("full", "half"):
        ok = [m for m in runs[(label, "ours")] if m["rc"] == 0]
        try:
            per_region_kernels = 0
            with open(ok[-1]["report_json"]) as f:
                data = json.load(f)
            for r in data.get("regions", []):
                per_region_kernels += len(r.get("kernels", []))
            shape[label] = {"regions": len(data.get("regions", [])), "pairs": per_region_kernels,
                            "json_mb": os.path.getsize(ok[-1]["report_json"]) / 1e6}
        except (IndexError, OSError, ValueError):
            shape[label] = None

    # ---- summary numbers
    rows = []
    for label in ("full", "half"):
        inp = inputs[label]
        mb = inp["size"] / 1e6
        r = {"label": label, "mb": mb, "results": inp["args"]["results"], "regions": inp["args"]["regions"]}
        for tool in ("wc", "ours", "ref"):
            ms = runs.get((label, tool))
            r[tool] = rb.med(ms, "wall_s") if ms else None
            r[tool + "_cpu"] = statistics.median([m["user_s"] + m["sys_s"] for m in ms]) if ms else None
            r[tool + "_rss"] = rb.med(ms, "maxrss_kb") if ms else None
            r[tool + "_mbps"] = mb / r[tool] if r[tool] else None
        rows.append(r)
    by = {r["label"]: r for r in rows}
    full, half = by["full"], by["half"]

    checks = []  # (target, value text, goal text, passed: True/False/None for "reported only")
    checks.append((f"our time, {full['regions']:,} regions / {full['results']:,} results",
                   rb.fmt(full["ours"], ".2f") + " s", f"<= {TARGET_OUR_S:g} s",
                   full["ours"] is not None and full["ours"] <= TARGET_OUR_S))
    if full["ours_rss"] and half["ours_rss"]:
        growth = full["ours_rss"] - half["ours_rss"]
        allowed = max(FLAT_REL * half["ours_rss"], FLAT_ABS_KB)
        checks.append(("our peak RSS, full vs half the results",
                       f"{half['ours_rss'] / 1024:.1f} -> {full['ours_rss'] / 1024:.1f} MiB "
                       f"(x{full['ours_rss'] / half['ours_rss']:.2f}, {growth / 1024:+.1f} MiB)",
                       f"bounded (growth <= {allowed / 1024:.1f} MiB)", growth <= allowed))
    else:
        checks.append(("our peak RSS, full vs half the results", "n/a (a run failed)", "bounded", False))
    if a.skip_python:
        checks.append(("reference / ours (time)", "skipped", "reported, no target", None))
    else:
        v = full["ref"] / full["ours"] if full["ref"] and full["ours"] else None
        checks.append(("reference / ours (time)", rb.fmt(v, ".1f"), "reported, no target", None))
        checks.append((f"report.json vs reference: region count; total_ms, kernel_count of the top {TOP}",
                       "agree" if ag["ok_top"] else "MISMATCH",
                       f"count exact; total_ms rel <= {TOTAL_MS_REL:g}; kernel_count exact", ag["ok_top"]))
        checks.append(("report.json vs reference: every region (total, exclusive, kernel_count), launches "
                       "seen / outside any range", "agree" if ag["ok_all"] else "MISMATCH",
                       f"ms rel <= {TOTAL_MS_REL:g}; counts exact", ag["ok_all"]))
    failed_runs = [(k, m) for k, ms in runs.items() for m in ms if m["rc"] != 0]

    # ---- report section
    mi = rb.machine_info()
    L = [rb.REGION_BEGIN]
    L.append(f"## Region report{' (QUICK smoke run: small inputs)' if a.quick else ''}")
    L.append("")
    L.append("NVTX region report (`OUT/regions/`) from an `ncu --csv --page details --nvtx` file, by "
             "`llm-perf-opt import` next to `bench/reference_regions.py` (see bench/README.md).")
    L.append("")
    L.append(f"- Date: {started:%Y-%m-%d %H:%M:%S %Z} (finished {finished:%H:%M:%S})")
    L.append(f"- Machine: {mi['nproc']} CPUs ({mi.get('nproc_usable', '?')} usable), {mi['cpu']}, "
             f"{mi['ram_gib']} GiB RAM, Linux {mi['kernel']}, Python {mi['python']}")
    L.append(f"- Load average (1/5/15 min): {load_before} before, {load_after} after")
    L.append(f"- Command: `{' '.join(shlex.quote(x) for x in ['python3', os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])}`")
    L.append(f"- Binary: `{os.path.relpath(binary_src, ROOT) if binary_src.startswith(ROOT) else binary_src}` "
             f"({os.path.getsize(a.binary):,} bytes, sha256 {binary_sha}..., built "
             f"{datetime.datetime.fromtimestamp(binary_mtime):%Y-%m-%d %H:%M}; a copy in the scratch folder was "
             f"measured), repo at {rb.git_info()}")
    L.append(f"- Each measurement run {a.reps} times, interleaved; tables show the median. Page cache warm "
             f"(each file read once by an untimed `wc -l` first). Peak RSS from {runs[('full', 'ours')][0]['rss_by']}.")
    if out_files:
        L.append(f"- Our output per run (full size): {out_files[0]:,} files, {out_files[1] / 1e6:.1f} MB, written under "
                 f"`{a.out_base}` ({out_fs or '?'} file system)"
                 + (f"; regions/report.json is {report_bytes / 1e6:.1f} MB." if report_bytes else "."))
    L.append("")
    L.append("### Inputs")
    L.append("")
    L.append("| input | file | bytes | MB | lines | regions | results | generator | generated |")
    L.append("|---|---|---:|---:|---:|---:|---:|---|---|")
    for label, inp in inputs.items():
        gen = " ".join(f"--{k} {v}" for k, v in inp["args"].items())
        how = "reused from scratch" if inp["reused"] else f"now, {inp['meta'].get('generated_s', '?')} s"
        L.append(f"| {label} | `{inp['path']}` | {inp['size']:,} | {inp['size'] / 1e6:.1f} | {inp['lines']:,} | "
                 f"{inp['args']['regions']:,} | {inp['args']['results']:,} | `{inp['meta']['generator']} {gen}` | {how} |")
    L.append("")
    L.append(f"### Results (median of {a.reps})")
    L.append("")
    L.append("| input | MB | wc -l s | ours s | ours MB/s | ours CPU s | ours peak RSS MiB | our regions | "
             "our (region, kernel) rows | our report.json MB | reference s | reference peak RSS MiB | reference / ours |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        ratio = r["ref"] / r["ours"] if r["ref"] and r["ours"] else None
        L.append(f"| {r['label']} | {r['mb']:.1f} | {rb.fmt(r['wc'], '.3f', '-')} | {rb.fmt(r['ours'])} | "
                 f"{rb.fmt(r['ours_mbps'], '.0f')} | {rb.fmt(r['ours_cpu'])} | "
                 f"{rb.fmt(r['ours_rss'] and r['ours_rss'] / 1024, '.1f')} | "
                 + (f"{shape[r['label']]['regions']:,} | {shape[r['label']]['pairs']:,} | "
                    f"{shape[r['label']]['json_mb']:.1f} | " if shape.get(r["label"]) else "n/a | n/a | n/a | ")
                 + f"{rb.fmt(r['ref'], '.2f', '-')} | "
                 f"{rb.fmt(r['ref_rss'] and r['ref_rss'] / 1024, '.1f', '-')} | {rb.fmt(ratio, '.1f', '-')} |")
    L.append("")
    L.append("### Targets")
    L.append("")
    L.append("| target | measured | goal | result |")
    L.append("|---|---|---|---|")
    for name, value, goal, passed in checks:
        res = "(reported)" if passed is None else ("PASS" if passed else "**FAIL**")
        L.append(f"| {name} | {value} | {goal} | {res} |")
    L.append("")
    if ag is not None:
        L.append("### Agreement: our regions/report.json vs the Python reference (full-size input)")
        L.append("")
        if "ours_regions" in ag:
            L.append(f"- Regions: ours {ag['ours_regions']:,} ({ag['ours_entries']:,} report.json entries), "
                     f"reference {ag['ref_regions']:,}.")
            L.append(f"- Launches seen (our `launches_with_nvtx`) / outside any range: ours {ag['ours_with']:,} / "
                     f"{ag['ours_outside']:,}, "
                     f"reference {ag['ref_with']:,} / {ag['ref_outside']:,}.")
            L.append(f"- Largest relative difference of total_ms / exclusive_ms over all regions present on both "
                     f"sides: {ag['worst_rel']:.2e}.")
            L.append("")
            L.append(f"Top {TOP} regions by the reference's inclusive total:")
            L.append("")
            L.append("| region path | total ms ours / ref | rel. diff | kernel_count ours / ref | exclusive ms ours / ref | |")
            L.append("|---|---|---:|---|---|---|")
            for t in ag["top"]:
                o, r = t["ours"], t["ref"]
                L.append(f"| `{'/'.join(t['path'])}` | "
                         f"{rb.fmt(o and o['total_ms'], '.6f', 'missing')} / {r['total_ms']:.6f} | "
                         f"{rb.fmt(t['rel'], '.2e', '-')} | "
                         f"{o['kernel_count'] if o else 'missing'} / {r['kernel_count']} | "
                         f"{rb.fmt(o and o['exclusive_ms'], '.6f', 'missing')} / {r['exclusive_ms']:.6f} | "
                         f"{'agree' if t['ok'] else '**MISMATCH**'} |")
            L.append("")
        for d in ag["details"]:
            L.append(f"- MISMATCH: {d}")
        if ag["details"]:
            L.append("")
    L += rb.raw_timing_lines("### Raw timings", runs, failed_runs,
                             "Tools: `wc` = `wc -l FILE`; `ours` = `llm-perf-opt import FILE --out DIR` "
                             "(kernels.json/.md and regions/); `ref` = `python3 bench/reference_regions.py FILE "
                             "--top 5 --per-region`.")
    L.append(rb.REGION_END)
    section = "\n".join(L) + "\n"
    print(section)
    if a.write_results:
        dest = os.path.join(BENCH, "RESULTS-quick.md" if a.quick else "RESULTS.md")
        write_section(dest, section)
        rb.log(f"wrote the region section of {dest}")
    bad = ag is not None and not (ag["ok_top"] and ag["ok_all"])
    if bad:
        banner = "!" * 72
        rb.log(f"\n{banner}\nMISMATCH: our regions/report.json and the Python reference disagree\n" +
               "\n".join(ag["details"]) + f"\n{banner}")
    if failed_runs:
        rb.log(f"FAILED RUNS: {len(failed_runs)} (see the report)")
    return 1 if bad or failed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
