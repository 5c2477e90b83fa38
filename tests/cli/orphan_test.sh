#!/usr/bin/env bash
# When llm-perf-opt is killed outright (SIGKILL: no handler runs), the program
# it was running dies with it instead of running on as an orphan.
#   orphan_test.sh LLM_PERF_OPT
set -euo pipefail
bin=$(realpath "$1")
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }

# `trace` runs the program directly; any existing file will do as the tracer
# library for `sleep`, which loads neither NVTX nor CUDA.
LLMPO_TRACER_LIBRARY=/bin/true "$bin" trace hydra.run.dir=run -- sleep 60 >out.txt 2>err.txt &
tool=$!
child=""
for _ in $(seq 100); do
  child=$(pgrep -P "$tool" -x sleep || true)
  [[ -n "$child" ]] && break
  sleep 0.1
done
[[ -n "$child" ]] || { kill -9 "$tool" 2>/dev/null; fail "the program never started: $(cat err.txt)"; }
kill -9 "$tool"
wait "$tool" 2>/dev/null || true
for _ in $(seq 50); do
  kill -0 "$child" 2>/dev/null || { echo ok; exit 0; }
  sleep 0.1
done
kill -9 "$child" 2>/dev/null || true
fail "the program (pid $child) outlived llm-perf-opt by 5 s"
