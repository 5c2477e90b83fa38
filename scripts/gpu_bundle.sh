#!/usr/bin/env bash
# Builds a self-contained bundle for running the GPU test tier on a machine
# with an NVIDIA GPU and no compiler or package registry (docs/workloads.md):
#
#   bash scripts/gpu_bundle.sh [OUT_DIR]        default OUT_DIR: build/gpu-bundle
#
# It builds the release tree (the `release` preset: the tool and the
# workloads; needs nvcc), then assembles OUT_DIR:
#
#   llm-perf-opt        the tool, relinked with RPATH $ORIGIN/lib and stripped
#   libllmpo_tracer.so  the NVTX + CUPTI tracer for `trace` (CUPTI is opened at run time)
#   lib/                the shared libraries it needs that a base system may lack
#   conf/               the configuration tree (the tool reads <its folder>/conf)
#   workloads/          nvtx_regions, dummy_shallow_resnet, tiny_llm (CUDA runtime,
#                       libstdc++ and libgcc linked statically), stripped
#   tests/gpu/          the tier's scripts and tier.txt; tests/fixtures/handmade/
#   run_gpu_tier.sh     runs every test of tier.txt: PASS / FAIL / SKIP, no CTest needed
#
# The bundle has no absolute paths: copy or untar it anywhere. It needs
# x86-64 Linux with glibc 2.34+ (Debian 12, Ubuntu 22.04, RHEL 9 or newer),
# bash and python3 for the tests, and for the GPU tests the NVIDIA driver and
# ncu. It fails if the bundle is over 64 MiB. JOBS sets build parallelism (2).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-$root/build/gpu-bundle}
jobs=${JOBS:-2}
limit=$((64 * 1024 * 1024))
cd "$root"

echo "== build (release preset)"
cmake --preset release >/dev/null
if ! grep -q '^build workloads/tiny_llm:' build/release/build.ninja; then
  echo "gpu_bundle: the release tree has no CUDA workloads: nvcc was not found at configure time" >&2
  echo "  install the CUDA toolkit (or set CMAKE_CUDA_COMPILER) and run again" >&2
  exit 1
fi
cmake --build --preset release -j"$jobs" --target llm-perf-opt llmpo_tracer nvtx_regions dummy_shallow_resnet tiny_llm

echo "== assemble $out"
rm -rf "$out"
mkdir -p "$out/lib" "$out/workloads" "$out/tests/gpu" "$out/tests/fixtures/handmade"

# The tool: the release link line again, with an RPATH to the bundle's lib/.
# DT_RPATH (not RUNPATH) also covers the libraries' own dependencies and is
# not overridden by LD_LIBRARY_PATH; nothing leaks into ncu, which the tool
# starts, as an LD_LIBRARY_PATH wrapper would.
ninja -C build/release -t commands llm-perf-opt | tail -n 1 >"$out/.link"
python3 - "$out/.link" "$out/llm-perf-opt" <<'PY'
import shlex, subprocess, sys
words = shlex.split(open(sys.argv[1]).read())
words = [w for w in words if w not in (':', '&&')]  # ": && c++ ... && :"
i = words.index('-o')
words[i + 1] = sys.argv[2]
words[i + 2:i + 2] = ['-Wl,--disable-new-dtags,-rpath,$ORIGIN/lib']  # no shell: $ORIGIN stays literal
sys.exit(subprocess.run(words, cwd='build/release').returncode)
PY
rm -f "$out/.link"
strip --strip-unneeded "$out/llm-perf-opt"

# Its shared libraries, except the C library itself (which the target has).
base='^(linux-vdso|libc|libm|libdl|libpthread|librt|ld-linux-x86-64)\.so'
while read -r name path; do
  [[ $name =~ $base ]] && continue
  [[ -f $path ]] || { echo "gpu_bundle: cannot find $name" >&2; exit 1; }
  cp -L "$path" "$out/lib/$name"
  chmod 644 "$out/lib/$name"
done < <(ldd "$out/llm-perf-opt" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}')

# The tracer sits next to the tool, where `trace` looks for it.
cp build/release/libllmpo_tracer.so "$out/libllmpo_tracer.so"
strip --strip-unneeded "$out/libllmpo_tracer.so"
cp -r conf "$out/conf"
for w in nvtx_regions dummy_shallow_resnet tiny_llm; do
  cp "build/release/workloads/$w" "$out/workloads/$w"
  strip --strip-unneeded "$out/workloads/$w"
