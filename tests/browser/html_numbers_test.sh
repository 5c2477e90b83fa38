#!/usr/bin/env bash
# The numbers report.html embeds, against independent sums over real
# profiler outputs (../shared/fixtures; skipped when absent): per kernel the
# launches and total GPU time of an ncu details export (its Duration rows),
# per NVTX range the CPU range time of an nsys nvtx_sum export, and the GPU
# busy and idle time of an nsys SQLite export (union of its kernels' intervals).
#   html_numbers_test.sh BINARY SOURCE_DIR
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2")
fixtures="$src/../shared/fixtures"
ncu="$fixtures/ncu-csv/sglang-h200/details.csv"
nvtx="$fixtures/nsys-stats/kiln-a6000/nvtx_sum_nvtx_sum.csv"
sqlite="$fixtures/nsys-sqlite/cudaprogramming-2023.3-streamSimple.sqlite"
if [[ ! -f $ncu || ! -f $nvtx || ! -f $sqlite ]]; then echo "SKIP: $fixtures (the shared real fixtures) is absent"; exit 77; fi
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
"$bin" import "$ncu" --out "$work/ncu" >/dev/null
"$bin" import "$nvtx" --out "$work/nvtx" >/dev/null
"$bin" import "$sqlite" --out "$work/sqlite" >/dev/null
/usr/bin/python3 - "$work" "$ncu" "$nvtx" "$sqlite" <<'PY'
import collections, csv, html.parser, json, sqlite3, sys

work, ncu, nvtx, sqlite = sys.argv[1:]

def page_data(path):
    class Scan(html.parser.HTMLParser):
        data, on = "", False
        def handle_starttag(self, tag, attrs): self.on = ("id", "report-data") in attrs
        def handle_endtag(self, tag): self.on = False
        def handle_data(self, d):
            if self.on: self.data += d
    s = Scan(); s.feed(open(path, encoding="utf-8").read())
    return json.loads(s.data)

def table(data, key):
    cols = [c["key"] for c in data[key]["columns"]]
    return [dict(zip(cols, r)) for r in data[key]["rows"]]

# Kernels: the Duration metric (us) of each launch, summed per kernel name.
want_ms, want_calls = collections.defaultdict(float), collections.Counter()
for r in csv.DictReader(open(ncu, newline="", encoding="utf-8")):
    if r["Metric Name"] == "Duration":
        assert r["Metric Unit"] == "us", r["Metric Unit"]
        want_ms[r["Kernel Name"]] += float(r["Metric Value"].replace(",", "")) / 1000
        want_calls[r["Kernel Name"]] += 1
got = table(page_data(work + "/ncu/report.html"), "kernels")
got_ms, got_calls = collections.defaultdict(float), collections.Counter()
for k in got:
    got_ms[k["name"]] += k["total"]; got_calls[k["name"]] += k["calls"]
assert sum(want_calls.values()) == 30 and len(want_calls) == 27, (sum(want_calls.values()), len(want_calls))
assert got_calls == want_calls, (got_calls, want_calls)
for name, ms in want_ms.items():
    assert abs(got_ms[name] - ms) <= 1e-9 * max(1, ms), (name, got_ms[name], ms)

# Regions: nvtx_sum's Total Time (ns) per range is its CPU range time.
want = {}
for r in csv.DictReader(open(nvtx, newline="", encoding="utf-8")):
    want[r["Range"].lstrip(":")] = float(r["Total Time (ns)"]) / 1e6
regions = table(page_data(work + "/nvtx/report.html"), "regions")
got = {r["path"]: r["cpu"] for r in regions}
assert len(got) == len(want), (len(got), len(want))
for name, ms in want.items():
    assert abs(got[name] - ms) <= 1e-9 * ms, (name, got[name], ms)
# nvtx_sum knows no GPU kernel time: unknown in every row, so the column is
# left out and named, never shown as 0.
nvtx_regions = page_data(work + "/nvtx/report.html")["regions"]
assert all(r.get("total") is None for r in regions), "nvtx_sum knows no GPU kernel time: it must stay unknown"
assert "GPU kernel time (ms)" in nvtx_regions.get("left_out", []), nvtx_regions.get("left_out")
# Timeline: the union of the kernels' [start, end) per stream and over all, and the span.
db = sqlite3.connect(sqlite)
kernels = sorted(db.execute("SELECT start, end, streamId FROM CUPTI_ACTIVITY_KIND_KERNEL"))
def union(iv):
    total, cur = 0, None
    for s, e in sorted(iv):
        if cur and s <= cur[1]:
            cur[1] = max(cur[1], e)
        else:
            total += cur[1] - cur[0] if cur else 0
            cur = [s, e]
    return total + (cur[1] - cur[0])
span = max(e for _, e, _ in kernels) - min(s for s, _, _ in kernels)
busy = union([(s, e) for s, e, _ in kernels])
t = page_data(work + "/sqlite/report.html")["timeline"]
assert abs(t["gpu_busy_ms"] - busy / 1e6) < 1e-9 and abs(t["span_ms"] - span / 1e6) < 1e-9, (t, busy, span)
assert abs(t["gpu_idle_ms"] - (span - busy) / 1e6) < 1e-9, t
per_stream = collections.defaultdict(list)
for s, e, stream in kernels:
    per_stream[stream].append((s, e))
got = sorted(r["busy_ms"] for r in t["rows"])
want_rows = sorted(union(v) / 1e6 for v in per_stream.values())
assert len(got) == len(want_rows) and all(abs(a - b) < 1e-12 for a, b in zip(got, want_rows)), (got, want_rows)
assert t["gpu_ops"] == len(kernels)
print("kernels: %d names, %d launches; regions: %d; timeline: %d streams; all match" % (len(want_ms), sum(want_calls.values()), len(want), len(per_stream)))
PY
