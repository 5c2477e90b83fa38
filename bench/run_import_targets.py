#!/usr/bin/env python3
"""Issue 29's import benchmark: every format at about 10 MB, 100 MB and 1 GB,
our import next to every peer this machine has, in one run, interleaved.

    python3 bench/run_import_targets.py [--reps 3] [--write-results]
    python3 bench/run_import_targets.py --quick       # 10 MB inputs only, a smoke run

Peers (each skipped, and named as skipped, when the machine lacks it):
  cat, wc -l          read the bytes once: the floor of any reader
  ncu CSV             bench/reference_import.py (csv.reader) and --original-style (csv.DictReader)
  nsys SQLite         nsys stats -r gpukernsum,nvtxsum,nvtxppsum (the vendor's tool, Debian's
                      nsight-systems), the sqlite3 shell reading every kernel's times and name, and
                      bench/reference_import.py (Python's sqlite3 module)
  Kineto JSON         bench/peer_kineto_simdjson.cc (simdjson On-Demand, Debian's libsimdjson-dev, built
                      here), bench/peer_kineto_ijson.py (python3-ijson) and bench/reference_kineto.py
                      (json.load and Python loops)
  .ncu-rep            none: Debian's ncu 2022.3 cannot load the generated reports (format 7)

Python peers run on /usr/bin/python3 (Debian's, where python3-ijson is) called directly. A version
manager's shim (pyenv's `python3` is a shell script that resolves the version first) adds its own start
time to every run; the run measures that start next to a direct one and reports it, and no timed peer
goes through a shim.

Every measurement is GNU time's wall, user + system CPU and peak RSS (%M). Reps are interleaved
(rep 1 of every tool, then rep 2...). A peer whose first run takes more than --slow-s seconds runs
once (the table says how many runs each median is of). Our import runs from a private copy of the
binary. Each size's outputs are checked against the peers (kernel count and total time).

--write-results replaces the section between the `import-targets` markers of bench/RESULTS.md.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench as rb  # noqa: E402  (inputs, measurement, machine description)
import run_nsys_stats_bench as nsb  # noqa: E402  (nsys stats tables and agreement)

BEGIN = "<!-- import-targets begin -->"
END = "<!-- import-targets end -->"
PY = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

# Targets (fixed by issue 29; do not tune them to the results).
NCU_VS_WC = 2.5          # ncu CSV 1 GB: our wall <= 2.5x wc -l
KINETO_CPU_VS_CAT = 8.0  # Kineto 1 GB: our CPU <= 8x cat
KINETO_RSS_MIB = 100.0   # Kineto 1 GB: peak RSS
NSYS_CPU_VS_STATS = 0.5  # nsys SQLite 1M and 10M kernels: our CPU <= 0.5x nsys stats
NSYS_RSS_MIB_10M = 200.0
LINEAR_TOLERANCE = 1.25  # CPU per MB at the largest size within 1.25x of the middle size's


def formats(quick, only=None):
    """(format, size label, generator kind, generator arguments) per input; `only`: formats starting with it."""
    full = [
        ("ncu CSV", "10 MB", "ncu", {"launches": 1000, "metrics": 40}),
        ("ncu CSV", "100 MB", "ncu", {"launches": 10000, "metrics": 40}),
        ("ncu CSV", "1 GB", "ncu", {"launches": 100000, "metrics": 40}),
        ("nsys SQLite", "100k kernels", "nsys", {"kernels": 100000, "ranges": 10000}),
        ("nsys SQLite", "1M kernels", "nsys", {"kernels": 1000000, "ranges": 100000}),
        ("nsys SQLite", "10M kernels", "nsys", {"kernels": 10000000, "ranges": 1000000}),
        ("nsys SQLite + CUDA API", "1M kernels", "nsys-rt", {"kernels": 1000000, "ranges": 100000}),
        ("nsys SQLite + CUDA API", "10M kernels", "nsys-rt", {"kernels": 10000000, "ranges": 1000000}),
        ("Kineto", "10 MB", "kineto", {"mb": 10}),
        ("Kineto", "100 MB", "kineto", {"mb": 100}),
        ("Kineto", "1 GB", "kineto", {"mb": 1000}),
        (".ncu-rep", "10 MB", "ncu-rep", {"results": 2800}),
        (".ncu-rep", "100 MB", "ncu-rep", {"results": 28000}),
        (".ncu-rep", "1 GB", "ncu-rep", {"results": 280000}),
    ]
    return [f for f in full if (not quick or f[1] in ("10 MB", "100k kernels")) and (not only or f[0].startswith(only))]


def ensure(scratch, kind, args, regen):
    if kind in ("ncu", "nsys"):
        return rb.ensure_input(scratch, kind, args, regen)[0]
    if kind == "nsys-rt":  # with a CUDA API table, so kernels are attributed to the NVTX ranges
        path = os.path.join(scratch, f"nsysrt_K{args['kernels']}_R{args['ranges']}.sqlite")
        cmd = [PY, os.path.join(rb.BENCH, "gen_nsys_sqlite.py"), "--kernels", str(args["kernels"]), "--ranges",
               str(args["ranges"]), "--runtime", "--out", path]
    elif kind == "kineto":
        path = os.path.join(scratch, f"kineto_{args['mb']}MB.json")
        cmd = [PY, os.path.join(rb.BENCH, "gen_kineto_trace.py"), path, "--mb", str(args["mb"])]
    else:
        path = os.path.join(scratch, f"ncu_rep_R{args['results']}.ncu-rep")
        cmd = [PY, os.path.join(rb.BENCH, "gen_ncu_rep.py"), "--results", str(args["results"]), "--out", path]
    if regen or not os.path.exists(path):
        rb.log(f"generating {path} ...")
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return path


def build_simdjson_peer(scratch):
    if not os.path.exists("/usr/include/simdjson.h"):
        return None, "libsimdjson-dev is not installed"
    exe = os.path.join(scratch, "peer_kineto_simdjson")
    src = os.path.join(rb.BENCH, "peer_kineto_simdjson.cc")
    r = subprocess.run(["g++", "-std=c++20", "-O2", src, "-lsimdjson", "-o", exe], capture_output=True, text=True)
    return (exe, None) if r.returncode == 0 else (None, "build failed: " + r.stderr[-300:])


def has_ijson():
    return subprocess.run([PY, "-c", "import ijson"], capture_output=True).returncode == 0


def peers(kind, tools):
    """The commands run on one input, by tool name; FILE and OUT are filled in later."""
    p = {"ours": ["{BIN}", "import", "{FILE}", "--out", "{OUT}", "-q"], "cat": ["cat", "{FILE}"],
         "wc -l": ["wc", "-l", "{FILE}"]}
    if kind == "ncu":
        p["Python csv.reader"] = [PY, os.path.join(rb.BENCH, "reference_import.py"), "{FILE}", "--per-kernel"]
        p["Python csv.DictReader"] = p["Python csv.reader"] + ["--original-style"]
    elif kind in ("nsys", "nsys-rt"):
        p["Python sqlite3"] = [PY, os.path.join(rb.BENCH, "reference_import.py"), "{FILE}", "--per-kernel"]
        if tools["sqlite3"]:
            p["sqlite3 shell"] = ["sqlite3", "-readonly", "{FILE}", rb.SQLITE_FLOOR_QUERY]
        if tools["nsys"]:
            p["nsys stats"] = [tools["nsys"], "stats", "-q", "-r", nsb.REPORTS, "-f", "csv", "-o", "{OUT}",
                               "--force-overwrite", "true", "{COPY}"]
    elif kind == "kineto":
        if tools["simdjson"]:
            p["simdjson On-Demand"] = [tools["simdjson"], "{FILE}"]
        if tools["ijson"]:
            p["Python ijson"] = [PY, os.path.join(rb.BENCH, "peer_kineto_ijson.py"), "{FILE}"]
        p["Python json.load"] = [PY, os.path.join(rb.BENCH, "reference_kineto.py"), "{FILE}"]
    return p


def shim_start_cost(reps=5):
    """Median wall seconds of `python3 -c pass` through PATH's python3 and through PY directly."""
    shim = shutil.which("python3")
    out = {}
    for label, exe in (("PATH python3", shim), ("direct", PY)):
        if not exe:
            continue
        walls = []
        for _ in range(reps):
            t0 = time.perf_counter()
            subprocess.run([exe, "-c", "pass"], check=False)
            walls.append(time.perf_counter() - t0)
        out[label] = (exe, statistics.median(walls))
    return out


