#!/usr/bin/env python3
"""Report rules (issue #34) checked on the real fixtures in ../shared/fixtures.

Each check imports one shared fixture with the CLI and compares what the
reports say with numbers worked out here from the raw file (csv, sqlite3,
json, gzip, tarfile), never with an earlier output of ours.

Usage:
  check_report_rules.py --bin PATH/TO/llm-perf-opt --fixtures DIR --check NAME

Checks: same_input_once, per_device_busy, display_rule_as_raw, flat_summary_cpu_exclusive,
no_projection_without_gpu_work, raw_busiest_unit, findings_by_message, json_times_in_ms.

Exit codes: 0 passed, 1 failed, 2 usage error, 77 skipped (no fixtures).
"""

import argparse
import csv
import gzip
import json
import math
import re
import sqlite3
import subprocess
import sys
import tarfile
import tempfile
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import check_shared_fixtures as shared  # noqa: E402

SKIP_CODE = 77
REL_TOL = 1e-6


def close(a, b, rel=REL_TOL, abs_tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= abs_tol + rel * abs(b)


def run_import(binary, paths, outdir):
    """`import PATHS --out OUTDIR`; returns the loaded kernels.json (raises on failure)."""
    run = subprocess.run([str(binary), "import", *map(str, paths), "--out", str(outdir)], capture_output=True,
                         text=True, errors="replace", timeout=600, check=False)
    if run.returncode != 0:
        raise AssertionError(f"import {' '.join(map(str, paths))} exited {run.returncode}: {run.stderr[:300]}")
    return json.loads((outdir / "kernels.json").read_text())


def regions_of(outdir):
    return json.loads((outdir / "regions" / "report.json").read_text())["regions"]


# ---------------------------------------------------------------- item 1


def check_same_input_once(binary, fixtures, tmp):
    """`import F F` (and F with a copy of itself) gives the kernel table of F once, with a note."""
    problems = []
    cases = [("nsys-sqlite/cudaprogramming-2023.3-streamSimple.sqlite", "nsys-sqlite"),
             ("nsys-stats/kiln-a6000/cuda_gpu_kern_sum_cuda_gpu_kern_sum.csv", "nsys-stats"),
             ("ncu-csv/sglang-h200/details.csv", "ncu-details")]
    for index, (relative, kind) in enumerate(cases):
        path = fixtures / relative
        expected = shared.EXPECTERS[kind](path).kernels
        copy = tmp / f"copy{index}{path.suffix}"
        copy.write_bytes(path.read_bytes())
        for inputs in ([path, path], [path, copy]):
            out = tmp / f"same{index}-{len(str(inputs[1]))}"
            report = run_import(binary, inputs, out)
            what = f"{relative} given as {[str(p.name) for p in inputs]}"
            problems += [f"{what}: {p}" for p in shared.compare_kernels(expected, shared.reported_kernels(report),
                                                                         REL_TOL)]
            if len(report["sources"]) != 1:
                problems.append(f"{what}: {len(report['sources'])} sources, expected 1")
            notes = report["diagnostics"].get("notes", [])
            if not any("same content" in n for n in notes):
                problems.append(f"{what}: no 'same content' note in {notes}")
            sections = (out / "kernels.md").read_text().count("\n\nFormat: ")
            if sections != 1:
                problems.append(f"{what}: kernels.md has {sections} input sections, expected 1")
            if kind == "nsys-sqlite":
                problems += timeline_counts(path, report, what)
    return problems


def timeline_counts(sqlite_path, report, what):
    """gpu_timeline kernels and copies of an nsys export, counted with sqlite3."""
    con = sqlite3.connect(f"file:{sqlite_path}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    kernels = con.execute("select count(*) from CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    copies = sum(con.execute(f"select count(*) from {t}").fetchone()[0]
                 for t in ("CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET") if t in tables)
    got_k = sum(d["kernels"] for d in report["gpu_timeline"])
    got_c = sum(d["copies"] for d in report["gpu_timeline"])
    if (got_k, got_c) != (kernels, copies):
        return [f"{what}: gpu_timeline has {got_k} kernels, {got_c} copies; the export has {kernels}, {copies}"]
    return []


# ---------------------------------------------------------------- item 2


def kineto_rank_traces(archive):
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            if member.isfile() and member.name.endswith(".json"):
                yield member.name, json.load(tar.extractfile(member))


def union_length(intervals):
    total, end = 0, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            total += e - s
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def check_per_device_busy(binary, fixtures, tmp):
    """report.html of the 8-rank archive: each device's idle %, no union over devices; distinct kernels = names."""
    archive = fixtures / "kineto" / "param-dlrm-8ranks.tar.gz"
    idle_pcts, names = [], set()
    for _, trace in kineto_rank_traces(archive):
        ops = [e for e in trace["traceEvents"] if e.get("ph") == "X" and
               e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
        names.update(e["name"] for e in ops if e["cat"] == "kernel")
        by_device = defaultdict(list)
        for e in ops:
            by_device[e["args"].get("device")].append((e["ts"], e["ts"] + e["dur"]))
        for intervals in by_device.values():
            span = max(e for _, e in intervals) - min(s for s, _ in intervals)
            idle_pcts.append(100.0 * (span - union_length(intervals)) / span)
    out = tmp / "dlrm"
    run_import(binary, [archive], out)
    html = (out / "report.html").read_text()
    problems = []
    if "GPU busy (any stream)" in html:
        problems.append("report.html still shows a busy time over all devices ('GPU busy (any stream)')")
    tile = re.search(r'<div class="value">([0-9.]+) to ([0-9.]+) %</div><div class="label">GPU idle per device', html)
    if not tile:
        problems.append("no per-device idle tile")
    elif (tile.group(1), tile.group(2)) != (f"{min(idle_pcts):.1f}", f"{max(idle_pcts):.1f}"):
        problems.append(f"idle tile {tile.group(1)} to {tile.group(2)} %, expected "
                        f"{min(idle_pcts):.1f} to {max(idle_pcts):.1f} %")
    shown = sorted(float(m) for m in re.findall(r'<td class="num">([0-9.]+) %</td></tr>', html))
    want = sorted(round(p, 1) for p in idle_pcts)
    if shown[:len(want)] != want and sorted(set(shown) & set(want)) != sorted(set(want)):
        problems.append(f"per-device idle % in the table {shown}, expected {want}")
    distinct = re.search(r'<div class="value">(\d+)</div><div class="label">distinct kernels', html)
    if not distinct or int(distinct.group(1)) != len(names):
        problems.append(f"distinct kernels {distinct.group(1) if distinct else None}, expected {len(names)} names")
    embedded = re.search(r'"gpu_busy_ms":(null|[0-9.eE+-]+)', html)
    if embedded and embedded.group(1) != "null":
        problems.append(f"embedded timeline.gpu_busy_ms {embedded.group(1)}: a union over devices")
    print(f"  idle % per device {min(idle_pcts):.1f} to {max(idle_pcts):.1f}; {len(names)} kernel names")
    return problems


# ---------------------------------------------------------------- item 3


def details_values(path):
    """(section, label) -> {ID: value} of a details page, and ID -> duration in ns."""
    values, durations = defaultdict(dict), {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if not row.get("Metric Name"):
                continue
            try:
                value = float(row["Metric Value"].replace(",", ""))
            except ValueError:
                continue
            values[(row["Section Name"], row["Metric Name"])][row["ID"]] = value
            if row["Metric Name"] == "Duration" and row["Section Name"] == shared.SOL_SECTION:
                durations[row["ID"]] = shared.to_ms(row["Metric Value"], row["Metric Unit"]) * 1e6
    return values, durations


def raw_values(path):
    """Raw page: unprefixed metric name -> {ID: value}."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header, ids = rows[0], rows[0].index("ID")
    columns = defaultdict(dict)
    for i, name in enumerate(header):
        if "__" not in name or "." in name.split("__")[0]:
            continue  # identity columns, and breakdown-prefixed copies
        for row in rows[2:]:
            try:
                columns[name][row[ids]] = float(row[i].replace(",", ""))
            except ValueError:
                pass
    return columns


def printed_equal(shown, value):
    """`shown` is `value` as the details page prints it (three significant digits, or more)."""
    if value == 0:
        return shown == 0
    return abs(shown - value) <= 0.5 * 10 ** (math.floor(math.log10(abs(value))) - 2) * (1 + 1e-9)


def matches(details, raw):
    """Value for value on every launch, with at least three different values on both pages."""
    if set(details) != set(raw) or len(set(raw.values())) < 3 or len(set(details.values())) < 3:
        return False
    return all(printed_equal(details[k], raw[k]) for k in details)


def check_display_rule_as_raw(binary, fixtures, tmp):
    """Every details-page metric that is, launch for launch, a raw-page metric combines by the raw metric's rule."""
    folder = fixtures / "ncu-csv" / "sglang-h200"
    details, durations = details_values(folder / "details.csv")
    raw = raw_values(folder / "raw.csv")
    d_report = run_import(binary, [folder / "details.csv"], tmp / "details")
    r_report = run_import(binary, [folder / "raw.csv"], tmp / "raw")

    def rules(report):
        out = {}
        for k in report["kernels"]:
            for m in k["metrics"]:
                out.setdefault((m["section"], m["name"]), m["aggregation"])
        return out

    d_rules, r_rules = rules(d_report), rules(r_report)
    problems, pairs = [], 0
    for key, per_launch in details.items():
        # Every raw column it equals: several rollups of one counter (Duration is gpu__time_duration .sum,
        # .avg, .min and .max at once) leave the rule open among theirs; one rule among them decides it.
        same = {name: r_rules.get(("", name)) for name, launches in raw.items() if matches(per_launch, launches)}
        if not same:
            continue
        pairs += 1
        raw_rules = set(same.values())
        if d_rules.get(key) not in raw_rules or (len(raw_rules) == 1 and d_rules.get(key) != next(iter(raw_rules))):
            problems.append(f"'{key[1]}' ({key[0]}) combines by {d_rules.get(key)}, its raw metric(s) "
                            f"{sorted(same)[:3]} by {sorted(raw_rules)}")
    if pairs < 15:
        problems.append(f"only {pairs} details/raw metric pairs matched; the check would prove little")
    # The kernel: fused_moe's two launches, duration-weighted.
    key = ("Occupancy", "Achieved Active Warps Per SM")
    for k in d_report["kernels"]:
        if "fused_moe" not in k["name"]:
            continue
        ids = [i for i in per_launch_ids(folder / "details.csv", k["name"])]
        want = sum(details[key][i] * durations[i] for i in ids) / sum(durations[i] for i in ids)
        got = next(m["value"] for m in k["metrics"] if (m["section"], m["name"]) == key)
        print(f"  {pairs} matched pairs; fused_moe Achieved Active Warps Per SM {got} (expected {want:.4f})")
        if not close(got, want, 1e-9):
            problems.append(f"fused_moe Achieved Active Warps Per SM {got}, duration-weighted {want}")
    return problems


def per_launch_ids(details_path, kernel_name):
    with open(details_path, newline="") as f:
        return sorted({row["ID"] for row in csv.DictReader(f) if row["Kernel Name"] == kernel_name})


# ---------------------------------------------------------------- items 4, 5


def check_flat_summary_cpu_exclusive(binary, fixtures, tmp):
    """nvtx_sum / nvtx_gpu_proj_sum record no nesting: cpu_exclusive_ms is null (JSON), n/a (Markdown, page)."""
    folder = fixtures / "nsys-stats" / "kiln-a6000"
    problems = []
    for name in ("nvtx_sum_nvtx_sum.csv", "nvtx_gpu_proj_sum_nvtx_gpu_proj_sum.csv"):
        out = tmp / name
        run_import(binary, [folder / name], out)
        regions = regions_of(out)
        with open(folder / name, newline="") as f:
            cpu = {row["Range"].lstrip(":"): int(row["Total Time (ns)"] if "Total Time (ns)" in row
                                                 else row["Total Range Time (ns)"]) / 1e6
                   for row in csv.DictReader(f)}
        for r in regions:
            if r["cpu_exclusive_ms"] is not None:
                problems.append(f"{name}: {r['name']} cpu_exclusive_ms {r['cpu_exclusive_ms']}, expected null")
            if r["name"] in cpu and not close(r["cpu_ms"], cpu[r["name"]]):
                problems.append(f"{name}: {r['name']} cpu_ms {r['cpu_ms']}, the file says {cpu[r['name']]}")
        step = next((r for r in regions if r["name"] == "kiln/mtp/step"), None)
        if step is None:
            problems.append(f"{name}: no region kiln/mtp/step")
        md = (out / "regions" / "report.md").read_text()
        if re.search(r"exclusive: [0-9]", md.split("CPU range time", 1)[-1][:200]) and "CPU range time" in md:
            problems.append(f"{name}: report.md gives a CPU exclusive time")
        print(f"  {name}: {len(regions)} regions, kiln/mtp/step cpu_ms {step and step['cpu_ms']}")
    return problems


def sqlite_projection(path):
    """Per NVTX push/pop range name: the summed projection (first GPU start to last end per instance) of
    the kernels launched on its thread while it was open; names without GPU work map to None."""
    con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    tables = {r[0] for r in con.execute("select name from sqlite_master where type='table'")}
    ranges = con.execute("select start, end, text, globalTid from NVTX_EVENTS "
                         "where eventType = 59 and end is not null").fetchall()
    launches = []
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        launches = con.execute("select r.start, r.globalTid, k.start, k.end from CUPTI_ACTIVITY_KIND_RUNTIME r "
                               "join CUPTI_ACTIVITY_KIND_KERNEL k on k.correlationId = r.correlationId").fetchall()
    projection = {}
    for start, end, text, tid in ranges:
        work = [(ks, ke) for call, ctid, ks, ke in launches if ctid == tid and start <= call <= end]
        if work:
            projection[text] = (projection.get(text) or 0) + max(e for _, e in work) - min(s for s, _ in work)
        else:
            projection.setdefault(text, None)
    return projection


def check_no_projection_without_gpu_work(binary, fixtures, tmp):
    """A range with no GPU work has projected_ms null (nsys lists no projection for it), others nsys' value."""
    problems = []
    for name in ("nvtx-examples-2020-cupy.sqlite", "nvtx-examples-2020-multiprocessing.sqlite"):
        path = fixtures / "nsys-sqlite" / name
        expected = sqlite_projection(path)
        out = tmp / name
        run_import(binary, [path], out)
        got = {}
        for r in regions_of(out):
            got[r["range"]] = r["projected_ms"] if got.get(r["range"]) is None else got[r["range"]]
        for text, ns in expected.items():
            want = None if ns is None else ns / 1e6
            have = got.get(text)
            if (want is None) != (have is None) or (want is not None and not close(have, want)):
                problems.append(f"{name}: {text} projected_ms {have}, expected {want}")
        none = sum(v is None for v in expected.values())
        print(f"  {name}: {len(expected)} range names, {none} without GPU work")
    return problems


# ---------------------------------------------------------------- item 6


def check_raw_busiest_unit(binary, fixtures, tmp):
    """The raw page's busiest memory unit from the metric's own columns, as the details page of the run gives it."""
    path = fixtures / "ncu-csv" / "sglang-h200" / "raw.csv"
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    header = rows[0]
    col = {n: header.index(n) for n in header if "__" in n}  # index() finds the unprefixed column first
    duration, kernel = header.index("gpu__time_duration.sum"), header.index("Kernel Name")
    memory = "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"
    units = {"DRAM": "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed",
             "L2": "lts__throughput.avg.pct_of_peak_sustained_elapsed",
             "L1": "l1tex__throughput.avg.pct_of_peak_sustained_active"}
    launches = defaultdict(list)
    for row in rows[2:]:
        launches[row[kernel]].append(row)

    def weighted(rs, name):
        w = [float(r[duration]) for r in rs]
        return sum(float(r[col[name]]) * x for r, x in zip(rs, w)) / sum(w)

    expected = {}
    for name, rs in launches.items():
        m = weighted(rs, memory)
        expected[name] = min(units, key=lambda u: (abs(weighted(rs, units[u]) - m), list(units).index(u)))
    report = run_import(binary, [path], tmp / "raw")
    problems = []
    for k in report["kernels"]:
        got = (k.get("bound") or {}).get("unit")
        if got != expected[k["name"]]:
            problems.append(f"{shared.short(k['name'], 50)}: busiest {got}, expected {expected[k['name']]}")
    counts = defaultdict(int)
    for unit in expected.values():
        counts[unit] += 1
    print(f"  expected busiest units: {dict(counts)}")
    return problems


# ---------------------------------------------------------------- item 7


def check_findings_by_message(binary, fixtures, tmp):
    """fused_moe's two launches: each rule message is its own finding, with its own launches and speedups."""
    path = fixtures / "ncu-csv" / "sglang-h200" / "details.csv"
    _, durations = details_values(path)
    report = run_import(binary, [path], tmp / "details")
    kernel = next(k for k in report["kernels"] if "fused_moe" in k["name"])
    shape = lambda m: re.sub(r"\d+(?:[.,]\d+)*", "#", m)  # noqa: E731
    expected = defaultdict(list)  # (rule, shape) -> [(launch id, speedup)]
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["Kernel Name"] == kernel["name"] and row["Rule Name"] in ("SOLBottleneck", "WorkloadImbalance"):
                speedup = float(row["Estimated Speedup"]) if row["Estimated Speedup"] else None
                expected[(row["Rule Name"], shape(row["Rule Description"]))].append((row["ID"], speedup))
    got = {(f["rule"], shape(f["message"])): f for f in kernel["findings"]
           if f["rule"] in ("SOLBottleneck", "WorkloadImbalance")}
    problems = []
    if set(got) != set(expected):
        problems.append(f"{len(got)} SOLBottleneck/WorkloadImbalance findings, expected {len(expected)} messages")
    for key, launches in expected.items():
        f = got.get(key)
        if f is None:
            continue
        if f["launches"] != len(launches):
            problems.append(f"{key[0]} '{key[1][:40]}': {f['launches']} launches, expected {len(launches)}")
        speedups = [(i, s) for i, s in launches if s is not None]
        if speedups:
            want = sum(s * durations[i] for i, s in speedups) / sum(durations[i] for i, _ in speedups)
            if not close(f["speedup_pct"], want, 1e-9):
                problems.append(f"{key[0]} '{key[1][:40]}': speedup {f['speedup_pct']}, expected {want}")
    md = (tmp / "details" / "kernels.md").read_text()
    # kernels.md shows at most 3 OPT rows per kernel; a row says "(k of n launches) [Tn]" and text Tn is
    # printed once below the table. Every fused_moe row shown must give its finding's launches (from the CSV).
    texts = dict(re.findall(r"^- \*\*(T\d+)\*\* \([^)]*\): (.*)$", md, re.M))
    rows = re.findall(r"^\| 1 \| fused_moe_kernel \| (\w+) \|[^\n]*\| ((?:\(\d+ of \d+ launches\) )?)\[(T\d+)\] \|$", md,
                      re.M)
    if not rows:
        problems.append("kernels.md shows no OPT row of fused_moe")
    for rule, note, text in rows:
        finding = next((f for f in kernel["findings"] if f["rule"] == rule and f["type"] == "OPT"
                        and texts.get(text, "").startswith(f["message"][:60])), None)
        if finding is None:
            problems.append(f"kernels.md row {rule} [{text}] matches no finding of kernels.json")
            continue
        want = "" if finding["launches"] >= kernel["calls"] else f"({finding['launches']} of {kernel['calls']} launches) "
        if note != want:
            problems.append(f"kernels.md row {rule}: '{note}', expected '{want}'")
    partial = sum(1 for f in kernel["findings"] if f["launches"] < kernel["calls"])
    print(f"  fused_moe: {len(rows)} OPT rows in kernels.md; {partial} findings of fewer than all launches in JSON")
    print(f"  fused_moe: {len(expected)} SOLBottleneck/WorkloadImbalance messages over {kernel['calls']} launches")
    return problems


# ---------------------------------------------------------------- item 9


def keys_with_units(value, path=""):
    if isinstance(value, dict):
        for k, v in value.items():
            yield from keys_with_units(v, f"{path}.{k}")
    elif isinstance(value, list):
        for v in value:
            yield from keys_with_units(v, path + "[]")
    else:
        yield path


def check_json_times_in_ms(binary, fixtures, tmp):
    """gpu_breakdown.json times are ms (no *_us, *_ns keys); the Triton kernel's launch statistics checked."""
    path = fixtures / "kineto" / "hta-triton.json.gz"
    trace = json.load(gzip.open(path))
    events = trace["traceEvents"]
    kernels = [e for e in events if e.get("cat") == "kernel"]
    calls = {e["args"]["correlation"]: e for e in events
             if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    paired = [(calls[k["args"]["correlation"]], k) for k in kernels if k["args"].get("correlation") in calls]
    out = tmp / "triton"
    run_import(binary, [path], out)
    problems = []
    for name in ("gpu_breakdown.json", "kernels.json"):
        document = json.loads((out / name).read_text())
        bad = sorted({p for p in keys_with_units(document) if re.search(r"_(us|ns|s)$", p.rsplit(".", 1)[-1])})
        if bad:
            problems.append(f"{name}: times not in ms: {bad[:6]}")
    device = json.loads((out / "gpu_breakdown.json").read_text())["devices"][0]["launch"]
    want_call = sum(c["dur"] for c, _ in paired) / len(paired) / 1e3
    want_gpu = sum(k["dur"] for _, k in paired) / len(paired) / 1e3
    for key, want in (("call_mean_ms", want_call), ("gpu_mean_ms", want_gpu)):
        if not close(device.get(key), want):
            problems.append(f"gpu_breakdown.json launch.{key} {device.get(key)}, expected {want} ms")
    print(f"  {len(paired)} launch(es): call {want_call} ms, GPU {want_gpu} ms")
    return problems


CHECKS = {
    "same_input_once": check_same_input_once,
    "per_device_busy": check_per_device_busy,
    "display_rule_as_raw": check_display_rule_as_raw,
    "flat_summary_cpu_exclusive": check_flat_summary_cpu_exclusive,
    "no_projection_without_gpu_work": check_no_projection_without_gpu_work,
    "raw_busiest_unit": check_raw_busiest_unit,
    "findings_by_message": check_findings_by_message,
    "json_times_in_ms": check_json_times_in_ms,
}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, required=True)
    parser.add_argument("--fixtures", type=Path, required=True)
    parser.add_argument("--check", choices=sorted(CHECKS), action="append", required=True)
    args = parser.parse_args(argv)
    if not args.fixtures.is_dir():
        print(f"SKIP: {args.fixtures} not found (third-party fixtures are only in the development workspace)")
        return SKIP_CODE
    if not args.bin.is_file():
        parser.error(f"--bin {args.bin}: no such executable")
    failed = 0
    for name in args.check:
        with tempfile.TemporaryDirectory(prefix=f"llmpo-{name}-") as tmp:
            try:
                problems = CHECKS[name](args.bin.resolve(), args.fixtures.resolve(), Path(tmp))
            except AssertionError as error:
                problems = [str(error)]
        failed += bool(problems)
        print(("FAIL " if problems else "PASS ") + name + (": " + "; ".join(problems[:8]) if problems else ""))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
