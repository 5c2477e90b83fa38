#!/usr/bin/env python3
"""Check `llm-perf-opt import` against the real third-party profiler outputs.

The fixtures (genuine ncu / nsys outputs, see ../shared/fixtures/README.md)
exist only in the development workspace, so when the folder is missing this
script prints SKIP and exits with 77 (CTest SKIP_RETURN_CODE).

For every fixture the expected per-kernel numbers (calls, total_ms) are
computed here, independently, with the csv / sqlite3 modules. Then
`BIN import FILE --out OUTDIR` runs and OUTDIR/kernels.json is compared.

Usage:
  check_shared_fixtures.py --bin PATH/TO/llm-perf-opt --fixtures DIR
  check_shared_fixtures.py --fixtures DIR --print-expectations

Exit codes: 0 all passed, 1 some check failed, 2 usage error, 77 skipped.
"""

import argparse
import csv
import json
from collections import defaultdict
import math
import re
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import ncu_rep_wire as wire  # noqa: E402

SKIP_CODE = 77
IMPORT_TIMEOUT_S = 300

# ncu time units -> milliseconds (old and new spellings, nsight-reference B.3).
TIME_UNIT_TO_MS = {
    "ns": 1e-6, "nsecond": 1e-6,
    "us": 1e-3, "usecond": 1e-3,
    "ms": 1.0, "msecond": 1.0,
    "s": 1e3, "second": 1e3,
}

# Tolerances. Exact files: relative 1e-6 plus absolute 1e-9 ms.
# details vs raw of the same run: details prints 3 significant digits.
REL_TOL = 1e-6
ABS_TOL = 1e-9
CROSS_REL_TOL = 0.006

# Value of sources[].format expected for each fixture kind.
FORMAT_OF_KIND = {
    "ncu-details": "ncu-details-csv",
    "ncu-raw": "ncu-raw-csv",
    "nsys-stats": "nsys-stats-csv",
    "nsys-sqlite": "nsys-sqlite",
    "ncu-rep": "ncu-report",
}

SOL_SECTION = "GPU Speed Of Light Throughput"
DURATION_METRIC = "gpu__time_duration.sum"


class FixtureError(Exception):
    """A fixture does not have the shape this script expects."""


# --------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------

class Expectation:
    """Expected kernels of one file: name -> [calls, total_ms], plus notes."""

    def __init__(self):
        self.kernels = {}
        self.notes = []

    def add(self, name, calls, total_ms):
        """Add `calls` launches taking `total_ms` in all to kernel `name`.

        total_ms None: no duration known; a kernel with none at all expects null."""
        entry = self.kernels.setdefault(name, [0, None])
        entry[0] += calls
        if total_ms is not None:
            entry[1] = (entry[1] or 0.0) + total_ms

    def summary(self):
        """One-line summary: kernel names, total calls, total ms."""
        calls = sum(c for c, _ in self.kernels.values())
        total = math.fsum(t for _, t in self.kernels.values() if t is not None)
        return f"{len(self.kernels)} kernel names, {calls} calls, {total:.6f} ms"


def parse_number(text):
    """Parse an ncu/nsys number: strip ',' grouping; None for ''/'n/a'."""
    text = text.strip().replace(",", "")
    if text == "" or text.lower() == "n/a":
        return None
    return float(text)


def to_ms(value_text, unit):
    """Convert a time value with its ncu unit to milliseconds."""
    factor = TIME_UNIT_TO_MS.get(unit.strip())
    if factor is None:
        raise FixtureError(f"unknown time unit {unit!r}")
    value = parse_number(value_text)
    return None if value is None else value * factor


def read_csv(path):
    """Read every record of a CSV file (RFC 4180: quotes, embedded newlines)."""
    with open(path, newline="", encoding="utf-8-sig") as handle:
        return list(csv.reader(handle))


def find_header(rows, first_cell):
    """Index of the first row whose first cell is `first_cell` (skips ==PROF== noise)."""
    for index, row in enumerate(rows):
        if row and row[0].strip() == first_cell:
            return index
    raise FixtureError(f"no header row starting with {first_cell!r}")


def pad(row, width):
    """Pad a ragged row with empty trailing fields up to `width`."""
    return row + [""] * (width - len(row)) if len(row) < width else row


def column(header, name):
    """Index of column `name` in `header`, or FixtureError."""
    try:
        return header.index(name)
    except ValueError:
        raise FixtureError(f"no column {name!r}") from None