def measure(cmd, stem, stdout_to_file):
    """Wall, CPU (user + system) and peak RSS of cmd alone. CPU and RSS from GNU time; wall from this
    process's monotonic clock around it, because GNU time's %e has a resolution of 10 ms, which at the
    0.1-0.3 s of the 1 GB ncu CSV runs moves the wall ratio by up to 10 %. The clock also counts GNU time's
    own start (about a millisecond), the same for every tool."""
    stats = stem + ".time"
    with open(stem + ".out" if stdout_to_file else os.devnull, "wb") as out, open(stem + ".err", "wb") as err:
        t0 = time.perf_counter()
        rc = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", "-o", stats] + cmd, stdout=out, stderr=err,
                            stdin=subprocess.DEVNULL).returncode
        wall = time.perf_counter() - t0
    _, user, system, rss = open(stats).read().split()[-4:]
    return {"wall_s": wall, "cpu_s": float(user) + float(system), "rss_mib": int(rss) / 1024.0, "rc": rc,
            "stdout": stem + ".out"}


def fill(cmd, values):
    return [values.get(c, c) for c in cmd]


def run_all(inputs, a, binary, tools, logs):
    """runs[(input index, tool)] = list of measurements; reps interleaved over every input and tool."""
    runs, slow = {}, set()
    for rep in range(1, a.reps + 1):
        for i, inp in enumerate(inputs):
            for tool, cmd in peers(inp["kind"], tools).items():
                if (i, tool) in slow:
                    continue
                stem = os.path.join(logs, f"targets.{i}.{tool.replace(' ', '_')}.{rep}")
                out = os.path.join(a.scratch, "out", f"targets.{i}.{tool.replace(' ', '_')}")
                shutil.rmtree(out, ignore_errors=True)
                values = {"{BIN}": binary, "{FILE}": inp["path"], "{OUT}": out, "{COPY}": inp.get("copy", "")}
                # Every run starts with its input in the page cache, whatever ran before it (a 1 GB input
                # read after the 10M-kernel runs was partly evicted: that first run took twice as long).
                read = [inp["copy"]] if "{COPY}" in cmd else [inp["path"]]
                subprocess.run(["cat"] + read, stdout=subprocess.DEVNULL, check=True)
                m = measure(fill(cmd, values), stem, tool not in ("cat", "wc -l"))
                m["out"] = out
                runs.setdefault((i, tool), []).append(m)
                rb.log(f"  {inp['format']:11} {inp['size']:12} {tool:22} rep {rep}: {m['wall_s']:7.2f} s wall "
                       f"{m['cpu_s']:7.2f} s CPU {m['rss_mib']:8.1f} MiB" + ("" if m["rc"] == 0 else f" EXIT {m['rc']}"))
                if m["rc"] != 0:
                    sys.exit(f"failed: {' '.join(fill(cmd, values))} (see {stem}.err)")
                if rep == 1 and tool != "ours" and m["wall_s"] > a.slow_s:
                    slow.add((i, tool))
    return runs


