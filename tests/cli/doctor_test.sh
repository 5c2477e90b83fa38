#!/usr/bin/env bash
# doctor with fake tools on PATH reports them found with their versions; with
# an empty PATH it reports each missing with a fix, and exits 0 either way.
set -euo pipefail
bin=$(realpath "$1")
fakes=$(cd "$(dirname "$0")/fake_tools" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }

out=$(PATH="$fakes:/usr/bin:/bin" "$bin" doctor)
grep -q "\[ok\] GPU and driver: NVIDIA H100 80GB HBM3, 580.65.06, 9.0" <<<"$out" || fail "GPU line: $out"
grep -q "\[ok\] ncu: $fakes/ncu (Version 2025.1.1.0" <<<"$out" || fail "ncu line: $out"
grep -q "\[ok\] nsys: $fakes/nsys (NVIDIA Nsight Systems version 2025.3.1" <<<"$out" || fail "nsys line: $out"
grep -q "\[ok\] tracer library: $(dirname "$bin")/libllmpo_tracer.so" <<<"$out" || fail "tracer line: $out"
# Counter access this machine cannot check is said to be unknown, not restricted.
if [[ ! -r /proc/driver/nvidia/params ]]; then
  grep -q "ncu profiling (pipeline.ncu.enable=true): may fail: counter access could not be checked" <<<"$out" ||
    fail "unknown counter access verdict: $out"
  if [[ $(id -u) -eq 0 ]]; then ! grep -q "run as root" <<<"$out" || fail "root told to run as root: $out"; fi
fi
out=$(PATH="$fakes:/usr/bin:/bin" LLMPO_TRACER_LIBRARY=/nonexistent.so "$bin" doctor)
grep -q "trace (our NVTX + CUPTI tracer, no nsys needed): will not work: the tracer library is not built" <<<"$out" ||
  fail "tracer verdict: $out"

empty=$(mktemp -d); trap 'rm -rf "$empty"' EXIT
# nsys and ncu without a GPU (nvidia-smi absent): per tool what still works,
# and what the installed version lacks (an ncu 2022.3).
mkdir "$empty/nogpu" && ln -s "$fakes/ncu" "$fakes/nsys" "$empty/nogpu/"
nosight=$(bash "$(dirname "$0")/../path_without_nsight.sh" "$empty")
if [[ ! -e $nosight/nvidia-smi ]]; then
out=$(FAKE_NCU_VERSION=2022.3.0.0 PATH="$empty/nogpu:$nosight" "$bin" doctor)
grep -q "nsys timeline (pipeline.nsys.enable=true): NVTX ranges and OS runtime calls only (no GPU" <<<"$out" ||
  fail "nsys without a GPU: $out"
grep -q "ncu profiling (pipeline.ncu.enable=true): will not work: no GPU (ncu runs the program but profiles no kernel); reading saved .ncu-rep reports with it works; ncu 2022.3: no app-range replay" <<<"$out" ||
  fail "ncu 2022.3 without a GPU: $out"
fi
out=$(PATH="$empty" "$bin" doctor)
grep -q "\[--\] ncu: not found on PATH" <<<"$out" || fail "missing ncu: $out"
grep -q "fix: install Nsight Compute" <<<"$out" || fail "ncu fix: $out"
grep -q "ncu profiling (pipeline.ncu.enable=true): will not work: no GPU" <<<"$out" || fail "verdict: $out"
echo ok
