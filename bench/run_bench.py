#!/usr/bin/env python3
"""Import benchmark: llm-perf-opt vs `wc -l` vs the straightforward Python reference.

    python3 bench/run_bench.py --write-results     # full run, writes bench/RESULTS.md
    python3 bench/run_bench.py --quick             # smoke run, small inputs (< 1 minute)

Generates the inputs into a scratch folder (reused when already there with
the same arguments and generator), then, in one run, measures each input
--reps times (default 3) and reports the median:

  (a) `wc -l FILE`                          wall time (the read-the-bytes floor)
  (b) `llm-perf-opt import FILE --out DIR`  wall time and peak RSS; on the ncu
      input also with LLMPO_READ_AHEAD=1 (read-ahead thread), side by side
  (c) `python3 bench/reference_import.py`   wall time and peak RSS; on the ncu
      input also with --original-style (csv.DictReader, as the original tool)
  (d) on the nsys input, where `wc -l` means little, the `sqlite3` shell
      reading every kernel's start, end and name (the least any importer of
      that file must read), when the sqlite3 shell is installed

plus our import on half-size inputs (does peak memory grow with the file?),
and checks that our kernels.json and the reference agree on kernel count,
total calls and total milliseconds.  Peak RSS is the measured
command's own ru_maxrss, reported by GNU time (/usr/bin/time -f %M).  See bench/README.md.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import shlex
import shutil
import statistics
import subprocess
import sys
import time

BENCH = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(BENCH)

# Targets (fixed; do not tune them to the results).
TARGET_VS_REFERENCE = 50.0  # reference_time / our_time >= 50
TARGET_VS_WC = 3.0  # our_time / wc_time <= 3
FLAT_REL = 0.10  # "flat" memory: peak RSS at full size <= half-size RSS + max(10%, 8 MiB)
FLAT_ABS_KB = 8 * 1024
TOTAL_MS_REL = 1e-6
# What (d) runs: every kernel row's times and its name, summed so the shell
# prints one line.
SQLITE_FLOOR_QUERY = ("SELECT count(*), sum(k.end - k.start), sum(length(s.value)) "
                      "FROM CUPTI_ACTIVITY_KIND_KERNEL AS k JOIN StringIds AS s ON s.id = k.demangledName")


def sizes(quick):
    if quick:
        return {
            "ncu": ("ncu", {"launches": 5000, "metrics": 40}),
            "ncu-half": ("ncu", {"launches": 2500, "metrics": 40}),
            "nsys": ("nsys", {"kernels": 50000, "ranges": 5000}),
            "nsys-half": ("nsys", {"kernels": 25000, "ranges": 2500}),
        }
    return {
        "ncu": ("ncu", {"launches": 100000, "metrics": 40}),
        "ncu-half": ("ncu", {"launches": 50000, "metrics": 40}),
        "nsys": ("nsys", {"kernels": 1000000, "ranges": 100000}),
        "nsys-half": ("nsys", {"kernels": 500000, "ranges": 50000}),
    }


GENERATORS = {
    "ncu": ("gen_ncu_details.py", lambda a: f"ncu_details_L{a['launches']}_M{a['metrics']}.csv"),
    "nsys": ("gen_nsys_sqlite.py", lambda a: f"nsys_K{a['kernels']}_R{a['ranges']}.sqlite"),
    # used by run_region_bench.py
    "regions": ("gen_ncu_regions.py", lambda a: f"ncu_regions_R{a['regions']}_K{a['results']}.csv"),
}

# RESULTS.md holds this bench's report and, between these markers, the
# region bench's section (run_region_bench.py).  Each harness rewrites only
# its own part and keeps the other.
REGION_BEGIN = "<!-- region-bench:begin -->"
REGION_END = "<!-- region-bench:end -->"


def region_section_span(text):
    """(start, end) of the marked region-bench section in text, or None."""
    i = text.find(REGION_BEGIN)
    j = text.find(REGION_END, i + 1) if i >= 0 else -1
    if i < 0 or j < 0:
        return None
    return i, j + len(REGION_END)


def next_boundary(text, start):
    """Where the section holding text[start] ends: the next heading or marker, or the end."""
    ends = [x for x in (text.find("\n## ", start), text.find("\n<!--", start)) if x >= 0]
    return min(ends) if ends else len(text)


def replace_heading_section(dest, heading, text):
    """Writes text in place of the section that starts at `heading` in dest (up to the next
    heading or marker; the section moves to the end), or at the end when there is none."""
    old = open(dest).read()
    start = old.find(heading)
    if start >= 0:
        old = old[:start] + old[next_boundary(old, start + 1) + 1:]
    open(dest, "w").write(old.rstrip("\n") + "\n\n" + text)


def kept_region_section(dest):
    """The other benchmarks' sections of an existing results file (region bench, tracer, HTML), or ""."""
    try:
        with open(dest) as f:
            text = f.read()
    except OSError:
        return ""
    span = region_section_span(text)
    kept = text[span[0]:span[1]] + "\n" if span else ""
    for heading in ("## Tracer", "## HTML report"):  # run_trace_bench.py, run_html_bench.py
        at = text.find(heading)
        if at >= 0:
            end = next_boundary(text, at + 1)
            kept += "\n" + text[at:end + 1].rstrip("\n") + "\n"
    # Sections between markers, with the text that follows up to the next
    # heading (run_ncu_rep_bench.py, run_kineto_bench.py, run_nsys_stats_bench.py).
    for begin, end_marker in (("<!-- ncu-rep bench -->", "<!-- /ncu-rep bench -->"),
                              ("<!-- kineto-bench begin -->", "<!-- kineto-bench end -->"),
                              ("<!-- nsys-stats-bench begin -->", "<!-- nsys-stats-bench end -->")):
        at = text.find(begin)
        stop = text.find(end_marker, at + 1) if at >= 0 else -1
        if stop >= 0:
            tail = next_boundary(text, stop)
            kept += "\n" + text[at:tail + 1].rstrip("\n") + "\n"
    return kept


