#!/usr/bin/env bash
# A new import replaces the previous import's outputs as a whole: no region
# folder of an earlier input survives, a report that is not made this time
# goes, and what a killed import left (hidden staging folders, temp files of
# the atomic writer) is cleaned up, while the user's own files stay.
#   reimport_test.sh LLM_PERF_OPT SOURCE_DIR
set -euo pipefail
bin=$(realpath "$1")
fixtures=$(realpath "$2")/tests/fixtures/handmade
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
folders() { (cd out/regions && find . -mindepth 1 -maxdepth 1 -type d | sort | tr '\n' ' '); }

"$bin" import "$fixtures/ncu_regions_kernel_replay.csv" --out out >/dev/null
[[ "$(folders)" == "./A ./A__A__A1 ./B " ]] || fail "first import: $(folders)"
echo mine >out/notes.tmp.txt  # a user's file beside the reports

# What an import killed half-way leaves behind.
mkdir out/.regions.new-Ab12Cd && echo half >out/.regions.new-Ab12Cd/report.md
echo half >out/kernels.json.tmp.abcdefgh2345

"$bin" import "$fixtures/ncu_regions_name_collision.csv" --out out >/dev/null
[[ "$(folders)" == "./LLM_decode ./a_b ./a_b-2 ./a_b-3 ./escape " ]] || fail "second import mixes: $(folders)"
[[ -e out/.regions.new-Ab12Cd || -e out/kernels.json.tmp.abcdefgh2345 ]] && fail "leftovers of a killed import stayed"
[[ $(cat out/notes.tmp.txt) == mine ]] || fail "a user's file was touched"
ls -a out | grep -q '\.new-\|\.tmp\.[a-z2-7]\{12\}$' && fail "the import left its own staging files: $(ls -a out)"

# An input without NVTX: no region report, and the previous one is gone.
"$bin" import "$fixtures/ncu_details_2022.csv" --out out >/dev/null
[[ -e out/regions ]] && fail "a region report of an earlier input survived: $(ls out/regions)"

# A top-level report of an earlier input (gpu_breakdown.md of a PyTorch trace)
# goes when the new import does not make it; a user's file stays, and an
# edited record cannot reach outside the folder.
"$bin" import "$fixtures/kineto_rank3.json" --out out3 >/dev/null
[[ -f out3/gpu_breakdown.md ]] || fail "the Kineto import made no gpu_breakdown.md"
echo mine >out3/notes.md
echo victim >victim.txt
printf '../victim.txt\nnotes.md.x\n' >>out3/.llmpo-outputs
"$bin" import "$fixtures/ncu_details_2022.csv" --out out3 >/dev/null
[[ -e out3/gpu_breakdown.md || -e out3/gpu_breakdown.json ]] && fail "gpu_breakdown of an earlier input survived"
[[ -f out3/kernels.md && $(cat out3/notes.md) == mine && $(cat victim.txt) == victim ]] || fail "the wrong files went"

# An import whose only input cannot be read (exit 3) leaves the earlier
# reports as they were, byte for byte, instead of replacing them with empty ones.
"$bin" import "$fixtures/ncu_regions_kernel_replay.csv" --out out4 >/dev/null
cp -r out4 out4.before
set +e
"$bin" import "$fixtures/binary.bin" --out out4 >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 3 ]] || fail "unreadable input: exit $rc"
grep -q "nothing written, out4 is unchanged" out.txt || fail "unreadable input: $(cat out.txt)"
diff -r out4.before out4 >/dev/null || fail "a failed import changed the earlier reports: $(diff -r out4.before out4 | head -3)"

# A regions folder someone else made is never removed or mixed into.
mkdir -p out2/regions && echo theirs >out2/regions/notes.txt
set +e
"$bin" import "$fixtures/ncu_regions_kernel_replay.csv" --out out2 >out.txt 2>err.txt
rc=$?
set -e
[[ $rc -eq 1 ]] || fail "foreign regions folder: exit $rc"
grep -q "'out2/regions' was not written by llm-perf-opt" err.txt || fail "foreign regions folder: $(cat err.txt)"
grep -q "another folder" err.txt || fail "foreign regions folder: no fix named"
[[ "$(ls out2/regions)" == notes.txt ]] || fail "foreign regions folder changed: $(ls out2/regions)"
echo ok
