#!/usr/bin/env bash
# Checkable everywhere: with no visible CUDA device (none on the machine, no
# driver, or CUDA_VISIBLE_DEVICES=-1) each workload exits 69 and says why;
# --help exits 0 and an unknown flag exits 2, device or not.
#   no_device_test.sh WORKLOAD_BINARY...
set -uo pipefail
source "$(dirname "$0")/lib.sh"
[[ $# -ge 1 ]] || fail "usage: no_device_test.sh WORKLOAD_BINARY..."
for bin in "$@"; do
  name=$(basename "$bin")
  [[ -x $bin ]] || fail "$bin is not built"
  err=$(CUDA_VISIBLE_DEVICES=-1 "$bin" 2>&1 >/dev/null)
  rc=$?
  [[ $rc -eq 69 ]] || fail "$name without a device exited $rc, expected 69 (stderr: $err)"
  grep -q "^$name: no CUDA device: .*; this workload needs an NVIDIA GPU\$" <<<"$err" ||
    fail "$name without a device printed: $err"
  echo "ok: $name -> 69: $err"
  out=$("$bin" --help 2>&1)
  rc=$?
  [[ $rc -eq 0 ]] && grep -q "^usage: $name" <<<"$out" || fail "$name --help exited $rc: $out"
  err=$("$bin" --no-such-flag 2>&1)
  rc=$?
  [[ $rc -eq 2 ]] && grep -q "unknown flag '--no-such-flag'" <<<"$err" || fail "$name --no-such-flag exited $rc: $err"
  echo "ok: $name --help -> 0, --no-such-flag -> 2"
done
echo "PASS: no-device, help and usage exit codes"