def median(runs, key):
    return statistics.median(m[key] for m in runs) if runs else None


def rel(a, b):
    return 0.0 if a == b else abs(a - b) / max(abs(a), abs(b))


def agreement(inp, runs, i):
    """Lines naming what was compared and whether it agrees; MISMATCH lines make the run fail."""
    ours = runs[(i, "ours")][-1]["out"]
    lines = []
    if inp["kind"] in ("ncu", "nsys", "nsys-rt"):
        ref = "Python csv.reader" if inp["kind"] == "ncu" else "Python sqlite3"
        res = rb.compare(inp["size"], os.path.join(ours, "kernels.json"), runs[(i, ref)][-1]["stdout"])
        lines.append(f"{ref}: kernels {res.get('ours_kernels')} / {res.get('ref_kernels')}, calls "
                     f"{res.get('ours_calls')} / {res.get('ref_calls')}, total ms rel. diff {res.get('ms_rel', 'n/a')}"
                     + ("" if res["ok"] else " MISMATCH " + "; ".join(res["details"][:3])))
    if (i, "nsys stats") in runs:
        o, n = nsb.our_tables(ours), nsb.nsys_tables(runs[(i, "nsys stats")][-1]["out"])
        diffs = nsb.agree(o[0], n[0], "kernel") + nsb.agree(o[1], n[1], "range")
        lines.append(f"nsys stats: {len(n[0])} kernel names, {len(n[1])} folded range names"
                     + (" MISMATCH " + "; ".join(diffs[:3]) if diffs else " agree"))
    if inp["kind"] == "kineto":
        doc = json.load(open(os.path.join(ours, "gpu_breakdown.json")))
        kernels = sum(d["kernels"] for d in doc["devices"])
        kernel_us = sum(d["kernel_ms"] for d in doc["devices"]) * 1000
        for tool in ("simdjson On-Demand", "Python ijson", "Python json.load"):
            if (i, tool) not in runs:
                continue
            peer = json.load(open(runs[(i, tool)][-1]["stdout"]))
            ok = peer["kernels"] == kernels and rel(peer["total_us"], kernel_us) <= 1e-6
            lines.append(f"{tool}: kernels {peer['kernels']:,} / ours {kernels:,}, kernel time "
                         f"{peer['total_us']:.3f} / ours {kernel_us:.3f} us" + ("" if ok else " MISMATCH"))
    if inp["kind"] == "ncu-rep":
        calls = sum(k["calls"] for k in json.load(open(os.path.join(ours, "kernels.json")))["kernels"])
        ok = calls == inp["args"]["results"]
        lines.append(f"generator: {inp['args']['results']:,} results, ours {calls:,} kernel calls"
                     + ("" if ok else " MISMATCH"))
    return lines


