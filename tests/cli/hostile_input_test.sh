#!/usr/bin/env bash
# Hostile inputs and planted output paths (docs/security.md):
# - a YAML alias bomb in a run folder's config.yaml: `report` refuses it with
#   exit 3, quickly and in little memory (ulimit: a regression fails here
#   instead of eating the machine);
# - symbolic links planted in an output folder (at kernels.md, at the regions
#   folder, at a region folder, at a per-region file): `import` refuses with
#   exit 1 and a clear message, and nothing is written outside the folder;
# - names that are not UTF-8: `import` succeeds and every JSON file is valid
#   UTF-8 JSON.
set -euo pipefail
bin=$(realpath "$1"); src=$(realpath "$2")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
# 2 GB of address space: an expanded bomb would need far more. Not under
# AddressSanitizer (the asan preset), which reserves terabytes of shadow
# address space at start; the time limits still apply there.
if ! ldd "$bin" 2>/dev/null | grep -q libasan; then ulimit -v 2000000; fi
fixture=$src/tests/fixtures/handmade/ncu_regions_kernel_replay.csv

# Runs the binary with a time limit; sets rc, out.txt and err.txt.
run() { set +e; timeout 20 "$bin" "$@" >out.txt 2>err.txt; rc=$?; set -e; }

# --- a run folder whose config.yaml is an alias bomb
"$bin" profile hydra.run.dir=runs/a -- ./app >/dev/null || fail "profile exited $?"
{
  echo 'a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]'
  prev=a
  for level in b c d e f g h i; do
    echo "$level: &$level [*$prev, *$prev, *$prev, *$prev, *$prev, *$prev, *$prev, *$prev, *$prev]"
    prev=$level
  done
} >runs/a/config.yaml
run report runs/a
[[ $rc -eq 3 ]] || fail "report with an alias bomb: expected exit 3, got $rc: $(cat err.txt)"
grep -q "runs/a/config.yaml:[0-9]*:[0-9]*: the document grows past 100000 nodes when its aliases are expanded" \
  err.txt || fail "report with an alias bomb: message: $(cat err.txt)"
grep -q "fix: " err.txt || fail "report with an alias bomb: no fix in the message"

# --- symbolic links planted in the output folder
mkdir outside
echo keep >outside/victim
victim_unchanged() { [[ "$(cat outside/victim)" == keep && $(ls outside | wc -l) -eq 1 ]]; }

plant() {  # plant LINK_PATH TARGET: a fresh output folder with one link in it
  rm -rf out && mkdir -p "$(dirname "out/$1")" && ln -s "$2" "out/$1"
}
expect_refused() {  # expect_refused WHAT
  [[ $rc -eq 1 ]] || fail "$1: expected exit 1, got $rc: $(cat err.txt)"
  grep -q "is a symbolic link" err.txt || fail "$1: message: $(cat err.txt)"
  victim_unchanged || fail "$1: something was written outside the output folder: $(ls -l outside)"
}

plant kernels.md "$work/outside/victim"
run import "$fixture" --out out
expect_refused "link at kernels.md"
[[ -L out/kernels.md ]] || fail "link at kernels.md: the link was replaced"

plant regions "$work/outside"
run import "$fixture" --out out
expect_refused "link at the regions folder"

# A regions folder that no import of ours wrote (here: holding only a link)
# is refused whole and left alone.
plant regions/A "$work/outside"
run import "$fixture" --out out
[[ $rc -eq 1 ]] || fail "foreign regions folder: expected exit 1, got $rc: $(cat err.txt)"
grep -q "'out/regions' was not written by llm-perf-opt" err.txt || fail "foreign regions folder: $(cat err.txt)"
[[ -L out/regions/A ]] && victim_unchanged || fail "foreign regions folder: touched"

# Links planted inside a region report of ours: the new report replaces the
# folder whole; the links go with the old one, nothing is written through them.
for link in "regions/A:$work/outside" "regions/B/report.md:$work/outside/victim"; do
  rm -rf out
  run import "$fixture" --out out
  [[ $rc -eq 0 ]] || fail "import before planting ${link%%:*}: exit $rc"
  rm -rf "out/${link%%:*}"
  ln -s "${link#*:}" "out/${link%%:*}"
  run import "$fixture" --out out
  [[ $rc -eq 0 ]] || fail "link at ${link%%:*}: exit $rc: $(cat err.txt)"
  [[ -L "out/${link%%:*}" ]] && fail "link at ${link%%:*}: still there"
  victim_unchanged || fail "link at ${link%%:*}: something was written outside the output folder"