def close_enough(actual, expected, rel_tol, abs_tol=ABS_TOL):
    """|actual - expected| <= rel_tol * |expected| + abs_tol."""
    return abs(actual - expected) <= rel_tol * abs(expected) + abs_tol


def short(name, limit=70):
    """Shorten a (possibly huge templated) kernel name for messages."""
    return name if len(name) <= limit else name[: limit - 3] + "..."


# --------------------------------------------------------------------------
# Expectations, one function per format
# --------------------------------------------------------------------------

def expect_ncu_details(path):
    """ncu `--page details` CSV (long format, one row per result x metric).

    A result is a distinct "ID". Its duration is the gpu__time_duration.sum
    metric if present, else the "Duration" metric (preferring the SOL
    section). Files with no duration metric at all expect total_ms null.
    """
    rows = read_csv(path)
    start = find_header(rows, "ID")
    header = rows[start]
    width = len(header)
    i_id, i_name = column(header, "ID"), column(header, "Kernel Name")
    i_section = column(header, "Section Name")
    i_metric, i_unit = column(header, "Metric Name"), column(header, "Metric Unit")
    i_value = column(header, "Metric Value")

    results = {}  # ID -> {"name", "gpu_time", "duration", "sol_duration"}
    for row in rows[start + 1:]:
        if not any(cell.strip() for cell in row):
            continue
        row = pad(row, width)
        result = results.setdefault(row[i_id], {"name": row[i_name], "gpu_time": None,
                                                "duration": None, "sol_duration": None})
        if result["name"] != row[i_name]:
            raise FixtureError(f"ID {row[i_id]} has two kernel names")
        metric = row[i_metric]
        if metric == DURATION_METRIC and result["gpu_time"] is None:
            result["gpu_time"] = to_ms(row[i_value], row[i_unit])
        elif metric == "Duration":
            ms = to_ms(row[i_value], row[i_unit])
            if row[i_section] == SOL_SECTION and result["sol_duration"] is None:
                result["sol_duration"] = ms
            elif result["duration"] is None:
                result["duration"] = ms

    expectation = Expectation()
    without = 0
    for result in results.values():
        ms = next((v for v in (result["gpu_time"], result["sol_duration"], result["duration"])
                   if v is not None), None)
        without += ms is None
        expectation.add(result["name"], 1, ms)
    expectation.notes.append(f"{len(results)} results, {len(rows) - start - 1} records")
    if results and without == len(results):
        expectation.notes.append("no duration metric: total_ms expected null")
    elif without:
        expectation.notes.append(f"{without} results without a duration (not counted)")
    return expectation


def raw_duration_column(header):
    """Index of the gpu__time_duration.sum column (exact name preferred over a prefixed one)."""
    if DURATION_METRIC in header:
        return header.index(DURATION_METRIC)
    for index, name in enumerate(header):
        if name.endswith("." + DURATION_METRIC):
            return index
    return None


def expect_ncu_raw(path):
    """ncu `--page raw` CSV: row 1 header, row 2 units, then one row per result."""
    rows = read_csv(path)
    start = find_header(rows, "ID")
    header = rows[start]
    width = len(header)
    if len(rows) < start + 2:
        raise FixtureError("no units row")
    units = pad(rows[start + 1], width)
    i_id, i_name = column(header, "ID"), column(header, "Kernel Name")
    if units[i_id].strip() or units[i_name].strip():
        raise FixtureError("second row is not a units row (identity cells not empty)")
    i_dur = raw_duration_column(header)

    expectation = Expectation()
    seen = set()
    for row in rows[start + 2:]:
        if not any(cell.strip() for cell in row):
            continue
        row = pad(row, width)
        if row[i_id] in seen:
            raise FixtureError(f"ID {row[i_id]} appears twice")
        seen.add(row[i_id])
        ms = to_ms(row[i_dur], units[i_dur]) if i_dur is not None else None
        expectation.add(row[i_name], 1, ms)
    expectation.notes.append(f"{len(seen)} results, {width} columns")
    if i_dur is None:
        expectation.notes.append("no duration column: total_ms expected null")
    else:
        expectation.notes.append(f"duration column {header[i_dur]!r} in {units[i_dur]!r}")
    return expectation