def result_table(inputs, runs):
    lines = ["| format | input | MB | tool | runs | wall s | CPU s | peak RSS MiB | MB/s (wall) | CPU / ours CPU |",
             "|---|---|---:|---|---:|---:|---:|---:|---:|---:|"]
    for i, inp in enumerate(inputs):
        ours_cpu = median(runs[(i, "ours")], "cpu_s")
        for (j, tool), ms in runs.items():
            if j != i:
                continue
            wall, cpu = median(ms, "wall_s"), median(ms, "cpu_s")
            lines.append(f"| {inp['format']} | {inp['size']} | {inp['mb']:.1f} | {tool} | {len(ms)} | {wall:.3f} | "
                         f"{cpu:.3f} | {median(ms, 'rss_mib'):.1f} | {inp['mb'] / max(wall, 1e-3):,.0f} | "
                         f"{cpu / max(ours_cpu, 1e-3):.2f} |")
    return lines


def linearity_table(inputs, runs):
    lines = ["| format | input | MB | ours CPU s | CPU s per GB | ours wall s | wall s per GB | peak RSS MiB |",
             "|---|---|---:|---:|---:|---:|---:|---:|"]
    for i, inp in enumerate(inputs):
        ms = runs[(i, "ours")]
        cpu, wall = median(ms, "cpu_s"), median(ms, "wall_s")
        lines.append(f"| {inp['format']} | {inp['size']} | {inp['mb']:.1f} | {cpu:.3f} | {cpu / inp['mb'] * 1000:.2f} | "
                     f"{wall:.3f} | {wall / inp['mb'] * 1000:.2f} | {median(ms, 'rss_mib'):.1f} |")
    return lines


