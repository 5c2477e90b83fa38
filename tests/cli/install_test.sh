#!/usr/bin/env bash
# `cmake --install` into a temporary prefix, then the installed binary, run
# from an unrelated folder, finds its config tree and the tracer relative to
# its own location (P/share/llm-perf-opt/conf, P/lib/llm-perf-opt): config,
# import of a hand-made fixture, trace of a CPU NVTX program.
# Usage: install_test.sh BUILD_DIR SOURCE_DIR [NVTX_CPU_PROGRAM]
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
program=${3:+$(realpath "$3")}
work=$(realpath "$(mktemp -d)"); trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
prefix="$work/prefix"
cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1 ||
  { cat "$work/install.log"; fail "cmake --install exited"; }

P() { "$prefix/bin/llm-perf-opt" "$@"; }
[[ -x "$prefix/bin/llm-perf-opt" ]] || fail "no P/bin/llm-perf-opt"
[[ -f "$prefix/share/llm-perf-opt/conf/config.yaml" ]] || fail "no P/share/llm-perf-opt/conf"
[[ -f "$prefix/share/doc/llm-perf-opt/README.md" && -f "$prefix/share/doc/llm-perf-opt/docs/exit-codes.md" ]] ||
  fail "no docs in P/share/doc/llm-perf-opt (README.md and docs/, as README.md links them)"
[[ -f "$prefix/share/bash-completion/completions/llm-perf-opt" ]] || fail "no bash completion"
if [[ -f "$build/share/man/man1/llm-perf-opt.1" ]]; then
  [[ -f "$prefix/share/man/man1/llm-perf-opt.1" ]] || fail "no man page (the build made one)"
fi
# Nothing in the binary points back at the source or build tree.
! grep -qF "$src/conf" "$prefix/bin/llm-perf-opt" || fail "the binary holds the source conf/ path"

mkdir "$work/elsewhere" && cd "$work/elsewhere"
# config: composed from P/share/llm-perf-opt/conf.
P config >config.yaml 2>err.txt || fail "config exited $?: $(cat err.txt)"
grep -q "^experiment: deep_profile$" config.yaml || fail "config output: $(head config.yaml)"
P config --info >info.txt || fail "config --info exited $?"
grep -qF "$prefix/share/llm-perf-opt/conf (built-in)" info.txt || fail "search path: $(cat info.txt)"
# A moved install still works: nothing is tied to the prefix it was installed to.
cp -r "$prefix" "$work/moved"
"$work/moved/bin/llm-perf-opt" config -p experiment >moved.txt || fail "moved install: config exited $?"
[[ "$(cat moved.txt)" == "deep_profile" ]] || fail "moved install config: $(cat moved.txt)"
# Without its conf/, the error names where it looked.
rm -rf "$work/moved/share/llm-perf-opt/conf"
set +e; "$work/moved/bin/llm-perf-opt" config >/dev/null 2>err.txt; rc=$?; set -e
[[ $rc -ne 0 ]] && grep -qF "$work/moved/share/llm-perf-opt/conf" err.txt || fail "missing conf: $rc $(cat err.txt)"

# import of a hand-made fixture.
P import "$src/tests/fixtures/handmade/ncu_details_2022.csv" --out k >out.txt 2>err.txt ||
  fail "import exited $?: $(cat err.txt)"
grep -q "^imported 1 of 1 input" out.txt || fail "import output: $(cat out.txt)"
[[ -s k/kernels.md && -s k/kernels.json ]] || fail "import wrote no reports"

# trace: the installed tracer library, found from the binary's location.
if [[ -n "$program" ]]; then
  [[ -f "$prefix/lib/llm-perf-opt/libllmpo_tracer.so" ]] || fail "no P/lib/llm-perf-opt/libllmpo_tracer.so"
  unset LLMPO_TRACER_LIBRARY
  P trace hydra.run.dir=t -- "$program" >out.txt 2>err.txt || fail "trace exited $?: $(cat err.txt)"
  grep -q "^status: ok$" out.txt || fail "trace output: $(cat out.txt)"
  [[ -s t/trace/summary_nvtx_sum.csv && -s t/trace/trace.json ]] || fail "trace files: $(ls -R t)"
  grep -q "outer" t/trace/summary_nvtx_sum.csv || fail "trace summary: $(cat t/trace/summary_nvtx_sum.csv)"
  P doctor >doctor.txt
  grep -qF "$prefix/lib/llm-perf-opt/libllmpo_tracer.so" doctor.txt || fail "doctor's tracer: $(cat doctor.txt)"
fi

# The Debian package (cpack -G DEB, written outside the build tree): the same
# layout under /usr, with the shared libraries' packages as dependencies.
if command -v dpkg-deb >/dev/null && command -v dpkg-shlibdeps >/dev/null; then
  cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1 ||
    { cat "$work/cpack.log"; fail "cpack -G DEB exited"; }
  deb=$(ls "$work"/pkg/llm-perf-opt_*_*.deb) || fail "no .deb: $(ls "$work/pkg")"
  dpkg-deb -c "$deb" | awk '{print $6}' >contents.txt
  for f in ./usr/bin/llm-perf-opt ./usr/share/llm-perf-opt/conf/config.yaml ./usr/share/doc/llm-perf-opt/README.md \
           ./usr/share/bash-completion/completions/llm-perf-opt; do
    grep -qx "$f" contents.txt || fail "$f not in the .deb"
  done
  [[ -z "$program" ]] || grep -qx ./usr/lib/llm-perf-opt/libllmpo_tracer.so contents.txt || fail "tracer not in the .deb"
  dpkg-deb -f "$deb" Depends | grep -q "libyaml-cpp" || fail "Depends: $(dpkg-deb -f "$deb" Depends)"
fi
echo PASS