def write_marked_section(dest, begin, end, text):
    """Replaces the text between the `begin` and `end` markers of dest (the markers included; `text` has its own),
    or appends it when dest has none; the other sections stay."""
    old = open(dest).read() if os.path.exists(dest) else ""
    if begin in old:
        old = old[:old.index(begin)] + text + old[old.index(end) + len(end) + 1:]
    else:
        old = old.rstrip("\n") + "\n\n" + text
    with open(dest, "w") as f:
        f.write(old)


def warm_page_cache(inputs):
    """Reads every input once (not timed) and records its line count as inp["lines"]."""
    for inp in inputs.values():
        out = subprocess.run(["wc", "-l", inp["path"]], capture_output=True, text=True, check=True).stdout
        inp["lines"] = int(out.split()[0])


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def private_copy(binary_src, folder):
    """A copy of the binary with the config tree beside it (it reads <its folder>/conf), so a
    rebuild during the run cannot change what is measured; returns the copy's path."""
    os.makedirs(folder, exist_ok=True)
    binary = os.path.join(folder, "llm-perf-opt")
    shutil.copy2(binary_src, binary)
    conf = os.path.join(folder, "conf")
    shutil.rmtree(conf, ignore_errors=True)
    shutil.copytree(os.path.join(os.path.dirname(BENCH), "conf"), conf)
    return binary


def file_sha(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()[:16]


def ensure_input(scratch, kind, args, regen):
    """Generate one input unless a matching one is already in scratch."""
    script, namer = GENERATORS[kind]
    path = os.path.join(scratch, namer(args))
    meta_path = path + ".meta.json"
    gen_sha = file_sha(os.path.join(BENCH, script))
    if not regen and os.path.exists(path) and os.path.exists(meta_path):
        try:
            with open(meta_path) as f:
                meta = json.load(f)
            if meta.get("args") == args and meta.get("generator_sha") == gen_sha and \
                    meta.get("size") == os.path.getsize(path):
                return path, meta, True
        except (OSError, ValueError):
            pass
    cmd = [sys.executable, os.path.join(BENCH, script), "--out", path]
    for k, v in args.items():
        cmd += [f"--{k}", str(v)]
    log(f"generating {path} ...")
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True)
    meta = {"args": args, "generator": script, "generator_sha": gen_sha, "size": os.path.getsize(path),
            "generated_s": round(time.perf_counter() - t0, 2),
            "command": " ".join(shlex.quote(c) for c in [os.path.relpath(c, ROOT) if c.startswith(ROOT) else c
                                                        for c in cmd])}
    with open(meta_path, "w") as f:
        json.dump(meta, f, indent=1)
    return path, meta, False