def targets(inputs, runs):
    """(target, measured, goal, passed) rows; a target whose input or peer did not run is left out."""
    rows = []
    by = {(inp["format"], inp["size"]): i for i, inp in enumerate(inputs)}

    def med(fmt, size, tool, key):
        i = by.get((fmt, size))
        return None if i is None or (i, tool) not in runs else median(runs[(i, tool)], key)

    ours_wall, wc = med("ncu CSV", "1 GB", "ours", "wall_s"), med("ncu CSV", "1 GB", "wc -l", "wall_s")
    if ours_wall and wc:
        rows.append(("ncu CSV 1 GB: ours wall / `wc -l` wall", f"{ours_wall / wc:.2f}", f"<= {NCU_VS_WC}",
                     ours_wall / wc <= NCU_VS_WC))
    ours_cpu, cat = med("Kineto", "1 GB", "ours", "cpu_s"), med("Kineto", "1 GB", "cat", "cpu_s")
    if ours_cpu and cat:
        rows.append(("Kineto 1 GB: ours CPU / `cat` CPU", f"{ours_cpu / cat:.2f}", f"<= {KINETO_CPU_VS_CAT}",
                     ours_cpu / cat <= KINETO_CPU_VS_CAT))
        rss = med("Kineto", "1 GB", "ours", "rss_mib")
        rows.append(("Kineto 1 GB: ours peak RSS", f"{rss:.1f} MiB", f"<= {KINETO_RSS_MIB:g} MiB", rss <= KINETO_RSS_MIB))
        for peer in ("simdjson On-Demand", "Python ijson", "Python json.load"):
            other = med("Kineto", "1 GB", peer, "cpu_s")
            if other:
                rows.append((f"Kineto 1 GB: ours CPU / {peer} CPU", f"{ours_cpu / other:.2f}", "< 1",
                             ours_cpu < other))
    for fmt in ("nsys SQLite", "nsys SQLite + CUDA API"):
        for size in ("1M kernels", "10M kernels"):
            ours_cpu, stats = med(fmt, size, "ours", "cpu_s"), med(fmt, size, "nsys stats", "cpu_s")
            if ours_cpu and stats:
                rows.append((f"{fmt} {size}: ours CPU / `nsys stats` CPU", f"{ours_cpu / stats:.2f}",
                             f"<= {NSYS_CPU_VS_STATS}", ours_cpu / stats <= NSYS_CPU_VS_STATS))
        rss = med(fmt, "10M kernels", "ours", "rss_mib")
        if rss:
            rows.append((f"{fmt} 10M kernels: ours peak RSS", f"{rss:.1f} MiB", f"<= {NSYS_RSS_MIB_10M:g} MiB",
                         rss <= NSYS_RSS_MIB_10M))
    for fmt in dict.fromkeys(inp["format"] for inp in inputs):
        sizes = [i for i, inp in enumerate(inputs) if inp["format"] == fmt]
        if len(sizes) < 2:
            continue
        per = [median(runs[(i, "ours")], "cpu_s") / inputs[i]["mb"] for i in sizes]
        rows.append((f"{fmt}: ours CPU per MB, largest / middle input", f"{per[-1] / per[-2]:.2f}",
                     f"<= {LINEAR_TOLERANCE}", per[-1] / per[-2] <= LINEAR_TOLERANCE))
    return rows


