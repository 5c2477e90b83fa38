#!/usr/bin/env bash
# LLMPO_READ_AHEAD=1 (the CSV read and split into fields on a second thread)
# must not change a byte of any report: the hand-made ncu details cases and a
# generated details page of a few MiB, so that records cross many chunks.
set -euo pipefail
bin=$(realpath "$1")
cd "$(dirname "$0")/../.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 bench/gen_ncu_details.py --launches 400 --metrics 40 --out "$tmp/generated.csv" >/dev/null
inputs=(tests/fixtures/handmade/ncu_details_2022.csv tests/fixtures/handmade/ncu_details_nvtx_2021.csv
        tests/fixtures/handmade/ncu_regions_kernel_replay.csv tests/fixtures/handmade/truncated.csv
        tests/fixtures/handmade/unknown_unit.csv "$tmp/generated.csv")
[ "$(stat -c %s "$tmp/generated.csv")" -gt $((3 * 1024 * 1024)) ] || fail "generated input smaller than 3 chunks"
for input in "${inputs[@]}"; do
  name=$(basename "$input" .csv)
  rc_one=0 rc_two=0
  "$bin" import "$input" --out "$tmp/$name.one" >/dev/null 2>"$tmp/$name.one.err" || rc_one=$?
  LLMPO_READ_AHEAD=1 "$bin" import "$input" --out "$tmp/$name.two" >/dev/null 2>"$tmp/$name.two.err" || rc_two=$?
  [ "$rc_one" = "$rc_two" ] || fail "$name: exit $rc_one on one thread, $rc_two with read-ahead"
  [ -s "$tmp/$name.one/kernels.json" ] || fail "$name: no kernels.json"
  diff -r "$tmp/$name.one" "$tmp/$name.two" >"$tmp/$name.diff" || fail "$name: reports differ: $(head -20 "$tmp/$name.diff")"
  diff "$tmp/$name.one.err" "$tmp/$name.two.err" || fail "$name: messages differ"
done
echo "read-ahead reports identical on ${#inputs[@]} inputs"
