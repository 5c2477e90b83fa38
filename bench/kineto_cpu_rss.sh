#!/bin/bash
# Interleaved CPU time and peak RSS of Kineto imports against `cat` of the
# same file: for each run, every binary given imports the trace once, then
# `cat` reads it once. Prints one line per command:
#   LABEL SIZE_MB wall_s user_s sys_s peak_rss_KiB
# Usage: bench/kineto_cpu_rss.sh SIZE_MB RUNS BIN [BIN...]
#   (the trace is $LLMPO_BENCH_DIR/kineto_<SIZE_MB>MB.json, default dir
#   /tmp/llmpo-bench; LABEL is the name of each binary's folder; each binary
#   needs its conf/ beside it or is run from a source tree)
set -euo pipefail
size=$1 runs=$2
shift 2
trace=${LLMPO_BENCH_DIR:-/tmp/llmpo-bench}/kineto_${size}MB.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for _ in $(seq "$runs"); do
  for bin in "$@"; do
    rm -rf "$out/o"
    /usr/bin/time -f "$(basename "$(dirname "$bin")") $size %e %U %S %M" "$bin" import "$trace" --out "$out/o" -q
  done
  /usr/bin/time -f "cat $size %e %U %S %M" cat "$trace" >/dev/null
done