def report(a, inputs, runs, tools, shim, started, load_before, problems):
    machine = rb.machine_info()
    lines = [BEGIN, "## Issue 29 targets: every format, every peer, 10 MB to 1 GB", "",
             f"- Date: {started} (finished {time.strftime('%H:%M:%S', time.gmtime())}); load average "
             f"{load_before} before, {rb.loadavg()} after",
             f"- Machine: {machine['nproc']} CPUs, {machine['cpu']}, {machine['ram_gib']} GiB RAM",
             f"- Command: `python3 bench/run_import_targets.py --reps {a.reps} --slow-s {a.slow_s:g}"
             f"{' --quick' if a.quick else ''}{f' --only {chr(39)}{a.only}{chr(39)}' if a.only else ''}"
             f"{' --write-results' if a.write_results else ''}`; repo at {rb.git_info()}",
             "- Ours: `llm-perf-opt import FILE --out DIR -q` (every report written), from a private copy of the binary",
             f"- Peers not run here: {'; '.join(tools['missing']) or 'none'}",
             f"- Python peers run as `{PY}` directly. Start of `python3 -c pass`: "
             + ", ".join(f"{label} (`{exe}`) {s * 1000:.0f} ms" for label, (exe, s) in shim.items())
             + "; a version manager's shim is never in a timed command.",
             "- Medians of the runs (interleaved); a peer slower than the slow limit on its first run ran once. "
             "CPU = user + system (GNU time, children included); the machine is shared, so CPU seconds are the "
             "steadier measure. Wall = this script's monotonic clock around GNU time and the command (GNU "
             "time's own wall clock counts in 10 ms steps). Page cache warm: the input is read by `cat`, untimed, right "
             "before every timed run.", ""]
    lines += result_table(inputs, runs)
    lines += ["", "### Linearity (ours)", ""] + linearity_table(inputs, runs)
    lines += ["", "### Targets", "", "| target | measured | goal | result |", "|---|---|---|---|"]
    lines += [f"| {t} | {v} | {g} | {'PASS' if ok else '**FAIL**'} |" for t, v, g, ok in targets(inputs, runs)]
    lines += ["", "### Agreement (last run of each)", ""]
    lines += [f"- {inp['format']} {inp['size']}: {line}" for inp, line in problems]
    lines.append(END)
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--slow-s", type=float, default=20.0)
    ap.add_argument("--scratch", default="/tmp/llmpo-bench")
    ap.add_argument("--binary", default=os.path.join(rb.ROOT, "build", "release", "llm-perf-opt"))
    ap.add_argument("--regen", action="store_true")
    ap.add_argument("--write-results", action="store_true")
    ap.add_argument("--only", help="run the formats whose name starts with this ('nsys SQLite'); the printed "
                    "tables are then a part, and --write-results is refused")
    a = ap.parse_args()
    if a.only and a.write_results:
        ap.error("--only measures a part of the targets: paste its tables instead of --write-results")
    os.makedirs(a.scratch, exist_ok=True)
    logs = os.path.join(a.scratch, "logs")
    os.makedirs(logs, exist_ok=True)
    binary = rb.private_copy(a.binary, os.path.join(a.scratch, "targets-bin"))
    simdjson, why_not = build_simdjson_peer(a.scratch)
    tools = {"nsys": shutil.which("nsys"), "sqlite3": shutil.which("sqlite3"), "simdjson": simdjson,
             "ijson": has_ijson(), "missing": []}
    if not simdjson:
        tools["missing"].append(f"simdjson ({why_not})")
    if not tools["ijson"]:
        tools["missing"].append(f"ijson (python3-ijson is not importable by {PY})")
    if not tools["nsys"]:
        tools["missing"].append("nsys stats (Debian's nsight-systems is not installed)")
    if not tools["sqlite3"]:
        tools["missing"].append("sqlite3 shell (Debian's sqlite3 is not installed)")
    started, load_before = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), rb.loadavg()
    inputs = []
    for fmt, size, kind, args in formats(a.quick, a.only):
        path = ensure(a.scratch, kind, args, a.regen)
        inp = {"format": fmt, "size": size, "kind": kind, "args": args, "path": path, "mb": os.path.getsize(path) / 1e6}
        if kind in ("nsys", "nsys-rt") and tools["nsys"]:
            inp["copy"] = path + ".nsys-stats-copy.sqlite"  # nsys may add tables to what it reads
            if not os.path.exists(inp["copy"]) or os.path.getsize(inp["copy"]) != os.path.getsize(path):
                shutil.copyfile(path, inp["copy"])
        subprocess.run(["cat", path], stdout=subprocess.DEVNULL, check=True)
        inputs.append(inp)
    shim = shim_start_cost()
    runs = run_all(inputs, a, binary, tools, logs)
    problems = [(inp, line) for i, inp in enumerate(inputs) for line in agreement(inp, runs, i)]
    text = report(a, inputs, runs, tools, shim, started, load_before, problems)
    print(text)
    if a.write_results:
        rb.write_marked_section(os.path.join(rb.BENCH, "RESULTS-quick.md" if a.quick else "RESULTS.md"), BEGIN, END,
                                text)
    sys.exit(1 if any("MISMATCH" in line for _, line in problems) else 0)


if __name__ == "__main__":
    main()