def normalise_stats_column(name):
    """nsys stats column name, lower-cased, without the ' (ns)' suffix."""
    name = name.strip().lower()
    return name[:-5] if name.endswith(" (ns)") else name


def expect_nsys_stats(path):
    """`nsys stats -f csv` output. Only cuda_gpu_kern_sum (Total Time, Instances, Name) has kernels."""
    rows = [row for row in read_csv(path) if any(cell.strip() for cell in row)]
    if not rows:
        raise FixtureError("empty file")
    header = [normalise_stats_column(name) for name in rows[0]]
    expectation = Expectation()
    if not {"total time", "instances", "name"} <= set(header):
        expectation.notes.append(f"not a kernel summary (first column {rows[0][0]!r}): no kernels")
        return expectation
    i_total, i_inst, i_name = (header.index(c) for c in ("total time", "instances", "name"))
    for row in rows[1:]:
        row = pad(row, len(header))
        calls = parse_number(row[i_inst])
        total_ns = parse_number(row[i_total])
        if calls is None or total_ns is None:
            raise FixtureError(f"row without Instances/Total Time: {short(row[i_name])!r}")
        expectation.add(row[i_name], int(calls), total_ns / 1e6)
    expectation.notes.append(f"{len(rows) - 1} summary rows")
    return expectation


# nsys SQLite schema facts found in the fixtures (sqlite3, PRAGMA table_info):
#  * ~2020.3 exports (nvtx-examples-2020-*.sqlite): no META_DATA_EXPORT, no
#    PROCESSES. CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId,
#    streamId, correlationId, globalPid, demangledName, shortName, launchType,
#    ..., gridId, sharedMemoryExecuted, graphNodeId): 25 columns, NO
#    mangledName / sharedMemoryLimitConfig. demangledName and shortName are the
#    same StringIds id (e.g. 'cupy_subtract__int64_int64_int64').
#    TARGET_INFO_GPU(vmId, deviceId, name, busLocation, isDiscrete); plus
#    TARGET_INFO_CUDA_GPU, DomainStrings, NvtxPushPopRanges and leftovers of
#    the old stats scripts (cudaKernelStats, cudaAPIStats, ms, me, estEnd).
#    The multiprocessing file has no CUDA tables at all (NVTX and OSRT only).
#    StringIds(id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL).
#  * 2023.3.1 export (schema 3.4.0, streamSimple): META_DATA_EXPORT(name,
#    value) with EXPORT_SCHEMA_VERSION; PROCESSES(globalPid, pid, name);
#    CUPTI_ACTIVITY_KIND_KERNEL has 27 columns, adds mangledName and
#    sharedMemoryLimitConfig; demangledName ('kernel_1()') differs from
#    shortName ('kernel_1'). TARGET_INFO_GPU uses `id` (not deviceId) and has
#    ~40 columns (smCount, computeMajor, ...). No NVTX_EVENTS table (lazy export).
#  * All: start/end are INTEGER ns; names are ids into StringIds.

def sqlite_columns(connection, table):
    """Column names of `table`, or an empty list when the table is absent."""
    return [row[1] for row in connection.execute(f"PRAGMA table_info('{table}')")]


def expect_nsys_sqlite(path):
    """nsys SQLite export: rows of CUPTI_ACTIVITY_KIND_KERNEL grouped by demangled name."""
    expectation = Expectation()
    connection = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        columns = sqlite_columns(connection, "CUPTI_ACTIVITY_KIND_KERNEL")
        if not columns:
            expectation.notes.append("no CUPTI_ACTIVITY_KIND_KERNEL table: no kernels")
            return expectation
        name_ids = [c for c in ("demangledName", "shortName") if c in columns]
        if not name_ids:
            raise FixtureError("kernel table has neither demangledName nor shortName")
        joins = " ".join(f"LEFT JOIN StringIds s{i} ON s{i}.id = k.{c}" for i, c in enumerate(name_ids))
        name_sql = "COALESCE(" + ", ".join(f"s{i}.value" for i in range(len(name_ids))) + ")"
        query = (f"SELECT {name_sql}, COUNT(*), SUM(k.\"end\" - k.start) "
                 f"FROM CUPTI_ACTIVITY_KIND_KERNEL k {joins} GROUP BY 1")
        for name, calls, total_ns in connection.execute(query):
            if name is None:
                raise FixtureError("kernel row whose name id is not in StringIds")
            expectation.add(name, calls, total_ns / 1e6)
        version = None
        if sqlite_columns(connection, "META_DATA_EXPORT"):
            row = connection.execute("SELECT value FROM META_DATA_EXPORT "
                                     "WHERE name = 'EXPORT_SCHEMA_VERSION'").fetchone()
            version = row[0] if row else None
        expectation.notes.append(f"export schema {version or 'unknown (pre-2021, no META_DATA_EXPORT)'}")
    finally:
        connection.close()
    return expectation


