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

plant regions/A "$work/outside"
run import "$fixture" --out out
expect_refused "link at a region folder"

plant regions/B/report.md "$work/outside/victim"
run import "$fixture" --out out
expect_refused "link at a per-region file"

plant regions/report.json "$work/outside/victim"
run import "$fixture" --out out
expect_refused "link at regions/report.json"

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