GNU_TIME = "/usr/bin/time"


def measure(cmd, stdout_path, stderr_path, env=None):
    """Run cmd; wall time, CPU time and peak RSS (KiB) of that command alone.

    Peak RSS comes from GNU time (`%M`, the child's ru_maxrss).  Not from
    os.wait4 on a child of this script: on Linux a child spawned from Python
    inherits the spawning process's RSS high-water mark at exec, so every
    reading would be floored at this script's ~20 MiB.  GNU time is tiny, so
    its floor is ~1-2 MiB.  Without /usr/bin/time, fall back to os.wait4.
    """
    stats_path = stdout_path + ".time"
    use_time = os.access(GNU_TIME, os.X_OK)
    full = [GNU_TIME, "-f", "%e %U %S %M", "-o", stats_path] + cmd if use_time else cmd
    with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(full, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    m = {"wall_s": wall, "user_s": ru.ru_utime, "sys_s": ru.ru_stime, "maxrss_kb": ru.ru_maxrss,
         "rc": p.returncode, "rss_by": "os.wait4 (floored at the bench's own RSS)"}
    if use_time:
        try:
            with open(stats_path) as f:
                last = f.read().strip().splitlines()[-1].split()
            m.update(user_s=float(last[1]), sys_s=float(last[2]), maxrss_kb=int(last[3]), rss_by="GNU time %M")
        except (OSError, IndexError, ValueError):
            m["rc"] = m["rc"] or -1
    return m


def ours_by_name(kernels_json):
    """kernels.json entries are per (source, process, device, name): fold by name."""
    with open(kernels_json) as f:
        data = json.load(f)
    per = {}
    for k in data.get("kernels", []):
        e = per.setdefault(k["name"], {"calls": 0, "total_ms": 0.0})
        e["calls"] += k.get("calls", 0)
        e["total_ms"] += k.get("total_ms") or 0.0
    return per, len(data.get("kernels", []))


def rel_diff(a, b):
    if a == b:
        return 0.0
    return abs(a - b) / max(abs(a), abs(b))


def compare(label, ours_json, ref_out):
    """Agreement of our kernels.json and the reference's JSON; returns a dict."""
    res = {"input": label, "ok": False, "details": []}
    try:
        per, entries = ours_by_name(ours_json)
        with open(ref_out) as f:
            ref = json.load(f)
    except (OSError, ValueError, KeyError) as e:
        res["details"].append(f"cannot read results: {e}")
        return res
    ours_calls = sum(e["calls"] for e in per.values())
    ours_ms = sum(e["total_ms"] for e in per.values())
    res.update(ours_kernels=len(per), ours_entries=entries, ref_kernels=ref["kernels"], ours_calls=ours_calls,
               ref_calls=ref["calls"], ours_ms=ours_ms, ref_ms=ref["total_ms"], ms_rel=rel_diff(ours_ms, ref["total_ms"]))
    res["ok"] = (len(per) == ref["kernels"] and ours_calls == ref["calls"] and res["ms_rel"] <= TOTAL_MS_REL)
    if not res["ok"]:
        ref_per = ref.get("per_kernel", {})
        for name in sorted(set(per) | set(ref_per)):
            o, r = per.get(name), ref_per.get(name)
            if o is None or r is None or o["calls"] != r["calls"] or rel_diff(o["total_ms"], r["total_ms"]) > TOTAL_MS_REL:
                res["details"].append(f"{name[:100]!r}: ours={o} reference={r}")
            if len(res["details"]) >= 10:
                break
    return res


def machine_info():
    info = {"nproc": os.cpu_count(), "cpu": "?", "ram_gib": "?", "kernel": platform.release(),
            "python": platform.python_version()}
    try:
        info["nproc_usable"] = len(os.sched_getaffinity(0))
    except AttributeError:
        pass
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    info["ram_gib"] = f"{int(line.split()[1]) / 1024 / 1024:.1f}"
                    break
    except OSError:
        pass
    return info


def git_info():
    try:
        head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True).stdout.strip()
        return head + (" (with uncommitted changes)" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return " ".join(f.read().split()[:3])
    except OSError:
        return "?"


def med(runs, key):
    vals = [r[key] for r in runs if r["rc"] == 0]
    return statistics.median(vals) if vals else None


def fmt(v, spec=".3f", none="n/a"):
    return none if v is None else format(v, spec)



def raw_timing_lines(heading, runs, failed_runs, tools_line):
    """The raw-timings table, the tools legend and any failed runs, as Markdown lines."""
    lines = [heading, "", "| input | tool | rep | wall s | user s | sys s | peak RSS KiB | exit |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for (label, tool), ms in sorted(runs.items()):
        for m in ms:
            lines.append(f"| {label} | {tool} | {m['rep']} | {m['wall_s']:.3f} | {m['user_s']:.3f} | "
                         f"{m['sys_s']:.3f} | {m['maxrss_kb']:,} | {m['rc']} |")
    lines += ["", tools_line]
    if failed_runs:
        lines += ["", "**Failed runs:** " + "; ".join(f"{k[0]} {k[1]} rep {m['rep']} exit {m['rc']} ({m['stderr']})"
                                                     for k, m in failed_runs)]
    return lines

def fifty_times_lines(by):
    """What the 50x target asks for, next to the least time reading the input takes."""
    L = ["## What the 50x target asks (medians, same run)", "",
         "The time our import would need to be 50x faster than each reference, next to a floor: the time a plain "
         "tool needs just to read what any importer must read.", "",
         "| input | reference | reference s | 50x needs ours <= s | floor | floor s | ours s |",
         "|---|---|---:|---:|---|---:|---:|"]
    floors = {"ncu": ("`wc -l` (read the bytes)", "wc"),
              "nsys": ("`sqlite3` reading every kernel's times and name", "sqlite")}
    for label in ("ncu", "nsys"):
        r = by[label]
        what, tool = floors[label]
        for ref, name in (("ref", "csv.reader" if label == "ncu" else "sqlite3 module"), ("ref-orig", "csv.DictReader")):
            if not r.get(ref):
                continue
            L.append(f"| {label} | {name} | {fmt(r[ref], '.2f')} | {fmt(r[ref] / TARGET_VS_REFERENCE)} | {what} | "
                     f"{fmt(r.get(tool), '.3f', 'not measured')} | {fmt(r['ours'])} |")
    return L


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small inputs (5k launches, 50k kernels): a smoke run")
    ap.add_argument("--skip-python", action="store_true", help="do not run the Python reference")
    ap.add_argument("--write-results", action="store_true",
                    help="also write the report to bench/RESULTS.md (bench/RESULTS-quick.md with --quick)")
    ap.add_argument("--scratch", default="/tmp/llmpo-bench", help="where inputs and outputs go (default %(default)s)")
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
    binary_sha = file_sha(binary_src)
    a.binary = private_copy(binary_src, os.path.join(a.scratch, "bench-bin"))
    started = datetime.datetime.now().astimezone()
    load_before = loadavg()

    # ---- inputs
    inputs = {}
    for label, (kind, args) in sizes(a.quick).items():
        path, meta, reused = ensure_input(a.scratch, kind, args, a.regen)
        inputs[label] = {"path": path, "kind": kind, "args": args, "size": os.path.getsize(path), "meta": meta,
                         "reused": reused}

    warm_page_cache(inputs)

    logs = os.path.join(a.scratch, "logs")
    os.makedirs(logs, exist_ok=True)
    runs = {}  # (label, tool) -> [measurement]

    def run(label, tool, rep):
        inp = inputs[label]
        stem = os.path.join(logs, f"{label}.{tool}.{rep}")
        env = None
        if tool == "wc":
            cmd = ["wc", "-l", inp["path"]]
        elif tool == "sqlite":
            cmd = ["sqlite3", "-readonly", inp["path"], SQLITE_FLOOR_QUERY]
        elif tool in ("ours", "ours-ra"):
            outdir = os.path.join(a.scratch, "out", f"{label}.{tool}.{rep}")
            shutil.rmtree(outdir, ignore_errors=True)
            cmd = [a.binary, "import", inp["path"], "--out", outdir]
            if tool == "ours-ra":
                env = dict(os.environ, LLMPO_READ_AHEAD="1")
        else:
            cmd = [sys.executable, os.path.join(BENCH, "reference_import.py"), inp["path"], "--per-kernel"]
            if tool == "ref-orig":
                cmd.append("--original-style")
        m = measure(cmd, stem + ".out", stem + ".err", env)
        m["rep"] = rep
        if tool in ("ours", "ours-ra"):
            m["kernels_json"] = os.path.join(outdir, "kernels.json")
        m["stdout"] = stem + ".out"
        m["stderr"] = stem + ".err"
        runs.setdefault((label, tool), []).append(m)
        log(f"  {label:9} {tool:8} rep {rep}: {m['wall_s']:8.3f} s  peak RSS {m['maxrss_kb'] / 1024:8.1f} MiB"
            + ("" if m["rc"] == 0 else f"  EXIT STATUS {m['rc']} (see {stem}.err)"))

    # Interleaved: one rep of every measurement, then the next rep, so that
    # load from other work on the machine spreads over all of them alike.
    for rep in range(1, a.reps + 1):
        log(f"rep {rep}/{a.reps}")
        for main_label, half_label in (("ncu", "ncu-half"), ("nsys", "nsys-half")):
            run(main_label, "wc", rep)
            if main_label == "nsys" and shutil.which("sqlite3"):
                run(main_label, "sqlite", rep)
            run(main_label, "ours", rep)
            if main_label == "ncu":
                run(main_label, "ours-ra", rep)
            if not a.skip_python:
                run(main_label, "ref", rep)
                if main_label == "ncu":
                    run(main_label, "ref-orig", rep)
            run(half_label, "ours", rep)
    finished = datetime.datetime.now().astimezone()
    load_after = loadavg()

    # ---- agreement
    agreement = []
    if not a.skip_python:
        for label in ("ncu", "nsys"):
            ours_ok = [m for m in runs[(label, "ours")] if m["rc"] == 0]
            ref_ok = [m for m in runs[(label, "ref")] if m["rc"] == 0]
            if not ours_ok or not ref_ok:
                agreement.append({"input": label, "ok": False, "details": ["a run failed; nothing to compare"]})
                continue
            agreement.append(compare(label, ours_ok[0]["kernels_json"], ref_ok[0]["stdout"]))

    # ---- summary numbers
    rows = []
    for label in ("ncu", "nsys", "ncu-half", "nsys-half"):
        inp = inputs[label]
        mb = inp["size"] / 1e6
        r = {"label": label, "mb": mb}
        for tool in ("wc", "sqlite", "ours", "ours-ra", "ref", "ref-orig"):
            ms = runs.get((label, tool))
            r[tool] = med(ms, "wall_s") if ms else None
            r[tool + "_cpu"] = statistics.median([m["user_s"] + m["sys_s"] for m in ms]) if ms else None
            r[tool + "_rss"] = med(ms, "maxrss_kb") if ms else None
            r[tool + "_mbps"] = mb / r[tool] if r[tool] else None
        rows.append(r)
    by = {r["label"]: r for r in rows}

    checks = []  # (target, input, value text, goal text, passed or None)
    for label in ("ncu", "nsys"):
        r = by[label]
        if a.skip_python:
            checks.append(("reference / ours (time)", label, "skipped", f">= {TARGET_VS_REFERENCE:g}", None))
        else:
            v = r["ref"] / r["ours"] if r["ref"] and r["ours"] else None
            checks.append(("reference / ours (time)", label, fmt(v, ".1f"), f">= {TARGET_VS_REFERENCE:g}",
                           v is not None and v >= TARGET_VS_REFERENCE))
        if label == "ncu" and not a.skip_python:
            v = r["ref-orig"] / r["ours"] if r["ref-orig"] and r["ours"] else None
            checks.append(("original-style reference (DictReader) / ours (time)", label, fmt(v, ".1f"),
                           f">= {TARGET_VS_REFERENCE:g}", v is not None and v >= TARGET_VS_REFERENCE))
        v = r["ours"] / r["wc"] if r["ours"] and r["wc"] else None
        checks.append(("ours / wc -l (time)", label, fmt(v, ".1f"), f"<= {TARGET_VS_WC:g}",
                       v is not None and v <= TARGET_VS_WC))
        if label == "ncu":
            v = r["ours-ra"] / r["wc"] if r["ours-ra"] and r["wc"] else None
            checks.append(("ours with read-ahead (LLMPO_READ_AHEAD=1) / wc -l (time)", label, fmt(v, ".1f"),
                           f"<= {TARGET_VS_WC:g}", v is not None and v <= TARGET_VS_WC))
        half = by[label + "-half"]
        if r["ours_rss"] and half["ours_rss"]:
            growth = r["ours_rss"] - half["ours_rss"]
            allowed = max(FLAT_REL * half["ours_rss"], FLAT_ABS_KB)
            checks.append(("peak RSS full vs half size", label,
                           f"{half['ours_rss'] / 1024:.1f} -> {r['ours_rss'] / 1024:.1f} MiB "
                           f"(x{r['ours_rss'] / half['ours_rss']:.2f})",
                           f"flat (growth <= {allowed / 1024:.1f} MiB)", growth <= allowed))
        else:
            checks.append(("peak RSS full vs half size", label, "n/a (a run failed)", "flat", False))
    for ag in agreement:
        checks.append(("kernels.json agrees with reference", ag["input"], "agree" if ag["ok"] else "MISMATCH",
                       f"count, calls exact; total_ms rel <= {TOTAL_MS_REL:g}", ag["ok"]))
    failed_runs = [(k, m) for k, ms in runs.items() for m in ms if m["rc"] != 0]

    # ---- report
    mi = machine_info()
    L = []
    L.append(f"# llm-perf-opt import benchmark{' (QUICK smoke run: small inputs)' if a.quick else ''}")
    L.append("")
    L.append(f"- Date: {started:%Y-%m-%d %H:%M:%S %Z} (finished {finished:%H:%M:%S})")
    L.append(f"- Machine: {mi['nproc']} CPUs ({mi.get('nproc_usable', '?')} usable), {mi['cpu']}, "
             f"{mi['ram_gib']} GiB RAM, Linux {mi['kernel']}, Python {mi['python']}")
    L.append(f"- Load average (1/5/15 min): {load_before} before, {load_after} after")
    L.append(f"- Command: `{' '.join(shlex.quote(x) for x in ['python3', os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:])}`")
    L.append(f"- Binary: `{os.path.relpath(binary_src, ROOT) if binary_src.startswith(ROOT) else binary_src}` "
             f"({os.path.getsize(a.binary):,} bytes, sha256 {binary_sha}..., built "
             f"{datetime.datetime.fromtimestamp(binary_mtime):%Y-%m-%d %H:%M}; a copy in the scratch folder was "
             f"measured), repo at {git_info()}")
    L.append(f"- Each measurement run {a.reps} times, interleaved; tables show the median. Page cache warm "
             f"(each file read once by an untimed `wc -l` first). Peak RSS from {runs[('ncu', 'ours')][0]['rss_by']}.")
    L.append("")
    L.append("## Inputs")
    L.append("")
    L.append("| input | file | bytes | MB | lines | generator | generated |")
    L.append("|---|---|---:|---:|---:|---|---|")
    for label, inp in inputs.items():
        gen = " ".join(f"--{k} {v}" for k, v in inp["args"].items())
        how = "reused from scratch" if inp["reused"] else f"now, {inp['meta'].get('generated_s', '?')} s"
        L.append(f"| {label} | `{inp['path']}` | {inp['size']:,} | {inp['size'] / 1e6:.1f} | {inp['lines']:,} | "
                 f"`{inp['meta']['generator']} {gen}` | {how} |")
    L.append("")
    L.append(f"## Results (median of {a.reps})")
    L.append("")
    L.append("| input | MB | wc -l s | ours s | ours MB/s | ours CPU s | ours peak RSS MiB | reference s | "
             "reference MB/s | reference peak RSS MiB |")
    L.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        L.append(f"| {r['label']} | {r['mb']:.1f} | {fmt(r['wc'])} | {fmt(r['ours'])} | {fmt(r['ours_mbps'], '.0f')} | "
                 f"{fmt(r['ours_cpu'])} | {fmt(r['ours_rss'] and r['ours_rss'] / 1024, '.1f')} | "
                 f"{fmt(r['ref'], '.2f', '-')} | {fmt(r['ref_mbps'], '.1f', '-')} | "
                 f"{fmt(r['ref_rss'] and r['ref_rss'] / 1024, '.1f', '-')} |")
    L.append("")
    n = by["ncu"]
    L.append("## Side by side on the ncu input (medians, same run)")
    L.append("")
    L.append("| measurement | wall s | CPU s | peak RSS MiB | wall / wc -l |")
    L.append("|---|---:|---:|---:|---:|")
    for tool, what in (("wc", "`wc -l`"), ("ours", "ours (one thread, the default)"),
                       ("ours-ra", "ours with read-ahead on a second thread (`LLMPO_READ_AHEAD=1`)"),
                       ("ref", "Python reference, csv.reader"), ("ref-orig", "Python reference, csv.DictReader")):
        if n[tool] is None:
            continue
        L.append(f"| {what} | {fmt(n[tool])} | {fmt(n[tool + '_cpu'])} | "
                 f"{fmt(n[tool + '_rss'] and n[tool + '_rss'] / 1024, '.1f')} | "
                 f"{fmt(n['wc'] and n[tool] / n['wc'], '.2f')} |")
    if n["ours"] and n["ours-ra"]:
        L.append("")
        L.append(f"One-thread wall / read-ahead wall: {n['ours'] / n['ours-ra']:.2f} (above 1: read-ahead is faster); "
                 f"read-ahead CPU / one-thread CPU: {n['ours-ra_cpu'] / n['ours_cpu']:.2f}.")
    L.append("")
    L += fifty_times_lines(by)
    L.append("")
    L.append("## Targets")
    L.append("")
    L.append("| target | input | measured | goal | result |")
    L.append("|---|---|---|---|---|")
    for name, label, value, goal, passed in checks:
        res = "skipped" if passed is None else ("PASS" if passed else "**FAIL**")
        L.append(f"| {name} | {label} | {value} | {goal} | {res} |")
    L.append("")
    if agreement:
        L.append("## Agreement: our kernels.json vs the Python reference")
        L.append("")
        L.append("| input | kernels ours (json entries) / ref | calls ours / ref | total ms ours / ref | rel. diff | |")
        L.append("|---|---|---|---|---:|---|")
        for ag in agreement:
            if "ours_kernels" in ag:
                L.append(f"| {ag['input']} | {ag['ours_kernels']} ({ag['ours_entries']}) / {ag['ref_kernels']} | "
                         f"{ag['ours_calls']:,} / {ag['ref_calls']:,} | {ag['ours_ms']:.6f} / {ag['ref_ms']:.6f} | "
                         f"{ag['ms_rel']:.2e} | {'agree' if ag['ok'] else '**MISMATCH**'} |")
            else:
                L.append(f"| {ag['input']} | | | | | **MISMATCH** |")
            for d in ag["details"]:
                L.append(f"|  | {d} | | | | |")
        L.append("")
    L += raw_timing_lines("## Raw timings", runs, failed_runs,
                          "Tools: `wc` = `wc -l FILE`; `ours` = `llm-perf-opt import FILE --out DIR`; "
                          "`ours-ra` = the same with `LLMPO_READ_AHEAD=1`; "
                          "`ref` = `python3 bench/reference_import.py FILE --per-kernel`; "
                          "`ref-orig` = the same with `--original-style`; "
                          "`sqlite` = `sqlite3 -readonly FILE` with the query in SQLITE_FLOOR_QUERY.")
    report = "\n".join(L) + "\n"
    print(report)
    if a.write_results:
        dest = os.path.join(BENCH, "RESULTS-quick.md" if a.quick else "RESULTS.md")
        kept = kept_region_section(dest)  # the region bench's part, if any, stays
        with open(dest, "w") as f:
            f.write(report + ("\n" + kept if kept else ""))
        log(f"wrote {dest}")
    bad = [ag for ag in agreement if not ag["ok"]]
    if bad:
        banner = "!" * 72
        log(f"\n{banner}\nMISMATCH: our kernels.json and the Python reference disagree on: "
            f"{', '.join(ag['input'] for ag in bad)}\n" + "\n".join(d for ag in bad for d in ag["details"]) +
            f"\n{banner}")
    if failed_runs:
        log(f"FAILED RUNS: {len(failed_runs)} (see the report)")
    return 1 if bad or failed_runs else 0


if __name__ == "__main__":
    sys.exit(main())
