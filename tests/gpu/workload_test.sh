#!/usr/bin/env bash
# GPU tier: a bundled workload runs at a small size and its self-check passes.
#   workload_test.sh WORKLOAD_BINARY [ARGS...]
set -uo pipefail
source "$(dirname "$0")/lib.sh"
[[ $# -ge 1 ]] || fail "usage: workload_test.sh WORKLOAD_BINARY [ARGS...]"
bin=$1
shift
[[ -x $bin ]] || fail "$bin is not built"
require_gpu
out=$("$bin" "$@" 2>&1)
rc=$?
echo "$out"
[[ $rc -eq 69 ]] && skip "$(basename "$bin") cannot use this GPU: $(grep -m1 'no .*CUDA device' <<<"$out")"
[[ $rc -eq 0 ]] || fail "$(basename "$bin") $* exited $rc"
grep -q '^check: ok' <<<"$out" || fail "$(basename "$bin") printed no 'check: ok'"
echo "PASS: $(basename "$bin") $*"