done
cp tests/gpu/*.sh tests/gpu/*.py tests/gpu/tier.txt "$out/tests/gpu/"
rm -f "$out/tests/gpu/emulated_workloads_test.sh"  # needs the sources and a compiler
cp tests/fixtures/handmade/README.md tests/fixtures/handmade/ncu_regions_kernel_replay.csv "$out/tests/fixtures/handmade/"

cat >"$out/run_gpu_tier.sh" <<'RUNNER'
#!/usr/bin/env bash
# Runs the GPU test tier against this bundle, without CTest: every test of
# tests/gpu/tier.txt, each reported as PASS, FAIL or SKIP (with the reason);
# logs go to RESULTS_DIR (default: ./gpu-tier-results); TEST_TIMEOUT_S stops
# a test after that many seconds (default 900, CTest's limit). Exit 0 when nothing
# failed (skips are fine: a machine without a GPU or ncu skips the GPU tests).
#   ./run_gpu_tier.sh [REGEX]        only the tests whose name matches REGEX
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
filter=${1:-.}
results=${RESULTS_DIR:-$PWD/gpu-tier-results}
mkdir -p "$results"
pass=0 failed=0 skipped=0
echo "llm-perf-opt GPU tier: bundle $here, logs in $results"
while read -r label name script rest; do
  [[ -z ${label:-} || $label == \#* ]] && continue
  [[ $name =~ $filter ]] || continue
  read -r -a args <<<"$rest"
  for i in "${!args[@]}"; do
    a=${args[$i]}
    a=${a//@TOOL@/$here/llm-perf-opt}
    a=${a//@WORKLOADS@/$here/workloads}
    a=${a//@FIXTURES@/$here/tests/fixtures/handmade}
    args[$i]=$a
  done
  log="$results/$name.log"
  start=$SECONDS
  LLMPO_GPU_TEST=$name timeout -k 10 "${TEST_TIMEOUT_S:-900}" bash "$here/tests/gpu/$script" "${args[@]}" >"$log" 2>&1
  rc=$?
  took=$((SECONDS - start))
  if [[ $rc -eq 0 ]]; then
    pass=$((pass + 1)); printf 'PASS  %-40s %4ss\n' "$name" "$took"
  elif [[ $rc -eq 77 ]]; then
    skipped=$((skipped + 1)); printf 'SKIP  %-40s %s\n' "$name" "$(grep -m1 '^SKIP:' "$log" | cut -c7-)"
  else
    failed=$((failed + 1)); printf 'FAIL  %-40s %4ss (exit %s; %s)\n' "$name" "$took" "$rc" "$log"
    tail -n 15 "$log" | sed 's/^/      /'
  fi
done <"$here/tests/gpu/tier.txt"
echo "passed $pass, failed $failed, skipped $skipped"
[[ $failed -eq 0 ]]
RUNNER
chmod +x "$out/run_gpu_tier.sh"

cat >"$out/README.txt" <<'README'
llm-perf-opt GPU tier bundle (made by scripts/gpu_bundle.sh; see docs/workloads.md)

  ./run_gpu_tier.sh             run every test of tests/gpu/tier.txt: PASS / FAIL / SKIP
  ./llm-perf-opt doctor         what this machine has (GPU, driver, counter permission, ncu, nsys)
  ./workloads/tiny_llm --check  one workload by hand (exit 0 ok, 1 mismatch, 2 usage, 69 no GPU, 70 CUDA error)

Needs x86-64 Linux with glibc 2.34+, bash and python3; the GPU tests need the
NVIDIA driver (nvidia-smi) and Nsight Compute (ncu on PATH, or /usr/local/cuda/bin/ncu).
README

size=$(du -sb "$out" | cut -f1)
echo "== bundle: $out"
(cd "$out" && find . -type f -printf '%10s  %p\n' | sort -k2)
awk -v s="$size" 'BEGIN { printf "bundle size: %d bytes (%.1f MiB; limit 64 MiB)\n", s, s / 1048576 }'
if ((size > limit)); then
  echo "gpu_bundle: the bundle is over 64 MiB" >&2
  exit 1
fi
echo "copy it to a GPU machine (e.g. tar -C $(dirname "$out") -czf gpu-bundle.tgz $(basename "$out")) and run ./run_gpu_tier.sh there"