def expect_nsys_regions(path):
    """Push/pop NVTX regions of an nsys SQLite export, by range name.

    A kernel belongs to a range when the CUDA API call that launched it
    (same correlationId, same process) started inside the range on the same
    thread; its GPU duration then counts for that range. Returns
    {name: (launches, total_ms)}, or None when the export has no NVTX ranges,
    kernels or API trace.
    """
    connection = sqlite3.connect(f"file:{Path(path).resolve()}?mode=ro", uri=True)
    try:
        needed = ("NVTX_EVENTS", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME")
        if not all(sqlite_columns(connection, t) for t in needed):
            return None
        query = (
            "SELECT COALESCE(n.text, s.value), COUNT(k.rowid), SUM(k.\"end\" - k.start) "
            "FROM NVTX_EVENTS n LEFT JOIN StringIds s ON s.id = n.textId "
            "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.globalTid = n.globalTid "
            "  AND r.start BETWEEN n.start AND n.\"end\" "
            "JOIN CUPTI_ACTIVITY_KIND_KERNEL k ON k.correlationId = r.correlationId "
            "  AND k.globalPid = (r.globalTid & ~16777215) "
            "WHERE n.eventType = 59 GROUP BY 1")
        return {name: (count, total_ns / 1e6) for name, count, total_ns in connection.execute(query)}
    finally:
        connection.close()


def compare_regions(expected, outdir):
    """Our regions/report.json aggregate against `expected` (by range name)."""
    report_path = Path(outdir) / "regions" / "report.json"
    if not report_path.is_file():
        return ["regions/report.json missing although the export has NVTX ranges"]
    report = json.loads(report_path.read_text())
    actual = defaultdict(lambda: [0, 0.0])
    for region in report.get("regions", []):
        actual[region["range"]][0] += region["kernel_count"]
        actual[region["range"]][1] += region["total_ms"]
    problems = []
    for name, (count, total_ms) in expected.items():
        got_count, got_ms = actual.get(name, (0, 0.0))
        if got_count != count or not close_enough(got_ms, total_ms, REL_TOL):
            problems.append(f"region {name!r}: expected {count} launches / {total_ms:.6f} ms, "
                            f"got {got_count} / {got_ms:.6f}")
    return problems


def ncu_rep_kernel_name(result):
    """The name the tool shows: demangled, else the function name (ncu-rep-format.md 4.2)."""
    return (wire.first(result, 7) or wire.first(result, 6) or b"").decode("utf-8", "replace")


def expect_ncu_rep(path):
    """Kernels of a .ncu-rep decoded with the independent wire decoder (ncu_rep_wire.py)."""
    expectation = Expectation()
    data = Path(path).read_bytes()
    for result, table in wire.results(data):
        duration_ns = wire.metric_double(result, table, DURATION_METRIC)
        expectation.add(ncu_rep_kernel_name(result), 1, None if duration_ns is None else duration_ns / 1e6)
    return expectation


def expect_ncu_rep_regions(path):
    """NVTX regions of a .ncu-rep: each launch counts in every push/pop range open on its thread."""
    regions = defaultdict(lambda: [0, 0.0])
    for result, table in wire.results(Path(path).read_bytes()):
        state = wire.first(result, 21)
        if state is None:
            continue
        tid = wire.first(result, 1)
        duration_ms = (wire.metric_double(result, table, DURATION_METRIC) or 0.0) / 1e6
        for thread in wire.every(state, 2):
            if wire.first(thread, 1, 0) != tid:
                continue
            for domain in wire.every(thread, 2):
                for frame in wire.every(domain, 3):
                    name = wire.first(frame, 1).decode("utf-8", "replace")
                    regions[name][0] += 1
                    regions[name][1] += duration_ms
    return {name: tuple(v) for name, v in regions.items()} or None


# --------------------------------------------------------------------------
# Fixture discovery
# --------------------------------------------------------------------------

def classify(fixtures, path):
    """Kind of a fixture file ('ncu-details', 'ncu-raw', ...) or None if unknown."""
    top = path.relative_to(fixtures).parts[0]
    if top == "ncu-csv" and path.suffix == ".csv":
        rows = read_csv(path)
        try:
            header = rows[find_header(rows, "ID")]
        except FixtureError:
            return "ncu-details"  # the expecter reports the missing header as a FAIL
        return "ncu-details" if "Metric Name" in header else "ncu-raw"
    if top == "nsys-stats" and path.suffix == ".csv":
        return "nsys-stats"
    if top == "nsys-sqlite" and path.suffix == ".sqlite":
        return "nsys-sqlite"
    if top == "ncu-rep" and path.suffix == ".ncu-rep":
        return "ncu-rep"
    return None


def discover(fixtures):
    """All fixture files as (path, kind) sorted by path; kind None = not checked."""
    files = sorted(p for p in fixtures.rglob("*") if p.is_file() and p.name != "README.md")
    return [(p, classify(fixtures, p)) for p in files]


EXPECTERS = {
    "ncu-details": expect_ncu_details,
    "ncu-raw": expect_ncu_raw,
    "nsys-stats": expect_nsys_stats,
    "nsys-sqlite": expect_nsys_sqlite,
    "ncu-rep": expect_ncu_rep,
}


# --------------------------------------------------------------------------
# Running the CLI and checking its output
# --------------------------------------------------------------------------

def run_import(binary, path, outdir):
    """Run `BIN import FILE --out OUTDIR`; returns CompletedProcess (or None on timeout)."""
    try:
        return subprocess.run([str(binary), "import", str(path), "--out", str(outdir)],
                              capture_output=True, text=True, errors="replace",
                              timeout=IMPORT_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return None


def check_output_files(outdir, kind):
    """Structural checks of OUTDIR; returns (kernels.json dict or None, problems)."""
    problems = []
    report = None
    try:
        report = json.loads((outdir / "kernels.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as error:
        return None, [f"kernels.json unreadable: {error}"]
    if not isinstance(report, dict):
        return None, ["kernels.json is not an object"]
    if "schema_version" not in report:
        problems.append("kernels.json has no schema_version")
    diagnostics = report.get("diagnostics")
    rows_read = diagnostics.get("rows_read") if isinstance(diagnostics, dict) else None
    if not isinstance(rows_read, int) or isinstance(rows_read, bool):
        problems.append("diagnostics.rows_read missing or not an integer")
    formats = [s.get("format") for s in report.get("sources", []) if isinstance(s, dict)]
    if FORMAT_OF_KIND[kind] not in formats:
        problems.append(f"sources[].format {formats} lacks {FORMAT_OF_KIND[kind]!r}")
    if not isinstance(report.get("kernels"), list):
        problems.append("kernels is not a list")
    try:
        markdown = (outdir / "kernels.md").read_text(encoding="utf-8")
        if not any(line.startswith("## Data quality") for line in markdown.splitlines()):
            problems.append("kernels.md has no '## Data quality' line")
    except OSError:
        problems.append("kernels.md missing")
    return report, problems


def number_or_nan(value):
    """`value` if it is a JSON number (not a bool), else NaN (which fails every comparison)."""
    ok = isinstance(value, (int, float)) and not isinstance(value, bool)
    return value if ok else math.nan


def reported_kernels(report):
    """Our tool's kernels summed by name (entries differ by process/device): name -> [calls, total_ms]."""
    kernels = report.get("kernels")
    totals = {}
    for kernel in kernels if isinstance(kernels, list) else []:
        if not isinstance(kernel, dict):
            kernel = {}
        entry = totals.setdefault(str(kernel.get("name")), [0, None])
        entry[0] += number_or_nan(kernel.get("calls"))
        if kernel.get("total_ms") is not None:
            entry[1] = (entry[1] or 0.0) + number_or_nan(kernel.get("total_ms"))
    return totals


def compare_kernels(expected, actual, rel_tol, what="expected"):
    """Problems between two name -> [calls, total_ms] maps (empty list = equal)."""
    problems = []
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected), key=str)
    if missing:
        problems.append(f"{len(missing)} names missing, e.g. {short(missing[0])!r}")
    if extra:
        problems.append(f"{len(extra)} unexpected names, e.g. {short(str(extra[0]))!r}")
    for name in sorted(set(expected) & set(actual)):
        (want_calls, want_ms), (got_calls, got_ms) = expected[name], actual[name]
        if got_calls != want_calls:
            problems.append(f"{short(name)!r}: calls {got_calls}, {what} {want_calls}")
        if want_ms is None or got_ms is None:
            if want_ms is not got_ms:
                problems.append(f"{short(name)!r}: total_ms {got_ms}, {what} {want_ms}")
        elif not isinstance(got_ms, (int, float)) or not close_enough(got_ms, want_ms, rel_tol):
            problems.append(f"{short(name)!r}: total_ms {got_ms}, {what} {want_ms:.9g}")
    return problems


def check_file(binary, path, kind, outdir):
    """Import one fixture and compare; returns (problems, reported kernels or None)."""
    try:
        expectation = EXPECTERS[kind](path)
    except FixtureError as error:
        return [f"cannot compute expectation: {error}"], None
    result = run_import(binary, path, outdir)
    if result is None:
        return ["import timed out"], None
    if result.returncode != 0:
        stderr = result.stderr.strip()[:300] or "(no stderr)"
        return [f"import exit {result.returncode}: {stderr}"], None
    report, problems = check_output_files(outdir, kind)
    if report is None:
        return problems, None
    actual = reported_kernels(report)
    problems += compare_kernels(expectation.kernels, actual, REL_TOL)
    if kind in ("nsys-sqlite", "ncu-rep"):
        regions = (expect_nsys_regions if kind == "nsys-sqlite" else expect_ncu_rep_regions)(path)
        if regions:
            problems += compare_regions(regions, outdir)
    return problems, actual


def cross_check_pairs(found):
    """(details, raw) path pairs in the same ncu-csv folder: the same run on two pages."""
    by_folder = {}
    for path, kind in found:
        if kind in ("ncu-details", "ncu-raw"):
            by_folder.setdefault(path.parent, {}).setdefault(kind, []).append(path)
    pairs = []
    for kinds in by_folder.values():
        if len(kinds.get("ncu-details", [])) == 1 and len(kinds.get("ncu-raw", [])) == 1:
            pairs.append((kinds["ncu-details"][0], kinds["ncu-raw"][0]))
    return pairs


def report_line(status, label, problems, verbose, limit=4):
    """Print one PASS/FAIL line (all problems on extra lines with --verbose)."""
    if not problems:
        print(f"{status} {label}")
        return
    shown = problems if verbose else problems[:limit]
    more = "" if len(shown) == len(problems) else f" (+{len(problems) - len(shown)} more)"
    print(f"{status} {label}: " + "; ".join(shown) + more)


def run_checks(binary, fixtures, verbose):
    """Check every fixture and the details/raw cross-check; returns the number of failures."""
    found = discover(fixtures)
    failures = 0
    actual_by_path = {}
    with tempfile.TemporaryDirectory(prefix="llmpo-fixtures-") as tmp:
        for index, (path, kind) in enumerate(found):
            label = str(path.relative_to(fixtures))
            if kind is None:
                print(f"NOTE {label}: not a known fixture kind, not checked")
                continue
            outdir = Path(tmp) / f"out{index}"
            problems, actual = check_file(binary, path, kind, outdir)
            actual_by_path[path] = actual
            failures += bool(problems)
            report_line("FAIL" if problems else "PASS", f"{label} [{kind}]", problems, verbose)
    for details, raw in cross_check_pairs(found):
        label = f"cross-check {details.relative_to(fixtures)} vs {raw.name}"
        if actual_by_path.get(details) is None or actual_by_path.get(raw) is None:
            problems = ["an import failed, nothing to compare"]
        else:
            problems = compare_kernels(actual_by_path[raw], actual_by_path[details],
                                       CROSS_REL_TOL, what="raw page")
        failures += bool(problems)
        report_line("FAIL" if problems else "PASS", label, problems, verbose)
    with tempfile.TemporaryDirectory(prefix="llmpo-regions-") as tmp:
        for folder in sorted({p.parent for p, kind in found if p.name.startswith("nvtx_kern_sum")}):
            problems = check_nsys_stats_regions(binary, folder, Path(tmp) / folder.name)
            if problems is not None:
                failures += bool(problems)
                report_line("FAIL" if problems else "PASS",
                            f"regions of {folder.relative_to(fixtures)} (nvtx_sum + nvtx_gpu_proj_sum + "
                            "nvtx_kern_sum, nothing added twice)", problems, verbose)
    return failures


def check_nsys_stats_regions(binary, folder, outdir):
    """nvtx_sum, nvtx_gpu_proj_sum and nvtx_kern_sum of one run imported together:
    per range, CPU time from nvtx_sum, projection from nvtx_gpu_proj_sum, GPU kernel
    time summed from nvtx_kern_sum's rows, each once (never added across files)."""
    names = ["nvtx_sum_nvtx_sum.csv", "nvtx_gpu_proj_sum_nvtx_gpu_proj_sum.csv", "nvtx_kern_sum_nvtx_kern_sum.csv"]
    paths = [folder / n for n in names]
    if not all(p.is_file() for p in paths):
        return None
    expected = {}
    for row in csv.DictReader(open(paths[0], newline="")):
        expected.setdefault(row["Range"].lstrip(":"), {})["cpu_ms"] = int(row["Total Time (ns)"]) / 1e6
    for row in csv.DictReader(open(paths[1], newline="")):
        expected.setdefault(row["Range"].lstrip(":"), {})["projected_ms"] = int(row["Total Proj Time (ns)"]) / 1e6
    for row in csv.DictReader(open(paths[2], newline="")):
        if row["NVTX Range"]:
            entry = expected.setdefault(row["NVTX Range"].lstrip(":"), {})
            entry["total_ms"] = entry.get("total_ms", 0.0) + int(row["Total Time (ns)"]) / 1e6
    run = subprocess.run([str(binary), "import", *map(str, paths), "--out", str(outdir)],
                         capture_output=True, text=True, errors="replace", timeout=IMPORT_TIMEOUT_S, check=False)
    if run.returncode != 0:
        return [f"import exited with {run.returncode}: {run.stderr.strip()[:200]}"]
    report = json.loads((outdir / "regions" / "report.json").read_text())
    got = {r["name"]: r for r in report["regions"]}
    problems = []
    for name, quantities in expected.items():
        region = got.get(name)
        if region is None:
            problems.append(f"region {name!r} missing")
            continue
        for key, want in quantities.items():
            if region.get(key) is None or not close_enough(region[key], want, REL_TOL):
                problems.append(f"region {name!r}: {key} {region.get(key)}, expected {want:.6f}")
    return problems


def print_expectations(fixtures):
    """Print what each fixture implies (no CLI run); returns the number of unreadable fixtures."""
    found = discover(fixtures)
    errors = 0
    computed = {}
    for path, kind in found:
        label = str(path.relative_to(fixtures))
        if kind is None:
            print(f"{label}: not checked")
            continue
        try:
            expectation = EXPECTERS[kind](path)
        except FixtureError as error:
            errors += 1
            print(f"{label} [{kind}]: ERROR {error}")
            continue
        computed[path] = expectation.kernels
        print(f"{label} [{kind}]: {expectation.summary()} ({'; '.join(expectation.notes)})")
    for details, raw in cross_check_pairs(found):
        if details in computed and raw in computed:
            problems = compare_kernels(computed[raw], computed[details], CROSS_REL_TOL, "raw page")
            verdict = "consistent" if not problems else "; ".join(problems)
            print(f"expectations {details.relative_to(fixtures)} vs {raw.name}: {verdict}")
    return errors


def main(argv=None):
    """Parse arguments, skip without fixtures, run the checks; returns the exit code."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bin", type=Path, help="path to the llm-perf-opt executable")
    parser.add_argument("--fixtures", type=Path, required=True, help="shared fixtures folder")
    parser.add_argument("--print-expectations", action="store_true",
                        help="only print what each fixture implies; does not run the CLI")
    parser.add_argument("--verbose", action="store_true", help="list every mismatch")
    args = parser.parse_args(argv)

    if not args.fixtures.is_dir():
        print(f"SKIP: {args.fixtures} not found "
              "(third-party fixtures are only in the development workspace)")
        return SKIP_CODE
    fixtures = args.fixtures.resolve()
    if args.print_expectations:
        return 1 if print_expectations(fixtures) else 0
    if args.bin is None or not args.bin.is_file():
        parser.error(f"--bin {args.bin}: no such executable")
    failures = run_checks(args.bin.resolve(), fixtures, args.verbose)
    print(f"{failures} failed" if failures else "all fixtures passed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