done
# A link in place of its report.json makes the folder not ours: refused, never read through.
rm -rf out
run import "$fixture" --out out
ln -sf "$work/outside/victim" out/regions/report.json
run import "$fixture" --out out
[[ $rc -eq 1 ]] && grep -q "was not written by llm-perf-opt" err.txt || fail "link at regions/report.json: $rc $(cat err.txt)"
victim_unchanged || fail "link at regions/report.json: something was written outside the output folder"

# Without links the same import works, twice over the same folder.
rm -rf out
run import "$fixture" --out out
[[ $rc -eq 0 ]] || fail "clean import: exit $rc: $(cat err.txt)"
run import "$fixture" --out out
[[ $rc -eq 0 ]] || fail "second import over the same folder: exit $rc: $(cat err.txt)"
[[ -s out/regions/A/report.md ]] || fail "clean import: no region report"
find out -name '*.tmp.*' | grep -q . && fail "temp files left behind: $(find out -name '*.tmp.*')"

# --- names that are not UTF-8
rm -rf out
run import "$src/tests/fixtures/handmade/ncu_latin1_names.csv" --out out
[[ $rc -eq 0 ]] || fail "Latin-1 names: exit $rc: $(cat err.txt)"
python3 - out <<'PY' || fail "Latin-1 names: JSON output is not valid UTF-8 JSON"
import json, pathlib, sys
files = list(pathlib.Path(sys.argv[1]).rglob("*.json"))
assert len(files) >= 3, files
for f in files:
    json.loads(f.read_bytes().decode("utf-8"))  # strict: raises on invalid UTF-8
for f in pathlib.Path(sys.argv[1]).rglob("*.md"):
    f.read_bytes().decode("utf-8")
kernels = json.loads((pathlib.Path(sys.argv[1]) / "kernels.json").read_text("utf-8"))
assert "caf\ufffd_kernel" in json.dumps(kernels, ensure_ascii=False), kernels
PY
echo ok

# --- a 20,000-deep NVTX stack on one launch (a program that pushes a range every
# step and never pops): regions stop at the 64-level cap, the rest is folded
# and reported; memory, time and output stay linear (before: 182 s, 14.8 GB)
python3 - <<'PY' >deep.csv
import csv, sys
header = ["ID", "Process ID", "Process Name", "Host Name",
          "thread Domain:Push/Pop_Range:PL_Type:PL_Value:CLR_Type:Color:Msg_Type:Msg",
          "Kernel Name", "Context", "Stream", "Block Size", "Grid Size", "Device", "CC",
          "Section Name", "Metric Name", "Metric Unit", "Metric Value"]
stack = "100 " + " ".join(f'"<default domain>:step{i}:none:none:none:none:none:none"' for i in range(20000))
w = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
w.writerow(header)
w.writerow(["0", "100", "app", "127.0.0.1", stack, "k", "1", "7", "(1, 1, 1)", "(1, 1, 1)", "0", "9.0",
            "Command line profiler metrics", "gpu__time_duration.sum", "ns", "1000"])
PY
rm -rf out
run import deep.csv --out out
[[ $rc -eq 0 ]] || fail "a 20,000-deep NVTX stack: expected exit 0, got $rc: $(cat err.txt)"
python3 - <<'PY' || fail "a 20,000-deep NVTX stack: report"
import json, os
d = json.load(open("out/regions/report.json"))
assert len(d["regions"]) == 64, len(d["regions"])
assert d["regions"][-1]["depth"] == 63 and d["regions"][-1]["exclusive_ms"] == 0.001
k = json.load(open("out/kernels.json"))
assert any(e["code"] == "nvtx_depth_folded" for e in k["diagnostics"]["entries"]) or \
       "nvtx_depth_folded" in open("out/regions/report.md").read()
size = sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk("out") for f in fs)
assert size < 20_000_000, size  # before: gigabytes of per-region paths
PY
echo ok
